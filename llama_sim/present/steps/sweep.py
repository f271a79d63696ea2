"""The sweep step: one strategy over a grid of parameter values against fixed opponents; its answer
is the best value and the values that cannot be told apart from it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from llama_sim.analysis.sweep import sweep
from llama_sim.core.words import best_phrase, est_points, est_unit, listing, metric_words, more_or_less, separated
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, ci_column, size
from llama_sim.present.terms import metric_terms


def _run_sweep(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategy", "param")}
    return [sweep(spec.game, args["strategy"], args["param"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _conclude_sweep(results: list) -> str:
    r = results[0]
    best = r.best
    s = r.summary
    metric = r.headline
    cols = ["param_value", "param2_value"][:len(r.params)]
    where = ", ".join(f"{k} = {best[c]:g}" for k, c in zip(r.params, cols))
    n = int(r.results.players.iloc[0])
    rate = metric == "win_rate"  # in plain words: games in every 100, differences in percentage points
    value = (f"{est_points(metric, best.value, best.ci_low, best.ci_high)} of every 100 games" if rate else
             est_unit(metric, best.value, best.ci_low, best.ci_high))
    diff = est_points(metric, best["diff"], best.diff_ci_low, best.diff_ci_high, sign=True)
    text = f"At {n} players against {r.opponent}, {where} gives {best_phrase(metric)}: {value}, "
    if best["diff"] == best.diff_ci_low == best.diff_ci_high == 0:
        text += f"the same games as {r.opponent} to the last one (on these deals it never plays differently)"
    elif separated(best.diff_ci_low, best.diff_ci_high):
        text += (f"{diff} percentage points {'more' if best['diff'] > 0 else 'fewer'} than {r.opponent}" if rate else
                 more_or_less(metric, best["diff"], best.diff_ci_low, best.diff_ci_high, r.opponent, unit=False))
    else:
        text += (f"which the data do not separate from {r.opponent} ({diff}"
                 f"{' percentage points' if rate else ''})")
    near = s[s.near_best]
    if near.empty:
        text += "; every other value is clearly worse."
    elif len(r.params) == 1:
        values = [f"{v:g}" for v in near.param_value]
        text += f"; {r.params[0]} = {listing(values, 'or')} cannot be told apart from it."
    elif len(near) <= 3:
        settings = ["; ".join(f"{k} = {v:g}" for k, v in zip(r.params, row)) for row in near[cols].itertuples(index=False)]
        text += f"; {listing(settings, 'or')} cannot be told apart from it."
    else:
        text += f"; {len(near)} other settings cannot be told apart from it (see the table)."
    return text


def _method_sweep(args: dict, results: list) -> str:
    grid = "; ".join(f"{k} = {_values_text(v)}" for k, v in args["param"].items())
    vs = listing(args["vs"]) or "copies of itself"
    opponent = results[0].opponent
    return (f"{args['strategy']} with {grid} against {vs} at {args['players']} players, {size(args, results)} per value, "
            f"every value on the same deals. \"vs {opponent}\" is its value minus {opponent}'s at the same tables, "
            f"\"vs best\" its value minus the best value's.")


def _values_text(values: list) -> str:
    values = list(values)
    steps = {round(b - a, 9) for a, b in zip(values, values[1:])}
    if len(values) > 3 and len(steps) == 1:
        return f"{values[0]:g} to {values[-1]:g}"
    return listing([f"{v:g}" for v in values])


def _display_sweep(results: list) -> pd.DataFrame:
    r = results[0]
    s = r.summary
    out = {k: s[c] for k, c in zip(r.params, ("param_value", "param2_value"))}
    out[metric_words(r.headline)] = ci_column(s.value, s.ci_low, s.ci_high)
    out[f"vs {r.opponent}"] = ci_column(s["diff"], s.diff_ci_low, s.diff_ci_high, sign=True)
    out["vs best"] = ci_column(s.vs_best, s.vs_best_ci_low, s.vs_best_ci_high, sign=True)
    out["verdict"] = np.where(s.best, "best", np.where(s.near_best, "tied with best", ""))
    return pd.DataFrame(out)


def _terms_sweep(results: list) -> list[str]:
    r = results[0]
    return ["interval", "paired", "games" if r.headline == "win_rate" else "rounds"] + metric_terms([r.headline])


KIND = StepKind(run=_run_sweep, tables=("results", "summary"), conclude=_conclude_sweep,
                display=_display_sweep, method=_method_sweep, answers_on=lambda results: {results[0].headline},
                terms=_terms_sweep)
