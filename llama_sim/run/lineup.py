"""Line-up kernels: a rule set's kernel compiled for one line-up of strategies, which it calls directly
(every rule set whose ``RuleSet.kernel_loop`` names its block loop, see ``module_source``).

Why: a generic kernel asks every policy through a tuple of first-class functions, so one compiled
kernel (cached on disk) serves every combination of strategies. That call is opaque to the compiler:
nothing of the policy is optimised together with the loop around it. A line-up kernel has the
line-up's policies compiled into its loop, and plays more rounds per CPU-second than the generic kernel
on every bench line-up (``benchmarks/before_after.py`` and ``llamasim bench`` time both; figures in
``benchmarks/MEASUREMENTS.md``).

The price is a compile of a few seconds for each new line-up, so ``choose`` takes one only when it pays: when the run is large (``LINEUP_MIN_ROUNDS``) or when the
line-up's kernel is already in the disk cache. ``LLAMA_SIM_KERNEL=generic|lineup|auto`` (default
``auto``) overrides the choice. The results are identical either way: both kernels are the rule set's
one ``kernel_loop`` source and differ only in how a policy is asked (through the function tuple, or
by the line-up's ``decide``, see ``registry.line_up_ask``); ``tests/run/test_lineup.py`` checks it for every
rule set that has them, in rounds and in games.

Disk cache: Numba cannot cache a kernel that takes its policies as dispatcher-typed arguments (every
process would recompile it), so each line-up gets a small generated module, written next to the
other cached kernels (``lineups/<game>_<digest>.py``), whose ``core`` Numba caches like any
other. The digest covers the rule set, the strategies in slot order and the source files they are
defined in, so an edited strategies file gets a fresh kernel. (As with Numba's own cache, a change
only in a module that a user's strategies file imports is not seen: touch the strategies file.)
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import tempfile
from pathlib import Path

import numba

from llama_sim.core import registry
from llama_sim.core.cache import kernel_folder
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game
from llama_sim.core.blocks import BlockKernel
from llama_sim.core.jit import generated_module

KERNEL_MODES = ("auto", "generic", "lineup")
# A run of at least this many rounds (a game counted as ROUNDS_PER_GAME) takes a line-up kernel in
# ``auto`` mode: with a generic kernel at about a million rounds per second per thread, that is a
# run of tens of seconds, which the compile (3-5 s) shortens.
LINEUP_MIN_ROUNDS = 20_000_000
ROUNDS_PER_GAME = 6

_KERNELS: dict[str, BlockKernel] = {}  # by generated module
_PLACES: dict[tuple, tuple[str, Path]] = {}  # (rule set, ids of the line-up's Strategy objects) -> _place


def kernel_mode() -> str:
    """``LLAMA_SIM_KERNEL``, checked."""
    mode = os.environ.get("LLAMA_SIM_KERNEL", "auto").strip().lower() or "auto"
    if mode not in KERNEL_MODES:
        raise UsageError(f"LLAMA_SIM_KERNEL={mode!r}: use one of {', '.join(KERNEL_MODES)}")
    return mode


def choose(work, n_blocks: int) -> str:
    """``"lineup"`` or ``"generic"``: the kernel a run of ``n_blocks`` blocks of ``work`` (a ``Plan`` or a
    ``Design`` whose ``kernel`` is ``"auto"``) plays with."""
    mode = kernel_mode()
    if work.game.kernel_loop is None:  # a rule set without line-up kernels
        return "generic"
    if any(s.user or s.search for s in slot_strategies(work.entries)):  # a line-up kernel compiles the
        return "generic"  # policies' source into itself, unchecked and without reference counting: a
        # strategies file's code keeps its bounds checks, an allocating policy its allocations
    if mode != "auto":
        return mode
    rounds = n_blocks * work.rows * (ROUNDS_PER_GAME if work.games_mode else 1)
    if rounds >= LINEUP_MIN_ROUNDS:
        return "lineup"
    key, path = _place_of(work.game.name, slot_strategies(work.entries))
    if key not in _KERNELS and not path.is_file():  # never built here: nothing to load
        return "generic"
    return "lineup" if line_up_kernel(work.game.name, work.entries).is_cached() else "generic"


def slot_strategies(entries) -> list:
    """The distinct strategies of a line-up in slot order (``registry.policy_tuple``'s order)."""
    seen: dict[str, object] = {}
    for p in entries:
        seen.setdefault(p.strategy.name, p.strategy)
    return list(seen.values())


def _digest(game: str, strategies) -> str:
    digest = hashlib.sha256(game.encode())
    for s in strategies:
        digest.update(b"\0" + s.name.encode())
        source = inspect.getsourcefile(s.py_func)
        digest.update(Path(source).read_bytes() if source and Path(source).is_file() else s.source.encode())
    return digest.hexdigest()[:20]


def _place(game: str, strategies) -> tuple[str, Path]:
    """The line-up's key and the path of its generated module, next to the other cached kernels."""
    key = f"{game}_{_digest(game, strategies)}"
    base = kernel_folder() or Path(tempfile.gettempdir()) / "llama_sim"
    return key, base / "lineups" / f"{key}.py"


def _place_of(game: str, strategies) -> tuple[str, Path]:
    """``_place``, worked out once per line-up per process (``run_chunk`` asks at every chunk; a running
    process keeps the strategies' code it imported, whatever their files say later)."""
    line_up = (game, tuple(id(s) for s in strategies))
    if line_up not in _PLACES:
        _PLACES[line_up] = _place(game, strategies)
    return _PLACES[line_up]


def _names(fn) -> str:
    """The parameter names of a jitted function, as an argument list."""
    return ", ".join(inspect.signature(getattr(fn, "py_func", fn)).parameters)


def module_source(game: str, strategies) -> str:
    """The generated module of a line-up: its policies, a ``decide`` that calls them by slot, and ``core``,
    the rule set's block loop around that ``decide`` (``RuleSet.kernel_loop``; its first argument is
    ``decide``, None in the rule set's generic kernel). ``core`` is compiled and run as the generic loop
    is (``run_blocks``, a ``blocks.BlockKernel``). A ``decide`` passed into a separately
    compiled function would keep the kernel out of the disk cache, so the module compiles its own loop.

    Each policy is ``module_policy``'s, not the strategy's ``policy``: see there why."""
    names = ", ".join(s.name for s in strategies)
    body_name, _, loop_name = get_game(game).kernel_loop.partition(":")
    loop = getattr(importlib.import_module(body_name), loop_name)
    lines = [
        f'"""Generated by llama_sim.run.lineup: the {game} kernel for the line-up {names}. Safe to delete."""',
        "from numba import njit",
        "",
        f"import {body_name} as _body",
        "from llama_sim.core.views import readonly",
        "from llama_sim.run.lineup import module_policy",
        "",
    ]
    lines += [f"P{k} = module_policy({game!r}, {s.name!r})" for k, s in enumerate(strategies)]
    lines += ["", "", '@njit(nogil=True, inline="always")',
              "def decide(decide, policies, slot, obs, hand, legal, params, rng):"]
    for k in range(len(strategies) - 1):
        lines += [f"    if slot == {k}:", f"        return P{k}(readonly(obs), readonly(hand), legal, params, rng)"]
    lines += [f"    return P{len(strategies) - 1}(readonly(obs), readonly(hand), legal, params, rng)", "", ""]
    core_args = _names(loop).split(", ", 1)[1]  # (its first is ``decide``)
    lines += [f"def core(no_decide, {core_args}):", f"    return _body.{loop_name}(decide, {core_args})", ""]
    return "\n".join(lines)


def module_policy(game: str, name: str):
    """A built-in strategy's policy as a generated module calls it: a dispatcher of its own (the same
    function and disk cache entry as the strategy's ``policy``), compiled or loaded for ``POLICY_SIG``
    before the loop around it compiles, so it keeps its own compile flags (reference counting); ``decide``
    calls it with exactly those types (``views.readonly``), so that version is the one it calls.

    Why not the strategy's ``policy``: that dispatcher is compile-disabled once compiled (``jit.Kernel``),
    and Numba pickles such a dispatcher with its signatures, to compile them again when it is unpickled.
    The loop's callees are cached with ``decide`` (and through it these policies) in their signatures,
    so every later process that read one of their cache indexes compiled this line-up's policies again,
    inside whatever it was compiling: inside another line-up's kernel, compiled without reference
    counting, an allocating policy (Party's ``chain``) failed, and that line-up with it."""
    dispatcher = numba.njit(cache=True)(registry.get(game, name).py_func)
    dispatcher.compile(registry.POLICY_SIG.args)
    return dispatcher


def line_up_kernel(game: str, entries) -> BlockKernel:
    """The line-up kernel of ``entries`` (players of rule set ``game``): a ``BlockKernel`` run like the rule
    set's ``run_blocks``, compiled on first use and cached on disk."""
    rule_set = get_game(game)
    if rule_set.kernel_loop is None:
        raise UsageError(f"{game} has no line-up kernel; it plays with its generic kernel")
    strategies = slot_strategies(entries)
    key, path = _place_of(game, strategies)
    kernel = _KERNELS.get(key)
    if kernel is not None:
        return kernel
    # written whole (another process may be importing it); a damaged copy is rewritten
    module = generated_module(f"llamasim_lineup_{key}", path, module_source(game, strategies))
    kernel = rule_set.run_blocks.around(module.core, f"{game} kernel for {', '.join(s.name for s in strategies)}")
    _KERNELS[key] = kernel
    return kernel
