"""Numbers and comparisons in plain words, as report sentences and report tables print them.

An estimate prints as ``value [low, high]`` (its 95% interval) with as many decimals as the
interval supports: the half-width's first significant digit is the last one shown (a half-width of
0.018 gives two decimals, 0.0016 three), at least one decimal and at most four. A difference prints
without its sign, in words that say which way it goes ("1.16 [1.14, 1.19] fewer points per round
than greedy"); when its interval holds 0, "the data do not separate" the two.
"""
from __future__ import annotations

import math
from typing import Optional

LOWER_IS_BETTER = frozenset({"penalty_per_round", "final_score"})

# metric -> how a sentence names it
METRIC_WORDS = {"penalty_per_round": "penalty per round", "win_rate": "win rate", "went_out_rate": "went-out rate",
                "quit_rate": "quit rate", "rounds_per_game": "rounds per game", "final_score": "final score"}


def metric_words(metric: str) -> str:
    return METRIC_WORDS.get(metric, metric.replace("_", " "))


def decimals(low: float, high: float, most: int = 4) -> int:
    """How many decimals an interval ``[low, high]`` supports: its half-width's first significant
    digit is the last one shown (at least 1, at most ``most``; 3 for an interval of width 0)."""
    half = (high - low) / 2
    if not (math.isfinite(half) and half > 0):
        return min(3, most)
    return max(1, min(most, -math.floor(math.log10(half))))


def number(value: float, digits: int, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals (``sign``: always a sign). A negative value that rounds to 0
    keeps its minus ("-0.00"): an interval bound just below 0 must not read as 0 or above."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:{'+' if sign else ''}.{digits}f}"


def est(value: float, low: float, high: float, sign: bool = False, digits: Optional[int] = None) -> str:
    """``value [low, high]``, rounded as the interval supports (``digits`` fixes the decimals)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return number(value, 3 if digits is None else digits, sign)
    d = decimals(low, high) if digits is None else digits
    return f"{number(value, d, sign)} [{number(low, d, sign)}, {number(high, d, sign)}]"


def est_points(metric: str, value: float, low: float, high: float, sign: bool = False) -> str:
    """``est`` in the unit a player reads: a win rate (or a difference of them) in percentage points
    (``4.6 [2.9, 6.4]`` for 0.046), any other metric as it is."""
    scale = 100 if metric == "win_rate" else 1
    return est(scale * value, scale * low, scale * high, sign=sign)


def separated(low: float, high: float) -> bool:
    """True when a difference's interval lies clear of 0."""
    return low > 0 or high < 0


def magnitude(diff: float, low: float, high: float) -> str:
    """The size of a difference that is clear of 0, without its sign: ``1.16 [1.14, 1.19]``."""
    lo, hi = sorted((abs(low), abs(high)))
    return est(abs(diff), lo, hi)


def more_or_less(metric: str, diff: float, low: float, high: float, other: str, unit: bool = True,
                 size: bool = True) -> str:
    """How ``diff`` (this minus ``other``, clear of 0) reads: "1.16 [1.14, 1.19] fewer points per round
    than greedy", "0.075 [0.066, 0.084] more of its games than threshold", "0.012 [..] higher than
    x's" (``size=False``: without the numbers, "more of its games than threshold")."""
    amount = f"{magnitude(diff, low, high)} " if size else ""
    up = diff > 0
    units = {"penalty_per_round": " points per round", "final_score": " points at the end of a game",
             "win_rate": " of its games", "rounds_per_game": " rounds per game"}
    if metric in units:
        return f"{amount}{'more' if up else 'fewer'}{units[metric] if unit else ''} than {other}"
    return f"{amount}{'higher' if up else 'lower'} than {other}'s"


def better_word(metric: str) -> str:
    """"lowest penalty per round" / "highest win rate": the best value of ``metric`` in words."""
    return f"{'lowest' if metric in LOWER_IS_BETTER else 'highest'} {metric_words(metric)}"


def ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def listing(items: list[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def counts_text(counts: list[int], unit: str = "players") -> str:
    """``2 to 6 players`` for a run of counts, else ``3, 4 and 6 players``."""
    counts = sorted(counts)
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]} {unit}"
    return f"{listing([str(c) for c in counts])} {unit}"


UNITS = {"penalty_per_round": "points per round", "final_score": "points", "rounds_per_game": "rounds"}


def est_unit(metric: str, value: float, low: float, high: float) -> str:
    """``4.29 points per round [4.27, 4.30]``: an estimate with its unit before the interval."""
    unit = UNITS.get(metric)
    text = est(value, low, high)
    if not unit:
        return text
    number_part, bracket, rest = text.partition(" [")
    return f"{number_part} {unit}{' [' + rest if bracket else ''}"


def best_phrase(metric: str) -> str:
    """"the lowest penalty", "the highest win rate": what the best value of ``metric`` gives."""
    if metric == "penalty_per_round":
        return "the lowest penalty"
    return f"the {better_word(metric)}"


def leads(metric: str, a: str, b: str, diff: float, low: float, high: float, size: bool = True) -> str:
    """``a`` against ``b`` when ``diff`` (a - b) is clear of 0: "a wins 0.075 [0.066, 0.084] more of its
    games than b", "a takes 0.16 [0.14, 0.18] fewer points per round than b" (``size=False``: without
    the numbers)."""
    words = more_or_less(metric, diff, low, high, b, size=size)
    if metric == "win_rate":
        return f"{a} wins {words}"
    if metric == "penalty_per_round":
        return f"{a} takes {words}"
    if metric in ("final_score", "rounds_per_game"):
        return f"{a} has {words}"
    return f"{a}'s {metric_words(metric)} is {words}"


def per_hundred(rate: float) -> str:
    """A rate as games in every 100: ``28``, or ``0.4`` below one."""
    return f"{100 * rate:.0f}" if 100 * rate >= 1 else f"{100 * rate:.1g}"


def win_lead(a: str, b: str, rate_a: float, rate_b: float, diff: float, low: float, high: float) -> str:
    """``a`` against ``b`` on win rate, with the base rates: "a wins 28 of every 100 games, against 22
    for b: 5.6 [3.1, 8.0] percentage points more (paired)"; when the interval covers 0, "the data do
    not separate them"."""
    base = f"{a} wins {per_hundred(rate_a)} of every 100 games, against {per_hundred(rate_b)} for {b}"
    if not separated(low, high):
        return (f"{base}; the data do not separate them ({a} - {b} = "
                f"{est(100 * diff, 100 * low, 100 * high, sign=True)} percentage points, paired)")
    return (f"{base}: {magnitude(100 * diff, 100 * low, 100 * high)} percentage points "
            f"{'more' if diff > 0 else 'fewer'} (paired)")


def thousands(n: int) -> str:
    return f"{int(n):,}"
