"""The block loop, written once: what makes every comparison paired.

A run is a number of deal blocks. For each block the loop takes one key (``rng.block_key``), and every
seating of the block (a row of ``entry_of_seat``) replays the streams made from that key: the same
deals, the same dice, the same policy draws. Each seating's outcome goes into the block's vector ``v``
(``scoring.add_seats``), and the block's ``v`` into the sums (``scoring.accumulate_upper``). A rule set
gives only ``play_seating``, one game (or round) from the block's streams; so the pairing rule, the
reset of the per-seating totals and the sums are the same for all of them.

How a rule set uses it: its block loop (``jit.BlockKernel``; a line-up kernel compiles the same loop
around its own ``decide``) allocates its scratch with ``views.stack_zeros`` and returns
``block_loop(play_seating, state, decide, ...)``, ``state`` a tuple of its tables and scratch;
``BlockKernel`` compiles it and is the plain Python that allocates what it writes and raises what it reports.
``play_seating`` must take exactly ``play``'s arguments, itself first (it is compiled into the loop from its
source, ``play``): a call the optimiser cannot see through would cost every round.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.scoring import RUN_BLOCKS_SIG, accumulate_upper, add_seats, check_stop, luck_on
from llama_sim.core.jit import Kernel
from llama_sim.core.views import stack_zeros

MAX_SEATS = 6  # the most seats of any rule set: what a block loop's per-seat scratch holds (a literal)

# The arguments of every rule set's block loop after ``decide`` (None in the generic kernel): those of
# ``RUN_BLOCKS_SIG`` up to ``s1`` without ``cfg``, then ``upper``, ``v``, ``bad``; the rule set's own follow.
BLOCK_LOOP_ARGS = (RUN_BLOCKS_SIG.args[:11] + RUN_BLOCKS_SIG.args[12:13]
                   + (types.int64[:, ::1], types.int64[::1], types.int64[::1]))


def block_loop_sig(*own):
    """The signature of a rule set's block loop whose own arguments (after ``bad``) have types ``own``."""
    return types.int64(types.none, *BLOCK_LOOP_ARGS, *own)


@njit(inline="always")
def play(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params, drng, prng,
         penalty, went_out, quits, final, luck, bad, one_round):
    """``play_seating(decide, state, ...)``: one seating of a block, compiled into the loop. Jitted code only.

    ``play_seating`` plays row ``r`` of ``entry_of_seat`` from the block's deal and policy streams (``drng``,
    ``prng``; any other stream it seeds from ``key``), adds each seat's totals into ``penalty``,
    ``went_out``, ``quits``, and in a game its final score into ``final``; ``one_round``: one round only
    (round mode). ``luck``: empty, or one float per seat (zeroed) into which a rule set with a value
    function adds the luck of each chance event (``core.luck``); a rule set without one leaves it. It
    returns the number of rounds, or ``engine.ILLEGAL`` (``bad`` = entry, seat, action) or ``engine.ENDLESS``.

    Both this call and ``play_seating``'s (declared ``inline="always"``) are inlined by Numba before typing,
    the rule set's function found through the loop's argument: inlined by an ``overload``, it was also
    compiled on its own, for nothing (a sixth of a rule set's first compile)."""
    return play_seating(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params,
                        drng, prng, penalty, went_out, quits, final, luck, bad, one_round)


@njit(cache=True, nogil=True, inline="always")
def block_loop(play_seating, state, decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
               games_mode, policies, slot_of_entry, params, s1, upper, v, bad):
    """Play ``n_blocks`` deal blocks from ``first_block``, each once per row of ``entry_of_seat``, all rows
    on the block's own streams; sums into ``s1`` and the upper triangle of the squares, ``upper``. Allocates
    nothing: its scratch is on the stack of the function it is compiled into (one without reference
    counting, calling it once). Returns 0, or what ``play_seating`` reported (``ILLEGAL``, ``ENDLESS``)."""
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
    penalty = stack_zeros(MAX_SEATS, n, np.int64)
    went_out = stack_zeros(MAX_SEATS, n, np.int64)
    quits = stack_zeros(MAX_SEATS, n, np.int64)
    final = stack_zeros(MAX_SEATS, n, np.int64)
    wins = stack_zeros(MAX_SEATS, n, np.int64)
    luck = stack_zeros(MAX_SEATS, n if luck_on(s1, n_units, games_mode) else 0, np.float64)
    for b in range(first_block, first_block + n_blocks):
        v[:] = 0
        key = R.block_key(seed, b)  # once per block: each seating replays its streams
        for r in range(entry_of_seat.shape[0]):
            R.seed_from_key(drng, key, R.DEAL_STREAM)
            R.seed_from_key(prng, key, R.POLICY_STREAM)
            penalty[:] = 0
            went_out[:] = 0
            quits[:] = 0
            luck[:] = 0
            rounds = play(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params,
                          drng, prng, penalty, went_out, quits, final, luck, bad, not games_mode)
            if rounds < 0:
                return rounds
            add_seats(v, n_units, unit_of_seat, r, n, penalty, went_out, quits, rounds, final, wins, games_mode,
                      luck)
        accumulate_upper(v, s1, upper)
    return 0


