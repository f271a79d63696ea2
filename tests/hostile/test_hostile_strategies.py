"""Hostile strategies files: a policy that reads or writes out of bounds, raises, never returns or
breaks loading is one line naming it (exit 2), or for Ctrl-C exit 130, never a crash or a hang."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llama_sim.cli import main
from llama_sim.core.strategies_file import check_source
from cli_helpers import call, wait_until

REPO = Path(__file__).resolve().parents[2]
HEAD = "from llama_sim.core.registry import strategy\n"


def one_line_error(code, err, needle=""):
    assert code == 2, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert needle in err, err


def policy_file(tmp_path, name, body, stem=None):
    src = tmp_path / f"{stem or name}.py"
    src.write_text(HEAD + f"@strategy('lama', '{name}', 'hostile')\n"
                   f"def {name}(obs, hand, legal, params, rng):\n" + "".join(f"    {ln}\n" for ln in body))
    return src


def play(capsys, src, name, *extra):
    return call(capsys, "simulate", "-g", "lama", "-s", name, "-s", "greedy", "--strategies-file", str(src),
                "--rounds", "200", "-q", *extra)


@pytest.mark.parametrize("name,body", [
    ("hostile_read_far", ["return hand[10**8] * 0"]),  # segfaulted
    ("hostile_write_rng", ["for i in range(2, 10):", "    rng[i] = 7", "return 0"]),  # corrupted memory
    ("hostile_rng_negative", ["rng[-3] = 1", "return 0"]),
    ("hostile_obs_far", ["return obs[obs.shape[0] + 5] * 0"]),
])
def test_out_of_bounds_policy_is_one_line_naming_it(capsys, tmp_path, name, body):
    src = policy_file(tmp_path, name, body)
    code, _, err = play(capsys, src, name)
    one_line_error(code, err, f"strategy '{name}' ({name}.py) failed while playing: IndexError")


def test_only_user_strategies_are_bounds_checked(tmp_path):
    from llama_sim.core import registry

    registry.load_file(policy_file(tmp_path, "hostile_flagged", ["return 0"]))
    user = registry.get("lama", "hostile_flagged")
    assert user.user and user.policy and user._kernel.boundscheck
    builtin = registry.get("lama", "greedy")
    assert not builtin.user and builtin.policy and not builtin._kernel.boundscheck
    # a line-up kernel compiles its policies' source unchecked: user strategies play in the generic one
    from llama_sim.run import designs, lineup
    from llama_sim.core.ruleset import get_game

    game = get_game("lama")
    plan = designs.seat_plan(game, [registry.parse_spec("lama", "hostile_flagged")] * 2, False, game.config())
    assert lineup.choose(plan, 10**9) == "generic"


def _rng_line_up(tmp_path, name, body, monkeypatch=None):
    """lama, 3 seats: a user policy ``name`` playing its lowest legal action (so every version plays the
    same game) after ``body``, then the built-in ``random`` and ``greedy``; each seat's results."""
    import llama_sim

    src = policy_file(tmp_path, name, body + ["a = 0", "while (legal >> a) & 1 == 0:", "    a += 1", "return a"])
    res = llama_sim.simulate("lama", [name, "random", "greedy"], rounds=3000, seed=7, threads=1, quiet=True,
                             strategies_file=src)
    return res.results.drop(columns=["strategy"]).reset_index(drop=True)


def test_a_user_policy_writing_into_its_rng_spoils_only_itself(tmp_path, monkeypatch):
    """The user's policy gets its own copy of the policy stream: setting rng to zeros at every call
    (which would freeze xoroshiro128++ at 0 for every seat sharing it) leaves the other seats' results,
    the randomised ``random`` among them, exactly as with a policy that leaves rng alone."""
    from llama_sim.core import registry

    polite = _rng_line_up(tmp_path, "polite_rng", ["seen = rng[0]"])  # names rng: it gets its copy
    hostile = _rng_line_up(tmp_path, "hostile_rng_zero", ["rng[0] = 0", "rng[1] = 0"])
    drawing = _rng_line_up(tmp_path, "greedy_rng_draws", ["for i in range(5):", "    rng[0] += rng[1] ^ i"])
    assert polite.equals(hostile) and polite.equals(drawing)
    assert registry.get("lama", "hostile_rng_zero")._own_rng is not None
    # without its own copy the zeros reach the random seat: the same run, the wrapper left out
    monkeypatch.setattr(registry, "own_rng_policy", lambda inner: inner.py_func)
    shared = _rng_line_up(tmp_path, "shared_rng_zero", ["rng[0] = 0", "rng[1] = 0"])
    assert not polite.equals(shared)


