"""llama_sim: Monte Carlo strategy analyser for the L.A.M.A. family of games.

Compiled kernels are cached on disk in a folder named after a hash of this package's sources
(``~/.cache/llama_sim/<hash>``, or ``$LLAMA_SIM_CACHE/<hash>``; ``core.cache`` says why a hash). A user
who sets ``NUMBA_CACHE_DIR`` keeps full control. The folder is set
when Numba is imported (``_NumbaCacheFolder``), not when llama_sim is: commands that compile
nothing (``--help``, ``games``) then start without loading Numba at all.

Numba's compiles run with the garbage collector paused (``_CollectorPause``), and a damaged cache entry
is rebuilt (``core.cache.guard_entries``), both set up at the same point.

The Python API (``llama_sim.api``) is re-exported here and imported lazily, so ``import llama_sim``
stays cheap: ``simulate``, ``compare``, ``seat_table``, ``sweep``, ``solve``, ``advise``,
``chart``, ``tune``, ``league``, ``run_experiment``, ``compare_variants``; and ``strategy``, the decorator
a strategies file registers its policies with (its constants and helpers: ``llama_sim.rulesets.<game>.kit``).
"""
import gc
import sys


def _configure_cache(numba) -> None:
    from llama_sim.core.cache import cache_folder

    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: Numba's default in-tree __pycache__ still works
        return
    numba.config.CACHE_DIR = str(folder)


def _pause_collector_while_compiling() -> None:
    """Numba makes millions of objects while it compiles, few of them garbage in reference cycles; the
    collector's passes over them (and over everything already imported) were 0.5-0.7 s of a rule set's
    first compile. Every compile (a kernel, a strategy, a chart's or advise's loop, a user's policy)
    runs with it paused, at about 27 MB more at the peak; a caller who turned it off keeps it off."""
    from numba.core import event

    class _CollectorPause(event.Listener):
        # Numba signals the start and end of each compile, the nested ones of the functions it calls
        # too, under its compiler lock: one thread at a time, so a depth count finds the outermost.
        depth = 0
        resume = False

        def on_start(self, _):
            if self.depth == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.depth += 1

        def on_end(self, _):
            self.depth -= 1
            if self.depth == 0 and self.resume:
                gc.enable()

    event.register("numba:compile", _CollectorPause())


def _on_numba_import(numba) -> None:
    from numba.core import caching

    from llama_sim.core.cache import guard_entries

    _configure_cache(numba)
    _pause_collector_while_compiling()
    guard_entries(caching)


class _NumbaCacheFolder:
    """An import hook that points Numba at the cache folder (and pauses the collector while it
    compiles) right after Numba's own ``__init__`` has run, before any module can define a cached
    function (Numba reads the folder when a function is decorated with ``cache=True``). It removes
    itself at Numba's import; it finds nothing else."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "numba":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _on_numba_import(module)

        spec.loader.exec_module = exec_module  # this spec's own loader object
        return spec


if "numba" in sys.modules:
    _on_numba_import(sys.modules["numba"])
elif not any(isinstance(f, _NumbaCacheFolder) for f in sys.meta_path):
    sys.meta_path.insert(0, _NumbaCacheFolder())

from llama_sim.core import moved  # noqa: E402  (the previous release's import paths)

moved.install()

__all__ = ["simulate", "compare", "seat_table", "sweep", "solve", "advise", "chart", "tune", "league", "grade",
           "trace", "check", "run_experiment", "compare_variants"]


def __getattr__(name: str):
    """Lazy API: nothing heavy (pandas, numba kernels) is imported until it is used."""
    import importlib

    if name in __all__:
        return getattr(importlib.import_module(".api", __name__), name)
    if name == "strategy":  # the decorator a strategies file registers with (``core.registry.strategy``)
        return importlib.import_module(".core.registry", __name__).strategy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
