"""LAMA Dice's luck (``core.luck``): of each card dealt and of each roll, compiled; the reference engine
calls these same compiled functions, so both count the same floats.

The value table ``weights[players, row size, column]`` (``LUCK_SHAPE``, fitted by
``scripts/fit_luck.py --game dice``) holds three parts:

- columns 0..6, ``W``: a row's value, linear in the codes it holds (``core.luck_cards.card_luck``): the deal's luck;
- columns 7..13 and 14..20, ``A``: what a die showing code c is worth to a roller whose row holds c once
  (discarding it clears the code's points), or more than once;
- column 21, ``B``: what a roll with no die matching the row is worth (a llama-row card or the drama);
- columns 22 and 23, ``D``: what the llama drama is worth to the roller, plus per point it then holds (the
  round ends with its row and the llama row); column 24, ``O``: per point of another player still in,
  what the drama is worth to them (the round ends with their row as it is), at their row's size.

A roll's value to the roller: three llamas return the largest token ``t`` (exactly that, ``-t``: nothing
else happens); any other roll is worth ``sum over dice of A[face, held once or more] (face held) + B (no
face held)``, and a drama ``D`` more (to the others ``O`` times their points). The
expectation over the 216 rolls factorises over the three dice, with three llamas taken out exactly, so a
roll's luck costs 18 look-ups (a test checks it against all 216 rolls).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core.luck import load_weights
from llama_sim.core.luck_cards import LUCK_SIZES, deal_luck
from llama_sim.rulesets.dice.codes import DECK, LLAMA, MAX_PLAYERS, N_CODES, PENALTY, ROW_SIZE

A_COLUMN = N_CODES  # A[c] at column 7 + c (held once), 14 + c (held more than once)
B_COLUMN = 3 * N_CODES
D_COLUMN, DP_COLUMN, O_COLUMN = B_COLUMN + 1, B_COLUMN + 2, B_COLUMN + 3
LUCK_SHAPE = (MAX_PLAYERS + 1, LUCK_SIZES, B_COLUMN + 4)
LUCK_WEIGHTS = load_weights(Path(__file__).with_name("luck.json"), LUCK_SHAPE)


@njit(cache=True, nogil=True, inline="always")
def roll_luck(luck, weights, n, rows, seat, cfg, f0, f1, f2, token, llama_row, quit, alone):
    """The luck of the roll showing faces ``f0, f1, f2`` (codes) by ``seat`` (rows, llama row and who has
    quit as before the roll; ``alone``: nobody else is in), into ``luck``: the roller's, and each other
    player's still in through a drama. ``token``: the token three llamas would return; ``cfg[1:19]``: the
    dice's faces."""
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
    luck[seat] += actual - (gain + miss * weights[n, j, B_COLUMN] - three * token)
    # the llama drama: no die shows a code of the row nor (with others in) one of the llama row
    drama_p = 1.0
    for die in range(3):
        outside = 0
        for k in range(6):
            f = cfg[1 + 6 * die + k]
            if rows[seat, f] == 0 and (alone or llama_row[f] == 0):
                outside += 1
        drama_p *= outside / 6.0
    if not llama_held and (alone or llama_row[LLAMA] == 0):
        drama_p -= three  # (three llamas are no drama)
    drama = not (f0 == LLAMA and f1 == LLAMA and f2 == LLAMA)
    for f in (f0, f1, f2):
        if rows[seat, f] > 0 or (not alone and llama_row[f] > 0):
            drama = False
    surprise = (1.0 if drama else 0.0) - drama_p
    points = 0
    for c in range(N_CODES):
        points += PENALTY[c] * ((rows[seat, c] + llama_row[c]) > 0)
    luck[seat] += surprise * (weights[n, j, D_COLUMN] + weights[n, j, DP_COLUMN] * points)
    for s in range(n):
        if s != seat and quit[s] == 0:
            other_size = 0
            other_points = 0
            for c in range(N_CODES):
                other_size += rows[s, c]
                other_points += PENALTY[c] * (rows[s, c] > 0)
            luck[s] += surprise * weights[n, min(other_size, weights.shape[1] - 1), O_COLUMN] * other_points


def reference_deal_luck(luck: np.ndarray, n: int, deck: np.ndarray) -> None:
    """The deal's luck (``core.luck_cards.deal_luck``) for the reference engine, on its own scratch."""
    deal_luck(luck, LUCK_WEIGHTS, np.zeros(N_CODES, np.int64), n, DECK, deck, np.zeros((n, N_CODES), np.int64),
              ROW_SIZE)
