"""Summaries across rule-set option values (llama_sim.present.across): unpaired spreads, the exact deal value."""
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from llama_sim.present import across
from llama_sim.rulesets.dice import positions
from llama_sim.rulesets.dice.solver import PENALTY, parse_cards
from solved import TWO_LAYOUTS, full_table


def test_spread_by_hand():
    z = stats.norm.ppf(0.975)
    se = np.array([0.1, 0.2, 0.05])
    values = np.array([1.0, 2.0, 4.0])
    s = across.spread(["a", "b", "c"], values, values - z * se, values + z * se)
    assert (s["lowest"], s["highest"], s["pairs"]) == ("a", "c", 3)
    assert s["diff"] == pytest.approx(3.0)
    half = stats.norm.ppf(1 - 0.05 / 6) * math.hypot(0.1, 0.05)  # Bonferroni over the 3 pairs
    assert (s["diff_ci_low"], s["diff_ci_high"]) == pytest.approx((3 - half, 3 + half))
    w = 1 / se**2
    mean = (w * values).sum() / w.sum()
    q = (w * (values - mean) ** 2).sum()
    assert s["q"] == pytest.approx(q) and s["p_all_equal"] == pytest.approx(stats.chi2.sf(q, 2))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-50, 50), st.floats(0.01, 5)), min_size=2, max_size=15))
def test_spread_does_not_depend_on_order(points):
    values = np.array([v for v, _ in points])
    half = np.array([h for _, h in points])
    labels = [f"x{i}" for i in range(len(points))]
    a = across.spread(labels, values, values - half, values + half)
    order = np.argsort(-values, kind="stable")
    b = across.spread([labels[i] for i in order], values[order], (values - half)[order], (values + half)[order])
    assert a["diff"] == pytest.approx(b["diff"]) and a["diff"] >= 0
    assert a["p_all_equal"] == pytest.approx(b["p_all_equal"])
    assert a["diff_ci_low"] <= a["diff"] <= a["diff_ci_high"]


def test_equal_values_are_not_told_apart_and_far_ones_are():
    same = across.spread(["a", "b"], [5.0, 5.0], [4.0, 4.0], [6.0, 6.0])
    assert same["diff"] == 0 and same["p_all_equal"] == pytest.approx(1.0)
    far = across.spread(["a", "b"], [1.0, 9.0], [0.9, 8.9], [1.1, 9.1])
    assert far["diff_ci_low"] > 0 and far["p_all_equal"] < 1e-9


def test_dealt_rows_follow_the_hypergeometric_law_exactly():
    weights = positions.dealt_row_weights()
    assert sum(weights.values()) == 1
    assert all(sum(r) == 6 for r in weights)
    # a count of a code is hypergeometric: mean 6 * K / 36; a code is present with 1 - C(36-K, 6) / C(36, 6)
    total = math.comb(36, 6)
    for code, k in enumerate(positions.DECK_COUNTS):
        assert sum(w * r[code] for r, w in weights.items()) == Fraction(6 * k, 36)
        present = sum(w for r, w in weights.items() if r[code] > 0)
        assert present == 1 - Fraction(math.comb(36 - k, 6), total)


def _expected_dealt_penalty() -> float:
    total = math.comb(36, 6)
    return float(sum(PENALTY[c] * (1 - Fraction(math.comb(36 - k, 6), total)) for c, k in enumerate(positions.DECK_COUNTS)))


def test_dealt_value_of_quitting_is_the_closed_form_and_matches_random_deals():
    policy = full_table(TWO_LAYOUTS[1]).policy
    value, quit_value = positions.dealt_solo_value(policy)
    assert quit_value == pytest.approx(_expected_dealt_penalty(), abs=1e-12)
    assert value < quit_value
    # the same average over shuffled decks (independent of the hypergeometric weights)
    by_row = {tuple(int(x) for x in parse_cards(r)): v for r, v in zip(policy.row, policy.value)}
    deck = np.repeat(np.arange(7), positions.DECK_COUNTS)
    dealt = deck[np.random.default_rng(5).random((20000, deck.size)).argsort(axis=1)[:, :6]]  # 20000 shuffles' first 6
    counts = (dealt[:, :, None] == np.arange(7)).sum(axis=1)
    draws = np.array([by_row[tuple(c)] for c in counts.tolist()])
    assert abs(draws.mean() - value) < 4 * draws.std() / math.sqrt(len(draws))


def test_solve_summary_across_layouts_is_exact():
    layouts = list(TWO_LAYOUTS)
    results = [full_table(x) for x in layouts]
    summary = across.summarise("solve", results, [{"dice_layout": x} for x in layouts])
    t = summary.tables["across"]
    assert list(t.dice_layout) == layouts
    for r, row in zip(results, t.itertuples()):
        df = r.policy
        assert row.rows_roll == (df.best == "roll").sum() and row.rows == len(df)
        assert row.dealt_value == pytest.approx(positions.dealt_solo_value(df)[0], abs=0)
        # every row at least always_roll_from rolls, every row at most never_roll_up_to quits
        assert (df[df.quit_value >= row.always_roll_from].best == "roll").all()
        assert (df[df.quit_value <= row.never_roll_up_to].best == "quit").all()
    assert t.dealt_quit_value.nunique() == 1  # quitting at once does not depend on the dice
    assert "exact values" in summary.sentence and f"{t.dealt_value.min():.4f}" in summary.sentence
    assert summary.plot().axes


def test_summarise_has_no_summary_for_other_kinds():
    assert across.summarise("advise", [], [{}]) is None
