"""The card step: the simplest quit rule that wins about as often as the full quit chart at one table;
its answer is the rule in a player's words and its measured cost."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.card import card
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, scaled_key


def _run_card(spec: Spec, args: dict, quiet: bool) -> list:
    return [card(spec.game, seed=spec.seed, **args)]


def _conclude_card(results: list) -> str:
    r = results[0]
    rule = " ".join(r.rule.lines(r.game))
    against = f" Against the chart, {r.vs_chart.words()}"
    if r.vs_strongest is not None:
        against += f"; against {r.strongest}, {r.vs_strongest.words()}"
    return f"At {r.players} players: {rule} {r.verdict()}{against}."


def _method_card(args: dict, results: list) -> str:
    r = results[0]
    return (f"{len(r.candidates)} rules of up to three parts, each played as the card strategy against the chart "
            f"strategy in {r.games:,} full games at {r.players} players; the simplest within half a percentage point "
            f"of the best kept, then measured on fresh games.")


def _display_card(results: list) -> pd.DataFrame:
    r = results[0]
    best = r.candidates.sort_values("vs_chart", ascending=False).groupby("level").head(1)
    return pd.DataFrame({"parts": best.level, "best rule of that size": best.rule,
                         "win rate minus chart's (search games)": [f"{100 * v:+.1f} pp" for v in best.vs_chart]})


KIND = StepKind(run=_run_card, tables=("candidates",), conclude=_conclude_card, display=_display_card,
                method=_method_card, answers_on=lambda results: {"win_rate"},
                terms=lambda results: ["interval", "paired", "win_rate"],
                scale=scaled_key("games", 100))
