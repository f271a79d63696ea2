"""Exact, mergeable tallies and the intervals reported from them.

The simulation kernels reduce every *block* (one deal, played once per seat rotation in
``compare`` or once in ``simulate``) to an integer vector ``v`` of length ``D = M * U``
(M raw metrics x U units, flat index ``m * U + u``) and accumulate ``s1 = sum v``,
``s2 = sum v v^T`` and the block count in int64.  Integer sums merge exactly in any order,
so chunks from threads or Dask workers combine to identical results.

Blocks, not seats, are the independent units: the seats of one deal share the cards, so
every variance here is a variance *over blocks*.  Each reported number is a ratio of block
totals ``R = sum X / sum Y``; its variance comes from the delta method,
``var(R) ~= var_b(X_b - R Y_b) / (B * Ybar^2)`` with the sample (B-1) variance, computed
from ``s1``/``s2`` alone through the exact block covariance matrix.  Intervals and p-values
take Student t on the design's degrees of freedom, none below ``MIN_BLOCKS`` (``intervals``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from statistics import NormalDist

from llama_sim.core.intervals import MIN_BLOCKS, satterthwaite, t_p_value, t_value, wilson  # noqa: F401
from llama_sim.core.luck import LUCK_SCALE, luck_of, plain

ROUND_METRICS: tuple[str, ...] = ("penalty", "went_out", "quit")
GAME_METRICS: tuple[str, ...] = ("penalty", "went_out", "quit", "rounds", "win60", "final_score")
WIN_SCALE = 60  # win60 = 60/k per k-way tied win; 60 = lcm(1..6) keeps it an integer

# reported metric -> (numerator raw metric, denominator raw metric or None, constant scale).
# A None denominator means the constant Y_b = scale * appearances[u].
_SPECS: dict[str, dict[str, tuple[str, str | None, int]]] = {
    "round": {
        "penalty_per_round": ("penalty", None, 1),
        "went_out_rate": ("went_out", None, 1),
        "quit_rate": ("quit", None, 1),
    },
    "game": {
        "penalty_per_round": ("penalty", "rounds", 1),
        "went_out_rate": ("went_out", "rounds", 1),
        "quit_rate": ("quit", "rounds", 1),
        "win_rate": ("win60", None, WIN_SCALE),
        "final_score": ("final_score", None, 1),
        "rounds_per_game": ("rounds", None, 1),
    },
}
REPORTED: dict[str, tuple[str, ...]] = {mode: tuple(specs) for mode, specs in _SPECS.items()}
POINT_METRICS = frozenset({"penalty_per_round", "final_score", "rounds_per_game"})
RATE_METRICS = frozenset({"went_out_rate", "quit_rate", "win_rate"})
LOWER_IS_BETTER = frozenset({"penalty_per_round", "final_score"})
HIGHER_IS_BETTER = frozenset({"win_rate", "went_out_rate"})


def _int_array(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    """Integer arrays only: a float here means a kernel bug, and exact merging needs ints."""
    arr = np.asarray(value)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array, got dtype {arr.dtype}")
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    return arr.astype(np.int64)


@dataclass(eq=False)
class Tally:
    """Additive sufficient statistics of B blocks: ``s1`` (D,), ``s2`` (D, D), int64.

    ``appearances[u]`` is how many observations (rounds in round mode, games in game mode)
    unit u contributes to every block.  The mode is read from ``metrics``.
    """

    metrics: tuple[str, ...]
    units: int
    appearances: np.ndarray
    blocks: int
    s1: np.ndarray
    s2: np.ndarray

    def __post_init__(self) -> None:
        self.metrics = tuple(self.metrics)
        if plain(self.metrics) not in (ROUND_METRICS, GAME_METRICS) or len(set(self.metrics)) != len(self.metrics):
            raise ValueError(f"metrics must be {ROUND_METRICS} (round mode) or {GAME_METRICS} (game mode), "
                             f"each possibly with its luck (core.luck), got {self.metrics}")
        self.units = int(self.units)
        if self.units < 1:
            raise ValueError("units must be at least 1")
        self.appearances = _int_array("appearances", self.appearances, (self.units,))
        if (self.appearances < 0).any():
            raise ValueError("appearances must be non-negative")
        self.blocks = int(self.blocks)
        if self.blocks < 0:
            raise ValueError("blocks must be non-negative")
        d = self.dim
        self.s1 = _int_array("s1", self.s1, (d,))
        self.s2 = _int_array("s2", self.s2, (d, d))
        if not np.array_equal(self.s2, self.s2.T):
            raise ValueError("s2 must be symmetric")

    @property
    def mode(self) -> str:
        """``"game"`` when the tally carries per-game metrics, else ``"round"``."""
        return "game" if plain(self.metrics) == GAME_METRICS else "round"

    @property
    def dim(self) -> int:
        return len(self.metrics) * self.units

    def index(self, metric: str, unit: int) -> int:
        """Flat index of raw ``metric`` for ``unit`` (``m * U + u``)."""
        if not 0 <= unit < self.units:
            raise ValueError(f"unit {unit} out of range 0..{self.units - 1}")
        return self.metrics.index(metric) * self.units + unit

    @classmethod
    def empty(cls, metrics, units: int, appearances) -> Tally:
        """Zero-block tally: the identity of ``merge``."""
        d = len(tuple(metrics)) * int(units)
        return cls(metrics, units, np.asarray(appearances, dtype=np.int64), 0,
                   np.zeros(d, np.int64), np.zeros((d, d), np.int64))

    @classmethod
    def from_blocks(cls, metrics, units: int, appearances, values) -> Tally:
        """Tally of explicit per-block vectors ``values`` (shape (B, D), integers).

        The same accumulation the kernels do; useful for reference code and tests.
        """
        d = len(tuple(metrics)) * int(units)
        v = np.asarray(values)
        if v.ndim != 2 or v.shape[1] != d:
            raise ValueError(f"values must have shape (B, {d}), got {v.shape}")
        if v.size and not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"values must be integers, got dtype {v.dtype}")
        v = v.astype(np.int64)
        return cls(metrics, units, np.asarray(appearances, dtype=np.int64), v.shape[0],
                   v.sum(axis=0), v.T @ v)

    def merge(self, other: Tally) -> Tally:
        """Exact sum of two tallies of the same experiment (same metrics, units, appearances)."""
        if not isinstance(other, Tally):
            raise TypeError(f"cannot merge Tally with {type(other).__name__}")
        if (other.metrics != self.metrics or other.units != self.units
                or not np.array_equal(other.appearances, self.appearances)):
            raise ValueError("cannot merge tallies with different metrics, units or appearances")
        return Tally(self.metrics, self.units, self.appearances.copy(),
                     self.blocks + other.blocks, self.s1 + other.s1, self.s2 + other.s2)

    def __add__(self, other):
        return self.merge(other) if isinstance(other, Tally) else NotImplemented

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tally):
            return NotImplemented
        return (self.metrics == other.metrics and self.units == other.units
                and self.blocks == other.blocks
                and np.array_equal(self.appearances, other.appearances)
                and np.array_equal(self.s1, other.s1) and np.array_equal(self.s2, other.s2))

    __hash__ = None


@dataclass(eq=False)
class Stratified:
    """Tallies of several *strata* played on independent deals, B blocks each: one design block.

    ``compare`` plays every seating of its line-up, but each seating class (one seating and its
    rotations) on its own stream of deals, so stratum ``c``'s block ``b`` and stratum ``c'``'s
    block ``b`` are independent.  Design block ``b`` is the union of block ``b`` of every
    stratum: its vector is ``V_b = sum_c v_c,b`` with covariance ``sum_c Cov(v_c)`` (independent
    strata), estimated stratum by stratum.  Everything else (``s1``, ``appearances``) simply adds
    up, so every function of this module that takes a ``Tally`` takes a ``Stratified`` too.
    """

    strata: tuple[Tally, ...]

    def __post_init__(self) -> None:
        self.strata = tuple(self.strata)
        if not self.strata or not all(isinstance(t, Tally) for t in self.strata):
            raise ValueError("a Stratified tally needs at least one Tally stratum")
        first = self.strata[0]
        for t in self.strata[1:]:
            if t.metrics != first.metrics or t.units != first.units:
                raise ValueError("strata must share metrics and units")
            if t.blocks != first.blocks:
                raise ValueError("every stratum must hold the same number of blocks")

    metrics = property(lambda self: self.strata[0].metrics)
    units = property(lambda self: self.strata[0].units)
    mode = property(lambda self: self.strata[0].mode)
    dim = property(lambda self: self.strata[0].dim)
    blocks = property(lambda self: self.strata[0].blocks, doc="Design blocks (blocks per stratum).")

    def index(self, metric: str, unit: int) -> int:
        return self.strata[0].index(metric, unit)

    @cached_property
    def appearances(self) -> np.ndarray:
        """Observations each unit contributes per design block (summed over strata)."""
        return np.sum([t.appearances for t in self.strata], axis=0)

    @cached_property
    def s1(self) -> np.ndarray:
        return np.sum([t.s1 for t in self.strata], axis=0)

    @cached_property
    def stratum_covariances(self) -> tuple[np.ndarray, ...] | None:
        """Each stratum's block covariance (their spread sets the degrees of freedom; cached)."""
        covs = tuple(block_covariance(t) for t in self.strata)
        return None if covs[0] is None else covs

    @cached_property
    def covariance(self) -> np.ndarray | None:
        """Covariance of the design-block vector (``block_covariance`` reads it; cached)."""
        covs = self.stratum_covariances
        return None if covs is None else np.sum(covs, axis=0)

    @classmethod
    def empty(cls, metrics, units: int, appearances_per_stratum) -> Stratified:
        return cls(tuple(Tally.empty(metrics, units, a) for a in appearances_per_stratum))

    def merge(self, other: Stratified) -> Stratified:
        """Stratum by stratum exact sums (same strata in the same order)."""
        if not isinstance(other, Stratified):
            raise TypeError(f"cannot merge Stratified with {type(other).__name__}")
        if len(other.strata) != len(self.strata):
            raise ValueError("cannot merge stratified tallies with different strata")
        return Stratified(tuple(a.merge(b) for a, b in zip(self.strata, other.strata)))

    def __add__(self, other):
        return self.merge(other) if isinstance(other, Stratified) else NotImplemented

    def __eq__(self, other) -> bool:
        if not isinstance(other, Stratified):
            return NotImplemented
        return len(self.strata) == len(other.strata) and all(
            a == b for a, b in zip(self.strata, other.strata))

    __hash__ = None


