"""Luck-adjusted estimates: the raw metric that holds each unit's summed luck, and how an estimate
subtracts it.

Each chance event a kernel resolves (a card dealt or drawn, a roll) adds, for every seat whose value
it changes, ``V(after) - E[V(after) | before]`` under the rule set's value function ``V`` (a predictor
of the seat's round penalty). The simulator knows the true remaining pile or dice, so the expectation
is exact and every term has conditional mean 0 whatever ``V`` is: the penalty minus its summed luck
has the penalty's expectation (a martingale with a bounded stopping time), with coefficient 1 and
nothing fitted to the run itself. A good ``V`` only makes the difference less noisy.

The luck is a raw metric after the plain ones (``with_luck``), in thousandths of a point
(``LUCK_SCALE``), rounded once per seating (at most half a thousandth per play: far below any
interval) so chunks still merge exactly in int64. Which reported metrics it adjusts: those whose
numerator is a raw metric of ``ADJUSTS``.
"""
from __future__ import annotations

import math

LUCK_SCALE = 1000  # luck in thousandths of a point
LUCK_METRIC = "penalty_luck"
ADJUSTS = {"penalty": LUCK_METRIC}  # raw metric -> the raw metric holding its luck


def with_luck(metrics: tuple[str, ...]) -> tuple[str, ...]:
    """A tally's raw metrics with the luck metric after them."""
    return tuple(metrics) + (LUCK_METRIC,)


def plain(metrics: tuple[str, ...]) -> tuple[str, ...]:
    """The raw metrics without the luck metric."""
    return tuple(m for m in metrics if m != LUCK_METRIC)


def luck_of(metrics: tuple[str, ...], raw: str) -> str | None:
    """The raw metric holding ``raw``'s luck in a tally of ``metrics``; None: not adjusted."""
    name = ADJUSTS.get(raw)
    return name if name is not None and name in metrics else None


def scaled(luck: float) -> int:
    """One seating's luck as the kernels add it (``LUCK_SCALE``, half away from zero rounded up)."""
    return int(math.floor(luck * LUCK_SCALE + 0.5))


def resolve(game, luck: bool | None) -> bool:
    """``luck`` as given, or the rule set's default (``RuleSet.luck_default``; off where it has no value
    function). Asking for it where the rule set has none is a usage error."""
    from llama_sim.core.parameters import Problem

    if luck is None:
        return bool(game.luck_default)
    if luck and game.luck_default is None:
        raise Problem("luck", f"{game.name} has no value function for luck adjustment")
    return bool(luck)


def load_weights(path, shape: tuple[int, ...]):
    """A value function's table shipped with a rule set (JSON: ``{"weights": nested lists, ...}``, made by
    ``scripts/fit_luck.py``) as a C-contiguous float64 array of ``shape``; zeros (no luck counted, still
    unbiased) where the file is missing."""
    import json

    import numpy as np

    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except FileNotFoundError:
        return np.zeros(shape)
    table = np.ascontiguousarray(np.asarray(data["weights"], dtype=np.float64))
    if table.shape != tuple(shape):
        raise ValueError(f"{path}: value table of shape {table.shape}, expected {tuple(shape)}")
    return table
