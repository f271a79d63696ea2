"""The CLI contract: output layout, formats, files, and one-line errors with exit status 2."""
import json
import subprocess
import sys

import pandas as pd
import pytest

from llama_sim.core.output import RESULT_COLUMNS
from cli_helpers import call


def test_module_entry_point_and_help():
    res = subprocess.run([sys.executable, "-m", "llama_sim", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "compare" in res.stdout and "simulate" in res.stdout


def test_console_script_bad_input_exit_2_one_line():
    res = subprocess.run(["llamasim", "compare", "--game", "lama", "nosuch", "greedy"], capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "unknown lama strategy 'nosuch'" in res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


@pytest.mark.parametrize("args,needle", [
    (["compare", "-g", "lama", "nosuch", "greedy"], "unknown lama strategy"),
    (["compare", "-g", "lama", "threshold:bogus=1", "greedy"], "has no parameter 'bogus'"),
    (["compare", "-g", "lama", "threshold:quit_at=-3", "greedy"], "outside"),
    (["compare", "-g", "lama", "threshold:quit_at=x", "greedy"], "not a number"),
    (["compare", "-g", "lama", "-p", "7", "greedy", "threshold"], "2 to 6 players"),
    (["compare", "-g", "lama", "-p", "1", "greedy", "threshold"], "players: lama is played by 2 to 6 players"),
    (["simulate", "-g", "lama", "-s", "greedy"], "2 to 6 players"),
    (["simulate", "-g", "lama"] + ["-s", "greedy"] * 7, "2 to 6 players"),
    (["compare", "-g", "lama", "--rounds", "-5", "greedy", "threshold"], "rounds: must be at least 1, not -5"),
    (["compare", "-g", "lama", "--rounds", "0", "greedy", "threshold"], "rounds: must be at least 1, not 0"),
    (["compare", "-g", "lama", "--rounds", "ten", "greedy", "threshold"], "rounds: must be a whole number, not 'ten'"),
    (["compare", "-g", "chess", "greedy"], "unknown game 'chess'"),
    (["compare", "-g", "lama", "--format", "xml", "greedy"], "unknown --format"),
    (["compare", "-g", "lama", "--rounds", "10", "--games", "10", "greedy"], "not both"),
    (["compare", "-g", "lama", "-p", "2", "greedy", "threshold", "random"], "do not fit 2 seats"),
    (["compare", "-g", "lama", "--nosuch-option", "greedy"], "nosuch_option: compare has no such parameter"),
    (["compare", "-g", "lama", "--threads", "0", "greedy", "threshold"], "threads"),
    (["compare", "-g", "lama", "--strategies-file", "/nonexistent.py", "greedy"], "not found"),
    (["compare", "-g", "lama", "--dice-layout", "12-34-56", "greedy", "threshold"], "lama takes no rule-set options"),
    (["nosuchcommand"], "nosuchcommand"),
])
def test_bad_input_exits_2_with_one_line(capsys, args, needle):
    code, out, err = call(capsys, *args)
    assert code == 2, (code, err)
    assert needle in err and err.count("\n") == 1 and err.startswith("llamasim: error:")
    assert "Traceback" not in err and out == ""


def test_compare_json_is_one_document_in_the_contract_layout(capsys):
    code, out, err = call(capsys, "compare", "-g", "lama", "-p", "3", "greedy", "threshold", "--rounds", "3000",
                          "--format", "json", "--seed", "4")
    assert code == 0
    rows = json.loads(out)
    assert list(rows[0]) == RESULT_COLUMNS
    assert {r["strategy"] for r in rows} == {"greedy", "threshold"}
    assert {r["metric"] for r in rows} == {"penalty_per_round", "went_out_rate", "quit_rate"}
    assert all(r["seat"] is None and r["game"] == "lama" and r["players"] == 3 and r["seed"] == 4 for r in rows)
    for r in rows:
        assert r["ci_low"] <= r["value"] <= r["ci_high"]
    greedy_n = next(r["n"] for r in rows if r["strategy"] == "greedy")
    assert greedy_n == 4500  # half of the 9000 seat-rounds: the balanced fill gives each strategy the extra seat equally often


def test_games_mode_reports_win_rate_and_shares_sum_to_one(capsys):
    code, out, _ = call(capsys, "compare", "-g", "lama", "-p", "4", "smart", "greedy", "--games", "400",
                        "--format", "json")
    rows = pd.DataFrame(json.loads(out))
    assert set(rows.metric) == {"penalty_per_round", "went_out_rate", "quit_rate", "win_rate", "final_score",
                                "rounds_per_game"}
    win = rows[rows.metric == "win_rate"].set_index("strategy").value
    assert abs(2 * win.sum() - 1) < 1e-12  # each strategy holds two of the four seats; wins are shared
    assert (rows[rows.metric == "win_rate"].n == 804).all()  # 67 design blocks x 6 seatings x 2 seats


def test_simulate_reports_per_seat_and_threads_do_not_matter(capsys):
    args = ["simulate", "-g", "lama", "-s", "greedy", "-s", "random", "-s", "always_quit", "--rounds", "5000",
            "--format", "csv", "--seed", "9"]
    _, one, _ = call(capsys, *args, "--threads", "1")
    _, two, _ = call(capsys, *args, "--threads", "2")
    assert one == two
    df = pd.read_csv(__import__("io").StringIO(one))
    assert list(df.columns) == RESULT_COLUMNS and sorted(df.seat.unique()) == [0, 1, 2]
    quit_rate = df[(df.strategy == "always_quit") & (df.metric == "quit_rate")].value.item()
    assert quit_rate == 1.0


def test_out_file_written_and_never_overwritten_without_force(capsys, tmp_path):
    target = tmp_path / "res.csv"
    base = ["compare", "-g", "lama", "greedy", "threshold", "--rounds", "2000", "-q"]
    assert call(capsys, *base, "--out", str(target))[0] == 0
    first = target.read_text()
    assert list(pd.read_csv(target).columns) == RESULT_COLUMNS
    code, _, err = call(capsys, *base, "--seed", "2", "--out", str(target))
    assert code == 2 and "--force" in err and target.read_text() == first
    assert call(capsys, *base, "--seed", "2", "--out", str(target), "--force")[0] == 0
    assert target.read_text() != first
    pq = tmp_path / "res.parquet"
    assert call(capsys, *base, "--out", str(pq), "--format", "json")[0] == 0
    assert list(pd.read_parquet(pq).columns) == RESULT_COLUMNS


def test_user_strategy_file(capsys, tmp_path):
    src = tmp_path / "mine.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "from llama_sim.rulesets.lama import QUIT\n"
        "@strategy('lama', 'quit_now_user', 'a user strategy', params={'unused': (1, 0, 2)})\n"
        "def quit_now_user(obs, hand, legal, params, rng):\n"
        "    return QUIT\n")
    code, out, _ = call(capsys, "strategies", "-g", "lama", "--strategies-file", str(src))
    assert code == 0 and "quit_now_user" in out and "unused=1 [0, 2]" in out
    code, out, _ = call(capsys, "simulate", "-g", "lama", "-s", "quit_now_user:unused=2", "-s", "always_quit",
                        "--rounds", "2000", "--strategies-file", str(src), "--format", "json")
    rows = json.loads(out)
    assert {r["strategy"] for r in rows} == {"quit_now_user:unused=2", "always_quit"}


def test_games_and_strategies_listings(capsys):
    code, out, _ = call(capsys, "games", "--format", "json")
    games = {g["game"]: g for g in json.loads(out)}
    assert games["lama"]["players"] == "2-6"
    code, out, _ = call(capsys, "strategies", "--game", "lama", "--format", "json")
    names = {r["strategy"] for r in json.loads(out)}
    assert {"always_quit", "random", "greedy", "threshold", "smart"} <= names


def test_sweep_finds_the_known_best_threshold_region(capsys):
    code, out, _ = call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:12:6",
                        "--vs", "greedy", "--rounds", "20000", "--format", "json")
    assert code == 0
    rows = pd.DataFrame(json.loads(out))
    assert list(rows.columns) == RESULT_COLUMNS + ["param", "param_value"]
    pen = rows[rows.metric == "penalty_per_round"].set_index("param_value").value
    assert list(pen.index) == [0.0, 6.0, 12.0]
    # quit_at=0 never quits while it can draw: greedy itself; 6 is far better than both ends.
    assert pen[6.0] < pen[0.0] - 0.5 and pen[6.0] < pen[12.0] - 0.3


@pytest.mark.parametrize("param,needle", [("quit_at", "k=lo:hi:step"), ("quit_at=5:1:1", "lo <= hi"),
                                          ("quit_at=0:1:0", "step > 0"), ("nope=0:1:1", "no parameter 'nope'")])
def test_sweep_bad_ranges(capsys, param, needle):
    code, out, err = call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", param)
    assert code == 2 and needle in err and err.count("\n") == 1


def test_strategy_breaking_the_contract_is_one_line(capsys, tmp_path):
    src = tmp_path / "cheat.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('lama', 'cheat_cli_test', 'draws even when it may not')\n"
        "def cheat_cli_test(obs, hand, legal, params, rng):\n"
        "    return 7\n")
    code, out, err = call(capsys, "simulate", "-g", "lama", "-s", "cheat_cli_test", "-s", "always_quit",
                          "--rounds", "50", "--strategies-file", str(src), "-q")
    assert code == 2 and "illegal action" in err and err.count("\n") == 1


def test_reports_state_the_rule_set_options_used(capsys):
    code, out, _ = call(capsys, "compare", "-g", "kadabra", "greedy", "threshold", "--rounds", "600", "-q")
    assert code == 0 and "symbol table: default" in out and "give on 8 of 8 1s" in out
    code, out, _ = call(capsys, "compare", "-g", "kadabra", "greedy", "threshold", "--rounds", "600", "-q",
                        "--format", "json", "--view", "all")
    assert json.loads(out)["run"]["rules"]["symbol_table"] == "default"
    code, out, _ = call(capsys, "simulate", "-g", "dice", "-s", "threshold", "-s", "always_roll", "--rounds", "500",
                        "-q", "--dice-layout", "13-24-56")
    assert code == 0 and "dice layout: 13-24-56" in out
