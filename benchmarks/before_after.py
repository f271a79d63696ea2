"""Kernel throughput of this tree against a baseline copy of llama_sim, per rule set, in one run.

    python benchmarks/before_after.py --baseline /work/baseline [--rounds 400000] [--repeats 5]
                                      [--games lama party kadabra dice] [--reference-rounds 1000]

For every rule set it alternates worker processes of the baseline tree and of this tree
(``PYTHONPATH`` set to each), ``--repeats`` times each, so both see the same load on a shared
machine. A worker plays the bench line-up (4 ``greedy``; dice: 4 ``threshold:quit_at=10``) for ``--rounds``
rounds on ONE thread after a warm-up, and times the kernel with the thread's CPU time
(``time.thread_time``, read in the thread that runs it: ``thread_cpu``), which other processes on the
machine disturb far less than wall time.
Both trees are also timed with the line-up's own kernel (``llama_sim.run.lineup``; ``lineup_*``
columns: the current tree's against the baseline's, or against the baseline's generic kernel when the
baseline has none) when they have one.
The table gives the medians, their ratio, and decisions per second: decisions per round are
counted on the reference engine (every policy call of ``--reference-rounds`` rounds on the same
deals), in each tree, so rule sets with long rounds compare fairly.

The worker uses only API both trees have (``registry.parse_spec``, ``seat_plan`` and
``run_chunk``, the rule set's ``reference_blocks``), from the layered package or the one before it. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CURRENT = HERE.parent
# Every parameter spelled out: a strategy with per-player-count presets (threshold plays quit_at=1 at
# 4 players since presets came in) would otherwise play different games in trees before and after them.
BENCH_STRATEGY = {"dice": "threshold:quit_at=10"}
PLAYERS = 4


def thread_cpu(run) -> float:
    """CPU seconds of ``run()`` in a thread of its own. Not on the main thread: there ``run_chunk`` hands
    the kernel to a worker thread (so that Ctrl-C stops it) and the main thread's clock only waits."""
    took: list[float] = []

    def timed():
        t0 = time.thread_time()
        run()
        took.append(time.thread_time() - t0)

    thread = threading.Thread(target=timed)
    thread.start()
    thread.join()
    if not took:
        raise SystemExit("the timed run failed (see the traceback above)")
    return took[0]


def worker(game_name: str, rounds: int, reference_rounds: int) -> dict:
    """Runs inside a tree's process: kernel rounds per CPU-second, and (when asked) decisions per round."""
    import numpy as np

    import llama_sim

    # Asked of the tree, not by trying an import: the editable install would find this tree's modules
    # for a name the other tree lacks.
    package = Path(llama_sim.__file__).parent
    if (package / "run" / "chunks.py").is_file():  # designs and chunks in modules of their own
        from llama_sim.core import registry
        from llama_sim.core.ruleset import get_game
        from llama_sim.run import designs as plans
        from llama_sim.run.chunks import run_chunk
    elif (package / "core").is_dir():  # the layered package, one run.simulate
        from llama_sim.core import registry
        from llama_sim.core.ruleset import get_game
        from llama_sim.run import simulate as plans
        from llama_sim.run.simulate import run_chunk
    else:  # a tree from before the layers (llama_sim.games, llama_sim.simulate)
        from llama_sim import registry
        from llama_sim.games import get_game
        from llama_sim import simulate as plans
        from llama_sim.simulate import run_chunk
    seat_plan = plans.seat_plan

    game = get_game(game_name)
    name = BENCH_STRATEGY.get(game_name, "greedy")
    players = [registry.parse_spec(game_name, name) for _ in range(PLAYERS)]
    plan = seat_plan(game, players, False, game.config())
    run_chunk(plan, 7, 0, 64)  # compile or load from the disk cache, outside the timing
    cpu = thread_cpu(lambda: run_chunk(plan, 7, 0, rounds))
    out = {"rounds_per_cpu_s": rounds / cpu, "path": __import__("llama_sim").__file__}
    if hasattr(plans, "with_kernel"):  # a tree with line-up kernels: time the line-up's own too
        own = plans.with_kernel(plan, "lineup")
        run_chunk(own, 7, 0, 64)
        out["lineup_rounds_per_cpu_s"] = rounds / thread_cpu(lambda: run_chunk(own, 7, 0, rounds))
    if reference_rounds:
        calls = [0]

        def counted(policy):
            def call(*args):  # either tree's policy contract
                calls[0] += 1
                return policy(*args)
            return call

        entries = [(counted(p.strategy.policy), p.params) for p in plan.entries]  # the values the kernel plays
        d = 3 * len(plan.unit_labels)
        s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
        game.reference_blocks(7, 0, reference_rounds, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
                              len(plan.unit_labels), False, entries, plan.cfg, s1, s2)
        out["decisions_per_round"] = calls[0] / reference_rounds
    return out


