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

from llama_sim.core import registry
from llama_sim.core.commands import Command
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import all_games

def rule_set_of(values: dict):
    """The rule set a call names (None when it names none, or one that does not exist: the function
    then says so in the usual words)."""
    game = values.get("game")
    return all_games().get(game) if isinstance(game, str) else None


def extra_keys(command: Command) -> set[str]:
    """The keywords a call may add to the declared ones: rule-set options and, for a command that
    reads a position, position options. Every rule set's: one that does not take an option says so
    in its own words (``RuleSet.config``, ``make_position``)."""
    keys: set[str] = set()
    for game in all_games().values():
        if command.rule_options:
            keys |= set(game.options)
        if command.position and game.advice is not None:
            keys |= set(game.advice_position_help()[0])
    return keys


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
        read = {name: command.param(name).read(value) for name, value in given.items() if name in command.names}
        values = {p.name: read.get(p.name, p.default) for p in command.params}
        allowed = extra_keys(command)
        for key in extra:
            if key not in allowed and key not in named:
                command.unknown(key, tuple(sorted(allowed)))
        command.check(values, rule_set_of(values))
        call = {**given, **read}
        if call.get("strategies_file") is not None and "strategies_file" not in named:
            registry.load_files(call.pop("strategies_file"))  # a command whose analysis takes no file
        call = {k: v for k, v in call.items() if k in named or var_kw is not None}
        return fn(**call, **extra)

    return wrapper
