"""LAMA Dice's luck (``core.luck``): of each card dealt and of each roll, compiled; the reference engine
calls these same compiled functions, so both count the same floats.

The value table ``weights[players, row size, column]`` (``LUCK_SHAPE``, fitted by
``scripts/fit_luck.py --game dice``) holds three parts:

- columns 0..6, ``W``: a row's value, linear in the codes it holds (``core.luck_cards.card_luck``): the deal's luck;
- columns 7..13 and 14..20, ``A``: what a die showing code c is worth to a roller whose row holds c once
  (discarding it clears the code's points), or more than once;
- column 21, ``B``: what a roll with no die matching the row is worth (a llama-row card or the drama).

A roll's value to the roller: three llamas return the largest token ``t`` (exactly that, ``-t``: nothing
else happens); any other roll is worth ``sum over dice of A[face, held once or more] (face held) + B (no
face held)``. The
expectation over the 216 rolls factorises over the three dice, with three llamas taken out exactly, so a
roll's luck costs 18 look-ups (a test checks it against all 216 rolls).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core.luck import load_weights
from llama_sim.core.luck_cards import LUCK_SIZES, deal_luck
from llama_sim.rulesets.dice.codes import DECK, LLAMA, MAX_PLAYERS, N_CODES, ROW_SIZE

A_COLUMN = N_CODES  # A[c] at column 7 + c (held once), 14 + c (held more than once)
B_COLUMN = 3 * N_CODES
LUCK_SHAPE = (MAX_PLAYERS + 1, LUCK_SIZES, 3 * N_CODES + 1)
LUCK_WEIGHTS = load_weights(Path(__file__).with_name("luck.json"), LUCK_SHAPE)


@njit(cache=True, nogil=True, inline="always")
def roll_luck(weights, n, rows, seat, cfg, f0, f1, f2, token):
    """The luck of the roll showing faces ``f0, f1, f2`` (codes) to ``seat`` (its row in ``rows``, before
    the roll), ``token`` the token three llamas would return; ``cfg[1:19]`` the dice's faces."""
    size = 0
    for c in range(N_CODES):
        size += rows[seat, c]
    j = min(size, weights.shape[1] - 1)
    llama_held = rows[seat, LLAMA] > 0
    if f0 == LLAMA and f1 == LLAMA and f2 == LLAMA:
        actual = -1.0 * token
    else:
        actual = 0.0
        none = True
        for f in (f0, f1, f2):
            if rows[seat, f] > 0:
                actual += weights[n, j, A_COLUMN + f + N_CODES * (rows[seat, f] > 1)]
                none = False
        if none:
            actual += weights[n, j, B_COLUMN]
    gain = 0.0  # E[sum of A over the dice], three llamas included (taken out below)
    miss = 1.0  # P(no die shows a held code)
    three = 1.0  # P(three llamas)
    for die in range(3):
        e = 0.0
        misses = 0
        llamas = 0
        for k in range(6):
            f = cfg[1 + 6 * die + k]
            if rows[seat, f] > 0:
                e += weights[n, j, A_COLUMN + f + N_CODES * (rows[seat, f] > 1)]
            else:
                misses += 1
            if f == LLAMA:
                llamas += 1
        gain += e / 6.0
        miss *= misses / 6.0
        three *= llamas / 6.0
    if llama_held:
        gain -= three * 3.0 * weights[n, j, A_COLUMN + LLAMA + N_CODES * (rows[seat, LLAMA] > 1)]
    else:
        miss -= three
    return actual - (gain + miss * weights[n, j, B_COLUMN] - three * token)


def reference_deal_luck(luck: np.ndarray, n: int, deck: np.ndarray) -> None:
    """The deal's luck (``core.luck_cards.deal_luck``) for the reference engine, on its own scratch."""
    deal_luck(luck, LUCK_WEIGHTS, np.zeros(N_CODES, np.int64), n, DECK, deck, np.zeros((n, N_CODES), np.int64),
              ROW_SIZE)
