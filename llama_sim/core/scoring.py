"""What every rule set's engines share to score: the metrics, tokens returned and wins, the block
statistics a kernel adds its seats' outcomes to, and the reference engines' block loop.

Statistics layout (consumed by ``llama_sim.core.stats``): per deal block, the kernels add each seat's
outcome into a vector ``v`` of length ``M * units`` (raw metric ``m`` of unit ``u`` at
``m * units + u``), then add ``v`` to ``s1`` and ``outer(v, v)`` to ``s2``. Everything is int64, so
chunks merge exactly in any order.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core.errors import ILLEGAL_ACTION
from llama_sim.core.luck import scaled
from llama_sim.core.registry import POLICIES_TYPE

ROUND_METRICS = ("penalty", "went_out", "quit")
GAME_METRICS = ("penalty", "went_out", "quit", "rounds", "win60", "final_score")
M_PENALTY, M_OUT, M_QUIT, M_ROUNDS, M_WIN60, M_FINAL = range(6)
WIN_UNITS = 60  # lcm(1..6): a k-way shared win is 60 // k units, exactly
GAME_END_SCORE = 40
MAX_ROUNDS_PER_GAME = 10_000

# run_blocks(seed, first_block, n_blocks, n_players, entry_of_seat[R, n], unit_of_seat[R, n],
#            n_units, games_mode, policies, slot_of_entry, params[entries, MAX_PARAMS], cfg, s1, s2)
RUN_BLOCKS_SIG = types.void(
    types.uint64, types.int64, types.int64, types.int64,
    types.int64[:, ::1], types.int64[:, ::1], types.int64, types.boolean,
    POLICIES_TYPE, types.int64[::1], types.float64[:, ::1], types.int64[::1],
    types.int64[::1], types.int64[:, ::1],
)


@njit(cache=True, nogil=True, inline="always")
def distinct_penalty(counts, penalty_of_code):
    """Each distinct card value in ``counts`` (one count per code of ``penalty_of_code``) scores once.
    Compiled into its callers, policies included (their own ``hand``), with the loop over the table's
    codes: a rule set's table is a constant, so the loop unrolls (over ``counts``, whose length a
    policy does not know while compiling, the generic dice kernel measured 0.7x as fast)."""
    total = 0
    for c in range(penalty_of_code.shape[0]):
        if counts[c] > 0:
            total += penalty_of_code[c]
    return total


# What a kernel's block loop (``run_blocks``) and game loop return instead of a count when they stop:
# compiled without reference counting, they cannot raise exceptions with run-time values, so they
# report, and ``raise_stop`` raises in the caller (``llama_sim.core.errors``: the illegal-action convention).
ILLEGAL, ENDLESS = -1, -2

def check_stop(code: int, bad: np.ndarray) -> None:
    """``raise_stop`` for Python callers of a block loop."""
    if code == ILLEGAL:
        raise ValueError(ILLEGAL_ACTION, int(bad[0]), int(bad[1]), int(bad[2]))
    if code == ENDLESS:
        raise ValueError("game did not end")


@njit(cache=True, nogil=True, inline="always")
def raise_stop(code, bad):
    """Raise what a loop compiled without reference counting could only report: ``ILLEGAL`` (``bad`` =
    entry, seat, action) or ``ENDLESS`` (a game past ``MAX_ROUNDS_PER_GAME``)."""
    if code == ILLEGAL:
        raise ValueError("illegal action", bad[0], bad[1], bad[2])
    if code == ENDLESS:
        raise ValueError("game did not end")


@njit(cache=True, nogil=True)
def largest_token(score, allow20):
    """The token a player returns when they may return one: the largest the score allows."""
    if allow20 and score >= 20:
        return 20
    if score >= 10:
        return 10
    if score >= 1:
        return 1
    return 0


@njit(cache=True, nogil=True)
def win_units(final, n):
    """60 // k to each of the k players tied on the lowest score, 0 to the rest."""
    out = np.zeros(n, np.int64)
    win_units_into(final, n, out)
    return out


@njit(cache=True, nogil=True, inline="always")
def win_units_into(final, n, out):
    """``win_units`` into ``out`` (for loops that allocate nothing)."""
    low = final[0]
    for s in range(1, n):
        if final[s] < low:
            low = final[s]
    k = 0
    for s in range(n):
        if final[s] == low:
            k += 1
    for s in range(n):
        out[s] = WIN_UNITS // k if final[s] == low else 0


@njit(cache=True, nogil=True)
def add_seat(v, units, u, penalty, went_out, quit, rounds, win60, final, games_mode):
    v[M_PENALTY * units + u] += penalty
    v[M_OUT * units + u] += went_out
    v[M_QUIT * units + u] += quit
    if games_mode:
        v[M_ROUNDS * units + u] += rounds
        v[M_WIN60 * units + u] += win60
        v[M_FINAL * units + u] += final


@njit(cache=True, nogil=True, inline="always")
def add_seats(v, units, unit_of_seat, r, n, penalty, went_out, quits, rounds, final, wins, games_mode, luck):
    """Every seat's outcome of seating ``r`` of a block into ``v`` (``add_seat``), the game's wins first
    worked out into ``wins`` (the kernels' block loops, which allocate nothing). ``luck``: each seat's
    summed luck (``core.luck``) when the run adjusts for it, else empty; it goes after the plain metrics,
    in thousandths of a point rounded once per seating (as ``luck.scaled``)."""
    if games_mode:
        win_units_into(final, n, wins)
    for s in range(n):
        add_seat(v, units, unit_of_seat[r, s], penalty[s], went_out[s], quits[s], rounds, wins[s], final[s],
                 games_mode)
    if luck.shape[0] > 0:  # (a loop of its own: the plain one stays as it was, and as fast)
        at = plain_width(units, games_mode)
        for s in range(n):
            v[at + unit_of_seat[r, s]] += luck_units(luck[s])


