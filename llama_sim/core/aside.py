"""A rule set's first run compiles its policies in a second process while this one compiles the kernel.

A first ``compare`` or ``advise`` compiles two independent things: the kernel (the block loop, or the
roll-outs) and the strategies it plays (each a compiled policy, which the kernel takes as a function
pointer). Numba compiles one function at a time in a process, so they took the sum of their compile
times. With a second core, ``start`` hands the built-in strategies that are not yet on disk to a
second Python process, which compiles them into the same kernel cache; this process compiles the
kernel meanwhile, then ``Aside.wait`` waits for the other and loads the strategies from the cache. A
first run then waits for the longer of the two compiles, not for both.

The other process only fills the disk cache: it prints nothing, and whatever it did not finish (it
failed, the cache is read-only, Ctrl-C) this process compiles as before, so results never depend on
it. It starts only when both the kernel and a strategy are to be compiled, on the main thread (a
Dask worker or a pool thread has its kernels already), with at least two cores, and not under
``LLAMA_SIM_ASIDE=0``. Strategies from a strategies file are compiled here: they are never cached.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path

from llama_sim.core import registry

WAIT_SECONDS = 600  # the other process is killed after this (it compiles a few strategies: seconds)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Aside:
    """The other process, if one was started (``start``). As a context manager around the kernel's
    compile: waited for at the end, before the strategies are used; stopped at once if the compile
    fails or is interrupted (a Ctrl-C or SIGTERM sent to this process alone must not wait for it)."""

    def __init__(self, process: subprocess.Popen | None = None):
        self.process = process

    def wait(self) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        finally:
            self.stop()

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.wait()
        else:
            self.stop()


FORCED = "forced "  # a key of the other process: a strategy's forced-first-action wrapper (``advice.forced_policy``)


def start(kernel, strategies, forced=()) -> Aside:
    """Compile ``strategies`` (``registry.Strategy``) in another process while the caller compiles
    ``kernel`` (a ``jit.Kernel`` or ``jit.BlockKernel``), when that pays (see the module docstring); and
    after them the ``advise`` roll-outs' forced-first-action wrapper of each built-in of ``forced``, which
    the caller would otherwise compile after its kernel (it links the strategy's code: 0.1-0.2 s)."""
    if (kernel.is_cached() or os.environ.get("LLAMA_SIM_ASIDE") == "0"  # (cached: every call after the first)
            or threading.current_thread() is not threading.main_thread() or _cores() < 2
            or not sys.executable):  # (no executable: an embedding)
        return Aside()
    keys = list(dict.fromkeys(f"{s.game}.{s.name}" for s in strategies if not s.user and not s.is_compiled()))
    if not keys:
        return Aside()
    keys += list(dict.fromkeys(f"{FORCED}{s.game}.{s.name}" for s in forced if not s.user))
    root = str(Path(__file__).resolve().parents[2])  # where this llama_sim is imported from
    code = f"import sys; sys.path.insert(0, {root!r}); from llama_sim.core.aside import compile_policies; " \
           "compile_policies(sys.argv[1:])"
    try:
        process = subprocess.Popen([sys.executable, "-c", code, *keys], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:  # no process to spare: compile here
        return Aside()
    return Aside(process)


def compile_policies(keys: list[str]) -> None:
    """The other process: compile each ``game.name`` built-in strategy into the kernel cache, and each
    ``FORCED`` one's forced-first-action wrapper."""
    for key in keys:
        wrapper = key.startswith(FORCED)
        key = key.removeprefix(FORCED)
        game, name = key.split(".", 1)
        registry.load_builtin(game)
        policy = registry.get(game, name).policy
        if wrapper:
            from llama_sim.core.advice import advice_of, forced_policy
            from llama_sim.core.ruleset import get_game

            forced_policy(game, key, policy, advice_of(get_game(game)).turn_index)
    gc.freeze()  # the process ends here: its last collection would walk all the compiler made, for nothing
