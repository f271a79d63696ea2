"""The battery every rule set passes, parametrised over the registered rule sets and the toy one
(``tests/toy_ruleset``, registered here by its one line): a new rule set is tested by registering it.

Each test plays through the generic path only (designs, backends, the API), never a rule set's
internals: the kernel equals the reference engine on the same deals, results do not depend on the
thread count, round penalties add up to final scores, every win is handed out once, and every
registered strategy loads and plays.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import llama_sim
from llama_sim.analysis.advise import make_position
from llama_sim.core import registry
from llama_sim.core.advice import advice_of
from llama_sim.core.engine import M_FINAL, M_OUT, M_PENALTY, M_QUIT, M_ROUNDS, M_WIN60, WIN_UNITS
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import RULE_SETS, get_game, register
from llama_sim.run.backends import run
from llama_sim.run.simulate import empty_tally, seat_plan

TOY = "toy"
NAMES = [*RULE_SETS, TOY]


@pytest.fixture(scope="module", autouse=True)
def toy_registered():
    """The one registry line of the toy rule set, for this module only."""
    register(TOY, "toy_ruleset")
    yield
    RULE_SETS.pop(TOY, None)


def line_up(game: str, n: int, seed: int = 0) -> list:
    """``n`` players cycling through the rule set's strategies (shuffled by ``seed``)."""
    names = registry.builtin_strategies(game)
    order = np.random.default_rng(seed).permutation(len(names))
    return [registry.parse_spec(game, names[order[s % len(names)]]) for s in range(n)]


def reference_tally(plan, seed: int, blocks: int):
    tally = empty_tally(plan)
    entries = [(p.strategy.policy, p.params) for p in plan.entries]
    plan.game.reference_blocks(seed, 0, blocks, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
                               len(plan.unit_labels), plan.games_mode, entries, plan.cfg, tally.s1, tally.s2)
    return tally


@pytest.mark.parametrize("game", NAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), n_offset=st.integers(0, 4), games_mode=st.booleans())
def test_the_kernel_plays_what_the_reference_engine_plays(game, seed, n_offset, games_mode):
    """Same deals and policy streams, same sums: every action the kernel took was the reference's, and
    the reference checks each one against the rules' legal set."""
    spec = get_game(game)
    n = spec.min_players + n_offset % (spec.max_players - spec.min_players + 1)
    plan = seat_plan(spec, line_up(game, n, seed), games_mode, spec.config())
    blocks = 1 if games_mode else 12
    kernel = run(plan, seed, 0, blocks, threads=1)
    reference = reference_tally(plan, seed, blocks)
    assert np.array_equal(kernel.s1, reference.s1) and np.array_equal(kernel.s2, reference.s2)


@pytest.mark.parametrize("game", NAMES)
def test_results_do_not_depend_on_the_thread_count(game):
    spec = get_game(game)
    plan = seat_plan(spec, line_up(game, spec.min_players + 1), False, spec.config())
    one, two = run(plan, 11, 0, 3000, threads=1, chunk=250), run(plan, 11, 0, 3000, threads=2, chunk=250)
    assert np.array_equal(one.s1, two.s1) and np.array_equal(one.s2, two.s2)


@pytest.mark.parametrize("game", NAMES)
def test_round_penalties_add_up_to_final_scores_and_each_game_hands_out_one_win(game):
    spec = get_game(game)
    for n in (spec.min_players, spec.max_players):
        plan = seat_plan(spec, line_up(game, n, n), True, spec.config())
        tally = run(plan, 3, 0, 40, threads=2)
        u = n
        penalty = tally.s1[M_PENALTY * u: (M_PENALTY + 1) * u]
        final = tally.s1[M_FINAL * u: (M_FINAL + 1) * u]
        start = final - penalty  # what every game starts from: the same per seat and per game
        assert len(set(start.tolist())) == 1 and start[0] % tally.blocks == 0 and start[0] >= 0
        assert tally.s1[M_WIN60 * u: (M_WIN60 + 1) * u].sum() == WIN_UNITS * tally.blocks
        rounds = tally.s1[M_ROUNDS * u: (M_ROUNDS + 1) * u]
        assert len(set(rounds.tolist())) == 1 and rounds[0] >= tally.blocks
        assert final.max() >= 0 and final.sum() >= 40 * tally.blocks


@pytest.mark.parametrize("game", NAMES)
def test_a_round_has_at_most_one_player_out_and_each_quits_at_most_once(game):
    spec = get_game(game)
    n = spec.max_players
    plan = seat_plan(spec, line_up(game, n, 5), False, spec.config())
    tally = run(plan, 5, 0, 2000, threads=2)
    went_out = tally.s1[M_OUT * n: (M_OUT + 1) * n]
    quits = tally.s1[M_QUIT * n: (M_QUIT + 1) * n]
    assert went_out.sum() <= tally.blocks and quits.max() <= tally.blocks
    assert tally.s1[M_PENALTY * n: (M_PENALTY + 1) * n].min() >= 0  # rounds from 0 points: no token to return


