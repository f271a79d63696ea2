"""Experiment specs and reports: `llamasim run SPEC` and `llamasim report --game G`."""
import base64
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

import llama_sim
from llama_sim.core.words import est
from llama_sim.present.experiment import STEP_KINDS, SpecError, load_spec
from cli_helpers import call

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "experiments" / "lama-quit-threshold.toml"
PNG = b"\x89PNG\r\n\x1a\n"


def check_report(folder: Path) -> None:
    """Every plot is a valid PNG/SVG and referenced by report.md and embedded in report.html."""
    md = (folder / "report.md").read_text()
    page = (folder / "report.html").read_text()
    pngs = sorted((folder / "plots").glob("*.png"))
    assert pngs
    for png in pngs:
        rel = f"plots/{png.name}"
        assert png.read_bytes().startswith(PNG)
        svg = png.with_suffix(".svg")
        assert ET.parse(svg).getroot().tag.endswith("svg")
        assert f"]({rel})" in md and f"({rel[:-4]}.svg)" in md
        assert f'data-file="{rel}"' in page
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(embedded) == len(pngs)
    assert all(base64.b64decode(x).startswith(PNG) for x in embedded)
    assert "<img" in page and 'src="plots/' not in page  # self-contained
    for link in re.findall(r"\]\((tables/[^)]+)\)", md):
        assert (folder / link).is_file()
    run = json.loads((folder / "run.json").read_text())
    assert {"command", "seed", "llama_sim_version", "git_commit", "rules", "steps", "scale"} <= set(run)
    assert all("seconds" in s for s in run["steps"])


def assert_same_tables_again(folder: Path, spec, scale: float) -> list[str]:
    """The spec run a second time (by the API, without writing a report: its plots would only repeat)
    gives the tables of ``folder`` byte for byte as the report writes them (CSV) and frame for frame
    (Parquet). Returns the CSV names."""
    again = llama_sim.run_experiment(spec, scale=scale, quiet=True, write=False)
    tables = {f"{o.step.name}_{name}": df for o in again.steps for name, df in o.tables.items()}
    csvs = sorted(p.name for p in (folder / "tables").glob("*.csv"))
    assert csvs == sorted(f"{name}.csv" for name in tables)
    for name, df in tables.items():
        assert (folder / "tables" / f"{name}.csv").read_text() == df.to_csv(index=False)
        pd.testing.assert_frame_equal(pd.read_parquet(folder / "tables" / f"{name}.parquet"), df)
    return csvs


def test_small_spec_twice_gives_identical_tables(capsys, tmp_path):
    out = tmp_path / "a"
    code, stdout, err = call(capsys, "run", str(SMALL), "--scale", "0.01", "--out", str(out), "-q")
    assert code == 0, err
    assert f"wrote {out}/" in stdout
    check_report(out)
    csvs = assert_same_tables_again(out, SMALL, 0.01)
    assert len(csvs) == 5 * 2 + 3 + 2  # 5 sweeps (results, summary), a compare, a chart (cells, summary)
    md = (out / "report.md").read_text()
    spec = load_spec(SMALL)
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads[:4] == [f"# {spec.question}", "## Answer", "## Terms", "## Why the measures differ"]
    assert heads[4].startswith("## 1. ") and heads[-1] == "## About this run"
    assert "- **quit_at**: " + spec.terms["quit_at"] in md  # the spec's own terms, then the generic ones
    assert "- **penalty per round**: " in md and "- **threshold**: " in md  # ... and the strategies played
    assert spec.reading.split("\n\n")[0] in md
    run = json.loads((out / "run.json").read_text())
    for step in run["steps"]:  # each answer once, in the Answer: no step section repeats it
        assert md.count(step["conclusion"]) == 1 and "[" in step["conclusion"]
    page = (out / "report.html").read_text()
    assert "<td>0</td>" in page and "<td>0.0</td>" not in page  # quit_at 0, an integer
    assert run["scale"] == 0.01 and run["steps"][0]["arguments"]["rounds"] == 2000
    assert run["command"] == f"llamasim run {SMALL} --out {out} --scale 0.01"