# ``luck.scaled`` compiled: the kernels round a seating's luck exactly as the reference engines do.
luck_units = njit(cache=True, nogil=True, inline="always")(scaled)


@njit(cache=True, nogil=True, inline="always")
def plain_width(units, games_mode):
    """Where the luck metric starts in a block's vector: after every unit's plain metrics."""
    return (len(GAME_METRICS) if games_mode else len(ROUND_METRICS)) * units


@njit(cache=True, nogil=True, inline="always")
def luck_on(s1, units, games_mode):
    """Whether a run's sums hold the luck metric after the plain ones (``core.luck``): how a block loop
    knows to compute it, with no argument more."""
    return s1.shape[0] > plain_width(units, games_mode)


@njit(cache=True, nogil=True)
def accumulate(v, s1, s2):
    d = v.shape[0]
    for i in range(d):
        vi = v[i]
        s1[i] += vi
        if vi != 0:
            for j in range(d):
                s2[i, j] += vi * v[j]


@njit(cache=True, nogil=True)
def accumulate_upper(v, s1, upper):
    """``accumulate`` into the upper triangle of the squares only (``upper[i, j]``, j >= i): half
    the work per block; the caller mirrors the triangle into ``s2`` once per kernel call."""
    d = v.shape[0]
    for i in range(d):
        vi = v[i]
        s1[i] += vi
        if vi != 0:
            for j in range(i, d):
                upper[i, j] += vi * v[j]


class SeatEntry(tuple):
    """A line-up entry's ``(policy, params)`` as a seat plays it, plus ``entry``: its index in the
    line-up, which an illegal-action error names (``ValueError("illegal action", entry, seat, action)``)."""

    def __new__(cls, pair, entry: int):
        obj = super().__new__(cls, pair)
        obj.entry = int(entry)
        return obj


def entry_of(player, seat: int) -> int:
    """The line-up entry a seat's ``(policy, params)`` belongs to: its ``SeatEntry.entry``, else the seat
    (a reference round built by hand has one entry per seat)."""
    return getattr(player, "entry", seat)


def ask_policy(player, seat: int, obs: np.ndarray, hand: np.ndarray, legal: int, prng: np.ndarray) -> int:
    """A reference engine's decision: the seat's policy answers on read-only copies of ``obs`` and of
    ``hand`` (the seat's own counts) and on ``legal``, the engine's own bit mask of the legal actions;
    an answer outside ``legal`` raises ``ValueError("illegal action", entry, seat, action)``."""
    policy, params = player
    shown_obs, shown_hand = obs.copy(), np.ascontiguousarray(hand, dtype=np.int64).copy()
    shown_obs.flags.writeable = False
    shown_hand.flags.writeable = False
    action = int(policy(shown_obs, shown_hand, np.int64(legal), params, prng))
    if not (action >= 0 and (legal >> action) & 1):
        raise ValueError(ILLEGAL_ACTION, entry_of(player, seat), seat, action)
    return action


def legal_bits(legal: np.ndarray) -> int:
    """A reference engine's 0/1 array of legal actions as the contract's bit mask."""
    return sum(1 << int(a) for a in np.flatnonzero(legal))


def reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                         games_mode, entries, s1, s2):
    """The block loop every reference engine shares: the kernels' ``run_blocks`` in plain Python.

    For each block and each row of ``entry_of_seat`` it makes the block's fresh streams and calls
    ``play(players, streams)``, where ``players`` are the seats' (policy, params) pairs (each a
    ``SeatEntry`` that knows its line-up entry, for illegal-action errors) and
    ``streams`` maps ``rng.DEAL_STREAM``/``POLICY_STREAM``/``DICE_STREAM`` to generator states.
    ``play`` returns a round result (``penalties``, ``out_seat``, ``quit``) in round mode, a game
    result (``final``, ``penalty``, ``went_out``, ``quit``, ``rounds``) in game mode, and with the
    luck metric in ``s1`` (``core.luck``) each seat's summed ``luck``."""
    from llama_sim.core import rng as R

    metrics = len(GAME_METRICS) if games_mode else len(ROUND_METRICS)
    luck = s1.shape[0] > metrics * n_units  # (``luck_on``)
    for b in range(first_block, first_block + n_blocks):
        v = np.zeros(s1.shape[0], np.int64)
        for r in range(entry_of_seat.shape[0]):
            streams = {s: R.new_state(seed, b, s) for s in (R.DEAL_STREAM, R.POLICY_STREAM, R.DICE_STREAM)}
            res = play([SeatEntry(entries[e], e) for e in entry_of_seat[r]], streams)
            if luck:  # each seat's summed luck (the engine's ``luck``: one float per seat)
                for s in range(n):
                    v[metrics * n_units + unit_of_seat[r, s]] += scaled(res.luck[s])
            if games_mode:
                wins = win_units(res.final, n)
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], res.penalty[s], res.went_out[s], res.quit[s],
                             len(res.rounds), wins[s], res.final[s], True)
            else:
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], res.penalties[s], int(s == res.out_seat),
                             res.quit[s], 0, 0, 0, False)
        s1 += v
        s2 += np.outer(v, v)
