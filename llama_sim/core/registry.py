"""Strategy registry and the policy contract.

The contract, identical for every rule set::

    policy(obs: readonly int64[::1], hand: readonly int64[::1], legal: int64,
           params: readonly float64[::1], rng: uint64[::1]) -> int64

``obs`` is the acting player's public observation (layout documented in each game module: what that
player can see, except its own cards), ``hand`` the acting player's own cards as a count per card code
(dice: its row), ``legal`` the legal actions as a bit mask (action ``a`` is legal when
``(legal >> a) & 1``; every rule set has fewer than 64 actions), ``params`` the strategy's parameters in
declaration order (padded to ``MAX_PARAMS``), ``rng`` a generator state for ``llama_sim.core.rng``
functions. The return value is an action index of the game's action enum.

``rng``: a built-in strategy gets the table's policy stream itself, shared by every seat (its draws are
part of every seat's results, and kept exactly as they are). A strategy from a strategies file gets its
own copy instead, a fresh 2-word state drawn from that stream at each call (``own_rng_policy``: exactly
two draws of the shared stream per call, whatever the user's code does), so a user policy writing into
``rng`` (``rng[0] = 0``) or drawing more or fewer numbers changes only its own random numbers, never
another seat's. A user policy whose code never names its ``rng`` argument cannot touch it, and is handed
the shared stream as a built-in is (no fork), so it plays exactly as the same code built in.

Why this shape: the engine hands over its own row of the seat's counts as a read-only view and the
legal set as one integer, so a decision copies nothing (the earlier contract,
``policy(obs, legal, params, rng)``, had the hand inside ``obs`` and the legal set as a byte array,
both rebuilt at every decision). A strategies file written for that contract is refused at load with
one line naming the change (``OLD_CONTRACT``).

Dispatch choice: a strategy is compiled (lazily, ``cache=True``) for exactly ``POLICY_SIG`` and the
kernels take a ``UniTuple(FunctionType(POLICY_SIG), MAX_POLICIES)`` (built by ``policy_tuple`` as a
``Policies``, which Numba types at once). Because the kernel's signature does not depend on which
strategies play, each kernel compiles once and is loaded from
the disk cache by every later process, whatever strategies a user combines. For large runs a kernel
compiled for the line-up calls the policies directly (``line_up_ask``, ``llama_sim.run.lineup``): the same
results, faster. Adding a strategy touches only its strategies file: decorate a plain function with
``@strategy(...)``.
"""
from __future__ import annotations

import dis
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from numba import njit, types
from numba.extending import overload, typeof_impl

from llama_sim.core import interrupt
from llama_sim.core.declarations import Declaration, Param
from llama_sim.core.errors import USER_MODULE_PREFIX, Interrupted, UsageError, raise_site
from llama_sim.core.jit import Kernel
from llama_sim.core.policy_words import compile_error_line, return_problem
from llama_sim.core.rng import fork_state
from llama_sim.core.ruleset import game_names, get_game
from llama_sim.core.strategies_file import check_source
from llama_sim.core.views import stack_zeros

# What the engine hands a policy is read-only to it: writing to ``obs``, ``hand`` or ``params`` is a
# compile error (and ``legal`` is a value), so a strategy cannot change what the engine relies on.
OBS_TYPE = types.Array(types.int64, 1, "C", readonly=True)
HAND_TYPE = types.Array(types.int64, 1, "C", readonly=True)
LEGAL_TYPE = types.int64
PARAMS_TYPE = types.Array(types.float64, 1, "C", readonly=True)
POLICY_SIG = types.int64(OBS_TYPE, HAND_TYPE, LEGAL_TYPE, PARAMS_TYPE, types.uint64[::1])
POLICY_ARGS = ("obs", "hand", "legal", "params", "rng")
OLD_CONTRACT = ("is written for the earlier policy contract, policy(obs, legal, params, rng); a policy "
                "is now policy(obs, hand, legal, params, rng): its own cards left obs (whose later fields moved "
                "up) for hand, a count per card code, and legal is an int64 bit mask (action a is legal when "
                "(legal >> a) & 1) - see llama_sim.core.registry")
