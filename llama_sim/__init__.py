"""llama_sim: Monte Carlo strategy analyser for the L.A.M.A. family of games.

Compiled kernels are cached on disk in a folder named after a hash of this package's sources
(``~/.cache/llama_sim/<hash>``, or ``$LLAMA_SIM_CACHE/<hash>``; ``core.cache`` says why a hash). A user
who sets ``NUMBA_CACHE_DIR`` keeps full control. Importing llama_sim changes nothing for anyone else's
compiled functions: the cache folder, the collector paused while compiling and the rebuilt damaged
entries apply to this package's own (``core.compiling``), set up when a module of ours that compiles
is imported, so commands that compile nothing (``--help``, ``games``) start without loading Numba.

The Python API (``llama_sim.api``) is re-exported here and imported lazily, so ``import llama_sim``
stays cheap: ``simulate``, ``compare``, ``seat_table``, ``sweep``, ``luck_gain``, ``solve``, ``advise``,
``chart``, ``tune``, ``league``, ``run_experiment``, ``compare_variants``; and ``strategy``, the decorator
a strategies file registers its policies with (its constants and helpers: ``llama_sim.rulesets.<game>.kit``).
"""
from llama_sim.core import moved  # (the previous release's import paths)

moved.install()

__all__ = ["simulate", "compare", "seat_table", "sweep", "luck_gain", "solve", "advise", "chart", "card", "tune", "league", "grade",
           "trace", "check", "run_experiment", "compare_variants"]


def __getattr__(name: str):
    """Lazy API: nothing heavy (pandas, numba kernels) is imported until it is used."""
    import importlib

    if name in __all__:
        return getattr(importlib.import_module(".api", __name__), name)
    if name == "strategy":  # the decorator a strategies file registers with (``core.registry.strategy``)
        return importlib.import_module(".core.registry", __name__).strategy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
