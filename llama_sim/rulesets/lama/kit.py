"""Everything a L.A.M.A. strategy is written with, in one stable module:

    from llama_sim import strategy
    from llama_sim.rulesets.lama.kit import DRAW, QUIT, OBS_TOP, hand_points, pick_legal

- actions: ``0..6`` play the card of that code (``1``..``6`` are codes 0..5, the llama code 6 =
  ``LLAMA``), ``DRAW``, ``QUIT``; ``is_legal(legal, a)``, ``count_legal``, ``pick_legal(legal, rng)``;
- the observation's fields (``OBS_*``, ``OBSERVATION``: ``llamasim strategies --game lama
  --observation`` prints them with their corner cases); ``hand`` is a count per code (``N_CODES``);
- ``hand_points(hand)``: what the hand would score now (each distinct value once, the llama 10);
  ``PENALTY``: the points of each code;
- the rng helpers on the policy's own ``rng``: ``uniform``, ``randint``, ``below``;
- ``describe(obs, hand)``: what the player saw, in words (``llamasim trace`` prints it).
"""
from numba import njit

from llama_sim.core.scoring import distinct_penalty
from llama_sim.core.kit import below, count_legal, is_legal, pick_legal, randint, uniform  # noqa: F401
from llama_sim.rulesets.lama.engine import (  # noqa: F401
    ACTION_NAMES, CODE_NAMES, DRAW, LLAMA, N_ACTIONS, N_CODES, OBS_ACTIVE, OBS_DISCARD, OBS_DRAW_PILE,
    OBS_HAND_SIZES, OBS_LEN, OBS_PLAYERS, OBS_QUIT, OBS_SCORES, OBS_SEAT, OBS_TOP, OBS_TURN, PENALTY, QUIT)
from llama_sim.rulesets.shedding.kit import OBSERVATION, describer  # noqa: F401

describe = describer(CODE_NAMES)  # what a player saw, in words (trace, an illegal action)


@njit(cache=True, inline="always")
def hand_points(hand):
    """The points ``hand`` (a count per code) would score if the round ended now."""
    return distinct_penalty(hand, PENALTY)
