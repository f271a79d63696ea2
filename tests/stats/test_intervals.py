"""Honest intervals at every size: Student-t quantiles on the design's degrees of freedom, no interval
below ``MIN_BLOCKS`` deal blocks, Wilson intervals for grade's error rates, Bonferroni intervals for
advise's sequential stop rule. The coverage checks replay many independent replications of a run at
its smallest accepted size (``analysis.coverage``) on cases whose truth is exact; the fuller version
is ``benchmarks/coverage.py``."""
import math

import numpy as np
import pytest

import llama_sim
from llama_sim.analysis import advise as advise_mod
from llama_sim.analysis import grade as grade_mod
from llama_sim.analysis.coverage import block_values, replications, too_often
from llama_sim.analysis.league import combine, t_over
from llama_sim.core import registry, stats
from llama_sim.core.intervals import MIN_BLOCKS, satterthwaite, t_p_value, t_value
from llama_sim.core.ruleset import get_game
from llama_sim.run.designs import comparison_design, seat_plan

Z95 = 1.959963984540054
EXACT_QUIT = 31 * (1 - math.comb(48, 6) / math.comb(56, 6))  # four always_quit: each seat's mean penalty


def lama_work(specs, players=None, games=False):
    game = get_game("lama")
    entries = [registry.parse_spec("lama", s) for s in specs]
    if players is None:
        return seat_plan(game, entries, games, game.config())
    return comparison_design(game, players, entries, games, game.config())


def test_t_quantiles_p_values_and_satterthwaite_by_hand():
    assert t_value(0.95, 1) == pytest.approx(12.706204736, rel=1e-9)
    assert t_value(0.95, 4) == pytest.approx(2.776445105, rel=1e-9)
    assert t_value(0.95, 1e9) == pytest.approx(Z95, rel=1e-6)
    assert math.isnan(t_value(0.95, 0.5)) and math.isnan(t_value(0.95, math.nan))
    assert t_p_value(2.776445105, 1.0, 4) == pytest.approx(0.05, rel=1e-7)
    assert t_p_value(0.0, 0.0, 4) == 1.0 and t_p_value(1.0, 0.0, 4) == 0.0
    # equal parts add their degrees of freedom; one dominant part keeps its own
    assert satterthwaite([1, 1, 1], 4) == pytest.approx(12)
    assert satterthwaite([1, 0, 0], 4) == pytest.approx(4)
    assert satterthwaite([1, 2], [3, 5]) == pytest.approx(9 / (1 / 3 + 4 / 5))


def test_simulate_holds_the_exact_mean_from_the_smallest_interval_on():
    """Four always_quit: each seat's penalty per round is exactly 19.2835. From 5 deal blocks the t
    interval holds it at the stated rate; the normal interval printed before misses it ~12% of the time."""
    plan = lama_work(["always_quit"] * 4)
    values = block_values(plan, 3, 100 * MIN_BLOCKS)
    misses = normal = total = 0
    for t in replications(plan, values, MIN_BLOCKS):
        for u in range(4):
            e = stats.estimate(t, "penalty_per_round", u)
            total += 1
            misses += not e.ci_low <= EXACT_QUIT <= e.ci_high
            normal += not e.value - Z95 * e.se <= EXACT_QUIT <= e.value + Z95 * e.se
    assert total == 400 and not too_often(misses, total)
    assert too_often(normal, total)  # the test can tell a too-narrow interval


def test_below_five_blocks_no_interval_and_the_header_says_what_would_give_one():
    r = llama_sim.simulate("lama", ["always_quit"] * 4, rounds=2, quiet=True)
    assert r.results[["ci_low", "ci_high"]].isna().all().all() and r.results["value"].notna().all()
    assert "95% intervals: n/a (only 2 deal blocks; need >= 5 — use --rounds >= 5)" in r.header
    c = llama_sim.compare("lama", ["greedy", "greedy", "threshold"], players=3, rounds=12, quiet=True)
    assert c.paired[["ci_low", "ci_high", "p_value", "p_holm"]].isna().all().all()
    assert (c.paired.better == "").all() and "use --rounds >= 30" in c.header
    five = llama_sim.simulate("lama", ["always_quit"] * 4, rounds=5, quiet=True)
    assert five.results.query("metric == 'penalty_per_round'")["ci_low"].notna().all() and "n/a" not in five.header


def test_compare_copies_are_not_separated_too_often_at_the_smallest_size():
    """greedy and its copy at 3 players (2 seating classes): the paired difference is 0 in expectation;
    from 5 design blocks its t interval excludes 0 at most at the stated rate, for penalties (rounds)
    and for win rates (games)."""
    for games, reps in ((False, 60), (True, 30)):
        work = lama_work(["greedy", "greedy", "threshold"], players=3, games=games)
        metric = "win_rate" if games else "penalty_per_round"
        misses = total = 0
        for t in replications(work, block_values(work, 5, reps * MIN_BLOCKS), MIN_BLOCKS):
            e = stats.contrast(t, metric, [1, -1, 0])
            assert not math.isnan(e.ci_low) and e.df >= MIN_BLOCKS - 1
            total += 1
            misses += not e.ci_low <= 0 <= e.ci_high
        assert total == reps and not too_often(misses, total)


