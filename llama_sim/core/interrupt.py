"""Kernel calls that Ctrl-C can stop.

Compiled code never looks at signals: a kernel called on the main thread holds Ctrl-C until it
returns (a policy from a strategies file that loops forever, never). So the main thread hands
every kernel call to a worker thread and waits on it in short slices; Python runs the SIGINT
handler between slices. A kernel still running after Ctrl-C cannot be stopped from Python: the
command line then reports and ends the process with ``os._exit`` (``still_running`` tells it).
"""
from __future__ import annotations

import signal
import sys
import threading

REQUESTED = threading.Event()  # set by the CLI's Ctrl-C handler: code that turns exceptions into user
# errors (a compile error, a policy's exception) checks it, since Numba may wrap the interrupt in its own error
_RUNNING: set[threading.Thread] = set()  # worker threads inside a kernel call
_LOCK = threading.Lock()
# Rounds and games this process has played (finished chunks), for the Ctrl-C message.
played = {"rounds": 0, "games": 0}


def stop_line(signum: int) -> str:
    """The one line of a command stopped by Ctrl-C (``signum`` 2) or SIGTERM (15): how far it got and
    what it put in place. Safe in a signal handler at any moment: it imports nothing."""
    files = sys.modules.get("llama_sim.core.files")  # (not imported yet: nothing written)
    installed = getattr(files, "installed", [])
    done = f"{played['games']} games" if played["games"] and not played["rounds"] else f"{played['rounds']} rounds"
    how = "terminated" if signum == signal.SIGTERM else "interrupted"
    wrote = f"already wrote {', '.join(map(str, installed))}" if installed else "nothing written"
    return f"llamasim: {how} after {done}; {wrote}"


def still_running() -> bool:
    """True while a thread is inside a kernel call (``call``) or a thread pool's chunk (``track``)."""
    with _LOCK:
        return any(t.is_alive() for t in _RUNNING)


class track:
    """Context manager marking the current thread as inside a kernel call (for pool workers)."""

    def __enter__(self):
        with _LOCK:
            _RUNNING.add(threading.current_thread())

    def __exit__(self, *exc):
        with _LOCK:
            _RUNNING.discard(threading.current_thread())


def call(fn, *args):
    """``fn(*args)``; on the main thread run in a daemon thread that the main thread waits for in
    0.1 s slices, so a Ctrl-C raises here at once (the worker is left to ``os._exit``). A Ctrl-C that
    came earlier but whose exception some library swallowed (Numba ignores exceptions raised in its
    compiler's callbacks) stops here, before the kernel starts."""
    if REQUESTED.is_set():
        from llama_sim.core.errors import Interrupted

        raise Interrupted()
    if threading.current_thread() is not threading.main_thread():
        with track():
            return fn(*args)
    box: dict = {}

    def work():
        with track():
            try:
                box["value"] = fn(*args)
            except BaseException as exc:  # handed to the caller below
                box["error"] = exc

    worker = threading.Thread(target=work, name="llamasim-kernel", daemon=True)
    with _LOCK:  # counted from the start, so an interrupt right after start() still sees it
        _RUNNING.add(worker)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    finally:
        if not worker.is_alive():
            with _LOCK:
                _RUNNING.discard(worker)
    if "error" in box:
        raise box.pop("error")
    return box["value"]
