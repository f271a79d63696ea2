"""What an experiment spec holds and how its parts are checked: the ``Spec`` and ``Step`` records,
the ``Checker`` that names the offending key in every error, and a step's validation, derived from
its command's declaration (``core.commands``): a step's keys are the command's parameters, read with
the same words as the command line and the API, then what only the rule set and the strategy
registry can check (strategies, metrics, a position), so a spec fails before anything runs."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

import numpy as np

from llama_sim.analysis.runs import game_options
from llama_sim.core import registry
from llama_sim.core.commands import COMMANDS, Command, Problem, default_players
from llama_sim.core.errors import UsageError
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
    strategies_file: Optional[list[Path]] = None
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
        if "\0" in value:
            self.fail(key, "must not hold a NUL character")
        return value

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

    def unknown(self, where: str, given: dict, allowed) -> None:
        for key in given:
            if key not in allowed:
                self.fail(f"{where}{key}", f"unknown key (allowed: {', '.join(sorted(allowed))})")

    def read(self, key: str, param, value):
        """``value`` read by a declared parameter, its problem named at ``key``."""
        try:
            return param.read(value)
        except Problem as exc:
            self.fail(key, exc.problem)


# A list of player counts runs a compare step once per count.
PER_COUNT = {"compare"}
# The defaults a step always carries: its run's size (scaled by --scale, named in its method line).
FILLED = {"chart": ("games",), "grade": ("decisions", "rollouts"), "tune": ("budget",), "sweep": ("vs",),
          "league": ("strategies",)}
MAX_STEP_NAME = 100  # a step's name names its files (name + table + suffix): well within any file system's 255


def step_command(kind: str) -> Command:
    """A step kind is the command of its name (``core.commands``)."""
    return COMMANDS[kind]


def step_keys(kind: str, game) -> set[str]:
    """The keys a step of ``kind`` takes: its command's parameters, and a position's for advise."""
    command = step_command(kind)
    keys = {p.key for p in command.params if p.key is not None}
    if command.position and game.advice is not None:
        keys |= set(game.advice_position_help()[0])
    return keys


def _key_of(command: Command, name: str) -> str:
    try:
        return command.param(name).key or name
    except KeyError:
        return name


def _strategy_names(check: Checker, key: str, names: list[str], game, listed: bool) -> list[str]:
    """Each name a strategy the registry knows, with legal values (a strategies file's policy compiles
    now, not after earlier steps ran); ``listed``: the spec gave a list (the key names the entry)."""
    for i, s in enumerate(names):
        try:
            player = registry.parse_spec(game.name, s)
            if player.strategy.user:
                player.strategy.policy
        except UsageError as exc:
            check.fail(f"{key}[{i}]" if listed else key, str(exc))
    return names


def read_step(check: Checker, where: str, kind: str, step: dict, defaults: dict, game) -> dict:
    """A step's API keyword arguments: its own keys, else the spec's defaults (players and the counts),
    each read by the command's declaration; then the cross-checks."""
    command = step_command(kind)
    names = set(command.names)
    own_counts = [k for k in COUNT_KEYS if k in step]
    given, origin = {}, {}
    for p in command.params:
        if p.key is None:
            continue
        if p.key in step:
            given[p.name], origin[p.name] = step[p.key], f"{where}{p.key}"
        elif p.key in defaults and (p.key == "players" or (p.key in COUNT_KEYS and not own_counts)):
            given[p.name], origin[p.name] = defaults[p.key], p.key
    for key in COUNT_KEYS:  # a spec-wide count this command does not take
        if key in defaults and not own_counts and key not in names:
            check.fail(key, f"{command.name} takes no {key} (give the step its own rounds or games)")
    per_count = kind in PER_COUNT and isinstance(given.get("players"), list)
    counts = given.pop("players") if per_count else None
    try:
        values = {}
        for p in command.params:
            if p.key is None:
                values[p.name] = p.default
                continue
            try:
                values[p.name] = p.read(given.get(p.name))
            except Problem as exc:
                check.fail(origin.get(p.name, f"{where}{p.key}"), exc.problem)
        if per_count:  # the declared count, read as a list of counts
            values["players"] = replace(command.param("players"), many=True).read(counts)
        elif kind in PER_COUNT:
            values["players"] = [values["players"] if values["players"] is not None else default_players(game)]
        elif "players" in values and values["players"] is None and not command.position:  # every count, or 4
            # (a position gives its own table)
            many = command.param("players").many
            values["players"] = (list(range(game.min_players, game.max_players + 1)) if many
                                 else default_players(game))
        if values.get("strategies") == ["all"]:  # the built-in strategies, never ones a strategies file added
            values["strategies"] = registry.builtin_strategies(game.name)
        for c in command.checks:
            c(values)
        for c in command.game_checks:
            if per_count or kind in PER_COUNT:
                for n in values["players"]:
                    c({**values, "players": n}, game)
            else:
                c(values, game)
    except Problem as exc:
        check.fail(origin.get(exc.name, f"{where}{_key_of(command, exc.name)}"), exc.problem)
    keep = set(given) | set(FILLED.get(kind, ())) | {"players"}
    return {k: v for k, v in values.items()
            if v is not None and command.param(k).key is not None and (k in keep or command.param(k).required)}


