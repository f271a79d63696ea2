"""Throughput: the kernel and the reference engine on the same work, and their ratio.

Both play the same deals with the same policies (4 ``greedy`` players by default); the reference is
timed on fewer rounds (it is slow) and its sums are checked against the kernels' on those rounds. Each
rule set is timed with its generic kernel (one compiled kernel for every line-up) and with the line-up's
own kernel (``llama_sim.run.lineup``), which ``auto`` picks for large runs, and against the limit of their
design (``RuleSet.limit``: the same work in a loop specialised for the bench line-up, whose sums must equal
the kernels'; ``kernel_of_limit`` and ``lineup_of_limit`` are the kernels' share of its speed); under
``LLAMA_SIM_KERNEL=generic`` (never a line-up kernel) only the generic one, with no line-up to compile.
Decisions per round (every policy call: plays, draws, quits, and the other rule sets' give, show,
discard and take decisions) are counted on the reference rounds, so rule sets with long rounds
compare fairly by decisions per second. ``benchmarks/before_after.py`` compares two trees.
"""
from __future__ import annotations

import time

import numpy as np

from llama_sim.core.errors import UsageError
from llama_sim.core import registry
from llama_sim.core.ruleset import RuleSet
from llama_sim.run import lineup
from llama_sim.run.backends import run
from llama_sim.run.chunks import default_threads, run_chunk
from llama_sim.run.designs import empty_tally, seat_plan, with_kernel

BENCH_PLAYERS = 4


MAX_REFERENCE_ROUNDS = 1_000_000  # the reference engine's rounds: about a quarter of an hour


def counting(policy, counter: list[int]):
    """``policy`` for the reference engine, adding 1 to ``counter[0]`` at every call."""
    def call(*args):  # the contract's arguments, passed on as they are
        counter[0] += 1
        return policy(*args)
    return call


def bench_game(game: RuleSet, rounds: int, reference_rounds: int, threads: int | None = None) -> dict:
    """One row: the generic kernel (``kernel_*``) and the line-up's own kernel (``lineup_*``, see
    ``llama_sim.run.lineup``; its compile is outside the timing) on the same rounds, the reference engine on
    ``reference_rounds`` of them, and whether both kernels' sums equal the reference's there."""
    if not 1 <= reference_rounds <= MAX_REFERENCE_ROUNDS:  # plain Python: about 1000 rounds a second
        raise UsageError(f"--reference-rounds must be from 1 to {MAX_REFERENCE_ROUNDS:,}, not {reference_rounds}")
    name = game.bench_strategy
    seats = min(max(BENCH_PLAYERS, game.min_players), game.max_players)
    players = [registry.parse_spec(game.name, name) for _ in range(seats)]
    plan = seat_plan(game, players, False, game.config())
    line_ups = game.kernel_loop is not None and lineup.kernel_mode() != "generic"
    kinds = ("generic", "lineup") if line_ups else ("generic",)
    kernels = {kind: with_kernel(plan, kind) for kind in kinds}
    threads = default_threads() if threads is None else threads
    rates = {}
    for kind, work in kernels.items():
        run_chunk(work, 7, 0, 16)  # compile or load from cache before timing
        for count in (1, threads):
            t0 = time.perf_counter()
            run(work, 7, 0, rounds, threads=count)
            rates[kind, count] = rounds / (time.perf_counter() - t0)

    tally = empty_tally(plan)
    limit = limit_rate(game, plan, rounds) if game.limit is not None else None
    s1, s2 = tally.s1.copy(), tally.s2.copy()
    calls = [0]
    entries = [(counting(p.strategy.policy, calls), p.params) for p in plan.entries]  # the values the kernel plays (presets)
    t0 = time.perf_counter()
    game.reference_blocks(7, 0, reference_rounds, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
                          len(plan.unit_labels), False, entries, plan.cfg, s1, s2)
    ref = reference_rounds / (time.perf_counter() - t0)
    agree = all(np.array_equal(k1, s1) and np.array_equal(k2, s2)
                for k1, k2 in (run_chunk(work, 7, 0, reference_rounds) for work in kernels.values()))
    limit_agrees = None
    if limit is not None:
        l1, l2 = tally.s1.copy(), tally.s2.copy()
        game.limit(plan, 7, reference_rounds, l1, l2)
        limit_agrees = bool(np.array_equal(l1, s1) and np.array_equal(l2, s2))
    per_round = calls[0] / reference_rounds
    one = rates["generic", 1]
    lineup_one = rates.get(("lineup", 1))
    return {
        "game": game.name, "line-up": f"{seats} x {name}",
        "kernel_rounds_per_s_1_thread": round(one),
        f"kernel_rounds_per_s_{threads}_threads": round(rates["generic", threads]),
        "lineup_rounds_per_s_1_thread": round(rates["lineup", 1]) if "lineup" in kernels else None,
        f"lineup_rounds_per_s_{threads}_threads": round(rates["lineup", threads]) if "lineup" in kernels else None,
        "decisions_per_round": round(per_round, 2),
        "kernel_decisions_per_s_1_thread": round(one * per_round),
        "lineup_decisions_per_s_1_thread": round(rates["lineup", 1] * per_round) if "lineup" in kernels else None,
        "limit_rounds_per_s_1_thread": None if limit is None else round(limit),
        "kernel_of_limit": None if limit is None else round(one / limit, 2),
        "lineup_of_limit": None if limit is None or lineup_one is None else round(lineup_one / limit, 2),
        "reference_rounds_per_s": round(ref),
        "speedup_1_thread": round(one / ref, 1),
        "reference_agrees": agree,
        "limit_agrees": limit_agrees,
    }


def limit_rate(game: RuleSet, plan, rounds: int) -> float:
    """Rounds per second (1 thread, wall time, as the kernels') of the rule set's limit
    (``RuleSet.limit``: the bench line-up's work in a loop specialised for it), its compile outside the
    timing."""
    tally = empty_tally(plan)
    game.limit(plan, 7, 16, tally.s1.copy(), tally.s2.copy())
    s1, s2 = tally.s1.copy(), tally.s2.copy()
    t0 = time.perf_counter()
    game.limit(plan, 7, rounds, s1, s2)
    return rounds / (time.perf_counter() - t0)
