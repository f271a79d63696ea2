"""The command line starts without the heavy libraries: ``--help`` and ``games`` import neither Numba,
pandas, matplotlib nor any kernel module (the rule sets declare what the commands show), and Numba's
cache folder is still llama_sim's when Numba is imported later. No timing here: ``benchmarks/startup.py``
measures it."""
import os
import subprocess
import sys

import pytest

HEAVY = ("numba", "pandas", "matplotlib", "scipy", "llama_sim.api")


def modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter holds after running ``llamasim argv`` (its output discarded)."""
    script = ("import sys, io, contextlib\n"
              "from llama_sim.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              "    try:\n"
              f"        main({argv!r})\n"
              "    except SystemExit as exc:\n"
              "        assert not exc.code, exc.code\n"
              "print(' '.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("argv", [["--help"], ["games"], ["advise", "--help"], ["compare", "--help"]])
def test_help_and_games_load_no_heavy_library_and_no_kernel(argv):
    loaded = modules_after(argv)
    assert not [m for m in HEAVY if m in loaded]
    engines = [m for m in loaded if m.startswith("llama_sim.rulesets.") and m.count(".") > 2]
    assert not engines, engines  # only the rule sets' declarations (their packages)


def test_strategies_lists_without_pandas_or_matplotlib():
    loaded = modules_after(["strategies"])
    assert "pandas" not in loaded and "matplotlib" not in loaded


def test_numba_imported_after_llama_sim_caches_in_llama_sims_folder(tmp_path):
    script = ("import sys, llama_sim\n"
              "assert 'numba' not in sys.modules\n"
              "import numba\n"
              "print(numba.config.CACHE_DIR)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LLAMA_SIM_CACHE"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    folder = done.stdout.strip()
    assert os.path.dirname(folder) == str(tmp_path) and os.path.isdir(folder)