def test_a_user_policy_that_never_names_its_rng_plays_as_the_same_code_built_in(tmp_path):
    """Code that never names its ``rng`` argument cannot touch it: it is handed the shared stream (no
    fork), so the seats after it, the randomised ``random`` among them, play exactly as with the
    built-in strategy of the same code (the lowest legal action here, both ways)."""
    from llama_sim.core import registry

    unnamed = _rng_line_up(tmp_path, "rng_unnamed", [])
    named = _rng_line_up(tmp_path, "rng_named", ["seen = rng[0]"])
    assert not unnamed.equals(named)  # the fork's two draws per call move the random seat's stream
    assert registry.reads_argument(registry.get("lama", "rng_named").py_func, registry.RNG_ARGUMENT)
    assert not registry.reads_argument(registry.get("lama", "rng_unnamed").py_func, registry.RNG_ARGUMENT)

    def captured(obs, hand, legal, params, rng):
        def inner():
            return rng[0]
        return inner()

    def overwritten(obs, hand, legal, params, rng):
        rng = None
        return 0

    assert registry.reads_argument(captured, registry.RNG_ARGUMENT)
    assert registry.reads_argument(overwritten, registry.RNG_ARGUMENT)


def test_the_file_copy_of_a_built_in_plays_its_games_exactly(tmp_path):
    """A strategies file's exact copy of ``greedy`` (its code never names ``rng``) gives the built-in's
    results to the last digit, next to a randomised seat."""
    import llama_sim

    src = tmp_path / "copy.py"
    src.write_text("from llama_sim.rulesets.lama.kit import DRAW, QUIT\n"
                   "from llama_sim import strategy\n"
                   "from llama_sim.strategies.lama import greedy_play\n\n"
                   "@strategy('lama', 'greedy_file', 'copy')\n"
                   "def greedy_file(obs, hand, legal, params, rng):\n"
                   "    a = greedy_play(obs, legal)\n"
                   "    if a >= 0:\n"
                   "        return a\n"
                   "    if (legal >> DRAW) & 1:\n"
                   "        return DRAW\n"
                   "    return QUIT\n")
    runs = [llama_sim.simulate("lama", [first, "random", "greedy"], rounds=2000, seed=3, threads=1, quiet=True,
                               strategies_file=src).results.drop(columns=["strategy"]) for first in
            ("greedy_file", "greedy")]
    assert runs[0].equals(runs[1])


def test_a_user_policy_runs_inlined_in_its_rng_wrapper_or_else_called(tmp_path, monkeypatch):
    """The wrapper compiles the user's code into itself (no call layer); code Numba could not inline is
    called instead, with the same numbers (here the inlining made to fail)."""
    from llama_sim.core import registry

    body = ["if (legal >> 7) & 1 and rng[0] & 1:", "    return 7"]  # (lama: 7 draws) reads its own rng copy
    inlined = _rng_line_up(tmp_path, "inlined_rng", body)
    wrapper = registry.get("lama", "inlined_rng")._own_rng.py_func
    code = dict(zip(wrapper.__code__.co_freevars, (c.cell_contents for c in wrapper.__closure__)))["code"]
    assert code.targetoptions.get("inline") == "always"
    real = registry.own_rng_policy

    def not_inlinable(inner, inline=True):
        if not inline:
            return real(inner, inline=False)

        def own_rng(obs, hand, legal, params, rng):
            return no_such_function(obs)  # noqa: F821 (fails to compile, as code Numba cannot inline)

        return own_rng

    monkeypatch.setattr(registry, "own_rng_policy", not_inlinable)
    called = _rng_line_up(tmp_path, "called_rng", body)
    assert registry.get("lama", "called_rng")._own_rng.py_func.__name__ == "own_rng"
    assert inlined.equals(called)


