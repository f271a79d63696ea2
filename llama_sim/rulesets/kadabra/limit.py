"""The limit of the Kadabra kernel's design: the bench line-up's work, specialised.

``limit_blocks`` plays exactly what the block loop plays for ``bench`` (4 seats of ``greedy``, round
mode): per block one key, the deal and policy streams seeded from it, the lazy deal and every draw's
Fisher-Yates step, the stage, the shows, the give-aways and the magic token, and the round's points,
went-out and quits of every seat into the block's vector and its squares. It differs only in what the
kernel does to stay general: ``greedy`` written in (a card of the top's own value, else one a value
higher, lowest code first; in a show a llama, else pass the magic token on, else collect; give to the
next seat to the left), no observation kept up to date, no legality check, no log. Its sums equal the
kernel's on every seed (``tests/test_limits.py``), so its speed is what the kernel's design allows
(``llamasim bench``). Measurement code: nothing plays with it.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from llama_sim.core import rng as R
from llama_sim.core.draws import NO_NRT, draw_at
from llama_sim.core.blocks import play_limit, record_round
from llama_sim.core.errors import UsageError
from llama_sim.core.views import stack_zeros
from llama_sim.rulesets.kadabra.kernel import HANDS_CAPACITY, own_args
from llama_sim.rulesets.kadabra.tables import (
    CODE_KIND, CODE_SYMBOL, CODE_VALUES, HAND_SIZE, KIND_VALUES, LLAMA, LLAMA_BITS, MAGIC_POINTS, MAGIC_POOL,
    MAGIC_STAGE, MAX_PLAYERS, N_CODES, PLAYABLE_BITS, SHOW_AT, START_ONES, SYM_DRAW, SYM_GIVE, SYM_MAGIC,
    VALUESET_POINTS,
)

LIMIT_STRATEGY = "greedy"
CARD_BITS = (1 << N_CODES) - 1
# SAME_VALUE_BITS[top kind]: the codes sharing a value with that top (greedy's first choice)
SAME_VALUE_BITS = np.array([sum(1 << c for c in range(N_CODES) if CODE_VALUES[c] & KIND_VALUES[k])
                            for k in range(KIND_VALUES.shape[0])], dtype=np.int64)
V_CAPACITY = 3 * MAX_PLAYERS  # round mode's block vector: penalty, went out and quit of each unit
DECK_CAPACITY = 64


@njit(cache=True, nogil=True, inline="always")
def _lowest(bits):
    return np.int64(trailing_zeros(bits))


@njit(cache=True, nogil=True, inline="always")
def _next_in(seat, n, quit):
    """The first seat after ``seat`` still in the round (``seat`` itself when alone)."""
    t = seat + 1 if seat + 1 < n else 0
    while quit[t] and t != seat:
        t = t + 1 if t + 1 < n else 0
    return t


@njit(cache=True, nogil=True, inline="always")
def _give(seat, g, ones, tens, magic):
    """One of ``seat``'s lowest tokens (1 < 10 < magic) to seat ``g``; returns where the magic token is."""
    if ones[seat] > 0:
        ones[seat] -= 1
        ones[g] += 1
        tens[g] += ones[g] // 10
        ones[g] %= 10
    elif tens[seat] > 0:
        tens[seat] -= 1
        tens[g] += 1
    else:
        magic = g
    return magic


@njit(cache=True, nogil=True, inline="always")
def _points(hands, s, holds_magic):
    """The round's points of seat ``s``'s hand, each value once, and 10 for a held magic token."""
    values = 0
    for c in range(N_CODES):
        values |= CODE_VALUES[c] * (hands[s, c] > 0)
    return VALUESET_POINTS[values] + (MAGIC_POINTS if holds_magic else 0)


