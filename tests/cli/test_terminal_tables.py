"""Tables printed for a terminal fit in 100 columns (wide data goes to --format csv|json), and
compare shows one verdict per pair: the paired one."""
import json

import pytest

from cli_helpers import call
from llama_sim.core.output import TERMINAL_WIDTH, columns_text, fit_width


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_columns_that_do_not_fit_move_to_a_block_below_with_the_row_labels():
    rows = [["strategy", "a" * 40, "b" * 40, "c" * 40], ["x", "1", "2", "3"]]
    blocks = fit_width(rows, keep=1)
    assert [b[0] for b in blocks] == [["strategy", "a" * 40, "b" * 40], ["strategy", "c" * 40]]
    assert widest(columns_text(rows)) <= TERMINAL_WIDTH
    pairs = fit_width([["seat", "v1", "d1", "v2" * 30, "d2" * 20]], keep=1, width=80, together=2)
    assert [b[0] for b in pairs] == [["seat", "v1", "d1"], ["seat", "v2" * 30, "d2" * 20]]


def test_bench_fits_the_terminal_and_keeps_every_column_in_json(capsys):
    # L.A.M.A.'s: the line-up kernel tests/analysis/test_bench.py compiles too (a dice one would cost 4-5 s more)
    code, out, err = call(capsys, "bench", "-g", "lama", "--rounds", "2000", "--reference-rounds", "10", "-q")
    assert code == 0, err
    assert widest(out) <= TERMINAL_WIDTH and out.splitlines()[0].split()[:3] == ["game", "line-up", "kernel"]
    code, out, _ = call(capsys, "bench", "-g", "lama", "--rounds", "2000", "--reference-rounds", "10", "-q",
                        "--format", "json")
    assert "lineup_decisions_per_s_1_thread" in json.loads(out)[0]


def test_compare_tables_fit_and_give_one_paired_verdict_per_pair(capsys):
    code, out, err = call(capsys, "compare", "-g", "lama", "smart", "greedy", "threshold:quit_at=3", "chart",
                          "--games", "60", "--seed", "2", "-q")
    assert code == 0, err
    tables = out[out.index("\nResults"):]
    assert widest(tables) <= TERMINAL_WIDTH
    assert "unpaired" not in out and "verdict" in out  # the paired verdict alone
    assert "rounds_per_game" in tables  # every metric is still there, in a second block
    code, out, _ = call(capsys, "compare", "-g", "lama", "smart", "greedy", "--games", "60", "--seed", "2", "-q",
                        "--format", "json", "--view", "paired")
    assert {"unpaired_ci_low", "unpaired_ci_high"} <= set(json.loads(out)[0])  # kept for csv and json


@pytest.mark.parametrize("args", [["games"], ["strategies"], ["strategies", "--players", "2"]])
def test_listings_fit_the_terminal(capsys, args):
    code, out, err = call(capsys, *args)
    assert code == 0, err
    assert widest(out) <= TERMINAL_WIDTH


def test_advise_with_three_metrics_fits(capsys):
    code, out, err = call(capsys, "advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
                          "--pile", "20", "--rollouts", "50", "--horizon", "game", "-q")
    assert code == 0, err
    table = out.splitlines()[2:6]  # after the table line and the roll-outs line
    assert table[0].split() == ["action", "penalty_per_round", "went_out_rate", "win_rate"]
    assert widest("\n".join(table)) <= TERMINAL_WIDTH
