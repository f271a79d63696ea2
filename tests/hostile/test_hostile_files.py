"""Hostile files: a full disk, --force over folders the tool did not write, two runs racing for one
--out, and output paths that cannot work. Nothing partial may remain, nothing old may be lost."""
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from llama_sim.core import files
from llama_sim.core.errors import UsageError
from cli_helpers import call

SMALL = ["--rounds", "200", "-q"]
COMPARE = ["compare", "-g", "lama", "greedy", "threshold"] + SMALL
SPEC = """question = "Does threshold beat greedy?"
game = "lama"
seed = 1

[[steps]]
kind = "compare"
strategies = ["greedy", "threshold"]
rounds = 200
"""


def llamasim(*args, cwd=None, limit=None, timeout=300):
    """Run the CLI in a fresh process; ``limit``: the largest file it may write (a full disk)."""
    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write then fails with EFBIG

    return subprocess.run([sys.executable, "-m", "llama_sim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, preexec_fn=small_disk if limit else None)


def one_line(code, err, needle="", status=2):
    assert code == status, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert needle in err, err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith(files.TEMP_PREFIX))


# ------------------------------------------------------------------------------ whole or not at all

@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_a_full_disk_keeps_the_old_plot(capsys, tmp_path, suffix):
    plot = tmp_path / f"x{suffix}"
    plot.write_text("old plot")
    assert call(capsys, *COMPARE)[0] == 0  # the kernels in the disk cache: the small disk is only for the plot
    r = llamasim(*COMPARE, "--plot", str(plot), "--force", limit=4000)
    one_line(r.returncode, r.stderr, f"x{suffix}: File too large", status=1)
    assert plot.read_text() == "old plot" and leftovers(tmp_path) == []
    code, _, err = call(capsys, *COMPARE, "--plot", str(plot), "--force")  # on a disk with room
    assert code == 0, err
    assert plot.stat().st_size > 4000 and leftovers(tmp_path) == []
    if suffix == ".svg":
        assert plot.read_text().rstrip().endswith("</svg>")


def test_a_full_disk_keeps_old_tables_and_writes_none(capsys, tmp_path):
    out = tmp_path / "x.csv"
    assert call(capsys, *COMPARE, "--out", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    r = llamasim(*COMPARE, "--seed", "2", "--out", str(out), "--force", limit=300)
    one_line(r.returncode, r.stderr, "File too large", status=1)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_emitted_strategy_is_whole_or_absent(tmp_path, monkeypatch):
    import numpy as np

    from llama_sim.analysis import chart as C

    class Result:  # what emit_strategy reads of a chart; the tables themselves are stubbed
        game, players, policy, measure, games, seed = "lama", 4, "smart", "own", 1, 1

    monkeypatch.setattr(C, "_edges", lambda *a: (0, 1))
    monkeypatch.setattr(C, "quit_table", lambda *a: np.zeros((1, 1, 1), int))
    monkeypatch.setattr(C, "bins", lambda *a: (np.zeros(3, int), None))
    target = tmp_path / "mine.py"
    target.write_text("# old\n")
    real = Path.write_text

    def half_then_full(self, text, *a, **k):  # half the file reaches the disk, then it is full
        real(self, text[: len(text) // 2])
        raise OSError(28, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", half_then_full)
    with pytest.raises(OSError) as exc:
        C.emit_strategy(Result(), target)
    monkeypatch.setattr(Path, "write_text", real)
    assert exc.value.filename == str(target)
    assert target.read_text() == "# old\n" and leftovers(tmp_path) == []
    assert C.emit_strategy(Result(), target) == "mine"
    assert "def mine(" in target.read_text() and leftovers(tmp_path) == []


def test_an_interrupted_report_leaves_no_folder(tmp_path):
    """SIGTERM arrives while the report folder is being written: exit 143, one line, no folder,
    no hidden temporary folder."""
    (tmp_path / "spec.toml").write_text(SPEC)
    code = ("import os, signal, sys\n"
            "import llama_sim.present.report as R\n"
            "real = R.render_html\n"
            "def slow(*a):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a)\n"
            "R.render_html = slow\n"
            "from llama_sim.cli import main\n"
            "main(sys.argv[1:])\n")
    r = subprocess.run([sys.executable, "-c", code, "run", "spec.toml", "--out", "rep", "-q"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    one_line(r.returncode, r.stderr, "llamasim: terminated", status=143)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]


def test_write_text_never_replaces_without_force(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("theirs")
    with pytest.raises(UsageError, match="appeared while this run was working"):
        files.write_text(path, "mine", force=False)
    assert path.read_text() == "theirs" and leftovers(tmp_path) == []
    files.write_text(path, "mine", force=True)
    assert path.read_text() == "mine" and leftovers(tmp_path) == []


# ------------------------------------------------------------------------------ --force

def test_force_refuses_a_folder_the_tool_did_not_write(capsys, tmp_path, monkeypatch):
    (tmp_path / "spec.toml").write_text(SPEC)
    mine = tmp_path / "project"
    mine.mkdir()
    (mine / "spec.toml").write_text(SPEC)
    (mine / "notes.md").write_text("my notes")
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "run", "spec.toml", "--out", "project", "--force", "-q")
    one_line(code, err, "--force replaces only a report folder llamasim wrote")
    assert sorted(p.name for p in mine.iterdir()) == ["notes.md", "spec.toml"]
    assert (mine / "notes.md").read_text() == "my notes" and leftovers(tmp_path) == []


def test_force_replaces_its_own_report_and_nothing_else(capsys, tmp_path, monkeypatch):
    (tmp_path / "spec.toml").write_text(SPEC)
    old = tmp_path / ".rep.old"  # a user's folder with the name the tool once used for its swap
    old.mkdir()
    (old / "keep.txt").write_text("keep")
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "run", "spec.toml", "--out", "rep", "-q")
    assert code == 0, err
    first = (tmp_path / "rep").stat().st_ino
    code, _, err = call(capsys, "run", "spec.toml", "--out", "rep", "--force", "-q")
    assert code == 0, err
    assert (tmp_path / "rep").stat().st_ino != first  # a new folder, installed while the old one still stood
    assert (old / "keep.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".rep.old", "rep", "spec.toml"]
    # a report folder with a user's file added is no longer only the tool's
    (tmp_path / "rep" / "notes.md").write_text("mine")
    code, _, err = call(capsys, "run", "spec.toml", "--out", "rep", "--force", "-q")
    one_line(code, err, "holds notes.md")
    assert (tmp_path / "rep" / "notes.md").read_text() == "mine"


def test_force_does_not_replace_a_file_or_a_link_with_a_folder(capsys, tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "rep").write_text("a file")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    for name in ("rep", "link"):
        one_line(*call(capsys, "run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / name), "--force",
                       "-q")[::2], "not a folder")
    assert (tmp_path / "rep").read_text() == "a file" and (tmp_path / "link").resolve() == tmp_path / "elsewhere"


# ------------------------------------------------------------------------------ two runs, one --out

# Run the CLI, but stop at ``module.name`` (reached after every check and all the work) until the
# test says go: both runs have then passed the checks at start and race for the same name.
BARRIER = """import os, sys, time
import importlib
module = importlib.import_module(sys.argv.pop(1))
name = sys.argv.pop(1)
real = getattr(module, name)
def wait(*a, **k):
    open(os.environ["READY"], "w").close()
    while not os.path.exists(os.environ["GO"]):
        time.sleep(0.01)
    return real(*a, **k)
setattr(module, name, wait)
from llama_sim.cli import main
main(sys.argv[1:])
"""


def race(tmp_path, where, argvs, cwd=None):
    procs = []
    for i, argv in enumerate(argvs):
        env = {**os.environ, "READY": str(tmp_path / f"ready{i}"), "GO": str(tmp_path / "go")}
        procs.append(subprocess.Popen([sys.executable, "-c", BARRIER, *where, *argv], cwd=cwd or tmp_path, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 300
    while not all((tmp_path / f"ready{i}").exists() for i in range(len(argvs))):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.05)
    (tmp_path / "go").write_text("")
    done = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    for name in ["go", *(f"ready{i}" for i in range(len(argvs)))]:
        (tmp_path / name).unlink()
    return done


def test_two_runs_racing_for_one_out(tmp_path):
    """Both pass the check at start and finish together; one installs all its files, the other
    exits 2 and writes nothing: the three tables always come from one run (its seed)."""
    out = tmp_path / "x.csv"
    done = race(tmp_path, ["llama_sim.core.files", "install"],
                [[*COMPARE, "--seed", str(seed), "--out", str(out)] for seed in (1, 2)])
    assert sorted(code for code, _, _ in done) == [0, 2], done
    winner = 1 if done[0][0] == 0 else 2
    one_line(2, done[2 - winner][2], "appeared while this run was working")
    seeds = {name: set(pd.read_csv(tmp_path / name)["seed"]) for name in ("x.csv", "x.paired.csv", "x.ranking.csv")}
    assert all(s == {winner} for s in seeds.values()), seeds
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.paired.csv", "x.ranking.csv"]


def test_two_threads_racing_for_one_file(tmp_path):
    path = tmp_path / "x.txt"
    results = []

    def write(text):
        try:
            files.write_text(path, text * 10000, force=False)
            results.append("won")
        except UsageError:
            results.append("lost")

    threads = [threading.Thread(target=write, args=(t,)) for t in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["lost", "won"]
    assert path.read_text() in ("a" * 10000, "b" * 10000) and leftovers(tmp_path) == []


def test_two_reports_racing_for_one_folder(tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC)
    done = race(tmp_path, ["llama_sim.present.report", "render_html"],
                [["run", "spec.toml", "--out", "rep", "-q"]] * 2)
    assert sorted(code for code, _, _ in done) == [0, 2], done
    one_line(2, [err for code, _, err in done if code][0], "appeared while this run was working")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep", "spec.toml"]
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["plots", "report.html", "report.md", "run.json",
                                                                    "tables"]


# ------------------------------------------------------------------------------ paths checked first

LONG = "x" * 300


def bad_paths(tmp_path, suffix):
    (tmp_path / "afile").write_text("x")
    (tmp_path / f"adir{suffix}").mkdir(exist_ok=True)
    return [
        (str(tmp_path / f"nul\0name{suffix}"), "null byte"),
        (str(tmp_path / f"{LONG}{suffix}"), "longer than the file system allows"),
        (str(tmp_path / "missing" / f"x{suffix}"), "does not exist"),
        (str(tmp_path / "afile" / f"x{suffix}"), "is not a folder"),
        (str(tmp_path / f"adir{suffix}"), "is a folder"),
    ]


@pytest.mark.parametrize("option,suffix", [("--out", ".csv"), ("--plot", ".png")])
def test_bad_output_paths_refused_before_any_work(capsys, tmp_path, monkeypatch, option, suffix):
    import llama_sim.run.backends as backends
    import llama_sim.run.chunks as chunks

    for module in (chunks, backends):
        monkeypatch.setattr(module, "run_chunk", lambda *a: pytest.fail("played before checking the path"))
    for path, needle in bad_paths(tmp_path, suffix):
        one_line(*call(capsys, *COMPARE, option, path)[::2], needle)


def test_bad_emit_strategy_paths_refused_before_any_work(capsys, tmp_path, monkeypatch):
    from llama_sim import api

    monkeypatch.setattr(api, "chart", lambda *a, **k: pytest.fail("charted before checking the path"))
    for path, needle in bad_paths(tmp_path, ".py"):
        one_line(*call(capsys, "chart", "-g", "lama", "--games", "10", "-q", "--emit-strategy", path)[::2], needle)


def test_bad_report_folders_refused_before_any_work(capsys, tmp_path, monkeypatch):
    import llama_sim.run.backends as backends
    import llama_sim.run.chunks as chunks

    for module in (chunks, backends):
        monkeypatch.setattr(module, "run_chunk", lambda *a: pytest.fail("played before checking the path"))
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    (tmp_path / "afile").write_text("x")
    cases = [(str(tmp_path / "nul\0rep"), "out: must not hold a NUL character"), (str(tmp_path / LONG), "longer than the file system"),
             (str(tmp_path / "missing" / "rep"), "does not exist"), (str(tmp_path / "afile" / "rep"), "is not a folder"),
             (str(tmp_path / "afile"), "is not a folder")]
    for path, needle in cases:
        one_line(*call(capsys, "run", str(spec), "--out", path, "-q")[::2], needle)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_plot_folder_without_write_permission(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        one_line(*call(capsys, *COMPARE, "--plot", str(locked / "x.png"))[::2], "cannot write")
    finally:
        locked.chmod(0o700)


def test_a_plot_in_a_folder_nobody_can_write(capsys):
    one_line(*call(capsys, *COMPARE, "--plot", "/proc/llamasim-x.png")[::2], "cannot write")


def test_outputs_get_the_usual_file_mode(tmp_path):
    """Written through a temporary file, but with the mode a plain write gives (umask 022: 0644)."""
    old = os.umask(0o022)
    try:
        files.write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644
