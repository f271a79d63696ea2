"""The limit of the dice kernel's design: the bench line-up's work, specialised.

``limit_loop`` plays exactly what the block loop plays for ``bench`` (4 seats of ``threshold``, round
mode): per block one key and its deal, policy and dice streams, the deal, every roll, the round's points,
went-out and quits of every seat into the block's vector and its squares. It differs only in what the
kernel does to stay general: ``threshold`` written in (quit when the row's points are at most
``quit_at``, discard the most the dice allow, take the lowest card), no observation kept up to date,
no legality check, each row's codes held as a bit set. Its sums equal the kernel's on every seed
(``tests/test_limits.py``), so its speed is what the kernel's design allows (``llamasim bench``).
Measurement code: nothing plays with it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.draws import NO_NRT, deal_shuffle
from llama_sim.core.blocks import play_limit, record_round
from llama_sim.core.errors import UsageError
from llama_sim.core.rng import randint_small
from llama_sim.core.views import stack_zeros
from llama_sim.rulesets.dice.codes import DECK, LLAMA, MAX_PLAYERS, N_CODES, N_ROLLS, PENALTY, ROLL_DIE_FACE, ROW_SIZE

LIMIT_STRATEGY = "threshold"
# the points of every set of codes held (bit c: code c), each code once
HELD_POINTS = np.array([sum(int(PENALTY[c]) for c in range(N_CODES) if held >> c & 1) for held in range(1 << N_CODES)],
                       np.int64)
V_CAPACITY = 3 * MAX_PLAYERS  # round mode's block vector: penalty, went out and quit of each unit
DECK_CAPACITY = DECK.shape[0]
ROWS_CAPACITY = MAX_PLAYERS * N_CODES


@njit(cache=True, nogil=True, **NO_NRT)
def limit_blocks(quit_at, cfg, seed, n_blocks, n, unit_of_seat, n_units, s1, upper):
    """``n_blocks`` blocks of one seating of ``threshold:quit_at`` (round mode); sums into ``s1``, ``upper``."""
    deck = stack_zeros(DECK_CAPACITY, DECK_CAPACITY, np.int8)
    rows = stack_zeros(ROWS_CAPACITY, (n, N_CODES), np.int64)
    held = stack_zeros(MAX_PLAYERS, n, np.int64)
    left = stack_zeros(MAX_PLAYERS, n, np.int64)
    quit = stack_zeros(MAX_PLAYERS, n, np.int64)
    penalty = stack_zeros(MAX_PLAYERS, n, np.int64)
    went_out = stack_zeros(MAX_PLAYERS, n, np.int64)
    final = stack_zeros(MAX_PLAYERS, n, np.int64)
    wins = stack_zeros(MAX_PLAYERS, n, np.int64)
    v = stack_zeros(V_CAPACITY, s1.shape[0], np.int64)
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
    dice_rng = stack_zeros(2, 2, np.uint64)
    for b in range(n_blocks):
        key = R.block_key(seed, b)
        R.seed_from_key(drng, key, R.DEAL_STREAM)
        R.seed_from_key(prng, key, R.POLICY_STREAM)
        R.seed_from_key(dice_rng, key, R.DICE_STREAM)
        for i in range(DECK_CAPACITY):
            deck[i] = DECK[i]
        deal_shuffle(deck, ROW_SIZE * n, drng)
        rows[:, :] = 0
        for s in range(n):
            bits = np.int64(0)
            for k in range(ROW_SIZE):
                c = deck[ROW_SIZE * s + k]
                rows[s, c] += 1
                bits |= np.int64(1) << c
            held[s] = bits
            left[s] = ROW_SIZE
            quit[s] = 0
        llama_row = np.int64((1 << N_CODES) - 1)  # the llama row's codes as a bit set
        n_in = n
        seat = 0
        last_actor = -1
        out = False
        while n_in > 0:
            if quit[seat]:
                seat = seat + 1 if seat + 1 < n else 0
                continue
            last_actor = seat
            if HELD_POINTS[held[seat]] <= quit_at:
                quit[seat] = 1
                n_in -= 1
                seat = seat + 1 if seat + 1 < n else 0
                continue
            o = randint_small(dice_rng, N_ROLLS)
            f0 = cfg[1 + ROLL_DIE_FACE[o, 0]]
            f1 = cfg[7 + ROLL_DIE_FACE[o, 1]]
            f2 = cfg[13 + ROLL_DIE_FACE[o, 2]]
            r0 = rows[seat, f0]
            if f0 == LLAMA and f1 == LLAMA and f2 == LLAMA:
                pass  # three llamas return a token: round mode starts every score at 0, so none goes back
            elif r0 > 0 or rows[seat, f1] > 0 or rows[seat, f2] > 0:
                # the most the dice allow: each die while the row still holds a card of its value
                rows[seat, f0] -= np.int64(r0 > 0)
                r1 = rows[seat, f1]
                rows[seat, f1] -= np.int64(r1 > 0)
                r2 = rows[seat, f2]
                rows[seat, f2] -= np.int64(r2 > 0)
                left[seat] -= np.int64(r0 > 0) + np.int64(r1 > 0) + np.int64(r2 > 0)
                for f in (f0, f1, f2):
                    held[seat] &= ~(np.int64(rows[seat, f] == 0) << f)
                if left[seat] == 0:
                    out = True
                    break
            elif n_in > 1 and (llama_row >> f0 | llama_row >> f1 | llama_row >> f2) & 1:
                takes = ((llama_row >> f0) & 1) << f0 | ((llama_row >> f1) & 1) << f1 | ((llama_row >> f2) & 1) << f2
                c = np.int64(0)
                while (takes >> c) & 1 == 0:  # the lowest card the roll allows
                    c += 1
                llama_row &= ~(np.int64(1) << c)
                rows[seat, c] += 1
                held[seat] |= np.int64(1) << c
                left[seat] += 1
                if llama_row == 0:
                    break
            else:
                for c in range(N_CODES):
                    if (llama_row >> c) & 1:
                        rows[seat, c] += 1
                        held[seat] |= np.int64(1) << c
                llama_row = 0
                break
            seat = seat + 1 if seat + 1 < n else 0
        for s in range(n):
            gone = out and s == last_actor
            penalty[s] = 0 if gone else HELD_POINTS[held[s]]
            went_out[s] = 1 if gone else 0
        record_round(v, n_units, unit_of_seat, n, penalty, went_out, quit, final, wins, s1, upper)
    return 0


def limit(plan, seed: int, n_blocks: int, s1: np.ndarray, s2: np.ndarray) -> None:
    """The limit of the dice kernel's design (``RuleSet.limit``) on ``plan``: seats of ``threshold`` only."""
    entries = {(p.strategy.name, float(p.params[0])) for p in plan.entries}
    if len(entries) != 1 or next(iter(entries))[0] != LIMIT_STRATEGY:
        raise UsageError(f"the dice limit plays one {LIMIT_STRATEGY} line-up only, not {sorted(entries)}")
    (_, quit_at), = entries
    play_limit(limit_blocks, (np.float64(quit_at), plan.cfg), plan, seed, n_blocks, s1, s2)
