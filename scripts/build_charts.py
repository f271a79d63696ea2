"""Rebuild the quit charts bundled with the package (``llama_sim/rulesets/<game>/chart.json``).

    python scripts/build_charts.py lama --policy smart --measure win --games 40000 --seed 1
    python scripts/build_charts.py party --policy chain --measure win --games 15000 --seed 1
    python scripts/build_charts.py dice --measure win --games 10000 --seed 1
    python scripts/build_charts.py kadabra --measure win --games 30000 --seed 1

One table per player count: the opponent chart (hand points x the smallest hand of an opponent
still in, one-card bins up to 13), or with ``--feature pile`` the pile chart (dice: row points x the
cards left in the llama row), valued by the win measure. The ``chart`` strategy of the
rule set plays the file; the module docstring of ``llama_sim.chart`` says how a chart is valued.
"""
import argparse
import time
from pathlib import Path

from llama_sim.analysis.chart import chart_games, write_chart_file
from llama_sim.core.ruleset import get_game

parser = argparse.ArgumentParser()
parser.add_argument("game", choices=sorted(chart_games()))
parser.add_argument("--policy", default=None)
parser.add_argument("--games", type=int, default=200_000)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--measure", default="win", choices=["own", "relative", "win"])
parser.add_argument("--feature", default="opponent", choices=["opponent", "pile"])
parser.add_argument("--out", default=None, help="write here instead of llama_sim/rulesets/<game>/chart.json")
parser.add_argument("--players", default=None, help="comma-separated (default: every count the rule set allows)")
args = parser.parse_args()
spec = get_game(args.game)
players = ([int(p) for p in args.players.split(",")] if args.players
           else list(range(spec.min_players, spec.max_players + 1)))
out = Path(args.out) if args.out else Path(__file__).resolve().parent.parent / "llama_sim" / "rulesets" / args.game / "chart.json"
start = time.perf_counter()
doc = write_chart_file(args.game, players, out, args.policy, args.games, args.seed, measure=args.measure,
                       feature=args.feature)
print(f"wrote {out} ({doc['policy']}, {args.measure}, {args.feature} chart, players {players}, {args.games} games each, seed {args.seed}) "
      f"in {time.perf_counter() - start:.0f} s")
