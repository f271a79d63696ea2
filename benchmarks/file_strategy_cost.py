"""CPU time per round of a built-in strategy against the same code from a strategies file, per rule set.

    python benchmarks/file_strategy_cost.py [--baseline /tmp/base] [--rounds 400000] [--repeats 5]
                                            [--games lama party kadabra dice]

Line-ups of 4 built-in ``greedy`` (dice: ``threshold:quit_at=10``) and of 4 of its exact copy from
``file_copies.py``, which plays bounds-checked behind its own rng stream as any strategies file's code
does. Every run is a fresh worker process on one thread, timed by the kernel thread's CPU time after a
warm-up; with ``--baseline`` the baseline tree's workers alternate with this tree's (interleaved, so both
see the same load). The table gives medians of ``--repeats`` runs. Figures are printed, never asserted.
"""
from __future__ import annotations

import os
import statistics
from pathlib import Path

from before_after import rule_set_timing, thread_cpu, worker_in  # (this folder is on the path of a script run from it)

HERE = Path(__file__).resolve().parent
COPIES = HERE / "file_copies.py"
BUILTIN = {"dice": "threshold:quit_at=10"}
COPY = {"dice": "threshold_copy:quit_at=10"}


def worker(game_name: str, which: str, rounds: int) -> dict:
    import llama_sim
    from llama_sim.core import registry
    from llama_sim.core.ruleset import get_game
    from llama_sim.run.chunks import run_chunk
    from llama_sim.run.designs import seat_plan

    registry.load_file(COPIES)
    spec = BUILTIN.get(game_name, "greedy") if which == "builtin" else COPY.get(game_name, "greedy_copy")
    game = get_game(game_name)
    plan = seat_plan(game, [registry.parse_spec(game_name, spec) for _ in range(4)], False,
                     game.config())
    run_chunk(plan, 7, 0, 64)  # compile, outside the timing
    cpu = thread_cpu(lambda: run_chunk(plan, 7, 0, rounds))
    return {"us_per_round": cpu / rounds * 1e6, "path": llama_sim.__file__}


def run_worker(tree: Path, game: str, which: str, rounds: int) -> float:
    return worker_in(__file__, tree, [game, which, "--rounds", str(rounds)])["us_per_round"]


def main() -> None:
    started = rule_set_timing(__doc__.splitlines()[0], 400_000, worker, HERE)
    if started is None:
        return
    args, trees = started
    print(f"one thread, {args.rounds} rounds per run, medians of {args.repeats} interleaved runs, "
          f"µs of CPU per round; load before: {os.getloadavg()[0]:.2f}")
    for game in args.games:
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeats):
            for which in ("builtin", "file"):
                for label, tree in trees.items():
                    times.setdefault((label, which), []).append(run_worker(tree, game, which, args.rounds))
        cells = []
        for label in trees:
            b, f = (statistics.median(times[(label, w)]) for w in ("builtin", "file"))
            cells.append(f"{label}: built-in {b:.3f}, file {f:.3f} ({f / b:.2f}x)")
        print(f"{game}: " + "; ".join(cells), flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