def test_a_policy_raising_cannot_pass_for_the_engine(capsys, tmp_path):
    name = "hostile_raiser"
    src = policy_file(tmp_path, name, ["if legal >= 0:", "    raise ValueError('llamasim: error: all fine')", "return 0"])
    code, out, err = play(capsys, src, name)
    one_line_error(code, err, f"strategy '{name}' ({name}.py) failed while playing: ValueError raised by the "
                              "strategy's code at line 5: llamasim: error: all fine")
    name = "hostile_zero"
    src = policy_file(tmp_path, name, ["return 1 // (legal - legal)"])
    one_line_error(*play(capsys, src, name)[::2], f"strategy '{name}'")


@pytest.mark.parametrize("raises", [
    "ValueError('illegal action', 2, 2, 4)",  # the engine's report of greedy's illegal action (entry 2)
    "ValueError('game did not end')",  # the engine's report of games that never end
    "IndexError('strategy hostile_bystander (seat 0) failed')",
], ids=["illegal action", "endless game", "another's name"])
def test_a_policys_exception_is_its_own_whatever_it_says(capsys, tmp_path, raises):
    """The one line names the strategy whose code raised, with its file and the line of the ``raise``,
    and gives the text as that strategy's, even when the text reads like the engine's own report on
    another seat. Two strategies of the file play, so the file alone does not tell which one raised."""
    src = tmp_path / "hostile_pair.py"
    src.write_text(HEAD + "@strategy('lama', 'hostile_blamer', 'raises')\n"
                   "def hostile_blamer(obs, hand, legal, params, rng):\n"
                   f"    if legal >= 0:\n        raise {raises}\n    return 0\n\n"
                   "@strategy('lama', 'hostile_bystander', 'plays its lowest legal action')\n"
                   "def hostile_bystander(obs, hand, legal, params, rng):\n"
                   "    a = 0\n    while (legal >> a) & 1 == 0:\n        a += 1\n    return a\n")
    code, _, err = call(capsys, "simulate", "-g", "lama", "-s", "hostile_bystander", "-s", "hostile_blamer", "-s",
                        "greedy", "--strategies-file", str(src), "--rounds", "200", "-q")
    blamed = (f"llamasim: error: strategy 'hostile_blamer' (hostile_pair.py) failed while playing: "
              f"{raises.split('(')[0]} raised by the strategy's code at line 5: ")
    one_line_error(code, err, blamed)
    # grade plays the policy from Python, outside the kernels: the command line names it all the same
    code, _, err = call(capsys, "grade", "-g", "lama", "-s", "hostile_blamer", "--decisions", "20", "--rollouts", "16",
                        "--strategies-file", str(src))
    one_line_error(code, err, blamed)


def test_a_policy_that_always_raises_does_not_compile(capsys, tmp_path):
    name = "hostile_always"
    src = policy_file(tmp_path, name, ["raise ValueError('no')"])
    one_line_error(*play(capsys, src, name)[::2], "must return an action")


@pytest.mark.parametrize("text,needle", [
    ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    ("raise SystemExit(3)\n", "SystemExit"),
    ("exit(0)\n", "SystemExit"),
    (HEAD + "@strategy('lamma', 'x', 'd')\ndef x(obs, hand, legal, params, rng):\n    return 0\n", "'lamma'"),
    (HEAD + "@strategy('lama', 'my-x', 'd')\ndef x(obs, hand, legal, params, rng):\n    return 0\n", "'my-x'"),
    (HEAD + "@strategy('lama', '1x', 'd')\ndef x(obs, hand, legal, params, rng):\n    return 0\n", "'1x'"),
])
def test_load_errors(capsys, tmp_path, text, needle):
    src = tmp_path / "load_error.py"
    src.write_text(text)
    one_line_error(*call(capsys, "strategies", "-g", "lama", "--strategies-file", str(src))[::2], needle)


def test_spec_checks_every_steps_policy_compiles_before_running(capsys, tmp_path, monkeypatch):
    import llama_sim.api  # noqa: F401  (every module that binds ``run`` imported before the patch: one
    # imported under it would keep the stand-in after the test)
    monkeypatch.setattr("llama_sim.run.backends.run", lambda *a, **k: pytest.fail("a step ran"))
    for module in ("llama_sim.analysis.runs", "llama_sim.analysis.sweep"):  # (each binds ``run``)
        monkeypatch.setattr(f"{module}.run", lambda *a, **k: pytest.fail("a step ran"))
    src = tmp_path / "spec_broken.py"
    src.write_text(HEAD + "@strategy('lama', 'hostile_spec_broken', 'd')\n"
                   "def hostile_spec_broken(obs, hand, legal, params, rng):\n    hand[0] = 1\n    return 0\n")
    spec = tmp_path / "s.toml"
    step = '[[steps]]\nkind = "compare"\nstrategies = {}\nrounds = 200\n'
    spec.write_text(f'question = "q"\ngame = "lama"\nstrategies_file = "{src}"\n'
                    + step.format('["greedy", "threshold"]') + step.format('["greedy", "hostile_spec_broken"]'))
    one_line_error(*call(capsys, "run", str(spec), "--out", str(tmp_path / "out"))[::2], "does not compile")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------ Ctrl-C, subprocesses

