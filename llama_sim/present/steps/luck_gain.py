"""The luck_gain step: a comparison on the same deals with luck adjustment off and on; its answer is how
many times fewer games the adjusted comparison needs, and whether both estimates agree."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.luck import luck_gain
from llama_sim.core.words import est, listing
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, ci_column, size


def _run_luck_gain(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [luck_gain(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _conclude_luck_gain(results: list) -> str:
    g = results[0].gains
    parts = []
    for r in g.itertuples():
        agree = r.luck_gap_ci_low <= 0 <= r.luck_gap_ci_high
        parts.append(f"at {r.players} players, {r.strategy_a} vs {r.strategy_b}: half-width x{1 / r.half_width_ratio:.2f} "
                     f"({r.games_saved:.2f} times fewer games for the same precision), the estimates "
                     + ("agree" if agree else "differ") + f" (luck gap {est(r.luck_gap, r.luck_gap_ci_low, r.luck_gap_ci_high, sign=True)})")
    return "Luck adjustment " + listing(parts) + "."


def _method_luck_gain(args: dict, results: list) -> str:
    return (f"{listing(args['strategies'])} in compare's balanced design, {size(args)} per player count, each "
            "played twice on the same seed (the same deals, draws and rolls): with luck adjustment off and on.")


def _display_luck_gain(results: list) -> pd.DataFrame:
    g = results[0].gains
    return pd.DataFrame({
        "players": g.players, "pair": g.strategy_a + " vs " + g.strategy_b,
        "plain": ci_column(g.plain, g.plain_ci_low, g.plain_ci_high, sign=True),
        "adjusted": ci_column(g.adjusted, g.adjusted_ci_low, g.adjusted_ci_high, sign=True),
        "half-width ratio": g.half_width_ratio.round(2), "games saved": g.games_saved.round(2),
        "luck gap (bias check)": ci_column(g.luck_gap, g.luck_gap_ci_low, g.luck_gap_ci_high, sign=True),
        "CPU µs per play, off / on": [f"{a:.2f} / {b:.2f}" for a, b in zip(g.cpu_us_off, g.cpu_us_on)]})


KIND = StepKind(run=_run_luck_gain, tables=("gains",), conclude=_conclude_luck_gain, display=_display_luck_gain,
                method=_method_luck_gain, answers_on=lambda results: {"penalty_per_round"},
                terms=lambda results: ["interval"])
