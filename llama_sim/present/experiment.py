"""Experiment specs (TOML) and the reports they produce (``llamasim run SPEC``).

A spec holds a question in words and the steps that answer it::

    name = "lama-quit"                      # optional: the file name without .toml
    question = "When should a L.A.M.A. player stop drawing and quit?"
    game = "lama"
    seed = 1
    # options = { dice_layout = "12-34-56" }  (dice) or { deck_file = "symbols.toml" } (kadabra)
    # defaults for every step: players, rounds | games | precision (+ max_rounds)

    [[steps]]
    kind = "compare"                        # compare | league | seat_table | sweep | solve | simulate
    strategies = ["smart", "threshold", "greedy"]   # or "all": every built-in strategy
    players = [3, 4, 5, 6]                  # one comparison per count
    games = 20000

    [[steps]]
    kind = "league"                         # every line-up of N of the strategies, N = each count
    strategies = "all"                      # the default
    players = [2, 3, 4, 5, 6]               # the default: every count the rule set allows
    games = 200000                          # in all per player count, spread over the line-ups

    [[steps]]
    kind = "sweep"
    strategy = "threshold"
    grid = { quit_at = "0:14:1" }           # "lo:hi:step" or a list of values; two keys: a 2-D grid
    vs = ["greedy"]
    players = 4
    rounds = 200000

The whole spec is validated before anything runs: an unknown key, a wrong type, an unknown
strategy or parameter, a bad grid, a player count the rule set does not allow: one error naming
the key (``steps[2].grid.quit_at: ...``), exit status 2.

``run_experiment`` runs the steps through the API (``llama_sim.api``) and writes the report folder
(default ``reports/<name>/``): ``tables/`` (CSV and Parquet of every table), ``plots/`` (PNG and
SVG), ``report.md``, ``report.html`` (self-contained: plots embedded) and ``run.json`` (command,
seed, package version, git commit, rule-set options, timings). ``scale`` multiplies every rounds,
games and max_rounds count (precision targets are widened by ``1/sqrt(scale)``), for a quick look.
The same spec and seed give identical tables. Each step states its conclusion in one sentence,
derived from the data, with its interval.

Rule-set options per step: ``options = { dice_layout = "13-25-46" }`` on a step overrides the
spec's ``options`` for that step; ``option_grid = { dice_layout = "all" }`` (or a list of values)
runs the step once per value (``"all"``: every value the rule set names, e.g. the 15 dice layouts).
Each value plays its own deals (seed, seed + 1, ... in grid order), so the runs are independent: the
step's tables gain a column per grid key, and its conclusion and summary table across the values
(``llama_sim.present.across``) compare values with unpaired intervals.

Step kinds are a table (``STEP_KINDS``): a kind names its keys and its run, table, conclusion and
display functions and how ``--scale`` applies to it, so a new kind is one entry.
"""
from __future__ import annotations

import base64
import html
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from llama_sim.analysis.advise import advise
from llama_sim.analysis.chart import chart
from llama_sim.analysis.compare import (
    DEFAULT_ROUNDS, MAX_SWEEP_GRID, compare, game_options, seat_table, simulate, solve, sweep, sweep_values,
)
from llama_sim.analysis.league import league
from llama_sim.analysis.tune import tune
from llama_sim.core.advice import advice_of
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import solvable_names
from llama_sim.core.output import ci_text as _ci

TOP_KEYS = {"name", "question", "game", "seed", "options", "strategies_file", "steps",
            "players", "rounds", "games", "precision", "max_rounds"}
COUNT_KEYS = ("rounds", "games", "precision", "max_rounds")

class SpecError(UsageError):
    """A spec problem: ``<file>: <key>: <problem>``."""


# ------------------------------------------------------------------------------------ spec

@dataclass
class Step:
    kind: str
    name: str
    title: str
    args: dict  # validated API keyword arguments (before scaling)
    options: Optional[dict] = None  # the step's rule-set options (None: the spec's)
    option_grid: dict = field(default_factory=dict)  # option -> values: one run per value


@dataclass
class Spec:
    name: str
    question: str
    game: str
    seed: int
    options: dict
    steps: list[Step]
    source: str  # the spec file (or "<dict>")
    raw: dict = field(repr=False, default_factory=dict)
    strategies_file: Optional[Path] = None


