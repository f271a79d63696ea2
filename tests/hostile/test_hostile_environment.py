"""A hostile environment: a damaged kernel cache, a reader that leaves the pipe, a full stdout, a
closed stderr, SIGTERM. Each ends in a rebuilt cache, a quiet exit or one line, never a traceback."""
import ctypes
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from llama_sim.cli import main
from llama_sim.core import jit, registry
from llama_sim.core.scoring import largest_token
from llama_sim.run import lineup
from cli_helpers import call, wait_until
from kernel_cache import copied_cache, entry_files, function_entry, policy_entry

COMPARE = ["compare", "-g", "lama", "greedy", "threshold", "--rounds", "200", "-q"]


def llamasim(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "llama_sim", *args], capture_output=kw.pop("capture", True),
                          text=True, timeout=300, env={**os.environ, **(env or {})}, **kw)


def one_line(err: str, needle: str) -> None:
    assert "Traceback" not in err and err.strip().count("\n") == 0 and needle in err, err


# ------------------------------------------------------------------------------ the kernel cache

@pytest.fixture(scope="module")
def cache_copy(tmp_path_factory):
    """A kernel cache holding the comparison's kernels and the solver's helper, to damage freely: the
    comparison and the solve run here first (their kernels compiled or loaded), then this version's cache
    folder copied (``kernel_cache``). ``LLAMA_SIM_CACHE`` set to its parent points a subprocess at it. It
    also holds a Party line-up kernel with an allocating policy (``chain``), which the next line-up's
    compile must leave alone."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        pytest.skip("the kernel cache is the user's own (NUMBA_CACHE_DIR)")
    party = [registry.parse_spec("party", s) for s in ("chain", "random", "threshold:quit_at=3")]  # (test_lineup's)
    lineup.line_up_kernel("party", party).get()
    for args in ([*COMPARE, "--format", "csv"], SOLVE):
        try:
            main(args)
        except SystemExit as exc:
            assert not exc.code
    return copied_cache(tmp_path_factory.mktemp("cache"))


SOLVE = ["solve", "dice", "--row", "2 5 L", "--score", "12"]
# What reads each entry: the comparison loads greedy's policy as a kernel (``jit.Kernel``); the solver
# calls ``largest_token``, a cached helper, from Python.
ENTRIES = {"policy": ([*COMPARE, "--format", "csv"], lambda: policy_entry("lama", "greedy")),
           "helper": (SOLVE, lambda: function_entry(largest_token))}


@pytest.mark.parametrize("entry,damage", [
    ("policy", "empty index"), ("policy", "truncated data"), ("policy", "garbage index"),
    ("helper", "empty index"), ("helper", "garbage data"), ("helper", "truncated index"),
])
def test_a_damaged_cache_entry_is_rebuilt_with_one_notice(cache_copy, entry, damage, capsys):
    """Whatever reads the entry, Numba's loader fails in its unpickling (an EOFError, which click takes for
    Ctrl-C, an UnpicklingError, ...): the entry is rebuilt instead. Each recompiles in a fraction of a second."""
    env = {"LLAMA_SIM_CACHE": str(cache_copy.parent)}
    args, index_of = ENTRIES[entry]
    code, clean, _ = call(capsys, *args)  # the numbers, from this process's own cache
    assert code == 0
    index, *data = entry_files(cache_copy, index_of())  # (data: one file per signature compiled)
    for part in [index] if damage.endswith("index") else data:
        if damage.startswith("empty"):
            part.write_bytes(b"")
        elif damage.startswith("truncated"):
            part.write_bytes(part.read_bytes()[:len(part.read_bytes()) // 2])
        else:
            part.write_bytes(os.urandom(3000))
    r = llamasim(*args, env=env)
    assert r.returncode == 0, r.stderr
    one_line(r.stderr, "was damaged; rebuilding it")
    assert r.stdout == clean  # the same numbers
    again = llamasim(*args, env=env)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == clean


def test_a_damaged_line_up_module_is_rewritten_and_its_kernel_still_loads(cache_copy):
    """A rewritten module has the fixed modification time of every generated module
    (``jit.GENERATED_MTIME_NS``), so what was compiled from the first copy still matches it: the
    line-up kernel loads from its cache entry, which is never written again, and the first run's .pyc
    still loads (until it is damaged too). The first run compiles a line-up next to a cached one of
    Party's (see ``cache_copy``): it failed while that one's policies were pickled compile-disabled
    (``lineup.module_policy``)."""
    env = {"LLAMA_SIM_CACHE": str(cache_copy.parent), "LLAMA_SIM_KERNEL": "lineup"}
    env_bytecode = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run([sys.executable, "-m", "llama_sim", *COMPARE, "--format", "csv"], capture_output=True,
                           text=True, timeout=300, env={**env_bytecode, **env})  # the module, its .pyc, the kernel
    assert first.returncode == 0, first.stderr
    entries = {p: p.stat().st_mtime_ns for p in cache_copy.glob("lineups_*/*")}
    assert any(p.suffix == ".nbi" for p in entries)
    players = [registry.parse_spec("lama", s) for s in ("greedy", "threshold")]
    key, _ = lineup._place("lama", lineup.slot_strategies(players))
    module = cache_copy / "lineups" / f"{key}.py"
    module.write_bytes(os.urandom(500))  # not even text
    r = llamasim(*COMPARE, "--format", "csv", env=env)
    assert r.returncode == 0 and r.stdout == first.stdout, r.stderr
    one_line(r.stderr, "generated kernel module")
    # its compiled copy (.pyc) damaged behind a valid header
    pyc = next(cache_copy.glob(f"lineups/__pycache__/{key}.*.pyc"))
    pyc.write_bytes(pyc.read_bytes()[:16] + b"\0garbage" * 20)
    r = llamasim(*COMPARE, "--format", "csv", env=env)
    assert r.returncode == 0 and r.stdout == first.stdout, r.stderr
    one_line(r.stderr, "compiled copy")
    assert {p: p.stat().st_mtime_ns for p in cache_copy.glob("lineups_*/*")} == entries  # loaded, not compiled


def waits_for_a_lock(pid: int) -> bool:
    """True while ``pid`` waits for a file lock another process holds (a "->" line of /proc/locks)."""
    lines = Path("/proc/locks").read_text().splitlines()
    return any(len(f) > 5 and f[1] == "->" and f[5] == str(pid) for f in map(str.split, lines))


def test_a_kernel_another_process_is_compiling_is_waited_for_and_loaded(tmp_path):
    """Two processes that need the same kernel at once (a second llamasim, a Dask worker) compile it once:
    here this test holds the entry's compile lock, as a process compiling it would, and writes the entry
    meanwhile. The other process must wait for the lock, then load the entry without compiling."""
    import fcntl
    import time

    from numba import types

    (tmp_path / "lock_demo.py").write_text(
        "from numba import types\nfrom llama_sim.core.jit import Kernel\n\n"
        "def plus_one(x):\n    return x + 1\n\n"
        "KERNEL = Kernel(plus_one, lambda: types.int64(types.int64), 'lock demo')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import lock_demo
    finally:
        sys.path.remove(str(tmp_path))
    ours = lock_demo.KERNEL._jit()
    lock = os.open(ours._cache._cache_file._index_path + ".lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import lock_demo; print('asking', flush=True); "
              "d = lock_demo.KERNEL.get(); print(d(41), sum(d.stats.cache_misses.values()), "
              "sum(d.stats.cache_hits.values()))")
    other = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline() == "asking\n", other.stderr.read()
        if Path("/proc/locks").exists():  # Linux lists a process blocked on a lock as "-> ... <pid>"
            wait_until(waits_for_a_lock, other)
        else:
            time.sleep(2)  # (unlocked, it would have compiled the entry and ended by now)
        assert other.poll() is None, other.communicate()
        ours.compile((types.int64,))  # written to the cache while the lock is held
    finally:
        os.close(lock)
    out, err = other.communicate(timeout=120)
    assert other.returncode == 0, err
    assert out.split() == ["42", "0", "1"]  # the answer, no compile, one load


def test_the_collector_is_paused_while_numba_compiles_and_left_as_the_caller_had_it():
    """A compile of ours (here a ``Kernel``) runs with the garbage collector off (its passes cost a first
    run half a second) and turns it back on; a caller who turned it off keeps it off; someone else's
    plain jitted function compiles with the collector as it was."""
    import gc

    from numba import njit, types
    from numba.core import event

    from llama_sim.core.jit import Kernel

    seen = []

    class Watch(event.Listener):  # registered after llama_sim's own listener, so told after it
        def on_start(self, _):
            seen.append(gc.isenabled())

        def on_end(self, _):
            pass

    def plus_two(x):
        return x + 2

    def plus_three(x):
        return x + 3

    watch = Watch()
    event.register("numba:compile", watch)
    try:
        assert gc.isenabled()
        assert Kernel(plus_two, lambda: types.int64(types.int64), "gc demo", boundscheck=True).get()(40) == 42
        assert gc.isenabled()
        assert njit(plus_three)(1) == 4 and gc.isenabled()
        gc.disable()
        try:
            assert njit(plus_three)(2) == 5 and not gc.isenabled()
        finally:
            gc.enable()
    finally:
        event.unregister("numba:compile", watch)
    assert seen == [False, True, False]


# ------------------------------------------------------------------------------ stdout and stderr

@pytest.mark.parametrize("args", [["games"], COMPARE, [*COMPARE, "--format", "json"]], ids=["games", "compare", "json"])
def test_a_reader_that_left_ends_the_run_quietly(args):
    """stdout is a pipe nobody reads any more (``| head -1`` after its line): exit 0, no message."""
    read, write = os.pipe()
    os.close(read)
    r = subprocess.run([sys.executable, "-m", "llama_sim", *args], stdout=write, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    os.close(write)
    assert r.returncode == 0 and r.stderr == ""


def test_head_takes_one_line():
    r = subprocess.run(["bash", "-o", "pipefail", "-c", f"'{sys.executable}' -m llama_sim {' '.join(COMPARE)} | head -1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("L.A.M.A., 4 players")


@pytest.mark.parametrize("args", [["games"], COMPARE])
def test_stdout_on_a_full_disk_is_one_line(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "llama_sim", *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=300)
    assert r.returncode == 1
    one_line(r.stderr, "No space left on device")


def test_a_closed_stderr(tmp_path):
    """Descriptor 2 closed: an error still exits 2 (and nothing lands on stdout), and a run's
    output file is not opened as descriptor 2 and filled with what goes to stderr."""
    close_stderr = lambda: os.close(2)  # noqa: E731
    r = subprocess.run([sys.executable, "-m", "llama_sim", "compare", "-g", "lama", "greedy", "nosuch"],
                       stdout=subprocess.PIPE, preexec_fn=close_stderr, text=True, timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    out = tmp_path / "x.csv"
    r = subprocess.run([sys.executable, "-m", "llama_sim", *COMPARE[:-1], "--out", str(out)], stdout=subprocess.PIPE,
                       preexec_fn=close_stderr, text=True, timeout=300)
    assert r.returncode == 0 and f"wrote {out}" in r.stdout
    assert list(pd.read_csv(out).columns[:3]) == ["game", "players", "strategy"]


@pytest.mark.parametrize("buffering", ["buffered", "unbuffered"])
@pytest.mark.parametrize("args,full,status", [
    (["compare", "-g", "lama", "greedy", "nosuch"], ["stderr"], 2),  # bad input
    (["games"], ["stdout", "stderr"], 1),  # the output could not be written
    ([], ["stdout"], 1),  # the help, with no command
])
def test_a_full_stdout_or_stderr_keeps_the_documented_status(args, full, status, buffering):
    """Whether Python buffers the standard streams (``PYTHONUNBUFFERED`` unset, as on a user's
    machine) or not: the interpreter's last flush of a full stream must not turn the status into 120."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if buffering == "unbuffered":
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as disk:
        streams = {name: disk if name in full else subprocess.PIPE for name in ("stdout", "stderr")}
        r = subprocess.run([sys.executable, "-m", "llama_sim", *args], **streams, text=True, env=env, timeout=300)
    assert r.returncode == status and not r.stdout, r.stderr
    if "stderr" not in full:
        one_line(r.stderr, "No space left on device")


