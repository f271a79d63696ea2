"""Files and folders written whole or not at all, and output paths checked before any work.

Every output (tables, plots, emitted strategies, report folders) is first written under a temporary
name (``.llamasim-*.tmp``) in its target folder, so the final rename is atomic (same file system).
The rename is the one step that decides: without ``force`` a file is hard-linked into place
(``os.link`` fails if the name exists, so two runs cannot both win) and a folder renamed onto a
name that must not exist; with ``force`` the old file is replaced, or the old folder (only one the
caller recognises as its own) swapped out and removed. Installs take a lock on the target folder,
so a run's several files land together, and hold SIGINT/SIGTERM until they are done
(``hold_signal``). On any failure, Ctrl-C or SIGTERM the temporary file or folder is removed.
"""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Optional

from llama_sim.core.errors import UsageError

TEMP_PREFIX = ".llamasim-"
_held = {"depth": 0, "pending": None}
installed: list[Path] = []  # every file and folder this process put in place, for the Ctrl-C message


def hold_signal(signum: int) -> bool:
    """Called by a signal handler: True (and the signal kept for later) while an install runs."""
    if _held["depth"]:
        _held["pending"] = signum
        return True
    return False


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    _held["depth"] += 1
    try:
        yield
    finally:
        _held["depth"] -= 1
        if _held["depth"] == 0 and _held["pending"] is not None:
            signum, _held["pending"] = _held["pending"], None
            signal.raise_signal(signum)  # delivered now, to the same handler


@contextlib.contextmanager
def _locked(folders) -> Iterator[None]:
    """An advisory lock on each folder (other llamasim runs wait; a file system without locks: none)."""
    import fcntl

    fds = []
    try:
        for folder in sorted({str(Path(f).resolve()) for f in folders}):
            try:
                fd = os.open(folder, os.O_RDONLY)
            except OSError:
                continue
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                pass
        yield
    finally:
        for fd in fds:
            os.close(fd)


