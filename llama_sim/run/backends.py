"""Where chunks run: local threads (``--backend local``) or a Dask cluster (``--backend dask``).

Both run the same ``chunks.Task`` list (stratum, kernel seed, first block, block count) and
return each chunk's integer sums, which ``run`` (below) merges exactly, so the same seed gives
the same numbers on any backend, thread count or cluster size.

Dask (an optional extra: ``pip install -e ".[dask]"``; imported only when asked for):

* ``--scheduler ADDRESS`` connects to a running scheduler; without it a ``LocalCluster`` of
  ``--workers`` processes (default: one per core) with ``--threads`` threads each (default 1) is
  started for the run and closed after it.
* Workers never receive a ``Plan`` (it holds compiled kernels): they get plain data
  (``plan_data``: game name, each entry's strategy name, parameter vector and label, the source
  of any ``--strategies-file``, the seating tables, cfg) and rebuild the plan from the installed
  ``llama_sim`` package, once per process (cached by a content key). The chunk function is
  ``llama_sim.run.backends.remote_chunk``, imported by reference, never from ``__main__``.
* Each worker is configured and warmed once per plan (``client.run``): ``NUMBA_NUM_THREADS`` is
  set to the worker's thread count (in the environment of ``LocalCluster`` worker processes
  before they start, and through ``numba.set_num_threads`` on a remote cluster's workers), and
  one block is played so every kernel is compiled or loaded from the disk cache before the
  chunks arrive.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import pickle
import sys
import tempfile
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
import math
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from llama_sim.run import lineup
from llama_sim.core.errors import UsageError
from llama_sim.core.files import write_text
from llama_sim.core.interrupt import played
from llama_sim.run.chunks import check_plays, check_seed, default_threads, iter_tasks, run_chunk, warm_up
from llama_sim.run.designs import Plan, Work, empty_tally, strata, with_kernel
from llama_sim.core.stats import Stratified, Tally

BACKENDS = ("local", "dask")
DASK_MISSING = 'the dask backend needs the optional dask extra: pip install -e ".[dask]"'
CONNECT_TIMEOUT = "10s"  # how long to try reaching --scheduler
MAX_THREADS = 1024  # threads (or local Dask workers) one machine can usefully run


class LocalBackend:
    """Chunks on a thread pool in this process (the kernels release the GIL)."""

    name = "local"

    def __init__(self, threads: int | None = None):
        self.threads = default_threads() if threads is None else threads
        if not 1 <= self.threads <= MAX_THREADS:
            raise UsageError(f"--threads must be from 1 to {MAX_THREADS}, not {self.threads}")

    def describe(self) -> str:
        return f"{self.threads} thread{'s' if self.threads != 1 else ''}"

    def warm(self, work) -> None:
        warm_up(strata(work, 0)[0][0])

    def map(self, work, tasks) -> Iterator:
        plans = [p for p, _ in strata(work, 0)]

        def one(task):
            return task, run_chunk(plans[task.stratum], task.seed, task.first_block, task.n_blocks)

        if self.threads == 1:
            yield from map(one, tasks)
            return
        # A window of chunks in flight, not all of them (``pool.map`` would submit the whole,
        # possibly huge, task list at once); on any exit (Ctrl-C) the queued chunks are dropped.
        pool = thread_pool(self.threads)
        yield from _windowed(lambda task: pool.submit(one, task), tasks, 2 * self.threads,
                             lambda pending: wait(pending, return_when=FIRST_COMPLETED)[0])

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@functools.cache  # one pool per thread count
def thread_pool(threads: int) -> ThreadPoolExecutor:
    """This process's pool of ``threads`` threads, started at its first run and kept: a league or a
    sweep makes hundreds of runs of a few milliseconds, and starting and joining the threads of a
    new pool took as long as a small run's chunks."""
    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix="llama_sim")


def _windowed(submit, tasks, window: int, wait_some) -> Iterator:
    """Results of ``submit(task)`` for every task, keeping at most ``window`` in flight: memory
    stays flat however many chunks a run has. ``wait_some(pending)`` returns finished futures. On
    any exit (an error, Ctrl-C, the caller stopping early) the chunks not yet started are cancelled."""
    tasks = iter(tasks)
    pending = set()
    try:
        for task in itertools.islice(tasks, window):
            pending.add(submit(task))
        while pending:
            for future in wait_some(pending):
                pending.discard(future)
                result = future.result()
                task = next(tasks, None)
                if task is not None:
                    pending.add(submit(task))
                yield result
    finally:
        for future in pending:
            future.cancel()


# ------------------------------------------------------------------------------------- plain data

