"""Line-up kernels (``llama_sim.run.lineup``): the same tallies as the generic kernel, chosen when they pay."""
import importlib.util
import os
import subprocess
import sys
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from llama_sim.run import lineup
from llama_sim.core import registry
from llama_sim.run.backends import plan_data, plans_from_data, run
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game
from llama_sim.run.designs import comparison_design, seat_plan, with_kernel

# Per rule set, a line-up mixing a strategy with parameters, one that draws on the policy stream
# (random) and a third, so slots, parameter rows and the policy stream are all exercised.
LINE_UPS = {
    "lama": ["climber", "random", "threshold:quit_at=5"],
    "party": ["chain", "random", "threshold:quit_at=3"],
    "kadabra": ["showman", "random", "threshold:quit_at=4"],
    "dice": ["watcher", "random", "threshold:quit_at=7"],
}


@pytest.mark.parametrize("game_name", sorted(LINE_UPS))
def test_a_line_up_kernel_plays_exactly_as_the_generic_kernel(game_name):
    """Rounds and whole games, every seating of a balanced design: identical integer sums."""
    game = get_game(game_name)
    players = [registry.parse_spec(game_name, s) for s in LINE_UPS[game_name]]
    for games_mode, blocks in ((False, 300), (True, 20)):
        design = comparison_design(game, 4, players, games_mode, game.config())
        generic = run(with_kernel(design, "generic"), 11, 0, blocks, threads=1)
        own = run(with_kernel(design, "lineup"), 11, 0, blocks, threads=1)
        for a, b in zip(generic.strata, own.strata):
            assert np.array_equal(a.s1, b.s1) and np.array_equal(a.s2, b.s2)
        assert generic.strata[0].s1.any()


def test_a_rule_variant_is_played_by_the_line_up_kernel_too():
    game = get_game("party")
    cfg = game.config(pink_llama="plain", plus_cards="plain")
    players = [registry.parse_spec("party", s) for s in LINE_UPS["party"]]  # the same line-up kernel as above
    plan = seat_plan(game, players + players[:1], True, cfg)
    generic = run(with_kernel(plan, "generic"), 5, 0, 30, threads=1)
    own = run(with_kernel(plan, "lineup"), 5, 0, 30, threads=1)
    assert np.array_equal(generic.s1, own.s1) and np.array_equal(generic.s2, own.s2)


def test_kadabra_rule_variants_are_played_by_the_line_up_kernel_too():
    game = get_game("kadabra")
    players = [registry.parse_spec("kadabra", s) for s in LINE_UPS["kadabra"]]  # the same line-up kernel as above
    for cfg in (game.config(magic_show="off"), game.config(magic_token="off")):
        plan = seat_plan(game, players + players[:1], True, cfg)
        generic = run(with_kernel(plan, "generic"), 5, 0, 20, threads=1)
        own = run(with_kernel(plan, "lineup"), 5, 0, 20, threads=1)
        assert np.array_equal(generic.s1, own.s1) and np.array_equal(generic.s2, own.s2)


