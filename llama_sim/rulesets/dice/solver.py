"""Exact solution of the solo phase of LAMA Dice.

The solo phase: every other player has quit and one player is alone in the round.  The rules that
still apply (RULES.md): three llamas let the player return one token, the largest held (10 if the
score is at least 10, else 1 if at least 1, else nothing: the dice game has no 20s); a player who
goes out (empties the row) returns one token, the largest held, after scoring.  So the state is
(row, score): the llama row is fixed during the solo phase, the row only shrinks and the score
only goes down, through 10s and then 1s.  What is minimised is the value of the rest of the round
to the player: the points added at its end minus the tokens returned until then, i.e. the net
change of the score (the ``penalty`` statistic of every engine).

A turn is *quit* (value ``row_penalty(row)``) or *roll*:

1. three llamas with score ``s > 0``: the player returns ``t = largest_token(s)`` and decides again
   at (row, s - t): worth ``-t + V(row, s - t)``.  The return is optional in the rulebook, but it
   only lowers the score: a token kept now could only be returned later, at another three llamas
   or on going out, if the round gets there at all, so a careful player always returns it (the
   engines do too; a test checks that letting the player keep it changes no value).  With
   ``s == 0`` nothing happens: the state is unchanged, a self-loop;
2. some die shows a code present in the row (llama faces match llama cards): the player
   discards at least one matching card, at most one card per die showing that code, choosing
   the subset; an emptied row means the player went out: they score 0 and return
   ``largest_token(s)`` (nothing was added, so the score is still ``s``): ``V(empty, s) = -largest_token(s)``;
3. otherwise llama drama: the player takes the whole remaining llama row and the round ends
   with ``row_penalty(row + llama_row)`` (alone, "take one llama-row card" is skipped); no return.

With ``V(row, s) = min(Q, R)``, ``Q = row_penalty(row)`` and ``S = sum_{o != LLL} p(o) * best_next(o)``:

    s > 0:   R = p(LLL) * (V(row, s - t) - t) + S
    s == 0:  R = p(LLL) * V(row, 0) + S

(after three llamas the player plays on optimally, quitting if that is best).  At ``s == 0`` the
self-loop is solved in closed form: if ``S / (1 - p(LLL)) < Q`` rolling is best and
``R = S / (1 - p(LLL))``; otherwise quitting is best and ``R = p(LLL) Q + S`` (one roll, then quit
after three llamas).  ``V(row, s)`` needs only smaller rows at ``s`` and the same row at a lower
score, so memoised recursion (or one pass per score from 0 up) is exact.  ``best_next(o)`` is the
minimum of ``V(., s)`` over the legal discards, or the drama penalty if there is no match.  At score
0 no token can be returned, so the values are those of the row's card penalty alone.

The effect of the score on the rest of the game (after this round) is not valued.  Scores are
0..39 (``MAX_SCORE``): a game ends at the end of the round in which a score reaches 40, so no
round starts above 39, and within a round the score only goes down.

Ties: when quitting and rolling have the same value the solver quits (``best_action ==
"quit"``): rolling gains nothing and the round ends sooner.  Floats compare with an absolute
tolerance of ``TIE_TOL``; ``exact=True`` computes with ``fractions.Fraction`` and compares
exactly.  Among equally good discards the one discarding more cards is chosen, then the first
in ``itertools.product`` order over the codes (see ``_discards``).

Card encoding (package-wide): codes 0..5 are values 1..6, code 6 is the llama; a row is a count
vector of length 7.

The same solution as arrays a simulation kernel reads, solved in Numba, is ``solver_numba``.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pandas as pd

from llama_sim.core.scoring import GAME_END_SCORE, largest_token
from llama_sim.rulesets.dice.tables import (
    LLAMA, N_CODES, N_DICE, N_OUTCOMES, as_layout as _as_layout, rolled_count_table,
)

__all__ = [
    "PENALTY",
    "FULL_LLAMA_ROW",
    "MAX_COUNTS",
    "TIE_TOL",
    "MAX_SCORE",
    "token_returned",
    "score_levels",
    "row_penalty",
    "parse_cards",
    "format_cards",
    "SoloValue",
    "SoloSolver",
    "get_solver",
    "solve_solo",
    "solo_value_for",
    "best_discard",
    "prefer_roll",
    "policy_table",
    "solo_table",
]

PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
PENALTY.setflags(write=False)
FULL_LLAMA_ROW = np.ones(N_CODES, dtype=np.int64)
FULL_LLAMA_ROW.setflags(write=False)
# Physical bounds on a dice-game row: 5 deck cards per number (+1 from the llama row), 6 deck
# llamas (+1 from the llama row); a card still in the llama row is in no row.  Used by
# ``solo_table`` only.
MAX_COUNTS = np.array([6, 6, 6, 6, 6, 6, 7], dtype=np.int64)
MAX_COUNTS.setflags(write=False)
TIE_TOL = 1e-12
MAX_SCORE = GAME_END_SCORE - 1  # no round starts at 40 or more (the game is over), and a round only lowers it

_CODE_OF_TOKEN = {str(v): v - 1 for v in range(1, 7)}
_CODE_OF_TOKEN.update({"l": LLAMA, "llama": LLAMA})


# ----------------------------------------------------------------------------- card helpers


def row_penalty(counts) -> int:
    """Penalty of a row: every distinct code present counts once (value, llama 10)."""
    c = np.asarray(counts)
    return int(PENALTY[c > 0].sum())


def parse_cards(text: str) -> np.ndarray:
    """Parse cards such as ``"2 5 L"`` or ``"2,5,l"`` (``""`` is the empty row) to counts.

    Tokens are separated by spaces and/or commas; a token is 1..6 or L/llama (any case).
    Raises ``ValueError`` with a one-line message on a bad token.
    """
    if not isinstance(text, str):
        raise ValueError(f"cards must be given as text, got {type(text).__name__}")
    counts = np.zeros(N_CODES, dtype=np.int64)
    for tok in text.replace(",", " ").split():
        code = _CODE_OF_TOKEN.get(tok.lower())
        if code is None:
            raise ValueError(f"invalid card {tok!r} in {text!r}: cards are 1-6 and L (llama), separated by spaces or commas")
        counts[code] += 1
    return counts


def format_cards(counts) -> str:
    """Human string of a row, codes ascending, ``L`` for llamas: ``"2 5 L"`` (``""`` if empty)."""
    c = as_counts(counts, "row")
    out = []
    for code in range(N_CODES):
        out.extend(["L" if code == LLAMA else str(code + 1)] * int(c[code]))
    return " ".join(out)


def as_counts(x, what: str) -> np.ndarray:
    """A row as a count vector (length 7) from counts or cards (``"2 5 L"``); ValueError names ``what``."""
    if isinstance(x, str):
        return parse_cards(x)
    arr = np.asarray(x)
    if arr.shape != (N_CODES,):
        raise ValueError(f"{what} must be a count vector of length {N_CODES}, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"{what} counts must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 0:
        raise ValueError(f"{what} counts must be non-negative, got {arr.tolist()}")
    return arr


def as_llama_row(x) -> np.ndarray:
    """A llama row as counts: at most one card of each code."""
    arr = as_counts(x, "llama row")
    if arr.max() > 1:
        raise ValueError(f"the llama row holds at most one card of each code, got {arr.tolist()}")
    return arr


def _mask_of(counts) -> int:
    m = 0
    for c in range(N_CODES):
        if counts[c] > 0:
            m |= 1 << c
    return m


_PEN_OF_MASK = [sum(int(PENALTY[c]) for c in range(N_CODES) if m >> c & 1) for m in range(1 << N_CODES)]


def as_score(score) -> int:
    """A solo player's score, a whole number from 0 to ``MAX_SCORE``."""
    if isinstance(score, (bool, np.bool_)) or not isinstance(score, numbers.Integral):
        raise ValueError(f"score must be a whole number, got {score!r}")
    score = int(score)
    if not 0 <= score <= MAX_SCORE:
        raise ValueError(f"score must be from 0 to {MAX_SCORE} (a game ends when a score reaches "
                         f"{GAME_END_SCORE}), got {score}")
    return score


