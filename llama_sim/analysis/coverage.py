"""Coverage of the reported intervals, measured: many independent replications of a design at one
size, each analysed exactly as the tools analyse a run of that size.

A run of ``B`` deal blocks plays blocks ``0..B-1`` of its seed, and every block's deal comes from
``(seed, block)`` alone, so consecutive groups of ``B`` blocks of one long stream are independent
replications of a ``B``-block run: the per-block vectors are played once (``block_values``) and
regrouped at every size (``replications``), far cheaper than one run per seed and size.
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from llama_sim.core.stats import Stratified, Tally
from llama_sim.run.chunks import run_chunk
from llama_sim.run.designs import Plan, strata


def block_values(work, seed: int, n_blocks: int) -> list[np.ndarray]:
    """Each stratum's per-block vectors, shape (n_blocks, D): block ``b`` played on its own."""
    return [np.array([run_chunk(plan, s, b, 1)[0] for b in range(n_blocks)]) for plan, s in strata(work, seed)]


def replications(work, values: list[np.ndarray], blocks: int) -> Iterator[Tally | Stratified]:
    """The tally of each consecutive group of ``blocks`` blocks: what a run of that size analyses."""
    plans = [plan for plan, _ in strata(work, 0)]
    for i in range(values[0].shape[0] // blocks):
        parts = [Tally.from_blocks(work.metrics, len(work.unit_labels), plan.appearances(),
                                   v[i * blocks:(i + 1) * blocks]) for plan, v in zip(plans, values)]
        yield parts[0] if isinstance(work, Plan) else Stratified(tuple(parts))


def too_often(misses: int, total: int, level: float = 0.95, alpha: float = 0.001) -> bool:
    """Whether ``misses`` out of ``total`` is significantly above ``1 - level`` (one-sided binomial
    test at ``alpha``): a coverage test that a correct interval fails once in ``1 / alpha`` runs."""
    from scipy.special import bdtrc

    if total == 0 or misses == 0:
        return False
    return float(bdtrc(misses - 1, total, 1 - level)) < alpha


def rate_text(misses: int, total: int) -> str:
    """``misses/total = rate`` with the rate's standard error, for a coverage table."""
    if total == 0:
        return "n/a"
    p = misses / total
    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / total):.3f} ({misses}/{total})"
