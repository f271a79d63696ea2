"""Line-ups, deal blocks, chunks and threads.

A run is a sequence of *deal blocks*. Block ``b`` draws its deal from ``(seed, b)`` alone and is
played once per row of the plan's ``entry_of_seat`` table (one row in ``simulate``; one row per
seat rotation in ``compare``), so every strategy meets the same deals in every seat (common random
numbers). Blocks are cut into fixed-size chunks that run on threads (the kernels release the GIL)
or on Dask workers; each chunk returns integer sums, so the merged result is identical for any
number of threads, any backend and any chunk order.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import registry
from .errors import UsageError
from .games import GameSpec
from .games.common import GAME_METRICS, ROUND_METRICS
from .stats import Tally

CHUNK_BLOCKS_ROUNDS = 4096
CHUNK_BLOCKS_GAMES = 128


@dataclass
class Plan:
    """Who sits where in each play of a deal, and which result unit each seat feeds."""

    game: GameSpec
    n_players: int
    entries: list[registry.Player]  # line-up entries (one params row each)
    entry_of_seat: np.ndarray  # (rotations, n) entry index
    unit_of_seat: np.ndarray  # (rotations, n) unit index
    unit_labels: list[str]
    unit_seats: list[int | None]  # the seat a unit stands for (simulate), None when pooled
    games_mode: bool
    cfg: np.ndarray

    @property
    def rotations(self) -> int:
        return self.entry_of_seat.shape[0]

    @property
    def metrics(self) -> tuple[str, ...]:
        return GAME_METRICS if self.games_mode else ROUND_METRICS

    def appearances(self) -> np.ndarray:
        """Observations (rounds or games) each unit contributes per block."""
        return np.bincount(self.unit_of_seat.ravel(), minlength=len(self.unit_labels)).astype(np.int64)


def _check_players(game: GameSpec, n: int) -> None:
    if not game.min_players <= n <= game.max_players:
        raise UsageError(f"{game.name} is played by {game.min_players} to {game.max_players} players, not {n}")


def seat_plan(game: GameSpec, players: list[registry.Player], games_mode: bool, cfg: np.ndarray) -> Plan:
    """``simulate``: seat s always plays ``players[s]``; one unit per seat."""
    n = len(players)
    _check_players(game, n)
    seats = np.arange(n, dtype=np.int64)[None, :]
    return Plan(game, n, players, seats.copy(), seats.copy(), [p.label for p in players], list(range(n)),
                games_mode, cfg)


def unique_labels(players: list[registry.Player]) -> list[str]:
    """Labels that tell two copies of one strategy apart (``greedy``, ``greedy#2``)."""
    seen: dict[str, int] = {}
    labels = []
    for p in players:
        seen[p.label] = seen.get(p.label, 0) + 1
        labels.append(p.label if seen[p.label] == 1 else f"{p.label}#{seen[p.label]}")
    return labels


def rotation_plan(game: GameSpec, n_players: int, players: list[registry.Player], games_mode: bool,
                  cfg: np.ndarray) -> Plan:
    """``compare``: strategies fill the seats in order, repeating (seat s gets strategy s mod k),
    and each deal is played once per rotation of that line-up, so every strategy plays every seat.
    One unit per strategy, pooled over its seats."""
    _check_players(game, n_players)
    k = len(players)
    if k < 1:
        raise UsageError("compare needs at least one strategy")
    if k > n_players:
        raise UsageError(f"{k} strategies do not fit {n_players} seats; raise --players")
    base = np.array([s % k for s in range(n_players)], dtype=np.int64)
    table = np.array([np.roll(base, -r) for r in range(n_players)], dtype=np.int64)
    return Plan(game, n_players, players, table, table.copy(), unique_labels(players), [None] * k,
                games_mode, cfg)


def blocks_for(plan: Plan, count: int) -> int:
    """Blocks needed for at least ``count`` rounds (or games): whole rotations only."""
    if count <= 0:
        raise UsageError(f"the number of rounds or games must be positive, not {count}")
    return math.ceil(count / plan.rotations)


def empty_tally(plan: Plan) -> Tally:
    return Tally.empty(plan.metrics, len(plan.unit_labels), plan.appearances())


def run_chunk(plan: Plan, seed: int, first_block: int, n_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Play blocks [first_block, first_block + n_blocks) and return their (s1, s2) sums."""
    d = len(plan.metrics) * len(plan.unit_labels)
    s1 = np.zeros(d, np.int64)
    s2 = np.zeros((d, d), np.int64)
    policies, slots = registry.policy_tuple(plan.entries)
    params = np.ascontiguousarray(np.array([p.params for p in plan.entries], dtype=np.float64))
    plan.game.run_blocks(np.uint64(seed % 2**64), first_block, n_blocks, plan.n_players,
                         plan.entry_of_seat, plan.unit_of_seat, len(plan.unit_labels), plan.games_mode,
                         policies, slots, params, plan.cfg, s1, s2)
    return s1, s2


def chunk_ranges(first_block: int, n_blocks: int, chunk: int) -> list[tuple[int, int]]:
    return [(b, min(chunk, first_block + n_blocks - b)) for b in range(first_block, first_block + n_blocks, chunk)]


def default_threads() -> int:
    return max(1, os.cpu_count() or 1)


def warm_up(plan: Plan) -> None:
    """Compile (or load from the disk cache) everything a run needs, once, before timing."""
    run_chunk(plan, 0, 0, 1)


def run(plan: Plan, seed: int, first_block: int, n_blocks: int, threads: int | None = None,
        progress: Callable[[int], None] | None = None, chunk: int | None = None) -> Tally:
    """Play blocks [first_block, first_block + n_blocks) on local threads; exact, order-free merge."""
    chunk = chunk or (CHUNK_BLOCKS_GAMES if plan.games_mode else CHUNK_BLOCKS_ROUNDS)
    threads = threads or default_threads()
    if threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    warm_up(plan)
    tally = empty_tally(plan)
    ranges = chunk_ranges(first_block, n_blocks, chunk)

    def work(rng_range):
        return run_chunk(plan, seed, *rng_range), rng_range[1]

    if threads == 1:
        results = map(work, ranges)
        for (s1, s2), nb in results:
            tally = tally.merge(Tally(tally.metrics, tally.units, tally.appearances, nb, s1, s2))
            if progress:
                progress(nb)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for (s1, s2), nb in pool.map(work, ranges):
                tally = tally.merge(Tally(tally.metrics, tally.units, tally.appearances, nb, s1, s2))
                if progress:
                    progress(nb)
    return tally
