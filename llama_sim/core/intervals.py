"""Student-t intervals with the degrees of freedom a design really has, and the floor below which no
interval is given.

Why t and not the normal 1.96: a variance estimated from few independent units (deal blocks) is
itself noisy, and the normal quantile then gives intervals that are far too narrow (from 2 blocks a
normal 95% interval misses a known mean about one time in three). The t quantile with the design's
degrees of freedom corrects for that at every size and becomes 1.96 as the blocks grow.

Why a floor (``MIN_BLOCKS``): from a handful of blocks even a t interval holds only if the block
means are close to normal, and the per-block values of these games are lumpy (penalties 0..31, wins
0 or 1); a variance from 2 to 4 blocks is also often exactly 0 for a rate. Below the floor the tools
print ``n/a`` and say how many rounds or games would give an interval. Five blocks (4 degrees of
freedom) is the smallest size at which the measured coverage of every interval in
``benchmarks/coverage.py`` stays at its stated level.
"""
from __future__ import annotations

import math

MIN_BLOCKS = 5


def t_value(level: float, df: float) -> float:
    """Two-sided Student-t quantile for confidence ``level`` with ``df`` degrees of freedom; NaN for
    ``df`` below 1 or NaN (no variance estimate)."""
    from scipy.special import stdtrit

    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if math.isnan(df) or df < 1:
        return math.nan
    return float(stdtrit(df, 0.5 + level / 2))


def t_p_value(value: float, se: float, df: float) -> float:
    """Two-sided p-value of ``value / se`` under Student t with ``df``; zero standard error gives 1
    for a zero value, else 0; NaN when anything is undefined."""
    from scipy.special import stdtr

    if math.isnan(value) or math.isnan(se) or math.isnan(df) or df < 1:
        return math.nan
    if se == 0:
        return 1.0 if value == 0 else 0.0
    return float(2 * stdtr(df, -abs(value) / se))


def satterthwaite(parts, df_each) -> float:
    """Degrees of freedom of a sum of independent variance estimates ``parts``, each on ``df_each``
    (one number for all, or one per part; Welch-Satterthwaite): between the smallest part's
    (one part dominates) and the sum of them (equal parts)."""
    parts = [float(p) for p in parts]
    dfs = [float(df_each)] * len(parts) if isinstance(df_each, (int, float)) else [float(d) for d in df_each]
    if any(math.isnan(d) or d <= 0 for d, p in zip(dfs, parts) if p > 0) or any(map(math.isnan, parts)):
        return math.nan
    total = sum(parts)
    spread = sum(p * p / d for p, d in zip(parts, dfs) if p > 0)
    if spread <= 0:
        return float(sum(d for d in dfs if not math.isnan(d)))
    return total * total / spread


def wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval for proportion ``p`` from ``n`` (possibly effective) trials."""
    if not n > 0 or math.isnan(p):
        return math.nan, math.nan
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(max(p * (1 - p) / n + z2n / (4 * n), 0.0)) / (1 + z2n)
    return max(centre - half, 0.0), min(centre + half, 1.0)  # (rounding would leave 0 or 1 by 1e-17)


def not_given(blocks: int, per_block: int, what: str) -> str:
    """The note shown instead of intervals from fewer than ``MIN_BLOCKS`` blocks."""
    return (f"95% intervals: n/a (only {blocks} deal block{'s' if blocks != 1 else ''}; need >= {MIN_BLOCKS}"
            f" — use --{what} >= {MIN_BLOCKS * per_block})")
