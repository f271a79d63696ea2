"""Lazily compiled, disk-cached kernels.

Every kernel has one explicit signature and is compiled on first use with ``cache=True``, so a
process that never runs the dice game never compiles it, and a second process loads machine code
from the cache in milliseconds. ``on_compile`` lets the CLI say "compiling" on the first run. A
damaged cache entry is rebuilt wherever it is read (``core.cache.guard_entries``).
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path
from typing import Callable

from numba import njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from llama_sim.core import compiling  # noqa: F401  (our compiles' cache folder and collector pause)
from llama_sim.core.cache import COMPILED, GENERATED, notice
from llama_sim.core.draws import NO_NRT

# Policies are passed to kernels as first-class functions (see registry.py); Numba labels that
# feature experimental and warns on every compile. The warning carries no information for users.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

on_compile: Callable[[str], None] | None = None


def _is_cached(dispatcher, args=None) -> bool:
    """True when numba's on-disk index holds entries for this exact source (not a stale file); with
    ``args``, an entry compiled for these argument types (a function compiled for several kernels, one
    per signature, has the others' entries in the same index)."""
    try:
        index = dispatcher._cache._cache_file._load_index()
        return bool(index) if args is None else any(key[0] == args for key in index)
    except Exception:  # numba internals moved: we only lose the notice
        return False


@contextlib.contextmanager
def _compiling(dispatcher):
    """Held while this process compiles a cache entry: another process about to compile the same entry
    (a second ``llamasim`` started at once, a Dask worker, the other half of a parallel test run) waits,
    then loads what this one wrote (Numba reads the cache index again when it compiles) instead of
    compiling it too. A lock file next to the entry's index; where none can be made (a read-only cache,
    no ``fcntl``) each process compiles for itself, as before. The lock goes with the process."""
    try:
        import fcntl

        fd = os.open(dispatcher._cache._cache_file._index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    except Exception:  # (numba internals moved, or no lock to be had: compile unlocked)
        fd = None
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def with_stack_headroom(function, *args):
    """``function(*args)`` with about a MiB of Python frame stack free above it.

    Why: CPython (3.11 on) keeps frames on a per-thread stack of 16 KiB chunks, unmaps a chunk as soon as
    the stack shrinks out of it and maps a fresh one when it grows back. Numba's compiler recurses deeply
    and crosses such a boundary back and forth: in a process whose stack is already deep (a test worker, a
    Dask worker) a kernel's compile made hundreds of thousands of mmap/munmap pairs, each with fresh zeroed
    pages, about a sixth of its CPU time. This frame declares an evaluation stack of ``STACK_HEADROOM``
    slots (never used, never touched), so CPython gives it a 2 MiB chunk of its own, and everything the
    compile calls runs in that chunk's free half, with no boundary to cross."""
    return function(*args)


STACK_HEADROOM = 140_000  # slots of 8 bytes: a frame of just over 1 MiB, so its chunk is 2 MiB
with_stack_headroom.__code__ = with_stack_headroom.__code__.replace(co_stacksize=STACK_HEADROOM)


class Kernel:
    """A nopython function compiled for one signature on first call, then cached on disk."""

    def __init__(self, py_func, signature_factory, label: str | None = None, nogil: bool = True,
                 boundscheck: bool = False, no_nrt: bool = False, check=None):
        self.py_func = py_func
        self.check = check  # called with the result compiled for the argument types alone, before any
        # conversion to the declared return type: it may refuse what it returns
        self.signature_factory = signature_factory
        self.label = label or py_func.__qualname__
        self.nogil = nogil
        self.no_nrt = no_nrt  # compiled without reference counting (``draws.NO_NRT``): it allocates nothing
        # Bounds-checked code is never cached: Numba's cache index does not tell a checked build
        # from an unchecked one of the same source, so a cached file could drop the checks.
        self.boundscheck = boundscheck
        self._dispatcher = None

    def _jit(self):
        COMPILED.add(self.py_func)  # compiled by this package, a user's policy too: ours to cache and pause for
        if self.boundscheck:
            return njit(cache=False, nogil=self.nogil, boundscheck=True)(self.py_func)
        return njit(cache=True, nogil=self.nogil, **(NO_NRT if self.no_nrt else {}))(self.py_func)

    def get(self):
        if self._dispatcher is None:
            dispatcher = self._jit()
            to_cache = not self.boundscheck and not _is_cached(dispatcher, self._args())  # (checked code is never cached)
            if on_compile is not None and to_cache:  # (the notice says "cached for later runs"; a
                # checked policy is small and compiles in a second)
                on_compile(self.label)
            with _compiling(dispatcher) if to_cache else contextlib.nullcontext():
                dispatcher = with_stack_headroom(self._compile, dispatcher)
            dispatcher.disable_compile()
            self._dispatcher = dispatcher
        return self._dispatcher

    def _compile(self, dispatcher):
        """Compiled for the argument types alone: the key under which Numba also caches a call from
        compiled code, so a function some kernel already called with these types (an expert's base
        strategy) is loaded, not compiled again. A declared return type the code does not give exactly
        (an int8 action) takes a compile with the whole signature, where Numba converts; code that only
        raises (its result typed none) keeps its own, for the caller to refuse."""
        signature = self.signature_factory()
        args = self._args()
        dispatcher.compile(args)
        if self.check is not None:
            self.check(dispatcher.overloads[args])
        returns = dispatcher.overloads[args].signature.return_type
        if returns in (signature.return_type, types.none):
            return dispatcher
        dispatcher = self._jit()
        dispatcher.compile(signature)
        return dispatcher

    def _args(self) -> tuple:
        """The argument types it is compiled for (the key of its cache entry)."""
        return tuple(self.signature_factory().args)

    def is_cached(self) -> bool:
        """Compiled in this process already, or on disk: ``get`` costs no compile."""
        return self._dispatcher is not None or (not self.boundscheck and _is_cached(self._jit(), self._args()))

    def __call__(self, *args):
        return self.get()(*args)


# The modification time of every generated module: its text is fixed by its name, so a copy rewritten
# after damage keeps matching what was compiled from it (Numba's cache and Python's bytecode check a
# source by its modification time and size) and its kernels load instead of compiling again.
GENERATED_MTIME_NS = 1_000_000_000 * 10**9  # (2001-09-09: any fixed time would do)


def generated_module(name: str, path: Path, source: str):
    """Import module ``name`` from ``path``, a file this package generates into the kernel cache
    folder with the text ``source``: written whole when missing; a damaged copy (a different text,
    or a ``.pyc`` that fails to load) is rewritten with a one-line notice instead of failing every run."""
    import importlib.util

    from llama_sim.core.files import whole_file

    if name in sys.modules:
        return sys.modules[name]
    GENERATED.add(name)
    for attempt in (1, 2):
        try:
            current = path.read_bytes()
        except OSError:
            current = None
        if current != source.encode():
            if current is not None:
                notice(f"the generated kernel module {path} was damaged; rewriting it")
            path.parent.mkdir(parents=True, exist_ok=True)
            with whole_file(path, True, False) as tmp:
                tmp.write_text(source)
                os.utime(tmp, ns=(GENERATED_MTIME_NS, GENERATED_MTIME_NS))
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # Numba's cache finds the module's globals through it
            spec.loader.exec_module(module)
            return module
        except Exception:
            sys.modules.pop(name, None)
            if attempt == 2:
                raise
            notice(f"the compiled copy of {path} was damaged; rebuilding it")
            for stale in (Path(importlib.util.cache_from_source(str(path))), path):
                try:
                    stale.unlink()
                except OSError:
                    pass