@dataclass(frozen=True)
class Estimate:
    """One reported number with its interval; ``n`` = observations (rounds or games) behind it,
    ``df`` the degrees of freedom of its t interval (NaN: no interval)."""

    value: float
    ci_low: float
    ci_high: float
    se: float
    n: int
    df: float = math.nan

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def z_value(level: float) -> float:
    """Two-sided normal quantile for confidence ``level`` (1.959964... for 0.95)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def block_covariance(tally: Tally | Stratified) -> np.ndarray | None:
    """Sample (B-1) covariance matrix of the block vectors, or None when B < 2.

    For a ``Stratified`` tally: the covariance of the design block, the sum of the strata's.

    ``B*s2 - s1 s1^T`` is formed in exact Python integers (it would overflow int64 and lose
    digits in float), so only the final division rounds.
    """
    if isinstance(tally, Stratified):  # independent strata: covariances add
        return tally.covariance
    b = tally.blocks
    if b < 2:
        return None
    s1 = tally.s1.astype(object)
    centred = b * tally.s2.astype(object) - np.outer(s1, s1)
    return (centred / (b * (b - 1))).astype(float)


def _check_metric(tally: Tally, metric: str) -> tuple[str, str | None, int]:
    specs = _SPECS[tally.mode]
    if metric not in specs:
        raise ValueError(f"metric {metric!r} is not reported in {tally.mode} mode; "
                         f"choose from {REPORTED[tally.mode]}")
    return specs[metric]


def _linearise(tally: Tally, metric: str, unit: int) -> tuple[float, np.ndarray, int]:
    """Value R, gradient g and observation count n for one (metric, unit).

    ``g`` is the delta-method linearisation on the block vector:
    ``R_hat - R ~= g . (vbar - E v)`` with ``g = (e_X - R e_Y) / Ybar``, hence
    ``var(R) = g^T C g / B``.  For constant denominators ``e_Y`` drops out.
    """
    num, den, scale = _check_metric(tally, metric)
    b = tally.blocks
    g = np.zeros(tally.dim)
    i = tally.index(num, unit)
    if den is None:
        n = int(tally.appearances[unit]) * b
        y_total = scale * n
    else:
        j = tally.index(den, unit)
        y_total = int(tally.s1[j])
        n = y_total  # total rounds behind a per-round rate in game mode
    if y_total == 0:
        return math.nan, g * math.nan, n
    luck = luck_of(tally.metrics, num)  # the metric minus its luck (``core.luck``), when the tally has it
    k = None if luck is None else tally.index(luck, unit)
    r = (int(tally.s1[i]) - (0 if k is None else int(tally.s1[k]) / LUCK_SCALE)) / y_total
    ybar = y_total / b
    g[i] = 1 / ybar
    if k is not None:
        g[k] = -1 / (LUCK_SCALE * ybar)
    if den is not None:
        g[j] = -r / ybar
    return r, g, n


class _Spread:
    """A tally's block covariance (summed over strata) and each stratum's: a contrast's variance comes
    from the sum, its degrees of freedom from the parts (``satterthwaite``); below ``MIN_BLOCKS`` blocks
    there is no quantile (``t``), hence no interval and no p-value."""

    def __init__(self, tally: Tally | Stratified):
        self.blocks = tally.blocks
        self.cov = block_covariance(tally)
        self.parts = tally.stratum_covariances if isinstance(tally, Stratified) else None

    def var(self, g: np.ndarray) -> float:
        return _variance(g, self.cov, self.blocks)

    def df(self, g: np.ndarray) -> float:
        """Degrees of freedom of ``g``'s variance (NaN below 2 blocks)."""
        if self.blocks < 2 or np.isnan(g).any():
            return math.nan
        if self.parts is None or len(self.parts) == 1:
            return float(self.blocks - 1)
        gg = np.outer(g, g)  # once for every part: the same products as ``_variance``'s, so the same sums
        return satterthwaite([max(float(np.sum(gg * c)) / self.blocks, 0.0) for c in self.parts], self.blocks - 1)

    def t(self, level: float, df: float) -> float:
        """The interval's quantile; NaN below ``MIN_BLOCKS`` blocks."""
        return t_value(level, df) if self.blocks >= MIN_BLOCKS else math.nan


