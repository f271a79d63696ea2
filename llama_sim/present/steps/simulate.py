"""The simulate step: the seats as listed; its answer is each seat's headline metric."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.simulate import simulate
from llama_sim.core.words import est, metric_words
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import (
    StepKind, ci_column, headline, headline_of, metric_keys, size,
)
from llama_sim.present.terms import metric_terms


def _run_simulate(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "seats"}
    return [simulate(spec.game, args["seats"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _conclude_simulate(results: list) -> str:
    df = results[0].results
    metric = headline(df.metric)
    g = df[df.metric == metric]
    n = len(g.seat.dropna().unique())
    return (f"{metric_words(metric).capitalize()} by seat at {n} players: " + "; ".join(
        f"seat {int(r.seat)} ({r.strategy}) {est(r.value, r.ci_low, r.ci_high)}" for r in g.dropna(subset=["seat"])
        .itertuples()) + ".")


def _method_simulate(args: dict, results: list) -> str:
    return f"The seats as listed, seat 0 starting the first round, {size(args, results)}."


def _pivot_metrics(df: pd.DataFrame, keys: list[str], metrics: list[str], extra=None) -> pd.DataFrame:
    """One row per ``keys``, one ``value [low, high]`` column per metric (in ``metrics`` order)."""
    base = df[df.metric == metrics[0]][keys].reset_index(drop=True)
    for m in metrics:
        g = df[df.metric == m].set_index(keys)
        rows = g.loc[[tuple(r) if len(keys) > 1 else r[0] for r in base.itertuples(index=False)]]
        base[metric_words(m)] = ci_column(rows.value, rows.ci_low, rows.ci_high)
        if extra is not None:
            extra(base, m, rows)
    return base


def _display_simulate(results: list) -> pd.DataFrame:
    df = results[0].results
    head = headline(df.metric)
    metrics = [head] + [m for m in dict.fromkeys(df.metric) if m != head]
    seated = df.dropna(subset=["seat"]).assign(seat=lambda d: d.seat.astype(int))
    return _pivot_metrics(seated, ["seat", "strategy"], metrics)


def _terms_simulate(results: list) -> list[str]:
    return ["interval"] + metric_terms(metric_keys(results[0].results))


KIND = StepKind(run=_run_simulate,
                tables=("results",), conclude=_conclude_simulate, display=_display_simulate,
                method=_method_simulate, answers_on=headline_of("results"), terms=_terms_simulate)
