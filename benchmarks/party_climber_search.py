"""The throw-away strategies of the search that led to Party's ``climber`` (strategies/party.py), kept so
that the figures of the ideas its docstring lists as tried and not kept can be reproduced:

    llamasim compare --game party --players 4 <spec> chain --games G --seed S --view paired --threads 1 \
        --strategies-file benchmarks/party_climber_search.py

(paired win-rate difference <spec> - chain with its 95% interval, as measured on the search's machine)

=============================================  ==========  =====================================
spec                                           G, S        win rate - chain
=============================================  ==========  =====================================
probe_chain:w_shed=1 (card by points shed)     20000, 1    -0.1115 [-0.1181, -0.1049]
probe_chain:pink_follow=1                      20000, 1    -0.0218 [-0.0278, -0.0158]
probe_chain:pink_follow=2                      20000, 1    -0.0104 [-0.0152, -0.0056]
probe_chain:pink_follow=3                      20000, 1    -0.0020 [-0.0047, +0.0007]
probe_chain:quit_step=1 (distance quitting)    20000, 1    -0.0252 [-0.0317, -0.0186]
probe_chain:quit_at_20=3                       20000, 1    -0.0156 [-0.0198, -0.0115]
probe_follow (card by cards that follow)       20000, 1    +0.0048 [-0.0009, +0.0106]
probe_follow:quit_step=1 (under 10 points)     20000, 1    +0.0021 [-0.0045, +0.0087]
probe_danger (an early form of climber)        40000, 3    +0.0208 [+0.0161, +0.0256]
probe_danger:danger=1,w_shed_danger=1          40000, 3    +0.0104 [+0.0057, +0.0150]
=============================================  ==========  =====================================

``probe_chain`` is chain plus switches, all off by default (it then plays exactly as chain): a card
score by points shed (w_shed) and by the cards that fit on the card played (w_follow); the pink
llama played early while holding >= pink_follow cards that fit on it; the quit threshold raised by
quit_step for every step of distance beyond step_from between the top and the nearest held card;
a quit threshold of its own from a score of 20 (quit_at_20). ``probe_follow`` scores the cards
by w0..w3 times the held cards 0..3 values above the card played (w_shed: points shed) and applies
quit_step under 10 points only. ``probe_danger`` scores the same way and, once an opponent still in
holds <= danger cards, weighs the points shed by w_shed_danger.
"""
import numpy as np
from numba import njit

from llama_sim.rulesets.party import (
    LLAMA, N_CODES, OBS_ACTIVE, OBS_SCORES, OBS_SEAT, OBS_TOP, PINK, PLUS, QUIT, DRAW, VALUE_CLASS,
)
from llama_sim.core.registry import strategy
from llama_sim.strategies.party import (
    chain_empties_hand, fits_on, greedy_play, hand_points, min_opponent_cards,
)

N_CLASSES = 7


# chain's first card choices, shared by the three probes: the card that goes out, then the plus card with
# the most follow-ups. chain_rules (strategies/party.py) keeps them inline: calling these two helpers
# there measured 3-5% fewer rounds per second in a chain/climber/chart line-up.
@njit(cache=True, inline="always")
def going_out_card(hand, legal, top, size):
    """The last card, or the first plus card of a run that empties the hand; -1 if none."""
    if size == 1:
        for c in range(N_CODES):
            if (legal >> c) & 1:
                return c
    return chain_empties_hand(hand, top)


@njit(cache=True, inline="always")
def plus_with_follow_up(hand, legal):
    """The legal plus card on which the most other held cards fit (pink llama not counted); -1 if none."""
    best, best_follow = -1, 0
    for v in range(6):
        p = PLUS + v
        if (legal >> p) & 1:
            hand[p] -= 1
            follow = fits_on(hand, p) - hand[PINK]
            hand[p] += 1
            if follow > best_follow:
                best, best_follow = p, follow
    return best


