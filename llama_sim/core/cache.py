"""Where compiled kernels are cached: a folder named after a hash of the package's sources.

Why a hash: Numba checks only the file of a cached function, but our kernels inline code from other
modules and data files (``rulesets/shedding/`` into ``rulesets/lama/``, ``core/rng.py`` everywhere);
a changed helper would otherwise leave a stale kernel running. The strategy library (top-level
``strategies/``, installed as ``llama_sim.strategies``) is part of the hash, and so is the bundled
data: the chart strategies freeze each rule set's ``chart.json`` into their code. Nothing here imports
Numba (``llama_sim/__init__.py`` points Numba at the folder when Numba is imported).
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def _strategies_folder() -> Path | None:
    """Where ``llama_sim.strategies`` is: the top-level ``strategies/`` of a source tree or an
    editable install, or ``llama_sim/strategies`` inside an installed wheel."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("llama_sim.strategies")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


@functools.cache
def source_hash() -> str:
    import hashlib

    digest = hashlib.sha1()
    files = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.json"), *PACKAGE.rglob("*.toml")]
    strategies = _strategies_folder()
    if strategies is not None and PACKAGE not in strategies.parents:  # the strategy library, kept outside
        files += [p for p in strategies.glob("*.py")]
    for path in sorted(files):
        digest.update(str(path.name if PACKAGE not in path.parents else path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path | None:
    """This version's folder (``~/.cache/llama_sim/<hash>``, or ``$LLAMA_SIM_CACHE/<hash>``); None when
    the user's ``NUMBA_CACHE_DIR`` decides instead."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    base = Path(os.environ.get("LLAMA_SIM_CACHE") or Path.home() / ".cache" / "llama_sim")
    return base / source_hash()