def _conflict(path: Path) -> UsageError:
    return UsageError(f"{path} appeared while this run was working (another run?); "
                      "nothing written (pass --force to overwrite it)")


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_target(path: Path, option: str, force: bool, folder: bool = False,
                 is_ours: Optional[Callable[[Path], Optional[str]]] = None) -> None:
    """Refuse an output path before any work: no NUL byte, a name the file system allows, a parent
    folder that exists and takes new files, not a folder (``folder``: not a file), and no existing
    target unless ``force``; with ``force`` a folder is replaced only when ``is_ours`` returns None
    (else the reason it is not ours)."""
    text = str(path)
    if "\0" in text:
        raise UsageError(f"{option} {text!r}: embedded null byte in the path")
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise UsageError(f"{option} {path}: give a {'folder' if folder else 'file'} name")
    parent = path.parent
    if not parent.exists():
        raise UsageError(f"{option} {path}: folder {parent} does not exist")
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a folder")
    if len(os.fsencode(path.name)) > _name_max(parent):
        raise UsageError(f"{option} {path.name[:40]}...: the name is longer than the file system allows "
                         f"({_name_max(parent)} bytes)")
    if len(os.fsencode(os.path.abspath(text))) >= 4096:
        raise UsageError(f"{option}: the path is longer than the system allows (4096 bytes)")
    if folder:
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise UsageError(f"{path} exists and is not a folder")
    elif path.is_dir():
        example = path / ("results.csv" if option == "--out" else f"name{path.suffix}")
        raise UsageError(f"{option} {path} is a folder; give a file name such as {example}")
    if os.path.lexists(path):
        if not force:
            raise UsageError(f"{path} exists; pass --force to {'replace' if folder else 'overwrite'} it")
        if folder and is_ours is not None:
            reason = is_ours(path)
            if reason is not None:
                raise UsageError(f"--force replaces only a report folder llamasim wrote: {path} {reason}; "
                                 "nothing replaced")
    try:  # a real probe: permission bits do not tell root, read-only mounts or /proc apart
        fd, probe = tempfile.mkstemp(dir=parent, prefix=TEMP_PREFIX, suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in folder {parent} ({exc.strerror or exc})") from None


def temp_file(path: Path) -> Path:
    """A new empty temporary file in ``path``'s folder, ending in ``path``'s suffix (writers such
    as matplotlib choose the format by it)."""
    fd, tmp = tempfile.mkstemp(dir=Path(path).parent, prefix=TEMP_PREFIX, suffix=".tmp" + Path(path).suffix)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # the mode a plain open() gives, not mkstemp's private 0600
    finally:
        os.close(fd)
    return Path(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def install(files: dict[Path, Path], force: bool, output: bool = True) -> None:
    """Move each written temporary file (target -> temporary) into place, all or none: without
    ``force`` no existing file is touched, and one that appeared meanwhile is a conflict.
    ``output``: a file the user asked for (listed in ``installed``), not one of the caches."""
    linked: list[Path] = []
    with _signals_held(), _locked(Path(p).parent for p in files):
        try:
            if not force:
                for path in files:
                    if os.path.lexists(path):
                        raise _conflict(Path(path))
            for path, tmp in files.items():
                if force:
                    os.replace(tmp, path)
                    continue
                try:
                    os.link(tmp, path)  # fails if the name exists: the check and the claim are one step
                except FileExistsError:
                    raise _conflict(Path(path)) from None
                except OSError as exc:  # a file system without hard links: checked under the lock
                    if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                        raise
                    if os.path.lexists(path):
                        raise _conflict(Path(path)) from None
                    os.replace(tmp, path)
                linked.append(Path(path))
                Path(tmp).unlink(missing_ok=True)
        except BaseException:
            for path in linked:
                path.unlink(missing_ok=True)
            raise
        if output:
            installed.extend(Path(p) for p in files)


@contextlib.contextmanager
def writing(target: Path, tmp: Path) -> Iterator[None]:
    """An OSError while writing ``tmp`` names ``target``, the file the user asked for."""
    try:
        yield
    except OSError as exc:
        if exc.errno is None or exc.filename not in (None, str(tmp)):
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc


@contextlib.contextmanager
def whole_files(paths, force: bool, output: bool = True) -> Iterator[dict[Path, Path]]:
    """Yield {target: temporary path}; write each temporary file, and on leaving all are installed
    together (``install``), or on any failure removed."""
    temps: dict[Path, Path] = {}
    try:
        for path in paths:
            temps[Path(path)] = temp_file(Path(path))
        try:
            yield temps
        except OSError as exc:  # name the file the user asked for, not the temporary one
            names = {str(t): p for p, t in temps.items()}
            target = names.get(str(exc.filename)) if exc.filename else next(iter(temps), None)
            if exc.errno is None or target is None:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
        install(temps, force, output)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def whole_file(path: Path, force: bool = True, output: bool = True) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s content to; installed when the block ends."""
    with whole_files([path], force, output) as temps:
        yield temps[Path(path)]


def write_text(path: Path, text: str, force: bool = True, output: bool = True) -> None:
    """``path.write_text(text)``, whole or not at all (``output``: see ``install``)."""
    with whole_file(path, force, output) as tmp:
        tmp.write_text(text)


@contextlib.contextmanager
def whole_folder(path: Path, force: bool, is_ours: Callable[[Path], Optional[str]]) -> Iterator[Path]:
    """Yield a temporary folder next to ``path``; when the block ends it is renamed into place. An
    existing ``path`` is a conflict, or with ``force`` replaced if ``is_ours`` recognises it (returns
    None); on any failure the temporary folder is removed and ``path`` is untouched."""
    path = Path(path)
    tmp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())
        with _signals_held(), _locked([path.parent]):
            if os.path.lexists(path):
                if not force:
                    raise _conflict(path)
                reason = is_ours(path) if path.is_dir() and not path.is_symlink() else "is not a folder"
                if reason is not None:
                    raise UsageError(f"--force replaces only a report folder llamasim wrote: {path} {reason}; "
                                     "nothing replaced")
                old = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, suffix=".old", dir=path.parent))
                os.rename(path, old)  # onto an empty folder: allowed, atomic
                try:
                    os.rename(tmp, path)
                except BaseException:
                    os.rename(old, path)
                    raise
                shutil.rmtree(old, ignore_errors=True)
            else:
                try:
                    os.rename(tmp, path)
                except OSError as exc:
                    if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                        raise _conflict(path) from None
                    raise
            installed.append(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
