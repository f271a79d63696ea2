"""What an experiment spec holds and how its parts are checked: the ``Spec`` and ``Step`` records,
the ``Checker`` that names the offending key in every error, and each step kind's validation (its
keys in, the API keyword arguments out), so a spec fails before anything runs."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from llama_sim.analysis.advise import MAX_ROLLOUTS
from llama_sim.analysis.compare import MAX_SWEEP_GRID, game_options, sweep_values
from llama_sim.run.simulate import MAX_PLAYS
from llama_sim.core.advice import advice_of
from llama_sim.core.errors import UsageError
from llama_sim.core.position import LAST_SCORE
from llama_sim.core.ruleset import solvable_names

TOP_KEYS = {"name", "question", "game", "seed", "options", "strategies_file", "steps",
            "players", "rounds", "games", "precision", "max_rounds", "terms", "reading"}
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
    game: Optional[str] = None  # the step's rule set, when not the spec's (it then takes no spec options)


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
    terms: dict = field(default_factory=dict)  # term -> definition, shown in the report's Terms
    reading: Optional[str] = None  # the author's paragraph reconciling measures or giving context


def type_name(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


class Checker:
    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, problem: str):
        raise SpecError(f"{self.source}: {key}: {problem}")

    def string(self, key: str, value) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, not {type_name(value)}")
        if not value.strip():
            self.fail(key, "must not be empty")
        return value

    def integer(self, key: str, value, low: int = 1, high: int = MAX_PLAYS) -> int:
        """A whole number in ``low..high``; the default cap is the most rounds or games a run
        plays, so every step's counts are checked before the first step runs."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, not {type_name(value)}")
        if value < low:
            self.fail(key, f"must be at least {low}, not {value}")
        if value > high:
            self.fail(key, f"must be at most {high:,} ({high:.0e}), not {value}")
        return value

    def number(self, key: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"must be a number, not {type_name(value)}")
        if not (math.isfinite(value) and value > 0):
            self.fail(key, f"must be a positive number, not {value}")
        return float(value)

    def finite(self, key: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(key, f"must be a finite number, not {value!r}")
        return float(value)

    def boolean(self, key: str, value) -> bool:
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, not {type_name(value)}")
        return value

    def strings(self, key: str, value, allow_one: bool = True) -> list[str]:
        if isinstance(value, str) and allow_one:
            return [self.string(key, value)]
        if not isinstance(value, list) or not value:
            self.fail(key, f"must be a non-empty list of strings, not {type_name(value)}")
        return [self.string(f"{key}[{i}]", v) for i, v in enumerate(value)]

    def terms(self, key: str, value) -> dict[str, str]:
        """A table of term = "definition", each a non-empty string."""
        if not isinstance(value, dict) or not value:
            self.fail(key, f"must be a table of term = \"definition\", e.g. {{ quit_at = \"...\" }}, "
                           f"not {type_name(value)}")
        for term, text in value.items():
            if not term.strip():
                self.fail(key, "a term must not be empty")
            self.string(f"{key}.{term}", text)
        return {str(k): " ".join(v.split()) for k, v in value.items()}

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


def _strategies(check: Checker, key: str, value, game) -> list[str]:
    from llama_sim.core import registry

    if value == "all":  # the built-in strategies only, never ones a strategies file added
        return registry.builtin_strategies(game.name)
    names = check.strings(key, value)
    for i, s in enumerate(names):
        try:
            player = registry.parse_spec(game.name, s)
            if player.strategy.user:  # a strategies file's policy compiles now, not after earlier steps ran
                player.strategy.policy
        except UsageError as exc:
            check.fail(f"{key}[{i}]" if isinstance(value, list) else key, str(exc))
    return names


def _counts(check: Checker, where: str, step: dict, defaults: dict) -> dict:
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


def _players(check: Checker, where: str, step: dict, defaults: dict, game, every: bool,
             allow_list: bool = True) -> list[int]:
    """players of a step, else of the spec's defaults, else every count the game allows (``every``)
    or one table of 4 (within the game's range)."""
    default = (list(range(game.min_players, game.max_players + 1)) if every
               else min(max(4, game.min_players), game.max_players))
    players = step.get("players", defaults.get("players", default))
    return check.player_counts(f"{where}players" if "players" in step else "players", players, game,
                               allow_list=allow_list)


def _metrics(check: Checker, key: str, value, games_mode: bool) -> list[str]:
    from llama_sim.run.simulate import compared_metrics

    names = check.strings(key, value)
    try:
        compared_metrics(games_mode, names)
    except UsageError as exc:
        check.fail(key, str(exc).replace("--metric ", "metric "))
    return names


def _grid(check: Checker, key: str, value, strategy: str, game) -> dict[str, list[float]]:
    from llama_sim.core import registry

    if not isinstance(value, dict) or not value:
        check.fail(key, f"must be a table of parameter ranges, e.g. {{ quit_at = \"0:14:1\" }}, not {type_name(value)}")
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
            check.fail(k, f"must be \"lo:hi:step\" or a non-empty list of numbers, not {type_name(spec)}")
        p = params[name]
        for v in values:
            if not p.low <= v <= p.high:
                check.fail(k, f"value {v:g} is outside [{p.low:g}, {p.high:g}]")
        grid[name] = values
    size = int(np.prod([len(v) for v in grid.values()]))
    if size > MAX_SWEEP_GRID:
        check.fail(key, f"has {size} points; at most {MAX_SWEEP_GRID}")
    return grid


# per kind: a validator returning the API keyword arguments (the kinds' keys: ``steps.STEP_KINDS``)
def check_compare(check, where, step, spec, defaults, game) -> dict:
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


def check_league(check, where, step, spec, defaults, game) -> dict:
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


def check_seat_table(check, where, step, spec, defaults, game) -> dict:
    args = _counts(check, where, step, defaults)
    if "strategies" not in step:
        check.fail(f"{where}strategies", "is required")
    strategies = _strategies(check, f"{where}strategies", step["strategies"], game)
    counts = _players(check, where, step, defaults, game, every=True)
    if "metrics" in step:
        args["metrics"] = _metrics(check, f"{where}metrics", step["metrics"], "games" in args)
    return {**args, "strategies": strategies, "players": counts}


def check_sweep(check, where, step, spec, defaults, game) -> dict:
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


def check_solve(check, where, step, spec, defaults, game) -> dict:
    if game.exact_solver is None:
        check.fail(f"{where}kind", f"solve has an exact solver for {' and '.join(solvable_names())} only, "
                                   f"not {game.name}")
    args = {}
    if "row" in step:
        args["row"] = check.string(f"{where}row", step["row"])
    if "llama_row" in step:
        args["llama_row"] = check.string(f"{where}llama_row", step["llama_row"])
    if "score" in step:
        args["score"] = check.integer(f"{where}score", step["score"], low=0, high=LAST_SCORE)
    args["table"] = check.boolean(f"{where}table", step.get("table", "row" not in step))
    if "row" not in args and not args["table"]:
        check.fail(f"{where}row", "give a row, or table = true for every row")
    from llama_sim.rulesets.dice import parse_solo_position

    try:
        parse_solo_position(args.get("row"), args.get("llama_row", "1 2 3 4 5 6 L"))
    except (UsageError, ValueError) as exc:
        check.fail(f"{where}row", str(exc))
    return args


def check_simulate(check, where, step, spec, defaults, game) -> dict:
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
                        "stage", "show", "row", "llama_row", "rows", "alone")