def token_returned(score: int) -> int:
    """The token a dice player holding ``score`` returns (after three llamas, or on going out): the
    largest held, 10 or 1 (no 20s in the dice game), 0 at score 0 (``core.scoring.largest_token``)."""
    return int(largest_token(int(score), False))


def score_levels(score: int) -> list[int]:
    """The scores a solo phase starting at ``score`` can reach, highest first: each three llamas
    returns ``token_returned`` (10s while the score allows, then 1s) down to 0. 39 -> 39, 29, 19,
    9, 8, ..., 0 (13 levels)."""
    out = [as_score(score)]
    while out[-1] > 0:
        out.append(out[-1] - token_returned(out[-1]))
    return out


# ----------------------------------------------------------------------------- Python solver


def prefer_roll(quit_value, roll_value) -> bool:
    """The tie rule: roll only if strictly better.  ``Fraction`` pairs compare exactly; floats
    need ``roll_value < quit_value - TIE_TOL`` (so near-ties quit)."""
    if isinstance(quit_value, Fraction) and isinstance(roll_value, Fraction):
        return roll_value < quit_value
    return roll_value < quit_value - TIE_TOL


@dataclass(frozen=True)
class SoloValue:
    """Values of a solo-phase state (row, score): the expected rest of the round to the player
    (points added at its end minus tokens returned) when quitting now / rolling now and playing on
    optimally.  ``best_action`` is ``"quit"`` on ties."""

    quit_value: float | Fraction
    roll_value: float | Fraction
    best_action: str

    @property
    def value(self) -> float | Fraction:
        return self.quit_value if self.best_action == "quit" else self.roll_value


