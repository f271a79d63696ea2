"""Per-player-count presets: a spec without values plays the preset of the
table's player count, explicit values win, labels stay as written and the records show the values."""
from __future__ import annotations

import json

import numpy as np
import pytest

from llama_sim.core import registry
from llama_sim.cli import main
from llama_sim.core.ruleset import get_game
from llama_sim.core.declarations import Declaration, Param
from llama_sim.run.designs import comparison_design, rotation_plan, seat_plan


def _strategy(presets):
    return Declaration("lama", "probe", "", (Param("a", 5, 0, 100), Param("b", 1, 0, 100)), presets=presets)


def test_the_nearest_declared_count_applies_and_ties_go_to_the_larger():
    s = _strategy({2: {"a": 20}, 4: {"a": 40}, 6: {"a": 60}})
    assert [s.preset_for(n)["a"] for n in range(1, 8)] == [20, 20, 40, 40, 60, 60, 60]
    assert _strategy({}).preset_for(4) == {}


def test_a_spec_without_values_plays_the_preset_of_the_table():
    declared = registry.get("lama", "threshold").presets
    for n in (2, 4, 6):
        player = registry.at_table(registry.parse_spec("lama", "threshold"), n)
        assert player.values() == declared[n] and player.label == "threshold"
    # parse_spec alone still gives the declared defaults
    assert registry.parse_spec("lama", "threshold").values() == {"quit_at": 8.0}


def test_explicit_values_win_and_unset_ones_still_take_the_preset():
    player = registry.at_table(registry.parse_spec("lama", "smart:quit_at=5"), 2)
    assert player.values() == {"quit_at": 5.0, "ten_quit_at": registry.get("lama", "smart").presets[2]["ten_quit_at"]}
    assert player.label == "smart:quit_at=5"
    # a Player built directly (tune's candidates) keeps exactly its values
    direct = registry.Player(player.strategy, np.array([7.0, 3.0] + [0.0] * 6), "x")
    assert registry.at_table(direct, 4).values() == {"quit_at": 7.0, "ten_quit_at": 3.0}


def test_every_line_up_builder_resolves_the_presets_of_its_player_count():
    spec = get_game("dice")
    want = registry.get("dice", "threshold").presets
    players = [registry.parse_spec("dice", "threshold"), registry.parse_spec("dice", "threshold:quit_at=7")]
    design = comparison_design(spec, 4, players, True, spec.config())
    assert [e.values()["quit_at"] for e in design.entries] == [want[4]["quit_at"], 7.0]
    assert design.unit_labels == ["threshold", "threshold:quit_at=7"]
    plan = rotation_plan(spec, 6, players, True, spec.config())
    assert [e.values()["quit_at"] for e in plan.entries] == [want[6]["quit_at"], 7.0]
    plan = seat_plan(spec, players, True, spec.config())
    assert [e.values()["quit_at"] for e in plan.entries] == [want[2]["quit_at"], 7.0]


