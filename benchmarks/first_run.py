"""A newcomer's first results: wall time of each rule set's first ``compare`` and first ``advise`` with
an empty kernel cache (what compiling costs), and of the same command run again (what a warm start
costs).

    python benchmarks/first_run.py [--repeats 3] [--tree DIR] [--games lama,party,kadabra,dice]

Each command runs in a fresh interpreter (``python -m llama_sim``, the tree first on ``PYTHONPATH``)
with ``LLAMA_SIM_CACHE`` pointing at a new empty folder, then once more on the folder it filled.
``PYTHONDONTWRITEBYTECODE`` is unset and the bytecode is written by an untimed ``--help`` first, as
on a user's machine. ``--repeats`` takes the median of that many cold runs (each with its own empty
folder). ``--tree DIR`` times another checkout (a before/after pair: run both on a quiet machine,
one after the other). ``warm start-up`` itself is ``benchmarks/startup.py``.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import startup  # (this folder: a script's own folder is first on the path)

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("lama", "party", "kadabra", "dice")
# The README's first commands for each rule set, at a size where the simulation itself takes a
# fraction of a second: what is left is start-up and compiling.
COMPARE = {
    "lama": ["compare", "--game", "lama", "smart", "threshold", "greedy", "--rounds", "2000"],
    "party": ["compare", "--game", "party", "chain", "greedy", "--rounds", "2000"],
    "kadabra": ["compare", "--game", "kadabra", "showman", "greedy", "--rounds", "2000"],
    "dice": ["compare", "--game", "dice", "keep_llama", "threshold", "--rounds", "2000"],
}
ADVISE = {
    "lama": ["advise", "--game", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
             "--pile", "20", "--scores", "0,12,5,30"],
    "party": ["advise", "--game", "party", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
              "--pile", "20"],
    "kadabra": ["advise", "--game", "kadabra", "--hand", "L L 3", "--top", "L", "--hand-sizes", "3,5",
                "--pile", "20", "--stage", "4,1", "--show", "--magic", "me"],
    "dice": ["advise", "--game", "dice", "--row", "2 5 L", "--rows", "1 2 3;4 4 L"],
}


def environment(tree: Path, cache: Path) -> dict[str, str]:
    """``startup.environment`` with the kernel cache in ``cache`` (and not a user's ``NUMBA_CACHE_DIR``)."""
    env = startup.environment(tree)
    env.pop("NUMBA_CACHE_DIR", None)
    env["LLAMA_SIM_CACHE"] = str(cache)
    return env


def wall(argv: list[str], env: dict[str, str], tree: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "llama_sim", *argv], env=env, cwd=tree, capture_output=True,
                          text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"llamasim {' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return took


def cold_and_warm(argv: list[str], tree: Path, repeats: int) -> tuple[float, float]:
    """Median wall time with an empty kernel cache, and the time of a second run on the cache it filled."""
    colds, warm = [], 0.0
    for _ in range(repeats):
        cache = Path(tempfile.mkdtemp(prefix="llamasim-first-run-"))
        try:
            env = environment(tree, cache)
            colds.append(wall(argv, env, tree))
            warm = wall(argv, env, tree)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return statistics.median(colds), warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="cold runs per command, median (default 3)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the llama_sim checkout to time (default: this one)")
    parser.add_argument("--games", default=",".join(GAMES), help="rule sets, comma-separated (default: all four)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown rule set {unknown[0]!r} (known: {', '.join(GAMES)})")
    scratch = Path(tempfile.mkdtemp(prefix="llamasim-first-run-"))
    try:  # writes the bytecode the timed runs read, as a user's first call does
        subprocess.run([sys.executable, "-m", "llama_sim", "--help"], env=environment(tree, scratch), cwd=tree,
                       capture_output=True, check=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"first runs of {tree} (median of {args.repeats} cold runs, each with an empty kernel cache)")
    print(f"{'rule set':<9}{'compare cold s':>16}{'warm s':>8}{'advise cold s':>15}{'warm s':>8}")
    for game in games:
        compare_cold, compare_warm = cold_and_warm(COMPARE[game], tree, args.repeats)
        advise_cold, advise_warm = cold_and_warm(ADVISE[game], tree, args.repeats)
        print(f"{game:<9}{compare_cold:>16.2f}{compare_warm:>8.2f}{advise_cold:>15.2f}{advise_warm:>8.2f}",
              flush=True)
    print("commands: " + "; ".join(f"llamasim {' '.join(COMPARE[g])}" for g in games[:1]) + " (and the others "
          "in benchmarks/first_run.py)")


if __name__ == "__main__":
    main()
