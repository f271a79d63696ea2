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


# ------------------------------------------------------------------------------ bad numbers (item 7)

@pytest.mark.parametrize("args,needle", [
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=nan:1:1"], "finite"),
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:inf:1"], "finite"),
    (["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:1:-inf"], "finite"),
    (["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--seed", "-1"], "--seed"),
    (["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--seed", str(2**64)], "--seed"),
    (["compare", "-g", "lama", "greedy", "threshold", "--seed", str(2**70)], "--seed"),
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