def test_stratified_degrees_of_freedom_lie_between_one_stratum_and_all():
    work = lama_work(["greedy", "greedy", "threshold"], players=3)
    t = next(replications(work, block_values(work, 9, 6), 6))
    e = stats.contrast(t, "penalty_per_round", [1, 0, -1])
    assert 5 <= e.df <= 10 and e.ci_high - e.value == pytest.approx(t_value(0.95, e.df) * e.se)


def test_league_means_over_few_line_ups_cover_at_the_stated_rate():
    """Line-up estimates from 3 blocks each (2 degrees of freedom), four line-ups: the Satterthwaite t
    interval of their mean holds the truth ~95% of the time; no interval below 4 degrees of freedom."""
    rng = np.random.default_rng(1)
    misses = total = 0
    for _ in range(400):
        blocks = rng.normal(0.0, [[1.0], [2.0], [1.5], [1.0]], size=(4, 3))
        values, ses = blocks.mean(axis=1), blocks.std(axis=1, ddof=1) / math.sqrt(3)
        v, lo, hi, _ = combine(values, ses, [2, 2, 2, 2], [3, 3, 3, 3], "penalty_per_round", 12)
        if math.isnan(lo):
            continue
        total += 1
        misses += not lo <= 0 <= hi
    assert total > 250 and not too_often(misses, total)
    assert math.isnan(t_over([1.0, 0.0], [2, 2], [3, 3])[1])  # one line-up of 3 blocks dominates: 2 degrees
    assert math.isnan(t_over([1.0], [12.0], [4])[1])  # 12 degrees of freedom over strata, but 4 blocks in all
    assert t_over([1.0], [12.0], [5])[1] == pytest.approx(t_value(0.95, 12))


def test_grade_error_rate_is_inside_0_1_never_zero_width_and_covers():
    v, lo, hi = grade_mod._ratio(np.array([0.0, 0.0]), np.array([1.0, 1.0]), rate=True)  # two decisions, no error
    assert v == 0 and lo == 0 and 0 < hi < 1
    v, lo, hi = grade_mod._ratio(np.array([1.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0]), rate=True)
    assert 0 <= lo < v < hi <= 1
    rng = np.random.default_rng(2)
    misses = total = 0
    for _ in range(400):  # 8 rounds of 0-3 decisions, errors at 0.2, clustered by round
        d = rng.integers(0, 4, 8).astype(float)
        e = rng.binomial(d.astype(int), rng.beta(2, 8, 8)).astype(float)
        v, lo, hi = grade_mod._ratio(e, d, rate=True)
        if math.isnan(lo):  # decisions in fewer than 2 rounds: no variance between rounds, no interval
            continue
        assert 0 <= lo <= v <= hi <= 1 and hi > lo
        total += 1
        misses += not lo <= 0.2 <= hi
    assert not too_often(misses, total)
    assert all(math.isnan(x) for x in grade_mod._ratio(np.ones(4), np.ones(4) * 2)[1:])  # points: 4 rounds < 5


def test_advise_intervals_hold_over_the_looks_of_its_stop_rule():
    """Two actions of equal value: the stop rule looks after every batch; at whichever look it stops, the
    printed (Bonferroni) interval of the difference holds 0 at the stated rate, and a stop on separation
    always prints an interval that excludes 0."""
    assert advise_mod.looks(advise_mod.DEFAULT_MAX_ROLLOUTS, advise_mod.FIRST_BATCH) == 8
    cap = 16_384
    z = stats.z_value(1 - 0.05 / advise_mod.looks(cap, advise_mod.FIRST_BATCH))
    assert z == pytest.approx(stats.z_value(1 - 0.05 / 4))
    rng = np.random.default_rng(3)
    misses = 0
    for _ in range(150):
        mom = advise_mod._Moments(2, z=z)
        separated = False
        while mom.n < cap:
            size = min(max(advise_mod.FIRST_BATCH, mom.n), cap - mom.n)
            base = rng.poisson(6.0, size)
            v = np.zeros((size, 6), np.int64)
            v[:, 0], v[:, 1] = base + rng.integers(-1, 2, size), base + rng.integers(-1, 2, size)
            mom.s1 += v.sum(axis=0)
            mom.s2 += v.T @ v
            mom.n += size
            if advise_mod._stop(mom, "round", None, z):
                separated = mom.n < cap
                break
        cov, mean = mom.cov(), mom.mean()
        d = mean[0] - mean[1]
        half = z * math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]) / math.sqrt(mom.n)
        misses += not d - half <= 0 <= d + half
        assert not separated or abs(d) > half
    assert not too_often(misses, 150)