def _type_name(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


class _Checker:
    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, problem: str):
        raise SpecError(f"{self.source}: {key}: {problem}")

    def string(self, key: str, value) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, not {_type_name(value)}")
        if not value.strip():
            self.fail(key, "must not be empty")
        return value

    def integer(self, key: str, value, low: int = 1) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, not {_type_name(value)}")
        if value < low:
            self.fail(key, f"must be at least {low}, not {value}")
        return value

    def number(self, key: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"must be a number, not {_type_name(value)}")
        if not (math.isfinite(value) and value > 0):
            self.fail(key, f"must be a positive number, not {value}")
        return float(value)

    def finite(self, key: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(key, f"must be a finite number, not {value!r}")
        return float(value)

    def boolean(self, key: str, value) -> bool:
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, not {_type_name(value)}")
        return value

    def strings(self, key: str, value, allow_one: bool = True) -> list[str]:
        if isinstance(value, str) and allow_one:
            return [self.string(key, value)]
        if not isinstance(value, list) or not value:
            self.fail(key, f"must be a non-empty list of strings, not {_type_name(value)}")
        return [self.string(f"{key}[{i}]", v) for i, v in enumerate(value)]

    def player_counts(self, key: str, value, game, allow_list: bool = True) -> list[int]:
        values = value if (isinstance(value, list) and allow_list) else [value]
        if isinstance(value, list) and not value:
            self.fail(key, "must not be an empty list")
        counts = []
        for i, v in enumerate(values):
            k = f"{key}[{i}]" if isinstance(value, list) else key
            self.integer(k, v)
            if not game.min_players <= v <= game.max_players:
                self.fail(k, f"{game.name} is played by {game.min_players} to {game.max_players} players, not {v}")
            counts.append(v)
        return counts

    def unknown(self, where: str, given: dict, allowed) -> None:
        for key in given:
            if key not in allowed:
                self.fail(f"{where}{key}", f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _strategies(check: _Checker, key: str, value, game) -> list[str]:
    from llama_sim.core import registry

    if value == "all":  # the built-in strategies only, never ones a strategies file added
        return registry.builtin_strategies(game.name)
    names = check.strings(key, value)
    for i, s in enumerate(names):
        try:
            registry.parse_spec(game.name, s)
        except UsageError as exc:
            check.fail(f"{key}[{i}]" if isinstance(value, list) else key, str(exc))
    return names


def _counts(check: _Checker, where: str, step: dict, defaults: dict) -> dict:
    """rounds | games | precision (+ max_rounds) of a step, else of the spec's defaults."""
    own = {k: step[k] for k in COUNT_KEYS if k in step}
    source = own if own else {k: defaults[k] for k in COUNT_KEYS if k in defaults}
    prefix = where if own else ""
    out = {}
    if "rounds" in source and "games" in source:
        check.fail(f"{prefix}games", "give rounds or games, not both")
    for k in ("rounds", "games", "max_rounds"):
        if k in source:
            out[k] = check.integer(f"{prefix}{k}", source[k])
    if "precision" in source:
        out["precision"] = check.number(f"{prefix}precision", source["precision"])
    if "max_rounds" in out and "precision" not in out:
        check.fail(f"{prefix}max_rounds", "applies only with precision")
    return out


def _players(check: _Checker, where: str, step: dict, defaults: dict, game, every: bool,
             allow_list: bool = True) -> list[int]:
    """players of a step, else of the spec's defaults, else every count the game allows (``every``)
    or one table of 4 (within the game's range)."""
    default = (list(range(game.min_players, game.max_players + 1)) if every
               else min(max(4, game.min_players), game.max_players))
    players = step.get("players", defaults.get("players", default))
    return check.player_counts(f"{where}players" if "players" in step else "players", players, game,
                               allow_list=allow_list)


def _metrics(check: _Checker, key: str, value, games_mode: bool) -> list[str]:
    from llama_sim.run.simulate import compared_metrics

    names = check.strings(key, value)
    try:
        compared_metrics(games_mode, names)
    except UsageError as exc:
        check.fail(key, str(exc).replace("--metric ", "metric "))
    return names


def _grid(check: _Checker, key: str, value, strategy: str, game) -> dict[str, list[float]]:
    from llama_sim.core import registry

    if not isinstance(value, dict) or not value:
        check.fail(key, f"must be a table of parameter ranges, e.g. {{ quit_at = \"0:14:1\" }}, not {_type_name(value)}")
    if len(value) > 2:
        check.fail(key, f"sweeps one or two parameters, not {len(value)}")
    base = registry.parse_spec(game.name, strategy)
    params = {p.name: p for p in base.strategy.params}
    grid = {}
    for name, spec in value.items():
        k = f"{key}.{name}"
        if name not in params:
            check.fail(k, f"{game.name} strategy '{base.strategy.name}' has no parameter '{name}' "
                          f"(parameters: {', '.join(params) or 'none'})")
        if isinstance(spec, str):
            try:
                _, values = sweep_values(f"{name}={spec}")
            except UsageError as exc:
                check.fail(k, str(exc).replace(f"--param '{name}={spec}'", f"'{spec}'"))
            values = [float(v) for v in values]
        elif isinstance(spec, list) and spec:
            values = [check.finite(f"{k}[{i}]", v) for i, v in enumerate(spec)]
            if len(set(values)) != len(values):
                check.fail(k, "lists a value twice")
        else:
            check.fail(k, f"must be \"lo:hi:step\" or a non-empty list of numbers, not {_type_name(spec)}")
        p = params[name]
        for v in values:
            if not p.low <= v <= p.high:
                check.fail(k, f"value {v:g} is outside [{p.low:g}, {p.high:g}]")
        grid[name] = values
    size = int(np.prod([len(v) for v in grid.values()]))
    if size > MAX_SWEEP_GRID:
        check.fail(key, f"has {size} points; at most {MAX_SWEEP_GRID}")
    return grid


# per kind: allowed keys and a validator returning the API keyword arguments
def _check_compare(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    games_mode = "games" in args
    if "strategies" not in step:
        check.fail(f"{where}strategies", "is required")
    strategies = _strategies(check, f"{where}strategies", step["strategies"], game)
    if len(strategies) < 2:
        check.fail(f"{where}strategies", "compare needs at least two strategies")
    counts = _players(check, where, step, defaults, game, every=False)
    for n in counts:
        if len(strategies) > n:
            check.fail(f"{where}players", f"{len(strategies)} strategies do not fit {n} seats")
    if "metrics" in step:
        args["metrics"] = _metrics(check, f"{where}metrics", step["metrics"], games_mode)
    return {**args, "strategies": strategies, "players": counts}


def _check_league(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    if "precision" in args:
        check.fail(f"{where}precision" if "precision" in step else "precision", "a league takes rounds or games")
    key = f"{where}strategies"
    strategies = _strategies(check, key, step.get("strategies", "all"), game)
    if len(strategies) < 2:
        check.fail(key, "a league needs at least two strategies")
    for i, name in enumerate(strategies):
        if name in strategies[:i]:
            check.fail(f"{key}[{i}]", f"'{name}' is listed twice")
    counts = _players(check, where, step, defaults, game, every=True)
    if "metrics" in step:
        args["metrics"] = _metrics(check, f"{where}metrics", step["metrics"], "games" in args)
    return {**args, "strategies": strategies, "players": counts}


def _check_seat_table(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    if "strategies" not in step:
        check.fail(f"{where}strategies", "is required")
    strategies = _strategies(check, f"{where}strategies", step["strategies"], game)
    counts = _players(check, where, step, defaults, game, every=True)
    if "metrics" in step:
        args["metrics"] = _metrics(check, f"{where}metrics", step["metrics"], "games" in args)
    return {**args, "strategies": strategies, "players": counts}


def _check_sweep(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    if "precision" in args:
        check.fail(f"{where}precision" if "precision" in step else "precision", "sweep takes rounds or games")
    for key in ("strategy", "grid"):
        if key not in step:
            check.fail(f"{where}{key}", "is required")
    strategy = _strategies(check, f"{where}strategy", check.string(f"{where}strategy", step["strategy"]), game)[0]
    grid = _grid(check, f"{where}grid", step["grid"], strategy, game)
    vs = _strategies(check, f"{where}vs", step["vs"], game) if "vs" in step else []
    (n,) = _players(check, where, step, defaults, game, every=False, allow_list=False)
    if 1 + max(1, len(vs)) > n:
        check.fail(f"{where}vs", f"{1 + len(vs)} strategies do not fit {n} seats")
    return {**args, "strategy": strategy, "param": grid, "vs": vs, "players": n}


def _check_solve(check, where, step, spec, defaults, game) -> dict:
    if game.exact_solver is None:
        check.fail(f"{where}kind", f"solve has an exact solver for {' and '.join(solvable_names())} only, "
                                   f"not {game.name}")
    args = {}
    if "row" in step:
        args["row"] = check.string(f"{where}row", step["row"])
    if "llama_row" in step:
        args["llama_row"] = check.string(f"{where}llama_row", step["llama_row"])
    args["table"] = check.boolean(f"{where}table", step.get("table", "row" not in step))
    if "row" not in args and not args["table"]:
        check.fail(f"{where}row", "give a row, or table = true for every row")
    from llama_sim.rulesets.dice import parse_solo_position

    try:
        parse_solo_position(args.get("row"), args.get("llama_row", "1 2 3 4 5 6 L"))
    except (UsageError, ValueError) as exc:
        check.fail(f"{where}row", str(exc))
    return args


def _check_simulate(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    if "precision" in args:
        check.fail(f"{where}precision" if "precision" in step else "precision", "simulate takes rounds or games")
    if "seats" not in step:
        check.fail(f"{where}seats", "is required")
    seats = _strategies(check, f"{where}seats", step["seats"], game)
    if not game.min_players <= len(seats) <= game.max_players:
        check.fail(f"{where}seats", f"{game.name} is played by {game.min_players} to {game.max_players} players, "
                                    f"not {len(seats)}")
    return {**args, "seats": seats}


ADVISE_POSITION_KEYS = ("hand", "top", "hand_sizes", "quit", "pile", "discard", "scores", "ones", "tens", "magic",
                        "stage", "show", "row", "llama_row", "rows")


def _check_advise(check, where, step, spec, defaults, game) -> dict:
    """The position's keys are ``llamasim advise``'s options (TOML strings, numbers or lists), checked
    by the advisor's own parser; the roll-out settings as in the command."""
    from llama_sim.analysis.advise import make_position

    position = {k: step[k] for k in ADVISE_POSITION_KEYS if k in step}
    try:
        rule_options = spec.get("options", {})  # a deck file changes the cards a position may hold
        counts = advice_of(game).deck_counts(game.config(**rule_options)) if rule_options else None
        make_position(game.name, deck_counts=counts, **position)
    except (UsageError, ValueError, TypeError) as exc:
        check.fail(f"{where}position", str(exc))
    args: dict = {"position": position}
    if "policy" in step:
        args["policy"] = _strategies(check, f"{where}policy", check.string(f"{where}policy", step["policy"]), game)[0]
    if "opponents" in step:
        args["opponents"] = _strategies(check, f"{where}opponents", step["opponents"], game)
    if "horizon" in step:
        args["horizon"] = check.string(f"{where}horizon", step["horizon"])
        if args["horizon"] not in ("round", "game"):
            check.fail(f"{where}horizon", f"use round or game, not '{args['horizon']}'")
    if "rollouts" in step:
        args["n_rollouts"] = check.integer(f"{where}rollouts", step["rollouts"])
    if "precision" in step:
        args["precision"] = check.finite(f"{where}precision", step["precision"])
        if args["precision"] <= 0:
            check.fail(f"{where}precision", "must be positive")
    if "max_rollouts" in step:
        args["max_rollouts"] = check.integer(f"{where}max_rollouts", step["max_rollouts"])
    return args


def _check_chart(check, where, step, spec, defaults, game) -> dict:
    from llama_sim.analysis.chart import MEASURES, chart_games

    if game.chart is None:
        check.fail(f"{where}kind", f"quit charts exist for {', '.join(chart_games())}, not {game.name}")
    (n,) = _players(check, where, step, defaults, game, every=False, allow_list=False)
    args: dict = {"players": n, "games": check.integer(f"{where}games", step.get("games", 20_000))}
    if "policy" in step:
        args["policy"] = _strategies(check, f"{where}policy", check.string(f"{where}policy", step["policy"]), game)[0]
    if "measure" in step:
        args["measure"] = check.string(f"{where}measure", step["measure"])
        if args["measure"] not in MEASURES:
            check.fail(f"{where}measure", f"use {', '.join(MEASURES)}, not '{args['measure']}'")
    return args


def _check_tune(check, where, step, spec, defaults, game) -> dict:
    if "strategy" not in step:
        check.fail(f"{where}strategy", "is required")
    strategy = _strategies(check, f"{where}strategy", check.string(f"{where}strategy", step["strategy"]), game)[0]
    (n,) = _players(check, where, step, defaults, game, every=False, allow_list=False)
    args: dict = {"strategy": strategy, "players": n,
                  "budget": check.integer(f"{where}budget", step.get("budget", 200_000), low=1000)}
    vs = step.get("vs", "self")
    if vs != "self":
        args["vs"] = ",".join(_strategies(check, f"{where}vs", vs, game))
    if "metric" in step:
        args["metric"] = check.string(f"{where}metric", step["metric"])
        if args["metric"] not in ("win_rate", "penalty_per_round"):
            check.fail(f"{where}metric", f"use win_rate or penalty_per_round, not '{args['metric']}'")
    return args


# ------------------------------------------------------------------------------------ per-step options

STEP_OPTION_KEYS = frozenset({"options", "option_grid"})


def all_option_values(game, key: str) -> Optional[list]:
    """What ``option_grid = { key = "all" }`` means: every value a rule set names for the option."""
    values = game.option_values.get(key)
    return list(values) if values is not None else None


def _option_value(check: _Checker, key: str, value):
    if isinstance(value, str):
        return check.string(key, value)
    if not isinstance(value, (bool, int, float)):
        check.fail(key, f"must be a string, not {_type_name(value)}")
    return value


def _step_options(check: _Checker, where: str, step: dict, spec_options: dict, folder: Path,
                  game) -> tuple[Optional[dict], dict]:
    """A step's ``options`` (merged over the spec's) and ``option_grid`` (option -> values), each
    value checked by the rule set; (None, {}) when the step has neither."""
    if not STEP_OPTION_KEYS & set(step):
        return None, {}
    own = step.get("options", {})
    if not isinstance(own, dict):
        check.fail(f"{where}options", f"must be a table, e.g. {{ dice_layout = \"13-25-46\" }}, not {_type_name(own)}")
    merged = dict(spec_options)
    for key, value in own.items():
        merged[key] = _option_value(check, f"{where}options.{key}", value)
        if key == "deck_file":
            merged[key] = folder / value
    try:
        game.config(**merged)
    except UsageError as exc:
        check.fail(f"{where}options", str(exc))
    grid_raw = step.get("option_grid", {})
    if not isinstance(grid_raw, dict) or ("option_grid" in step and not grid_raw):
        check.fail(f"{where}option_grid", f"must be a table of option values, e.g. {{ dice_layout = \"all\" }}, "
                                          f"not {_type_name(grid_raw)}")
    grid = {}
    for key, values in grid_raw.items():
        k = f"{where}option_grid.{key}"
        if key in own:
            check.fail(k, "is also set in the step's options; give it in one of them")
        if values == "all":
            values = all_option_values(game, key)
            if values is None:
                check.fail(k, f"\"all\" is known only for a dice_layout; list the values of {key}")
        elif not isinstance(values, list) or not values:
            check.fail(k, f"must be \"all\" or a non-empty list of values, not {_type_name(values)}")
        else:
            values = [_option_value(check, f"{k}[{i}]", v) for i, v in enumerate(values)]
        if len(set(values)) != len(values):
            check.fail(k, "lists a value twice")
        for i, v in enumerate(values):
            try:
                game.config(**{**merged, key: folder / v if key == "deck_file" else v})
            except UsageError as exc:
                check.fail(f"{k}[{i}]", str(exc))
        grid[key] = values
    return merged, grid


def _check_distinct_line_up(check: _Checker, where: str, kind: str, args: dict, game) -> None:
    """Two compared strategies that play the same policy with the same values at a table (a spec
    that leaves a parameter unset plays the count's preset) would compare a strategy with itself."""
    from llama_sim.core import registry

    if kind != "compare":
        return
    for n in args["players"]:
        played = {}
        for s in args["strategies"]:
            p = registry.at_table(registry.parse_spec(game.name, s), n)
            key = (p.strategy.name, tuple(np.asarray(p.params, dtype=float).tolist()))
            if key in played:
                check.fail(f"{where}strategies", f"'{played[key]}' and '{s}' play {p.strategy.name} with the same "
                                                 f"parameters at {n} players (unset ones take the preset); spell "
                                                 f"the values out")
            played[key] = s


def step_spec(spec: Spec, step: Step) -> Spec:
    """The spec as one step sees it: its own rule-set options, if it has any."""
    from dataclasses import replace

    return spec if step.options is None else replace(spec, options=step.options)


def option_grid_points(step: Step) -> list[dict]:
    """Every combination of the grid's values (first key outermost)."""
    import itertools

    keys = list(step.option_grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*step.option_grid.values())]


def _tag_text(tag: dict, sep: Optional[str] = None) -> str:
    """``dice layout 13-25-46`` for a sentence; with ``sep`` only the values (``13-25-46``), for a file name."""
    if sep is not None:
        return sep.join("".join(c if c.isalnum() or c in "-." else "_" for c in str(v)) for v in tag.values())
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in tag.items())


def _tagged(df: pd.DataFrame, tag: dict) -> pd.DataFrame:
    """``df`` with the grid point's option values as leading columns (unless it has them already)."""
    new = {k: v for k, v in tag.items() if k not in df.columns}
    return df.assign(**new)[[*new, *df.columns]]


def _run_option_grid(spec: Spec, step: Step, entry, scale: float, quiet: bool, started: float) -> "StepOutcome":
    """Run the step once per grid point, each on its own deals (seed + index), tag every table with
    the point's option values and summarise across the points (``llama_sim.present.across``)."""
    from dataclasses import replace

    from llama_sim.present import across

    results, tags, details, displays = [], [], [], []
    for i, point in enumerate(option_grid_points(step)):
        if not quiet:
            print(f"llamasim:   {_tag_text(point)}", file=sys.stderr, flush=True)
        options = {**step.options, **point}
        got = entry.run(replace(spec, options=options, seed=spec.seed + i), entry.scale(step.args, scale), quiet)
        results += got
        tags += [point] * len(got)
        seed = "" if step.kind == "solve" else f" (seed {spec.seed + i})"
        details.append(f"{_tag_text(point)}{seed}: {entry.conclude(got)}")
        displays.append(_tagged(entry.display(got), point))
    seconds = time.perf_counter() - started
    tables = {t: pd.concat([_tagged(getattr(r, t), tag) for r, tag in zip(results, tags)], ignore_index=True)
              for t in entry.tables}
    summary = across.summarise(step.kind, results, tags)
    if summary is None:
        return StepOutcome(step, results, tables, " ".join(details), pd.concat(displays, ignore_index=True), seconds,
                           tags=tags)
    tables.update(summary.tables)
    return StepOutcome(step, results, tables, summary.sentence, summary.display, seconds, tags=tags, details=details,
                       summary=summary)


def _step_rules(spec: Spec, step: Step, game) -> dict:
    """run.json: the rule-set options of a step that sets its own, and its grid."""
    out = {}
    if step.options is not None:
        out["rules"] = game.describe_config(game.config(**step.options))
    if step.option_grid:
        out["option_grid"] = {k: [str(v) for v in vs] for k, vs in step.option_grid.items()}
        out["seeds"] = [spec.seed + i for i in range(len(option_grid_points(step)))]
    return out


# ------------------------------------------------------------------------------------ running

def _check_variants(check, where, step, spec, defaults, game) -> dict:
    """A comparison under the rules and under each rule variant (``llama_sim.analysis.variants``)."""
    args = _check_compare(check, where, step, spec, defaults, game)
    args.pop("metrics", None)
    variants = step.get("variants")
    if not isinstance(variants, dict) or not variants:
        check.fail(f"{where}variants", "must be a table of variant name = { option = value, ... }")
    base = {k: v for k, v in spec.get("options", {}).items() if k != "deck_file"}
    for name, options in variants.items():
        key = f"{where}variants.{name}"
        if name == "rulebook":
            check.fail(key, "'rulebook' names the baseline; give the variant another name")
        if not isinstance(options, dict) or not options:
            check.fail(key, f"must be a table of rule options, not {_type_name(options)}")
        for k, v in options.items():
            check.string(f"{key}.{k}", v)
        try:
            game.config(**game_options(**{**base, **options}))
        except UsageError as exc:
            check.fail(key, str(exc))
    return {**args, "variants": {k: dict(v) for k, v in variants.items()}}


def _run_variants(spec: Spec, args: dict, quiet: bool) -> list:
    from llama_sim.analysis.variants import compare_variants

    rest = {k: v for k, v in args.items() if k not in ("strategies", "variants", "players")}
    return [compare_variants(spec.game, args["strategies"], args["variants"], players=args["players"],
                             seed=spec.seed, quiet=quiet, strategies_file=spec.strategies_file, **rest,
                             **spec.options)]


def _scaled(args: dict, scale: float) -> dict:
    out = dict(args)
    for k in ("rounds", "games", "max_rounds"):
        if k in out:
            out[k] = max(1, math.ceil(out[k] * scale))
    if "precision" in out:
        out["precision"] = out["precision"] / math.sqrt(scale)
    if not any(k in out for k in ("rounds", "games", "precision")):
        out["rounds"] = max(1, math.ceil(DEFAULT_ROUNDS * scale))
    return out


def _run_compare(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategies", "players")}
    return [compare(spec.game, args["strategies"], players=n, seed=spec.seed, quiet=quiet, **rest,
                        **spec.options) for n in args["players"]]


def _run_league(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [league(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_seat_table(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [seat_table(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_sweep(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategy", "param")}
    return [sweep(spec.game, args["strategy"], args["param"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_solve(spec: Spec, args: dict, quiet: bool) -> list:
    return [solve(spec.game, dice_layout=spec.options.get("dice_layout"), **args)]


def _run_simulate(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "seats"}
    return [simulate(spec.game, args["seats"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_advise(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "position"}
    return [advise(spec.game, seed=spec.seed, **rest, **args["position"], **spec.options)]


def _run_chart(spec: Spec, args: dict, quiet: bool) -> list:
    return [chart(spec.game, seed=spec.seed, **args)]


def _run_tune(spec: Spec, args: dict, quiet: bool) -> list:
    return [tune(spec.game, seed=spec.seed, **args, **spec.options)]


def _scaled_advise(args: dict, scale: float) -> dict:
    """A fixed roll-out count scales; the default stop rule (3 standard errors or 0.02) does not."""
    out = dict(args)
    if "n_rollouts" in out:
        out["n_rollouts"] = max(2, math.ceil(out["n_rollouts"] * scale))
    if "max_rollouts" in out:
        out["max_rollouts"] = max(2, math.ceil(out["max_rollouts"] * scale))
    return out


def _scaled_key(key: str, low: int) -> Callable[[dict, float], dict]:
    def scaled(args: dict, scale: float) -> dict:
        return {**args, key: max(low, math.ceil(args[key] * scale))}

    return scaled


# ------------------------------------------------------------------------------------ conclusions

def _metric_words(metric: str) -> str:
    return metric.replace("_", " ")


def _conclude_compare(results: list) -> str:
    """Per player count: the best strategy against the runner-up on the headline metric (win rate
    with games, else penalty per round), with the paired interval of their difference."""
    parts = []
    for r in results:
        metric = "win_rate" if "win_rate" in set(r.ranking.metric) else r.ranking.metric.iloc[0]
        rank = r.ranking[r.ranking.metric == metric].sort_values("rank")
        n = int(rank.players.iloc[0])
        top, second = rank.strategy.iloc[0], rank.strategy.iloc[1]
        pairs = r.paired[r.paired.metric == metric]
        row = pairs[((pairs.strategy_a == top) & (pairs.strategy_b == second))
                    | ((pairs.strategy_a == second) & (pairs.strategy_b == top))].iloc[0]
        sign = 1 if row.strategy_a == top else -1  # top - second
        diff = sign * row["diff"]
        lo, hi = sorted((sign * row.ci_low, sign * row.ci_high))
        order = f" (ranking: {', '.join(rank.strategy)})" if len(rank) > 2 else ""
        if row.better == top and lo * hi > 0:
            parts.append(f"At {n} players {top} beats {second}, the next best, by {abs(diff):.3f} "
                         f"{_metric_words(metric)} (paired 95% CI [{min(abs(lo), abs(hi)):.3f}, "
                         f"{max(abs(lo), abs(hi)):.3f}], {int(row.deals)} deals){order}.")
        else:
            parts.append(f"At {n} players the data cannot separate {top} and {second} on {_metric_words(metric)}: "
                         f"{top} - {second} = {diff:+.3f} (paired 95% CI [{lo:+.3f}, {hi:+.3f}], "
                         f"{int(row.deals)} deals){order}.")
    return " ".join(parts)


def _conclude_league(results: list) -> str:
    return results[0].conclusion


def _conclude_seat_table(results: list) -> str:
    """Seat 0 (who starts the first round) against the mean of all seats, per strategy and count."""
    seats = results[0].seats
    metric = "win_rate" if "win_rate" in set(seats.metric) else seats.metric.iloc[0]
    lower_better = metric != "win_rate"
    parts = []
    for strategy, first in seats[(seats.metric == metric) & (seats.seat == 0)].groupby("strategy", sort=False):
        cells = []
        for row in first.itertuples():
            if row.p_holm < 0.05:
                verdict = "an advantage" if (row.vs_mean < 0) == lower_better else "a disadvantage"
            else:
                verdict = "not separable from 0 after the Holm correction over the seats"
            cells.append(f"{row.vs_mean:+.3f} [{row.vs_mean_ci_low:+.3f}, {row.vs_mean_ci_high:+.3f}] at "
                         f"{row.players} players ({verdict})")
        parts.append(f"With every seat playing {strategy}, starting the first round (seat 0) changes the "
                     f"{_metric_words(metric)} relative to the mean of all seats by " + "; ".join(cells)
                     + " (paired 95% CIs).")
    return " ".join(parts)


def _conclude_sweep(results: list) -> str:
    r = results[0]
    best = r.best
    s = r.summary
    lower = r.headline != "win_rate"
    where = ", ".join(f"{k} = {best[c]:g}" for k, c in zip(r.params, ("param_value", "param2_value")))
    near = s[s.near_best]
    cols = ["param_value", "param2_value"][:len(r.params)]
    sep = ", " if len(r.params) == 1 else "; "
    close = sep.join(", ".join(f"{v:g}" for v in row) for row in near[cols].itertuples(index=False)) or "none"
    return (f"Against {r.opponent} at {int(r.results.players.iloc[0])} players, {where} gives the "
            f"{'lowest' if lower else 'highest'} {_metric_words(r.headline)}, {best.value:.3f} "
            f"(95% CI [{best.ci_low:.3f}, {best.ci_high:.3f}]), a difference of {best['diff']:+.3f} to {r.opponent} "
            f"on the same deals (paired 95% CI [{best.diff_ci_low:+.3f}, {best.diff_ci_high:+.3f}]); the values "
            f"the data cannot separate from it (paired 95% interval to it covering 0): {close}.")


def _conclude_solve(results: list) -> str:
    df = results[0].policy
    if len(df) == 1:
        r = df.iloc[0]
        return (f"In row {r.row} (llama row {r.llama_row}, dice {r.dice_layout}) the optimum is to {r.best}: "
                f"expected final penalty {r.roll_value:.3f} rolling on against {r.quit_value:.3f} quitting "
                f"(exact, no sampling error).")
    roll = df[df.best == "roll"]
    quit_ = df[df.best == "quit"]
    always = quit_.quit_value.max() + 1 if len(quit_) else 0
    never = roll.quit_value.min() - 1 if len(roll) else df.quit_value.max()
    return (f"With dice {df.dice_layout.iloc[0]} and llama row {df.llama_row.iloc[0]}, the optimal solo policy rolls "
            f"in {len(roll)} of {len(df)} rows: always when the row's penalty is {always:g} or more, never when it "
            f"is {never:g} or less (exact values, no sampling error).")


def _conclude_simulate(results: list) -> str:
    df = results[0].results
    metric = "win_rate" if "win_rate" in set(df.metric) else "penalty_per_round"
    g = df[df.metric == metric]
    return ("Per seat " + _metric_words(metric) + ": " + "; ".join(
        f"seat {int(r.seat)} {r.strategy} {r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" for r in g.itertuples())
        + " (95% CIs).")


def _conclude_advise(results: list) -> str:
    return results[0].sentence


def _conclude_chart(results: list) -> str:
    """The chart's verdicts and its most frequent cell, with that cell's interval."""
    from llama_sim.analysis.chart import wording

    r = results[0]
    words = wording(r.game)
    other = words["letter"]  # D (draw) or R (roll)
    cells = r.cells[r.cells.chart == "pile"]
    counts = cells.answer.value_counts()
    share = {a: float(cells[cells.answer == a].share.sum()) for a in ("Q", other, "?")}
    top = cells.sort_values("decisions", ascending=False).iloc[0]
    # The win measure values a branch by minus its win share: quit - draw > 0 means drawing wins more often.
    unit = "in the chance of not winning the game" if r.measure == "win" else "points"
    verb = words["play_on"] + "ing"  # drawing, rolling
    return (f"Under {r.policy} at {r.players} players ({r.games} games; {words['decision']}), quitting beats "
            f"{verb} in {counts.get('Q', 0)} cells holding {share['Q']:.0%} of the decisions, {verb} beats "
            f"quitting in {counts.get(other, 0)} cells holding {share[other]:.0%}, and the data cannot "
            f"separate {counts.get('?', 0)} cells holding {share['?']:.0%}; the most frequent cell ({int(top.hand_points)} "
            f"points, {top.bin_low}-{top.bin_high} {words['pile']}, token {top.token}) reads {top.answer}: quit - "
            f"{words['play_on']} = {top.mean_quit_minus_draw:+.3f} {unit} (95% CI [{top.ci_low:+.3f}, "
            f"{top.ci_high:+.3f}]).")


def _conclude_tune(results: list) -> str:
    r = results[0]
    s = r.summary()
    return (f"Tuning {r.strategy} at {r.players} players against {r.vs} picks {r.pick_spec}: on fresh deals its "
            f"{_metric_words(r.metric)} differs from the start's by {s['edge']:+.4f} (95% CI "
            f"[{s['edge_ci_low']:+.4f}, {s['edge_ci_high']:+.4f}]): {r.verdict}.")


# ------------------------------------------------------------------------------------ display tables

def _display_compare(results: list) -> pd.DataFrame:
    rank = pd.concat([r.ranking for r in results], ignore_index=True)
    return pd.DataFrame({"players": rank.players, "metric": rank.metric, "rank": rank["rank"], "strategy": rank.strategy,
                         "value [95% CI]": [_ci(*x) for x in zip(rank.value, rank.ci_low, rank.ci_high)],
                         "cannot be separated from": rank.indistinguishable_from.replace("", "-")})


def _display_league(results: list) -> pd.DataFrame:
    """The league table: per player count, best first by the headline metric, every compared metric."""
    r = results[0]
    rank = r.ranking
    table = rank[rank.metric == r.headline][["players", "rank", "strategy", "lineups"]].reset_index(drop=True)
    for m in dict.fromkeys(rank.metric):
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        table[f"{m} [95% CI]"] = [_ci(*g.loc[(n, s), ["value", "ci_low", "ci_high"]])
                                  for n, s in zip(table.players, table.strategy)]
    table["cannot be separated from"] = [rank[(rank.metric == r.headline) & (rank.players == n)
                                              & (rank.strategy == s)].indistinguishable_from.iloc[0] or "-"
                                         for n, s in zip(table.players, table.strategy)]
    return table.rename(columns={"lineups": "line-ups"})


def _sections_league(results: list) -> list[tuple[str, str, pd.DataFrame]]:
    """The strongest-strategy section: one sentence per player count and its table."""
    r = results[0]
    s = r.strongest
    table = pd.DataFrame({
        "players": s.players, "strongest": s.best, f"{r.headline} [95% CI]": [_ci(*x, 3) for x in zip(
            s.value, s.ci_low, s.ci_high)], "runner-up": s.runner_up,
        "edge over it [95% CI]": [_ci(*x, 3, sign=True) for x in zip(s.edge, s.edge_ci_low, s.edge_ci_high)],
        "head-to-head [95% CI]": [_ci(*x, 3, sign=True) for x in zip(s.head_to_head, s.h2h_ci_low, s.h2h_ci_high)],
        "line-ups with both": s.lineups_both})
    text = " ".join(r.sentences) + (
        " The edge is the difference of the two league values (each the mean over its own line-ups; paired on the "
        "common deals of the line-ups that hold both); the head-to-head uses only the line-ups that hold both.")
    return [("Strongest strategy", text, table)]


def _display_seat_table(results: list) -> pd.DataFrame:
    s = results[0].seats
    return pd.DataFrame({"strategy": s.strategy, "players": s.players, "seat": s.seat, "metric": s.metric,
                         "value [95% CI]": [_ci(*x) for x in zip(s.value, s.ci_low, s.ci_high)],
                         "vs mean [95% CI]": [_ci(*x, sign=True) for x in zip(s.vs_mean, s.vs_mean_ci_low,
                                                                               s.vs_mean_ci_high)],
                         "p (Holm)": [f"{p:.4f}" for p in s.p_holm]})


def _display_sweep(results: list) -> pd.DataFrame:
    r = results[0]
    s = r.summary
    out = {k: s[c] for k, c in zip(r.params, ("param_value", "param2_value"))}
    out[f"{r.headline} [95% CI]"] = [_ci(*x) for x in zip(s.value, s.ci_low, s.ci_high)]
    out[f"vs {r.opponent} [paired 95% CI]"] = [_ci(*x, sign=True) for x in zip(s["diff"], s.diff_ci_low, s.diff_ci_high)]
    out[f"vs best [paired 95% CI]"] = [_ci(*x, sign=True) for x in zip(s.vs_best, s.vs_best_ci_low, s.vs_best_ci_high)]
    out["best"] = np.where(s.best, "best", np.where(s.near_best, "~ best", ""))
    return pd.DataFrame(out)


def _display_solve(results: list) -> pd.DataFrame:
    df = results[0].policy
    cols = ["row", "quit_value", "roll_value", "best"]
    shown = df[cols] if len(df) <= 40 else df[cols].sort_values("quit_value").iloc[
        np.linspace(0, len(df) - 1, 30).round().astype(int)]
    return shown.round(4)


def _display_simulate(results: list) -> pd.DataFrame:
    df = results[0].results
    return pd.DataFrame({"seat": df.seat, "strategy": df.strategy, "metric": df.metric,
                         "value [95% CI]": [_ci(*x) for x in zip(df.value, df.ci_low, df.ci_high)], "n": df.n})


def _display_advise(results: list) -> pd.DataFrame:
    r = results[0]
    t = r.table
    primary = "win_rate" if r.horizon == "game" else "penalty_per_round"
    rows = []
    for a in r.ranking:
        own = t[(t.action == a) & (t.metric == primary)].iloc[0]
        diff = t[(t.action == a) & (t.metric == primary + "_vs_best")]
        rows.append({"action": a, f"{primary} [95% CI]": _ci(own.value, own.ci_low, own.ci_high, 3),
                     "vs best [paired 95% CI]": (_ci(*diff[["value", "ci_low", "ci_high"]].iloc[0], 3, sign=True)
                                                 if len(diff) else "-"), "n": int(own.n)})
    return pd.DataFrame(rows)


def _display_chart(results: list) -> pd.DataFrame:
    return results[0].summary


def _display_tune(results: list) -> pd.DataFrame:
    f = results[0].final
    return pd.DataFrame({"": f.iloc[:, 0] if "role" not in f else f.role, "parameters": f.params,
                         "value [95% CI]": [_ci(*x) for x in zip(f.value, f.ci_low, f.ci_high)]})


@dataclass(frozen=True)
class StepKind:
    """One kind of step: its keys, validation, run, tables (name -> result attribute), conclusion
    and the compact table shown in the report."""

    keys: frozenset
    check: Callable
    run: Callable
    tables: tuple[str, ...]
    conclude: Callable
    display: Callable
    plot_suffix: Callable[[Any], str] = lambda r: ""
    scale: Callable[[dict, float], dict] = lambda args, scale: _scaled(args, scale)  # --scale
    sections: Callable[[list], list] = lambda results: []  # extra (title, text, table) sections of the report


_COMMON = {"kind", "name", "title"}
_COUNTS = set(COUNT_KEYS)
def _variants_kind() -> StepKind:
    from llama_sim.analysis.variants import conclude_variants, display_variants

    return StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "variants"}), _check_variants,
                    _run_variants, ("results", "effects", "ranking"), lambda results: conclude_variants(results[0]),
                    lambda results: display_variants(results[0]))


STEP_KINDS: dict[str, StepKind] = {
    "compare": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), _check_compare,
                        _run_compare, ("results", "paired", "ranking"), _conclude_compare, _display_compare,
                        lambda r: f"_{int(r.results.players.iloc[0])}p"),
    "league": StepKind(frozenset(_COMMON | {"rounds", "games", "strategies", "players", "metrics"}), _check_league,
                       _run_league, ("results", "paired", "ranking", "strongest", "lineups"), _conclude_league,
                       _display_league, sections=_sections_league),
    "seat_table": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), _check_seat_table,
                           _run_seat_table, ("results", "seats"), _conclude_seat_table, _display_seat_table),
    "sweep": StepKind(frozenset(_COMMON | {"rounds", "games", "strategy", "grid", "vs", "players"}), _check_sweep,
                      _run_sweep, ("results", "summary"), _conclude_sweep, _display_sweep),
    "solve": StepKind(frozenset(_COMMON | {"row", "llama_row", "table"}), _check_solve, _run_solve, ("policy",),
                      _conclude_solve, _display_solve, scale=lambda args, scale: args),
    "simulate": StepKind(frozenset(_COMMON | {"rounds", "games", "seats"}), _check_simulate, _run_simulate,
                         ("results",), _conclude_simulate, _display_simulate),
    "advise": StepKind(frozenset(_COMMON | set(ADVISE_POSITION_KEYS) | {"policy", "opponents", "horizon", "rollouts",
                                                                      "precision", "max_rollouts"}),
                       _check_advise, _run_advise, ("table",), _conclude_advise, _display_advise,
                       scale=_scaled_advise),
    "chart": StepKind(frozenset(_COMMON | {"players", "games", "policy", "measure"}), _check_chart, _run_chart,
                      ("cells", "summary"), _conclude_chart, _display_chart, scale=_scaled_key("games", 20)),
    "tune": StepKind(frozenset(_COMMON | {"strategy", "players", "vs", "budget", "metric"}), _check_tune, _run_tune,
                     ("final", "candidates", "race"), _conclude_tune, _display_tune,
                     scale=_scaled_key("budget", 2000)),
    "variants": _variants_kind(),
}


# ------------------------------------------------------------------------------------ loading

def load_spec(source, name: Optional[str] = None) -> Spec:
    """Read and validate a spec (a TOML path, or an already parsed dict); raises ``SpecError``."""
    from llama_sim.core import registry
    from llama_sim.core.ruleset import get_game

    if isinstance(source, dict):
        raw, label, folder = source, "<spec>", Path.cwd()
    else:
        path = Path(source)
        label, folder = str(path), path.parent
        if not path.is_file():
            raise SpecError(f"{path}: spec file not found")
        try:
            raw = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path}: not valid TOML: {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"{path}: cannot read: {exc}") from None
        name = name or path.stem
    check = _Checker(label)
    check.unknown("", raw, TOP_KEYS)
    for key in ("question", "game", "steps"):
        if key not in raw:
            check.fail(key, "is required")
    name = check.string("name", raw["name"]) if "name" in raw else (name or "experiment")
    if any(c in name for c in "/\\") or name.startswith("."):
        check.fail("name", f"'{name}' must be a plain folder name")
    question = check.string("question", raw["question"])
    try:
        game = get_game(check.string("game", raw["game"]))
    except UsageError as exc:
        check.fail("game", str(exc))
    seed = check.integer("seed", raw.get("seed", 1), low=0)
    options = raw.get("options", {})
    if not isinstance(options, dict):
        check.fail("options", f"must be a table, not {_type_name(options)}")
    options = dict(options)
    for key, value in options.items():
        check.string(f"options.{key}", value)
    if "deck_file" in options:
        options["deck_file"] = folder / options["deck_file"]
    try:
        game.config(**options)
    except UsageError as exc:
        check.fail("options", str(exc))
    strategies_file = None
    if "strategies_file" in raw:
        strategies_file = folder / check.string("strategies_file", raw["strategies_file"])
        try:
            registry.load_file(strategies_file)
        except UsageError as exc:
            check.fail("strategies_file", str(exc))
    defaults = {k: raw[k] for k in ("players",) + COUNT_KEYS if k in raw}
    steps_raw = raw["steps"]
    if not isinstance(steps_raw, list) or not steps_raw:
        check.fail("steps", "must be a non-empty array of tables ([[steps]])")
    steps, names = [], set()
    for i, step in enumerate(steps_raw):
        where = f"steps[{i}]."
        if not isinstance(step, dict):
            check.fail(f"steps[{i}]", f"must be a table, not {_type_name(step)}")
        if "kind" not in step:
            check.fail(f"{where}kind", f"is required ({', '.join(STEP_KINDS)})")
        kind = check.string(f"{where}kind", step["kind"])
        if kind not in STEP_KINDS:
            check.fail(f"{where}kind", f"unknown step kind '{kind}' (use {', '.join(STEP_KINDS)})")
        entry = STEP_KINDS[kind]
        check.unknown(where, step, entry.keys | STEP_OPTION_KEYS)
        step_name = check.string(f"{where}name", step["name"]) if "name" in step else f"{i + 1}-{kind}"
        if not all(c.isalnum() or c in "-_" for c in step_name):
            check.fail(f"{where}name", f"'{step_name}' may hold only letters, digits, - and _")
        if step_name in names:
            check.fail(f"{where}name", f"'{step_name}' is used by another step")
        names.add(step_name)
        title = check.string(f"{where}title", step["title"]) if "title" in step else kind.replace("_", " ")
        step_options, option_grid = _step_options(check, where, step, options, folder, game)
        seen = raw if step_options is None else {**raw, "options": {**raw.get("options", {}), **step.get("options", {})}}
        args = entry.check(check, where, step, seen, defaults, game)
        _check_distinct_line_up(check, where, kind, args, game)
        step_rules = options if step_options is None else step_options
        variant_keys = sorted((set(step_rules) | set(option_grid)) - {"dice_layout", "deck_file"})
        if kind in ("advise", "chart") and variant_keys:  # their positions and kernels play the rulebook
            check.fail(f"options.{variant_keys[0]}", f"rule variants apply to compare, league, seat_table, sweep, "
                                                    f"simulate, tune and variants steps, not to {kind} (steps[{i}])")
        steps.append(Step(kind, step_name, title, args, step_options, option_grid))
    return Spec(name, question, game.name, seed, options, steps, label, raw, strategies_file)


# ------------------------------------------------------------------------------------ report

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


@dataclass
class ExperimentResult:
    """A finished experiment: its spec, each step's outcome (results, tables, conclusion) and the
    report folder (None when nothing was written)."""

    spec: Spec
    steps: list[StepOutcome]
    out: Optional[Path]
    run: dict

    @property
    def conclusions(self) -> list[str]:
        return [s.conclusion for s in self.steps]

    def plot(self):
        """The first step's figure."""
        return self.steps[0].results[0].plot()


def default_out(spec: Spec) -> Path:
    return Path("reports") / spec.name


def check_out_dir(out: Path, force: bool) -> None:
    if out.exists() and not force:
        raise UsageError(f"{out} exists; pass --force to replace it")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} exists and is not a folder")
    if not out.parent.exists():
        raise UsageError(f"--out {out}: folder {out.parent} does not exist")


def _git(*args: str) -> Optional[str]:
    try:
        res = subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def _git_commit() -> Optional[str]:
    """The package's commit, with ``+dirty`` when its sources differ from it (None outside git)."""
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return None
    return commit + ("+dirty" if _git("status", "--porcelain", "--", ".") else "")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("llama_sim")
    except Exception:  # not installed (run from a source tree)
        return "unknown"


def run_experiment(spec, *, out: Optional[Path] = None, scale: float = 1.0, force: bool = False,
                   quiet: bool = False, command: Optional[str] = None, write: bool = True) -> ExperimentResult:
    """Validate ``spec`` (path or dict) completely, run its steps, write the report folder."""
    from llama_sim.core.ruleset import get_game

    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and 0 < scale <= 1000):
        raise UsageError(f"--scale must be a positive number (at most 1000), not {scale}")
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    if out is None:
        out = default_out(spec)
        if write:
            out.parent.mkdir(parents=True, exist_ok=True)  # the default reports/ folder
    out = Path(out)
    if write:
        check_out_dir(out, force)
    game = get_game(spec.game)
    outcomes = []
    started = time.perf_counter()
    for i, step in enumerate(spec.steps):
        entry = STEP_KINDS[step.kind]
        if not quiet:
            print(f"llamasim: step {i + 1}/{len(spec.steps)}: {step.name} ({step.title})", file=sys.stderr,
                  flush=True)
        t0 = time.perf_counter()
        if step.option_grid:
            outcomes.append(_run_option_grid(spec, step, entry, scale, quiet, t0))
            continue
        results = entry.run(step_spec(spec, step), entry.scale(step.args, scale), quiet)
        seconds = time.perf_counter() - t0
        tables = {t: pd.concat([getattr(r, t) for r in results], ignore_index=True) for t in entry.tables}
        own = [] if step.options is None else ["Rule-set options of this step: " + "; ".join(
            f"{k.replace('_', ' ')}: {v}" for k, v in game.describe_config(game.config(**step.options)).items())]
        outcomes.append(StepOutcome(step, results, tables, entry.conclude(results), entry.display(results), seconds,
                                    details=own))
    run_info = {
        "command": command or f"llama_sim.run_experiment({spec.source!r}, scale={scale})",
        "spec": spec.source, "name": spec.name, "question": spec.question, "game": spec.game,
        "seed": spec.seed, "scale": scale, "llama_sim_version": _version(), "git_commit": _git_commit(),
        "python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__,
        "rules": game.describe_config(game.config(**spec.options)),
        "steps": [{"name": o.step.name, "kind": o.step.kind, "arguments": _jsonable(
                       STEP_KINDS[o.step.kind].scale(o.step.args, scale)), **_step_rules(spec, o.step, game),
                   "seconds": round(o.seconds, 3), "conclusion": o.conclusion} for o in outcomes],
        "seconds": round(time.perf_counter() - started, 3),
    }
    result = ExperimentResult(spec, outcomes, out if write else None, run_info)
    if write:
        write_report(result, out, force)
    return result


def _jsonable(args: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in args.items()}


def write_report(result: ExperimentResult, out: Path, force: bool) -> None:
    """Write the whole folder next to ``out`` first, then move it into place: a failed run never
    leaves a half-written report, and an existing one is replaced only with ``force``."""
    from llama_sim.analysis.plots import figure_png, plot_league, save

    check_out_dir(out, force)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (tmp / "tables").mkdir()
        (tmp / "plots").mkdir()
        images: dict[str, bytes] = {}
        for o in result.steps:
            for name, df in o.tables.items():
                df.to_csv(tmp / "tables" / f"{o.step.name}_{name}.csv", index=False)
                df.to_parquet(tmp / "tables" / f"{o.step.name}_{name}.parquet", index=False)
            suffix = STEP_KINDS[o.step.kind].plot_suffix
            figures = [(f"{o.step.name}{suffix(r) if len(o.results) > 1 else ''}", r.plot) for r in o.results]
            if o.tags:  # an option grid: the summary across the values, else one plot per value
                figures = ([(o.step.name, o.summary.plot)] if o.summary is not None else
                           [(f"{o.step.name}_{_tag_text(t, '_')}{suffix(r)}", r.plot) for r, t in zip(o.results, o.tags)])
            elif o.step.kind == "compare" and len(o.results) > 1:  # the league over player counts first
                figures.insert(0, (o.step.name, lambda results=o.results: plot_league(results)))
            for stem, draw in figures:
                fig = draw()
                images[f"plots/{stem}.png"] = figure_png(fig)
                (tmp / "plots" / f"{stem}.png").write_bytes(images[f"plots/{stem}.png"])
                save(fig, tmp / "plots" / f"{stem}.svg")
                o.plots.append(f"plots/{stem}.png")
        (tmp / "run.json").write_text(json.dumps(result.run, indent=1, default=str) + "\n")
        (tmp / "report.md").write_text(render_markdown(result))
        (tmp / "report.html").write_text(render_html(result, images))
        os.chmod(tmp, 0o755)
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            if old.exists():
                shutil.rmtree(old)
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _md_table(df: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:g}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _summary_lines(result: ExperimentResult) -> list[str]:
    spec, run = result.spec, result.run
    rules = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in run["rules"].items()) or "standard"
    own = [s.name for s in spec.steps if s.options is not None]
    if own:  # steps with their own rule-set options (per-step options or an option grid)
        rules += f"; steps {', '.join(own)} set their own, see each step" if len(own) < len(spec.steps) else \
            "; every step sets its own, see each step"
    return [f"- Rule set: `{spec.game}` ({rules}); seed {spec.seed}; scale {run['scale']:g}",
            f"- Command: `{run['command']}`",
            f"- llama_sim {run['llama_sim_version']}, commit {run['git_commit'] or 'unknown'}; "
            f"{run['seconds']:.1f} s in all (timings per step in `run.json`)"]


def render_markdown(result: ExperimentResult) -> str:
    spec = result.spec
    lines = [f"# {spec.name}", "", f"**Question.** {spec.question}", "", "**Answer.**", ""]
    lines += [f"- {o.step.title}: {o.conclusion}" for o in result.steps]
    lines += [""] + _summary_lines(result) + [""]
    for i, o in enumerate(result.steps, 1):
        lines += [f"## {i}. {o.step.title} (`{o.step.kind}`, step `{o.step.name}`)", "", o.conclusion, ""]
        lines += [f"- {d}" for d in o.details] + ([""] if o.details else [])
        for p in o.plots:
            lines += [f"![{o.step.title}]({p})", "", f"(vector: [{Path(p).with_suffix('.svg')}]"
                                                     f"({Path(p).with_suffix('.svg')}))", ""]
        lines += [_md_table(o.display), ""]
        files = ", ".join(f"[{o.step.name}_{t}.csv](tables/{o.step.name}_{t}.csv)" for t in o.tables)
        lines += [f"Full tables (CSV; Parquet next to them): {files}", ""]
        for title, text, table in STEP_KINDS[o.step.kind].sections(o.results):
            lines += [f"### {title}", "", text, "", _md_table(table), ""]
    return "\n".join(lines)


def render_html(result: ExperimentResult, images: dict[str, bytes]) -> str:
    spec = result.spec
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">", f"<title>{e(spec.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.4}"
             "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px;"
             "text-align:left}img{max-width:100%}code{background:#f4f4f4}</style></head><body>",
             f"<h1>{e(spec.name)}</h1>", f"<p><b>Question.</b> {e(spec.question)}</p>", "<p><b>Answer.</b></p><ul>"]
    parts += [f"<li>{e(o.step.title)}: {e(o.conclusion)}</li>" for o in result.steps]
    parts += ["</ul><ul>"]
    parts += [f"<li>{e(line[2:]).replace('`', '')}</li>" for line in _summary_lines(result)]
    parts += ["</ul>"]
    for i, o in enumerate(result.steps, 1):
        parts += [f"<h2>{i}. {e(o.step.title)} ({e(o.step.kind)}, step {e(o.step.name)})</h2>",
                  f"<p>{e(o.conclusion)}</p>"]
        if o.details:
            parts += ["<ul>"] + [f"<li>{e(d)}</li>" for d in o.details] + ["</ul>"]
        for p in o.plots:
            data = base64.b64encode(images[p]).decode()
            parts.append(f"<p><img alt=\"{e(o.step.title)}\" data-file=\"{e(p)}\" src=\"data:image/png;base64,{data}\"></p>")
        parts.append(o.display.to_html(index=False, escape=True, border=0))
        for title, text, table in STEP_KINDS[o.step.kind].sections(o.results):
            parts += [f"<h3>{e(title)}</h3>", f"<p>{e(text)}</p>", table.to_html(index=False, escape=True, border=0)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def bundled_report_spec(game: str) -> Path:
    """The built-in strategy report of a rule set (``llamasim report --game G``)."""
    from llama_sim.core.ruleset import get_game

    name = get_game(game).name
    path = Path(__file__).parents[1] / "rulesets" / name / "report.toml"
    if not path.is_file():
        raise UsageError(f"no built-in report for {name}")
    return path
