"""Warm start-up of the command line: wall time of ``llamasim --help``, ``games`` and ``strategies``.

    python benchmarks/startup.py [--runs 15] [--budget] [--tree DIR]

Each command runs ``--runs`` times in a fresh interpreter (``python -m llama_sim``, this tree first on
``PYTHONPATH``) after one untimed run, with ``PYTHONDONTWRITEBYTECODE`` unset so that the first run
writes the bytecode the timed ones read: what a user meets from the second call on. Prints the median
and the spread (the machine may be shared: read the median). ``--budget`` adds each command's budget
(DESIGN.md: a warm call starts in under 0.4 s; the listing targets are tighter) and exits 1 when a
median is over it. ``--tree DIR`` times another checkout of llama_sim instead (a before/after pair:
run it on both, one after the other, on a machine as quiet as you can get).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"--help": (["--help"], 0.3), "games": (["games"], 0.5), "strategies": (["strategies"], 0.5)}


def environment(tree: Path = ROOT) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def wall_times(args: list[str], runs: int, env: dict[str, str], tree: Path) -> list[float]:
    """In ``tree`` as the working folder: ``python -m`` puts it first on the path, before PYTHONPATH."""
    command = [sys.executable, "-m", "llama_sim", *args]
    subprocess.run(command, env=env, check=True, capture_output=True, cwd=tree)  # writes the bytecode
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True, cwd=tree)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command (default 15)")
    parser.add_argument("--budget", action="store_true", help="compare with the budgets; exit 1 over one")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the llama_sim checkout to time (default: this one)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    env = environment(tree)
    rows, over = [], []
    python = statistics.median(_python_alone(args.runs, env))
    for name, (argv, budget) in COMMANDS.items():
        times = wall_times(argv, args.runs, env, tree)
        median = statistics.median(times)
        rows.append((f"llamasim {name}", median, min(times), max(times), budget))
        if median > budget:
            over.append(name)
    print(f"warm start-up of {tree}, median of {args.runs} runs "
          f"(python {sys.version.split()[0]} alone: {python:.3f} s)")
    print(f"{'command':<22}{'median s':>9}{'min s':>8}{'max s':>8}" + (f"{'budget s':>10}" if args.budget else ""))
    for label, median, low, high, budget in rows:
        print(f"{label:<22}{median:>9.3f}{low:>8.3f}{high:>8.3f}" + (f"{budget:>10.2f}" if args.budget else ""))
    if args.budget and over:
        print(f"over budget: {', '.join(over)}")
        sys.exit(1)


def _python_alone(runs: int, env: dict[str, str]) -> list[float]:
    """The interpreter's own start-up, for scale."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        times.append(time.perf_counter() - start)
    return times


if __name__ == "__main__":
    main()