def _variance(g: np.ndarray, cov: np.ndarray | None, blocks: int) -> float:
    """``g^T C g / B``, clamped at 0 against rounding; NaN when B < 2.

    Elementwise products and a plain sum instead of BLAS: deterministic on every machine, and
    terms that cancel exactly (a unit compared with an identical twin) give exactly 0.
    """
    if cov is None or np.isnan(g).any():
        return math.nan
    return max(float(np.sum(np.outer(g, g) * cov)) / blocks, 0.0)


def _estimate(tally: Tally, metric: str, unit: int, level: float, spread: _Spread) -> Estimate:
    r, g, n = _linearise(tally, metric, unit)
    var = spread.var(g)
    se = math.sqrt(var)  # nan stays nan
    df = spread.df(g)
    z = spread.t(level, df)
    if math.isnan(r) or math.isnan(var) or math.isnan(z):
        return Estimate(r, math.nan, math.nan, se, n, df)
    if metric in POINT_METRICS:
        return Estimate(r, r - z * se, r + z * se, se, n, df)
    # Design-effect Wilson: n_eff = R(1-R)/var0(R), var0 using the B (not B-1) block variance
    # so one Bernoulli observation per block gives n_eff == n exactly (textbook Wilson).
    var0 = var * (tally.blocks - 1) / tally.blocks
    if var0 <= 0 or r <= 0 or r >= 1:
        n_eff = float(n)
    else:
        n_eff = r * (1 - r) / var0
    lo, hi = wilson(r, n_eff, z)
    return Estimate(r, lo, hi, se, n, df)


