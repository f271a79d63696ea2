"""Invariants every rule set shares, checked through the common simulation path."""
import numpy as np
import pytest

from llama_sim.core import registry
from llama_sim.core.ruleset import all_games, get_game
from llama_sim.core.scoring import M_FINAL, M_PENALTY, M_ROUNDS, M_WIN60, WIN_UNITS
from llama_sim.run.backends import run
from llama_sim.run.designs import seat_plan

START_POINTS = {"kadabra": 3}  # Kadabra players start every game with three 1-tokens


@pytest.mark.parametrize("game", ["lama", "party", "kadabra", "dice"])
@pytest.mark.parametrize("n", [2, 4, 6])
def test_round_penalties_add_up_to_final_scores_and_wins_are_shared(game, n):
    spec = get_game(game)
    pool = ["greedy", "threshold", "random"] if game != "dice" else ["always_roll", "threshold", "random"]
    players = [registry.parse_spec(game, pool[s % 3]) for s in range(n)]
    plan = seat_plan(spec, players, True, spec.config())
    tally = run(plan, 3, 0, 60, threads=2)
    u = n
    penalty = tally.s1[M_PENALTY * u: (M_PENALTY + 1) * u]
    final = tally.s1[M_FINAL * u: (M_FINAL + 1) * u]
    # penalty_per_round is the net change of the score, so a game's rounds sum to its final score
    assert np.array_equal(penalty, final - START_POINTS.get(game, 0) * tally.blocks)
    # every game hands out exactly one whole win, shared among tied players
    assert tally.s1[M_WIN60 * u: (M_WIN60 + 1) * u].sum() == WIN_UNITS * tally.blocks
    # all seats play the same rounds, and every game ends with someone at 40 or more
    rounds = tally.s1[M_ROUNDS * u: (M_ROUNDS + 1) * u]
    assert len(set(rounds.tolist())) == 1 and rounds[0] >= tally.blocks
    assert final.sum() >= 40 * tally.blocks


def test_the_built_in_rule_sets_are_found_in_their_declared_order_with_the_baselines():
    """Found by package (no list to edit), listed by ``RuleSet.order``; every one registers the baselines."""
    assert list(all_games())[:4] == ["lama", "party", "kadabra", "dice"]
    assert [g.order for g in all_games().values()][:4] == [1, 2, 3, 4]
    for game in all_games():
        names = {s.name for s in registry.strategies_for(game)}
        assert {"always_quit", "random", "threshold"} <= names