POLICY_TYPE = types.FunctionType(POLICY_SIG)
MAX_PARAMS = 8
MAX_POLICIES = 6
POLICIES_TYPE = types.UniTuple(POLICY_TYPE, MAX_POLICIES)


def line_up_ask(decide, policies, slot, obs, hand, legal, params, rng):
    """How a line-up kernel (``llama_sim.run.lineup``) asks the policy of slot ``slot``: by its own jitted
    ``decide``, which takes these arguments and calls the line-up's policies directly. A generic kernel
    passes ``decide=None`` and calls ``policies[slot](obs, hand, legal, params, rng)`` in the first-class
    function tuple itself, so one compiled kernel serves every line-up::

        if decide is None:  # known while compiling: the branch not taken is dropped
            a = policies[slot](obs, hand, legal, params, rng)
        else:
            a = line_up_ask(decide, policies, slot, obs, hand, legal, params, rng)

    (The tuple call stays written out in the kernel: wrapped in any inlined helper it measured half as
    fast, the tuple being copied at each call.) Jitted code only."""
    raise NotImplementedError("for jitted kernels only")


@overload(line_up_ask, inline="always")
def _line_up_ask(decide, policies, slot, obs, hand, legal, params, rng):
    """A ``decide`` declared ``inline="always"`` (a line-up's) is compiled into the kernel from its Python
    source at every call site: a call through its dispatcher would stay a call, opaque to the optimiser.
    Any other ``decide`` (an expert's roll-out player, whose base strategy is large) is called: Numba
    copies inlined code once per call site, and the rounds ask at several."""
    if not isinstance(decide, types.Dispatcher):
        return None
    if decide.dispatcher.targetoptions.get("inline") == "always":
        return decide.dispatcher.py_func

    def call(decide, policies, slot, obs, hand, legal, params, rng):
        return decide(None, policies, slot, obs, hand, legal, params, rng)  # (the dispatcher as a value
        # would be a dynamic global, and the kernel could not be cached)

    return call


def own_rng_policy(inner, inline: bool = True):
    """A policy running ``inner`` (a compiled user policy) with a generator state of its own: a fresh
    2-word state forked from the shared ``rng`` at each call (``rng.fork_state``: always two draws), on
    this wrapper's stack, so whatever ``inner`` writes into its ``rng`` stays in that copy. Compiled per
    user strategy, bounds-checked and never cached (a cached wrapper could call an edited file's old code).

    ``inline``: ``inner``'s code is compiled into the wrapper (Numba IR inlining, under the wrapper's
    bounds checks), one function as a built-in is; a call to the separately compiled, bounds-checked
    ``inner`` stays a call, and cost a user's copy of ``greedy`` a quarter more CPU per round than the
    built-in. ``inline=False`` calls ``inner``: the fallback for code Numba cannot inline."""
    code = njit(inline="always")(inner.py_func) if inline else inner

    if not reads_argument(inner.py_func, RNG_ARGUMENT):
        def no_rng(obs, hand, legal, params, rng):
            return code(obs, hand, legal, params, rng)

        return no_rng

    def own_rng(obs, hand, legal, params, rng):
        own = stack_zeros(2, 2, np.uint64)
        fork_state(rng, own)
        return code(obs, hand, legal, params, own)

    return own_rng


RNG_ARGUMENT = 4  # the policy contract's ``rng``: its fifth argument


def reads_argument(func, index: int) -> bool:
    """Whether ``func``'s code names its argument number ``index`` anywhere (read, written, or captured
    by an inner function). Code that never names its ``rng`` can neither draw from it nor write into it,
    so its wrapper hands over the shared stream without the fork's two draws a call."""
    code = func.__code__
    if index >= code.co_argcount:
        return False
    name = code.co_varnames[index]
    if name in code.co_cellvars:
        return True
    return any(name in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
               for ins in dis.get_instructions(code) if ins.opname in _NAMING_A_LOCAL)


