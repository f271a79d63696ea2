"""Reliability: no silent corruption, no lost work, one clear line for every bad input."""
import os
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from llama_sim.core import output
from llama_sim.cli import main
from cli_helpers import call

REPO = Path(__file__).resolve().parents[2]
SMALL = ["--rounds", "200", "-q"]
COMPARE = ["compare", "-g", "lama", "greedy", "threshold"] + SMALL


def one_line_error(code, err, needle=""):
    assert code == 2, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert needle in err, err


# ------------------------------------------------------------------------------ --out

def test_out_problems_refused_before_any_simulation(capsys, tmp_path, monkeypatch):
    import llama_sim.api  # noqa: F401  (every module that binds ``run`` imported before the patch: one
    # imported under it would keep ``no_run`` after the test, and monkeypatch would restore ``no_run``)
    import llama_sim.run.backends as backends

    def no_run(*a, **k):  # any simulation at all fails the test
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(backends, "run", no_run)
    for module in ("llama_sim.analysis.runs", "llama_sim.analysis.sweep"):  # (each binds ``run``)
        monkeypatch.setattr(f"{module}.run", no_run)
    (tmp_path / "afile").write_text("x")
    cases = [
        (str(tmp_path), "folder"),  # a directory
        (str(tmp_path / "sub.csv"), "is a folder"),  # a directory with a table suffix
        (str(tmp_path / "missing" / "x.csv"), "does not exist"),
        (str(tmp_path / "afile" / "x.csv"), "is not a folder"),
        (str(tmp_path / "x.xlsx"), ".csv, .json or .parquet"),
        ("/proc/llamasim-x.csv", "cannot write"),  # a folder nobody can create files in, even root
    ]
    (tmp_path / "sub.csv").mkdir()
    for out, needle in cases:
        for cmd in (COMPARE, ["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy"] + SMALL,
                    ["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=1:2:1"] + SMALL):
            one_line_error(*call(capsys, *cmd, "--out", out)[::2], needle)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_out_folder_without_write_permission(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        one_line_error(*call(capsys, *COMPARE, "--out", str(locked / "x.csv"))[::2], "cannot write")
    finally:
        locked.chmod(0o700)


def test_every_file_of_a_result_checked_for_overwrite_up_front(capsys, tmp_path):
    ranking = tmp_path / "x.ranking.csv"
    ranking.write_text("mine\n")
    one_line_error(*call(capsys, *COMPARE, "--out", str(tmp_path / "x.csv"))[::2], "--force")
    assert ranking.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["x.ranking.csv"]


def test_all_files_of_a_result_or_none(capsys, tmp_path, monkeypatch):
    real = output.write_table

    def fail_on_ranking(df, path):  # the third table is the ranking; written to a temporary name
        if len(df.columns) and "rank" in df.columns:
            raise OSError(28, "No space left on device")
        real(df, path)

    monkeypatch.setattr(output, "write_table", fail_on_ranking)
    code, _, err = call(capsys, *COMPARE, "--out", str(tmp_path / "x.csv"))  # one line, status 1
    assert code == 1 and err.count("\n") == 1 and "x.ranking.csv: No space left on device" in err, err
    assert list(tmp_path.iterdir()) == []  # no x.csv, no x.paired.csv, no temporary file
    monkeypatch.setattr(output, "write_table", real)
    assert call(capsys, *COMPARE, "--out", str(tmp_path / "x.csv"))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.paired.csv", "x.ranking.csv"]
    assert len(pd.read_csv(tmp_path / "x.paired.csv")) == 1


# ------------------------------------------------------------------------------ bad numbers

@pytest.mark.parametrize("args,needle", [
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=nan:1:1"], "finite"),
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:inf:1"], "finite"),
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:1:-inf"], "finite"),
    (["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--seed", "-1"], "seed: must be at least 0, not -1"),
    (["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--seed", str(2**64)], "seed: must be at most 18,446,744,073,709,551,615"),
    (["compare", "-g", "lama", "greedy", "threshold", "--seed", str(2**70)], "seed: must be at most"),
    (["simulate", "-g", "lama", "-s", "threshold:quit_at=3,quit_at=9", "-s", "greedy"], "given twice"),
    (["compare", "-g", "lama", "threshold:quit_at=nan", "greedy"], "outside"),
])
def test_bad_numbers_exit_2_with_one_line(capsys, args, needle):
    one_line_error(*call(capsys, *args, *SMALL)[::2], needle)


def test_largest_seed_is_accepted(capsys):
    assert call(capsys, "simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--seed", str(2**64 - 1), *SMALL)[0] == 0


def test_kadabra_deck_with_which_these_players_never_finish_a_game(capsys, tmp_path):
    """Only llamas: every llama played while holding a token stakes it on the stage, and greedy
    players play llamas in a show instead of collecting, so the tokens pile up on the stage and
    nobody reaches 40. Rounds still end; whole games cannot."""
    deck = tmp_path / "llamas.toml"
    deck.write_text('name = "only llamas"\n[cards]\nllama = 37\n')
    base = ["simulate", "-g", "kadabra", "-s", "greedy", "-s", "greedy", "--deck-file", str(deck), "-q"]
    one_line_error(*call(capsys, *base, "--games", "4")[::2], "did not end within 10000 rounds")
    assert call(capsys, *base, "--rounds", "200")[0] == 0
    # with the same deck, players who quit at once finish their games: the deck alone is not at fault
    code, _, _ = call(capsys, "simulate", "-g", "kadabra", "-s", "always_quit", "-s", "always_quit",
                      "--deck-file", str(deck), "-q", "--games", "20")
    assert code == 0


def test_kadabra_deck_that_cannot_be_dealt(capsys, tmp_path):
    deck = tmp_path / "small.toml"
    deck.write_text('[cards]\n"1" = 20\n')
    one_line_error(*call(capsys, "simulate", "-g", "kadabra", "-s", "greedy", "-s", "greedy",
                         "--deck-file", str(deck), *SMALL)[::2], "the deck has 20 cards")


# ------------------------------------------------------------------------------ Ctrl-C

def _interrupt_mid_run(args, tmp_path, whole_group: bool):
    """Start the CLI with stderr on a pseudo-terminal (so the progress bar shows), wait for the bar
    to count a finished chunk, send SIGINT (to the whole process group, as a terminal does, when
    ``whole_group``), and return (exit status, the lines printed after the signal, stdout, the
    text printed before it)."""
    import pty
    import re
    import select
    import signal
    import subprocess

    master, slave = pty.openpty()
    # The generic kernel, which the caller's warm-up left in the disk cache: under ``auto`` the run's size
    # would first compile a line-up kernel (seconds), which tells nothing about interrupting.
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100", "LLAMA_SIM_KERNEL": "generic"}
    proc = subprocess.Popen([sys.executable, "-m", "llama_sim", *args], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True, cwd=tmp_path)
    os.close(slave)

    def plain(raw: bytes) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace")).replace("\r", "\n")

    def read(until_exit: bool) -> bytes:
        got = b""
        while True:
            ready, _, _ = select.select([master], [], [], 300)
            assert ready, f"no output from the run within 300 s: {plain(got)!r}"
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the other end closed: the process is gone
                return got
            if not chunk:
                return got
            got += chunk
            if not until_exit and re.search(r"\b[1-9][0-9]*/[0-9]+\b", plain(got)):  # the bar's "done/total"
                return got  # column, with chunks done: the run is under way and has played rounds

    before = plain(read(until_exit=False))
    if whole_group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    after = read(until_exit=True)
    code = proc.wait(timeout=120)
    os.close(master)
    lines = [ln for ln in plain(after).split("\n") if ln.strip() and "/" not in ln]  # drop the bar's redraws
    return code, lines, proc.stdout.read().decode(), before


@pytest.mark.parametrize("backend", [["--threads", "2"], ["--backend", "dask", "--workers", "1", "--threads", "1"]],
                         ids=["threads", "dask"])
def test_ctrl_c_exits_130_with_one_line_and_no_file(tmp_path, backend):
    main(["compare", "-g", "lama", "greedy", "threshold", "--rounds", "100", "-q"])  # kernels in the disk cache
    args = ["compare", "-g", "lama", "greedy", "threshold", "--rounds", str(10**10), "--out", "x.csv", *backend]
    code, lines, out, before = _interrupt_mid_run(args, tmp_path, whole_group=True)
    assert code == 130, (lines, before)
    assert len(lines) == 1 and re.fullmatch(r"llamasim: interrupted after \d+ rounds; nothing written", lines[0]), \
        (lines, before)
    assert int(lines[0].split()[3]) > 0 and out == "", (lines, before)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------ scale

@pytest.mark.parametrize("args", [
    ["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--rounds", str(10**11 + 1)],
    ["compare", "-g", "lama", "greedy", "threshold", "--games", str(10**20)],
    ["compare", "-g", "lama", "greedy", "threshold", "--precision", "0.01", "--max-rounds", str(10**12)],
    ["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=1:2:1", "--rounds", str(2**70)],
])
def test_counts_beyond_the_limit_refused_at_once(capsys, args, monkeypatch):
    import llama_sim.run.backends as backends
    import llama_sim.run.chunks as chunks

    for module in (chunks, backends):  # warm-up plays through chunks', the chunks through backends'
        monkeypatch.setattr(module, "run_chunk", lambda *a: pytest.fail("played before refusing the count"))
    one_line_error(*call(capsys, *args, "-q")[::2], "must be at most 100,000,000,000")


def test_chunks_are_generated_lazily_and_kept_in_a_window():
    """A run of 10^10 rounds must not build its chunk list: the local backend pulls at most a
    window of chunks ahead of the results it has handed back."""
    from llama_sim.core import registry
    from llama_sim.run import chunks, designs
    from llama_sim.run.backends import LocalBackend
    from llama_sim.core.ruleset import get_game

    game = get_game("lama")
    plan = designs.seat_plan(game, [registry.parse_spec("lama", "greedy")] * 2, False, game.config())
    tasks = chunks.iter_tasks(plan, 1, 0, 10**10)
    pulled = 0

    def counted():
        nonlocal pulled
        for task in tasks:
            pulled += 1
            yield task

    results = LocalBackend(2).map(plan, (t for t in counted() if True))
    seen = [next(results) for _ in range(3)]
    assert len(seen) == 3 and pulled <= 3 + 2 * 2
    results.close()


# ------------------------------------------------------------------------------ --scheduler

def test_scheduler_that_is_not_dask_fails_fast_with_one_line(capsys, monkeypatch):
    """Only loopback addresses: an HTTP server started here, a closed port, malformed addresses.
    Each fails within the probe's seconds (the test would hang before the fix: Client waited on
    the HTTP server forever)."""
    import contextlib
    import http.server
    import io
    import socket
    import threading

    from llama_sim.run import backends

    monkeypatch.setattr(backends, "PROBE_SECONDS", 1.0)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    base = ["compare", "-g", "lama", "greedy", "threshold", "--backend", "dask", "--rounds", "100", "-q"]
    cases = [
        (f"tcp://127.0.0.1:{server.server_address[1]}", "cannot reach the Dask scheduler"),
        (f"127.0.0.1:{server.server_address[1]}", "cannot reach the Dask scheduler"),
        (f"tcp://127.0.0.1:{closed_port}", "cannot reach the Dask scheduler"),
        ("tcp://127.0.0.1:99999", "not a scheduler address"),
        ("not an address", "not a scheduler address"),
        ("", "scheduler: must not be empty"),
        ("http://127.0.0.1:8786", "use tcp:// or tls://"),
    ]
    try:
        for address, needle in cases:
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                with pytest.raises(SystemExit) as exit_:
                    main([*base, "--scheduler", address])
            one_line_error(exit_.value.code, err.getvalue(), needle)
    finally:
        server.shutdown()


def test_a_real_scheduler_passes_the_probe(capsys):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      protocol="tcp://") as cluster:
        code, out, err = call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--backend", "dask",
                              "--scheduler", cluster.scheduler_address, "--rounds", "200", "-q", "--format", "json")
    assert code == 0, err