@njit(cache=True, inline="always")
def nearest_distance(hand, top):
    """Steps the top must advance (on the cycle 1..6, llama) before a held card (pink aside) lies on it."""
    t = VALUE_CLASS[top]
    best = 99
    for c in range(N_CODES - 1):
        if hand[c] > 0:
            d = (VALUE_CLASS[c] - t) % N_CLASSES
            if d < best:
                best = d
    return best


@njit(cache=True, inline="always")
def follow_count(hand, cls):
    """Held cards (pink aside) of class cls or one above: playable on a top of class cls."""
    k = 0
    for c in range(N_CODES - 1):
        if hand[c] > 0:
            d = (VALUE_CLASS[c] - cls) % N_CLASSES
            if d <= 1:
                k += hand[c]
    return k


@strategy("party", "probe_chain",
          "chain plus switches that are off by default (benchmarks/party_climber_search.py)",
          params={"quit_at": (3, 0, 100, ""),
                  "quit_at_10": (0, 0, 100, ""),
                  "quit_step": (0, -20, 20, ""),
                  "w_shed": (0, -10, 10, ""),
                  "w_follow": (0, -10, 10, ""),
                  "pink_follow": (0, 0, 10, ""),
                  "quit_at_20": (-1, -1, 100, ""),
                  "step_from": (2, 2, 6, "")})
def probe_chain(obs, own, legal, params, rng):
    hand = own.copy()  # changed and restored below: the engine's row is read-only
    top = obs[OBS_TOP]
    size = 0
    n_legal_cards = 0
    for c in range(N_CODES):
        size += hand[c]
        n_legal_cards += (legal >> c) & 1
    if n_legal_cards > 0:
        out = going_out_card(hand, legal, top, size)
        if out >= 0:
            return out
        if params[5] > 0 and (legal >> PINK) & 1 and n_legal_cards > 1:
            if hand[LLAMA] + hand[0] + hand[PLUS] >= params[5]:
                return PINK
        plus = plus_with_follow_up(hand, legal)
        if plus >= 0:
            return plus
        g = greedy_play(obs, legal)
        if (params[3] == 0 and params[4] == 0) or g == PINK:
            return g
        # Score the normal/plus plays: points shed and cards that follow on the new top.
        before = hand_points(hand)
        t = VALUE_CLASS[top]
        best_c, best_s = -1, -1e18
        for k in range(2):
            cls = (t + k) % N_CLASSES
            for c in (cls, PLUS + cls):
                if c >= PINK or (cls == 6 and c != cls):
                    continue
                if (legal >> c) & 1:
                    hand[c] -= 1
                    s = params[3] * (before - hand_points(hand)) + params[4] * follow_count(hand, cls)
                    hand[c] += 1
                    if s > best_s:
                        best_c, best_s = c, s
        return best_c
    score = obs[OBS_SCORES + obs[OBS_SEAT]]
    if score >= 20 and params[6] >= 0:
        limit = params[6]
    elif score >= 10:
        limit = params[1]
    else:
        limit = params[0]
    d = nearest_distance(hand, top)
    if d >= params[7] and d < 99:
        limit += params[2] * (d - params[7] + 1)
    if hand_points(hand) <= limit or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def weighted_follow(hand, cls, w0, w1, w2, w3):
    s = 0.0
    for c in range(N_CODES - 1):
        if hand[c] > 0:
            d = (VALUE_CLASS[c] - cls) % N_CLASSES
            if d == 0:
                s += w0 * hand[c]
            elif d == 1:
                s += w1 * hand[c]
            elif d == 2:
                s += w2 * hand[c]
            elif d == 3:
                s += w3 * hand[c]
    return s


@strategy("party", "probe_follow",
          "cards scored by the held cards that follow them (benchmarks/party_climber_search.py)",
          params={"w0": (1, -10, 10, ""),
                  "w1": (1, -10, 10, ""),
                  "w2": (0, -10, 10, ""),
                  "w3": (0, -10, 10, ""),
                  "w_shed": (0, -10, 10, ""),
                  "quit_at": (3, 0, 100, ""),
                  "quit_step": (0, -20, 20, ""),
                  "step_from": (2, 2, 6, "")})
