"""Llama Kadabra's luck (``rulesets/kadabra/luck.py``): a card's luck has mean 0 over the pile, the kernel
counts the same luck as the reference engine (draws and draw symbols included), luck off changes nothing,
and the exact always_quit value stays inside the adjusted interval."""
from math import comb

import numpy as np
import pytest

from llama_sim.core import registry, stats
from llama_sim.core.luck import LUCK_SCALE
from llama_sim.rulesets import kadabra
from llama_sim.rulesets.kadabra import luck as kadabra_luck
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan, with_luck_of
from llama_sim.run.replay import sums


def test_a_cards_luck_has_mean_zero_over_the_pile():
    rng = np.random.default_rng(3)
    weights = rng.normal(size=kadabra_luck.LUCK_SHAPE)
    luck = kadabra_luck.Luck(4, kadabra.deck_of_counts(kadabra.DEFAULT_COUNTS), weights)
    for _ in range(10):
        hand = rng.integers(0, 2, size=kadabra.N_CODES).astype(np.int64)
        pile = rng.integers(0, 4, size=kadabra.N_CODES).astype(np.int64)
        values = []
        for card in np.flatnonzero(pile):
            luck.pile, luck.luck = pile.copy(), np.zeros(4)
            luck.card(1, hand, int(card))
            values.append(luck.luck[1])
        assert np.dot(pile[pile > 0], values) / pile.sum() == pytest.approx(0, abs=1e-12)
        assert np.std(values) > 0.1


@pytest.mark.parametrize("games_mode", [False, True])
def test_kernel_luck_equals_the_reference_engines(games_mode):
    players = [registry.parse_spec("kadabra", s) for s in ("greedy", "showman", "threshold")]
    plan = with_luck_of(rotation_plan(kadabra.RULE_SET, 3, players, games_mode, kadabra.config()), True)
    blocks = 2 if games_mode else 8
    tally = run(plan, 7, 0, blocks, threads=1)
    s1, s2 = sums(plan)
    kadabra.RULE_SET.reference_blocks(7, 0, blocks, 3, plan.entry_of_seat, plan.unit_of_seat, 3, games_mode,
                                      [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)
    assert np.any(s1[-3:] != 0)  # the shipped value function counts some luck
    plain = run(with_luck_of(plan, False), 7, 0, blocks, threads=1)
    d = plain.s1.shape[0]  # luck off: the same sums as the plain part of luck on
    assert np.array_equal(plain.s1, tally.s1[:d]) and np.array_equal(plain.s2, tally.s2[:d, :d])


def test_always_quit_exact_value_is_inside_the_adjusted_interval_which_is_narrower():
    """Four always_quit players score their dealt hand (each value held once; a double carries two values):
    only the deal's luck counts, and it explains much of the hand."""
    carrying = {1: 8, 2: 9, 3: 9, 4: 9, 5: 9, 6: 8, 10: 12}  # points of a value: cards that carry it
    exact = sum(p * (1 - comb(60 - m, 6) / comb(60, 6)) for p, m in carrying.items())
    players = [registry.parse_spec("kadabra", "always_quit")] * 4
    tally = run(with_luck_of(seat_plan(kadabra.RULE_SET, players, False, kadabra.config()), True), 2026, 0, 4000,
                threads=2)
    plain = stats.Tally(stats.ROUND_METRICS, 4, tally.appearances, tally.blocks, tally.s1[:12], tally.s2[:12, :12])
    for u in range(4):
        adjusted, unadjusted = stats.estimate(tally, "penalty_per_round", u), stats.estimate(plain, "penalty_per_round", u)
        assert adjusted.ci_low <= exact <= adjusted.ci_high
        assert abs(adjusted.value - unadjusted.value) < 2 * unadjusted.half_width
        assert adjusted.half_width < unadjusted.half_width
    assert abs(tally.s1[12:].sum()) / LUCK_SCALE / (4 * tally.blocks) < 0.5  # mean luck per round near 0