def check_step(check: Checker, where: str, kind: str, step: dict, options: dict, defaults: dict, game) -> dict:
    """A step's API keyword arguments, every check done: the declaration's, then the strategies, the
    metrics, and what only the step's analysis knows (its position, grid, field, variants)."""
    command = step_command(kind)
    args = read_step(check, where, kind, step, defaults, game)
    for p in command.params:
        if p.metavar == "STRATEGY" and args.get(p.name) is not None:
            key = f"{where}{p.key}" if p.key in step else p.key
            names = args[p.name] if isinstance(args[p.name], list) else [args[p.name]]
            checked = _strategy_names(check, key, names, game, isinstance(step.get(p.key), list))
            args[p.name] = checked if isinstance(args[p.name], list) else checked[0]
    if "metrics" in args:
        from llama_sim.run.tables import compared_metrics

        try:
            compared_metrics(args.get("games") is not None, args["metrics"])
        except UsageError as exc:
            check.fail(f"{where}metrics", str(exc).replace("--metric ", ""))
    CHECKS.get(kind, lambda *a: None)(check, where, args, step, options, game)
    return args


def _check_league(check, where, args, step, options, game) -> None:
    labels = [registry.parse_spec(game.name, s).label for s in args.get("strategies", ["all"])]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            check.fail(f"{where}strategies", f"'{label}' is listed twice")


def _check_sweep(check, where, args, step, options, game) -> None:
    base = registry.parse_spec(game.name, args["strategy"])
    params = {p.name: p for p in base.strategy.params}
    for name, values in args["param"].items():
        if name not in params:
            check.fail(f"{where}grid.{name}", f"{game.name} strategy '{base.strategy.name}' has no parameter "
                                              f"'{name}' (parameters: {', '.join(params) or 'none'})")
        p = params[name]
        for v in values:
            if not p.low <= v <= p.high:
                check.fail(f"{where}grid.{name}", f"value {v:g} is outside [{p.low:g}, {p.high:g}]")


def _check_solve(check, where, args, step, options, game) -> None:
    if game.exact_solver is None:
        check.fail(f"{where}kind", f"solve has an exact solver for {' and '.join(solvable_names())} only, "
                                   f"not {game.name}")
    args.setdefault("table", "row" not in args)
    if "row" not in args and not args["table"]:
        check.fail(f"{where}row", "give a row, or table = true for every row")
    if game.check_solve_position is None:
        return
    try:
        llama_row = args.get("llama_row", COMMANDS["solve"].param("llama_row").default)
        game.check_solve_position(args.get("row"), llama_row)
    except (UsageError, ValueError) as exc:
        check.fail(f"{where}row", str(exc))


def _check_advise(check, where, args, step, options, game) -> None:
    """The position's keys are ``llamasim advise``'s options (TOML strings, numbers or lists), checked
    by the advisor's own parser, under the step's rules (a deck file changes the cards it may hold)."""
    from llama_sim.analysis.advise import make_position
    from llama_sim.core.advice import advice_of

    position = {k: step[k] for k in game.advice_position_help()[0] if k in step}
    try:
        counts = advice_of(game).deck_counts(game.config(**options)) if options else None
        make_position(game.name, deck_counts=counts, **position)
    except Problem as exc:  # one position key's value (a flag that is not a boolean): named at that key
        check.fail(f"{where}{exc.name}", exc.problem)
    except (UsageError, ValueError, TypeError) as exc:
        check.fail(f"{where}position", str(exc))
    args["position"] = position


def _check_chart(check, where, args, step, options, game) -> None:
    from llama_sim.analysis.chart import chart_games

    if game.chart is None:
        check.fail(f"{where}kind", f"quit charts exist for {', '.join(chart_games())}, not {game.name}")


def _check_tune(check, where, args, step, options, game) -> None:
    from llama_sim.analysis.tune import parse_field
    base = registry.parse_spec(game.name, args["strategy"])
    if not base.strategy.params:
        check.fail(f"{where}strategy", f"{base.strategy.name} has no parameters to tune")
    try:
        parse_field(game.name, ",".join(args.get("vs", ["self"])), args["players"])
    except UsageError as exc:
        check.fail(f"{where}vs", str(exc).replace("--vs: ", ""))


def _check_compare(check, where, args, step, options, game) -> None:
    """Two compared strategies that play the same policy with the same values at a table (a spec
    that leaves a parameter unset plays the count's preset) would compare a strategy with itself."""
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


def _check_variants(check, where, args, step, options, game) -> None:
    """A comparison under the rules and under each rule variant (``llama_sim.analysis.variants``)."""
    base = {k: v for k, v in options.items() if k not in game.file_options}
    for name, variant in args["variants"].items():
        key = f"{where}variants.{name}"
        for k, v in variant.items():
            check.string(f"{key}.{k}", v)
        try:
            game.config(**game_options(**{**base, **variant}))
        except UsageError as exc:
            check.fail(key, str(exc))


CHECKS = {"league": _check_league, "sweep": _check_sweep, "solve": _check_solve, "advise": _check_advise,
          "chart": _check_chart, "tune": _check_tune, "compare": _check_compare, "variants": _check_variants}