# ------------------------------------------------------------------------------ SIGTERM

def signal_mid_run(args, cwd, signum):
    """Start the CLI with stderr on a pseudo-terminal (so the progress bar shows), wait for the bar,
    send ``signum`` to the process alone; return (exit status, its messages after it, stdout)."""
    import pty
    import select

    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "LLAMA_SIM_KERNEL": "generic"}  # the warm-up's kernel, not a line-up's
    proc = subprocess.Popen([sys.executable, "-m", "llama_sim", *args], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    os.close(slave)

    def read(until_exit):
        got = b""
        while True:
            ready, _, _ = select.select([master], [], [], 300)
            assert ready, "no output within 300 s"
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return got
            if not chunk:
                return got
            got += chunk
            if not until_exit and b"/" in chunk:
                return got

    read(False)
    proc.send_signal(signum)
    after = read(True).decode(errors="replace")
    code = proc.wait(timeout=120)
    os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", after).replace("\r", "\n")
    assert "Traceback" not in text, text
    # the message may share a line with the bar's last redraw
    return code, re.findall(r"llamasim: [^\n]*", text), proc.stdout.read().decode()


def test_sigterm_is_like_ctrl_c(tmp_path):
    main([*COMPARE])  # kernels in the disk cache
    args = ["compare", "-g", "lama", "greedy", "threshold", "--rounds", str(10**10), "--out", "x.csv",
            "--plot", "x.svg", "--threads", "2"]
    code, lines, out = signal_mid_run(args, tmp_path, signal.SIGTERM)
    assert code == 143, lines
    assert len(lines) == 1, lines
    assert re.fullmatch(r"llamasim: terminated after \d+ rounds; nothing written", lines[0].strip()), lines
    assert out == "" and list(tmp_path.iterdir()) == []


def test_sigterm_while_files_are_put_in_place_waits_for_all_of_them(tmp_path):
    """The signal arrives between the first and the second of a result's three files: all three are
    put in place, then the run stops (143) and says what it wrote."""
    code = ("import os, signal, sys\n"
            "real = os.link\n"
            "def link(a, b):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(a, b)\n"
            "os.link = link\n"
            "from llama_sim.cli import main\n"
            "main(sys.argv[1:])\n")
    r = subprocess.run([sys.executable, "-c", code, *COMPARE, "--out", "x.csv"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 143, r.stderr
    one_line(r.stderr, "terminated after 204 rounds; already wrote x.csv, x.paired.csv, x.ranking.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.paired.csv", "x.ranking.csv"]
    assert len(pd.read_csv(tmp_path / "x.ranking.csv")) == 2


def test_setting_numba_threads_keeps_the_kernel_cache_folder(tmp_path):
    """A Dask worker sets NUMBA_NUM_THREADS; Numba then re-reads every setting from the environment at
    the next compile, which once dropped llama_sim's cache folder (kernels went to the source tree)."""
    script = ("import numba, llama_sim.core.rng\n"
              "from llama_sim.run.backends import set_numba_threads\n"
              "from llama_sim.core.cache import cache_folder\n"
              "set_numba_threads(1)\n"
              "numba.njit(lambda x: x + 1)(1)\n"
              "from llama_sim.rulesets.dice.codes import roll_faces\n"
              "print(roll_faces._cache._cache_path.startswith(str(cache_folder())))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LLAMA_SIM_CACHE"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr


# ------------------------------------------------------------------------------ Ctrl-C at the wrong moment

def test_ctrl_c_while_a_kernel_loads_from_the_cache_stops_and_keeps_the_entry(monkeypatch):
    """A Ctrl-C that lands while Numba reads a cache entry raised inside Numba's loader, which the
    damaged-cache recovery took for a damaged file: it deleted a sound entry, compiled it again and
    played on (the command never stopped)."""
    from numba.core import caching

    from llama_sim.core import cache, interrupt, jit, registry
    from llama_sim.core.errors import Interrupted

    strategy = registry.get("lama", "greedy")
    strategy.policy  # compiled or loaded: on disk now
    removed = []
    monkeypatch.setattr(cache, "remove_entry", removed.append)

    def interrupted(self, *args):
        interrupt.REQUESTED.set()  # what the command line's handler does before it raises
        raise Interrupted(2)

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_data", interrupted)
    kernel = jit.Kernel(strategy.py_func, lambda: registry.POLICY_SIG, "probe", nogil=False)
    try:
        with pytest.raises(Interrupted):
            kernel.get()
        assert removed == []
        # and a Ctrl-C some library swallowed still stops the next kernel call
        with pytest.raises(Interrupted):
            interrupt.call(lambda: None)
    finally:
        interrupt.REQUESTED.clear()
    assert interrupt.call(lambda: 7) == 7


# Runs the console script's entry point (``[project.scripts]``) as the installed script does, with a Ctrl-C
# sent to the process at a given moment: while the command line imports ``argv[1]`` (at start-up) or,
# with ``argv[1] == "exit"``, once its command is done and the interpreter runs its exit handlers.
CONSOLE_SCRIPT = """
import atexit, os, signal, sys

MOMENT = sys.argv[1]
sys.argv = ["llamasim", *sys.argv[2:]]

def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)

class CtrlCAtImport:
    def find_spec(self, name, path=None, target=None):
        if name == MOMENT:
            sys.meta_path.remove(self)
            ctrl_c()
        return None

if MOMENT == "exit":
    atexit.register(ctrl_c)  # (registered first: it runs last)
else:
    sys.meta_path.insert(0, CtrlCAtImport())
from {module} import {function}
sys.exit({function}())
"""


@pytest.mark.parametrize("moment", ["typer", "llama_sim.core.output", "exit"])
def test_ctrl_c_at_start_up_or_exit_is_one_line(moment):
    """Ctrl-C while ``llamasim`` imports its command line (the first half second of every run) or after
    its command: one line, exit status 130, never a traceback."""
    entry = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    module, function = entry["project"]["scripts"]["llamasim"].split(":")
    script = CONSOLE_SCRIPT.format(module=module, function=function)
    r = subprocess.run([sys.executable, "-c", script, moment, "games"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 130, r.stderr
    one_line(r.stderr, "llamasim: interrupted")


def test_ctrl_c_inside_a_callback_from_compiled_code_is_still_one_line(capsys, monkeypatch):
    """Numba's loader calls back into Python from C (llvmlite's object cache, through ctypes); Python
    prints an exception raised there, the Ctrl-C handler's included, as "Exception ignored on calling
    ctypes callback function ..." and goes on. The command must stop with its one line all the same."""
    callback = ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGINT))  # (the handler runs in it)
    get = jit.Kernel.get

    def get_after_a_callback(self):
        callback()
        return get(self)

    monkeypatch.setattr(jit.Kernel, "get", get_after_a_callback)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # Python's, not pytest's
    code, out, err = call(capsys, *COMPARE)
    assert code == 130 and out == ""
    one_line(err, "llamasim: interrupted")
