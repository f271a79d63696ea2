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

    def __init__(self, py_func, signature_factory, label: str | None = None, nogil: bool = True):
        self.py_func = py_func
        self.signature_factory = signature_factory
        self.label = label or py_func.__qualname__
        self.nogil = nogil
        self._dispatcher = None

    def get(self):
        if self._dispatcher is None:
            dispatcher = njit(cache=True, nogil=self.nogil)(self.py_func)
            if on_compile is not None and not _is_cached(dispatcher):
                on_compile(self.label)
            dispatcher.compile(self.signature_factory())
            dispatcher.disable_compile()
            self._dispatcher = dispatcher
        return self._dispatcher

    def is_cached(self) -> bool:
        """Compiled in this process already, or on disk: ``get`` costs no compile."""
        return self._dispatcher is not None or _is_cached(njit(cache=True, nogil=self.nogil)(self.py_func))

    def __call__(self, *args):
        return self.get()(*args)