# ------------------------------------------------------------------------------ strategy files

def test_strategies_file_must_be_python_source(capsys, tmp_path):
    src = tmp_path / "mine.txt"
    src.write_text("from llama_sim.core.registry import strategy\n")
    one_line_error(*call(capsys, "strategies", "-g", "lama", "--strategies-file", str(src))[::2], "ending in .py")


def test_policy_that_numba_cannot_compile_is_one_line_and_debug_shows_all(capsys, tmp_path):
    src = tmp_path / "broken.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('lama', 'broken_rel', 'writes to its hand')\n"
        "def broken_rel(obs, hand, legal, params, rng):\n"
        "    hand[0] = 1\n"
        "    return 0\n")
    args = ["simulate", "-g", "lama", "-s", "broken_rel", "-s", "greedy", "--strategies-file", str(src), *SMALL]
    code, _, err = call(capsys, *args)
    one_line_error(code, err, "lama strategy 'broken_rel'")
    assert "does not compile" in err and "readonly" in err and "broken.py" in err and "--debug" in err
    code, _, err = call(capsys, "--debug", *args)
    assert code == 2 and "Traceback" not in err
    assert err.count("\n") > 3 and "Failed in nopython mode pipeline" in err  # Numba's whole message


def test_a_user_strategy_may_not_take_a_built_in_name(capsys, tmp_path):
    src = tmp_path / "clash.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "from llama_sim.rulesets.lama import QUIT\n"
        "@strategy('lama', 'greedy', 'not the real greedy')\n"
        "def greedy(obs, hand, legal, params, rng):\n"
        "    return QUIT\n")
    for args in (["strategies", "-g", "lama"], ["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", *SMALL]):
        code, _, err = call(capsys, *args, "--strategies-file", str(src))
        one_line_error(code, err, "lama strategy 'greedy' is defined twice: strategies/lama.py, line ")
        assert err.rstrip().endswith("(built in) and clash.py, line 3; give one another name"), err
    from llama_sim.core import registry

    assert registry.get("lama", "greedy").source == "llama_sim.strategies.lama"