def test_compare_records_the_values_played_and_strategies_lists_the_presets(capsys):
    main(["compare", "-g", "lama", "-p", "4", "threshold", "greedy", "--games", "24", "--seed", "1",
          "--threads", "1", "--format", "json", "--view", "all", "--quiet"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["run"]["tables"][0]["params"] == {"threshold": registry.get("lama", "threshold").presets[4]}
    main(["compare", "-g", "lama", "-p", "6", "threshold", "greedy", "--games", "20", "--seed", "1",
          "--threads", "1", "--view", "paired", "--quiet"])
    assert "parameters: threshold quit_at=4" in capsys.readouterr().out
    main(["strategies", "-g", "dice", "--format", "json"])
    rows = {r["strategy"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["threshold"]["presets"] == "2p: quit_at=10; 4p: quit_at=1; 6p: quit_at=1"
    assert rows["greedy" if "greedy" in rows else "random"]["presets"] == "-"


@pytest.mark.parametrize("presets", [{3: {"zz": 1}}, {3: {"a": 500}}, {0: {"a": 1}}])
def test_a_bad_preset_is_refused_at_registration(presets):
    with pytest.raises(ValueError):
        registry.strategy("lama", "bad_presets_probe", "", params={"a": (1, 0, 100)}, presets=presets)(lambda *a: 0)


def test_values_at_says_which_values_come_from_which_preset():
    s = _strategy({2: {"a": 20}, 4: {"a": 40}})
    assert s.values_at(3) == {"a": (40.0, 4), "b": (1.0, None)}
    assert s.preset_count(2) == 2 and _strategy({}).preset_count(2) is None
    assert _strategy({}).values_at(5) == {"a": (5.0, None), "b": (1.0, None)}


def test_strategies_at_a_player_count_shows_the_values_played_their_source_and_the_notes(capsys):
    main(["strategies", "-g", "lama", "--players", "2"])
    text = capsys.readouterr().out
    smart = [line.strip() for line in text[text.index("  smart "):].splitlines()]
    plays = next(i for i, line in enumerate(smart) if line.startswith("plays:"))
    assert smart[plays] == "plays: quit_at=97, ten_quit_at=9 (2p preset)"
    assert smart[plays + 1].startswith("note: quit_at=97 is above any hand's points")
    main(["strategies", "-g", "lama", "--players", "3", "--format", "json"])
    rows = {r["strategy"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["threshold"]["plays"] == "quit_at=2" and rows["threshold"]["preset"] == "4p"
    assert rows["greedy"]["plays"] == "-" and rows["greedy"]["preset"] == "-"
    assert rows["smart"]["notes"].startswith("2p: quit_at=97")
    main(["strategies", "-g", "lama"])  # without a count: every preset, with its note
    assert "note on the 2p preset: quit_at=97" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["strategies", "-g", "dice", "--players", "7"])
    assert stop.value.code == 2 and "dice is played by 2 to 6" in capsys.readouterr().err


def test_preset_notes_must_name_a_declared_preset():
    with pytest.raises(ValueError):
        registry.strategy("lama", "bad_notes_probe", "", params={"a": (1, 0, 100)}, presets={2: {"a": 3}},
                          preset_notes={4: "no 4-player preset"})(lambda *a: 0)


def test_every_header_naming_a_strategy_states_the_values_it_played():
    import llama_sim
    from llama_sim.analysis.chart import readable

    smart2 = "smart quit_at=97,ten_quit_at=9"  # the 2-player preset
    smart4 = "smart quit_at=4,ten_quit_at=0"
    header = llama_sim.seat_table("lama", ["smart"], rounds=400, seed=1, threads=1, quiet=True).header
    assert f"parameters at 2 players: {smart2}" in header and f"parameters at 3-6 players: {smart4}" in header
    header = llama_sim.sweep("lama", "smart", "quit_at=2:6:4", players=2, rounds=400, seed=1, threads=1,
                             quiet=True).header
    assert "parameters: smart ten_quit_at=9 with quit_at swept; " + smart2 in header
    header = llama_sim.league("dice", ["threshold", "random"], players=[2, 4], rounds=400, seed=1, threads=1,
                              quiet=True).header
    assert "parameters at 2 players: threshold quit_at=10" in header
    assert "parameters at 4 players: threshold quit_at=1" in header
    r = llama_sim.advise("lama", hand="2 2 6 L", top="4", hand_sizes="3,4", pile=20, rollouts=20, seed=1,
                         policy="smart", opponents=["greedy", "threshold:quit_at=3"])
    assert r.played() == f"seats {smart4} / greedy / threshold:quit_at=3 quit_at=3"
    c = llama_sim.chart("lama", players=3, games=20, seed=1, threads=1)
    assert readable(c, "pile").startswith(f"lama, 3 players, policy {smart4}, 20 games")
    t = llama_sim.tune("lama", "threshold", 2, vs="smart", budget=20_000, metric="penalty_per_round", seed=1,
                       threads=1)
    assert t.vs_values == smart2
