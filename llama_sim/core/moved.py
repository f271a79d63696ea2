"""Import paths of the previous release, kept working: a strategies file written for it (``from
llama_sim.registry import strategy``, ``from llama_sim.games.lama import DRAW``) loads unchanged, with one
notice naming the new path. An old name is the new module itself (one module, one registry), made by
``MovedModules``, an import hook ``llama_sim/__init__`` installs.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {"llama_sim.registry": "llama_sim.core.registry", "llama_sim.rng": "llama_sim.core.rng",
         "llama_sim.views": "llama_sim.core.views", "llama_sim.chart_data": "llama_sim.core.chart_data",
         "llama_sim.errors": "llama_sim.core.errors", "llama_sim.games.common": "llama_sim.core.scoring",
         "llama_sim.games.draws": "llama_sim.core.draws", "llama_sim.games": "llama_sim.rulesets",
         "llama_sim.core.engine": "llama_sim.core.scoring"}
NEW_SURFACE = "for strategies: from llama_sim import strategy, and llama_sim.rulesets.<game>.kit"
SILENT = {"llama_sim.games"}  # a package imported on the way to a moved module: the module's notice says it


def new_name(name: str) -> str | None:
    """Where the module once called ``name`` is now (None: it was never moved)."""
    if name in MOVED:
        return MOVED[name]
    if name.startswith("llama_sim.games."):  # a rule set's modules: llama_sim.games.<game>[.<module>]
        return "llama_sim.rulesets." + name.removeprefix("llama_sim.games.")
    return None


def _importer() -> tuple[str, int, dict | None]:
    """The file and line that imported the old name (the first frame outside the import machinery and
    this module), for the notice to point at."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename == __file__ or "importlib" in frame.f_code.co_filename
                                 or frame.f_code.co_filename.startswith("<frozen")):
        frame = frame.f_back
    if frame is None:
        return "llama_sim", 0, None
    return frame.f_code.co_filename, frame.f_lineno, frame.f_globals


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module it now is, with one ``FutureWarning``."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=new)

    def create_module(self, spec):
        module = importlib.import_module(spec.origin)
        if spec.name not in SILENT:
            filename, line, globals_ = _importer()
            warnings.warn_explicit(f"{spec.name} moved to {spec.origin}; the old path will go ({NEW_SURFACE})",
                                   FutureWarning, filename, line, module_globals=globals_)
        spec.own = module.__spec__  # the import system sets the alias's spec on it: restored below
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.own if hasattr(module.__spec__, "own") else module.__spec__


def install() -> None:
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())  # (before the path finder: an old package's modules are the new ones)
