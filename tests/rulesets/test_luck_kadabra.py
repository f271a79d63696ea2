"""Llama Kadabra's luck (``rulesets/kadabra/luck.py``): a card's luck has mean 0 over the pile, and the exact
always_quit value stays inside the adjusted interval (kernel = reference: ``test_luck_shedding.py``)."""
from math import comb

import numpy as np
import pytest

from llama_sim.core import registry, stats
from llama_sim.core.luck import LUCK_SCALE
from llama_sim.rulesets import kadabra
from llama_sim.rulesets.kadabra import luck as kadabra_luck
from llama_sim.run.backends import run
from llama_sim.run.designs import seat_plan, with_luck_of


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
