"""Luck-adjusted estimates (``core.luck``): the tally's luck metric is subtracted from the penalty in
every estimate, exactly, and only where the tally holds it."""
import numpy as np
import pytest

from llama_sim.core import stats
from llama_sim.core.luck import LUCK_SCALE, resolve, scaled, with_luck
from llama_sim.core.parameters import Problem
from llama_sim.core.ruleset import get_game


def _tallies():
    """Two units, six blocks: penalty, went_out, quit, luck (thousandths) per unit."""
    rng = np.random.default_rng(3)
    pen = rng.integers(0, 30, size=(6, 2))
    luck = rng.integers(-9000, 9000, size=(6, 2))
    zeros = np.zeros((6, 2), np.int64)
    plain = stats.Tally.from_blocks(stats.ROUND_METRICS, 2, [1, 1], np.hstack([pen, zeros, zeros]))
    lucky = stats.Tally.from_blocks(with_luck(stats.ROUND_METRICS), 2, [1, 1], np.hstack([pen, zeros, zeros, luck]))
    adjusted = pen - luck / LUCK_SCALE
    return plain, lucky, pen, adjusted


def test_the_adjusted_estimate_is_the_mean_of_penalty_minus_luck_with_its_block_spread():
    plain, lucky, pen, adjusted = _tallies()
    e = stats.estimate(lucky, "penalty_per_round", 0)
    assert e.value == pytest.approx(adjusted[:, 0].mean())
    assert e.se == pytest.approx(adjusted[:, 0].std(ddof=1) / np.sqrt(6))
    assert stats.estimate(plain, "penalty_per_round", 0).value == pytest.approx(pen[:, 0].mean())
    d = stats.paired(lucky, "penalty_per_round").iloc[0]
    diff = adjusted[:, 0] - adjusted[:, 1]
    assert d["diff"] == pytest.approx(diff.mean())
    assert (d["ci_high"] - d["ci_low"]) / 2 == pytest.approx(2.5706 * diff.std(ddof=1) / np.sqrt(6), rel=1e-4)
    # rates are not adjusted; the mode is still round mode
    assert lucky.mode == "round"
    assert stats.estimate(lucky, "quit_rate", 1).value == stats.estimate(plain, "quit_rate", 1).value


def test_game_mode_subtracts_the_luck_from_the_per_round_ratio():
    rows = np.array([[10, 0, 0, 3, 60, 10, 2500], [20, 1, 0, 5, 0, 20, -500], [6, 0, 1, 2, 60, 6, 0]])
    t = stats.Tally.from_blocks(with_luck(stats.GAME_METRICS), 1, [1], np.vstack([rows] * 2))
    assert t.mode == "game"
    want = (36 - 2.0) / 10
    assert stats.estimate(t, "penalty_per_round", 0).value == pytest.approx(want)
    assert stats.estimate(t, "win_rate", 0).value == pytest.approx(2 / 3)


def test_luck_is_rounded_once_per_seating_to_a_thousandth():
    assert scaled(1.2344) == 1234 and scaled(-0.0004) == 0 and scaled(-1.5) == -1500 and scaled(0.0015) == 2


def test_luck_on_where_a_rule_set_has_no_value_function_is_one_problem():
    from dataclasses import replace

    without = replace(get_game("kadabra"), name="plain", luck_default=None)  # every shipped rule set has one
    with pytest.raises(Problem, match="^luck: plain has no value function"):
        resolve(without, True)
    assert resolve(without, None) is False and resolve(get_game("lama"), False) is False
    assert resolve(get_game("kadabra"), None) is False and resolve(get_game("kadabra"), True) is True


def test_luck_gain_measures_both_ways_on_the_same_deals(monkeypatch):
    """The plain estimate equals compare's with luck off, the adjusted one compare's with luck on, and the
    luck gap is their difference; a rule set without a value function is one line."""
    import llama_sim
    from llama_sim.core.errors import UsageError

    r = llama_sim.luck_gain("dice", ["threshold", "chart"], players=3, rounds=1200, seed=5, quiet=True)
    row = r.gains.iloc[0]
    off = llama_sim.compare("dice", ["threshold", "chart"], players=3, rounds=1200, seed=5, luck=False, quiet=True)
    on = llama_sim.compare("dice", ["threshold", "chart"], players=3, rounds=1200, seed=5, luck="on", quiet=True)
    assert row["plain"] == off.paired["diff"].iloc[0] and row["adjusted"] == on.paired["diff"].iloc[0]
    assert row["luck_gap"] == pytest.approx(row["plain"] - row["adjusted"])
    assert row["luck_gap_ci_low"] < row["luck_gap"] < row["luck_gap_ci_high"]
    assert row["games_saved"] == pytest.approx(row["half_width_ratio"] ** 2)
    assert "luck-adjusted" in on.header and "luck-adjusted" not in off.header
    monkeypatch.setattr(get_game("kadabra"), "luck_default", None)  # as a rule set without a value function
    with pytest.raises(UsageError, match="^luck: kadabra has no value function"):
        llama_sim.luck_gain("kadabra", ["greedy", "chart"], rounds=100)
