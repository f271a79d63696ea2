"""Throw-away LAMA Dice strategies tried against ``watcher`` (the best at 4 players) while looking for a
stronger one; none was kept. Reproduce with

    llamasim compare --game dice --players 4 <spec> watcher --games 20000 --seed 1 --view paired \
        --threads 1 --strategies-file benchmarks/dice_watcher_search.py

(paired win-rate difference <spec> - watcher with its 95% interval, as measured):

=============================================  =====================================
spec                                           win rate - watcher
=============================================  =====================================
dq (all switches off: plays as watcher)        +0.0000 [+0.0000, +0.0000]
dq:miss_quit_at=3,p_miss=0.6                   -0.0047 [-0.0084, -0.0009]
dq:miss_quit_at=6,p_miss=0.6                   -0.0204 [-0.0257, -0.0151]
dq:miss_quit_at=3,p_miss=0.45                  -0.0047 [-0.0084, -0.0009]
dx:llama_pref=5                                -0.0014 [-0.0056, +0.0028]
=============================================  =====================================

``dq`` also quits (before rolling, with nobody about to go out) when the next roll misses its whole row
with probability >= p_miss (from the dice layout) and its row's points are <= miss_quit_at. ``dx``
changes which llama-row card it takes: the lowest points, less llama_pref for the llama (a llama face
shows on all three dice, so a llama is easier to discard later); its held_bonus never acts, since a
take only happens when no rolled value is in the own row.
"""
from numba import njit

from llama_sim.rulesets.dice import (
    LLAMA, N_CODES, OBS_ACTIVE, OBS_LLAMA_ROW, OBS_PHASE, PENALTY, PHASE_TAKE, PHASE_TURN, TAKE_BASE,
)
from llama_sim.core.registry import strategy
from llama_sim.strategies.dice import fewest_cards_of_others, heuristic, solo_action


@njit(cache=True, inline="always")
def cheap_take(hand, legal, held_bonus, llama_pref):
    best, best_cost = -1, 1e18
    for c in range(N_CODES):
        if (legal >> (TAKE_BASE + c)) & 1:
            cost = float(PENALTY[c])
            if hand[c] > 0:
                cost -= held_bonus * PENALTY[c]
            if c == LLAMA:
                cost -= llama_pref
            if cost < best_cost:
                best, best_cost = TAKE_BASE + c, cost
    return best


@strategy("dice", "dx",
          "scratch: watcher with a cheaper take",
          params={"quit_at": (1, 0, 100, ""),
                  "danger": (2, 0, 13, ""),
                  "danger_quit_at": (0, 0, 100, ""),
                  "solo": (1, 0, 1, ""),
                  "held_bonus": (1.0, -0.01, 1.01, ""),
                  "llama_pref": (0.0, -20.01, 20.01, "")})
def dx(obs, hand, legal, params, rng):
    if obs[OBS_ACTIVE] == 1 and params[3] > 0:
        return solo_action(obs, hand, legal)  # watcher's: the exact optimum alone (no take step alone)
    phase = obs[OBS_PHASE]
    if phase == PHASE_TAKE:
        return cheap_take(hand, legal, params[4], params[5])
    limit = params[0]
    if phase == PHASE_TURN and fewest_cards_of_others(obs) <= params[1]:
        limit = params[2]
    return heuristic(obs, hand, legal, limit, 0, 1)


import numpy as np  # noqa: E402
from llama_sim.rulesets.dice.tables import LAYOUTS  # noqa: E402
from llama_sim.rulesets.dice import OBS_LAYOUT_ID  # noqa: E402
from llama_sim.strategies.dice import row_penalty  # noqa: E402

LAYOUT_FACES = np.array([LAYOUTS[k] for k in LAYOUTS], dtype=np.int64)


@njit(cache=True, inline="always")
def p_no_match(obs, hand):
    faces = LAYOUT_FACES[obs[OBS_LAYOUT_ID]]
    p = 1.0
    for d in range(3):
        miss = 0
        for f in range(6):
            if hand[faces[d, f]] == 0:
                miss += 1
        p *= miss / 6.0
    return p


@strategy("dice", "dq",
          "scratch: watcher, also quitting when a roll is unlikely to match",
          params={"quit_at": (1, 0, 100, ""),
                  "danger": (2, 0, 13, ""),
                  "danger_quit_at": (0, 0, 100, ""),
                  "solo": (1, 0, 1, ""),
                  "miss_quit_at": (0, 0, 100, ""),
                  "p_miss": (0.5, 0.0, 1.0, "")})
def dq(obs, hand, legal, params, rng):
    if obs[OBS_ACTIVE] == 1 and params[3] > 0:
        return solo_action(obs, hand, legal)  # watcher's: the exact optimum alone (no take step alone)
    phase = obs[OBS_PHASE]
    limit = params[0]
    if phase == PHASE_TURN:
        if fewest_cards_of_others(obs) <= params[1]:
            limit = params[2]
        elif params[4] > 0 and p_no_match(obs, hand) >= params[5] and row_penalty(hand) <= params[4]:
            return 1  # QUIT
    return heuristic(obs, hand, legal, limit, 0, 1)
