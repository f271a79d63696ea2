"""What the expert's stop rule costs and loses: its variants replayed on the same roll-outs.

    python benchmarks/expert_stop_rules.py [--game lama] [--players 4] [--decisions 300]

Decisions are recorded from the base strategy's self-play (as ``benchmarks/expert.py``). Each gets 256
roll-out samples of every legal action (``EXPERT_SEARCH.values``, the expert's own roll-outs) and 256
more on another stream to value them. Every variant of the stop rule is replayed on the first set (the
samples it would have drawn, in order) and reports its cost in samples of every action (a sample of an
action dropped by elimination is not drawn), how often it ran to the cap, and its regret: the
valuing samples' mean of the action it chose less the best valuing mean, per decision, in points (the
expert's edge over its base is a few tenths of a point per round). The replay is exact for the rule
``core.expert`` compiles: a column's values do not depend on the other columns sampled.
"""
from __future__ import annotations

import argparse
import importlib

import numpy as np

from llama_sim.analysis.grade import record_decisions
from llama_sim.core import registry
from llama_sim.core.ruleset import get_game

CAP = 256
# name: (z, indifference in points, successive elimination, first check, check every, cap)
VARIANTS = {
    "plain (z 2, from 16 every 8)": (2.0, 0.0, False, 16, 8, CAP),
    "elimination": (2.0, 0.0, True, 16, 8, CAP),
    "elimination, indifference 0.05 (expert)": (2.0, 0.05, True, 16, 8, CAP),
    "elimination, indifference 0.1": (2.0, 0.1, True, 16, 8, CAP),
    "elimination, from 8 every 4": (2.0, 0.0, True, 8, 4, CAP),
    "elimination, cap 128": (2.0, 0.0, True, 16, 8, 128),
}


def replay(values: np.ndarray, z: float, indifference: float, eliminate: bool, first: int, every: int,
           cap: int) -> tuple[int, float, bool]:
    """(chosen column, samples of every action it cost, ran to the cap) of one variant on ``values``."""
    k = values.shape[1]
    live = list(range(k))
    cost = 0
    done = 0
    for i in range(cap):
        cost += len(live)
        done = i + 1
        if done < first or done % every:
            continue
        sums = values[:done].sum(0)
        best = min(live, key=lambda c: sums[c])
        settled, kept = True, []
        for c in live:
            if c != best:
                d = values[:done, c] - values[:done, best]
                se = np.sqrt(d.var(ddof=1) / done)
                if d.mean() > z * se and eliminate:
                    continue
                if d.mean() + indifference <= z * se:
                    settled = False
            kept.append(c)
        if settled:
            return best, cost / k, False
        live = kept
    sums = values[:done].sum(0)
    return min(live, key=lambda c: sums[c]), cost / k, True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="lama")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--decisions", type=int, default=300)
    args = ap.parse_args()
    expert = registry.at_table(registry.parse_spec(args.game, "expert"), args.players)
    search = importlib.import_module(expert.strategy.source).EXPERT_SEARCH
    base_index = int(expert.params[2])
    base = registry.at_table(registry.parse_spec(args.game, search.bases[base_index]), args.players)
    found, _ = record_decisions(args.game, base, args.players, args.decisions, 1, get_game(args.game).config())
    distinct = getattr(importlib.import_module(f"llama_sim.rulesets.{args.game}.expert"), "distinct_actions",
                       None) if args.game == "dice" else None
    rows = {name: [] for name in VARIANTS}
    for d in found:
        legal = int(distinct(d.obs, np.int64(d.legal))) if distinct else d.legal
        k = bin(legal).count("1")
        if k == 1:
            continue
        chosen, valued = np.zeros((CAP, k)), np.zeros((CAP, k))
        search.values(d.obs, d.hand, np.int64(legal), np.uint64(12345), CAP, 1, base_index, chosen)
        search.values(d.obs, d.hand, np.int64(legal), np.uint64(999), CAP, 1, base_index, valued)
        truth = valued.mean(0)
        for name, variant in VARIANTS.items():
            c, cost, capped = replay(chosen, *variant)
            rows[name].append((cost, capped, truth[c] - truth.min()))
    plain = np.mean([r[0] for r in rows[next(iter(VARIANTS))]])
    print(f"{args.game}, {args.players} players, {len(rows[next(iter(VARIANTS))])} decisions with a choice")
    for name, got in rows.items():
        a = np.array(got)
        print(f"  {name:42s} cost {a[:, 0].mean():6.1f} samples ({plain / a[:, 0].mean():.2f}x fewer), "
              f"to the cap {a[:, 1].mean():.2f}, regret {a[:, 2].mean():.4f} points per decision")


if __name__ == "__main__":
    main()