def _user_files(entries) -> list[tuple[str, str]]:
    """(file name, source) of every user strategies file an entry comes from."""
    files = {}
    for p in entries:
        module = sys.modules.get(p.strategy.source)
        path = getattr(module, "__file__", None)
        if p.strategy.source.startswith("llamasim_user_") and path:
            files[path] = (Path(path).name, Path(path).read_text())
    return sorted(files.values())


def plan_data(work) -> dict:
    """Everything a worker needs to rebuild ``work``'s plans, as plain picklable data."""
    plans = [p for p, _ in strata(work, 0)]
    first = plans[0]
    data = {
        "game": first.game.name,
        "n_players": first.n_players,
        "entries": [(p.strategy.name, np.asarray(p.params, dtype=np.float64), p.label) for p in first.entries],
        "files": _user_files(first.entries),
        "tables": [(p.entry_of_seat, p.unit_of_seat) for p in plans],
        "unit_labels": list(first.unit_labels),
        "unit_seats": list(first.unit_seats),
        "games_mode": bool(first.games_mode),
        "cfg": np.asarray(first.cfg, dtype=np.int64),
        "kernel": first.kernel,
    }
    data["key"] = hashlib.sha256(pickle.dumps(data)).hexdigest()[:20]
    return data


_WORKER_PLANS: dict[str, list] = {}


def _load_files(files: list[tuple[str, str]]) -> None:
    from llama_sim.core import registry

    for name, source in files:
        digest = hashlib.sha256(source.encode()).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / f"llamasim-strategies-{digest}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists() or path.read_text() != source:
            write_text(path, source, output=False)  # whole: another worker may be loading it
        registry.load_file(path)


def plans_from_data(data: dict) -> list:
    """Rebuild (once per process) the plans of ``plan_data``; returns one ``Plan`` per stratum."""
    plans = _WORKER_PLANS.get(data["key"])
    if plans is None:
        from llama_sim.core import registry
        from llama_sim.core.ruleset import get_game
        _load_files(data["files"])
        game = get_game(data["game"])
        entries = [registry.Player(registry.get(game.name, name), params, label)
                   for name, params, label in data["entries"]]
        plans = [Plan(game, data["n_players"], entries, np.ascontiguousarray(e), np.ascontiguousarray(u),
                      data["unit_labels"], data["unit_seats"], data["games_mode"], data["cfg"], data["kernel"])
                 for e, u in data["tables"]]
        _WORKER_PLANS[data["key"]] = plans
    return plans


def remote_chunk(data: dict, stratum: int, seed: int, first_block: int, n_blocks: int):
    """The Dask task: one chunk of one stratum, on a worker."""
    return run_chunk(plans_from_data(data)[stratum], seed, first_block, n_blocks)


def configure_worker(data: dict, dask_worker=None) -> int:
    """Run once per worker per plan (``client.run``): thread settings, rebuild, compile/warm."""
    threads = max(1, int(getattr(getattr(dask_worker, "state", None), "nthreads", 0)
                         or getattr(dask_worker, "nthreads", 1) or 1))
    set_numba_threads(threads)
    warm_up(plans_from_data(data)[0])
    return threads


