"""The grade step: strategies' decisions valued against roll-outs of every legal action; its answer
is who loses the fewest and the most points."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.grade import grade
from llama_sim.core.words import est, thousands
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, scaled_key


def _run_grade(spec: Spec, args: dict, quiet: bool) -> list:
    return [grade(spec.game, seed=spec.seed, **args, **spec.options)]


def _conclude_grade(results: list) -> str:
    t = results[0].table
    pooled = t[(t.decision == "") & (t.metric == "points_lost_per_round")].sort_values("value")
    best, worst = pooled.iloc[0], pooled.iloc[-1]
    then = "" if len(pooled) < 3 else (f", then {pooled.iloc[1].strategy}'s, "
                                       f"{est(pooled.iloc[1].value, pooled.iloc[1].ci_low, pooled.iloc[1].ci_high)}")
    return (f"At {int(best.players)} players, against roll-outs of every legal action, {best.strategy}'s decisions "
            f"lose the fewest points, {est(best.value, best.ci_low, best.ci_high)} per round{then}; {worst.strategy}'s "
            f"lose the most, {est(worst.value, worst.ci_low, worst.ci_high)}.")


def _method_grade(args: dict, results: list) -> str:
    return (f"{thousands(args['decisions'])} decisions of each strategy at {args['players']} players, each valued "
            f"by {thousands(args['rollouts'])} roll-outs of every legal action.")


def _display_grade(results: list) -> pd.DataFrame:
    t = results[0].table
    pooled = t[t.decision == ""]
    rows = []
    for strategy, part in pooled.groupby("strategy", sort=False):
        by = {r.metric: r for r in part.itertuples()}
        rows.append({"strategy": strategy, "decisions": by["error_rate"].n, "_sort": by["points_lost_per_round"].value,
                     **{m.replace("_", " "): est(by[m].value, by[m].ci_low, by[m].ci_high)
                        for m in ("error_rate", "points_lost_per_decision", "points_lost_per_round")}})
    return pd.DataFrame(rows).sort_values("_sort").drop(columns="_sort").reset_index(drop=True)


def _terms_grade(results: list) -> list[str]:
    return ["interval", "roll-out", "points lost", "error rate"]


KIND = StepKind(run=_run_grade, tables=("table", "mistakes"), conclude=_conclude_grade, display=_display_grade,
                method=_method_grade, answers_on=lambda results: {"penalty_per_round"}, terms=_terms_grade,
                scale=scaled_key("decisions", 50))
