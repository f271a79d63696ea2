"""The toy rule set's strategies (observation and actions: ``toy_ruleset``)."""
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.registry import strategy
from toy_ruleset import DRAW, OBS_TOP, QUIT


@njit(cache=True, inline="always")
def greedy_action(obs, legal):
    top = obs[OBS_TOP]
    for c in (top, (top + 1) % 3):
        if (legal >> c) & 1:
            return c
    if (legal >> DRAW) & 1:
        return DRAW
    return QUIT


@strategy("toy", "random", "Uniformly random legal action.")
def random(obs, hand, legal, params, rng):
    k = R.randint(rng, 5)
    while not (legal >> k) & 1:
        k = (k + 1) % 5
    return k


@strategy("toy", "greedy", "Plays the top's value, else one higher, else draws, else quits.")
def greedy(obs, hand, legal, params, rng):
    return greedy_action(obs, legal)


@strategy("toy", "cautious", "Plays like greedy but quits at a hand of quit_at points or less.",
          params={"quit_at": (2, 0, 6)})
def cautious(obs, hand, legal, params, rng):
    points = (1 if hand[0] else 0) + (2 if hand[1] else 0) + (3 if hand[2] else 0)
    if points <= params[0]:
        return QUIT
    return greedy_action(obs, legal)