# The instructions that read, write or capture a local variable (by name, in every Python version we run on).
_NAMING_A_LOCAL = frozenset({"LOAD_FAST", "STORE_FAST", "DELETE_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR",
                             "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "LOAD_CLOSURE",
                             "LOAD_DEREF"})


@dataclass
class Strategy(Declaration):
    """A registered strategy: its declaration and its code, compiled when first asked for."""

    py_func: object = field(default=None, kw_only=True)
    _kernel: Kernel | None = field(default=None, repr=False)
    _own_rng: Kernel | None = field(default=None, repr=False)
    _checked: object = field(default=None, repr=False)  # the dispatcher whose return type ``policy`` checked

    @property
    def user(self) -> bool:
        """Loaded from a strategies file (``load_file``): compiled with bounds checks, so a wrong
        index is an IndexError naming the strategy rather than a crash or corrupt memory, and played
        behind ``own_rng_policy``, so what it does with its ``rng`` touches no other seat's random
        numbers; the built-in strategies run unchecked on the shared stream, at full speed."""
        return self.source.startswith(USER_MODULE_PREFIX)

    @property
    def file(self) -> str:
        """The file of its code (for a strategies file's strategy, the file as ``load_file`` loaded it)."""
        return self.py_func.__code__.co_filename

    def _policy_kernel(self) -> Kernel:
        if self._kernel is None:
            self._kernel = Kernel(self.py_func, lambda: POLICY_SIG, f"{self.game}.{self.name}", nogil=False,
                                  boundscheck=self.user, check=self._check_returns if self.user else None)
        return self._kernel

    def _check_returns(self, compiled) -> None:
        """A user policy returns an integer on every path: Numba would convert 7.9 to action 7, and a
        path without ``return`` fails in its own words."""
        problem = return_problem(compiled, self.file)
        if problem is not None:
            raise UsageError(f"{self.game} strategy '{self.name}' ({self.source}) does not compile: {problem}")

    @property
    def place(self) -> str:
        """Where it is defined: ``file, line N`` (a built-in's file within the package)."""
        code = self.py_func.__code__
        path = Path(code.co_filename)
        shown = path.name if self.user else "/".join(path.parts[-2:])
        return f"{shown}, line {code.co_firstlineno}"

    def is_compiled(self) -> bool:
        """Its policy is compiled in this process or on disk: ``policy`` costs no compile."""
        return self._policy_kernel().is_cached()

    @property
    def policy(self):
        """The compiled policy (a Numba dispatcher, callable from Python and from kernels); for a
        user strategy, its code behind ``own_rng_policy``."""
        try:
            dispatcher = self._policy_kernel().get()
        except UsageError:  # the return check's own words
            self._kernel = None
            raise
        except Exception as exc:  # Numba's typing/lowering errors: the strategy's code, the user's input
            self._kernel = None
            if interrupt.REQUESTED.is_set():  # Ctrl-C while compiling, perhaps wrapped by Numba
                raise Interrupted() from None
            raise UsageError(f"{self.game} strategy '{self.name}' ({self.source}) does not compile: "
                             f"{compile_error_line(exc)} (--debug shows Numba's full message)",
                             details=re.sub(r"\x1b\[[0-9;]*m", "", f"{type(exc).__name__}: {exc}")) from None
        if dispatcher is not self._checked:  # (once: a run asks for the policy at every chunk)
            returns = dispatcher.nopython_signatures[0].return_type
            if returns != types.int64:  # e.g. a body that always raises: Numba types its result as none
                self._kernel = None
                raise UsageError(f"{self.game} strategy '{self.name}' ({self.source}) does not compile: it must "
                                 f"return an action (an int64), its code returns {returns}")
            self._checked = dispatcher
        if not self.user:
            return dispatcher
        if self._own_rng is None:
            self._own_rng = Kernel(own_rng_policy(dispatcher), lambda: POLICY_SIG,
                                   f"{self.game}.{self.name} (own rng)", nogil=False, boundscheck=True)
            try:
                self._own_rng.get()
            except Interrupted:
                self._own_rng = None
                raise
            except Exception:  # code that compiled alone but not inlined: the same policy, called
                if interrupt.REQUESTED.is_set():
                    self._own_rng = None
                    raise Interrupted() from None
                self._own_rng = Kernel(own_rng_policy(dispatcher, inline=False), lambda: POLICY_SIG,
                                       f"{self.game}.{self.name} (own rng)", nogil=False, boundscheck=True)
        return self._own_rng.get()

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


