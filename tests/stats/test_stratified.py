"""Stratified tallies (a design's strata pooled: totals add, covariances add), contrasts, and the
versus-mean differences of a seat table, on synthetic blocks with known answers."""
import numpy as np
from scipy.stats import t as student
import pandas as pd
import pytest

from llama_sim.core import stats
from llama_sim.core.stats import ROUND_METRICS, Stratified, Tally


def synthetic(rng, blocks, apps, shift=0.0):
    """Round-mode block vectors (penalty, went_out, quit per unit) with a shared deal effect."""
    apps = np.asarray(apps)
    lam = rng.gamma(2.0, 1.5, size=(blocks, 1)) + shift
    pen = rng.poisson(lam * apps)
    out = rng.binomial(np.broadcast_to(apps, pen.shape), 0.3)
    quit_ = rng.binomial(apps - out, 0.2)
    return np.concatenate([pen, out, quit_], axis=1).astype(np.int64)


def test_single_stratum_equals_plain_tally():
    rng = np.random.default_rng(1)
    t = Tally.from_blocks(ROUND_METRICS, 2, [3, 3], synthetic(rng, 200, [3, 3]))
    s = Stratified((t,))
    pd.testing.assert_frame_equal(stats.summarise(s), stats.summarise(t))
    pd.testing.assert_frame_equal(stats.paired(s, "penalty_per_round"), stats.paired(t, "penalty_per_round"))


def test_stratified_pools_totals_and_adds_covariances():
    rng = np.random.default_rng(2)
    a = Tally.from_blocks(ROUND_METRICS, 2, [2, 1], synthetic(rng, 150, [2, 1]))
    b = Tally.from_blocks(ROUND_METRICS, 2, [1, 2], synthetic(rng, 150, [1, 2], shift=1.0))
    s = Stratified((a, b))
    assert np.array_equal(s.s1, a.s1 + b.s1) and np.array_equal(s.appearances, [3, 3]) and s.blocks == 150
    np.testing.assert_allclose(stats.block_covariance(s), stats.block_covariance(a) + stats.block_covariance(b))
    # value: pooled ratio; variance: sum of the strata's variances of their (independent) totals
    e = stats.estimate(s, "penalty_per_round", 0)
    x = np.r_[a.s1[0], b.s1[0]]
    va = stats.block_covariance(a)[0, 0] * 150
    vb = stats.block_covariance(b)[0, 0] * 150
    assert e.value == x.sum() / (3 * 150)
    assert e.se == pytest.approx(np.sqrt(va + vb) / (3 * 150), rel=1e-12)
    with pytest.raises(ValueError, match="same number of blocks"):
        Stratified((a, Tally.from_blocks(ROUND_METRICS, 2, [1, 2], synthetic(rng, 10, [1, 2]))))
    with pytest.raises(ValueError, match="different strata"):
        s.merge(Stratified((a,)))
    assert s + s == Stratified((a + a, b + b))


def test_stratified_interval_covers_with_different_stratum_means():
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(400):
        a = Tally.from_blocks(ROUND_METRICS, 1, [2], synthetic(rng, 60, [2]))
        b = Tally.from_blocks(ROUND_METRICS, 1, [2], synthetic(rng, 60, [2], shift=4.0))
        e = stats.estimate(Stratified((a, b)), "penalty_per_round", 0)
        hits += e.ci_low <= 3.0 + 2.0 <= e.ci_high  # mean of 3 and 3 + 4
    assert 0.92 <= hits / 400 <= 0.98


def test_contrast_matches_paired_and_versus_mean_matches_blocks():
    rng = np.random.default_rng(4)
    values = synthetic(rng, 300, [1, 1, 1])
    t = Tally.from_blocks(ROUND_METRICS, 3, [1, 1, 1], values)
    row = stats.paired(t, "penalty_per_round").iloc[1]  # units 0 and 2
    c = stats.contrast(t, "penalty_per_round", [1, 0, -1])
    assert c.value == pytest.approx(row["diff"]) and c.ci_low == pytest.approx(row["ci_low"])
    vm = stats.versus_mean(t, "penalty_per_round")
    assert abs(vm["vs_mean"].sum()) < 1e-12
    pen = values[:, :3].astype(float)
    for u in range(3):
        d = pen[:, u] - pen.mean(axis=1)
        half = student.ppf(0.975, 299) * d.std(ddof=1) / np.sqrt(300)  # Student t, 299 degrees of freedom
        assert vm["vs_mean"][u] == pytest.approx(d.mean())
        assert vm["ci_high"][u] - vm["vs_mean"][u] == pytest.approx(half)
    assert (vm["p_holm"] >= vm["p_value"]).all()
