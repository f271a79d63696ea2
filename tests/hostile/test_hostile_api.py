"""The Python API checks its arguments as the CLI does: one clear UsageError for a wrong type, a
misspelt keyword or a bool given as a count; never a raw TypeError from deep inside, and never a
string iterated as a list of strategies."""
import pytest

import llama_sim
from llama_sim.core.errors import UsageError

POSITION = dict(hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20)


@pytest.mark.parametrize("call,needle", [
    (lambda: llama_sim.sweep("lama", "threshold", "quit_at=1:2:1", vs="greedy", rounds=200, quiet=True),
     None),
    (lambda: llama_sim.compare("lama", ["greedy", "threshold"], rounds=True, quiet=True), "rounds: must be a whole number, not true"),
    (lambda: llama_sim.compare("lama", ["greedy", "threshold"], roundz=200, quiet=True),
     "roundz: compare has no such parameter (did you mean rounds?)"),
    (lambda: llama_sim.compare("lama", ["greedy", "threshold"], rounds="many", quiet=True), "rounds: must be a whole number, not 'many'"),
    (lambda: llama_sim.compare("lama", "greedy", rounds=200, quiet=True), "strategies: compare needs at least two"),
    (lambda: llama_sim.compare("lama", ["greedy", 3], rounds=200, quiet=True), "strategies: must be a list of strings"),
    (lambda: llama_sim.compare("lama", ["greedy", "threshold"], precision=True, quiet=True), "precision: must be a number, not true"),
    (lambda: llama_sim.simulate("lama", ["greedy", "greedy"], rounds=2.5, quiet=True), "rounds: must be a whole number, not 2.5"),
    (lambda: llama_sim.simulate(["lama"], ["greedy", "greedy"], rounds=200, quiet=True), "game: must be a string"),
    (lambda: llama_sim.seat_table("lama", ["greedy"], rounds=200, seed="x", quiet=True), "seed: must be a whole number"),
    (lambda: llama_sim.league("lama", ["greedy", "threshold"], games=False, quiet=True), "games: must be a whole number, not false"),
    (lambda: llama_sim.league("lama", ["greedy", "threshold"], rounds=200, quite=True), "did you mean quiet?"),
    (lambda: llama_sim.tune("lama", "threshold", budget="x"), "missing a required argument: 'players'"),
    (lambda: llama_sim.tune("lama", "threshold", 4, budget="x"), "budget: must be a whole number"),
    (lambda: llama_sim.advise("lama", **POSITION, rollouts=True), "rollouts: must be a whole number, not true"),
    (lambda: llama_sim.advise("lama", **POSITION, rollout=100), "did you mean rollouts?"),
    (lambda: llama_sim.advise("lama", **POSITION, opponents=5), "opponents: must be a list of strings"),
    (lambda: llama_sim.chart("lama", games=[1]), "games: must be a whole number"),
    (lambda: llama_sim.chart("lama", quite=True), "quite: chart has no such parameter"),
    (lambda: llama_sim.solve("dice", row=5), "row: must be a string"),
    (lambda: llama_sim.solve("dice", row="2", score="3"), "score: must be a whole number"),
    (lambda: llama_sim.solve("dice", row="2", score=40), "score: must be at most 39, not 40"),
    (lambda: llama_sim.run_experiment(5), "spec: must be a path"),
    (lambda: llama_sim.run_experiment("x.toml", scale="big"), "scale: must be a number"),
])
def test_bad_arguments_are_one_usage_error(call, needle):
    if needle is None:  # a single strategy is a list of one, never iterated letter by letter
        assert len(call().summary) == 2
        return
    with pytest.raises(UsageError) as err:
        call()
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_good_arguments_still_run():
    import numpy as np

    r = llama_sim.compare("lama", ("greedy", "threshold"), rounds=np.int64(200), quiet=True, seed=3)
    same = llama_sim.compare("lama", ["greedy", "threshold"], rounds=200, quiet=True, seed=3)
    assert r.results.equals(same.results)
    s = llama_sim.sweep("lama", "threshold", "quit_at=1:2:1", vs=["greedy"], rounds=200, quiet=True)
    assert len(s.summary) == 2


def test_keywords_left_to_rule_set_options_are_still_named():
    with pytest.raises(UsageError, match="did you mean dice_layout"):
        llama_sim.compare("lama", ["greedy", "threshold"], rounds=200, quiet=True, dice_layut="x")
    with pytest.raises(UsageError, match="something: compare has no such parameter"):
        llama_sim.compare("lama", ["greedy", "threshold"], rounds=200, quiet=True, something="x")