def set_numba_threads(threads: int) -> int:
    """``NUMBA_NUM_THREADS`` for this process, without crashing a process whose numba thread pool
    is already running (numba re-reads the variable at every compile and refuses a change once
    its pool started; then only ``numba.set_num_threads`` may lower the count). Returns the count."""
    from numba.np.ufunc import parallel

    import numba

    if not getattr(parallel, "_is_initialized", False):
        # Numba re-reads every setting from the environment once a NUMBA_ variable changes, which
        # would drop the kernel cache folder llama_sim chose (llama_sim/__init__.py): read it now, then
        # put the folder back.
        cache_dir = numba.config.CACHE_DIR
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
        numba.core.config.reload_config()
        numba.config.CACHE_DIR = cache_dir
        return threads

    n = min(threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(n)
    return n


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """Start worker processes with SIGINT ignored (inherited, and Python keeps an inherited
    ignore): Ctrl-C reaches the whole process group, and only this process should answer it,
    by cancelling the work and closing the cluster, not every worker with its own traceback."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


PROBE_SECONDS = 5.0  # connect, then wait this long for the scheduler's greeting
SCHEMES = ("tcp", "tls")


def probe_scheduler(address: str, seconds: float | None = None) -> None:
    """Refuse within seconds an address that is not a Dask scheduler, before ``Client`` (which can
    wait forever on a server that accepts the connection but never speaks Dask, e.g. HTTP).

    The address must parse (``[tcp|tls]://host:port``); a TCP connection must open within
    ``seconds`` (a closed port fails at once, an unroutable address at the timeout); over plain
    tcp the peer must then send Dask's greeting unprompted: a scheduler writes its handshake
    first, a frame count as a little-endian uint64, while an HTTP server waits for a request."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    seconds = PROBE_SECONDS if seconds is None else seconds

    try:
        scheme, location = parse_address(address.strip())
        if scheme == "inproc" and location:  # a scheduler in this very process (a notebook's LocalCluster)
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--scheduler '{address}' is not a scheduler address like tcp://host:8786 ({exc})") from None
    if scheme not in SCHEMES:
        raise UsageError(f"--scheduler '{address}': use tcp:// or tls:// (got {scheme}://)")
    if not host or not 0 < int(port) < 65536:
        raise UsageError(f"--scheduler '{address}' is not a scheduler address like tcp://host:8786")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds) as sock:
            if scheme != "tcp":
                return
            sock.settimeout(seconds)
            head = b""
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    raise UsageError(f"{address} is not a Dask scheduler: it closed the connection without a greeting")
                head += chunk
    except socket.timeout:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: no Dask greeting within {seconds:g} s") from None
    except socket.gaierror as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: unknown host {host}") from None
    except OSError as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None
    if not 1 <= int.from_bytes(head, "little") <= 64:
        raise UsageError(f"{address} is not a Dask scheduler: the server there does not speak Dask's protocol")


class DaskBackend:
    """Chunks as Dask tasks (``client.map`` over chunk ranges) on a scheduler or a LocalCluster."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int | None = None,
                 threads_per_worker: int | None = None):
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError(DASK_MISSING) from None
        self.cluster = None
        self.scheduler = scheduler
        self._warm: set[str] = set()
        self._data: dict[str, object] = {}
        if scheduler is not None:
            if workers is not None or threads_per_worker is not None:
                raise UsageError("--workers and --threads size a local cluster; with --scheduler the "
                                 "cluster's own workers are used")
            probe_scheduler(scheduler)
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        else:
            threads_per_worker = threads_per_worker or 1
            workers = workers or max(1, default_threads() // threads_per_worker)
            if not (1 <= workers <= MAX_THREADS and 1 <= threads_per_worker <= MAX_THREADS):
                raise UsageError(f"--workers and --threads must be from 1 to {MAX_THREADS}")
            # dashboard on a free loopback port: never a clash (and no warning) when 8787 is taken
            with _workers_ignore_ctrl_c():
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=threads_per_worker,
                                            processes=True, dashboard_address="127.0.0.1:0",
                                            silence_logs=logging.ERROR,
                                            env={"NUMBA_NUM_THREADS": str(threads_per_worker)})
            self.client = Client(self.cluster)

    def describe(self) -> str:
        info = self.client.scheduler_info()
        workers = info.get("workers", {})
        threads = sum(w.get("nthreads", 0) for w in workers.values())
        where = f"scheduler {self.scheduler}" if self.scheduler else "a LocalCluster"
        return f"Dask on {where}: {len(workers)} workers, {threads} threads"

    def _scattered(self, data: dict):
        key = data["key"]
        if key not in self._data:
            self._data[key] = self.client.scatter([data], broadcast=True, hash=False)[0]
        return self._data[key]

    def warm(self, work) -> None:
        data = plan_data(work)
        if data["key"] not in self._warm:
            self.client.run(configure_worker, data)
            self._warm.add(data["key"])

    def map(self, work, tasks) -> Iterator:
        """Chunks as futures, a window of them at a time (two per worker thread), so a run of
        10^9 rounds holds a few futures, not millions. On any exit (Ctrl-C) the outstanding
        ones are cancelled."""
        from distributed import as_completed

        handle = self._scattered(plan_data(work))
        threads = sum(w.get("nthreads", 0) for w in self.client.scheduler_info().get("workers", {}).values())
        tasks = iter(tasks)
        outstanding: dict[str, tuple] = {}
        done = as_completed()

        def submit(task) -> None:
            future = self.client.submit(remote_chunk, handle, task.stratum, task.seed, task.first_block,
                                        task.n_blocks, pure=False)
            outstanding[future.key] = (future, task)
            done.add(future)

        try:
            for task in itertools.islice(tasks, max(8, 2 * threads)):
                submit(task)
            while outstanding:
                future = next(done)
                _, task = outstanding.pop(future.key)
                s1, s2 = future.result()
                future.release()
                nxt = next(tasks, None)
                if nxt is not None:
                    submit(nxt)
                yield task, (s1, s2)
        finally:
            if outstanding:
                self.client.cancel([f for f, _ in outstanding.values()])

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def make_backend(name: str, threads: int | None = None, scheduler: str | None = None,
                 workers: int | None = None):
    """A backend by name; ``dask`` without the extra installed is a one-line usage error."""
    if name not in BACKENDS:
        raise UsageError(f"unknown --backend '{name}' (use {' or '.join(BACKENDS)})")
    if name == "local":
        if scheduler is not None:
            raise UsageError("--scheduler needs --backend dask")
        if workers is not None:
            raise UsageError("--workers needs --backend dask")
        return LocalBackend(threads)
    return DaskBackend(scheduler, workers, threads)


# ------------------------------------------------------------------------------------ running

def run(plan: Work, seed: int, first_block: int, n_blocks: int, threads: int | None = None,
        progress: Callable[[int], None] | None = None, chunk: int | None = None,
        backend=None) -> Tally | Stratified:
    """Play blocks [first_block, first_block + n_blocks) of every stratum; exact, order-free merge.

    ``backend`` (``llama_sim.run.backends``) defaults to local threads (``threads``, default all
    cores). ``progress`` is called with the blocks of each finished chunk (a ``Design`` runs
    ``n_blocks`` blocks in each of its strata).
    A ``Plan`` gives a ``Tally``, a ``Design`` a ``Stratified`` tally; the numbers depend only on
    ``seed`` and the block range, never on threads, chunk size or backend. Memory does not grow
    with ``n_blocks``: chunks are generated lazily and their integer sums added as they arrive.
    """
    check_seed(seed)
    check_plays(plan, n_blocks)
    if backend is None:
        backend = LocalBackend(threads)
    if plan.kernel == "auto":
        plan = with_kernel(plan, lineup.choose(plan, n_blocks))
    plans = [p for p, _ in strata(plan, seed)]
    tasks = iter_tasks(plan, seed, first_block, n_blocks, chunk)
    backend.warm(plan)
    sums = [Tally.empty(p.metrics, len(p.unit_labels), p.appearances()) for p in plans]
    unit = "games" if plan.games_mode else "rounds"
    for task, (s1, s2) in backend.map(plan, tasks):
        t = sums[task.stratum]
        t.s1 += s1  # exact integer sums: the order of arrival does not matter
        t.s2 += s2
        t.blocks += task.n_blocks
        played[unit] += task.n_blocks * plans[task.stratum].rows
        if progress:
            progress(task.n_blocks)
    return sums[0] if isinstance(plan, Plan) else Stratified(tuple(sums))


# ------------------------------------------------------------------------------------ precision

@dataclass
class PrecisionResult:
    tally: Tally | Stratified
    reached: bool
    half_width: float  # the largest covered half-width at the stop
    batches: list[int]  # cumulative blocks after each batch


def next_blocks(blocks: int, half_width: float, precision: float, cap: int) -> int:
    """Blocks after the next batch: predicted from ``h ~ 1/sqrt(B)`` with 10% margin, within
    [1.25 B, 4 B] and at most ``cap``."""
    ratio = 1.1 * blocks * (half_width / precision) ** 2 if math.isfinite(half_width) else math.inf
    want = math.ceil(ratio) if math.isfinite(ratio) else 4 * blocks  # a precision like 1e-320: inf, capped below
    return min(cap, max(want, math.ceil(1.25 * blocks), blocks + 1), 4 * blocks)


def run_to_precision(work: Work, seed: int, precision: float, half_width: Callable[[Tally | Stratified], float],
                     first_blocks: int, max_blocks: int, threads: int | None = None,
                     progress_factory: Callable[[int], Callable[[int], None]] | None = None, backend=None,
                     chunk: int | None = None) -> PrecisionResult:
    """The ``--precision`` loop of the module docstring. ``half_width(tally)`` returns the largest
    half-width of every interval the rule covers; ``progress_factory(units)`` (units: the batch's
    blocks times strata) returns the progress callback of one batch."""
    if not precision > 0:
        raise UsageError(f"--precision must be positive, not {precision}")
    max_blocks = max(max_blocks, 1)
    check_plays(work, max_blocks)
    target = min(max(first_blocks, 1), max_blocks)
    tally = empty_tally(work)
    batches = []
    while True:
        n_strata = 1 if isinstance(work, Plan) else len(work.tables)
        progress = progress_factory((target - tally.blocks) * n_strata) if progress_factory else None
        tally = tally.merge(run(work, seed, tally.blocks, target - tally.blocks, threads, progress, chunk, backend))
        batches.append(tally.blocks)
        h = half_width(tally)
        if h <= precision:
            return PrecisionResult(tally, True, h, batches)
        if tally.blocks >= max_blocks:
            return PrecisionResult(tally, False, h, batches)
        target = next_blocks(tally.blocks, h, precision, max_blocks)
