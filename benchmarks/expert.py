"""The expert's cost per rule set and roll-out budget: decisions per second (the compiled policy
timed on decisions its base strategy meets in self-play) and rounds per second (a compare of one
expert against its base strategy's seats, one thread).

    python benchmarks/expert.py [--players 4] [--budgets 16,64,256] [--rounds 2000] [--decisions 300]
                                [--games lama,party,kadabra,dice]

Run it alone on the machine: the figures are CPU time per core.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import llama_sim
from llama_sim.analysis.grade import record_decisions
from llama_sim.core import registry
from llama_sim.core.ruleset import game_names, get_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--budgets", default="16,64,256")
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--decisions", type=int, default=300)
    ap.add_argument("--games", default=",".join(game_names()))
    args = ap.parse_args()
    n = args.players
    rows = []
    for game in args.games.split(","):
        try:
            expert = registry.at_table(registry.parse_spec(game, "expert"), n)
        except llama_sim.core.errors.UsageError:
            continue
        base_index = int(expert.params[2])
        search = __import__(expert.strategy.source, fromlist=["EXPERT_SEARCH"]).EXPERT_SEARCH
        base = registry.at_table(registry.parse_spec(game, search.bases[base_index]), n)
        found, _ = record_decisions(game, base, n, args.decisions, 1, get_game(game).config())
        for budget in (int(b) for b in args.budgets.split(",")):
            player = registry.at_table(registry.parse_spec(game, f"expert:rollouts={budget}"), n)
            policy = player.strategy.policy
            rng = np.array([1, 2], np.uint64)
            policy(found[0].obs, found[0].hand, np.int64(found[0].legal), player.params, rng)  # compile or load
            t0 = time.process_time()
            for d in found:
                policy(d.obs, d.hand, np.int64(d.legal), player.params, rng)
            per_decision = (time.process_time() - t0) / len(found)
            res = llama_sim.compare(game, [f"expert:rollouts={budget}", base.label], players=n, rounds=args.rounds,
                                    seed=1, threads=1, quiet=True)
            rate = res.run["tables"][0]["rounds_per_second"]
            rows.append((game, budget, base.label, 1 / per_decision, rate))
            print(f"{game:8s} rollouts {budget:4d} (base {base.label}): {1 / per_decision:9.0f} decisions/s, "
                  f"{rate:7.0f} rounds/s (half the {n} seats expert, 1 thread)", flush=True)


if __name__ == "__main__":
    main()
