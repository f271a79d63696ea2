"""The battery every rule set passes, importable by any package that ships one:
``check_rule_set(rule_set)`` (needs ``hypothesis``, a development dependency).

Each check plays through the generic path only (designs, backends, the API), never a rule set's
internals: the kernel equals the reference engine on the same streams, results do not depend on the
thread count, round penalties add up to final scores and every win is handed out once, every strategy
loads and plays, bad input is a ``UsageError``, ``bench`` agrees with the reference, and ``advise``
values every legal action of the rule set's example position. ``CHECKS`` lists them, so a test suite
can run them one by one (``tests/rulesets/test_rule_sets.py``).
"""
from __future__ import annotations

import numpy as np

from llama_sim import api
from llama_sim.analysis.advise import make_position
from llama_sim.analysis.bench import bench_game
from llama_sim.core import registry
from llama_sim.core.advice import advice_of
from llama_sim.core.scoring import M_FINAL, M_OUT, M_PENALTY, M_QUIT, M_ROUNDS, M_WIN60, WIN_UNITS
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import RuleSet, option_flag
from llama_sim.run.backends import run
from llama_sim.run.designs import empty_tally, seat_plan


def line_up(rule_set: RuleSet, n: int, seed: int = 0) -> list:
    """``n`` players cycling through the rule set's strategies (shuffled by ``seed``)."""
    names = registry.builtin_strategies(rule_set.name)
    order = np.random.default_rng(seed).permutation(len(names))
    return [registry.parse_spec(rule_set.name, names[order[s % len(names)]]) for s in range(n)]


def reference_tally(plan, seed: int, blocks: int):
    """The reference engine's sums on ``plan``'s work."""
    tally = empty_tally(plan)
    entries = [(p.strategy.policy, p.params) for p in plan.entries]
    plan.game.reference_blocks(seed, 0, blocks, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
                               len(plan.unit_labels), plan.games_mode, entries, plan.cfg, tally.s1, tally.s2)
    return tally


def kernel_plays_what_the_reference_plays(rule_set: RuleSet, examples: int = 4) -> None:
    """Same deals and policy streams, same sums: every action the kernel took was the reference's, and the
    reference checks each against the rules' legal set (hypothesis draws the seed, players and mode)."""
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=examples, deadline=None, database=None)
    @given(seed=st.integers(0, 2**32), n_offset=st.integers(0, 4), games_mode=st.booleans())
    def check(seed, n_offset, games_mode):
        n = rule_set.min_players + n_offset % (rule_set.max_players - rule_set.min_players + 1)
        plan = seat_plan(rule_set, line_up(rule_set, n, seed), games_mode, rule_set.config())
        blocks = 1 if games_mode else 12
        kernel = run(plan, seed, 0, blocks, threads=1)
        reference = reference_tally(plan, seed, blocks)
        assert np.array_equal(kernel.s1, reference.s1) and np.array_equal(kernel.s2, reference.s2), \
            f"{rule_set.name}: the kernel's sums differ from the reference engine's (seed {seed}, {n} players)"

    check()


def results_do_not_depend_on_the_thread_count(rule_set: RuleSet) -> None:
    plan = seat_plan(rule_set, line_up(rule_set, rule_set.min_players + 1), False, rule_set.config())
    one, two = run(plan, 11, 0, 3000, threads=1, chunk=250), run(plan, 11, 0, 3000, threads=2, chunk=250)
    assert np.array_equal(one.s1, two.s1) and np.array_equal(one.s2, two.s2), f"{rule_set.name}: threads differ"


def penalties_add_up_and_each_game_hands_out_one_win(rule_set: RuleSet) -> None:
    for n in (rule_set.min_players, rule_set.max_players):
        plan = seat_plan(rule_set, line_up(rule_set, n, n), True, rule_set.config())
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


def one_player_out_and_each_quits_once_a_round(rule_set: RuleSet) -> None:
    n = rule_set.max_players
    plan = seat_plan(rule_set, line_up(rule_set, n, 5), False, rule_set.config())
    tally = run(plan, 5, 0, 2000, threads=2)
    went_out = tally.s1[M_OUT * n: (M_OUT + 1) * n]
    quits = tally.s1[M_QUIT * n: (M_QUIT + 1) * n]
    assert went_out.sum() <= tally.blocks and quits.max() <= tally.blocks
    assert tally.s1[M_PENALTY * n: (M_PENALTY + 1) * n].min() >= 0  # rounds from 0 points: no token to return


def every_strategy_loads_and_plays(rule_set: RuleSet) -> None:
    game = rule_set.name
    names = registry.builtin_strategies(game)
    assert names, f"{game} registers no strategy"
    for k in range(0, len(names), rule_set.min_players):
        chunk = names[k:k + rule_set.min_players]
        if len(chunk) == 1:  # compare takes two or more
            chunk = [names[0], *chunk] if chunk[0] != names[0] else chunk
        if len(chunk) == 1:
            api.simulate(game, chunk * rule_set.min_players, rounds=200, seed=k, quiet=True)
            continue
        r = api.compare(game, chunk, players=max(rule_set.min_players, len(chunk)), rounds=200, seed=k, quiet=True)
        assert set(r.results.strategy) == set(chunk) and r.results.value.notna().all()