def test_a_strategies_file_with_a_syntax_error_is_one_line(capsys, tmp_path):
    src = tmp_path / "syntax.py"
    src.write_text("def (:\n")
    one_line_error(*call(capsys, "strategies", "--strategies-file", str(src))[::2], "SyntaxError")


def test_version(capsys):
    code, out, err = call(capsys, "--version")
    assert code == 0 and re.fullmatch(r"llamasim \S+\n", out) and err == ""


# ------------------------------------------------------------------------------ smaller things

def test_the_readme_kadabra_example_runs(capsys, monkeypatch):
    import shlex

    line = next(ln for ln in (REPO / "README.md").read_text().splitlines() if "--deck-file" in ln and "llamasim" in ln)
    argv = shlex.split(line.split("#")[0])
    assert argv[0] == "llamasim"
    monkeypatch.chdir(REPO)
    code, out, err = call(capsys, *argv[1:], "--rounds", "300", "-q")
    assert code == 0, err
    assert "more symbols" in out  # the report names the table it used


def test_help_shows_readable_metavars(capsys):
    for command in ("games", "strategies", "simulate", "compare", "sweep", "bench", "solve"):
        code, out, _ = call(capsys, command, "--help")
        assert code == 0
        assert not re.search(r"<(list\[|str>|int>|float>|path>|bool>)", out), (command, out)
    _, out, _ = call(capsys, "compare", "--help")
    assert "--rounds N" in out and "--game GAME" in out and "STRATEGY" in out