def failed_while_playing(exc: BaseException, strategies) -> UsageError:
    """The one line for an exception raised while ``strategies`` played that is not the engine's own
    report: only a strategies file's code (bounds-checked, see ``Strategy.user``) raises at run time. It
    names the strategy whose code raised it, found by where it was raised (``errors.raise_site``: its
    file and function, so the text is the strategy's whatever it says), or where Numba gives no place (a
    bounds check, a division by zero) the strategies files' strategies among ``strategies``; and it says
    the message is theirs, so no text a policy raises can pass for the engine's."""
    users = sorted({(s.game, s.name): s for s in strategies if s.user}.values(), key=lambda s: s.name)
    site = raise_site(exc)
    raised = [s for s in users if site is not None and s.file == site[0]]
    raised = [s for s in raised if s.py_func.__name__ == site[1]] or raised
    who = raised or users
    names = ", ".join(f"'{s.name}' ({Path(s.file).name})" for s in who)
    who_text = (f"strategy {names}" if len(who) == 1 else f"one of the strategies {names}") if who else "the engine"
    where = f" at line {site[2]}" if raised else ""
    message = " ".join(str(exc).split())[:200]
    return UsageError(f"{who_text} failed while playing: {type(exc).__name__}"
                      + (f" raised by the strategy's code{where}: {message}" if users and message else
                         f": {message}" if message else ""))


def loaded_from_files() -> list[Strategy]:
    """Every strategy this process loaded from a strategies file."""
    return [s for s in _REGISTRY.values() if s.user]


@dataclass(frozen=True)
class Player:
    """A strategy with its parameter values: one entry of a line-up."""

    strategy: Strategy
    params: np.ndarray
    label: str
    free: tuple[str, ...] = ()  # parameters the spec left unset: they take the table's preset

    def values(self) -> dict[str, float]:
        """The parameter values this player plays with (for run headers and JSON records)."""
        return {p.name: float(self.params[i]) for i, p in enumerate(self.strategy.params)}


def with_values(label: str, values: dict[str, float]) -> str:
    """``label k=v,k=v``: a strategy as a header names it, with the values it plays (``Player.values()``;
    the label alone when it has no parameters)."""
    return f"{label} " + ",".join(f"{k}={v:g}" for k, v in values.items()) if values else label


_REGISTRY: dict[tuple[str, str], Strategy] = {}