def worker_in(script: Path, tree: Path, args: list[str]) -> dict:
    """``script --worker ARGS`` in a fresh process on one thread with ``tree`` first on the path: its last line
    of output as JSON (a worker prints ``{..., "path": llama_sim.__file__}``, checked to be ``tree``'s)."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    cmd = [sys.executable, str(Path(script).resolve()), "--worker", *args]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(tree))
    if res.returncode != 0:
        raise SystemExit(f"worker failed in {tree} ({' '.join(args)}):\n{res.stderr.strip()}")
    got = json.loads(res.stdout.strip().splitlines()[-1])
    if not got["path"].startswith(str(tree)):
        raise SystemExit(f"worker loaded {got['path']}, not the tree {tree}")
    return got


def rule_set_timing(description: str, rounds: int, worker, here: Path) -> tuple[argparse.Namespace, dict] | None:
    """The command line of a script timing each rule set in worker processes (``--baseline``, ``--rounds``,
    ``--repeats``, ``--games``), and the trees to time, ``{label: root}`` with the baseline first. Run as a
    worker (``--worker GAME WHAT``), it prints ``worker(GAME, WHAT, rounds)`` as JSON and returns None."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", nargs="+", default=["lama", "party", "kadabra", "dice"])
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.rounds)))
        return None
    trees = {"current": here.parent}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), **trees}
    return args, trees


def run_worker(tree: Path, game: str, rounds: int, reference_rounds: int) -> dict:
    return worker_in(__file__, tree, [game, "--rounds", str(rounds), "--reference-rounds", str(reference_rounds)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="root of the baseline tree (holding llama_sim/)")
    parser.add_argument("--rounds", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reference-rounds", type=int, default=1_000)
    parser.add_argument("--games", nargs="+", default=["lama", "party", "kadabra", "dice"])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.rounds, args.reference_rounds)))
        return
    if args.baseline is None or not (args.baseline / "llama_sim").is_dir():
        parser.error("--baseline DIR must hold a llama_sim package")
    trees = {"baseline": args.baseline.resolve(), "current": CURRENT}
    rows = []
    for game in args.games:
        rates = {k: [] for k in trees}
        own_rates = {k: [] for k in trees}
        per_round = {}
        for rep in range(args.repeats):
            for label, tree in trees.items():  # interleaved: baseline, current, baseline, current, ...
                got = run_worker(tree, game, args.rounds, args.reference_rounds if rep == 0 else 0)
                rates[label].append(got["rounds_per_cpu_s"])
                per_round.setdefault(label, got.get("decisions_per_round"))
                if "lineup_rounds_per_cpu_s" in got:
                    own_rates[label].append(got["lineup_rounds_per_cpu_s"])
        base, cur = statistics.median(rates["baseline"]), statistics.median(rates["current"])
        own_base_rates = own_rates["baseline"] or rates["baseline"]
        own_base = statistics.median(own_base_rates)
        own_rates = own_rates["current"]
        own = statistics.median(own_rates) if own_rates else float("nan")
        rows.append({
            "game": game, "line-up": f"{PLAYERS} x {BENCH_STRATEGY.get(game, 'greedy')}",
            "baseline_rounds/s": round(base), "current_rounds/s": round(cur), "ratio": round(cur / base, 2),
            "baseline_lineup_rounds/s": round(own_base),
            "lineup_rounds/s": round(own) if own_rates else "-",
            "lineup_ratio": round(own / own_base, 2) if own_rates else "-",
            "decisions/round": round(per_round["current"], 2),
            "baseline_decisions/s": round(base * per_round["baseline"]),
            "current_decisions/s": round(cur * per_round["current"]),
            "baseline_runs": " ".join(f"{r / 1e3:.0f}k" for r in rates["baseline"]),
            "current_runs": " ".join(f"{r / 1e3:.0f}k" for r in rates["current"]),
            "baseline_lineup_runs": " ".join(f"{r / 1e3:.0f}k" for r in own_base_rates),
            "lineup_runs": " ".join(f"{r / 1e3:.0f}k" for r in own_rates),
        })
        own_text = (f", line-up kernel {own_base:,.0f} -> {own:,.0f} ({own / own_base:.2f}x)" if own_rates
                    else "")
        print(f"{game}: baseline {base:,.0f}, current {cur:,.0f} ({cur / base:.2f}x){own_text} rounds/s per CPU-second",
              file=sys.stderr, flush=True)
    import pandas as pd

    pd.set_option("display.width", 250)
    print(f"one thread, {args.rounds} rounds per run, medians of {args.repeats} interleaved runs "
          f"(CPU time of the kernel's thread)")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
