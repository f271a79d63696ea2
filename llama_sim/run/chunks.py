"""Deal blocks cut into chunks, and one chunk played by a kernel.

A run is a sequence of deal blocks (``run.designs``). Blocks are cut into fixed-size chunks that run on
threads (the kernels release the GIL) or on Dask workers (``llama_sim.run.backends``); each chunk returns
integer sums, so the merged result is identical for any number of threads, any backend and any chunk
order. ``run_chunk`` calls the kernel (the rule set's ``run_blocks``, or the line-up's own kernel) and
turns what it raises into one line.

``--precision X`` (``run_to_precision``): run a first batch of design blocks (at least ``MIN_DEALS``
deals over all strata, so the rule never trusts a variance from a handful of deals), then after every
batch compute every interval the rule covers (the strategies' intervals and every paired
difference of the compared metrics, or the seat values and seat-vs-mean differences of a seat
table); stop when each half-width is at most ``X``. Otherwise the next batch is sized from the
largest half-width ``h`` (half-widths shrink as ``1/sqrt(blocks)``): blocks grow to
``1.1 * B * (h / X)^2``, but at least 1.25x and at most 4x the blocks so far, and never beyond
``--max-rounds``. Batches continue from the blocks already played, so a precision run's blocks
are exactly the first ``B`` blocks of a fixed-count run with the same seed (same numbers).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from llama_sim.core import aside, interrupt, registry
from llama_sim.core.errors import Interrupted, UsageError, illegal_action_error, raised_by_a_strategies_file
from llama_sim.run.designs import Plan, Work, strata
from llama_sim.run.lineup import line_up_kernel


CHUNK_BLOCKS_ROUNDS = 16384

CHUNK_BLOCKS_GAMES = 256

MIN_DEALS = 200  # compare: at least this many deals behind every interval (summed over strata)

# The most rounds (or games) one table may ask for. Why a limit: the tallies are exact int64 sums
# of per-block values and their products, which stay far from overflow below it (a round's
# penalty is under 100 points, a block under 1800 plays); and at 10^7 rounds/s per core it is
# already about three core-hours. Below it memory is flat (chunks are generated lazily).
MAX_PLAYS = 10**11


def check_plays(work: Work, n_blocks: int) -> None:
    if n_blocks * work.rows > MAX_PLAYS:
        what = "games" if work.games_mode else "rounds"
        raise UsageError(f"{n_blocks * work.rows} {what} is more than one run can schedule: at most "
                         f"{MAX_PLAYS} (1e11) {what} per table")


def blocks_for(plan: Work, count: int) -> int:
    """Blocks needed for at least ``count`` rounds (or games): whole blocks only."""
    if count <= 0:
        raise UsageError(f"the number of rounds or games must be positive, not {count}")
    blocks = -(-count // plan.rows)
    check_plays(plan, blocks)
    return blocks


def min_blocks(work: Work, precision: bool = False) -> int:
    """Fewest (design) blocks ``compare`` reports on: 2 (an interval needs a variance), and for
    ``--precision`` enough for ``MIN_DEALS`` deals over all strata, so the stopping rule never
    trusts a variance estimated from a handful of deals."""
    if not precision:
        return 2
    n_strata = 1 if isinstance(work, Plan) else len(work.tables)
    return max(2, math.ceil(MIN_DEALS / n_strata))


MAX_SEED = 2**64 - 1


def check_seed(seed: int) -> int:
    """A seed is a 64-bit unsigned number; anything else would be folded silently onto another."""
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed must be a whole number from 0 to 2**64-1 ({MAX_SEED}), not {seed}")
    return seed


def _endless_game(plan: Plan) -> UsageError:
    """The kernels give up on a game after ``MAX_ROUNDS_PER_GAME`` rounds without a winner. Which
    games can end depends on the strategies as much as on the cards (with any deck that can be
    dealt, players who quit at once end a game in a few rounds; two greedy players with an
    all-llama Kadabra deck stake every token on the stage and never collect), so it is reported
    as a property of this line-up and these rules, in one line."""
    from llama_sim.core.scoring import GAME_END_SCORE, MAX_ROUNDS_PER_GAME

    rules = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in plan.game.describe_config(plan.cfg).items())
    return UsageError(f"a {plan.game.name} game of {', '.join(plan.unit_labels)} did not end within "
                      f"{MAX_ROUNDS_PER_GAME} rounds (nobody reached {GAME_END_SCORE} points)"
                      + (f" with {rules}" if rules else "") + ": these strategies cannot finish a game "
                      "under these rules; play single rounds (--rounds) instead")


def run_chunk(plan: Plan, seed: int, first_block: int, n_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Play blocks [first_block, first_block + n_blocks) and return their (s1, s2) sums."""
    d = len(plan.metrics) * len(plan.unit_labels)
    s1 = np.zeros(d, np.int64)
    s2 = np.zeros((d, d), np.int64)
    params = np.ascontiguousarray(np.array([p.params for p in plan.entries], dtype=np.float64))
    if plan.kernel == "lineup":  # (checked first: its module compiles the policies it calls)
        policies, slots = registry.policy_tuple(plan.entries)
        kernel, other = line_up_kernel(plan.game.name, plan.entries), aside.Aside()
    else:  # a cold kernel compiles here while cold policies compile in another process (``core.aside``)
        policies, kernel = None, plan.game.run_blocks
        other = aside.start(kernel, [p.strategy for p in plan.entries])
    try:
        with other:
            compiled = kernel.get()
        if policies is None:
            policies, slots = registry.policy_tuple(plan.entries)
        interrupt.call(compiled, np.uint64(check_seed(seed)), first_block, n_blocks, plan.n_players,
                       plan.entry_of_seat, plan.unit_of_seat, len(plan.unit_labels), plan.games_mode,
                       policies, slots, params, plan.cfg, s1, s2)
    except (Interrupted, UsageError):  # Ctrl-C while waiting for the kernel's thread; a policy that does not
        raise  # compile (``policy_tuple``)
    except ValueError as exc:
        raise_illegal_action(exc, plan, (seed, first_block, n_blocks))
        if exc.args == ("game did not end",) and not raised_by_a_strategies_file(exc):  # core.scoring's report
            raise _endless_game(plan) from None
        raise policy_error(exc, plan.entries) from None
    except Exception as exc:  # IndexError of a bounds check, ZeroDivisionError, ...: a policy's code
        if interrupt.REQUESTED.is_set():  # Ctrl-C while compiling: Numba may wrap it in its own error
            raise Interrupted() from None
        raise policy_error(exc, plan.entries) from None
    return s1, s2


