"""The command line starts without the heavy libraries: ``--help`` and ``games`` import neither Numba, numpy,
pandas, matplotlib nor any kernel module (the rule sets declare what the commands show), and Numba's
cache folder is still llama_sim's when Numba is imported later. No timing here: ``benchmarks/startup.py``
measures it."""
import json
import os
import subprocess
import sys

import pytest

from llama_sim.core import cache
from cli_helpers import call
from kernel_cache import copied_cache, policy_entry

HEAVY = ("numba", "numpy", "pandas", "matplotlib", "scipy", "llama_sim.api")


def run_fresh(argv: list[str], env: dict | None = None) -> tuple[set[str], str]:
    """``llamasim argv`` in a fresh interpreter: the modules it then holds, and what it printed."""
    script = ("import sys, io, contextlib, json\n"
              "from llama_sim.cli import main\n"
              "out = io.StringIO()\n"
              "with contextlib.redirect_stdout(out):\n"
              "    try:\n"
              f"        main({argv!r})\n"
              "    except SystemExit as exc:\n"
              "        assert not exc.code, exc.code\n"
              "print(json.dumps([sorted(sys.modules), out.getvalue()]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    modules, printed = json.loads(done.stdout)
    return set(modules), printed


def modules_after(argv: list[str]) -> set[str]:
    return run_fresh(argv)[0]


@pytest.mark.parametrize("argv", [["--help"], ["games"], ["advise", "--help"], ["compare", "--help"]])
def test_help_and_games_load_no_heavy_library_and_no_kernel(argv):
    loaded = modules_after(argv)
    assert not [m for m in HEAVY if m in loaded]
    engines = [m for m in loaded if m.startswith("llama_sim.rulesets.") and m.count(".") > 2]
    assert not engines, engines  # only the rule sets' declarations (their packages)


def test_strategies_lists_without_pandas_or_matplotlib():
    loaded = modules_after(["strategies"])
    assert "pandas" not in loaded and "matplotlib" not in loaded


def test_strategies_lists_from_the_cached_declarations_without_numba(tmp_path):
    """The first listing imports the strategy modules and keeps their declarations in the cache folder;
    the next process lists the same from there without Numba or any strategy module; a damaged copy is
    replaced."""
    env = {**os.environ, "LLAMA_SIM_CACHE": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    argv = ["strategies", "--players", "3", "--format", "json"]
    loaded, first = run_fresh(argv, env)
    assert "llama_sim.strategies.kadabra" in loaded and json.loads(first)
    [listing] = tmp_path.glob("*/strategies.json")
    loaded, again = run_fresh(argv, env)
    assert again == first
    assert not [m for m in loaded if m.startswith(("numba", "llama_sim.strategies", "llama_sim.core.registry"))]
    assert run_fresh(["strategies"], env)[1] == run_fresh(["strategies"], {**env, "NUMBA_CACHE_DIR": str(tmp_path)})[1]
    good = json.loads(listing.read_text())
    for damage in ("params", "name"):  # a record without its parameters; a name that is not text
        damaged = json.loads(listing.read_text())
        if damage == "params":
            del damaged["games"]["dice"][0]["params"]
        else:
            damaged["games"]["lama"][1]["name"] = 3
        listing.write_text(json.dumps(damaged))
        loaded, repaired = run_fresh(argv, env)
        assert repaired == first and "llama_sim.strategies.kadabra" in loaded
        assert json.loads(listing.read_text()) == good  # written again


def test_numba_imported_after_llama_sim_caches_in_llama_sims_folder(tmp_path):
    script = ("import sys, llama_sim\n"
              "assert 'numba' not in sys.modules\n"
              "import numba\n"
              "from llama_sim.core.rng import splitmix64\n"
              "import os\n"
              "print(os.path.dirname(splitmix64._cache._cache_path))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LLAMA_SIM_CACHE"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    folder = done.stdout.strip()
    assert os.path.dirname(folder) == str(tmp_path) and os.path.isdir(folder)


# ------------------------------------------------------------------------------ the compile notice

def on_a_terminal(args: list[str], env: dict, tmp_path) -> tuple[str, str, int]:
    """``llamasim args`` with stderr on a pseudo-terminal and stdout in a file: (stdout, stderr, status)."""
    import pty

    master, slave = pty.openpty()
    with open(tmp_path / "stdout", "w+") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_sim", *args], stdout=out, stderr=slave, env=env)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
        status = proc.wait(timeout=300)
        out.seek(0)
        return out.read(), err.decode(errors="replace").replace("\r\n", "\n"), status


def test_a_cold_compile_says_so_once_on_a_terminal_and_a_warm_run_says_nothing(tmp_path, capsys):
    import json

    args = ["simulate", "--game", "lama", "-s", "greedy", "-s", "threshold", "--rounds", "200", "--format", "json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LLAMA_SIM_CACHE"] = str(tmp_path / "cache")
    cold = []
    if cache.cache_folder() is None:  # a user's own NUMBA_CACHE_DIR, not ours to copy: everything compiles
        (tmp_path / "cache").mkdir()
    else:  # a copy of the cache with both strategies cold: two compiles, one notice
        assert call(capsys, *args)[0] == 0  # (its kernel compiled or loaded here, so the copy has it)
        policies = (policy_entry("lama", "greedy"), policy_entry("lama", "threshold"))
        copy = copied_cache(tmp_path / "cache", without=policies)
        cold = [copy / index for index in policies]
    out, err, status = on_a_terminal(args, env, tmp_path)
    assert status == 0, err
    assert all(index.exists() for index in cold)  # both compiled (and written back to the copy)
    assert json.loads(out)  # stdout holds the JSON document alone
    lines = [ln for ln in err.splitlines() if "compiling" in ln]
    assert lines == ["compiling the lama kernels (first run only, ~4-7 s)..."], err
    out, err, status = on_a_terminal(args, env, tmp_path)
    assert status == 0 and json.loads(out) and "compiling" not in err, err


def test_no_compile_notice_off_a_terminal_or_with_quiet(monkeypatch):
    import io

    from llama_sim.cli.app import compile_notice
    from llama_sim.core import jit

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(jit, "on_compile", None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    compile_notice(False, "dice kernels")
    assert jit.on_compile is None
    monkeypatch.setattr(sys, "stderr", Terminal())
    compile_notice(True, "dice kernels")
    assert jit.on_compile is None
    compile_notice(False, "dice kernels")
    jit.on_compile("dice kernel")
    jit.on_compile("dice.threshold")
    assert sys.stderr.getvalue() == "compiling the dice kernels (first run only, ~4-7 s)...\n"


def test_the_last_collection_at_exit_skips_what_the_command_made():
    """After three commands in one process, the objects alive at its end are frozen before Python's
    last collection, and what the commands printed is all there."""
    script = ("import atexit, gc, sys\n"
              "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0, len(gc.get_objects()),"
              " file=sys.stderr))\n"
              "from llama_sim.cli import main\n"
              "for _ in range(3):\n"
              "    try:\n"
              "        main(['compare', '--game', 'lama', 'greedy', 'threshold', '--rounds', '100', '-q'])\n"
              "    except SystemExit as exc:\n"
              "        assert not exc.code, exc.code\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Ranking (") == 3 and done.stdout.rstrip().endswith("-")
    frozen, still_tracked = done.stderr.split()[-2:]
    assert frozen == "True" and int(still_tracked) < 1000