class BlockKernel:
    """A rule set's block loop compiled as the cached kernel itself (without reference counting unless
    ``reference_counted``), and the plain Python around it that allocates what the loop writes and raises
    what it reports. ``get()`` is a callable with ``scoring.RUN_BLOCKS_SIG``'s arguments, like a ``jit.Kernel``
    of that signature. Why not a jitted wrapper: every compiled level re-optimises all the code linked
    into it, and a wrapper around the loop cost a second of each rule set's first compile.

    ``own_types()``: the numba types of the loop's own arguments (after ``bad``); ``own_args(cfg)``: their
    values for a run's ``cfg``; ``max_seats``: the most seats the rule set's own scratch holds."""

    def __init__(self, loop, own_types, own_args, label: str, max_seats: int, reference_counted: bool = False):
        self.loop = Kernel(loop, lambda: block_loop_sig(*own_types()), label, no_nrt=not reference_counted)
        self.own_types, self.own_args = own_types, own_args
        self.label, self.max_seats, self.reference_counted = label, max_seats, reference_counted

    def get(self):
        return functools.partial(self.run, self.loop.get())

    def run(self, loop, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode, policies,
            slot_of_entry, params, cfg, s1, s2):
        """Run the compiled ``loop`` (this one's, or a line-up kernel's): allocate what it writes, raise what
        it reports, and mirror its triangle of squares into ``s2``."""
        if n > min(self.max_seats, MAX_SEATS):
            raise ValueError(f"{self.label}: more seats than its scratch holds")
        d = s1.shape[0]
        upper = np.zeros((d, d), np.int64)
        bad = np.zeros(3, np.int64)
        check_stop(loop(None, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                        policies, slot_of_entry, params, s1, upper, np.zeros(d, np.int64), bad,
                        *self.own_args(cfg)), bad)
        add_squares(s2, upper)

    def around(self, loop, label: str) -> "BlockKernel":
        """Another loop of this one's signature, run the same way (a line-up kernel's)."""
        return BlockKernel(loop, self.own_types, self.own_args, label, self.max_seats, self.reference_counted)

    def is_cached(self) -> bool:
        return self.loop.is_cached()

    def __call__(self, *args):
        return self.get()(*args)


def add_squares(s2: np.ndarray, upper: np.ndarray) -> None:
    """Add a loop's squares, kept as their upper triangle (``scoring.accumulate_upper``), into the full ``s2``."""
    s2 += upper + np.triu(upper, 1).T


@njit(cache=True, nogil=True, inline="always")
def record_round(v, n_units, unit_of_seat, n, penalty, went_out, quits, final, wins, s1, upper):
    """A block of one round-mode seating into the sums, as ``block_loop`` adds each block: for a loop that
    plays one seating per block (a rule set's limit)."""
    v[:] = 0
    add_seats(v, n_units, unit_of_seat, 0, n, penalty, went_out, quits, 1, final, wins, False, final[:0])  # no luck
    accumulate_upper(v, s1, upper)


def play_limit(limit_blocks, own: tuple, plan, seed: int, n_blocks: int, s1: np.ndarray, s2: np.ndarray) -> None:
    """A rule set's limit loop, ``limit_blocks(*own, seed, n_blocks, n, unit_of_seat, n_units, s1, upper)``, on
    ``plan``'s seats, adding into ``s1`` and ``s2`` as ``BlockKernel.run`` does."""
    upper = np.zeros_like(s2)
    limit_blocks(*own, np.int64(seed), np.int64(n_blocks), np.int64(plan.n_players), plan.unit_of_seat,
                 np.int64(len(plan.unit_labels)), s1, upper)
    add_squares(s2, upper)
