"""The expert (``core.expert``) and ``grade`` on the shedding games: exact positions, reproducibility,
the grade's losses."""
import subprocess
import sys

import numpy as np
import pytest

from llama_sim import api
from llama_sim.analysis.grade import Decision, decision_kind, value_decisions
from llama_sim.core import registry
from llama_sim.rulesets import lama

# L.A.M.A., 4 players, seat 0 to act, everyone else has quit: top 2, hand 2 3 3. Playing the 2 lets
# it play both 3s and go out (0 points); playing a 3 first leaves the 2 stuck under a 3 (2 points);
# quitting scores 2 + 3 = 5. Alone nothing is hidden that matters: the values are exact.
HAND = np.array([0, 1, 2, 0, 0, 0, 0], np.int64)


def position(top, active, turn, hand_sizes):
    """4 players, seat 0 to act, a pile of 20, the top card the only one on the discard pile."""
    obs = np.zeros(lama.OBS_LEN, np.int64)
    obs[lama.OBS_PLAYERS] = 4
    obs[lama.OBS_TOP] = top
    obs[lama.OBS_DRAW_PILE] = 20
    obs[lama.OBS_ACTIVE] = active
    obs[lama.OBS_TURN] = turn
    obs[lama.OBS_HAND_SIZES:lama.OBS_HAND_SIZES + 4] = hand_sizes
    obs[lama.OBS_DISCARD + top] = 1
    return obs


def alone_position():
    obs = position(1, 1, 9, [3, 5, 4, 6])
    obs[lama.OBS_QUIT + 1:lama.OBS_QUIT + 4] = 1
    legal = (1 << 1) | (1 << 2) | (1 << lama.QUIT)  # play 2, play 3, quit (no draw when alone)
    return obs, legal


def test_expert_takes_the_exact_best_action():
    obs, legal = alone_position()
    player = registry.at_table(registry.parse_spec("lama", "expert:rollouts=16"), 4)
    rng = np.array([7, 11], np.uint64)
    action = player.strategy.policy(obs, HAND, np.int64(legal), player.params, rng)
    assert action == 1  # play the 2


def test_grade_values_the_exact_position_exactly():
    """The best action loses 0 and is no error; playing a 3 loses exactly 2 points; quitting 5."""
    obs, legal = alone_position()
    search = __import__("llama_sim.strategies.lama", fromlist=["EXPERT_SEARCH"]).EXPERT_SEARCH
    found = [Decision(obs, HAND, legal, a, 0) for a in (1, 2, lama.QUIT)]
    graded = value_decisions(search, found, 8, 0, seed=3, threads=1)
    assert graded[:, 0].tolist() == [1, 1, 1]  # the selected best: play the 2
    assert graded[:, 1].tolist() == [0.0, 2.0, 5.0]
    assert graded[:, 2].tolist() == [0.0, 1.0, 1.0]
    assert decision_kind(legal, lama.ACTION_NAMES) == "play/quit"


def test_roll_out_values_of_an_action_do_not_depend_on_the_others_sampled():
    """4 players, nobody out, seat 0 holds 2 3 3 on a 1: play 2, play 3, draw, quit on the same samples,
    with and without play 3 among them."""
    obs = position(0, 4, 4, [3, 6, 6, 6])
    search = __import__("llama_sim.strategies.lama", fromlist=["EXPERT_SEARCH"]).EXPERT_SEARCH
    every = (1 << 1) | (1 << 2) | (1 << lama.DRAW) | (1 << lama.QUIT)
    full = np.zeros((24, 4))
    search.values(obs, HAND, np.int64(every), np.uint64(99), 24, 1, 0, full)
    fewer = np.zeros((24, 3))
    search.values(obs, HAND, np.int64(every & ~(1 << 2)), np.uint64(99), 24, 1, 0, fewer)
    assert np.array_equal(fewer, full[:, [0, 2, 3]])
    assert not np.array_equal(full[:, 0], full[:, 2])  # the samples do tell the actions apart


@pytest.mark.parametrize("game", ["lama", "party"])
def test_expert_is_reproducible_across_threads(game):
    """Same seed, same games with 1 and 2 threads; every action it took was legal (the engine checks)."""
    runs = [api.compare(game, ["expert:rollouts=16", "climber"], players=4, games=16, seed=5, threads=t,
                        quiet=True).results for t in (1, 2)]
    assert runs[0].equals(runs[1])


def test_grade_random_loses_more_than_greedy():
    res = api.grade("lama", ["greedy", "random"], players=3, decisions=150, rollouts=40, seed=2, threads=2)
    pooled = res.table[(res.table.decision == "") & (res.table.metric == "points_lost_per_decision")]
    greedy, random = (pooled[pooled.strategy == s].iloc[0] for s in ("greedy", "random"))
    assert random.ci_low > greedy.ci_high
    assert set(res.table.columns) == {"game", "players", "strategy", "decision", "metric", "value", "ci_low",
                                      "ci_high", "n"}
    assert not res.mistakes.empty and res.mistakes.position.str.startswith("--game lama --hand").all()


def test_grade_rejects_bad_input_in_one_line():
    out = subprocess.run([sys.executable, "-m", "llama_sim", "grade", "--game", "lama", "-s", "greedy",
                          "--rollouts", "1"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "rollouts: must be at least 2, not 1" in out.stderr
