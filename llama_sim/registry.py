"""Strategy registry and the policy contract.

The contract, identical for every rule set::

    policy(obs: readonly int64[::1], legal: readonly uint8[::1], params: readonly float64[::1],
           rng: uint64[::1]) -> int64

``obs`` is the acting player's observation (layout documented in each game module, only what that
player can see), ``legal[a] == 1`` marks legal actions, ``params`` holds the strategy's parameters
in declaration order (padded to ``MAX_PARAMS``), ``rng`` is a generator state for ``llama_sim.rng``
functions. The return value is an action index of the game's action enum.

Dispatch choice: a strategy is compiled (lazily, ``cache=True``) for exactly ``POLICY_SIG`` and the
kernels take a ``UniTuple(FunctionType(POLICY_SIG), MAX_POLICIES)``. Because the kernel's
signature does not depend on which strategies play, each kernel compiles once and is loaded from
the disk cache by every later process, whatever strategies a user combines; an indirect call costs
about 20 ns (measured). Adding a strategy touches only its strategies file: decorate a plain
function with ``@strategy(...)``.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import types

from .errors import UsageError
from .jit import Kernel

# What the engine hands a policy is read-only to it: writing to ``obs``, ``legal`` or ``params`` is a
# compile error, so a strategy cannot mark an action legal or change what other seats observe.
OBS_TYPE = types.Array(types.int64, 1, "C", readonly=True)
LEGAL_TYPE = types.Array(types.uint8, 1, "C", readonly=True)
PARAMS_TYPE = types.Array(types.float64, 1, "C", readonly=True)
POLICY_SIG = types.int64(OBS_TYPE, LEGAL_TYPE, PARAMS_TYPE, types.uint64[::1])
POLICY_TYPE = types.FunctionType(POLICY_SIG)
MAX_PARAMS = 8
MAX_POLICIES = 6
POLICIES_TYPE = types.UniTuple(POLICY_TYPE, MAX_POLICIES)


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    low: float
    high: float
    description: str = ""


@dataclass
class Strategy:
    game: str
    name: str
    description: str
    params: tuple[Param, ...]
    py_func: object
    source: str = "built-in"
    _kernel: Kernel | None = field(default=None, repr=False)

    @property
    def policy(self):
        """The compiled policy (a Numba dispatcher, callable from Python and from kernels)."""
        if self._kernel is None:
            self._kernel = Kernel(self.py_func, lambda: POLICY_SIG, f"{self.game}.{self.name}", nogil=False)
        try:
            return self._kernel.get()
        except Exception as exc:  # Numba's typing/lowering errors: the strategy's code, the user's input
            self._kernel = None
            raise UsageError(f"{self.game} strategy '{self.name}' ({self.source}) does not compile: "
                             f"{compile_error_line(exc)} (--debug shows Numba's full message)",
                             details=re.sub(r"\x1b\[[0-9;]*m", "", f"{type(exc).__name__}: {exc}")) from None

    def param_vector(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        overrides = dict(overrides or {})
        vec = np.zeros(MAX_PARAMS, dtype=np.float64)
        for i, p in enumerate(self.params):
            value = overrides.pop(p.name, p.default)
            if not (p.low <= value <= p.high):
                raise UsageError(
                    f"parameter {p.name}={value:g} of {self.game} strategy '{self.name}' is outside [{p.low:g}, {p.high:g}]"
                )
            vec[i] = value
        if overrides:
            known = ", ".join(p.name for p in self.params) or "none"
            raise UsageError(
                f"{self.game} strategy '{self.name}' has no parameter '{next(iter(overrides))}' (parameters: {known})"
            )
        return vec


def compile_error_line(exc: Exception) -> str:
    """The first informative line of a Numba error, with the strategy's file and line: Numba's
    messages open with a generic 'Failed in nopython mode pipeline' line."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # Numba colours its messages on a terminal
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("Failed in ", "During: "))] or lines or [type(exc).__name__]
    where = next((ln.rstrip(":") for ln in lines if ln.startswith("File ")), "")
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:  # "... found for signature:" + the signature
        first += " " + lines[1].lstrip("> ")
    return first + (f" ({where})" if where and where != lines[0] else "")


