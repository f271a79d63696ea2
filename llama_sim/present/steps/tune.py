"""The tune step: a race of a strategy's parameter values, then the pick against the start on fresh
deals; its answer is the pick and its edge."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.tune import tune
from llama_sim.core.words import est, leads, metric_words, separated, thousands
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, ci_column, scaled_key
from llama_sim.present.terms import metric_terms


def _run_tune(spec: Spec, args: dict, quiet: bool) -> list:
    return [tune(spec.game, seed=spec.seed, **args, **spec.options)]


def _conclude_tune(results: list) -> str:
    r = results[0]
    s = r.summary()
    vs = ", ".join(dict.fromkeys(str(r.vs).split(",")))
    pick = s["pick"].partition(":")[2] or s["pick"]
    head = f"Tuning {r.strategy} at {r.players} players against {vs} picks {pick} (start: {s['start']})"
    lo, hi = s["edge_ci_low"], s["edge_ci_high"]
    if r.verdict == "same parameters":
        return f"{head}: the start stays."
    if not separated(lo, hi):
        return (f"{head}; on fresh deals the data do not separate the pick from the start "
                f"({est(s['edge'], lo, hi, sign=True)} {metric_words(r.metric)}).")
    return f"{head}; on fresh deals {leads(r.metric, 'the pick', 'the start', s['edge'], lo, hi)}."


def _method_tune(args: dict, results: list) -> str:
    r = results[0]
    return (f"A race of {r.strategy}'s parameter values on common deals ({thousands(args['budget'])} rounds' worth "
            f"in all), then the pick against the start on fresh deals.")


def _display_tune(results: list) -> pd.DataFrame:
    r = results[0]
    f = r.final
    return pd.DataFrame({"": f.iloc[:, 0] if "which" not in f else f.which, "parameters": f.params,
                         metric_words(r.metric): ci_column(f.value, f.ci_low, f.ci_high),
                         "vs start": ci_column(f.diff_vs_start, f.diff_ci_low, f.diff_ci_high, sign=True)})


def _terms_tune(results: list) -> list[str]:
    return ["interval", "paired", "tune"] + metric_terms([results[0].metric])


KIND = StepKind(run=_run_tune, tables=("final", "candidates", "race"), conclude=_conclude_tune,
                display=_display_tune, method=_method_tune, answers_on=lambda results: {results[0].metric},
                terms=_terms_tune, scale=scaled_key("budget", 2000))
