"""Throughput of every kernel against its reference engine, and warm CLI latency, in one run.

    python benchmarks/bench_all.py [--rounds 2000000] [--reference-rounds 2000]

Reports rounds/s on 1 and on all threads, the reference engine's rounds/s on the same deals and
policies, their ratio, whether the two engines' sums agree, and the wall time of a warm
``llamasim compare`` of 100,000 rounds (budget: under 3 s). Figures are printed, never asserted:
timings on a shared machine are noisy, so compare ratios taken in one run.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time

import pandas as pd

from llama_sim.analysis.bench import bench_game
from llama_sim.core.ruleset import all_games

WARM_COMPARE = ["llamasim", "compare", "--game", "lama", "greedy", "threshold", "--rounds", "100000", "-q"]


def warm_cli_seconds(repeats: int = 3) -> float:
    subprocess.run(WARM_COMPARE, check=True, capture_output=True)  # compile once / fill the cache
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(WARM_COMPARE, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2_000_000)
    parser.add_argument("--reference-rounds", type=int, default=2_000)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    rows = [bench_game(game, args.rounds, args.reference_rounds, args.threads) for game in all_games().values()]
    pd.set_option("display.width", 200)
    print(pd.DataFrame(rows).to_string(index=False))
    print(f"\nwarm `{' '.join(WARM_COMPARE)}`: {warm_cli_seconds():.2f} s (best of 3)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