def _in_a_kernel(pid: int) -> bool:
    """True once a thread other than the process's main one has used 0.3 s of CPU (Linux's /proc): the
    kernels play on such threads, and nothing else the command does takes that long off its main thread."""
    enough = 0.3 * os.sysconf("SC_CLK_TCK")
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            if task.name != str(pid) and int(fields[11]) + int(fields[12]) >= enough:  # utime + stime
                return True
    except (OSError, ValueError, IndexError):  # a thread that ended while it was read
        pass
    return False


def _sigint_after(args, wait: float, cwd, warm_up=None):
    """Run the CLI, send SIGINT once it plays in a kernel (where ``/proc`` tells, else after ``wait``
    seconds); (exit status, stderr, seconds to exit). ``warm_up``: arguments of a short run first, so
    the kernels are compiled (on disk) and the run reaches them soon."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if warm_up is not None:  # (in this process: the disk cache is what the other one needs)
        main(list(warm_up))
    proc = subprocess.Popen([sys.executable, "-m", "llama_sim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    if Path(f"/proc/{proc.pid}/task").is_dir():
        wait_until(_in_a_kernel, proc)
    else:
        time.sleep(wait)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("no exit within 30 s of Ctrl-C")
    return proc.returncode, err.decode(), time.monotonic() - start


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_policy_looping_forever_stops_on_ctrl_c(tmp_path, threads):
    """The process ends (so no thread keeps burning CPU): the kernels' threads go with it."""
    src = policy_file(tmp_path, "hostile_loop", ["x = 0", "while obs[0] >= 0 or x >= 0:", "    x += 1", "return 0"])
    args = ["simulate", "-g", "lama", "-s", "hostile_loop", "-s", "greedy", "--rounds", "2000", "-q", "--threads", threads]
    warm_up = ["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--rounds", "10", "-q", "--threads", threads]
    code, err, took = _sigint_after([*args, "--strategies-file", str(src)], 3, tmp_path, warm_up)
    assert code == 130 and took < 10, (err, took)
    assert err.strip().count("\n") == 0 and "interrupted" in err, err


def test_advise_with_a_billion_rollouts_stops_on_ctrl_c(tmp_path):
    position = ["advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1", "--pile", "20", "-q"]
    code, err, took = _sigint_after([*position, "--rollouts", "1000000000"], 3, tmp_path, [*position, "--rollouts", "20"])
    assert code == 130 and took < 10, (err, took)
    assert err.strip().count("\n") == 0 and "interrupted" in err, err


def test_chart_with_an_out_of_bounds_policy(capsys, tmp_path):
    name = "hostile_chart_far"
    src = policy_file(tmp_path, name, ["return hand[10**8] * 0"])
    one_line_error(*call(capsys, "chart", "-g", "lama", "--games", "200", "-q", "--policy", name,
                         "--strategies-file", str(src))[::2], f"strategy '{name}' ({name}.py) failed while playing")


def test_advise_with_an_out_of_bounds_opponent(capsys, tmp_path):
    name = "hostile_advise_far"
    src = policy_file(tmp_path, name, ["rng[-3] = 1", "return 0"])
    code, _, err = call(capsys, "advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
                        "--pile", "20", "--rollouts", "100", "-q", "--opponents", f"{name},{name},{name}", "--strategies-file", str(src))
    one_line_error(code, err, f"strategy '{name}'")


def test_a_strategies_file_may_not_print(capsys, tmp_path):
    """Compiled code prints with no prefix: a policy could forge llamasim's own error lines."""
    name = "hostile_printer"
    src = policy_file(tmp_path, name, ["if legal >= 0:", "    print('llamasim: error: your strategy lost')",
                                       "return 0"])
    one_line_error(*play(capsys, src, name)[::2], "line 5 uses print")
    src.write_text(HEAD + "say = print\n")
    one_line_error(*call(capsys, "strategies", "--strategies-file", str(src))[::2], "line 2 uses print")


