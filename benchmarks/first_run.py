"""A newcomer's first results: wall time of each rule set's first ``compare``, first ``advise`` and first
``compare`` with the expert, with an empty kernel cache (what compiling costs), and of the same command
run again (what a warm start costs); with the CPU seconds of each cold run (the command and the process
it compiles strategies in, ``core.aside``), which a shared machine disturbs far less than wall time.

    python benchmarks/first_run.py [--repeats 3] [--tree DIR] [--baseline DIR] [--games lama,party,kadabra,dice]

Each command runs in a fresh interpreter (``python -m llama_sim``, the tree first on ``PYTHONPATH``)
with ``LLAMA_SIM_CACHE`` pointing at a new empty folder, then once more on the folder it filled.
``PYTHONDONTWRITEBYTECODE`` is unset and the bytecode is written by an untimed ``--help`` first, as
on a user's machine. ``--repeats`` takes the median of that many cold runs (each with its own empty
folder). ``--tree DIR`` times another checkout. ``--baseline DIR`` times that checkout too, each of its
cold runs next to one of the tree's (interleaved: both see the same load), and prints both. The expert
column is its first compare against the base strategy (``EXPERT``), the kernel compiled too: what a
newcomer's first expert run costs; less the compare column, what the expert's compile adds.
``warm start-up`` itself is ``benchmarks/startup.py``.
"""
from __future__ import annotations

import argparse
import resource
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
EXPERT = {
    "lama": ["compare", "--game", "lama", "expert", "climber", "--rounds", "20"],
    "party": ["compare", "--game", "party", "expert", "climber", "--rounds", "20"],
    "kadabra": ["compare", "--game", "kadabra", "expert", "climber", "--rounds", "20"],
    "dice": ["compare", "--game", "dice", "expert", "chart", "--rounds", "20"],
}
COMMANDS = {"compare": COMPARE, "advise": ADVISE, "expert": EXPERT}


def environment(tree: Path, cache: Path) -> dict[str, str]:
    """``startup.environment`` with the kernel cache in ``cache`` (and not a user's ``NUMBA_CACHE_DIR``)."""
    env = startup.environment(tree)
    env.pop("NUMBA_CACHE_DIR", None)
    env["LLAMA_SIM_CACHE"] = str(cache)
    return env


def timed(argv: list[str], env: dict[str, str], tree: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and of every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "llama_sim", *argv], env=env, cwd=tree, capture_output=True,
                          text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"llamasim {' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return took, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def cold_and_warm(argv: list[str], tree: Path) -> tuple[float, float, float]:
    """Wall and CPU time with an empty kernel cache, and the wall time of a second run on the cache it filled."""
    cache = Path(tempfile.mkdtemp(prefix="llamasim-first-run-"))
    try:
        env = environment(tree, cache)
        cold, cpu = timed(argv, env, tree)
        warm, _ = timed(argv, env, tree)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, cpu, warm


def write_bytecode(tree: Path) -> None:
    """Writes the bytecode the timed runs read, as a user's first call does."""
    scratch = Path(tempfile.mkdtemp(prefix="llamasim-first-run-"))
    try:
        subprocess.run([sys.executable, "-m", "llama_sim", "--help"], env=environment(tree, scratch), cwd=tree,
                       capture_output=True, check=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="cold runs per command, median (default 3)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the llama_sim checkout to time (default: this one)")
    parser.add_argument("--baseline", type=Path, help="another checkout, timed interleaved with the tree")
    parser.add_argument("--games", default=",".join(GAMES), help="rule sets, comma-separated (default: all four)")
    args = parser.parse_args()
    trees = {"": args.tree.resolve()}
    if args.baseline:
        trees = {"baseline ": args.baseline.resolve(), "": args.tree.resolve()}
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown rule set {unknown[0]!r} (known: {', '.join(GAMES)})")
    for tree in trees.values():
        write_bytecode(tree)
    print(f"first runs of {', '.join(map(str, trees.values()))} (median of {args.repeats} cold runs, each with an "
          "empty kernel cache; wall s, CPU s of the command and its compile process, warm wall s)")
    print(f"{'rule set':<18}" + "".join(f"{name + ' cold':>14}{'CPU':>7}{'warm':>7}" for name in COMMANDS))
    for game in games:
        runs = {label: {name: [] for name in COMMANDS} for label in trees}
        for _ in range(args.repeats):
            for name, table in COMMANDS.items():
                for label, tree in trees.items():
                    runs[label][name].append(cold_and_warm(table[game], tree))
        for label in trees:
            cells = ""
            for name in COMMANDS:
                got = runs[label][name]
                cells += "".join(f"{statistics.median(x[i] for x in got):>{w}.2f}" for i, w in ((0, 14), (1, 7), (2, 7)))
            print(f"{label + game:<18}{cells}", flush=True)
    print("commands: " + "; ".join(f"llamasim {' '.join(table[games[0]])}" for table in COMMANDS.values())
          + " (and the other rule sets' in benchmarks/first_run.py)")


if __name__ == "__main__":
    main()
