"""Strategies for Llama Kadabra (``kadabra``). Observation layout, phases and actions:
``llama_sim.games.kadabra``.

Every policy answers three kinds of decision, told apart by ``obs[OBS_PHASE]``: a normal turn
(play / draw / quit / return the magic token), a show (play a llama / collect / return the magic
token) and a give-away target (give to seat k).
"""
import numpy as np
from numba import njit

from ..games.kadabra.tables import (
    CODE_KIND, CODE_SYMBOL, CODE_VALUES, COLLECT, DRAW, GIVE, KIND_VALUES, LLAMA, LLAMA_CODES, MAGIC_POINTS,
    MAX_PLAYERS, N_CODES, N_VALUES, OBS_ACTIVE, OBS_DRAW_PILE, OBS_HAND, OBS_HAND_SIZES, OBS_MAGIC, OBS_ONES,
    OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_SEAT, OBS_STAGE_TOKENS, OBS_TENS, OBS_TOP, PHASE_GIVE, PHASE_SHOW,
    PLAIN, QUIT, RETURN_MAGIC, SHOW_AT, SYM_GIVE, SYM_MAGIC, VALUE_POINTS,
)
from ..registry import strategy
from ._helpers import random_legal

# ----------------------------------------------------------------------------- building blocks


@njit(cache=True, inline="always")
def hand_points(obs):
    """Points the own hand would score now: distinct values once, doubles both values, llamas 10."""
    values = 0
    for c in range(N_CODES):
        if obs[OBS_HAND + c] > 0:
            values |= CODE_VALUES[c]
    total = 0
    for v in range(N_VALUES):
        if values >> v & 1:
            total += VALUE_POINTS[v]
    return total


@njit(cache=True, inline="always")
def hand_points_without(obs, code):
    """Hand points after one card of ``code`` has left the hand."""
    values = 0
    for c in range(N_CODES):
        k = obs[OBS_HAND + c] - (1 if c == code else 0)
        if k > 0:
            values |= CODE_VALUES[c]
    total = 0
    for v in range(N_VALUES):
        if values >> v & 1:
            total += VALUE_POINTS[v]
    return total


@njit(cache=True, inline="always")
def points_of(obs, seat):
    """A seat's points on the table: its 1s and 10s, plus 10 while it holds the magic token."""
    p = obs[OBS_ONES + seat] + 10 * obs[OBS_TENS + seat]
    if obs[OBS_MAGIC] == seat:
        p += MAGIC_POINTS
    return p


@njit(cache=True, inline="always")
def llamas_held(obs):
    k = 0
    for i in range(LLAMA_CODES.shape[0]):
        k += obs[OBS_HAND + LLAMA_CODES[i]]
    return k


@njit(cache=True, inline="always")
def first_legal_llama(legal):
    for i in range(LLAMA_CODES.shape[0]):
        if legal[LLAMA_CODES[i]]:
            return LLAMA_CODES[i]
    return -1


@njit(cache=True, inline="always")
def greedy_play(obs, legal):
    """A card of the top card's own value before one a value higher (so a llama on a llama before a
    1); within that, code order (plain before symbol cards). -1 if nothing is playable."""
    top_values = KIND_VALUES[obs[OBS_TOP]]
    higher = -1
    for c in range(N_CODES):
        if legal[c]:
            if CODE_VALUES[c] & top_values:
                return c
            if higher < 0:
                higher = c
    return higher


@njit(cache=True, inline="always")
def next_target(obs, legal):
    """The first seat to the left that may receive a token."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_PLAYERS]
    for step in range(1, n):
        t = (seat + step) % n
        if legal[GIVE + t]:
            return GIVE + t
    return -1


@njit(cache=True, inline="always")
def leader_target(obs, legal):
    """The player (still in the round) with the fewest points: the one to slow down."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_PLAYERS]
    best = -1
    best_points = 1 << 40
    for step in range(1, n):
        t = (seat + step) % n
        if legal[GIVE + t]:
            p = points_of(obs, t)
            if p < best_points:
                best_points = p
                best = GIVE + t
    return best


@njit(cache=True, inline="always")
def greedy_show(obs, legal):
    """In a show: a llama if possible, else pass with the magic token, else collect."""
    a = first_legal_llama(legal)
    if a >= 0:
        return a
    if legal[RETURN_MAGIC]:
        return RETURN_MAGIC
    return COLLECT


# ----------------------------------------------------------------------------- baselines


@strategy("kadabra", "always_quit", "Quits at its first turn; in a show collects; gives to the next player.")
def always_quit(obs, legal, params, rng):
    phase = obs[OBS_PHASE]
    if phase == PHASE_SHOW:
        return COLLECT
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    return QUIT


@strategy("kadabra", "random", "Uniformly random legal action in every decision.")
def random(obs, legal, params, rng):
    return random_legal(legal, rng)


@strategy("kadabra", "greedy",
          "Plays whenever it can (same value before one higher), else returns the magic token, else draws, "
          "else quits; in a show plays a llama, else passes with the magic token, else collects; gives to "
          "the next player.")
def greedy(obs, legal, params, rng):
    phase = obs[OBS_PHASE]
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    if phase == PHASE_SHOW:
        return greedy_show(obs, legal)
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if legal[RETURN_MAGIC]:
        return RETURN_MAGIC
    if legal[DRAW]:
        return DRAW
    return QUIT


@strategy("kadabra", "threshold",
          "As greedy, but when it cannot play (and cannot pass with the magic token) it quits if its hand "
          "would score at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand points (+10 magic) <= quit_at")})
def threshold(obs, legal, params, rng):
    phase = obs[OBS_PHASE]
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    if phase == PHASE_SHOW:
        return greedy_show(obs, legal)
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if legal[RETURN_MAGIC]:
        return RETURN_MAGIC
    cost = hand_points(obs)
    if obs[OBS_MAGIC] == obs[OBS_SEAT]:
        cost += MAGIC_POINTS
    if cost <= params[0] or not legal[DRAW]:
        return QUIT
    return DRAW
