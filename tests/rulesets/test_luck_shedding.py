"""The card games' luck (``core.luck_cards.card_luck``): each event's luck has mean 0 over the pile, the
kernel counts the same luck as the reference engine on identical decks (the shedding games and Llama
Kadabra), luck off changes nothing, and exact values stay inside the adjusted intervals."""
from math import comb

import numpy as np
import pytest

from llama_sim.core import registry, stats
from llama_sim.core.luck import LUCK_SCALE
from llama_sim.rulesets import kadabra, lama, party
from llama_sim.rulesets.shedding import card_luck
from llama_sim.rulesets.shedding.reference import Luck
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan, with_luck_of
from llama_sim.run.replay import sums


def test_one_draw_has_luck_zero_on_average_over_the_pile_exactly():
    """E over the pile's cards of V(after) - E[V(after)] is 0 for any weights, hand and pile (up to
    rounding): the property that keeps every adjusted estimate unbiased."""
    rng = np.random.default_rng(1)
    weights = rng.normal(size=(7, 16, 7))
    for _ in range(20):
        hands = rng.integers(0, 2, size=(4, 7)).astype(np.int64)
        pile = rng.integers(0, 5, size=7).astype(np.int64)
        pile[rng.integers(7)] += 1
        values = [card_luck.py_func(weights, 4, int(hands[2].sum()), hands, 2, pile, c) for c in range(7)]
        assert np.dot(pile, values) / pile.sum() == pytest.approx(0, abs=1e-12)
        ref = Luck(weights, 4, lama.DECK)
        ref.pile = list(pile)
        ref.card(2, hands[2], 3)
        assert ref.luck[2] == values[3]  # the reference engine's float, to the last bit


@pytest.mark.parametrize("module,specs", [(lama, ["greedy", "smart", "always_quit"]),
                                          (party, ["greedy", "chain", "threshold"]),
                                          (kadabra, ["greedy", "showman", "threshold"])])
@pytest.mark.parametrize("games_mode", [False, True])
def test_kernel_luck_equals_the_reference_engines_on_the_same_decks(module, specs, games_mode):
    players = [registry.parse_spec(module.RULE_SET.name, s) for s in specs]
    plan = with_luck_of(rotation_plan(module.RULE_SET, 3, players, games_mode, module.config()), True)
    blocks = 4 if games_mode else 12
    tally = run(plan, 5, 0, blocks, threads=1)
    s1, s2 = sums(plan)
    module.RULE_SET.reference_blocks(5, 0, blocks, 3, plan.entry_of_seat, plan.unit_of_seat, 3, games_mode,
                                     [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)
    assert np.any(s1[-3:] != 0)  # the shipped value function counts some luck
    plain = run(with_luck_of(plan, False), 5, 0, blocks, threads=1)
    d = plain.s1.shape[0]  # luck off: the same sums as the plain part of luck on
    assert np.array_equal(plain.s1, tally.s1[:d]) and np.array_equal(plain.s2, tally.s2[:d, :d])


def test_always_quit_exact_value_is_inside_the_adjusted_interval_which_is_narrower():
    """Four always_quit players score their dealt hand: the deal's luck explains much of it."""
    exact = 31 * (1 - comb(48, 6) / comb(56, 6))
    quitter = registry.parse_spec("lama", "always_quit")
    plan = with_luck_of(rotation_plan(lama.RULE_SET, 4, [quitter], False, lama.config()), True)
    tally = run(plan, 2025, 0, 6000, threads=2)
    adjusted = stats.estimate(tally, "penalty_per_round", 0)
    plain_tally = stats.Tally(stats.ROUND_METRICS, 1, tally.appearances, tally.blocks, tally.s1[:3], tally.s2[:3, :3])
    plain = stats.estimate(plain_tally, "penalty_per_round", 0)
    assert adjusted.ci_low <= exact <= adjusted.ci_high
    assert abs(adjusted.value - plain.value) < 2 * plain.half_width
    assert tally.s1[3] != 0 and adjusted.half_width < plain.half_width
    assert abs(tally.s1[3]) / LUCK_SCALE / (4 * tally.blocks) < 0.5  # mean luck per round near 0