def test_option_errors_name_options_as_typed(capsys):
    one_line_error(*call(capsys, "compare", "-g", "lama", "--dice-layout", "12-34-56", "greedy", "threshold")[::2],
                   "(got --dice-layout)")
    one_line_error(*call(capsys, "compare", "-g", "dice", "--deck-file", "x.toml", "random", "threshold")[::2],
                   "(got --deck-file)")


def test_compile_time_is_reported_apart_from_the_rate(capsys):
    import json

    code, out, err = call(capsys, *COMPARE, "--format", "json", "--view", "all")
    info = json.loads(out)["run"]["tables"][0]
    assert code == 0 and "compile_seconds" in info and info["rounds_per_second"] > 0
    code, out, _ = call(capsys, *COMPARE)
    assert "kernels compiled or loaded in" in out


def _sweep_marks(capsys, param, rounds):
    code, out, err = call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", param, "--vs", "greedy",
                          "--rounds", str(rounds), "-q", "--seed", "5")
    assert code == 0, err
    rows = [ln.split() for ln in out.splitlines()[2:] if ln.strip() and ln.split()[0].replace(".", "").isdigit()]
    return {float(r[0]): ("best" if "<-" in r else "~" if "~" in r else "") for r in rows}


def test_sweep_marks_every_value_it_cannot_separate_from_the_best(capsys):
    """A lama hand holds at most 1+2+3+4+5+6+10 = 31 points, so quit_at = 40, 50, 60 play exactly
    alike: their paired differences are 0 on every deal and none can be called the one best."""
    marks = _sweep_marks(capsys, "quit_at=40:60:10", 600)
    assert sorted(marks.values()) == ["best", "~", "~"]
    # far apart values are separated: greedy-like quit_at=0 is much worse than quit_at=6
    marks = _sweep_marks(capsys, "quit_at=0:6:6", 20000)
    assert marks == {0.0: "", 6.0: "best"}


def test_sweep_numbers_equal_separate_runs_of_each_value(capsys):
    """All values now run in one design on the same deals; each value's numbers are those its
    own comparison against the opponents gives (same seed)."""
    import json

    code, out, _ = call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=3:7:4",
                        "--vs", "greedy", "--rounds", "600", "-q", "--format", "json")
    sweep = pd.DataFrame(json.loads(out))
    for value in (3, 7):
        code, out, _ = call(capsys, "compare", "-g", "lama", f"threshold:quit_at={value}", "greedy", "--rounds", "600",
                            "-q", "--format", "json")
        alone = pd.DataFrame(json.loads(out))
        alone = alone[alone.strategy == f"threshold:quit_at={value}"].set_index("metric").value
        mine = sweep[sweep.param_value == value].set_index("metric").value
        assert (mine == alone[mine.index]).all()
