"""What several step kinds share: the ``StepKind`` record each kind's module fills in, the helpers
their answers and tables use (the headline metric, a run's size in words, interval columns, where
points and wins disagree), a step's outcome and running a step once per value of its option grid."""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import pandas as pd

from llama_sim.core.commands import DEFAULT_ROUNDS
from llama_sim.core.words import est, listing, ordinal, thousands
from llama_sim.present import across
from llama_sim.present.spec import Spec, Step
from llama_sim.present.step_options import option_grid_points



def headline(metrics) -> str:
    """The metric a step's answer is about: win rate when games were played, else the first one."""
    metrics = list(dict.fromkeys(metrics))
    return "win_rate" if "win_rate" in metrics else metrics[0]


def headline_of(table: str) -> Callable[[list], set]:
    """``StepKind.answers_on`` for a kind whose answer is about the headline metric of its result's
    ``table``."""
    return lambda results: {headline(getattr(results[0], table).metric)}


def metric_keys(df: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(df.metric)) if "metric" in df else []


def size(args: dict, results: list = ()) -> str:
    """How much a step played, in words, for its method line (and whether its penalties were luck-adjusted:
    asked in ``args``, or the rule set's default, which its ``results`` record)."""
    if args.get("luck") or any(getattr(r, "run", {}).get("luck") == "on" for r in results):
        return played(args) + ", penalties luck-adjusted (each chance event's luck subtracted)"
    return played(args)


def played(args: dict) -> str:
    if "precision" in args:
        cap = f" (at most {thousands(args['max_rounds'])} rounds)" if "max_rounds" in args else ""
        return f"played until every interval's half-width is at most {args['precision']:g}{cap}"
    if "games" in args:
        return f"{thousands(args['games'])} full games"
    return f"{thousands(args.get('rounds', DEFAULT_ROUNDS))} single rounds"


def scaled(args: dict, scale: float) -> dict:
    """``--scale`` for a kind sized by rounds, games or a precision (the default: rounds)."""
    out = dict(args)
    for k in ("rounds", "games", "max_rounds"):
        if k in out:
            out[k] = max(1, math.ceil(out[k] * scale))
    if "precision" in out:
        out["precision"] = out["precision"] / math.sqrt(scale)
    if not any(k in out for k in ("rounds", "games", "precision")):
        out["rounds"] = max(1, math.ceil(DEFAULT_ROUNDS * scale))
    return out


def scaled_key(key: str, low: int) -> Callable[[dict, float], dict]:
    """``--scale`` for a kind sized by one count (``key``), never below ``low``."""
    def scaled_args(args: dict, scale: float) -> dict:
        return {**args, key: max(low, math.ceil(args[key] * scale))}

    return scaled_args


def ci_column(values, lows, highs, sign: bool = False) -> list[str]:
    """A column of ``value [low, high]``, each rounded as its own interval supports."""
    return [est(v, lo, hi, sign=sign) for v, lo, hi in zip(values, lows, highs)]


def disagreements(ranking: pd.DataFrame) -> list[str]:
    """Per player count: the strategy with the lowest penalty per round when another clearly wins more
    games (the data separate the two on both measures)."""
    if not {"penalty_per_round", "win_rate"} <= set(ranking.metric):
        return []
    out = []

    def tied(row) -> set:
        return set(filter(None, str(row.indistinguishable_from or "").split(", ")))

    for n, g in ranking.groupby("players", sort=False):
        points = g[g.metric == "penalty_per_round"].sort_values("rank")
        wins = g[g.metric == "win_rate"].sort_values("rank")
        low, lead = points.iloc[0], wins.iloc[0]
        if low.strategy == lead.strategy or low.strategy in tied(lead) or lead.strategy in tied(low):
            continue
        place = int(wins.strategy.tolist().index(low.strategy)) + 1
        out.append(f"at {n} players {low.strategy} has the lowest penalty per round, "
                   f"{est(low.value, low.ci_low, low.ci_high)}, but ranks {ordinal(place)} by win rate, "
                   f"behind {listing(wins.strategy.iloc[:place - 1].tolist())}")
    return out