def strategy(game: str, name: str, description: str, params: dict | None = None, presets: dict | None = None,
             preset_notes: dict | None = None, search: bool = False, family: bool = False):
    """Register a policy function. ``params`` maps name -> (default, low, high[, description]);
    ``presets`` maps a player count -> {name: value}: the values a player whose spec leaves that
    parameter unset plays with at that count (``Strategy.preset_for`` says which preset 3 or 5
    players use when only 2, 4 and 6 are declared); ``preset_notes`` maps a count of ``presets`` to
    what its values mean where the numbers alone would mislead (listed by ``llamasim strategies``);
    ``search=True``: a search player (see ``Strategy.search``); ``family=True``: a family of rules
    played with chosen values ("all" leaves it out)."""

    if game not in game_names():
        raise UsageError(f"strategy {name!r} is registered for game {game!r}, which is not a rule set "
                         f"(rule sets: {', '.join(game_names())})")
    if not isinstance(name, str) or not name.isidentifier():
        raise UsageError(f"strategy name {name!r} of game {game} is not a name (letters, digits and _, "
                         f"not starting with a digit): a strategy spec could not name it")

    def decorate(fn):
        arity = fn.__code__.co_argcount
        if arity != len(POLICY_ARGS):  # (``load_file`` adds the file's name to the message)
            what = OLD_CONTRACT if arity == 4 else f"takes {arity} arguments, not the contract's {', '.join(POLICY_ARGS)}"
            raise UsageError(f"{game} strategy '{name}' (line {fn.__code__.co_firstlineno}) {what}")
        plist = tuple(Param(k, float(v[0]), float(v[1]), float(v[2]), *(v[3:4])) for k, v in (params or {}).items())
        if len(plist) > MAX_PARAMS:
            raise ValueError(f"a strategy takes at most {MAX_PARAMS} parameters")
        for p in plist:
            if not p.low <= p.default <= p.high:
                raise ValueError(f"default of {p.name} outside its bounds")
        bounds = {p.name: p for p in plist}
        table: dict[int, dict[str, float]] = {}
        for count, values in (presets or {}).items():
            if int(count) != count or count < 1:
                raise ValueError(f"preset key {count!r} is not a player count")
            for k, v in values.items():
                if k not in bounds or not bounds[k].low <= v <= bounds[k].high:
                    raise ValueError(f"preset {count}: {k}={v} is not a parameter value of {name}")
            table[int(count)] = {k: float(v) for k, v in values.items()}
        notes = {int(count): str(text) for count, text in (preset_notes or {}).items()}
        if set(notes) - set(table):
            raise ValueError(f"preset_notes of {name} name counts without a preset: {sorted(set(notes) - set(table))}")
        made = Strategy(game, name, description, plist, source=fn.__module__, presets=table, preset_notes=notes,
                        search=search, family=family, py_func=fn)
        known = _REGISTRY.get((game, name))
        if known is not None and known.py_func is not fn and (made.user or known.source != made.source):
            # never replace one silently (a module run again, e.g. a notebook's cell, redefines its own)
            where = "built in" if known.source.startswith("llama_sim.") else ""
            raise UsageError(f"{game} strategy '{name}' is defined twice: {known.place}{' (' + where + ')' if where else ''}"
                             f" and {made.place}; give one another name")
        _REGISTRY[(game, name)] = made
        return fn

    return decorate


def load_builtin(game: str) -> None:
    importlib.import_module(get_game(game).strategies_module)


def load_file(path: str | Path) -> None:
    """``load_files`` of one file."""
    load_files([path])


def _load_one(path: str | Path) -> None:
    """Import a user's strategy file; its ``@strategy`` decorators register what it defines. The file is
    read once, checked (``strategies_file.check_source``: nothing in it may print or write) and that
    very text runs, from its own path (so a policy's error names its file), with no cached bytecode."""
    import traceback

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"strategies file not found: {path}")
    if path.suffix != ".py":
        raise UsageError(f"--strategies-file {path}: a strategies file is Python source ending in .py")
    for game in game_names():  # built-ins first, so a clash with one is seen whatever the order
        load_builtin(game)
    filename = str(path.resolve())
    mod_name = _module_name(path.stem, filename)
    _forget(mod_name)  # loaded again: its own names anew
    try:
        code = compile(check_source(path, path.read_bytes()), filename, "exec")
    except UsageError:
        raise
    except Exception as exc:  # not Python (a SyntaxError, null bytes), unreadable, nested too deep
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UsageError(f"could not load strategies file {path}: {type(exc).__name__}: {first}") from None
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(mod_name, None, origin=filename))
    module.__file__ = filename
    sys.modules[mod_name] = module
    try:
        exec(code, module.__dict__)
    except UsageError as exc:
        _forget(mod_name)
        raise UsageError(f"strategies file {path}: {exc}") from None
    except Interrupted:  # Ctrl-C while loading
        _forget(mod_name)
        raise
    except BaseException as exc:  # a user's file, even one raising SystemExit or KeyboardInterrupt: report
        _forget(mod_name)
        if interrupt.REQUESTED.is_set():
            raise Interrupted() from None
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UsageError(f"could not load strategies file {path}: {type(exc).__name__}: {first}",
                         details=traceback.format_exc()) from None


