"""A read-only row view without reference counting, for handing a kernel's table rows to policies.

A Numba row view (``table[i]``) shares its parent's memory and so carries the parent's meminfo:
making one and dropping it are two atomic reference-count updates per policy call (measured: a
tenth of a L.A.M.A. kernel's time). ``readonly_row`` makes the view without a meminfo, as
``numba.carray`` does over a pointer, so it costs a few register moves; its type is read-only, so a
policy that writes to it does not compile. It is valid while ``table`` is alive: kernels make it at
the call and never keep it.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def readonly_row(typingctx, table, i):
    """``table[i]`` of a C-contiguous 2-D array as a read-only 1-D C array without a meminfo."""
    if not isinstance(table, types.Array) or table.ndim != 2 or table.layout != "C":
        return None
    row_type = types.Array(table.dtype, 1, "C", readonly=True)

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        out = context.make_array(row_type)(context, builder)
        shape = cgutils.unpack_tuple(builder, src.shape, 2)
        strides = cgutils.unpack_tuple(builder, src.strides, 2)
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        context.populate_array(out, data=builder.gep(src.data, [builder.mul(index, shape[1])]),
                               shape=cgutils.pack_array(builder, [shape[1]]),
                               strides=cgutils.pack_array(builder, [strides[1]]), itemsize=src.itemsize,
                               meminfo=None)
        return out._getvalue()

    return row_type(table, i), codegen
