"""Reports in plain words: win rates as games in every 100 with the other's rate, edges in percentage
points; a report of several rule sets names them all; a run that rounds its size says so."""
from llama_sim import api
from llama_sim.core.words import win_lead
from llama_sim.present.report import _about_lines
from llama_sim.present.steps.compare import rounded


def test_win_lead_gives_base_rates_and_percentage_points():
    assert win_lead("expert", "climber", 0.284, 0.226, 0.058, 0.031, 0.080) == (
        "expert wins 28 of every 100 games, against 23 for climber: 5.8 [3.1, 8.0] percentage points more (paired)")
    assert win_lead("a", "b", 0.30, 0.29, 0.01, -0.01, 0.03) == (
        "a wins 30 of every 100 games, against 29 for b; the data do not separate them (a - b = +1.0 [-1.0, +3.0] "
        "percentage points, paired)")


def test_report_names_its_rule_sets_and_says_it_rounded(tmp_path):
    spec = tmp_path / "two.toml"
    spec.write_text('question = "q"\ngame = "lama"\nseed = 1\n\n[[steps]]\nkind = "compare"\n'
                    'strategies = ["smart", "greedy"]\nrounds = 601\n\n[[steps]]\nkind = "compare"\nname = "p"\n'
                    'game = "party"\nstrategies = ["chain", "greedy"]\nrounds = 600\n')
    result = api.run_experiment(spec, quiet=True, write=False)
    (_, footer), *_ = _about_lines(result)
    assert footer.startswith("Report `two`. Rule sets: `lama`, `party`")
    first, second = (rounded(o.args, o.results) for o in result.steps)
    assert first == " (Whole deal blocks, every strategy in every seat, made 606 rounds of the 601 asked.)"
    assert second == ""  # 600 is whole deal blocks: nothing to say


def test_compare_header_says_it_rounded():
    res = api.compare("lama", ["smart", "greedy"], players=4, rounds=601, threads=1, quiet=True)
    assert res.header.endswith("601 rounds asked per table; whole deal blocks (every strategy in every seat) made 606")
    exact = api.compare("lama", ["smart", "greedy"], players=4, rounds=600, threads=1, quiet=True)
    assert "asked" not in exact.header
