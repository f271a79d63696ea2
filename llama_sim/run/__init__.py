"""Running work: designs (seatings, deal blocks), chunks, backends and line-up kernels."""
