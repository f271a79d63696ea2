"""Per-player-count presets: a spec without values plays the preset of the
table's player count, explicit values win, labels stay as written and the records show the values."""
from __future__ import annotations

import json

import numpy as np
import pytest

from llama_sim.core import registry
from llama_sim.cli import main
from llama_sim.core.ruleset import get_game
from llama_sim.core.registry import Param, Strategy
from llama_sim.run.simulate import comparison_design, rotation_plan, seat_plan


def _strategy(presets):
    return Strategy("lama", "probe", "", (Param("a", 5, 0, 100), Param("b", 1, 0, 100)), None, presets=presets)


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