def estimate(tally: Tally, metric: str, unit: int, level: float = 0.95) -> Estimate:
    """Value and interval of reported ``metric`` for ``unit``.

    Points metrics: ``R +- t se`` (``t``: the Student quantile on the design's degrees of freedom,
    ``B - 1`` blocks, or the Satterthwaite value over strata).  Rates: Wilson interval (with the
    same ``t`` as its quantile) with effective sample size
    ``R(1-R)/var(R)`` (design effect of correlated seats/rounds; var(R) here with divisor B so
    independent single-observation blocks give the textbook Wilson exactly), falling back to
    the plain observation count when the variance is 0 or R is 0 or 1.  ``se`` always uses
    the B-1 sample variance.  Fewer than ``MIN_BLOCKS`` blocks give NaN intervals;
    a zero denominator gives a NaN value.
    """
    return _estimate(tally, metric, unit, level, _Spread(tally))


def summarise(tally: Tally, level: float = 0.95, metrics=None) -> pd.DataFrame:
    """Tidy table, one row per (unit, reported metric): unit, metric, value, ci_low, ci_high, n.

    ``metrics`` defaults to every metric reported in the tally's mode.
    """
    spread = _Spread(tally)
    names = REPORTED[tally.mode] if metrics is None else tuple(metrics)
    rows = []
    for u in range(tally.units):
        for m in names:
            e = _estimate(tally, m, u, level, spread)
            rows.append({"unit": u, "metric": m, "value": e.value, "ci_low": e.ci_low,
                         "ci_high": e.ci_high, "n": e.n})
    return pd.DataFrame(rows, columns=["unit", "metric", "value", "ci_low", "ci_high", "n"])


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni step-down adjusted p-values (monotone in the raw order, capped at 1).

    NaN entries stay NaN and do not count towards the number of tests.
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    out = np.full(p.shape, math.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    if ((q < 0) | (q > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    m = q.size
    order = np.argsort(q, kind="stable")
    adj = np.minimum(np.maximum.accumulate((m - np.arange(m)) * q[order]), 1.0)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


_PAIR_COLUMNS = ["unit_a", "unit_b", "metric", "diff", "ci_low", "ci_high", "p_value",
                 "p_holm", "unpaired_ci_low", "unpaired_ci_high", "n_blocks"]


def _pairs(tally: Tally, metric: str, level: float, spread: _Spread) -> list[dict]:
    lin = [_linearise(tally, metric, u) for u in range(tally.units)]
    b = tally.blocks
    rows = []
    for a in range(tally.units):
        for c in range(a + 1, tally.units):
            (ra, ga, _), (rc, gc, _) = lin[a], lin[c]
            diff = ra - rc
            var = spread.var(ga - gc)
            var_unpaired = spread.var(ga) + spread.var(gc)
            se, se_u = math.sqrt(var), math.sqrt(var_unpaired)  # sqrt(nan) is nan
            df = spread.df(ga - gc)
            z, z_u = spread.t(level, df), spread.t(level, min(spread.df(ga), spread.df(gc)))
            p = t_p_value(diff, se, df) if not math.isnan(z) else math.nan
            rows.append({"unit_a": a, "unit_b": c, "metric": metric, "diff": diff,
                         "ci_low": diff - z * se, "ci_high": diff + z * se, "p_value": p,
                         "unpaired_ci_low": diff - z_u * se_u, "unpaired_ci_high": diff + z_u * se_u,
                         "n_blocks": b})
    return rows


def paired(tally: Tally, metric: str, level: float = 0.95) -> pd.DataFrame:
    """Paired (common random numbers) differences R_a - R_b for every pair a < b.

    Per block the difference is linearised as
    ``d_b = (X_a,b - R_a Y_a,b)/Ybar_a - (X_b,b - R_b Y_b,b)/Ybar_b``; its block variance gives
    a t interval and a two-sided t p-value (``estimate``'s degrees of freedom), Holm-adjusted over
    the pairs in this table.
    ``unpaired_ci_*`` treats the two estimates as independent (``se = sqrt(se_a^2 + se_b^2)``)
    to show what pairing gains.  Zero standard error gives p = 1 for a zero difference, else 0.
    """
    rows = _pairs(tally, metric, level, _Spread(tally))
    df = pd.DataFrame(rows, columns=[c for c in _PAIR_COLUMNS if c != "p_holm"])
    df.insert(_PAIR_COLUMNS.index("p_holm"), "p_holm", holm(df["p_value"].to_numpy()))
    return df


def contrast(tally: Tally, metric: str, weights, level: float = 0.95) -> Estimate:
    """``sum_u w_u R_u`` for reported ``metric`` with a t interval over blocks.

    The same delta-method linearisation as ``paired`` (which is the contrast ``e_a - e_b``), so
    the variance uses the exact block covariance of all units together (common deals).
    ``n`` is the number of blocks.
    """
    w = np.asarray(weights, dtype=float).ravel()
    if w.size != tally.units:
        raise ValueError(f"need {tally.units} weights, got {w.size}")
    value = 0.0
    g = np.zeros(tally.dim)
    for u in np.flatnonzero(w):
        r, gu, _ = _linearise(tally, metric, int(u))
        value += w[u] * r
        g = g + w[u] * gu
    spread = _Spread(tally)
    se = math.sqrt(spread.var(g))
    df = spread.df(g)
    z = spread.t(level, df)
    return Estimate(value, value - z * se, value + z * se, se, tally.blocks, df)


def p_value(e: Estimate) -> float:
    """Two-sided t p-value of ``e.value = 0`` on ``e``'s degrees of freedom; NaN when ``e`` has no
    interval (fewer than ``MIN_BLOCKS`` blocks)."""
    return math.nan if math.isnan(e.ci_low) else t_p_value(e.value, e.se, e.df)


def versus_mean(tally: Tally, metric: str, level: float = 0.95) -> pd.DataFrame:
    """Each unit's value minus the mean over all units, with a t interval over blocks.

    Used for seat effects (units = seats of one line-up): ``vs_mean < 0`` on a penalty means
    that seat scores less than the table average.  ``p_value`` tests ``vs_mean = 0``;
    ``p_holm`` is Holm-adjusted over the units of this table.
    """
    k = tally.units
    rows = []
    for u in range(k):
        w = np.full(k, -1.0 / k)
        w[u] += 1.0
        e = contrast(tally, metric, w, level)
        rows.append({"unit": u, "metric": metric, "value": _linearise(tally, metric, u)[0],
                     "vs_mean": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high,
                     "p_value": p_value(e), "n_blocks": tally.blocks})
    df = pd.DataFrame(rows, columns=["unit", "metric", "value", "vs_mean", "ci_low", "ci_high",
                                     "p_value", "n_blocks"])
    df.insert(7, "p_holm", holm(df["p_value"].to_numpy()))
    return df


def ranking(tally: Tally, metric: str, level: float = 0.95) -> pd.DataFrame:
    """Units best first on ``metric`` with ``rank`` (1 = best) and ``indistinguishable_from``.

    Lower is better for ``LOWER_IS_BETTER``, higher for ``HIGHER_IS_BETTER``; other metrics
    raise ValueError.  ``indistinguishable_from`` is the tuple of units whose Holm-adjusted
    paired p-value against this unit is >= 1 - level (or undefined): the data cannot separate
    them.  Units with a NaN value sort last.
    """
    if metric in LOWER_IS_BETTER:
        sign = 1.0
    elif metric in HIGHER_IS_BETTER:
        sign = -1.0
    else:
        raise ValueError(f"metric {metric!r} is not ranked; choose from "
                         f"{sorted(LOWER_IS_BETTER | HIGHER_IS_BETTER)}")
    summ = summarise(tally, level, metrics=(metric,))
    pairs = paired(tally, metric, level)
    alpha = 1 - level
    close: dict[int, list[int]] = {u: [] for u in range(tally.units)}
    for a, b, p in zip(pairs["unit_a"], pairs["unit_b"], pairs["p_holm"]):
        if not p < alpha:  # NaN counts as "cannot separate"
            close[a].append(b)
            close[b].append(a)
    key = summ["value"].to_numpy() * sign
    order = sorted(range(tally.units), key=lambda u: (math.isnan(key[u]), key[u], u))
    out = summ.iloc[order].reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, tally.units + 1))
    out["indistinguishable_from"] = [tuple(sorted(close[u])) for u in out["unit"]]
    return out


def max_half_width(tally: Tally, metrics=None, level: float = 0.95,
                   pairs: bool = False, vs_mean: bool = False) -> float:
    """Largest interval half-width ((ci_high - ci_low)/2) over ``metrics`` and all units.

    With ``pairs=True`` the paired differences of every unit pair count too, with
    ``vs_mean=True`` each unit's difference from the mean of all units (``versus_mean``).  Any
    undefined interval (fewer than ``MIN_BLOCKS`` blocks, zero denominator) makes the result
    ``inf``: precision is not known yet.
    """
    names = REPORTED[tally.mode] if metrics is None else tuple(metrics)
    spread = _Spread(tally)
    widths = []
    for m in names:
        for u in range(tally.units):
            widths.append(_estimate(tally, m, u, level, spread).half_width)
        if pairs:
            widths.extend((r["ci_high"] - r["ci_low"]) / 2 for r in _pairs(tally, m, level, spread))
        if vs_mean:
            vm = versus_mean(tally, m, level)
            widths.extend((vm["ci_high"] - vm["ci_low"]) / 2)
    if not widths:
        return 0.0
    w = np.asarray(widths, dtype=float)
    return math.inf if np.isnan(w).any() else float(w.max())


def should_stop(tally: Tally, precision: float, metrics=None, level: float = 0.95,
                min_blocks: int = 200, pairs: bool = False, vs_mean: bool = False) -> bool:
    """Sequential stopping rule for ``--precision``.

    Check after each batch of blocks; stop once ``blocks >= min_blocks`` and every half-width
    (``max_half_width`` with the same arguments) is ``<= precision``.  The ``min_blocks`` floor
    keeps the variance estimate itself from being too noisy to trust on an early lucky batch.
    """
    if precision <= 0:
        raise ValueError("precision must be positive")
    if tally.blocks < min_blocks:
        return False
    return max_half_width(tally, metrics, level, pairs, vs_mean) <= precision
