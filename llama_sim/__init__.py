"""llama_sim: Monte Carlo strategy analyser for the L.A.M.A. family of games.

Compiled kernels are cached on disk in a folder named after a hash of this package's sources
(``~/.cache/llama_sim/<hash>``, or ``$LLAMA_SIM_CACHE/<hash>``). Why: Numba checks only the file
of a cached function, but our kernels inline code from other modules and data files (``games/shedding.py`` into
``games/lama.py``, ``rng.py`` everywhere); a changed helper would otherwise leave a stale kernel
running. A user who sets ``NUMBA_CACHE_DIR`` keeps full control.
"""
import hashlib
import os
from pathlib import Path


def _source_hash() -> str:
    digest = hashlib.sha1()
    root = Path(__file__).parent
    # The bundled data too: the chart strategies freeze llama_sim/data/*_chart.json into their code.
    for path in sorted([*root.rglob("*.py"), *(root / "data").glob("*.json"), *(root / "data").glob("*.toml")]):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    import numba

    base = Path(os.environ.get("LLAMA_SIM_CACHE") or Path.home() / ".cache" / "llama_sim")
    folder = base / _source_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: Numba's default in-tree __pycache__ still works
        return
    numba.config.CACHE_DIR = str(folder)


_configure_cache()