def simulate_and_compare_through_the_api(rule_set: RuleSet) -> None:
    game = rule_set.name
    names = registry.builtin_strategies(game)[:2]
    sim = api.simulate(game, [names[0]] * rule_set.min_players, rounds=500, seed=2, quiet=True)
    assert sorted(sim.results.seat.dropna().unique().tolist()) == list(range(rule_set.min_players))
    cmp = api.compare(game, names, players=rule_set.min_players, games=30, seed=2, quiet=True)
    assert set(cmp.results.metric) >= {"penalty_per_round", "win_rate"} and len(cmp.paired) >= 1


def bad_input_is_a_usage_error(rule_set: RuleSet) -> None:
    game = rule_set.name
    name = registry.builtin_strategies(game)[0]
    for bad in (lambda: api.compare(game, [name], players=rule_set.max_players + 1, rounds=100, quiet=True),
                lambda: api.compare(game, ["no_such_strategy"], rounds=100, quiet=True),
                lambda: rule_set.config(no_such_option="x")):
        try:
            bad()
        except UsageError:
            continue
        raise AssertionError(f"{game}: bad input was accepted")


def bench_agrees_with_the_reference(rule_set: RuleSet) -> None:
    """The generic kernel alone (``LLAMA_SIM_KERNEL=generic`` while it runs: no line-up kernel to compile)."""
    import os

    saved = os.environ.get("LLAMA_SIM_KERNEL")
    os.environ["LLAMA_SIM_KERNEL"] = "generic"
    try:
        row = bench_game(rule_set, rounds=2000, reference_rounds=50, threads=1)
    finally:
        if saved is None:
            os.environ.pop("LLAMA_SIM_KERNEL", None)
        else:
            os.environ["LLAMA_SIM_KERNEL"] = saved
    assert row["reference_agrees"] is True and row["kernel_rounds_per_s_1_thread"] > 0
    assert row["lineup_rounds_per_s_1_thread"] is None
    assert row["limit_agrees"] is (None if rule_set.limit is None else True)  # the limit plays the same rounds


def advise_values_every_legal_action(rule_set: RuleSet) -> None:
    """The rule set's example position: every legal action gets a value, the best is one of them, and
    quitting, where the rule set calls it chance-free, has an interval of zero width. Its declared position
    options are the advisor's, and a bad position is a ``UsageError``. (A rule set without an advisor
    passes.)"""
    game = rule_set.name
    if rule_set.hook("advice") is None:
        return
    advice = advice_of(rule_set)
    assert tuple(advice.position_help) == tuple(advice.position_keys)
    if rule_set.position_help is not None:
        assert rule_set.position_help == advice.position_help
        assert rule_set.position_flags == frozenset(advice.position_flags)
    pos = make_position(game, **advice.example)
    legal = {rule_set.action_names[a] for a in advice.root_actions(pos)}
    r = api.advise(game, rollouts=200, seed=4, **advice.example)
    values = r.table[r.table.metric == "penalty_per_round"].set_index("action")
    assert set(values.index) == legal and r.best in legal
    assert "quit" in legal  # every example position lets its player quit
    quit = values.loc["quit"]
    if advice.chance_free(pos, "quit"):
        assert quit.ci_low == quit.value == quit.ci_high
    assert quit.ci_low <= quit.value <= quit.ci_high
    for bad in ({**advice.example, "scores": "1,2,3,4,5,6,7,8"}, {**advice.example, "no_such_key": "x"},
                {**advice.example, "actions": ["no such action"]}):
        try:
            api.advise(game, rollouts=10, **bad)
        except UsageError:
            continue
        raise AssertionError(f"{game}: advise accepted a bad position {bad}")


def example_position_argv(rule_set: RuleSet) -> list[str]:
    """The rule set's example position as ``llamasim advise`` options."""
    argv = []
    for key, value in advice_of(rule_set).example.items():
        argv += [option_flag(key)] if value is True else [option_flag(key), str(value)]
    return argv


CHECKS = (kernel_plays_what_the_reference_plays, results_do_not_depend_on_the_thread_count,
          penalties_add_up_and_each_game_hands_out_one_win, one_player_out_and_each_quits_once_a_round,
          every_strategy_loads_and_plays, simulate_and_compare_through_the_api, bad_input_is_a_usage_error,
          bench_agrees_with_the_reference, advise_values_every_legal_action)


def check_rule_set(rule_set: RuleSet) -> None:
    """Run every check of the battery on ``rule_set`` (registered, with its strategies); an
    ``AssertionError`` names what failed."""
    for check in CHECKS:
        check(rule_set)
