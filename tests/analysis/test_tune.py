"""tune: the race finds a known optimum, drops a clearly worse candidate at once, is deterministic
(any thread count), and the command refuses bad input with one line and exit status 2."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from llama_sim.core import registry, stats
from llama_sim.core.ruleset import get_game
from llama_sim.core.stats import ROUND_METRICS, Tally
from llama_sim.analysis.tune import (
    GameEvaluator, Space, candidate_points, local_points, race, search_space, tune, tune_points,
)
from cli_helpers import call


class Synthetic:
    """A known objective through the race's evaluator interface: candidate ``x`` takes a penalty
    of 1 in a block with probability ``loss(x)`` (exactly), else 0. Half the blocks share one
    uniform draw between all candidates (common random numbers, as a shared deal), the other half
    draw one per candidate; either way ``E[penalty] = loss(x)``."""

    metric = "penalty_per_round"

    def __init__(self, loss):
        self.loss = loss

    def measure(self, points, field, seed, first_block, n_blocks):
        k = len(points)
        p = np.array([self.loss(x) for x in points])
        values = np.zeros((n_blocks, len(ROUND_METRICS) * k), np.int64)
        for i, b in enumerate(range(first_block, first_block + n_blocks)):
            g = np.random.default_rng([seed % 2**32, b])
            shared, u, own = g.random(), g.random(), g.random(k)
            values[i, :k] = (np.full(k, u) if shared < 0.5 else own) < p
        return Tally.from_blocks(ROUND_METRICS, k, np.ones(k, np.int64), values), n_blocks * k

    def final(self, pick, start, field, seed, n_blocks):
        return self.measure(np.vstack([pick, start]), field, seed, 0, n_blocks)

    def rounds_per_block(self, candidates, final):
        return float(candidates)


def line_loss(x):
    """Optimum exactly at x = 7 (loss 0.2); each step away costs 0.02."""
    return 0.2 + 0.02 * abs(x[0] - 7)


INT_SPACE = Space(("t",), np.array([0.0]), np.array([20.0]), np.array([True]))


def test_tune_finds_the_known_optimum_of_a_synthetic_objective_within_its_interval():
    points = candidate_points(INT_SPACE, np.array([15.0]), 32, seed=5)
    assert len(points) == 21 and points[0, 0] == 15  # the whole grid, the start first
    result = tune_points(Synthetic(line_loss), INT_SPACE, points, budget=60_000, seed=5, self_play=False)
    assert result.pick == {"t": 7.0}
    pick, start = result.final.iloc[0], result.final.iloc[1]
    assert pick.ci_low <= line_loss([7]) <= pick.ci_high  # the exact optimum value, on fresh draws
    assert start.ci_low <= line_loss([15]) <= start.ci_high
    assert pick.diff_ci_low <= line_loss([7]) - line_loss([15]) <= pick.diff_ci_high < 0
    assert result.verdict == "better"  # a lower penalty
    assert result.rounds <= 60_000 + 2 * 21  # the budget, up to the 2-block minimum of a stage


def test_tune_searches_every_parameter_at_once_integer_and_continuous():
    space = Space(("t", "w"), np.array([0.0, 0.0]), np.array([20.0, 1.0]), np.array([True, False]))

    def loss(x):
        return 0.2 + 0.02 * abs(x[0] - 7) + 0.2 * abs(x[1] - 0.3)

    points = candidate_points(space, np.array([15.0, 0.9]), 24, seed=2)
    assert np.all(points[:, 0] == np.round(points[:, 0]))  # the integer parameter on its grid
    result = tune_points(Synthetic(loss), space, points, budget=80_000, seed=2, self_play=False)
    assert set(result.race["round"]) == {"global", "local"}  # a continuous box: a refinement round
    pick = np.array([result.pick["t"], result.pick["w"]])
    final = result.final.iloc[0]
    half = (final.ci_high - final.ci_low) / 2
    # the best candidate the race was given (exactly known), within the pick's interval
    best = min(loss(x) for x in result.candidates[["t", "w"]].to_numpy())
    assert loss(pick) - best <= half
    # and the sampled candidates come near the optimum: a continuous box is sampled, not listed
    assert abs(pick[0] - 7) <= 1 and abs(pick[1] - 0.3) <= 0.15


def test_race_drops_a_clearly_worse_candidate_at_the_first_stage():
    points = np.array([[7.0], [8.0], [9.0], [20.0]])
    outcome = race(points, Synthetic(line_loss), budget=8_000, seed=3, self_play=False)
    first = outcome.race[outcome.race.stage == 0].set_index("candidate")
    assert first.loc[3, "status"] == "worse"  # 0.26 above the optimum
    assert first.loc[3, "diff_ci_low"] > 0
    assert 3 not in set(outcome.race.loc[outcome.race.stage > 0, "candidate"])
    assert outcome.pick == 0


def test_race_keeps_equal_candidates_until_halving():
    """Equal candidates are never dropped as worse by accident of a common draw: identical
    candidates on common draws differ by exactly 0 in the shared half and only by chance in the
    other; with a Bonferroni level and 3 of them this seed keeps all but the halving."""
    points = np.array([[7.0], [7.0], [7.0]])
    outcome = race(points, Synthetic(line_loss), budget=3_000, seed=4, self_play=False)
    assert "worse" not in set(outcome.race["status"])


def test_local_points_stay_in_bounds_and_start_from_the_centre():
    near = local_points(INT_SPACE, np.array([1.0]), 21, seed=1, cells=20)
    assert near[0, 0] == 1 and near[:, 0].min() >= 0 and near[:, 0].max() <= 2


def test_two_copies_of_one_candidate_play_identical_deals():
    """Common random numbers in the real evaluator: a candidate entered twice gets the same
    tally, so its paired difference is exactly 0 with a zero standard error."""
    game = get_game("lama")
    strat = registry.get("lama", "threshold")
    field = [registry.parse_spec("lama", "greedy")] * 2
    ev = GameEvaluator(game, strat, 3, field, "penalty_per_round", game.config(), threads=1)
    tally, rounds = ev.measure(np.array([[8.0], [8.0], [3.0]]), None, 7, 0, 50)
    assert rounds == 50 * 3 * 3
    pairs = stats.paired(tally, "penalty_per_round").set_index(["unit_a", "unit_b"])
    assert pairs.loc[(0, 1), "diff"] == 0 and pairs.loc[(0, 1), "p_value"] == 1.0
    assert pairs.loc[(0, 2), "diff"] != 0


def test_search_space_reads_the_registry_bounds():
    space = search_space(registry.get("kadabra", "showman"))
    flee = space.names.index("flee")
    assert space.integer[space.names.index("quit_at")] and not space.integer[flee]
    assert (space.low[flee], space.high[flee]) == (0, 5)


@pytest.fixture(scope="module")
def small_runs():
    kw = dict(vs="greedy", budget=4_000, metric="penalty_per_round", seed=11, candidates=6)
    return tune("lama", "smart", 3, threads=1, **kw), tune("lama", "smart", 3, threads=2, **kw)


def test_same_seed_same_result_for_any_thread_count(small_runs):
    one, two = small_runs
    pd.testing.assert_frame_equal(one.race, two.race)
    pd.testing.assert_frame_equal(one.candidates, two.candidates)
    pd.testing.assert_frame_equal(one.final, two.final)
    assert one.pick == two.pick


def test_result_tables_and_plot(small_runs):
    result = small_runs[0]
    assert result.candidates["start"].iloc[0] and result.candidates["pick"].sum() == 1
    assert list(result.final["which"]) == ["pick", "start"]
    assert result.final["params"].iloc[1] == "quit_at=4,ten_quit_at=0"
    assert 3_000 < result.rounds <= 4_000 + 100
    fig = result.plot()
    assert len(fig.axes) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_self_play_in_full_games():
    result = tune("dice", "threshold", 2, vs="self", budget=3_000, metric="win_rate", seed=2, candidates=4)
    assert result.vs == "self" and result.metric == "win_rate"
    pick, start = result.final.iloc[0], result.final.iloc[1]
    # head to head in a 2-player game the two win shares add up to 1 (ties shared)
    assert pick.value + start.value == pytest.approx(1.0)
    assert 2_000 < result.rounds < 3_000 * 1.5


@pytest.mark.parametrize("args", [
    ["--game", "lama", "--strategy", "greedy"],  # no parameters
    ["--game", "lama", "--strategy", "nope"],
    ["--game", "lama", "--strategy", "threshold", "--vs", "greedy,greedy", "--players", "4"],
    ["--game", "lama", "--strategy", "threshold", "--metric", "final_score"],
    ["--game", "lama", "--strategy", "threshold", "--budget", "10"],
    ["--game", "lama", "--strategy", "threshold", "--players", "9"],
    ["--game", "lama", "--strategy", "threshold:quit_at=500"],
    ["--game", "lama", "--strategy", "threshold", "--plot", "x.txt"],
    ["--game", "lama", "--strategy", "threshold", "--format", "xml"],
    ["--game", "lama", "--strategy", "threshold", "--threads", "0"],
])
def test_bad_input_exits_2_with_one_line(capsys, args):
    code, out, err = call(capsys, "tune", *args)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("llamasim: error:") and out == ""


def test_cli_json_is_one_document_and_out_is_not_overwritten(capsys, tmp_path):
    out = tmp_path / "t.csv"
    args = ["tune", "--game", "lama", "--strategy", "threshold", "--players", "2", "--vs", "greedy",
            "--metric", "penalty_per_round", "--budget", "2000", "--candidates", "4", "--format", "json",
            "--out", str(out), "-q"]
    code, out_text, err = call(capsys, *args)
    assert code == 0, err
    doc = json.loads(out_text)
    assert set(doc) == {"summary", "final", "candidates", "race"}
    assert doc["summary"]["pick"].startswith("threshold:quit_at=")
    assert out.exists() and (tmp_path / "t.race.csv").exists() and (tmp_path / "t.candidates.csv").exists()
    code, _, err = call(capsys, *args)
    assert code == 2 and "exists" in err
