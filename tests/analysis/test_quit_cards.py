"""Quit rule cards (``llamasim card``): the rule's text is generated from its parameters and reads
back to them; the ``card`` strategy quits exactly where the text says; the shipped cards state the
rule their strategy spec plays."""
import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from llama_sim import api
from llama_sim.analysis import card as C
from llama_sim.core.chart_data import chart_quits
from llama_sim.core.registry import builtin_strategies, parse_spec
from cli_helpers import call

CARDS = Path(__file__).resolve().parents[2] / "reports" / "cards"
RULES = [C.QuitRule(q, t, k, m) for q, t, k, m in itertools.product((-1, 0, 1, 4, 12), (-1, 0, 4, 9), (0, 1, 3),
                                                                       (-1, 2, 4, 10))
         if k or m == 2]


@pytest.mark.parametrize("game", ["lama", "dice"])
def test_text_reads_back_to_the_same_quits(game):
    for rule in RULES:
        back = C.QuitRule.from_lines(rule.lines(game))
        for t, points, nearest in itertools.product(range(4), range(-1, 20), range(0, 6)):
            assert back.quits(t, points, nearest) == rule.quits(t, points, nearest), (rule, back)


def test_the_compiled_rule_quits_where_the_text_says():
    table, bins = np.zeros((4, 42, 1), np.int8), np.zeros(60, np.int64)
    for rule in RULES[::3]:
        params = np.array(list(rule.values().values()) + [0.0] * 4)
        stated = C.QuitRule.from_lines(rule.lines("lama"))
        for t, points, nearest in itertools.product(range(4), range(0, 20), range(1, 6)):
            assert chart_quits(table, bins, params, t, points, nearest) == stated.quits(t, points, nearest)


def test_wording_of_exceptions():
    lines = C.QuitRule(2, -1, 1, 8).lines("lama")
    assert lines == ["No card fits: quit with 2 points or less, else draw.",
                     "An opponent still in has 1 card or fewer in their hand: quit with 8 points or less, else draw.",
                     "Going out would return a 10 (you hold one): draw (never quit), whatever the others hold."]
    assert C.QuitRule(3, 3).lines("dice") == ["Roll or quit: quit with 3 points or less, else roll."]


def test_all_leaves_the_rule_family_out():
    assert "card" not in builtin_strategies("lama") and "card" in builtin_strategies("lama", searches=True)


def test_card_command_writes_text_page_and_html(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(C, "_candidates", lambda level, base: [C.QuitRule(2, 2)] if level == 1 else
                        [C.QuitRule(2, -1)] if level == 2 else [C.QuitRule(2, -1, 1, 6)])
    png, page = tmp_path / "card.png", tmp_path / "card.html"
    code, out, err = call(capsys, "card", "--game", "lama", "--players", "3", "--games", "100", "--threads", "1",
                          "--plot", str(png), "--html", str(page), "-q")
    assert code == 0, err
    assert out.startswith("L.A.M.A., 3 players: when to quit\n")
    spec = re.search(r"played as the strategy (card:\S+);", out).group(1)
    rule = C.QuitRule.from_lines([x.strip() for x in out.split("\n\n")[1].splitlines()])
    assert parse_spec("lama", spec).values() == rule.values()
    assert png.stat().st_size > 0 and "when to quit" in page.read_text()
    code, _, err = call(capsys, "card", "--game", "lama", "--players", "7")
    assert code == 2 and err.strip() == "llamasim: error: players: lama is played by 2 to 6 players, not 7"


def test_a_card_ships_for_every_rule_set_and_player_count():
    from llama_sim.core.ruleset import all_games

    expected = {f"{g.name}-{n}p" for g in all_games().values() if g.chart is not None
                for n in range(g.min_players, g.max_players + 1)}
    assert expected and expected <= {p.stem for p in CARDS.glob("*p.txt")}


@pytest.mark.parametrize("path", sorted(CARDS.glob("*p.txt")), ids=lambda p: p.stem)
def test_each_shipped_card_states_the_rule_its_strategy_plays(path):
    text = path.read_text()
    game = path.stem.split("-")[0]
    rule_lines = [x.strip() for x in text.split("\n\n")[1].splitlines()]
    spec = re.search(r"played as the strategy (card:\S+);", text.replace("\n", " ")).group(1)
    stated = C.QuitRule.from_lines(rule_lines)
    assert parse_spec(game, spec).values() == stated.values()
    assert stated.lines(game) == rule_lines  # the text is the one the parameters generate


def test_card_is_a_spec_step(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_candidates", lambda level, base: [C.QuitRule(2, 2)])
    spec = tmp_path / "card.toml"
    spec.write_text('name = "card-step"\nquestion = "When to quit?"\ngame = "lama"\n\n[[steps]]\nkind = "card"\n'
                    'title = "A rule to carry"\nplayers = 3\ngames = 300\n')
    api.run_experiment(spec, out=tmp_path / "report", quiet=True)
    md = (tmp_path / "report" / "report.md").read_text()
    assert "**A rule to carry**: At 3 players: No card fits: quit with 2 points or less, else draw." in md