POLICY = "@strategy('lama', 'hostile_writer', 'd')\ndef hostile_writer(obs, hand, legal, params, rng):\n"


@pytest.mark.parametrize("route,text,line", [
    ("print renamed", "from builtins import print as say\nsay('[]')\n", 2),
    ("builtins module", "import builtins\nbuiltins.print('[]')\n", 2),
    ("sys.stdout", "import sys\nsys.stdout.write('[]')\n", 2),
    ("os.write", "import os\nos.write(1, b'[]')\n", 2),
    ("sys through registry", "from llama_sim.core import registry\nregistry.sys.stdout.write('[]')\n", 3),
    ("sys from registry", "from llama_sim.core.registry import sys\n", 2),
    ("the command line", "import llama_sim.core.registry\nllama_sim.cli.main(['games'])\n", 3),
    ("numpy savetxt", "import numpy as np\nnp.savetxt('/dev/stdout', [1])\n", 3),
    ("numpy ctypeslib", "import numpy as np\nlibc = np.ctypeslib\n", 3),
    ("star import", "from numpy import *\n", 2),
    ("__builtins__", "__builtins__['print']('[]')\n", 2),
    ("names as text", "getattr(__import__('sys'), 'stdout').write('[]')\n", 2),
    ("dunder attributes", "(0).__class__.__base__.__subclasses__()\n", 2),
    ("objmode block", "import numba\n" + POLICY + "    with numba.objmode():\n        pass\n    return 0\n", 5),
    ("objmode import", "from numba import objmode\n", 2),
    ("numba internals", "from numba.core import cgutils\n", 2),
    ("module passed on", "import numpy as np\nalias = np\n", 3),  # (past the checks of its attributes)
    ("llamasim changed", "from llama_sim.core import registry\nregistry.USER_MODULE_PREFIX = 'llama_sim.'\n", 3),
    ("engine's report", "from llama_sim.core.scoring import raise_stop\n", 2),
    ("SystemExit", POLICY + "    raise SystemExit('llamasim: error: forged')\n", 4),
])
def test_a_strategies_file_that_could_print_or_write_is_refused_at_load(capsys, tmp_path, route, text, line):
    """Every route to stdout or stderr (a renamed print, the builtins module, sys, os, a module reached
    through an allowed one, NumPy's file writers and C interface, Numba's object mode and compiler
    internals, names looked up as text) is refused before the file runs: one line naming the file and
    the line, exit 2, and nothing on stdout (``--format json`` stays one document)."""
    src = tmp_path / "hostile_writer.py"
    src.write_text(HEAD + text)
    code, out, err = call(capsys, "strategies", "-g", "lama", "--format", "json", "--strategies-file", str(src))
    one_line_error(code, err, f"strategies file {src}: line {line} ")
    assert out == ""


def test_strategies_files_written_the_usual_way_load(capsys, tmp_path):
    """What authors use passes the check: the built-in strategy files, the example, numpy, numba's njit
    and types, the rule sets' constants, ``llama_sim.core.rng`` through a package import."""
    for path in [*(REPO / "strategies").glob("*.py"), REPO / "examples" / "cautious.py"]:
        check_source(path, path.read_bytes())
    src = tmp_path / "usual_ways.py"
    src.write_text(
        "import math\nimport numpy as np\nfrom numba import njit, types\nimport llama_sim.core.rng\n"
        "from llama_sim.core import rng as R\nfrom llama_sim.rulesets.lama import DRAW, QUIT\n" + HEAD +
        "TABLE = np.arange(4, dtype=np.int64)\n\n@njit\ndef lowest(legal):\n    a = 0\n"
        "    while (legal >> a) & 1 == 0:\n        a += 1\n    return a\n\n"
        "@strategy('lama', 'usual_ways', 'plays its lowest legal action, or draws at random')\n"
        "def usual_ways(obs, hand, legal, params, rng):\n"
        "    if (legal >> DRAW) & 1 and R.uniform(rng) < 0.1 * math.sqrt(TABLE[1]):\n        return DRAW\n"
        "    return lowest(legal)\n\n"
        "if __name__ == '__main__':\n    llama_sim.core.rng.uniform\n")
    code, _, err = play(capsys, src, "usual_ways")
    assert code == 0, err