@dataclass(frozen=True)
class Player:
    """A strategy with its parameter values: one entry of a line-up."""

    strategy: Strategy
    params: np.ndarray
    label: str


_REGISTRY: dict[tuple[str, str], Strategy] = {}


def strategy(game: str, name: str, description: str, params: dict | None = None):
    """Register a policy function. ``params`` maps name -> (default, low, high[, description])."""

    def decorate(fn):
        plist = tuple(Param(k, float(v[0]), float(v[1]), float(v[2]), *(v[3:4])) for k, v in (params or {}).items())
        if len(plist) > MAX_PARAMS:
            raise ValueError(f"a strategy takes at most {MAX_PARAMS} parameters")
        for p in plist:
            if not p.low <= p.default <= p.high:
                raise ValueError(f"default of {p.name} outside its bounds")
        known = _REGISTRY.get((game, name))
        if known is not None and known.source != fn.__module__:  # never replace one silently
            where = "built-in" if known.source.startswith("llama_sim.") else f"from {known.source}"
            raise UsageError(f"{game} strategy '{name}' is already defined ({where}); give yours another name")
        _REGISTRY[(game, name)] = Strategy(game, name, description, plist, fn, source=fn.__module__)
        return fn

    return decorate


def load_builtin(game: str) -> None:
    importlib.import_module(f"llama_sim.strategies.{game}")


def load_file(path: str | Path) -> None:
    """Import a user's strategy file; its ``@strategy`` decorators register what it defines."""
    import traceback

    from .games import all_games

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"strategies file not found: {path}")
    if path.suffix != ".py":
        raise UsageError(f"--strategies-file {path}: a strategies file is Python source ending in .py")
    for game in all_games():  # built-ins first, so a clash with one is seen whatever the order
        load_builtin(game)
    mod_name = "llamasim_user_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except UsageError as exc:
        sys.modules.pop(mod_name, None)
        raise UsageError(f"strategies file {path}: {exc}") from None
    except Exception as exc:  # a user's file: report, don't trace back
        sys.modules.pop(mod_name, None)
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UsageError(f"could not load strategies file {path}: {type(exc).__name__}: {first}",
                         details=traceback.format_exc()) from None


def strategies_for(game: str) -> list[Strategy]:
    load_builtin(game)
    return [s for (g, _), s in sorted(_REGISTRY.items()) if g == game]


def get(game: str, name: str) -> Strategy:
    load_builtin(game)
    try:
        return _REGISTRY[(game, name)]
    except KeyError:
        names = ", ".join(s.name for s in strategies_for(game))
        raise UsageError(f"unknown {game} strategy '{name}' (known: {names})") from None


def parse_spec(game: str, spec: str) -> Player:
    """``name`` or ``name:k=v,k=v`` -> Player."""
    name, _, rest = spec.strip().partition(":")
    strat = get(game, name.strip())
    overrides: dict[str, float] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq:
                raise UsageError(f"bad strategy parameter '{item}' in '{spec}' (expected k=v)")
            if key.strip() in overrides:
                raise UsageError(f"parameter {key.strip()} is given twice in '{spec}'")
            try:
                overrides[key.strip()] = float(value)
            except ValueError:
                raise UsageError(f"parameter {key.strip()} in '{spec}' is not a number: '{value}'") from None
    vec = strat.param_vector(overrides)
    label = strat.name if not overrides else f"{strat.name}:" + ",".join(f"{k}={v:g}" for k, v in overrides.items())
    return Player(strat, vec, label)


def policy_tuple(players: list[Player]) -> tuple:
    """Distinct strategies of a line-up as the fixed-length tuple kernels take, and each player's slot."""
    funcs: list = []
    slot_of: dict[str, int] = {}
    slots = []
    for p in players:
        key = p.strategy.game + "." + p.strategy.name
        if key not in slot_of:
            slot_of[key] = len(funcs)
            funcs.append(p.strategy.policy)
        slots.append(slot_of[key])
    padded = tuple(funcs) + (funcs[0],) * (MAX_POLICIES - len(funcs))
    return padded, np.array(slots, dtype=np.int64)
