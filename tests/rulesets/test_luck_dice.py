"""LAMA Dice's luck (``rulesets/dice/luck.py``): a roll's luck has mean 0 over the 216 rolls exactly, the
kernel counts the same luck as the reference engine, and the exact always_quit value stays inside the
adjusted interval."""
from math import comb

import numpy as np
import pytest

from llama_sim.core import registry, stats
from llama_sim.rulesets import dice
from llama_sim.rulesets.dice import luck as dice_luck
from llama_sim.rulesets.dice.codes import roll_faces
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan, with_luck_of
from llama_sim.run.replay import sums


@pytest.mark.parametrize("layout", [None, "13-25-46"])
def test_a_rolls_luck_has_mean_zero_over_the_216_rolls(layout):
    cfg = dice.RULE_SET.config(**({"dice_layout": layout} if layout else {}))
    rng = np.random.default_rng(4)
    weights = rng.normal(size=dice_luck.LUCK_SHAPE)
    for token, alone in ((0, False), (1, True), (10, False)):
        rows = rng.integers(0, 3, size=(3, 7)).astype(np.int64)
        rows[1, 6] = token % 2  # with and without a llama in the roller's row
        llama_row = rng.integers(0, 2, size=7).astype(np.int64)
        quit = np.array([int(alone), 0, int(alone)], np.int64)  # alone: the others have quit
        lucks = []
        for o in range(216):
            luck = np.zeros(3)
            dice_luck.roll_luck(luck, weights, 3, rows, 1, cfg, *map(int, roll_faces(cfg[1:], o)), token, llama_row,
                                quit, alone)
            lucks.append(luck)
        assert np.mean(lucks, axis=0) == pytest.approx(np.zeros(3), abs=1e-12)  # the roller's and the others'
        assert np.std(lucks, axis=0)[1] > 0.1
        assert not alone or np.std(lucks, axis=0)[0] == 0  # a player who has quit has no luck


@pytest.mark.parametrize("games_mode", [False, True])
def test_kernel_luck_equals_the_reference_engines(games_mode):
    players = [registry.parse_spec("dice", s) for s in ("threshold", "chart", "watcher")]
    plan = with_luck_of(rotation_plan(dice.RULE_SET, 3, players, games_mode, dice.RULE_SET.config()), True)
    blocks = 3 if games_mode else 10
    tally = run(plan, 11, 0, blocks, threads=1)
    s1, s2 = sums(plan)
    dice.RULE_SET.reference_blocks(11, 0, blocks, 3, plan.entry_of_seat, plan.unit_of_seat, 3, games_mode,
                                   [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2) and np.any(s1[-3:] != 0)


def test_always_quit_exact_value_is_inside_the_adjusted_interval():
    """Four always_quit players score their dealt rows (20.0134 each): only the deal's luck counts (a table
    fitted on players who roll, so it need not narrow this one's interval)."""
    exact = sum(range(1, 7)) * (1 - comb(31, 6) / comb(36, 6)) + 10 * (1 - comb(30, 6) / comb(36, 6))
    players = [registry.parse_spec("dice", "always_quit")] * 4
    tally = run(with_luck_of(seat_plan(dice.RULE_SET, players, False, dice.RULE_SET.config()), True),
                2024, 0, 5000, threads=2)
    plain = stats.Tally(stats.ROUND_METRICS, 4, tally.appearances, tally.blocks, tally.s1[:12], tally.s2[:12, :12])
    for u in range(4):
        est = stats.estimate(tally, "penalty_per_round", u)
        plain_est = stats.estimate(plain, "penalty_per_round", u)
        assert est.ci_low <= exact <= est.ci_high
        assert abs(est.value - plain_est.value) < 2 * plain_est.half_width and est.value != plain_est.value


def test_the_solvers_exact_value_is_inside_the_adjusted_interval():
    """Seat 0 quits at once, so seat 1 plays its dealt row alone with solo_optimal: its expected penalty is
    the solver's value averaged over the deal's rows (each 6-card row with its hypergeometric weight)."""
    from itertools import product
    from math import prod

    from llama_sim.rulesets.dice import solver as sv

    have = [5, 5, 5, 5, 5, 5, 6]
    exact = 0.0
    for counts in product(*(range(min(h, 6) + 1) for h in have)):
        if sum(counts) == 6:
            weight = prod(comb(h, k) for h, k in zip(have, counts)) / comb(36, 6)
            exact += weight * sv.solve_solo(np.array(counts), "1 2 3 4 5 6 L").value
    players = [registry.parse_spec("dice", s) for s in ("always_quit", "solo_optimal")]
    tally = run(with_luck_of(seat_plan(dice.RULE_SET, players, False, dice.RULE_SET.config()), True),
                36, 0, 5000, threads=2)
    plain = stats.Tally(stats.ROUND_METRICS, 2, tally.appearances, tally.blocks, tally.s1[:6], tally.s2[:6, :6])
    adjusted, unadjusted = stats.estimate(tally, "penalty_per_round", 1), stats.estimate(plain, "penalty_per_round", 1)
    assert adjusted.ci_low <= exact <= adjusted.ci_high and unadjusted.ci_low <= exact <= unadjusted.ci_high