def check_advise(check, where, step, spec, defaults, game) -> dict:
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
        args["n_rollouts"] = check.integer(f"{where}rollouts", step["rollouts"], low=2, high=MAX_ROLLOUTS)
    if "precision" in step:
        args["precision"] = check.finite(f"{where}precision", step["precision"])
        if args["precision"] <= 0:
            check.fail(f"{where}precision", "must be positive")
    if "max_rollouts" in step:
        args["max_rollouts"] = check.integer(f"{where}max_rollouts", step["max_rollouts"], low=2, high=MAX_ROLLOUTS)
    return args


def check_chart(check, where, step, spec, defaults, game) -> dict:
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


def check_grade(check, where, step, spec, defaults, game) -> dict:
    if "strategies" not in step:
        check.fail(f"{where}strategies", "is required")
    strategies = _strategies(check, f"{where}strategies", step["strategies"], game)
    (n,) = _players(check, where, step, defaults, game, every=False, allow_list=False)
    return {"strategies": strategies, "players": n,
            "decisions": check.integer(f"{where}decisions", step.get("decisions", 2000), low=1, high=1_000_000),
            "rollouts": check.integer(f"{where}rollouts", step.get("rollouts", 200), low=2, high=100_000)}


def check_tune(check, where, step, spec, defaults, game) -> dict:
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


def check_distinct_line_up(check: Checker, where: str, kind: str, args: dict, game) -> None:
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


def check_variants(check, where, step, spec, defaults, game) -> dict:
    """A comparison under the rules and under each rule variant (``llama_sim.analysis.variants``)."""
    args = check_compare(check, where, step, spec, defaults, game)
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
            check.fail(key, f"must be a table of rule options, not {type_name(options)}")
        for k, v in options.items():
            check.string(f"{key}.{k}", v)
        try:
            game.config(**game_options(**{**base, **options}))
        except UsageError as exc:
            check.fail(key, str(exc))
    return {**args, "variants": {k: dict(v) for k, v in variants.items()}}
