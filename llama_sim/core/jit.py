"""Lazily compiled, disk-cached kernels.

Every kernel has one explicit signature and is compiled on first use with ``cache=True``, so a
process that never runs the dice game never compiles it, and a second process loads machine code
from the cache in milliseconds. ``on_compile`` lets the CLI say "compiling" on the first run.
"""
from __future__ import annotations

import warnings
from typing import Callable

from numba import njit
from numba.core.errors import NumbaExperimentalFeatureWarning

# Policies are passed to kernels as first-class functions (see registry.py); Numba labels that
# feature experimental and warns on every compile. The warning carries no information for users.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

on_compile: Callable[[str], None] | None = None


def _is_cached(dispatcher) -> bool:
    """True when numba's on-disk index holds entries for this exact source (not a stale file)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba internals moved: we only lose the notice
        return False


class Kernel:
    """A nopython function compiled for one signature on first call, then cached on disk."""

    def __init__(self, py_func, signature_factory, label: str | None = None, nogil: bool = True,
                 boundscheck: bool = False):
        self.py_func = py_func
        self.signature_factory = signature_factory
        self.label = label or py_func.__qualname__
        self.nogil = nogil
        # Bounds-checked code is never cached: Numba's cache index does not tell a checked build
        # from an unchecked one of the same source, so a cached file could drop the checks.
        self.boundscheck = boundscheck
        self._dispatcher = None

    def _jit(self):
        if self.boundscheck:
            return njit(cache=False, nogil=self.nogil, boundscheck=True)(self.py_func)
        return njit(cache=True, nogil=self.nogil)(self.py_func)

    def get(self):
        if self._dispatcher is None:
            dispatcher = self._jit()
            if on_compile is not None and not self.boundscheck and not _is_cached(dispatcher):  # (the notice
                # says "cached for later runs"; a checked policy is small and compiles in about a second)
                on_compile(self.label)
            dispatcher.compile(self.signature_factory())
            dispatcher.disable_compile()
            self._dispatcher = dispatcher
        return self._dispatcher

    def is_cached(self) -> bool:
        """Compiled in this process already, or on disk: ``get`` costs no compile."""
        return self._dispatcher is not None or (not self.boundscheck and _is_cached(self._jit()))

    def __call__(self, *args):
        return self.get()(*args)