def policy_error(exc: BaseException, entries) -> UsageError:
    """The one line for an exception a kernel raised that is not the engine's own report (a strategies
    file's code raised it: ``registry.failed_while_playing``)."""
    return registry.failed_while_playing(exc, [p.strategy for p in entries])


def raise_illegal_action(exc: BaseException, plan: Plan, blocks: tuple[int, int, int] | None = None) -> None:
    """Re-raise an engine's illegal-action error (``errors.ILLEGAL_ACTION``) as the ``UsageError``
    naming the strategy, the seat, the action and, given the (seed, first block, blocks) it played,
    the position (``replay.illegal_position``); return for any other exception. Used for the kernels
    (``run_chunk``, on threads and Dask workers) and the reference engines alike."""
    from llama_sim.run.replay import illegal_position

    position = (lambda: illegal_position(plan, *blocks)) if blocks is not None else None
    error = illegal_action_error(exc, [p.label for p in plan.entries], plan.game.action_names, position)
    if error is not None:
        raise error from None


def chunk_ranges(first_block: int, n_blocks: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(first block, blocks) of each chunk, generated as needed: a run of 10^9 rounds never holds
    its chunk list in memory."""
    for b in range(first_block, first_block + n_blocks, chunk):
        yield b, min(chunk, first_block + n_blocks - b)


def default_threads() -> int:
    return max(1, os.cpu_count() or 1)


def warm_up(plan: Plan) -> None:
    """Compile (or load from the disk cache) everything a run needs, once, before timing."""
    run_chunk(plan, 0, 0, 1)


@dataclass(frozen=True)
class Task:
    """One chunk: blocks [first_block, first_block + n_blocks) of stratum ``stratum``."""

    stratum: int
    seed: int
    first_block: int
    n_blocks: int


def auto_chunk(games_mode: bool, n_blocks: int, n_strata: int) -> int:
    """Blocks per chunk: large enough that a kernel call's fixed cost (about 0.2 ms, most of it
    unboxing the policy tuple) stays around 1%, small enough for at least ~8 chunks to balance the
    workers."""
    lo, hi = (16, CHUNK_BLOCKS_GAMES) if games_mode else (1024, CHUNK_BLOCKS_ROUNDS)
    return max(lo, min(hi, math.ceil(n_blocks * n_strata / 8)))


def iter_tasks(work: Work, seed: int, first_block: int, n_blocks: int, chunk: int | None = None) -> Iterator[Task]:
    """The chunks of a run, generated lazily (backends keep only a window of them in flight)."""
    chunk = chunk or auto_chunk(work.games_mode, n_blocks, len(strata(work, seed)))
    if chunk < 1:
        raise UsageError(f"chunk size must be positive, not {chunk}")
    for c, (_, s) in enumerate(strata(work, seed)):
        for b, nb in chunk_ranges(first_block, n_blocks, chunk):
            yield Task(c, s, b, nb)


def tasks_for(work: Work, seed: int, first_block: int, n_blocks: int, chunk: int | None = None) -> list[Task]:
    return list(iter_tasks(work, seed, first_block, n_blocks, chunk))