@njit(cache=True, nogil=True, **NO_NRT)
def limit_blocks(base, no_show, seed, n_blocks, n, unit_of_seat, n_units, s1, upper):
    """``n_blocks`` blocks of one seating of ``greedy`` (round mode) dealt from ``base``; sums into ``s1``,
    ``upper``."""
    deck_len = base.shape[0]
    deck = stack_zeros(DECK_CAPACITY, deck_len, np.int64)
    hands = stack_zeros(HANDS_CAPACITY, (n, N_CODES), np.int64)
    held = stack_zeros(MAX_PLAYERS, n, np.int64)
    sizes = stack_zeros(MAX_PLAYERS, n, np.int64)
    quit = stack_zeros(MAX_PLAYERS, n, np.int64)
    ones = stack_zeros(MAX_PLAYERS, n, np.int64)
    tens = stack_zeros(MAX_PLAYERS, n, np.int64)
    penalty = stack_zeros(MAX_PLAYERS, n, np.int64)
    went_out = stack_zeros(MAX_PLAYERS, n, np.int64)
    final = stack_zeros(MAX_PLAYERS, n, np.int64)
    wins = stack_zeros(MAX_PLAYERS, n, np.int64)
    v = stack_zeros(V_CAPACITY, s1.shape[0], np.int64)
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
    for b in range(n_blocks):
        key = R.block_key(seed, b)
        R.seed_from_key(drng, key, R.DEAL_STREAM)
        R.seed_from_key(prng, key, R.POLICY_STREAM)
        for i in range(deck_len):
            deck[i] = base[i]
        hands[:, :] = 0
        k = 0
        for s in range(n):
            ones[s] = START_ONES
            tens[s] = 0
            quit[s] = 0
            for _ in range(HAND_SIZE):
                hands[s, draw_at(deck, k, drng)] += 1
                k += 1
            bits = np.int64(0)
            for c in range(N_CODES):
                bits |= np.int64(hands[s, c] > 0) << c
            held[s] = bits
            sizes[s] = HAND_SIZE
            penalty[s] = -START_ONES
        top = CODE_KIND[draw_at(deck, k, drng)]
        pos = HAND_SIZE * n + 1
        stage_ones = 0
        stage_tens = 0
        magic = MAGIC_POOL
        show = False
        n_in = n
        out = -1
        seat = n - 1
        while n_in > 0:
            seat = _next_in(seat, n, quit)
            if show:  # a llama, else pass the show on with the magic token, else collect the stage
                llamas = held[seat] & LLAMA_BITS
                if llamas == 0:
                    if n_in > 1 and magic == seat:
                        magic = MAGIC_POOL
                        continue
                    ones[seat] += stage_ones
                    tens[seat] += stage_tens + ones[seat] // 10
                    ones[seat] %= 10
                    stage_ones = 0
                    stage_tens = 0
                    if magic == MAGIC_STAGE:
                        magic = seat
                    show = False
                    a = -1
                else:
                    a = _lowest(llamas)
            else:
                a = -1
            if a < 0:  # a turn
                fits = held[seat] & PLAYABLE_BITS[top]
                if fits:
                    same = fits & SAME_VALUE_BITS[top]
                    a = _lowest(same) if same else _lowest(fits & CARD_BITS)
                elif n_in > 1 and magic == seat:
                    magic = MAGIC_POOL
                    continue
                elif n_in > 1 and pos < deck_len:
                    card = draw_at(deck, pos, drng)
                    pos += 1
                    hands[seat, card] += 1
                    held[seat] |= np.int64(1) << card
                    sizes[seat] += 1
                    continue
                else:
                    quit[seat] = 1
                    n_in -= 1
                    continue
            hands[seat, a] -= 1
            held[seat] &= ~(np.int64(hands[seat, a] == 0) << a)
            sizes[seat] -= 1
            last = sizes[seat] == 0
            kind = CODE_KIND[a]
            symbol = CODE_SYMBOL[a]
            top = kind
            if kind == LLAMA and no_show == 0:  # stake one of the lowest tokens on the stage
                if ones[seat] > 0:
                    ones[seat] -= 1
                    stage_ones += 1
                elif tens[seat] > 0:
                    tens[seat] -= 1
                    stage_tens += 1
                elif magic == seat:
                    magic = MAGIC_STAGE
            if symbol == SYM_GIVE:
                if n_in > 1 and (ones[seat] > 0 or tens[seat] > 0 or magic == seat):
                    magic = _give(seat, _next_in(seat, n, quit), ones, tens, magic)
            elif symbol == SYM_DRAW:
                if pos < deck_len:  # the next player still in draws (oneself when alone)
                    j = _next_in(seat, n, quit)
                    card = draw_at(deck, pos, drng)
                    pos += 1
                    hands[j, card] += 1
                    held[j] |= np.int64(1) << card
                    sizes[j] += 1
            elif symbol == SYM_MAGIC:
                magic = seat
            staged = stage_ones + stage_tens + (1 if magic == MAGIC_STAGE else 0)
            if staged < SHOW_AT:
                show = False
            elif kind == LLAMA:
                show = True
            if last:
                out = seat
                break
        for s in range(n):
            p = _points(hands, s, magic == s)
            ones[s] += p % 10
            tens[s] += p // 10 + ones[s] // 10
            ones[s] %= 10
        if out >= 0:
            if tens[out] > 0:
                tens[out] -= 1
            elif ones[out] > 0:
                ones[out] -= 1
        for s in range(n):
            penalty[s] += ones[s] + 10 * tens[s]
            went_out[s] = 1 if s == out else 0
        record_round(v, n_units, unit_of_seat, n, penalty, went_out, quit, final, wins, s1, upper)
    return 0


def limit(plan, seed: int, n_blocks: int, s1: np.ndarray, s2: np.ndarray) -> None:
    """The limit of the Kadabra kernel's design (``RuleSet.limit``) on ``plan``: seats of ``greedy`` only."""
    names = {p.strategy.name for p in plan.entries}
    if names != {LIMIT_STRATEGY}:
        raise UsageError(f"the kadabra limit plays one {LIMIT_STRATEGY} line-up only, not {sorted(names)}")
    base, _, no_show, _ = own_args(plan.cfg)
    if base.shape[0] > DECK_CAPACITY:
        raise UsageError(f"the kadabra limit deals at most {DECK_CAPACITY} cards, not {base.shape[0]}")
    play_limit(limit_blocks, (base, np.int64(no_show)), plan, seed, n_blocks, s1, s2)