_LOADING: dict[str, str] = {}  # module name -> file, of the files ``load_files`` is loading together


def _module_name(stem: str, filename: str) -> str:
    """The module name of a strategies file, from its name: a file of the same name loaded later (by
    another command in this process) takes its place, but two files loaded together keep theirs apart,
    so a strategy one defines again in the other is seen."""
    base = USER_MODULE_PREFIX + re.sub(r"\W", "_", stem)
    name, n = base, 1
    while _LOADING.setdefault(name, filename) != filename:
        n += 1
        name = f"{base}_{n}"
    return name


def _forget(mod_name: str) -> None:
    """A strategies file's module and its strategies gone (it failed to load, or loads again)."""
    sys.modules.pop(mod_name, None)
    for key in [k for k, s in _REGISTRY.items() if s.source == mod_name]:
        del _REGISTRY[key]


def load_files(paths) -> None:
    """``load_file`` of each of ``paths`` (None, one path or several), in order."""
    if paths is None:
        return
    _LOADING.clear()
    try:
        for path in [paths] if isinstance(paths, (str, Path)) else paths:
            _load_one(path)
    finally:
        _LOADING.clear()


def strategies_for(game: str) -> list[Strategy]:
    load_builtin(game)
    return [s for (g, _), s in sorted(_REGISTRY.items()) if g == game]


def builtin_strategies(game: str, searches: bool = False) -> list[str]:
    """The names of a rule set's own strategies (those of its ``strategies_module``; never ones a
    strategies file or a test added), without its search players and rule families unless ``searches``
    (what "all" plays)."""
    module = get_game(game).strategies_module
    return [s.name for s in strategies_for(game)
            if s.source == module and (searches or not (s.search or s.family))]


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
    return Player(strat, vec, label, tuple(p.name for p in strat.params if p.name not in overrides))


def at_table(player: Player, n_players: int) -> Player:
    """``player`` as it plays at a table of ``n_players``: every parameter its spec left unset takes
    the strategy's preset for that count (the label stays: it names what the user asked for; the
    values played are ``Player.values()``). Players built directly keep their values."""
    preset = player.strategy.preset_for(n_players)
    use = {k: v for k, v in preset.items() if k in player.free}
    if not use:
        return player
    vec = player.params.copy()
    for i, p in enumerate(player.strategy.params):
        if p.name in use:
            vec[i] = use[p.name]
    return replace(player, params=vec)


class Policies(tuple):
    """The policy tuple kernels take (``POLICIES_TYPE``): compiled policies, one per slot. Typed by
    Numba at once at each kernel call (``_typeof_policies``): a plain tuple of dispatchers is typed by
    comparing each dispatcher's compiled signatures, 0.18 ms per call (a third of a small chunk's
    cost). Only ``policy_tuple`` builds one, from policies compiled for ``POLICY_SIG``."""


@typeof_impl.register(Policies)
def _typeof_policies(val, c):
    return POLICIES_TYPE


def policy_tuple(players: list[Player]) -> tuple[Policies, np.ndarray]:
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
    padded = Policies(tuple(funcs) + (funcs[0],) * (MAX_POLICIES - len(funcs)))
    return padded, np.array(slots, dtype=np.int64)
