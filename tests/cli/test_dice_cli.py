"""The dice game through the CLI: simulate/compare/bench, --dice-layout, and ``llamasim solve dice``."""
import json
import subprocess

import pandas as pd
import pytest

from llama_sim.rulesets.dice import solver as sv
from llama_sim.rulesets.dice.tables import LAYOUTS
from llama_sim.core.output import RESULT_COLUMNS
from cli_helpers import call


# ----------------------------------------------------------------------------- simulate / compare / bench

def test_simulate_dice_json_with_a_layout(capsys):
    code, out, err = call(capsys, "simulate", "-g", "dice", "-s", "threshold", "-s", "keep_llama", "-s", "solo_optimal",
                          "--rounds", "3000", "--dice-layout", "16-25-34", "--format", "json", "-q")
    assert code == 0, err
    df = pd.DataFrame(json.loads(out))
    assert list(df.columns) == RESULT_COLUMNS and set(df.game) == {"dice"} and set(df.seat) == {0, 1, 2}
    pen = df[df.metric == "penalty_per_round"]
    assert ((pen.value > 0) & (pen.value < 31)).all() and (pen.n == 3000).all()


def test_layout_changes_results_but_same_seed_same_numbers(capsys):
    args = ["simulate", "-g", "dice", "-s", "always_roll", "-s", "always_roll", "--rounds", "2000", "--format", "json", "-q"]
    a = json.loads(call(capsys, *args)[1])
    b = json.loads(call(capsys, *args)[1])
    c = json.loads(call(capsys, *args, "--dice-layout", "1235LL/1346LL/2456LL")[1])
    assert a == b and a != c


def test_compare_dice_games_mode(capsys):
    code, out, err = call(capsys, "compare", "-g", "dice", "-p", "3", "threshold", "always_quit", "--games", "60",
                          "--format", "json", "-q")
    assert code == 0, err
    df = pd.DataFrame(json.loads(out))
    wins = df[df.metric == "win_rate"].set_index("strategy").value
    assert ((wins >= 0) & (wins <= 1)).all() and wins["threshold"] > wins["always_quit"]
    assert set(df.metric) >= {"penalty_per_round", "final_score", "rounds_per_game", "win_rate"}


def test_bench_dice_reference_agrees(capsys, monkeypatch):
    monkeypatch.setenv("LLAMA_SIM_KERNEL", "generic")  # the generic kernel's check (line-up kernels: test_lineup)
    code, out, err = call(capsys, "bench", "-g", "dice", "--rounds", "20000", "--reference-rounds", "200",
                          "--format", "json", "-q")
    assert code == 0, err
    row = json.loads(out)[0]
    assert row["game"] == "dice" and row["line-up"] == "4 x threshold" and row["reference_agrees"] is True


def test_games_lists_the_dice_layout_option_and_each_rule_sets_luck_default(capsys):
    code, out, _ = call(capsys, "games", "--format", "json")
    rows = {r["game"]: r for r in json.loads(out)}
    assert "--dice-layout" in rows["dice"]["options"] and all(name in rows["dice"]["options"] for name in LAYOUTS)
    assert {g: r["luck"] for g, r in rows.items()} == {"lama": "off", "party": "off", "kadabra": "off", "dice": "on"}


def test_strategies_lists_the_dice_strategies(capsys):
    code, out, _ = call(capsys, "strategies", "-g", "dice", "--format", "json")
    names = {r["strategy"] for r in json.loads(out)}
    assert {"always_quit", "random", "always_roll", "threshold", "solo_optimal", "keep_llama"} <= names


