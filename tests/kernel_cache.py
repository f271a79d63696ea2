"""A private copy of this version's kernel cache, for a test whose subprocess damages cache files or
must compile something: the shared cache stays whole for the other test processes reading it, and
what is already compiled there is copied instead of compiled again."""
import shutil
from pathlib import Path

from llama_sim.core import cache, registry


def function_entry(dispatcher) -> Path:
    """The index file of a cached Numba function's entry (``dispatcher`` compiled or loaded already, so
    the entry is on disk), relative to the version folder."""
    return Path(dispatcher._cache._cache_file._index_path).relative_to(cache.cache_folder())


def policy_entry(game: str, name: str) -> Path:
    """The index file of a built-in policy's cache entry, relative to the version folder; the policy
    is compiled (or loaded) first, so the entry is on disk."""
    return function_entry(registry.get(game, name).policy)


def entry_files(folder: Path, index: Path) -> list[Path]:
    """A cache entry's index file in ``folder`` (a version folder) and its data files."""
    index = folder / index
    return [index, *index.parent.glob(index.name[: -len(".nbi")] + ".*.nbc")]


def copied_cache(base: Path, without: tuple[Path, ...] = ()) -> Path:
    """The version folder copied into ``base`` (``LLAMA_SIM_CACHE=base`` points a subprocess at it),
    its compile locks left behind and the entries ``without`` (index files, as ``policy_entry``
    gives them) removed; returns the copy's version folder."""
    copy = base / cache.source_hash()
    shutil.copytree(cache.cache_folder(), copy, ignore=shutil.ignore_patterns("*.lock", "*.tmp"))
    for index in without:
        for path in entry_files(copy, index):
            path.unlink()
    return copy
