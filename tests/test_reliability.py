"""Reliability (issue 11): no silent corruption, no lost work, one clear line for every bad input."""
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from llama_sim import output
from llama_sim.cli import main

REPO = Path(__file__).resolve().parents[1]
SMALL = ["--rounds", "200", "-q"]
COMPARE = ["compare", "-g", "lama", "greedy", "threshold"] + SMALL


def call(capsys, *args):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, needle=""):
    assert code == 2, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert needle in err, err


# ------------------------------------------------------------------------------ --out (item 3)

def test_out_problems_refused_before_any_simulation(capsys, tmp_path, monkeypatch):
    import llama_sim.simulate as sim

    def no_run(*a, **k):  # any simulation at all fails the test
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(sim, "run", no_run)
    monkeypatch.setattr("llama_sim.cli.run", no_run)
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

    def fail_on_ranking(df, path):
        if ".ranking." in Path(path).name:
            raise OSError(28, "No space left on device")
        real(df, path)

    monkeypatch.setattr(output, "write_table", fail_on_ranking)
    with pytest.raises(OSError):
        main([*COMPARE, "--out", str(tmp_path / "x.csv")])
    assert list(tmp_path.iterdir()) == []  # no x.csv, no x.paired.csv, no temporary file
    monkeypatch.setattr(output, "write_table", real)
    assert call(capsys, *COMPARE, "--out", str(tmp_path / "x.csv"))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.paired.csv", "x.ranking.csv"]
    assert len(pd.read_csv(tmp_path / "x.paired.csv")) == 1
