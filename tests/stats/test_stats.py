"""Tests for llama_sim.core.stats: exact agreement with per-block reference formulas, exact merging,
interval coverage on processes with known means, Wilson and Holm against hand computations."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student

from llama_sim.core.stats import (
    GAME_METRICS, ROUND_METRICS, Estimate, Tally, block_covariance, estimate, holm, max_half_width, paired,
    ranking, should_stop, summarise, wilson, z_value,
)

Z95 = 1.959963984540054


def T95(blocks):
    """The 95% quantile an interval from ``blocks`` blocks uses: Student t on blocks - 1 degrees of freedom."""
    return student.ppf(0.975, blocks - 1)

# The spec, written out independently of the module:
# reported metric -> (numerator raw, denominator raw or None, constant scale, kind)
ROUND_REF = {
    "penalty_per_round": ("penalty", None, 1, "points"),
    "went_out_rate": ("went_out", None, 1, "rate"),
    "quit_rate": ("quit", None, 1, "rate"),
}
GAME_REF = {
    "penalty_per_round": ("penalty", "rounds", 1, "points"),
    "went_out_rate": ("went_out", "rounds", 1, "rate"),
    "quit_rate": ("quit", "rounds", 1, "rate"),
    "win_rate": ("win60", None, 60, "rate"),
    "final_score": ("final_score", None, 1, "points"),
    "rounds_per_game": ("rounds", None, 1, "points"),
}


# ----------------------------------------------------------------------------- synthetic data

def flatten(raw, metrics):
    """(B, U) arrays per raw metric -> (B, M*U) with column m*U + u."""
    return np.concatenate([raw[m] for m in metrics], axis=1).astype(np.int64)


def round_blocks(rng, blocks, apps):
    """Round-mode block data with a shared per-deal effect (seats of one deal correlated)."""
    apps = np.asarray(apps)
    lam = rng.gamma(2.0, 1.5, size=(blocks, 1))
    p = rng.beta(1.0, 3.0, size=(blocks, 1))
    penalty = rng.poisson(lam * apps)
    went = rng.binomial(np.broadcast_to(apps, (blocks, apps.size)), p)
    quit_ = rng.binomial(apps - went, 0.3)
    return {"penalty": penalty, "went_out": went, "quit": quit_}


def game_blocks(rng, blocks, apps):
    """Game-mode block data: random rounds per unit, 60/k win credit for k-way ties."""
    apps = np.asarray(apps)
    u = apps.size
    base = rng.poisson(3.0, size=(blocks, 1))
    rounds = apps * (2 + base) + rng.poisson(np.broadcast_to(apps, (blocks, u)))
    lam = rng.gamma(2.0, 1.5, size=(blocks, 1))
    p = rng.beta(1.0, 3.0, size=(blocks, 1))
    penalty = rng.poisson(lam * rounds)
    went = rng.binomial(rounds, p)
    quit_ = rng.binomial(rounds - went, 0.3)
    g = apps.max()
    played = np.arange(g)[None, None, :] < apps[None, :, None]
    won = rng.random((blocks, u, g)) < 0.35
    ties = rng.integers(1, 4, size=(blocks, u, g))
    win60 = (played * won * (60 // ties)).sum(axis=2)
    final = rng.poisson(15.0 * apps, size=(blocks, u)) + penalty // 3
    return {"penalty": penalty, "went_out": went, "quit": quit_, "rounds": rounds,
            "win60": win60, "final_score": final}


def textbook_wilson(p, n, z):
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def ref_linear(raw, apps, ref, metric, unit):
    """Direct per-block computation: value, var(R), var0(R), per-block linearisation, n."""
    num, den, scale, kind = ref[metric]
    x = raw[num][:, unit].astype(float)
    b = x.size
    y = np.full(b, float(scale * apps[unit])) if den is None else raw[den][:, unit].astype(float)
    r = x.sum() / y.sum()
    zb = x - r * y
    ybar = np.mean(y)
    var = np.var(zb, ddof=1) / (b * ybar ** 2)
    var0 = np.var(zb, ddof=0) / (b * ybar ** 2)
    n = int(apps[unit]) * b if den is None else int(raw[den][:, unit].sum())
    return r, var, var0, zb / ybar, n, kind


def ref_interval(r, var, var0, n, kind, z=Z95):
    if kind == "points":
        return r - z * math.sqrt(var), r + z * math.sqrt(var)
    n_eff = n if (var0 == 0 or r in (0.0, 1.0)) else r * (1 - r) / var0
    return textbook_wilson(r, n_eff, z)


# ----------------------------------------------------------------------------- Tally

def test_from_blocks_matches_explicit_accumulation():
    rng = np.random.default_rng(1)
    raw = round_blocks(rng, 7, [2, 3])
    v = flatten(raw, ROUND_METRICS)
    t = Tally.from_blocks(ROUND_METRICS, 2, [2, 3], v)
    s1 = np.zeros(6, np.int64)
    s2 = np.zeros((6, 6), np.int64)
    for row in v:
        s1 += row
        s2 += np.outer(row, row)
    assert t.blocks == 7 and t.mode == "round" and t.dim == 6
    assert t.s1.dtype == np.int64 and t.s2.dtype == np.int64
    assert np.array_equal(t.s1, s1) and np.array_equal(t.s2, s2)
    assert t.index("quit", 1) == 2 * 2 + 1
    assert Tally.empty(GAME_METRICS, 3, [1, 1, 1]).mode == "game"


def test_tally_validation():
    good = dict(metrics=ROUND_METRICS, units=2, appearances=np.array([1, 1]), blocks=1,
                s1=np.zeros(6, np.int64), s2=np.zeros((6, 6), np.int64))
    Tally(**good)
    for bad in (
        {"metrics": ("penalty", "quit")},
        {"s1": np.zeros(5, np.int64)},
        {"s2": np.zeros((6, 5), np.int64)},
        {"s1": np.zeros(6, float)},
        {"appearances": np.array([1, -1])},
        {"appearances": np.array([1, 1, 1])},
        {"blocks": -1},
        {"units": 0, "s1": np.zeros(0, np.int64), "s2": np.zeros((0, 0), np.int64),
         "appearances": np.zeros(0, np.int64)},
    ):
        with pytest.raises(ValueError):
            Tally(**{**good, **bad})
    asym = np.zeros((6, 6), np.int64)
    asym[0, 1] = 1
    with pytest.raises(ValueError):
        Tally(**{**good, "s2": asym})
    with pytest.raises(ValueError):
        Tally.from_blocks(ROUND_METRICS, 2, [1, 1], np.zeros((3, 6)))  # floats
    with pytest.raises(ValueError):
        Tally.from_blocks(ROUND_METRICS, 2, [1, 1], np.zeros((3, 5), np.int64))
    with pytest.raises(ValueError):
        Tally(**good).index("penalty", 2)


def test_merge_is_exact_in_any_order():
    rng = np.random.default_rng(2)
    apps = [2, 1, 3]
    v = flatten(game_blocks(rng, 600, apps), GAME_METRICS)
    whole = Tally.from_blocks(GAME_METRICS, 3, apps, v)
    cuts = [0, 37, 250, 251, 600]
    chunks = [Tally.from_blocks(GAME_METRICS, 3, apps, v[a:b]) for a, b in zip(cuts, cuts[1:])]
    empty = Tally.empty(GAME_METRICS, 3, apps)
    forward = chunks[0] + chunks[1] + chunks[2] + chunks[3]
    backward = empty
    for c in reversed(chunks):
        backward = c.merge(backward)
    shuffled = (chunks[2] + chunks[0]) + (empty + chunks[3] + chunks[1])
    for t in (forward, backward, shuffled):
        assert t == whole
        assert t.blocks == 600
        pd.testing.assert_frame_equal(summarise(t), summarise(whole), check_exact=True)
        pd.testing.assert_frame_equal(paired(t, "win_rate"), paired(whole, "win_rate"),
                                      check_exact=True)
    assert whole + empty == whole
    assert whole != chunks[0]


def test_merge_rejects_incompatible_tallies():
    a = Tally.empty(ROUND_METRICS, 2, [1, 1])
    with pytest.raises(ValueError):
        a.merge(Tally.empty(ROUND_METRICS, 2, [1, 2]))
    with pytest.raises(ValueError):
        a.merge(Tally.empty(ROUND_METRICS, 3, [1, 1, 1]))
    with pytest.raises(ValueError):
        Tally.empty(GAME_METRICS, 1, [1]).merge(Tally.empty(ROUND_METRICS, 1, [1]))
    with pytest.raises(TypeError):
        a + 1
    with pytest.raises(TypeError):
        a.merge(1)


# ----------------------------------------------------------------------------- exactness

@pytest.mark.parametrize("mode", ["round", "game"])
def test_summarise_matches_per_block_reference(mode):
    rng = np.random.default_rng(3 if mode == "round" else 4)
    apps = [4, 2, 3] if mode == "round" else [2, 1, 3]
    metrics, ref, gen = ((ROUND_METRICS, ROUND_REF, round_blocks) if mode == "round"
                         else (GAME_METRICS, GAME_REF, game_blocks))
    raw = gen(rng, 500, apps)
    tally = Tally.from_blocks(metrics, 3, apps, flatten(raw, metrics))
    table = summarise(tally)
    assert list(table.columns) == ["unit", "metric", "value", "ci_low", "ci_high", "n"]
    assert len(table) == 3 * len(ref)
    assert list(table["metric"][:len(ref)]) == list(ref)
    for row in table.itertuples():
        r, var, var0, _, n, kind = ref_linear(raw, apps, ref, row.metric, row.unit)
        lo, hi = ref_interval(r, var, var0, n, kind, z=T95(500))
        assert row.value == pytest.approx(r, rel=1e-12)
        assert row.ci_low == pytest.approx(lo, rel=1e-9)
        assert row.ci_high == pytest.approx(hi, rel=1e-9)
        assert row.n == n
        e = estimate(tally, row.metric, row.unit)
        assert e.se == pytest.approx(math.sqrt(var), rel=1e-9)
        assert (e.value, e.ci_low, e.ci_high, e.n) == (row.value, row.ci_low, row.ci_high, row.n)
        assert e.half_width == pytest.approx((hi - lo) / 2, rel=1e-9)
        if kind == "rate":  # design effect really used: not the plain-count Wilson
            assert (lo, hi) != pytest.approx(textbook_wilson(r, n, Z95), rel=1e-3)


def test_block_covariance_is_sample_covariance():
    rng = np.random.default_rng(5)
    v = flatten(game_blocks(rng, 300, [2, 2]), GAME_METRICS)
    t = Tally.from_blocks(GAME_METRICS, 2, [2, 2], v)
    np.testing.assert_allclose(block_covariance(t), np.cov(v.T.astype(float), ddof=1),
                               rtol=1e-12, atol=1e-12)
    assert block_covariance(Tally.from_blocks(GAME_METRICS, 2, [2, 2], v[:1])) is None


def test_block_covariance_exact_when_products_overflow_int64():
    # Blocks take the values x, x+2, x+4, k times each: s2 fits int64 but B*s2 and s1^2 do not,
    # and in float64 B*s2 - s1^2 would lose every significant digit.
    x, k = 500_000_000, 10
    b = 3 * k
    s1 = np.zeros(3, np.int64)
    s2 = np.zeros((3, 3), np.int64)
    s1[0] = k * (3 * x + 6)
    s2[0, 0] = k * (x * x + (x + 2) ** 2 + (x + 4) ** 2)
    t = Tally(ROUND_METRICS, 1, np.array([1]), b, s1, s2)
    expected = (8 / 3) * b / (b - 1)
    assert block_covariance(t)[0, 0] == pytest.approx(expected, rel=1e-12)
    naive = (b * float(s2[0, 0]) - float(s1[0]) ** 2) / (b * (b - 1))
    assert naive != pytest.approx(expected, rel=0.5)  # why the exact path is needed


@pytest.mark.parametrize("mode", ["round", "game"])
def test_paired_matches_per_block_reference(mode):
    rng = np.random.default_rng(6 if mode == "round" else 7)
    apps = [3, 3, 1] if mode == "round" else [1, 2, 2]
    metrics, ref, gen = ((ROUND_METRICS, ROUND_REF, round_blocks) if mode == "round"
                         else (GAME_METRICS, GAME_REF, game_blocks))
    b = 400
    raw = gen(rng, b, apps)
    tally = Tally.from_blocks(metrics, 3, apps, flatten(raw, metrics))
    for metric in ref:
        table = paired(tally, metric)
        assert list(table.columns) == ["unit_a", "unit_b", "metric", "diff", "ci_low",
                                       "ci_high", "p_value", "p_holm", "unpaired_ci_low",
                                       "unpaired_ci_high", "n_blocks"]
        assert [(a, c) for a, c in zip(table.unit_a, table.unit_b)] == [(0, 1), (0, 2), (1, 2)]
        for row in table.itertuples():
            ra, va, _, la, _, _ = ref_linear(raw, apps, ref, metric, row.unit_a)
            rb, vb, _, lb, _, _ = ref_linear(raw, apps, ref, metric, row.unit_b)
            d = la - lb
            se = math.sqrt(np.var(d, ddof=1) / b)
            se_u = math.sqrt(va + vb)
            diff = ra - rb
            assert row.metric == metric and row.n_blocks == b
            assert row.diff == pytest.approx(diff, rel=1e-12, abs=1e-15)
            assert row.ci_low == pytest.approx(diff - T95(b) * se, rel=1e-9)
            assert row.ci_high == pytest.approx(diff + T95(b) * se, rel=1e-9)
            assert row.unpaired_ci_low == pytest.approx(diff - T95(b) * se_u, rel=1e-9)
            assert row.unpaired_ci_high == pytest.approx(diff + T95(b) * se_u, rel=1e-9)
            assert row.p_value == pytest.approx(2 * student.sf(abs(diff) / se, b - 1), rel=1e-7, abs=1e-300)
        np.testing.assert_array_equal(table.p_holm.to_numpy(), holm(table.p_value.to_numpy()))


def test_level_changes_z():
    assert z_value(0.95) == pytest.approx(Z95, rel=1e-12)
    assert z_value(0.90) == pytest.approx(1.6448536269514722, rel=1e-12)
    rng = np.random.default_rng(8)
    raw = round_blocks(rng, 300, [4])
    t = Tally.from_blocks(ROUND_METRICS, 1, [4], flatten(raw, ROUND_METRICS))
    r, var, var0, _, n, kind = ref_linear(raw, [4], ROUND_REF, "penalty_per_round", 0)
    e = estimate(t, "penalty_per_round", 0, level=0.9)
    assert e.ci_high - r == pytest.approx(student.ppf(0.95, 299) * math.sqrt(var), rel=1e-9)
    for bad in (0.0, 1.0, 95):
        with pytest.raises(ValueError):
            z_value(bad)
        with pytest.raises(ValueError):
            summarise(t, level=bad)


def test_unknown_metric_is_rejected():
    t = Tally.from_blocks(ROUND_METRICS, 1, [2], np.ones((5, 3), np.int64))
    with pytest.raises(ValueError):
        estimate(t, "win_rate", 0)  # game-mode only
    with pytest.raises(ValueError):
        paired(t, "nonsense")
    with pytest.raises(ValueError):
        summarise(t, metrics=("final_score",))


# ----------------------------------------------------------------------------- Wilson

def test_wilson_equals_textbook_for_independent_data():
    # 30 successes in 100 single-observation blocks: design effect is exactly 1.
    went = np.array([1] * 30 + [0] * 70)
    v = np.stack([np.zeros(100), went, np.zeros(100)], axis=1).astype(np.int64)
    t = Tally.from_blocks(ROUND_METRICS, 1, [1], v)
    e = estimate(t, "went_out_rate", 0)
    lo, hi = textbook_wilson(0.3, 100, T95(100))  # Wilson with the t quantile of 99 degrees of freedom
    assert e.value == 0.3 and e.n == 100
    assert e.ci_low == pytest.approx(lo, rel=1e-12)
    assert e.ci_high == pytest.approx(hi, rel=1e-12)
    # by hand, with z = 1.959964: z^2/n = 0.0384146, centre = 0.3192073 / 1.0384146 = 0.307399,
    # half = 1.959964 * sqrt(0.0021 + 0.0000960) / 1.0384146 = 0.088450
    assert wilson(0.3, 100, Z95) == pytest.approx((0.218949, 0.395849), abs=1e-6)
    assert all(math.isnan(x) for x in wilson(0.3, 0, Z95))


def test_wilson_at_zero_and_one_uses_plain_count():
    b, apps = 50, 2
    v = np.zeros((b, 3), np.int64)
    v[:, 0] = 3
    v[:, 1] = apps  # went out every round
    t = Tally.from_blocks(ROUND_METRICS, 1, [apps], v)
    n = b * apps
    z2 = T95(b) ** 2
    quit_ = estimate(t, "quit_rate", 0)
    assert quit_.value == 0 and quit_.ci_low == pytest.approx(0, abs=1e-15)
    assert quit_.ci_high == pytest.approx(z2 / (n + z2), rel=1e-12)
    went = estimate(t, "went_out_rate", 0)
    assert went.value == 1 and went.ci_high == pytest.approx(1, abs=1e-15)
    assert went.ci_low == pytest.approx(n / (n + z2), rel=1e-12)
    pen = estimate(t, "penalty_per_round", 0)  # zero variance: degenerate point interval
    assert (pen.value, pen.ci_low, pen.ci_high, pen.se) == (1.5, 1.5, 1.5, 0.0)


# ----------------------------------------------------------------------------- edge cases

def test_fewer_than_two_blocks_give_nan_intervals():
    rng = np.random.default_rng(9)
    v = flatten(game_blocks(rng, 1, [1, 1]), GAME_METRICS)
    one = Tally.from_blocks(GAME_METRICS, 2, [1, 1], v)
    table = summarise(one)
    assert table["value"].notna().all()
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    pt = paired(one, "final_score")
    assert pt[["ci_low", "ci_high", "p_value", "p_holm", "unpaired_ci_low"]].isna().all().all()
    assert pt["diff"].notna().all()
    zero = Tally.empty(GAME_METRICS, 2, [1, 1])
    table0 = summarise(zero)
    assert table0[["value", "ci_low", "ci_high"]].isna().all().all()
    assert (table0["n"] == 0).all()
    assert max_half_width(one) == math.inf and max_half_width(zero) == math.inf


def test_zero_denominator_gives_nan_value():
    rng = np.random.default_rng(10)
    apps = [0, 2]
    raw = game_blocks(rng, 50, apps)
    t = Tally.from_blocks(GAME_METRICS, 2, apps, flatten(raw, GAME_METRICS))
    table = summarise(t).set_index(["unit", "metric"])
    assert table.loc[0, ["value", "ci_low", "ci_high"]].isna().all().all()
    assert (table.loc[0, "n"] == 0).all()
    assert table.loc[1, ["value", "ci_low", "ci_high"]].notna().all().all()
    pt = paired(t, "penalty_per_round")
    assert math.isnan(pt["diff"][0]) and math.isnan(pt["p_value"][0])


def test_identical_units_have_zero_difference_and_p_one():
    rng = np.random.default_rng(11)
    raw = round_blocks(rng, 100, [3])
    raw = {k: np.concatenate([a, a], axis=1) for k, a in raw.items()}
    t = Tally.from_blocks(ROUND_METRICS, 2, [3, 3], flatten(raw, ROUND_METRICS))
    row = paired(t, "penalty_per_round").iloc[0]
    assert row["diff"] == 0 and row["ci_low"] == 0 and row["ci_high"] == 0  # exact cancellation
    assert row["p_value"] == 1.0 and row["p_holm"] == 1.0
    assert row["unpaired_ci_high"] > 0  # unpaired ignores the perfect correlation


# ----------------------------------------------------------------------------- coverage

def coverage(make_tally, metric, truth, reps=400, seed=0):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        e = estimate(make_tally(rng), metric, 0)
        hits += e.ci_low <= truth <= e.ci_high
    return hits / reps


def test_coverage_point_metric_round_mode():
    # penalty per round: block rate lam ~ Gamma(2, 1.5) (mean 3) shared by 4 rounds
    def make(rng):
        return Tally.from_blocks(ROUND_METRICS, 1, [4], flatten(round_blocks(rng, 300, [4]),
                                                                ROUND_METRICS))
    assert 0.92 <= coverage(make, "penalty_per_round", 3.0, seed=100) <= 0.98


def test_coverage_ratio_metric_game_mode():
    # penalty / rounds with random rounds: truth E[lam] = 3 because lam is independent of rounds
    def make(rng):
        return Tally.from_blocks(GAME_METRICS, 1, [2], flatten(game_blocks(rng, 300, [2]),
                                                               GAME_METRICS))
    assert 0.92 <= coverage(make, "penalty_per_round", 3.0, seed=101) <= 0.98


def test_coverage_rate_with_correlated_rounds():
    # went_out ~ Binomial(6, p_b), p_b ~ Beta(1, 3): mean 0.25, intra-block correlation 0.2
    def make(rng):
        return Tally.from_blocks(ROUND_METRICS, 1, [6], flatten(round_blocks(rng, 300, [6]),
                                                                ROUND_METRICS))
    assert 0.92 <= coverage(make, "went_out_rate", 0.25, seed=102) <= 0.98
    # the design effect matters: treating the 6 rounds as independent under-covers
    rng = np.random.default_rng(102)
    naive = 0
    for _ in range(400):
        e = estimate(make(rng), "went_out_rate", 0)
        lo, hi = textbook_wilson(e.value, e.n, Z95)
        naive += lo <= 0.25 <= hi
    assert naive / 400 < 0.90


def test_coverage_win_rate_with_ties_game_mode():
    # each game won with prob 0.35, tie size uniform on 1..3: truth 0.35 * mean(1/k)
    truth = 0.35 * (1 + 1 / 2 + 1 / 3) / 3

    def make(rng):
        return Tally.from_blocks(GAME_METRICS, 1, [3], flatten(game_blocks(rng, 300, [3]),
                                                               GAME_METRICS))
    assert 0.92 <= coverage(make, "win_rate", truth, seed=103) <= 0.98


def test_paired_interval_covers_zero_and_beats_unpaired():
    rng = np.random.default_rng(104)
    covered = 0
    ratios = []
    for _ in range(400):
        # two units, same distribution, sharing the deal effect -> positively correlated
        raw = round_blocks(rng, 300, [4, 4])
        t = Tally.from_blocks(ROUND_METRICS, 2, [4, 4], flatten(raw, ROUND_METRICS))
        row = paired(t, "penalty_per_round").iloc[0]
        covered += row["ci_low"] <= 0 <= row["ci_high"]
        ratios.append((row["ci_high"] - row["ci_low"])
                      / (row["unpaired_ci_high"] - row["unpaired_ci_low"]))
    assert covered / 400 >= 0.93
    assert max(ratios) < 1
    assert np.mean(ratios) < 0.6  # theory: sqrt(24 / 168) = 0.38


# ----------------------------------------------------------------------------- Holm

def test_holm_hand_example():
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> cummax 0.06
    got = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.03, 0.06, 0.06, 0.02], rtol=1e-12)


def test_holm_caps_keeps_nan_and_validates():
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])
    np.testing.assert_allclose(holm([0.3, 0.5, 0.2]), [0.6, 0.6, 0.6])
    got = holm([0.01, math.nan, 0.04])  # NaN does not count as a test: m = 2
    assert math.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2]], [0.02, 0.04])
    assert holm([]).shape == (0,)
    with pytest.raises(ValueError):
        holm([0.5, 1.5])


# ----------------------------------------------------------------------------- ranking

def three_unit_tally(seed=12, blocks=400):
    rng = np.random.default_rng(seed)
    raw = round_blocks(rng, blocks, [4, 4, 4])
    extra = rng.poisson(8.0, size=(blocks, 1))  # unit 2 takes ~2 more points per round
    raw["penalty"] = raw["penalty"] + np.concatenate(
        [np.zeros((blocks, 2), np.int64), extra], axis=1)
    return Tally.from_blocks(ROUND_METRICS, 3, [4, 4, 4], flatten(raw, ROUND_METRICS))


def test_ranking_orders_and_groups():
    t = three_unit_tally()
    r = ranking(t, "penalty_per_round")
    assert list(r.columns) == ["rank", "unit", "metric", "value", "ci_low", "ci_high", "n",
                               "indistinguishable_from"]
    assert list(r["rank"]) == [1, 2, 3]
    assert list(r["value"]) == sorted(r["value"])
    assert r["unit"].iloc[2] == 2
    groups = dict(zip(r["unit"], r["indistinguishable_from"]))
    assert groups == {0: (1,), 1: (0,), 2: ()}
    # consistent with the Holm-adjusted paired table
    pt = paired(t, "penalty_per_round")
    for row in pt.itertuples():
        together = row.p_holm >= 0.05
        assert (row.unit_b in groups[row.unit_a]) == together
        assert (row.unit_a in groups[row.unit_b]) == together


def test_ranking_higher_is_better_and_unranked():
    rng = np.random.default_rng(13)
    t = Tally.from_blocks(GAME_METRICS, 3, [1, 2, 3],
                          flatten(game_blocks(rng, 300, [1, 2, 3]), GAME_METRICS))
    r = ranking(t, "win_rate")
    assert list(r["value"]) == sorted(r["value"], reverse=True)
    for m in ("quit_rate", "rounds_per_game"):
        with pytest.raises(ValueError):
            ranking(t, m)


def test_ranking_puts_undefined_units_last():
    rng = np.random.default_rng(14)
    apps = [2, 0, 2]
    t = Tally.from_blocks(GAME_METRICS, 3, apps, flatten(game_blocks(rng, 200, apps),
                                                         GAME_METRICS))
    r = ranking(t, "final_score")
    assert r["unit"].iloc[2] == 1 and math.isnan(r["value"].iloc[2])
    assert 1 in r["indistinguishable_from"].iloc[0]  # NaN p cannot separate


# ----------------------------------------------------------------------------- stopping

def test_max_half_width_and_should_stop():
    # independent units: a difference is less precise than either value, so pairs matter
    rng = np.random.default_rng(15)
    parts = [round_blocks(rng, 300, [4]) for _ in range(3)]
    raw = {m: np.concatenate([p[m] for p in parts], axis=1) for m in ROUND_METRICS}
    t = Tally.from_blocks(ROUND_METRICS, 3, [4, 4, 4], flatten(raw, ROUND_METRICS))
    metrics = ("penalty_per_round", "went_out_rate")
    table = summarise(t, metrics=metrics)
    widest = ((table["ci_high"] - table["ci_low"]) / 2).max()
    assert max_half_width(t, metrics) == pytest.approx(widest, rel=1e-12)
    all_table = summarise(t)
    assert max_half_width(t) == pytest.approx(
        ((all_table["ci_high"] - all_table["ci_low"]) / 2).max(), rel=1e-12)
    pair_widths = [((p["ci_high"] - p["ci_low"]) / 2).max() for p in
                   (paired(t, m) for m in metrics)]
    with_pairs = max_half_width(t, metrics, pairs=True)
    assert with_pairs == pytest.approx(max([widest] + pair_widths), rel=1e-12)
    assert with_pairs > widest
    assert max_half_width(t, ("quit_rate",), level=0.99) > max_half_width(t, ("quit_rate",))

    assert should_stop(t, widest, metrics, min_blocks=200)
    assert not should_stop(t, widest * 0.999, metrics, min_blocks=200)
    assert not should_stop(t, widest, metrics, min_blocks=301)
    assert not should_stop(t, widest, metrics, min_blocks=200, pairs=True)
    with pytest.raises(ValueError):
        should_stop(t, 0.0, metrics)


def test_estimate_dataclass_half_width():
    e = Estimate(0.5, 0.25, 0.85, 0.1, 10)
    assert e.half_width == pytest.approx(0.3)