def _discards(allowance: tuple[int, ...]):
    """All non-zero discard vectors d with 0 <= d <= allowance (itertools.product order)."""
    for d in itertools.product(*(range(a + 1) for a in allowance)):
        if any(d):
            yield d


class SoloSolver:
    """Memoised exact solver for one dice layout (any llama rows, rows and scores)."""

    def __init__(self, layout=None):
        self.layout = _as_layout(layout)
        tab = rolled_count_table(self.layout)
        keep = tab.rolled[:, LLAMA] != N_DICE
        self.rolled = np.ascontiguousarray(tab.rolled[keep])
        self.weights = np.ascontiguousarray(tab.counts[keep])
        self.lll_weight = int(tab.counts[~keep].sum())
        self.denom = N_OUTCOMES - self.lll_weight  # 216 * (1 - p(LLL))
        self._radix = 4 ** np.arange(N_CODES, dtype=np.int64)  # allowances are <= 3
        self._memo: dict[bool, dict[tuple[tuple[int, ...], int, int], tuple]] = {False: {}, True: {}}
        self._groups: dict[tuple[int, ...], list[tuple[tuple[int, ...], int]]] = {}

    # -- internals -------------------------------------------------------------------------

    def _allowance_groups(self, row: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """Non-LLL outcomes grouped by allowance min(rolled, row): [(allowance, weight)]."""
        g = self._groups.get(row)
        if g is None:
            allow = np.minimum(self.rolled, np.array(row, dtype=np.int64))
            keys = allow @ self._radix
            uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
            w = np.bincount(inv, weights=self.weights, minlength=len(uniq))
            g = [(tuple(int(x) for x in allow[i]), int(round(wi))) for i, wi in zip(first, w)]
            self._groups[row] = g
        return g

    def _value(self, row: tuple[int, ...], lmask: int, score: int, exact: bool):
        if not any(row):  # gone out: scores 0, returns the largest token held
            out = -token_returned(score)
            return Fraction(out) if exact else float(out)
        q, r, quit_best = self._solve(row, lmask, score, exact)
        return q if quit_best else r

    def _best_after(self, row, allowance, lmask, score, exact):
        """(value, discard) for a roll whose per-code allowance is ``allowance``."""
        if not any(allowance):
            drama = _PEN_OF_MASK[_mask_of(row) | lmask]
            return (Fraction(drama) if exact else float(drama)), (0,) * N_CODES
        tol = 0 if exact else TIE_TOL
        best_v = None
        best_d = None
        for d in _discards(allowance):
            nxt = tuple(a - b for a, b in zip(row, d))
            v = self._value(nxt, lmask, score, exact)
            if best_v is None or v < best_v - tol:
                best_v, best_d = v, d
            elif v <= best_v + tol:  # a tie: prefer discarding more cards
                if sum(d) > sum(best_d):
                    best_d = d
                if v < best_v:
                    best_v = v
        # best_v is the exact minimum; best_d's value is within tol of it
        return best_v, best_d

    def _solve(self, row: tuple[int, ...], lmask: int, score: int, exact: bool):
        memo = self._memo[exact]
        key = (row, lmask, score)
        hit = memo.get(key)
        if hit is not None:
            return hit
        q = _PEN_OF_MASK[_mask_of(row)]
        total = Fraction(0) if exact else 0.0
        for allowance, w in self._allowance_groups(row):
            v, _ = self._best_after(row, allowance, lmask, score, exact)
            total += w * v
        q = Fraction(q) if exact else float(q)
        t = token_returned(score)
        if t > 0:  # three llamas: a token returned, then the same row at the lower score
            after = self._value(row, lmask, score - t, exact) - t
            r = (self.lll_weight * after + total) / N_OUTCOMES
            quit_best = not prefer_roll(q, r)
        else:
            r = total / self.denom  # rolling on after three llamas too
            quit_best = not prefer_roll(q, r)
            if quit_best:  # after three llamas the optimum quits: one roll, then quit
                r = (self.lll_weight * q + total) / N_OUTCOMES
        res = (q, r, quit_best)
        memo[key] = res
        return res

    # -- public ----------------------------------------------------------------------------

    def solve(self, row, llama_row, *, exact: bool = False, score: int = 0) -> SoloValue:
        r = as_counts(row, "row")
        lm = _mask_of(as_llama_row(llama_row))
        sc = as_score(score)
        if not r.any():
            raise ValueError("row is empty: the player has gone out, there is nothing to decide")
        q, rv, quit_best = self._solve(tuple(int(x) for x in r), lm, sc, exact)
        return SoloValue(q, rv, "quit" if quit_best else "roll")

    def value(self, row, llama_row, *, exact: bool = False, score: int = 0):
        """V(row, score): -token_returned(score) for the empty row (gone out), else min(quit, roll)."""
        r = as_counts(row, "row")
        lm = _mask_of(as_llama_row(llama_row))
        return self._value(tuple(int(x) for x in r), lm, as_score(score), exact)

    def best_discard(self, row, llama_row, faces, *, exact: bool = False, score: int = 0) -> np.ndarray:
        r = as_counts(row, "row")
        lm = _mask_of(as_llama_row(llama_row))
        sc = as_score(score)
        f = np.asarray(faces, dtype=np.int64).ravel()
        if f.shape != (N_DICE,) or f.min() < 0 or f.max() >= N_CODES:
            raise ValueError(f"faces must be {N_DICE} face codes 0..6, got {np.asarray(faces).tolist()}")
        rolled = np.bincount(f, minlength=N_CODES)
        if rolled[LLAMA] == N_DICE:
            return np.zeros(N_CODES, dtype=np.int64)
        allowance = tuple(int(x) for x in np.minimum(rolled, r))
        _, d = self._best_after(tuple(int(x) for x in r), allowance, lm, sc, exact)
        return np.array(d, dtype=np.int64)

    def clear(self) -> None:
        self._memo = {False: {}, True: {}}
        self._groups.clear()


@lru_cache(maxsize=None)
def _solver_for_key(key: bytes) -> SoloSolver:
    return SoloSolver(np.frombuffer(key, dtype=np.int64).reshape(N_DICE, 6))


def get_solver(layout=None) -> SoloSolver:
    """The shared, memoised solver for a layout (array, name/spec string, or None = default)."""
    return _solver_for_key(_as_layout(layout).tobytes())


def solve_solo(row, llama_row, layout=None, *, exact: bool = False, score: int = 0) -> SoloValue:
    """Quit and roll values of a solo-phase state and the best action ("quit" on ties).

    ``row`` and ``llama_row`` are count vectors (length 7) or card strings (``"2 5 L"``); ``score``
    the player's score (tokens held, 0..39), which decides the tokens returned after three llamas
    and on going out.  ``exact=True`` returns ``Fraction`` values.  Raises ``ValueError`` for an
    empty row or a score out of range.
    """
    return get_solver(layout).solve(row, llama_row, exact=exact, score=score)


def solo_value_for(row, llama_row, layout=None, *, score: int = 0) -> float:
    """Optimal value V(row, score) (``-token_returned(score)`` for the empty row), memoised."""
    return get_solver(layout).value(row, llama_row, score=score)


def best_discard(row, llama_row, layout, faces, *, score: int = 0) -> np.ndarray:
    """Optimal cards to discard (counts, length 7) after rolling ``faces`` (3 face codes) at ``score``.

    All zeros when the roll allows no discard (three llamas: a token returned, no card moves; no
    match: drama).  Among equally good discards, the one discarding the most cards.
    """
    return get_solver(layout).best_discard(row, llama_row, faces, score=score)


def _submultisets(start: np.ndarray):
    for t in itertools.product(*(range(int(c) + 1) for c in start)):
        yield t


def _table(rows, llama_row, solver: SoloSolver, score: int) -> pd.DataFrame:
    lm = _mask_of(llama_row)
    recs = []
    for t in rows:
        q, r, quit_best = solver._solve(t, lm, score, False)
        recs.append((format_cards(t), sum(t), q, r, "quit" if quit_best else "roll", q if quit_best else r))
    df = pd.DataFrame.from_records(recs, columns=["row", "n_cards", "quit_value", "roll_value", "best", "value"])
    return df.sort_values(["n_cards", "row"], kind="stable").drop(columns="n_cards").reset_index(drop=True)


def policy_table(start_row, llama_row, layout=None, *, score: int = 0) -> pd.DataFrame:
    """One line per non-empty sub-multiset of ``start_row`` (the solo states reachable at ``score``;
    after three llamas the score is lower, and so is the table that applies).

    Columns: ``row`` (e.g. ``"2 5 L"``), ``quit_value``, ``roll_value``, ``best``
    ("quit"/"roll"), ``value`` (= the value of ``best``).  Sorted by card count, then row.
    """
    start = as_counts(start_row, "start row")
    lr = as_llama_row(llama_row)
    sc = as_score(score)
    solver = get_solver(layout)
    rows = [t for t in _submultisets(start) if any(t)]
    return _table(rows, lr, solver, sc)


def solo_table(llama_row, layout=None, max_cards: int = 6, *, score: int = 0) -> pd.DataFrame:
    """Same columns as ``policy_table`` for every non-empty row of at most ``max_cards`` cards
    that the 43 cards allow beside the llama row (at most ``MAX_COUNTS`` less the llama row's
    card of each value), for one llama row and score (for ``--table``)."""
    if int(max_cards) < 1:
        raise ValueError(f"max_cards must be at least 1, got {max_cards}")
    lr = as_llama_row(llama_row)
    sc = as_score(score)
    solver = get_solver(layout)
    rows = []
    for t in _submultisets(np.minimum(MAX_COUNTS - lr, int(max_cards))):
        if 0 < sum(t) <= max_cards:
            rows.append(t)
    return _table(rows, lr, solver, sc)
