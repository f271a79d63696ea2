"""Strategies for the L.A.M.A. Party Edition (``party``). Observation layout and actions:
``llama_sim.games.party`` (codes 0..5 = 1..6, 6 = llama, 7..12 = plus cards +1..+6, 13 = pink).

``always_quit``, ``random``, ``greedy`` and ``threshold`` are L.A.M.A.'s baselines read for Party
(a plus card is played like its value, the pink llama only when nothing else fits). ``chain``
plays the new cards with intent:

- It never quits or draws while a card fits: playing can only lower its own hand's points, and it
  may still quit on its next turn.
- Plus cards: a plus card's extra turn is an obligation as much as a gift (with nothing to follow
  up it forces a draw or a quit), so ``chain`` plays a plus card when it holds a follow-up for it,
  and runs a whole chain (+3, +4, ... then a last card) when that empties its hand. A plus card
  without a follow-up is played only when no normal card fits (play-then-draw beats a bare draw).
- Pink llama: kept as the escape card that always fits, and played (a) when nothing else fits, or
  (b) as soon as an opponent still in the round is down to ``pink_danger`` cards or fewer, since
  being caught holding it costs 20 (all llamas count 20).
- Otherwise it plays the normal card that removes the most points from its hand (the last card of
  a value before a duplicate), and when nothing fits it quits once its hand is worth at most
  ``quit_at`` points, else draws.
"""
import numpy as np
from numba import njit

from ..games.party import (
    CAN_PLAY, DRAW, LLAMA, N_CODES, OBS_ACTIVE, OBS_HAND, OBS_HAND_SIZES, OBS_PLAYERS, OBS_QUIT, OBS_SEAT,
    OBS_TOP, PINK, PLUS, QUIT, VALUE_CLASS,
)
from ..registry import strategy
from ._helpers import random_legal

N_CLASSES = 7


@njit(cache=True)
def hand_points(hand):
    """Party scoring of a count vector over codes: each value once (plus cards as their value),
    llamas 10, or 20 with the pink llama among them."""
    total = 0
    for v in range(6):
        if hand[v] + hand[PLUS + v] > 0:
            total += v + 1
    if hand[PINK] > 0:
        total += 20
    elif hand[LLAMA] > 0:
        total += 10
    return total


@njit(cache=True)
def own_hand(obs):
    return obs[OBS_HAND:OBS_HAND + N_CODES].copy()


@njit(cache=True)
def greedy_play(obs, legal):
    """A card of the top's value before one higher (the normal card before the plus card),
    the pink llama only when nothing else fits; -1 if no card fits."""
    t = VALUE_CLASS[obs[OBS_TOP]]
    for k in range(2):
        cls = (t + k) % N_CLASSES
        if legal[cls]:  # the normal card of class cls has code cls (llama: 6)
            return cls
        if cls < 6 and legal[PLUS + cls]:
            return PLUS + cls
    if legal[PINK]:
        return PINK
    return -1


@strategy("party", "always_quit", "Quits at its first decision.")
def always_quit(obs, legal, params, rng):
    return QUIT


@strategy("party", "random", "Uniformly random legal action.")
def random(obs, legal, params, rng):
    return random_legal(legal, rng)


@strategy("party", "greedy",
          "Plays whenever it can (same value before one higher, normal before plus card, pink llama last), "
          "else draws, else quits.")
def greedy(obs, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if legal[DRAW]:
        return DRAW
    return QUIT


@strategy("party", "threshold",
          "As greedy, but when it cannot play it quits if its hand's points are at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand points <= quit_at")})
def threshold(obs, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if hand_points(own_hand(obs)) <= params[0] or not legal[DRAW]:
        return QUIT
    return DRAW


@njit(cache=True)
def fits_on(hand, top):
    """How many cards of ``hand`` may be played on ``top``."""
    k = 0
    for c in range(N_CODES):
        k += hand[c] * CAN_PLAY[top, c]
    return k


@njit(cache=True)
def chain_empties_hand(hand, top):
    """Can a run of plus cards starting on ``top`` and ending with one last card empty ``hand``?
    (Plus cards are one per value, so from a top of value v the run is +v or +(v+1), then the
    next value up each time: at most two runs to try.)"""
    size = 0
    for c in range(N_CODES):
        size += hand[c]
    for first in range(2):
        h = hand.copy()
        t = top
        left = size
        start = (VALUE_CLASS[t] + first) % N_CLASSES
        if start == 6 or h[PLUS + start] == 0 or CAN_PLAY[t, PLUS + start] == 0:
            continue
        v = start
        while v < 6 and h[PLUS + v] > 0 and CAN_PLAY[t, PLUS + v] == 1 and left > 1:
            h[PLUS + v] -= 1
            left -= 1
            t = PLUS + v
            v += 1
        if left == 1 and fits_on(h, t) == 1:
            return PLUS + start
    return -1


@njit(cache=True)
def min_opponent_cards(obs):
    n = obs[OBS_PLAYERS]
    me = obs[OBS_SEAT]
    low = 1000
    for s in range(n):
        if s != me and obs[OBS_QUIT + s] == 0 and obs[OBS_HAND_SIZES + s] < low:
            low = obs[OBS_HAND_SIZES + s]
    return low


@strategy("party", "chain",
          "Plays plus cards when it holds a follow-up (whole chains when they empty its hand), keeps the pink "
          "llama as an escape until an opponent is down to pink_danger cards, sheds the most points first, "
          "and when stuck quits at hand points <= quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when no card fits and hand points <= quit_at"),
                  "pink_danger": (2, 0, 6, "play the pink llama at once when an opponent still in holds <= this many cards")})
def chain(obs, legal, params, rng):
    hand = own_hand(obs)
    top = obs[OBS_TOP]
    size = 0
    n_legal_cards = 0
    for c in range(N_CODES):
        size += hand[c]
        n_legal_cards += legal[c]
    if n_legal_cards > 0:
        if size == 1:  # the last card: out
            for c in range(N_CODES):
                if legal[c]:
                    return c
        run = chain_empties_hand(hand, top)
        if run >= 0:
            return run
        if legal[PINK] and obs[OBS_ACTIVE] > 1 and min_opponent_cards(obs) <= params[1]:
            return PINK
        # A plus card with a follow-up: the one whose follow-ups are most numerous.
        best, best_follow = -1, 0
        for v in range(6):
            p = PLUS + v
            if legal[p]:
                hand[p] -= 1
                follow = fits_on(hand, p)
                hand[p] += 1
                if follow > best_follow:
                    best, best_follow = p, follow
        if best >= 0:
            return best
        # A normal card: the one removing the most points from the hand.
        base = hand_points(hand)
        best, best_gain = -1, -1
        for c in range(PLUS):
            if legal[c]:
                hand[c] -= 1
                gain = base - hand_points(hand)
                hand[c] += 1
                if gain > best_gain:
                    best, best_gain = c, gain
        if best >= 0:
            return best
        for v in range(6):  # a plus card without a follow-up: better than a bare draw
            if legal[PLUS + v]:
                return PLUS + v
        return PINK  # only the pink llama fits
    if hand_points(hand) <= params[0] or not legal[DRAW]:
        return QUIT
    return DRAW
