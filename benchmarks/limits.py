"""Each rule set's kernels against the limit of their design: rounds per CPU-second of the generic
kernel, the line-up kernel and the limit (``RuleSet.limit``: the bench line-up's work in a loop
specialised for it, whose sums equal the kernels'), on one thread.

    python benchmarks/limits.py [--baseline /tmp/base] [--rounds 300000] [--repeats 5]
                                [--games lama party kadabra dice]

Every figure is a fresh worker process timed by its kernel thread's CPU time after a warm-up
(``before_after.thread_cpu``); the kinds (and with ``--baseline`` the two trees) alternate, so all see
the same load. The table gives medians of ``--repeats`` runs and each kernel's share of the limit.
A baseline tree without limits is timed on its kernels only. Figures are printed, never asserted.
"""
from __future__ import annotations

import os
import statistics
from pathlib import Path

from before_after import rule_set_timing, thread_cpu, worker_in  # (this folder is on the path of a script run from it)

HERE = Path(__file__).resolve().parent
KINDS = ("generic", "lineup", "limit")


def worker(game_name: str, kind: str, rounds: int) -> dict:
    import llama_sim
    from llama_sim.core import registry
    from llama_sim.core.ruleset import get_game
    from llama_sim.run.chunks import run_chunk
    from llama_sim.run.designs import empty_tally, seat_plan, with_kernel

    game = get_game(game_name)
    plan = seat_plan(game, [registry.parse_spec(game_name, game.bench_strategy) for _ in range(4)], False,
                     game.config())
    if kind == "limit":
        if getattr(game, "limit", None) is None:
            return {"us_per_round": None, "path": llama_sim.__file__}
        tally = empty_tally(plan)
        play = lambda k: game.limit(plan, 7, k, tally.s1.copy(), tally.s2.copy())  # noqa: E731
    else:
        work = with_kernel(plan, kind)
        play = lambda k: run_chunk(work, 7, 0, k)  # noqa: E731
    play(64)  # compile or load, outside the timing
    cpu = thread_cpu(lambda: play(rounds))
    return {"us_per_round": cpu / rounds * 1e6, "path": llama_sim.__file__}


def run_worker(tree: Path, game: str, kind: str, rounds: int) -> float | None:
    return worker_in(__file__, tree, [game, kind, "--rounds", str(rounds)])["us_per_round"]


def main() -> None:
    started = rule_set_timing(__doc__.splitlines()[0], 300_000, worker, HERE)
    if started is None:
        return
    args, trees = started
    print(f"4 x the bench strategy, one thread, {args.rounds} rounds per run, medians of {args.repeats} "
          f"interleaved runs, rounds per CPU-second (each kernel's share of its tree's limit, or of the current "
          f"tree's for a baseline without one); load before: {os.getloadavg()[0]:.2f}")
    for game in args.games:
        rates: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeats):
            for kind in KINDS:
                for label, tree in trees.items():
                    us = run_worker(tree, game, kind, args.rounds)
                    if us is not None:
                        rates.setdefault((label, kind), []).append(1e3 / us)
        cells = []
        for label in trees:
            med = {kind: statistics.median(rates[(label, kind)]) for kind in KINDS if (label, kind) in rates}
            limit = med.get("limit") or statistics.median(rates.get(("current", "limit"), [0])) or None
            parts = [f"{kind} {med[kind]:,.0f}k" + (f" ({med[kind] / limit:.2f})" if limit and kind != "limit" else "")
                     for kind in KINDS if kind in med]
            cells.append(f"{label}: " + ", ".join(parts))
        print(f"{game}: " + "; ".join(cells), flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