@pytest.mark.parametrize("game", NAMES)
def test_every_strategy_of_the_rule_set_loads_and_plays_in_compare(game):
    spec = get_game(game)
    names = registry.builtin_strategies(game)
    assert names, f"{game} registers no strategy"
    for k in range(0, len(names), spec.min_players):
        chunk = names[k:k + spec.min_players]
        if len(chunk) == 1:  # compare takes two or more
            chunk = [names[0], *chunk] if chunk[0] != names[0] else chunk
        if len(chunk) == 1:
            llama_sim.simulate(game, chunk * spec.min_players, rounds=200, seed=k, quiet=True)
            continue
        r = llama_sim.compare(game, chunk, players=max(spec.min_players, len(chunk)), rounds=200, seed=k, quiet=True)
        assert set(r.results.strategy) == set(chunk)
        assert r.results.value.notna().all()


@pytest.mark.parametrize("game", NAMES)
def test_simulate_and_compare_through_the_api(game):
    spec = get_game(game)
    names = registry.builtin_strategies(game)[:2]
    sim = llama_sim.simulate(game, [names[0]] * spec.min_players, rounds=500, seed=2, quiet=True)
    assert sorted(sim.results.seat.dropna().unique().tolist()) == list(range(spec.min_players))
    cmp = llama_sim.compare(game, names, players=spec.min_players, games=30, seed=2, quiet=True)
    assert set(cmp.results.metric) >= {"penalty_per_round", "win_rate"}
    assert len(cmp.paired) >= 1


@pytest.mark.parametrize("game", NAMES)
def test_bad_input_is_a_usage_error(game):
    spec = get_game(game)
    name = registry.builtin_strategies(game)[0]
    with pytest.raises(UsageError):
        llama_sim.compare(game, [name], players=spec.max_players + 1, rounds=100, quiet=True)
    with pytest.raises(UsageError):
        llama_sim.compare(game, ["no_such_strategy"], rounds=100, quiet=True)
    with pytest.raises(UsageError):
        spec.config(no_such_option="x")


@pytest.mark.parametrize("game", NAMES)
def test_bench_measures_every_rule_set_and_its_kernel_agrees_with_the_reference(game, monkeypatch):
    """The generic kernel alone, so its line-up columns stay empty (a rule set's line-up kernels play as
    the generic one does: tests/test_lineup.py; bench's line-up columns: tests/test_bench.py)."""
    from llama_sim.analysis.bench import bench_game

    monkeypatch.setenv("LLAMA_SIM_KERNEL", "generic")  # no line-up kernel to compile for this check
    row = bench_game(get_game(game), rounds=2000, reference_rounds=50, threads=1)
    assert row["reference_agrees"] is True and row["kernel_rounds_per_s_1_thread"] > 0
    assert row["lineup_rounds_per_s_1_thread"] is None


@pytest.mark.parametrize("game", NAMES)
def test_advise_values_every_legal_action_and_quitting_exactly(game):
    """The rule set's example position: every legal action gets a value, the best is one of them, and
    quitting, where the rule set calls it chance-free, has an interval of zero width."""
    advice = advice_of(get_game(game))
    pos = make_position(game, **advice.example)
    legal = {get_game(game).action_names[a] for a in advice.root_actions(pos)}
    r = llama_sim.advise(game, rollouts=200, seed=4, **advice.example)
    values = r.table[r.table.metric == "penalty_per_round"].set_index("action")
    assert set(values.index) == legal and r.best in legal
    assert "quit" in legal  # every example position lets its player quit
    quit = values.loc["quit"]
    if advice.chance_free(pos, "quit"):
        assert quit.ci_low == quit.value == quit.ci_high
    assert quit.ci_low <= quit.value <= quit.ci_high


@pytest.mark.parametrize("game", NAMES)
def test_declared_position_options_are_the_advisors(game):
    """A rule set may declare advise's position options itself (the command line then offers them
    without importing the advisor): they must be exactly the advisor's."""
    rule_set = get_game(game)
    advice = advice_of(rule_set)
    assert tuple(advice.position_help) == tuple(advice.position_keys)
    if rule_set.position_help is not None:
        assert rule_set.position_help == advice.position_help
        assert rule_set.position_flags == frozenset(advice.position_flags)


@pytest.mark.parametrize("game", NAMES)
def test_bad_positions_are_usage_errors(game):
    advice = advice_of(get_game(game))
    with pytest.raises(UsageError):
        llama_sim.advise(game, rollouts=10, **{**advice.example, "scores": "1,2,3,4,5,6,7,8"})
    with pytest.raises(UsageError):
        llama_sim.advise(game, rollouts=10, **advice.example, no_such_key="x")
    with pytest.raises(UsageError):
        llama_sim.advise(game, rollouts=10, **advice.example, actions=["no such action"])


@pytest.mark.parametrize("game", NAMES)
def test_advise_on_the_command_line_exits_2_on_a_bad_position(game, capsys):
    """The rule set's example position typed as options, with one more score than players: one line,
    exit status 2 (the options themselves come from the rule set's advisor)."""
    from llama_sim.cli import main
    from llama_sim.core.ruleset import option_flag

    argv = ["advise", "--game", game, "--rollouts", "10", "--quiet"]
    for key, value in advice_of(get_game(game)).example.items():
        argv += [option_flag(key)] if value is True else [option_flag(key), str(value)]
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--scores", "1,2,3,4,5,6,7,8"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llamasim: error:")
