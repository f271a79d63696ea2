"""Argument checks for the Python API: the same one-line ``UsageError`` the CLI gives, never a raw
TypeError from deep inside a run (or, worse, a wrong answer: ``vs="greedy"`` iterated as the
strategies 'g', 'r', ...; ``rounds=True`` played as one round).

``checked(fn)`` binds the call to ``fn``'s signature (a misspelt keyword is named, with the close
match) and checks each given value against the parameter's annotation, or for an unannotated
parameter against ``NAME_TYPES``. Values equal to the default pass (``None`` included).
"""
from __future__ import annotations

import difflib
import functools
import inspect
import numbers
import os
import sys
import types
import typing
from pathlib import Path
from typing import Optional, Sequence, Union

from llama_sim.core.errors import UsageError

# The cap of a --precision run when none is given (rounds, or games with --games, per table): the API's
# default, stated here so that the command line's help can name it without importing the API.
DEFAULT_MAX_ROUNDS = 20_000_000

NAME_TYPES = {  # parameters some API functions leave unannotated
    "position_file": Optional[Path], "actions": Optional[Sequence[str]], "policy": Optional[str],
    "opponents": Optional[Sequence[str]], "horizon": str, "n_rollouts": Optional[int],
    "precision": Optional[float], "max_rollouts": int, "seed": int, "threads": Optional[int],
    "players": Optional[int], "game": str, "dice_layout": Optional[str], "deck_file": Optional[Path],
    "strategies_file": Optional[Path], "spec": Union[Path, dict],
}


_UNIONS = (Union, types.UnionType)  # Optional[int] and int | None
_PLURAL = {str: "strings", int: "whole numbers", float: "numbers"}


def _describe(hint) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in _UNIONS:
        names = [_describe(a) for a in args if a is not type(None)]
        return " or ".join(names) + (" or None" if type(None) in args else "")
    if origin in (list, tuple, Sequence, typing.get_origin(Sequence[str])):
        inner = [a for a in args if a is not Ellipsis]
        return f"a list of {_PLURAL.get(inner[0], _describe(inner[0]))}" if inner else "a list"
    return {int: "a whole number (int)", float: "a number", bool: "True or False", str: "a string",
            Path: "a path (str or Path)", dict: "a dict"}.get(hint, getattr(hint, "__name__", str(hint)))


def _is_bool(value) -> bool:
    """A Python or numpy bool; numpy's without importing numpy (the command line reads this module at
    start-up): a value can only be a numpy bool if numpy is already loaded."""
    numpy = sys.modules.get("numpy")
    return isinstance(value, bool) or (numpy is not None and isinstance(value, numpy.bool_))


def _fits(value, hint) -> bool:
    if hint is None or hint is typing.Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in _UNIONS:
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return _is_bool(value)
    if hint is int:
        return isinstance(value, numbers.Integral) and not _is_bool(value)
    if hint is float:
        return isinstance(value, numbers.Real) and not _is_bool(value)
    if hint is str:
        return isinstance(value, str)
    if hint is Path:
        return isinstance(value, (str, os.PathLike))
    if origin in (list, tuple) or origin is typing.get_origin(Sequence[str]):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            return False
        inner = [a for a in args if a is not Ellipsis]
        return not inner or all(_fits(v, inner[0]) for v in value)
    if origin is not None:
        return isinstance(value, origin)
    return not isinstance(hint, type) or isinstance(value, hint)


def checked(fn):
    """``fn`` with its arguments checked first (see the module docstring)."""
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an annotation that does not resolve: fall back to the names
        hints = {}
    named = [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    extra = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD), None)
    where = f"{fn.__name__}()"

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for key in kwargs:  # a misspelt keyword: named, even where **options would swallow it
            if key not in named:
                close = difflib.get_close_matches(key, named, n=1, cutoff=0.75)
                if extra is None or close:
                    hint = f" (did you mean {close[0]}?)" if close else f" (it takes: {', '.join(named)})"
                    raise UsageError(f"{where} got an unexpected keyword argument '{key}'{hint}")
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"{where}: {exc}") from None
        for name, value in bound.arguments.items():
            param = sig.parameters[name]
            if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                continue
            if value is param.default and (value is None or isinstance(value, (bool, int, float, str, tuple))):
                continue
            hint = hints.get(name, NAME_TYPES.get(name))
            if hint is not None and not _fits(value, hint):
                raise UsageError(f"{where}: {name} must be {_describe(hint)}, not {type(value).__name__} "
                                 f"{_short(value)}")
        return fn(*bound.args, **bound.kwargs)

    return wrapper


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