@dataclass(frozen=True)
class StepKind:
    """One kind of step (its keys and checks are its command's declaration: ``present/spec.py``): its
    run, tables (name -> result attribute), the answer (one or two sentences derived from the data, each estimate with its interval), the compact
    table shown in the report, how the step measured (``method``, one line), the measures its answer
    speaks of (``answers_on``: penalty per round, win rate or both), the glossary terms its answer
    and table use, and where its points and win-rate rankings disagree. ``exact``: the kind computes
    without sampling, so it has no deals and no seed to report."""

    run: Callable
    tables: tuple[str, ...]
    conclude: Callable
    display: Callable
    method: Callable[[dict, list], str]
    answers_on: Callable[[list], set]
    terms: Callable[[list], list] = lambda results: ["interval"]
    plot_suffix: Callable[[Any], str] = lambda r: ""
    scale: Callable[[dict, float], dict] = scaled  # --scale
    sections: Callable[[list], list] = lambda results: []  # extra (title, text, table) sections of the report
    disagree: Callable[[list], list] = lambda results: []  # sentences: lowest penalty but not the most wins
    overview: Optional[Callable[[list], Any]] = None  # one figure of several results, drawn before their own
    exact: bool = False


@dataclass
class StepOutcome:
    step: Step
    results: list
    tables: dict[str, pd.DataFrame]
    conclusion: str
    display: pd.DataFrame
    seconds: float
    plots: list[str] = field(default_factory=list)  # plot files, relative to the report folder
    tags: list[dict] = field(default_factory=list)  # option grid: each result's option values
    details: list[str] = field(default_factory=list)  # option grid: each value's own conclusion
    summary: Any = None  # option grid: the ``llama_sim.present.across`` summary across the values
    args: dict = field(default_factory=dict)  # the arguments the step ran with (after --scale)


def tag_text(tag: dict, sep: Optional[str] = None) -> str:
    """``dice layout 13-25-46`` for a sentence; with ``sep`` only the values (``13-25-46``), for a file name."""
    if sep is not None:
        return sep.join("".join(c if c.isalnum() or c in "-." else "_" for c in str(v)) for v in tag.values())
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in tag.items())


def _tagged(df: pd.DataFrame, tag: dict) -> pd.DataFrame:
    """``df`` with the grid point's option values as leading columns (unless it has them already)."""
    new = {k: v for k, v in tag.items() if k not in df.columns}
    return df.assign(**new)[[*new, *df.columns]]


def run_option_grid(spec: Spec, step: Step, entry: StepKind, scale: float, quiet: bool, started: float) -> StepOutcome:
    """Run the step once per grid point, each on its own deals (seed + index), tag every table with
    the point's option values and summarise across the points (``llama_sim.present.across``)."""
    results, tags, details, displays = [], [], [], []
    args = entry.scale(step.args, scale)
    for i, point in enumerate(option_grid_points(step)):
        if not quiet:
            print(f"llamasim:   {tag_text(point)}", file=sys.stderr, flush=True)
        options = {**step.options, **point}
        got = entry.run(replace(spec, options=options, seed=spec.seed + i), args, quiet)
        results += got
        tags += [point] * len(got)
        seed = "" if entry.exact else f" (seed {spec.seed + i})"
        details.append(f"{tag_text(point)}{seed}: {entry.conclude(got)}")
        displays.append(_tagged(entry.display(got), point))
    seconds = time.perf_counter() - started
    tables = {t: pd.concat([_tagged(getattr(r, t), tag) for r, tag in zip(results, tags)], ignore_index=True)
              for t in entry.tables}
    summary = across.summarise(step.kind, results, tags)
    if summary is None:
        return StepOutcome(step, results, tables, " ".join(details), pd.concat(displays, ignore_index=True), seconds,
                           tags=tags, args=args)
    tables.update(summary.tables)
    return StepOutcome(step, results, tables, summary.sentence, summary.display, seconds, tags=tags, details=details,
                       summary=summary, args=args)
