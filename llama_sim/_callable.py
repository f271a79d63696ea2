"""Modules that are also API functions: ``llama_sim.simulate``, ``advise``, ``chart`` and ``tune``.

Why: the package's submodules ``simulate.py``, ``advise.py``, ``chart.py`` and ``tune.py`` share their
names with the API functions ``llama_sim.simulate(...)``, ``llama_sim.advise(...)`` and so on. Python binds a submodule to the
package attribute of the same name whenever it is imported, so a plain function there would be
replaced by the module. Instead each of these modules is made callable: calling it calls the API
function of ``llama_sim.api`` (same arguments), and its attributes stay the module's.
"""
from __future__ import annotations

import sys
import types


def make_callable(module_name: str, api_name: str) -> None:
    """Turn ``sys.modules[module_name]`` into a module whose call runs ``llama_sim.api.<api_name>``."""

    class CallableModule(types.ModuleType):
        def __call__(self, *args, **kwargs):
            from . import api

            return getattr(api, api_name)(*args, **kwargs)

    CallableModule.__call__.__doc__ = f"Call ``llama_sim.api.{api_name}`` (see its docstring)."
    sys.modules[module_name].__class__ = CallableModule
