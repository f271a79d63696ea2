"""The solo phase of LAMA Dice solved in Numba, for a simulation kernel: the values of ``solver``
(the same rules and tie rule) as arrays a kernel can read.

When the solo phase starts with row R, llama row L and score S, every later row is a sub-multiset of
R and every later score one of ``score_levels(S)``.  Index the rows densely in mixed radix (digit c
in 0..R[c], stride prod_{c' < c} (R[c'] + 1)); removing cards strictly lowers the index, so one pass
in increasing index order per score level, from score 0 up, solves them all.  ``solve_solo_numba``
does that in nopython mode (a few thousand rows at most for 13 cards, times at most 13 levels),
``best_discard_nb`` picks the discard after a roll from one level's values, ``state_index_nb`` maps
a row to its index.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from llama_sim.core.scoring import largest_token
from llama_sim.rulesets.dice.solver import as_counts, as_llama_row, as_score, get_solver

__all__ = [
    "prefer_roll_nb",
    "DecisionTables",
    "decision_tables",
    "SoloPlan",
    "solo_plan",
    "solve_solo_numba",
    "score_levels_nb",
    "state_index_nb",
    "best_discard_nb",
]


@nb.njit(cache=True)
def prefer_roll_nb(quit_value, roll_value):
    """Numba twin of ``solver.prefer_roll`` for floats."""
    return roll_value < quit_value - 1e-12


class DecisionTables(NamedTuple):
    """Per-layout roll data for the Numba solver: non-LLL outcomes as per-code dice counts
    ``rolled`` (m, 7) with integer ``weights`` (m,) out of 216, and ``denom = 216 - w(LLL)``."""

    rolled: np.ndarray
    weights: np.ndarray
    denom: int


def decision_tables(layout=None) -> DecisionTables:
    s = get_solver(layout)
    return DecisionTables(s.rolled, s.weights, s.denom)


class SoloPlan(NamedTuple):
    """Solved solo phase from one start row and score: ``scores`` (k,) are the score levels, highest
    (the start score) first; the other arrays are indexed ``[level, state_index_nb(row, strides)]``
    (``quit_values`` only by the row: quitting does not depend on the score)."""

    strides: np.ndarray  # (7,) int64
    scores: np.ndarray  # (k,) int64: score_levels(start score)
    quit_values: np.ndarray  # (n,) float64
    roll_values: np.ndarray  # (k, n) float64
    values: np.ndarray  # (k, n) float64
    roll_better: np.ndarray  # (k, n) bool: best action is roll (quit on ties)


@nb.njit(cache=True)
def _penalty_nb(row, extra_mask):
    p = 0
    for c in range(7):
        if row[c] > 0 or (extra_mask >> c) & 1:
            if c == 6:
                p += 10
            else:
                p += c + 1
    return p


@nb.njit(cache=True)
def state_index_nb(row, strides):
    s = 0
    for c in range(7):
        s += row[c] * strides[c]
    return s


@nb.njit(cache=True)
def score_levels_nb(score):
    """``score_levels`` in Numba: the scores reachable from ``score`` by three-llama returns, highest first."""
    k = 1
    s = score
    while s > 0:
        s -= largest_token(s, False)
        k += 1
    out = np.empty(k, dtype=np.int64)
    s = score
    for i in range(k):
        out[i] = s
        s -= largest_token(s, False)
    return out


@nb.njit(cache=True)
def solve_solo_numba(start, llama_row, rolled, weights, denom, score):
    """Solve every sub-multiset of ``start`` at every score level from ``score`` down; returns
    (strides, scores, quit, roll, value, roll_better) as ``SoloPlan``.

    ``rolled``/``weights``/``denom`` from ``decision_tables``; ``llama_row`` counts (0/1).
    Index 0 is the empty row (gone out): ``value[k, 0] = roll[k, 0] = -largest_token(scores[k])``,
    ``quit[0] = 0``.
    """
    strides = np.empty(7, dtype=np.int64)
    acc = 1
    for c in range(7):
        strides[c] = acc
        acc *= start[c] + 1
    n = acc
    lmask = 0
    for c in range(7):
        if llama_row[c] > 0:
            lmask |= 1 << c
    scores = score_levels_nb(score)
    levels = scores.shape[0]
    quit_v = np.zeros(n, dtype=np.float64)
    roll_v = np.zeros((levels, n), dtype=np.float64)
    value = np.zeros((levels, n), dtype=np.float64)
    roll_better = np.zeros((levels, n), dtype=np.bool_)
    row = np.zeros(7, dtype=np.int64)
    allow = np.zeros(7, dtype=np.int64)
    d = np.zeros(7, dtype=np.int64)
    m = rolled.shape[0]
    n_outcomes = 216
    lll_weight = n_outcomes - denom
    for k in range(levels - 1, -1, -1):  # score 0 first: a level needs the one below
        t = largest_token(scores[k], False)
        value[k, 0] = -t
        roll_v[k, 0] = -t
        for s in range(1, n):
            for c in range(7):
                row[c] = (s // strides[c]) % (start[c] + 1)
            q = float(_penalty_nb(row, 0))
            drama = float(_penalty_nb(row, lmask))
            total = 0.0
            for o in range(m):
                combos = 1
                for c in range(7):
                    a = rolled[o, c] if rolled[o, c] < row[c] else row[c]
                    allow[c] = a
                    combos *= a + 1
                if combos == 1:
                    total += weights[o] * drama
                    continue
                best = np.inf
                for u in range(1, combos):
                    rem = u
                    nxt = s
                    for c in range(7):
                        d[c] = rem % (allow[c] + 1)
                        rem //= allow[c] + 1
                        nxt -= d[c] * strides[c]
                    if value[k, nxt] < best:
                        best = value[k, nxt]
                total += weights[o] * best
            quit_v[s] = q
            if t > 0:  # three llamas: the token returned, the same row one level down
                r = (lll_weight * (value[k + 1, s] - t) + total) / n_outcomes
                roll_v[k, s] = r
                if prefer_roll_nb(q, r):
                    roll_better[k, s] = True
                    value[k, s] = r
                else:
                    value[k, s] = q
                continue
            r = total / denom
            if prefer_roll_nb(q, r):
                roll_better[k, s] = True
                value[k, s] = r
                roll_v[k, s] = r
            else:
                value[k, s] = q
                roll_v[k, s] = (lll_weight * q + total) / n_outcomes  # one roll, quit after LLL
    return strides, scores, quit_v, roll_v, value, roll_better


@nb.njit(cache=True)
def best_discard_nb(row, rolled_counts, strides, values, out):
    """Write the best discard for ``row`` after a roll showing ``rolled_counts`` (per code) into
    ``out``; return the number of cards discarded (0: no match, or three llamas).  ``values``: one
    score level of ``solve_solo_numba``'s (the player's score now; a discard leaves it unchanged)
    for a start row containing ``row``.  Ties: more cards, then first."""
    for c in range(7):
        out[c] = 0
    if rolled_counts[6] == 3:
        return 0
    allow = np.zeros(7, dtype=np.int64)
    d = np.zeros(7, dtype=np.int64)
    combos = 1
    for c in range(7):
        a = rolled_counts[c] if rolled_counts[c] < row[c] else row[c]
        allow[c] = a
        combos *= a + 1
    if combos == 1:
        return 0
    s = state_index_nb(row, strides)
    best = np.inf
    best_n = 0
    for t in range(1, combos):
        rem = t
        nxt = s
        k = 0
        for c in range(7):
            d[c] = rem % (allow[c] + 1)
            rem //= allow[c] + 1
            nxt -= d[c] * strides[c]
            k += d[c]
        v = values[nxt]
        if v < best - 1e-12:
            best = v
            best_n = k
            for c in range(7):
                out[c] = d[c]
        elif v <= best + 1e-12:
            if k > best_n:
                best_n = k
                for c in range(7):
                    out[c] = d[c]
            if v < best:
                best = v
    return best_n


def solo_plan(start_row, llama_row, layout=None, *, score: int = 0) -> SoloPlan:
    """Python wrapper: run ``solve_solo_numba`` for a start row (counts or card string) and score."""
    start = as_counts(start_row, "start row")
    lr = as_llama_row(llama_row)
    sc = as_score(score)
    t = decision_tables(layout)
    return SoloPlan(*solve_solo_numba(start, lr, t.rolled, t.weights, t.denom, sc))

