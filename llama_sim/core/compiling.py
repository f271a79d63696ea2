"""How Numba compiles and caches llama_sim's own functions, and only those.

Importing this module (every module of the package that compiles imports it, itself or through
``core.rng``, before it defines a compiled function) sets up three things, each of which looks at
the function concerned and leaves anyone else's (a user's own ``@njit(cache=True)``) exactly as Numba
would have it:

- ``OwnCacheLocator``: our functions are cached in this version's folder (``core.cache.cache_folder``),
  not wherever Numba would put them; Numba picks a function's locator when it is decorated.
- ``CollectorPause``: our compiles run with the garbage collector paused.
- ``core.cache.guard_entries``: a damaged or unwritable cache entry of ours is rebuilt or skipped.
"""
from __future__ import annotations

import gc
import os

from numba.core import caching, event

from llama_sim.core.cache import cache_folder, guard_entries, is_own


class OwnCacheLocator(caching.UserProvidedCacheLocator):
    """Numba's locator for a user-provided cache folder (the same layout inside it), pointed at ours and
    claiming our functions only. None (Numba's own locators decide) for anything else, when the user's
    ``NUMBA_CACHE_DIR`` decides, or when the folder cannot be written (a read-only home: Numba's
    in-tree ``__pycache__`` still works)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(str(cache_folder()), self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not is_own(py_func) or cache_folder() is None:
            return None
        return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class CollectorPause(event.Listener):
    """Numba makes millions of objects while it compiles, few of them garbage in reference cycles; the
    collector's passes over them (and over everything already imported) were 0.5-0.7 s of a rule set's
    first compile. A compile of ours (a kernel, a strategy, a chart's or advise's loop, a user's policy
    compiled through ``core.jit.Kernel``) runs with it paused, at about 27 MB more at the peak; a
    caller who turned it off keeps it off, and a compile of someone else's function is left alone.

    Numba signals the start and end of each compile, the nested ones of the functions it calls too,
    under its compiler lock: one thread at a time, so a depth count finds the outermost, whose
    function decides."""

    depth = 0
    paused = False
    resume = False

    def on_start(self, ev):
        if self.depth == 0:
            dispatcher = (ev.data or {}).get("dispatcher")
            self.paused = dispatcher is not None and is_own(getattr(dispatcher, "py_func", None))
            if self.paused:
                self.resume = gc.isenabled()
                gc.disable()
        self.depth += 1

    def on_end(self, _):
        self.depth -= 1
        if self.depth == 0 and self.paused:
            self.paused = False
            if self.resume:
                gc.enable()


def _install() -> None:
    if OwnCacheLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes = [OwnCacheLocator, *caching.CacheImpl._locator_classes]
    event.register("numba:compile", CollectorPause())
    guard_entries(caching)


_install()
