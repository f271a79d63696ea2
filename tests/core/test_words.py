"""Numbers and comparisons in report sentences (``llama_sim.core.words``)."""
import math

from llama_sim.core.words import counts_text, decimals, est, est_unit, leads, listing, more_or_less, separated


def test_an_estimate_has_the_decimals_its_interval_supports():
    assert est(4.2851, 4.2671, 4.3032) == "4.29 [4.27, 4.30]"  # half-width 0.018: two decimals
    assert est(0.6794, 0.6780, 0.6809) == "0.679 [0.678, 0.681]"  # 0.0015: three
    assert est(13.3, 12.3, 14.2) == "13.3 [12.3, 14.2]"  # at least one decimal
    assert decimals(1.0, 1.0) == 3 and est(0.0, 0.0, 0.0, sign=True) == "+0.000 [+0.000, +0.000]"
    assert est(0.25, math.nan, math.nan) == "0.250"  # no interval: the value alone


def test_a_bound_just_below_zero_keeps_its_minus():
    assert est(0.037, -0.0017, 0.075) == "0.04 [-0.00, 0.07]"
    assert not separated(-0.0017, 0.075) and separated(0.001, 0.075) and separated(-0.2, -0.1)


def test_differences_read_in_words_without_their_sign():
    assert more_or_less("penalty_per_round", -1.1647, -1.1867, -1.1427, "greedy") == \
        "1.16 [1.14, 1.19] fewer points per round than greedy"
    assert more_or_less("penalty_per_round", -1.1647, -1.1867, -1.1427, "greedy", unit=False) == \
        "1.16 [1.14, 1.19] fewer than greedy"
    assert leads("win_rate", "a", "b", 0.075, 0.066, 0.084) == "a wins 0.075 [0.066, 0.084] more of its games than b"
    assert leads("win_rate", "a", "b", 0.075, 0.066, 0.084, size=False) == "a wins more of its games than b"
    assert leads("went_out_rate", "a", "b", -0.01, -0.015, -0.005) == "a's went-out rate is 0.010 [0.005, 0.015] lower than b's"
    assert est_unit("penalty_per_round", 4.2851, 4.2671, 4.3032) == "4.29 points per round [4.27, 4.30]"


def test_lists_and_counts():
    assert listing(["a"]) == "a" and listing(["a", "b"]) == "a and b" and listing(["a", "b", "c"], "or") == "a, b or c"
    assert counts_text([2, 3, 4, 5, 6]) == "2 to 6 players" and counts_text([3, 4, 6]) == "3, 4 and 6 players"
