"""Per-step rule-set options in experiment specs: ``options`` on a step and ``option_grid``."""
import json

import pandas as pd
import pytest

import llama_sim
from llama_sim.present.experiment import load_spec
from llama_sim.rulesets.dice import LAYOUT_NAMES
from cli_helpers import call
from test_experiment import check_report, write_spec

DICE = '''question = "q"
game = "dice"
seed = 7
options = { dice_layout = "13-25-46" }
'''


def test_a_step_overrides_the_spec_options(tmp_path):
    spec = write_spec(tmp_path, DICE + '''
[[steps]]
name = "own"
kind = "compare"
strategies = ["threshold:quit_at=1", "watcher"]
games = 300
options = { dice_layout = "16-25-34" }
[[steps]]
name = "spec"
kind = "simulate"
seats = ["threshold", "watcher"]
rounds = 500
''')
    r = llama_sim.run_experiment(spec, out=tmp_path / "r", quiet=True)
    own, inherited = (s.results[0] for s in r.steps)
    direct = llama_sim.compare("dice", ["threshold:quit_at=1", "watcher"], players=4, games=300, seed=7,
                               dice_layout="16-25-34", quiet=True)
    pd.testing.assert_frame_equal(own.paired, direct.paired)
    assert own.run["rules"]["dice_layout"] == "16-25-34" and inherited.run["rules"]["dice_layout"] == "13-25-46"
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["rules"]["dice_layout"] == "13-25-46"
    assert run["steps"][0]["rules"]["dice_layout"] == "16-25-34" and "rules" not in run["steps"][1]
    check_report(tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "dice layout: 13-25-46; dice faces: 1235LL/1346LL/2456LL; steps own set their own, see each step" in md
    assert "- Rule-set options of this step: dice layout: 16-25-34;" in md


def test_option_grid_runs_once_per_value_each_on_its_own_seed(tmp_path):
    layouts = ["12-34-56", "14-25-36"]
    spec = write_spec(tmp_path, DICE + f'''
[[steps]]
name = "grid"
kind = "compare"
strategies = ["threshold:quit_at=1", "watcher"]
games = 300
option_grid = {{ dice_layout = {json.dumps(layouts)} }}
[[steps]]
name = "quit"
kind = "sweep"
strategy = "threshold"
grid = {{ quit_at = [0, 1, 3] }}
vs = ["threshold:quit_at=1"]
rounds = 600
option_grid = {{ dice_layout = {json.dumps(layouts)} }}
[[steps]]
name = "each"
kind = "simulate"
seats = ["threshold", "watcher"]
rounds = 300
option_grid = {{ dice_layout = {json.dumps(layouts)} }}
''')
    out = tmp_path / "r"
    r = llama_sim.run_experiment(spec, out=out, quiet=True)
    grid, quit_, each = r.steps
    for i, (layout, res) in enumerate(zip(layouts, grid.results)):
        direct = llama_sim.compare("dice", ["threshold:quit_at=1", "watcher"], players=4, games=300, seed=7 + i,
                                   dice_layout=layout, quiet=True)
        pd.testing.assert_frame_equal(res.results, direct.results)
        swept = llama_sim.sweep("dice", "threshold", {"quit_at": [0, 1, 3]}, vs=["threshold:quit_at=1"], rounds=600,
                                seed=7 + i, dice_layout=layout, quiet=True)
        pd.testing.assert_frame_equal(quit_.results[i].summary, swept.summary)
        best = quit_.tables["across_best"]
        assert best.best_value.iloc[i] == swept.best.param_value and best.dice_layout.iloc[i] == layout
    results = grid.tables["results"]
    assert list(results.columns[:2]) == ["dice_layout", "game"] and list(results.dice_layout.unique()) == layouts
    assert set(grid.tables) == {"results", "paired", "ranking", "across", "across_spread", "across_best"}
    assert grid.conclusion.startswith("Across the 2 dice layouts") and "simultaneous" in grid.conclusion
    assert len(grid.details) == 2 and grid.details[1].startswith("dice layout 14-25-36 (seed 8): At 4 players")
    assert "Across the 2 dice layouts" in quit_.conclusion
    assert each.summary is None and "dice layout 12-34-56 (seed 7)" in each.conclusion
    plots = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert plots == ["each_12-34-56.png", "each_14-25-36.png", "grid.png", "quit.png"]
    run = json.loads((out / "run.json").read_text())
    assert run["steps"][0]["option_grid"] == {"dice_layout": layouts} and run["steps"][0]["seeds"] == [7, 8]
    check_report(out)
    md = (out / "report.md").read_text()
    assert "- dice layout 14-25-36 (seed 8): " not in md  # the summary's table has each layout's lead
    assert md.count("dice layout 12-34-56 (seed 7): Penalty per round by seat") == 1  # no summary: each value's answer
    assert "(seeds 7 to 8, in table order)" in md and "every step sets its own, see each step" in md


def test_all_means_every_dice_layout():
    spec = load_spec({"question": "q", "game": "dice",
                      "steps": [{"kind": "solve", "table": True, "option_grid": {"dice_layout": "all"}}]})
    assert spec.steps[0].option_grid == {"dice_layout": list(LAYOUT_NAMES)} and len(LAYOUT_NAMES) == 15


STEP = '''[[steps]]
kind = "compare"
strategies = ["threshold:quit_at=1", "watcher"]
rounds = 200
'''


@pytest.mark.parametrize("extra,key,needle", [
    ('options = "13-25-46"', "steps[0].options", "must be a table"),
    ('options = { dice_layout = "11-22-33" }', "steps[0].options", ""),
    ('options = { colour = "red" }', "steps[0].options", "colour"),
    ('options = { dice_layout = 3.5 }', "steps[0].options", ""),
    ('options = { dice_layout = [1] }', "steps[0].options.dice_layout", "must be a string"),
    ('option_grid = "all"', "steps[0].option_grid", "must be a table"),
    ('option_grid = {}', "steps[0].option_grid", "must be a table"),
    ('option_grid = { dice_layout = [] }', "steps[0].option_grid.dice_layout", "non-empty list"),
    ('option_grid = { dice_layout = ["12-34-56", "nope"] }', "steps[0].option_grid.dice_layout[1]", ""),
    ('option_grid = { dice_layout = ["12-34-56", "12-34-56"] }', "steps[0].option_grid.dice_layout", "twice"),
    ('option_grid = { dice_layout = "some" }', "steps[0].option_grid.dice_layout", "\"all\""),
    ('option_grid = { colour = "all" }', "steps[0].option_grid.colour", "known only for"),
    ('options = { dice_layout = "12-34-56" }\noption_grid = { dice_layout = "all" }',
     "steps[0].option_grid.dice_layout", "also set"),
])
def test_bad_step_options_exit_2_naming_the_key(capsys, tmp_path, monkeypatch, extra, key, needle):
    monkeypatch.chdir(tmp_path)
    spec = write_spec(tmp_path, 'question = "q"\ngame = "dice"\n' + STEP + extra + "\n")
    code, out, err = call(capsys, "run", str(spec))
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and f"{spec}: {key}" in err and needle in err, err


def test_lama_has_no_options_to_grid(capsys, tmp_path):
    spec = write_spec(tmp_path, 'question = "q"\ngame = "lama"\n[[steps]]\nkind = "compare"\n'
                                'strategies = ["smart", "greedy"]\noption_grid = { dice_layout = ["12-34-56"] }\n')
    code, _, err = call(capsys, "run", str(spec), "--out", str(tmp_path / "r"))
    assert code == 2 and f"{spec}: steps[0].option_grid.dice_layout[0]" in err and "no rule-set options" in err, err


@pytest.mark.parametrize("strategies,players", [
    ('["threshold", "threshold:quit_at=1"]', 4),           # the 4-player preset is quit_at=1
    ('["keep_llama:quit_at=1,keep=1", "keep_llama:quit_at=1,keep=1,min_others=1,alone_only=0"]', 6),  # defaults
])
def test_a_compare_of_a_strategy_with_itself_is_refused(capsys, tmp_path, strategies, players):
    spec = write_spec(tmp_path, f'question = "q"\ngame = "dice"\n[[steps]]\nkind = "compare"\n'
                                f'strategies = {strategies}\nplayers = {players}\nrounds = 100\n')
    code, _, err = call(capsys, "run", str(spec), "--out", str(tmp_path / "r"))
    assert code == 2 and f"{spec}: steps[0].strategies" in err and "same parameters" in err, err
    assert f"at {players} players" in err