def probe_follow(obs, own, legal, params, rng):
    hand = own.copy()  # changed and restored below: the engine's row is read-only
    top = obs[OBS_TOP]
    size = 0
    n_legal_cards = 0
    for c in range(N_CODES):
        size += hand[c]
        n_legal_cards += (legal >> c) & 1
    if n_legal_cards > 0:
        out = going_out_card(hand, legal, top, size)
        if out >= 0:
            return out
        plus = plus_with_follow_up(hand, legal)
        if plus >= 0:
            return plus
        g = greedy_play(obs, legal)
        if g == PINK:
            return g
        before = hand_points(hand)
        t = VALUE_CLASS[top]
        best_c, best_s = -1, -1e18
        for k in range(2):
            cls = (t + k) % N_CLASSES
            for c in (cls, PLUS + cls):
                if c >= PINK:
                    continue
                if (legal >> c) & 1:
                    hand[c] -= 1
                    s = params[4] * (before - hand_points(hand)) + weighted_follow(hand, cls, params[0], params[1],
                                                                                   params[2], params[3])
                    hand[c] += 1
                    if s > best_s:
                        best_c, best_s = c, s
        return best_c
    score = obs[OBS_SCORES + obs[OBS_SEAT]]
    limit = 0.0
    if score < 10:
        limit = params[5]
        d = nearest_distance(hand, top)
        if d >= params[7] and d < 99:
            limit += params[6] * (d - params[7] + 1)
    if hand_points(hand) <= limit or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def weighted_by_distance(hand, cls, w):
    s = 0.0
    for c in range(N_CODES - 1):
        if hand[c] > 0:
            d = (VALUE_CLASS[c] - cls) % N_CLASSES
            s += w[d] * hand[c]
    return s


@strategy("party", "probe_danger",
          "cards scored by what follows; points shed weigh more near the round's end (benchmarks/party_climber_search.py)",
          params={"w0": (2.0, 0.01, 4.01, ""),
                  "w2": (0.3, -1.01, 2.01, ""),
                  "w3": (0.2, -1.01, 2.01, ""),
                  "w_shed": (0.02, -0.51, 0.51, ""),
                  "quit_at": (3, 0, 50, ""),
                  "quit_at_10": (0, 0, 50, ""),
                  "danger": (0, 0, 6, ""),
                  "w_shed_danger": (0.02, -5.01, 5.01, "")})
def probe_danger(obs, own, legal, params, rng):
    hand = own.copy()  # changed and restored below: the engine's row is read-only
    top = obs[OBS_TOP]
    size = 0
    n_legal_cards = 0
    for c in range(N_CODES):
        size += hand[c]
        n_legal_cards += (legal >> c) & 1
    if n_legal_cards > 0:
        out = going_out_card(hand, legal, top, size)
        if out >= 0:
            return out
        plus = plus_with_follow_up(hand, legal)
        if plus >= 0:
            return plus
        g = greedy_play(obs, legal)
        if g == PINK:
            return g
        w = np.array([params[0], 1.0, params[1], params[2], 0.0, 0.0, 0.0])
        ws = params[3]
        if obs[OBS_ACTIVE] > 1 and min_opponent_cards(obs) <= params[6]:
            ws = params[7]
        before = hand_points(hand)
        t = VALUE_CLASS[top]
        best_c, best_s = -1, -1e18
        for k in range(2):
            cls = (t + k) % N_CLASSES
            for c in (cls, PLUS + cls):
                if c >= PINK:
                    continue
                if (legal >> c) & 1:
                    hand[c] -= 1
                    s = ws * (before - hand_points(hand)) + weighted_by_distance(hand, cls, w)
                    hand[c] += 1
                    if s > best_s:
                        best_c, best_s = c, s
        return best_c
    limit = params[4] if obs[OBS_SCORES + obs[OBS_SEAT]] < 10 else params[5]
    if hand_points(hand) <= limit or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW
