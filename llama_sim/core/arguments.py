"""The Python API's argument checks, from the commands' declarations (``core.commands``).

``declared_api(command, fn)`` binds a call to ``fn``'s signature (so positional arguments work as
documented), reads every declared argument with the declaration (strict types and ranges: the
message the command line and a spec give for the same mistake), runs the command's cross-checks,
and names a keyword that is neither declared nor an option of the rule set, with the close match.
It never returns a raw TypeError from deep inside a run, or a wrong answer (``vs="greedy"`` read as
the strategies 'g', 'r', ...; ``rounds=True`` played as one round).
"""
from __future__ import annotations

import functools
import inspect

from llama_sim.core.commands import DEFAULT_MAX_ROUNDS, Command, Problem  # noqa: F401  (DEFAULT_MAX_ROUNDS: for the CLI)
from llama_sim.core.errors import UsageError

# Keywords an API function takes besides its command's parameters: what the library caller hands in
# (a progress callback, a ready rule-set config, whether to write files), checked by the function.
PASSED_THROUGH = {"progress", "cfg", "write", "command"}


def rule_set_of(command: Command, values: dict):
    """The rule set a call names (None when it names none, or one that does not exist: the function
    then says so in the usual words)."""
    from llama_sim.core.ruleset import all_games

    game = values.get("game")
    return all_games().get(game) if isinstance(game, str) else None


def extra_keys(rule_set, command: Command) -> set[str]:
    """The keywords a call may add to the declared ones: rule-set options and, for a command that
    reads a position, position options (every rule set's: the rule set names those it does not take)."""
    from llama_sim.core.ruleset import all_games

    keys: set[str] = set()
    for game in all_games().values():  # another rule set's option: the rule set says it takes none such
        if command.rule_options:
            keys |= set(game.options)
        if command.position and game.advice is not None:
            keys |= set(game.advice_position_help()[0])
    return keys


def check_flags(rule_set, options: dict) -> None:
    """A position flag (Kadabra's ``show``, dice's ``alone``) is a boolean, never the string "false"."""
    if rule_set is None or rule_set.advice is None:
        return
    flags = rule_set.advice_position_help()[1]
    for key, value in options.items():
        if key in flags and value is not None and not isinstance(value, bool):
            from llama_sim.core.commands import shown

            raise Problem(key, f"must be true or false, not {shown(value)}")


def declared_api(command: Command, fn):
    """``fn`` with its arguments read by ``command``'s declaration first (see the module docstring)."""
    sig = inspect.signature(fn)
    var_kw = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD), None)
    named = [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for key in kwargs:
            if key not in named and key not in command.names and var_kw is None:
                command.unknown(key)
        declared_only = {k: kwargs.pop(k) for k in list(kwargs) if k in command.names and k not in named}
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"{command.name}: {exc}") from None
        given = {k: v for k, v in bound.arguments.items() if k != var_kw}
        given.update(declared_only)
        extra = dict(bound.arguments.get(var_kw, {}))
        read = {}
        for name, value in given.items():
            if name in command.names:
                read[name] = command.param(name).read(value)
            elif name not in PASSED_THROUGH:
                read[name] = value
        values = {p.name: read.get(p.name, p.default) for p in command.params}
        rule_set = rule_set_of(command, values)
        allowed = extra_keys(rule_set, command)
        for key in extra:
            if key not in allowed and key not in named:
                command.unknown(key, tuple(sorted(allowed)))
        check_flags(rule_set, extra)
        command.check(values, rule_set)
        call = {k: (read[k] if k in read else v) for k, v in given.items()}
        if call.get("strategies_file") is not None and "strategies_file" not in named:
            from llama_sim.core import registry  # a command whose analysis takes no file: loaded here

            registry.load_files(call.pop("strategies_file"))
        call = {k: v for k, v in call.items() if k in named or var_kw is not None}
        return fn(**call, **extra)

    return wrapper
