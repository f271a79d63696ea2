"""Where compiled kernels are cached: a folder named after a hash of the package's sources.

Why a hash: Numba checks only the file of a cached function, but our kernels inline code from other
modules and data files (``rulesets/shedding/`` into ``rulesets/lama/``, ``core/rng.py`` everywhere);
a changed helper would otherwise leave a stale kernel running. The strategy library (top-level
``strategies/``, installed as ``llama_sim.strategies``) is part of the hash, and so is the bundled
data: the chart strategies freeze each rule set's ``chart.json`` into their code. Nothing here imports
Numba (``core.compiling`` points Numba at the folder for our functions, ``is_own``, and calls
``guard_entries``).
"""
from __future__ import annotations

import functools
import glob
import os
import sys
import weakref
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


GENERATED: set[str] = set()  # the modules ``core.jit.generated_module`` wrote (line-up kernels, advise's)
COMPILED = weakref.WeakSet()  # the functions a ``core.jit.Kernel`` compiles (a user's policy among them)


def is_own(py_func) -> bool:
    """A function of this package, of a module it generated, or one it compiles through ``Kernel``: the
    ones cached in our folder, compiled with the collector paused and guarded against damaged entries.
    Anything else (a user's own compiled function) Numba handles as if llama_sim were not there."""
    if py_func is None:
        return False
    module = getattr(py_func, "__module__", None) or ""
    if module == "llama_sim" or module.startswith("llama_sim.") or module in GENERATED:
        return True
    try:
        return py_func in COMPILED
    except TypeError:  # (not weakly referable: not one of ours)
        return False


def cache_folder() -> Path | None:
    """This version's folder (``~/.cache/llama_sim/<hash>``, or ``$LLAMA_SIM_CACHE/<hash>``); None when
    the user's ``NUMBA_CACHE_DIR`` decides instead."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    base = Path(os.environ.get("LLAMA_SIM_CACHE") or Path.home() / ".cache" / "llama_sim")
    return base / source_hash()


def kernel_folder() -> Path | None:
    """Where our compiled functions are cached, and the modules we generate for Numba to cache are
    written: this version's folder when it can be made, the user's ``NUMBA_CACHE_DIR`` when that decides;
    None (a read-only home) when Numba's own default does."""
    folder = cache_folder()
    if folder is None:
        return Path(os.environ["NUMBA_CACHE_DIR"])
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def notice(text: str) -> None:
    """One line on stderr about the cache; a closed or full stderr loses it."""
    try:
        print(f"llamasim: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def remove_entry(index: str) -> bool:
    """Delete a cache entry's index and data files, with a one-line notice (it is rebuilt); False when
    the index could not be deleted."""
    base = Path(index).name[: -len(".nbi")]
    gone = True
    for path in [Path(index), *Path(index).parent.glob(f"{glob.escape(base)}.*.nbc")]:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            gone = False
    notice(f"the kernel cache file {index} (or its data) was damaged; rebuilding it")
    return gone


def guard_entries(caching) -> None:
    """Let every cached function of ours (``is_own``: a kernel, a helper Python calls directly) outlive a
    damaged or unwritable cache, given Numba's ``numba.core.caching``; anyone else's loads and saves
    as Numba has them.

    Reading: an entry that fails to load (a truncated, empty or garbage index or data file, from an
    interrupted write or a full disk, fails in Numba's unpickling with EOFError, UnpicklingError or
    almost anything else) is removed with a one-line notice and compiled again; a Ctrl-C that lands in
    the loader stops the command and leaves the entry. Writing: once the cache folder takes no more
    files (a full disk, a read-only folder), this process saves nothing more, with a one-line notice,
    instead of failing every compile."""
    from llama_sim.core import interrupt

    load, save = caching.Cache.load_overload, caching.Cache.save_overload
    saving = True

    def load_overload(self, sig, target_context):
        if not is_own(self._py_func):
            return load(self, sig, target_context)
        try:
            return load(self, sig, target_context)
        except Exception:
            if interrupt.REQUESTED.is_set():  # (the command line's Ctrl-C, raised inside the loader)
                raise
            if not remove_entry(self._cache_file._index_path):
                self.disable()  # (it stays: this function compiles without its cache in this process)
            return None

    def save_overload(self, sig, data):
        nonlocal saving
        if not is_own(self._py_func):
            return save(self, sig, data)
        if not saving:
            return
        try:
            save(self, sig, data)
        except OSError as exc:
            saving = False
            notice(f"cannot write the kernel cache ({exc.strerror or exc}); compiled kernels are not saved "
                   "in this run")

    caching.Cache.load_overload, caching.Cache.save_overload = load_overload, save_overload