@pytest.mark.parametrize("args", [
    ["simulate", "-g", "dice", "-s", "threshold", "-s", "threshold", "--dice-layout", "12-34-57"],
    ["compare", "-g", "dice", "threshold", "keep_llama", "--dice-layout", "1234LL/1256LL"],
    ["sweep", "-g", "dice", "--strategy", "threshold", "--param", "quit_at=5:6:1", "--dice-layout", "LLLLLL/1/2"],
    ["solve", "dice", "--row", "2 5 L", "--dice-layout", "1234LL/1234LL/5656LL"],
])
def test_invalid_dice_layout_exits_2_with_one_clear_line(capsys, args):
    code, out, err = call(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("llamasim: error: invalid --dice-layout") and err.strip().count("\n") == 0


def test_invalid_layout_console_script():
    res = subprocess.run(["llamasim", "simulate", "-g", "dice", "-s", "threshold", "-s", "threshold",
                          "--dice-layout", "bogus"], capture_output=True, text=True)
    assert res.returncode == 2 and "invalid --dice-layout 'bogus'" in res.stderr
    assert "Traceback" not in res.stderr and res.stderr.strip().count("\n") == 0


# ----------------------------------------------------------------------------- solve

def test_solve_prints_quit_and_roll_values_and_the_choice(capsys):
    code, out, err = call(capsys, "solve", "dice", "--row", "2 5 L", "--llama-row", "1 2 3 4 5 6 L")
    assert code == 0, err
    exact = sv.solve_solo("2 5 L", "1 2 3 4 5 6 L")
    assert "quit now:" in out and "17.0000" in out
    assert f"{exact.roll_value:.4f}" in out and "optimal choice:                  roll" in out


def test_solve_json_and_csv_carry_the_numbers(capsys, tmp_path):
    code, out, _ = call(capsys, "solve", "dice", "--row", "L", "--llama-row", "1 L", "--dice-layout", "13-25-46",
                        "--format", "json")
    rec = json.loads(out)[0]
    exact = sv.solve_solo("L", "1 L", "13-25-46")
    assert rec["dice_layout"] == "13-25-46" and rec["row"] == "L" and rec["llama_row"] == "1 L"
    assert rec["quit_value"] == 10 and abs(rec["roll_value"] - exact.roll_value) < 1e-12 and rec["best"] == exact.best_action
    path = tmp_path / "one.csv"
    code, out, _ = call(capsys, "solve", "dice", "--row", "1 2", "--format", "csv", "--out", str(path))
    assert code == 0 and pd.read_csv(path).equals(pd.read_csv(pd.io.common.StringIO(out)))
    assert call(capsys, "solve", "dice", "--row", "1 2", "--out", str(path))[0] == 2  # exists, no --force
    assert call(capsys, "solve", "dice", "--row", "1 2", "--out", str(path), "--force")[0] == 0


def test_solve_table_is_the_policy_of_every_sub_row(capsys, tmp_path):
    path = tmp_path / "policy.parquet"
    code, out, err = call(capsys, "solve", "dice", "--row", "2 5 5 L", "--table", "--format", "csv", "--out", str(path))
    assert code == 0, err
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert len(df) == 2 * 3 * 2 - 1  # the non-empty sub-multisets of 2 5 5 L
    assert list(df.columns) == ["dice_layout", "llama_row", "score", "row", "quit_value", "roll_value", "best", "value",
                                "keeps"]
    assert (df.score == 0).all()
    for r in df.itertuples():
        v = sv.solve_solo(r.row, "1 2 3 4 5 6 L")
        assert abs(r.value - float(v.value)) < 1e-9 and r.best == v.best_action
    assert pd.read_parquet(path).shape == df.shape
    # the keeps column names exactly the rolls after which the optimum leaves a matching card
    row = df[df.row == "2 5 L"].iloc[0]
    assert row.keeps.startswith("1 2 5: 5")
    d = sv.best_discard("2 5 L", "1 2 3 4 5 6 L", None, [0, 1, 4])
    assert sv.format_cards(d) == "5"


def test_solve_score_counts_the_returned_tokens(capsys):
    """--score: three llamas and going out return the largest token held; the output names the score."""
    code, out, err = call(capsys, "solve", "dice", "--row", "L L", "--score", "10")
    assert code == 0, err
    assert "score 10" in out and "8.0747" in out and "optimal choice:                  roll" in out
    code, out, _ = call(capsys, "solve", "dice", "--row", "L L", "--score", "10", "--format", "json")
    rec = json.loads(out)[0]
    assert rec["score"] == 10 and rec["best"] == "roll"
    assert rec["roll_value"] == pytest.approx(25508 / 3159, abs=1e-12)  # test_solve: an independent recursion
    code, out, _ = call(capsys, "solve", "dice", "--row", "L L", "--format", "json")
    assert json.loads(out)[0]["score"] == 0 and json.loads(out)[0]["best"] == "quit"
    code, out, _ = call(capsys, "solve", "dice", "--row", "1 L", "--table", "--score", "12", "--format", "csv")
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert (df.score == 12).all()
    for r in df.itertuples():
        assert abs(r.value - sv.solve_solo(r.row, "1 2 3 4 5 6 L", score=12).value) < 1e-9
    import llama_sim

    assert llama_sim.solve("dice", row="L L", score=10).policy.roll_value.iloc[0] == pytest.approx(25508 / 3159)


def test_solve_table_without_row_covers_every_row_up_to_6_cards(capsys):
    code, out, _ = call(capsys, "solve", "dice", "--table", "--llama-row", "3", "--format", "csv")
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert code == 0 and len(df) == 1714 and df.row.str.split().str.len().max() == 6  # not six 3s
    assert "3 3 3 3 3 3" not in set(df.row)


@pytest.mark.parametrize("args,needle", [
    (["solve", "dice", "--row", "2 5 X"], "invalid card 'X'"),
    (["solve", "dice", "--row", ""], "row: must not be empty"),
    (["solve", "dice", "--row", "2", "--llama-row", ""], "llama_row: must not be empty"),
    (["solve", "dice", "--row", "2", "--llama-row", "1 1 2"], "at most one card of each value"),
    (["solve", "dice", "--row", "2 2 2 2 2 2", "--llama-row", "2"], "impossible position"),
    (["solve", "dice"], "give --row"),
    (["solve", "lama", "--row", "2"], "dice only"),
    (["solve", "chess", "--row", "2"], "unknown game"),
    (["solve", "dice", "--row", "2", "--format", "xml"], "unknown --format"),
    (["solve", "dice", "--row", "2", "--score", "40"], "score: must be at most 39, not 40"),
    (["solve", "dice", "--row", "2", "--score", "-3"], "score: must be at least 0, not -3"),
])
def test_solve_bad_input_exits_2_with_one_line(capsys, args, needle):
    code, out, err = call(capsys, *args)
    assert code == 2 and out == "" and needle in err and err.strip().count("\n") == 0