def test_auto_takes_a_line_up_kernel_only_for_a_large_run(monkeypatch):
    monkeypatch.delenv("LLAMA_SIM_KERNEL", raising=False)
    game = get_game("lama")
    plan = seat_plan(game, [registry.parse_spec("lama", "smart")] * 4, False, game.config())
    monkeypatch.setattr(lineup, "_place", lambda g, s: ("never-built", lineup.Path("/nonexistent/never.py")))
    assert lineup.choose(plan, 1000) == "generic"
    assert lineup.choose(plan, lineup.LINEUP_MIN_ROUNDS) == "lineup"
    games = seat_plan(game, [registry.parse_spec("lama", "smart")] * 4, True, game.config())
    games_needed = -(-lineup.LINEUP_MIN_ROUNDS // lineup.ROUNDS_PER_GAME)
    assert lineup.choose(games, games_needed) == "lineup" and lineup.choose(games, games_needed - 1) == "generic"


def test_auto_takes_a_line_up_kernel_that_is_already_compiled(monkeypatch):
    monkeypatch.delenv("LLAMA_SIM_KERNEL", raising=False)
    game = get_game("party")
    players = [registry.parse_spec("party", s) for s in LINE_UPS["party"]]
    plan = seat_plan(game, players + players[:1], False, game.config())
    lineup.line_up_kernel("party", plan.entries).get()  # compiled in this process (or loaded from disk)
    assert lineup.choose(plan, 10) == "lineup"


def test_the_environment_variable_chooses_and_a_bad_value_is_one_clear_error(monkeypatch):
    game = get_game("lama")
    plan = seat_plan(game, [registry.parse_spec("lama", "greedy")] * 4, False, game.config())
    monkeypatch.setenv("LLAMA_SIM_KERNEL", "generic")
    assert lineup.choose(plan, 10**9) == "generic"
    monkeypatch.setenv("LLAMA_SIM_KERNEL", "LineUp")
    assert lineup.choose(plan, 1) == "lineup"
    monkeypatch.setenv("LLAMA_SIM_KERNEL", "fast")
    with pytest.raises(UsageError, match="LLAMA_SIM_KERNEL='fast': use one of auto, generic, lineup"):
        lineup.choose(plan, 1)


def test_a_bad_kernel_choice_from_the_command_line_exits_2_with_one_line():
    env = {**os.environ, "LLAMA_SIM_KERNEL": "fast"}
    res = subprocess.run([sys.executable, "-m", "llama_sim", "simulate", "-g", "lama", "-s", "greedy", "-s", "greedy",
                          "--rounds", "100"], capture_output=True, text=True, env=env)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == ["llamasim: error: LLAMA_SIM_KERNEL='fast': use one of auto, generic, lineup"]


def test_slots_follow_the_function_tuple_and_the_generated_module_calls_them_in_that_order():
    players = [registry.parse_spec("lama", s) for s in ("smart", "greedy", "smart:quit_at=2", "chart")]
    names = [s.name for s in lineup.slot_strategies(players)]
    funcs, slots = registry.policy_tuple(players)
    assert names == ["smart", "greedy", "chart"] and list(slots) == [0, 1, 0, 2]
    source = lineup.module_source("lama", lineup.slot_strategies(players))
    assert source.index("P0 = module_policy('lama', 'smart')") < source.index("P1 = module_policy('lama', 'greedy')")
    assert "if slot == 0:\n        return P0(" in source and "    return P2(readonly(obs), readonly(hand), legal, params, rng)" in source


def test_the_function_tuple_is_typed_as_the_kernels_take_it_without_comparing_signatures(monkeypatch):
    """Numba types the policy tuple as ``POLICIES_TYPE`` directly, and the kernel plays with it what it
    plays with a plain tuple of the same policies (which Numba types by unifying their signatures)."""
    from numba import typeof
    from numba.core import utils

    players = [registry.parse_spec("lama", s) for s in ("smart", "greedy", "random", "smart")]
    funcs, slots = registry.policy_tuple(players)
    game = get_game("lama")
    plan = with_kernel(seat_plan(game, players, False, game.config()), "generic")
    kernel = game.run_blocks.get()

    def sums(policies):
        s1 = np.zeros(len(plan.metrics) * len(plan.unit_labels), np.int64)
        s2 = np.zeros((s1.size, s1.size), np.int64)
        kernel(np.uint64(3), 0, 20, plan.n_players, plan.entry_of_seat, plan.unit_of_seat, len(plan.unit_labels),
               False, policies, slots, np.array([p.params for p in plan.entries]), plan.cfg, s1, s2)
        return s1, s2

    plain = sums(tuple(funcs))
    assert typeof(tuple(funcs)) == registry.POLICIES_TYPE
    monkeypatch.setattr(utils, "unified_function_type", lambda *a, **k: pytest.fail("signatures compared"))
    assert typeof(funcs) == registry.POLICIES_TYPE
    typed = sums(funcs)
    assert plain[0].any() and all(np.array_equal(a, b) for a, b in zip(plain, typed))


def test_an_edited_strategies_file_gets_a_fresh_line_up_kernel(tmp_path):
    """The generated module's name covers the source file of every strategy in the line-up."""
    path = tmp_path / "mine.py"
    path.write_text("def mine(obs, hand, legal, params, rng):\n    return 8\n")
    spec = importlib.util.spec_from_file_location("llamasim_test_lineup_mine", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mine = SimpleNamespace(name="mine", py_func=module.mine, source=str(path))
    before, _ = lineup._place("lama", [mine])
    path.write_text("def mine(obs, hand, legal, params, rng):\n    return 7\n")
    after, _ = lineup._place("lama", [mine])
    assert before != after and after == lineup._place("lama", [mine])[0]
    assert before != lineup._place("party", [SimpleNamespace(name="mine", py_func=module.mine, source="")])[0]


def test_workers_rebuild_the_kernel_choice():
    game = get_game("party")
    plan = with_kernel(seat_plan(game, [registry.parse_spec("party", "greedy")] * 3, False, game.config()), "lineup")
    assert [p.kernel for p in plans_from_data(plan_data(plan))] == ["lineup"]


@pytest.mark.parametrize("game_name", ["lama", "kadabra", "dice"])
def test_a_line_up_kernel_compiled_in_one_process_loads_from_the_disk_cache_in_the_next(game_name):
    """(Party's line-up kernels are built as L.A.M.A.'s; Kadabra's and dice's have their own round function.
    The line-up is the one above: this process builds it, or finds it built already (compiled with no
    warning, so nothing keeps it off the disk), and a new process must load it from the disk cache.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lineup.line_up_kernel(game_name, [registry.parse_spec(game_name, s) for s in LINE_UPS[game_name]]).get()
    script = ("import warnings; warnings.simplefilter('error'); from llama_sim.core import registry; "
              "from llama_sim.run import lineup; "
              f"entries = [registry.parse_spec({game_name!r}, s) for s in {LINE_UPS[game_name]!r}]; "
              f"print(lineup.line_up_kernel({game_name!r}, entries).is_cached())")
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert other.returncode == 0, other.stderr
    assert other.stdout.split() == ["True"]