def test_existing_report_folder_needs_force(capsys, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    code, stdout, err = call(capsys, "run", str(SMALL), "--scale", "0.01", "--out", str(out))
    assert code == 2 and "exists; pass --force" in err and stdout == ""
    assert (out / "mine.txt").read_text() == "keep"


def write_spec(tmp_path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


BASE = '''question = "q"
game = "lama"
seed = 1
'''
STEP = '''[[steps]]
kind = "compare"
strategies = ["smart", "greedy"]
rounds = 2000
'''


LEAGUE = '''[[steps]]
kind = "league"
strategies = "all"
players = [2, 3]
games = 600
'''


@pytest.mark.parametrize("text,key,needle", [
    (BASE + "colour = 1\n" + STEP, "colour", "unknown key"),
    (BASE + "terms = 3\n" + STEP, "terms", "must be a table of term"),
    (BASE + 'terms = { quit_at = "" }\n' + STEP, "terms.quit_at", "must not be empty"),
    (BASE + "terms = { quit_at = 1 }\n" + STEP, "terms.quit_at", "must be a string"),
    (BASE + "reading = 5\n" + STEP, "reading", "must be a string"),
    (BASE + STEP + "speed = 3\n", "steps[0].speed", "compare has no such parameter"),
    ('question = "q"\ngame = "lama"\nseed = "one"\n' + STEP, "seed", "must be a whole number, not 'one'"),
    (BASE + STEP.replace('"greedy"', '"nosuch"'), "steps[0].strategies[1]", "unknown lama strategy 'nosuch'"),
    (BASE + STEP.replace('"greedy"', '"threshold:quit_at=999"'), "steps[0].strategies[1]", "outside"),
    (BASE + STEP.replace("2000", "-5"), "steps[0].rounds", "at least 1"),
    (BASE + STEP.replace("2000", '"many"'), "steps[0].rounds", "must be a whole number, not 'many'"),
    (BASE + STEP + "games = 10\n", "steps[0].games", "not both"),
    (BASE + STEP + "players = 9\n", "steps[0].players", "2 to 6 players"),
    (BASE + STEP + "players = [3, 1]\n", "steps[0].players", "2 to 6 players, not 1"),
    (BASE + STEP.replace('"compare"', '"fly"'), "steps[0].kind", "unknown step kind"),
    (BASE + STEP.replace("\"compare\"", "\"advise\""), "steps[0].strategies", "advise has no such parameter"),
    (BASE + STEP + 'metrics = ["win_rate"]\n', "steps[0].metrics", "need --games"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\ngrid = { quit_at = "0:1" }\n',
     "steps[0].grid", "quit_at: must look like lo:hi:step"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\ngrid = { quit_at = "5:1:1" }\n',
     "steps[0].grid", "quit_at: need step > 0 and lo <= hi"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\ngrid = { nope = "0:1:1" }\n',
     "steps[0].grid.nope", "no parameter 'nope'"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\ngrid = { quit_at = [1, 999] }\n',
     "steps[0].grid.quit_at", "outside"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\ngrid = { quit_at = 3 }\n',
     "steps[0].grid", "quit_at: must be"),
    (BASE + '[[steps]]\nkind = "sweep"\nstrategy = "threshold"\n', "steps[0].grid", "is required"),
    (BASE + '[[steps]]\nkind = "solve"\nrow = "2 5 L"\n', "steps[0].kind", "dice only"),
    ('question = "q"\ngame = "dice"\n[[steps]]\nkind = "solve"\nrow = "2 9"\n', "steps[0].row", ""),
    ('question = "q"\ngame = "dice"\n[[steps]]\nkind = "solve"\nrow = "2"\nscore = 40\n', "steps[0].score",
     "at most 39"),
    ('question = "q"\ngame = "chess"\n' + STEP, "game", "unknown game"),
    ('game = "lama"\n' + STEP, "question", "is required"),
    (BASE, "steps", "is required"),
    (BASE + 'options = { dice_layout = "12-34-56" }\n' + STEP, "options", "no rule-set options"),
    (BASE + "steps = 3\n", "steps", "non-empty array"),
    (BASE + "[[steps\n", "not valid TOML", ""),
    (BASE + LEAGUE + "colour = 1\n", "steps[0].colour", "league has no such parameter"),
    (BASE + LEAGUE + "precision = 0.01\n", "steps[0].precision", "league has no such parameter"),
    (BASE + LEAGUE.replace('"all"', '["smart", "smart"]'), "steps[0].strategies", "lists 'smart' twice"),
    (BASE + LEAGUE.replace('"all"', '["smart"]'), "steps[0].strategies", "at least two"),
    (BASE + LEAGUE.replace('"all"', '"smart"'), "steps[0].strategies", "at least two"),
    (BASE + LEAGUE.replace('"all"', '["smart", "nosuch"]'), "steps[0].strategies[1]", "unknown lama strategy"),
    (BASE + LEAGUE.replace('"all"', "3"), "steps[0].strategies", "must be a list of strings, not 3"),
    (BASE + LEAGUE.replace("[2, 3]", "[2, 8]"), "steps[0].players", "2 to 6 players, not 8"),
    (BASE + LEAGUE.replace("[2, 3]", '"two"'), "steps[0].players", "must be a whole number, not 'two'"),
    (BASE + LEAGUE.replace("games = 600", "games = 2.5"), "steps[0].games", "must be a whole number, not 2.5"),
    (BASE + LEAGUE + "rounds = 10\n", "steps[0].games", "not both"),
    (BASE + "precision = 0.01\n" + LEAGUE.replace("games = 600\n", ""), "precision", "rounds or games"),
    (BASE + LEAGUE.replace("games = 600", "rounds = 600") + 'metrics = ["win_rate"]\n', "steps[0].metrics",
     "need --games"),
])
def test_malformed_spec_exits_2_naming_the_key(capsys, tmp_path, monkeypatch, text, key, needle):
    monkeypatch.chdir(tmp_path)
    spec = write_spec(tmp_path, text)
    code, out, err = call(capsys, "run", str(spec))
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and f"{spec}: {key}" in err and needle in err, err
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())


def test_missing_spec_file_exits_2(capsys, tmp_path):
    code, _, err = call(capsys, "run", str(tmp_path / "none.toml"))
    assert code == 2 and "spec file not found" in err


@pytest.mark.parametrize("scale", ["0", "-1", "nan"])
def test_bad_scale_exits_2(capsys, scale):
    code, _, err = call(capsys, "run", str(SMALL), "--scale", scale)
    assert code == 2 and "scale: must be" in err


def test_every_shipped_spec_and_bundled_report_validates():
    from llama_sim.core.ruleset import all_games

    bundled = [rule_set.report_spec for rule_set in all_games().values() if rule_set.report_spec is not None]
    assert {path.name for path in bundled} == {"report.toml"} and len(bundled) >= 4
    specs = sorted((ROOT / "experiments").glob("*.toml")) + bundled
    for path in specs:
        spec = load_spec(path)
        assert spec.steps and all(s.kind in STEP_KINDS for s in spec.steps)


def test_step_kinds_are_a_table():
    assert set(STEP_KINDS) == {"compare", "league", "seat_table", "sweep", "solve", "simulate", "advise", "chart",
                               "card", "tune", "variants", "grade", "luck_gain"}


def test_grade_step_and_a_step_of_another_rule_set(tmp_path):
    """A grade step gives the API's table; a step naming its own game plays that rule set."""
    import llama_sim

    spec = write_spec(tmp_path, BASE + '''
[[steps]]
kind = "grade"
name = "g"
strategies = ["greedy"]
players = 3
decisions = 60
rollouts = 10
[[steps]]
kind = "compare"
name = "p"
game = "party"
strategies = ["chain", "greedy"]
rounds = 600
''')
    res = llama_sim.run_experiment(spec, out=tmp_path / "out", quiet=True)
    graded = res.steps[0].tables["table"]
    api = llama_sim.grade("lama", ["greedy"], players=3, decisions=60, rollouts=10, seed=1)
    pd.testing.assert_frame_equal(graded, api.table)
    assert set(res.steps[1].tables["results"].game) == {"party"}
    assert (tmp_path / "out" / "plots" / "g.png").is_file()
    with pytest.raises(SpecError, match="game"):
        load_spec(write_spec(tmp_path, BASE + '''
[[steps]]
kind = "compare"
game = "chess"
strategies = ["chain", "greedy"]
'''))


def test_advise_chart_and_tune_steps_run_and_match_their_api(tmp_path):
    """A spec's advise, chart and tune steps give exactly the API's tables (same arguments), state a
    conclusion with its interval, and their plots are written and referenced."""
    import llama_sim

    spec = write_spec(tmp_path, BASE + '''
[[steps]]
kind = "advise"
name = "stuck"
hand = "3 4 4"
top = "3"
hand_sizes = [5]
quit = [1]
pile = 10
[[steps]]
kind = "chart"
players = 3
games = 300
[[steps]]
kind = "tune"
strategy = "threshold"
vs = ["greedy"]
metric = "penalty_per_round"
budget = 20000
''')
    out = tmp_path / "report"
    result = llama_sim.run_experiment(spec, out=out, quiet=True)
    advice, chart, tuned = (o.results[0] for o in result.steps)
    api_advice = llama_sim.advise("lama", hand="3 4 4", top="3", hand_sizes=[5], quit=[1], pile=10, seed=1)
    pd.testing.assert_frame_equal(advice.table, api_advice.table)
    assert advice.value("quit") == 7 and advice.value("play 3") == 0  # exact: alone, no draw allowed
    pd.testing.assert_frame_equal(chart.cells, llama_sim.chart("lama", 3, games=300, seed=1).cells)
    api_tuned = llama_sim.tune("lama", "threshold", 4, vs="greedy", metric="penalty_per_round", budget=20000, seed=1)
    pd.testing.assert_frame_equal(tuned.final, api_tuned.final)
    conclusions = result.conclusions
    assert conclusions[0] == api_advice.sentence
    interval = re.compile(r"-?\d+\.\d+ \[[-+]?\d+\.\d+, [-+]?\d+\.\d+\]")  # an estimate and its 95% interval
    assert interval.search(conclusions[1]) and interval.search(conclusions[2])
    check_report(out)
    assert (out / "tables" / "stuck_table.csv").exists() and (out / "tables" / "3-tune_race.csv").exists()


@pytest.mark.parametrize("step, key", [
    ('kind = "advise"\nhand = "3 4 4 4 4 4 4 4 4 4"\ntop = "3"\nhand_sizes = [5]\npile = 10', "steps[0].position"),
    ('kind = "advise"\nhand = "3 4"\ntop = "3"\nhand_sizes = [5]\npile = 10\nhorizon = "week"', "steps[0].horizon"),
    ('kind = "chart"\nmeasure = "vibes"', "steps[0].measure"),
    ('kind = "chart"\ngames = "many"', "steps[0].games"),
    ('kind = "tune"', "steps[0].strategy"),
    ('kind = "tune"\nstrategy = "nosuch"', "steps[0].strategy"),
])
def test_bad_advise_chart_tune_steps_name_the_key(capsys, tmp_path, step, key):
    spec = write_spec(tmp_path, BASE + "[[steps]]\n" + step + "\n")
    code, _, err = call(capsys, "run", str(spec), "--out", str(tmp_path / "r"), "-q")
    assert code == 2 and key in err and err.count("\n") == 1, err


def test_run_experiment_api_matches_the_compare_api(tmp_path):
    """A spec's compare step gives exactly llama_sim.compare's tables (same arguments)."""
    spec = {"question": "q", "game": "lama", "seed": 4,
            "steps": [{"kind": "compare", "strategies": ["smart", "greedy"], "players": [2, 3], "rounds": 2000},
                      {"kind": "simulate", "seats": ["smart", "greedy"], "rounds": 1000}]}
    r = llama_sim.run_experiment(spec, out=tmp_path / "x", quiet=True)
    step = r.steps[0]
    for n, res in zip((2, 3), step.results):
        direct = llama_sim.compare("lama", ["smart", "greedy"], players=n, rounds=2000, seed=4, quiet=True)
        pd.testing.assert_frame_equal(res.paired, direct.paired)
    assert list(step.tables["ranking"].players.unique()) == [2, 3]
    plots = sorted(p.name for p in (tmp_path / "x" / "plots").glob("*.png"))
    assert plots == ["1-compare.png", "1-compare_2p.png", "1-compare_3p.png", "2-simulate.png"]
    assert step.conclusion.startswith("At 2 players") and "At 3 players" in step.conclusion
    check_report(tmp_path / "x")


def test_solve_spec_and_conclusion(tmp_path):
    spec = {"question": "Roll or quit alone?", "game": "dice",
            "steps": [{"kind": "solve", "row": "2 5 L"}, {"kind": "solve", "name": "policy", "row": "2 5 L",
                                                           "table": True}]}
    spec["steps"].append({"kind": "solve", "name": "llamas", "row": "L L", "score": 10})
    r = llama_sim.run_experiment(spec, out=tmp_path / "d", quiet=True)
    assert "optimum is to roll" in r.steps[0].conclusion and "8.078" in r.steps[0].conclusion
    assert "score 0" in r.steps[0].conclusion
    policy = r.steps[1].tables["policy"]
    rolls = (policy.best == "roll").sum()
    assert f"rolls in {rolls} of {len(policy)} rows" in r.steps[1].conclusion
    assert "score 10" in r.steps[2].conclusion and "8.075" in r.steps[2].conclusion  # tokens returned count
    check_report(tmp_path / "d")


def test_builtin_report(capsys, tmp_path):
    out = tmp_path / "lama"
    code, stdout, err = call(capsys, "report", "--game", "lama", "--scale", "0.01", "--out", str(out), "-q",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(stdout)
    assert doc["command"].startswith("llamasim report --game lama") and [s["name"] for s in doc["steps"]] == \
        ["league", "first-player", "good-play"]
    from llama_sim.core.registry import builtin_strategies

    ranking = pd.read_csv(out / "tables" / "league_ranking.csv")
    assert set(ranking.strategy) == set(builtin_strategies("lama")) >= {"always_quit", "greedy", "smart", "chart"}
    assert sorted(ranking.players.unique()) == [2, 3, 4, 5, 6]  # every built-in at every count: a league
    seats = pd.read_csv(out / "tables" / "first-player_seats.csv")
    assert sorted(seats.players.unique()) == [2, 3, 4, 5, 6]
    graded = pd.read_csv(out / "tables" / "good-play_table.csv")
    assert set(graded.strategy) == set(builtin_strategies("lama")) | {"expert"}
    check_report(out)


def test_all_means_the_built_in_strategies_and_strategies_file_is_relative_to_the_spec(tmp_path):
    # Every rule set has seven built-ins or more now, one more than a compare seats: "all" names exactly
    # the seven L.A.M.A. built-ins (not mine_spec_test, which would make eight)
    (tmp_path / "mine.py").write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('lama', 'mine_spec_test', 'quits at once')\n"
        "def mine_spec_test(obs, hand, legal, params, rng):\n"
        "    return 0\n")
    spec = write_spec(tmp_path, BASE + 'strategies_file = "mine.py"\n[[steps]]\nkind = "compare"\n'
                                       'strategies = "all"\nplayers = 6\n')
    with pytest.raises(SpecError, match="steps.0..players: 7 strategies do not fit 6 seats"):
        load_spec(spec)
    spec = write_spec(tmp_path, BASE + 'strategies_file = "mine.py"\n[[steps]]\nkind = "compare"\n'
                                       'strategies = ["mine_spec_test", "greedy"]\n')
    steps = load_spec(spec).steps
    assert steps[0].args["strategies"] == ["mine_spec_test", "greedy"]


def test_a_league_spec_twice_gives_identical_tables_and_a_strongest_section(capsys, tmp_path):
    """A league step and the first-player seat table, as the shipped league specs have them, at --scale 0.01."""
    spec = write_spec(tmp_path, BASE + '''[[steps]]
name = "league"
kind = "league"
strategies = ["smart", "greedy", "threshold"]
players = [2, 3, 4]
games = 60000

[[steps]]
name = "first-player"
kind = "seat_table"
strategies = ["smart"]
players = [2, 3]
games = 30000
''')
    out = tmp_path / "a"
    code, stdout, err = call(capsys, "run", str(spec), "--scale", "0.01", "--out", str(out), "-q")
    assert code == 0, err
    check_report(out)
    csvs = assert_same_tables_again(out, spec, 0.01)
    assert {f"league_{t}.csv" for t in ("results", "paired", "ranking", "strongest", "lineups")} <= set(csvs)
    run = json.loads((out / "run.json").read_text())
    assert run["steps"][0]["arguments"]["games"] == 600
    md = (out / "report.md").read_text()
    section = md.split("### Strongest strategy", 1)[1].split("##", 1)[0]
    strongest = pd.read_csv(out / "tables" / "league_strongest.csv")
    assert list(strongest.players) == [2, 3, 4]
    answer = md.split("## Answer", 1)[1].split("##", 1)[0]
    for r in strongest.itertuples():  # the table of the leaders; the answer has the words, once
        edge = est(r.edge, r.edge_ci_low, r.edge_ci_high, sign=True)
        assert f"| {r.players} | {r.best} | " in section and f" | {r.runner_up} | {edge} | " in section
        assert f"At {r.players} players {r.best} " in r.sentence and r.sentence not in md
        points = est(100 * r.edge, 100 * r.edge_ci_low, 100 * r.edge_ci_high, sign=r.verdict != "better")
        assert (f"{r.best}, " in answer and f"for {r.runner_up}: {points} percentage points ahead" in answer) or \
            (f"{r.best} and {r.runner_up} cannot be told apart (" in answer and f"; {points} percentage points)" in answer)
    assert "Strongest strategy</h3>" in (out / "report.html").read_text()
    assert (out / "plots" / "league.png").is_file()


# ----------------------------------------------------------------------------- rule variants (what a rule is worth)

VARIANTS_SPEC = '''question = "q"
game = "party"
seed = 3
games = 150

[[steps]]
name = "rules"
kind = "variants"
strategies = ["chain", "greedy"]
players = [2, 4]
variants = { "pink plain" = { pink_llama = "plain" }, "plus plain" = { plus_cards = "plain" } }
'''


@pytest.mark.parametrize("text,key,needle", [
    (VARIANTS_SPEC.replace('pink_llama = "plain"', 'pink_llama = "grey"'), "steps[0].variants.pink plain",
     "--pink-llama must be one of rulebook, plain"),
    (VARIANTS_SPEC.replace('plus_cards = "plain"', 'magic_show = "off"'), "steps[0].variants.plus plain",
     "party takes only"),
    (VARIANTS_SPEC.replace('"pink plain" = {', '"rulebook" = {'), "steps[0].variants", "'rulebook' names the baseline"),
    (VARIANTS_SPEC.replace('{ plus_cards = "plain" }', '3'), "steps[0].variants", "plus plain must be a table"),
    (VARIANTS_SPEC.replace('variants = {', 'variantz = {'), "steps[0].variantz", "did you mean variants?"),
    (VARIANTS_SPEC.replace('game = "party"', 'game = "party"\noptions = { plus_cards = "none" }'), "options",
     "--plus-cards must be one of"),
    ('question = "q"\ngame = "party"\noptions = { pink_llama = "plain" }\n[[steps]]\nkind = "chart"\n',
     "options", "a chart step plays the rule set's own rules and takes no rule-set options"),
])
def test_malformed_variants_step_exits_2_naming_the_key(capsys, tmp_path, text, key, needle):
    spec = write_spec(tmp_path, text)
    code, out, err = call(capsys, "run", str(spec))
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and f"{spec}: {key}" in err and needle in err, err


def test_variants_step_runs_every_variant_on_the_same_seed_and_matches_compare(tmp_path):
    res = llama_sim.run_experiment(write_spec(tmp_path, VARIANTS_SPEC), out=tmp_path / "r", quiet=True)
    check_report(tmp_path / "r")
    step = res.steps[0]
    effects = step.tables["effects"]
    assert set(effects.variant) == {"pink plain", "plus plain"} and set(effects.players) == {2, 4}
    assert set(effects.metric) == {"penalty_per_round", "went_out_rate", "rounds_per_game", "win_rate"}
    assert (effects.effect_ci_low <= effects.effect).all() and (effects.effect <= effects.effect_ci_high).all()
    assert "With pink plain, the strategy that leads under the rulebook takes " in step.conclusion
    assert "With plus plain, " in step.conclusion and " points per round at 2 players (" in step.conclusion
    # each variant's numbers are those of a plain compare with that rule option, same seed
    direct = llama_sim.compare("party", ["chain", "greedy"], players=4, games=150, seed=3, quiet=True,
                               pink_llama="plain").results
    got = step.tables["results"]
    got = got[(got.variant == "pink plain") & (got.players == 4)].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, direct.reset_index(drop=True))
    row = effects[(effects.variant == "pink plain") & (effects.players == 4) & (effects.strategy == "chain")
                  & (effects.metric == "penalty_per_round")].iloc[0]
    base = step.tables["results"]
    got_base = base[(base.variant == "rulebook") & (base.players == 4) & (base.strategy == "chain")
                    & (base.metric == "penalty_per_round") & base.seat.isna()].iloc[0]
    assert row.effect == pytest.approx(row.value - got_base.value)


@pytest.mark.parametrize("args,needle", [
    (["compare", "--game", "party", "chain", "greedy", "--rounds", "100", "--pink-llama", "pink"],
     "--pink-llama must be one of rulebook, plain"),
    (["compare", "--game", "kadabra", "showman", "greedy", "--rounds", "100", "--magic-show", "no"],
     "--magic-show must be on or off"),
    (["simulate", "--game", "lama", "-s", "greedy", "-s", "greedy", "--rounds", "100", "--plus-cards", "plain"],
     "lama takes no rule-set options"),
    (["sweep", "--game", "kadabra", "--strategy", "threshold", "--param", "quit_at=0:2:1", "--rounds", "100",
      "--pink-llama", "plain"], "kadabra takes only"),
])
def test_bad_rule_variant_options_exit_2_with_one_line(capsys, args, needle):
    code, out, err = call(capsys, *args, "-q")
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err
