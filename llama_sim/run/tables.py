"""The result tables of a comparison (paired differences, ranking) and of a seat table, the metrics
they compare, and the half-widths ``--precision`` stops on."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from llama_sim.core import stats
from llama_sim.core.errors import UsageError
from llama_sim.core.stats import Stratified, Tally
from llama_sim.run.designs import Plan, Work, deals


LEVEL = 0.95


def compared_metrics(games_mode: bool, chosen: list[str] | None = None) -> tuple[str, ...]:
    """The metrics that get paired differences and a ranking (and that ``--precision`` covers):
    ``penalty_per_round``, plus ``win_rate`` in game mode, unless ``chosen``."""
    mode = "game" if games_mode else "round"
    if not chosen:
        return ("penalty_per_round", "win_rate") if games_mode else ("penalty_per_round",)
    for m in chosen:
        if m not in stats.REPORTED[mode]:
            raise UsageError(f"--metric {m}: choose from {', '.join(stats.REPORTED[mode])}"
                             + ("" if games_mode else " (win_rate, final_score, rounds_per_game need --games)"))
    return tuple(dict.fromkeys(chosen))


def comparison_half_width(metrics) -> Callable[[Tally | Stratified], float]:
    """Largest half-width over the strategies' intervals and every paired difference."""
    return lambda tally: stats.max_half_width(tally, metrics, LEVEL, pairs=True)


def seat_half_width(metrics) -> Callable[[Tally | Stratified], float]:
    """Largest half-width over the seats' intervals and every seat-vs-mean difference."""
    return lambda tally: stats.max_half_width(tally, metrics, LEVEL, vs_mean=True)


PAIRED_COLUMNS = ["game", "players", "metric", "strategy_a", "strategy_b", "diff", "ci_low", "ci_high",
                  "p_value", "p_holm", "better", "unpaired_ci_low", "unpaired_ci_high", "deals", "seed"]

RANKING_COLUMNS = ["game", "players", "metric", "rank", "strategy", "value", "ci_low", "ci_high", "n",
                   "indistinguishable_from", "seed"]

SEAT_COLUMNS = ["game", "players", "strategy", "seat", "metric", "value", "ci_low", "ci_high", "vs_mean",
                "vs_mean_ci_low", "vs_mean_ci_high", "p_value", "p_holm", "deals", "seed"]


def better(metric: str, diff: float, p_holm: float, a: str, b: str) -> str:
    """Who is better when the Holm-adjusted test separates them, else ''."""
    if not p_holm < 1 - LEVEL or diff == 0:
        return ""
    if metric in stats.LOWER_IS_BETTER:
        return a if diff < 0 else b
    if metric in stats.HIGHER_IS_BETTER:
        return a if diff > 0 else b
    return ""


def paired_table(work: Work, tally, seed: int, metrics) -> pd.DataFrame:
    """Every pair of strategies, per compared metric: ``diff = a - b`` with its paired 95% interval,
    p-value, Holm-adjusted p-value (over the pairs of that metric), and the interval the same data
    would give without pairing."""
    frames = []
    labels = work.unit_labels
    for m in metrics:
        df = stats.paired(tally, m, LEVEL)
        a = [labels[u] for u in df["unit_a"]]
        b = [labels[u] for u in df["unit_b"]]
        frames.append(pd.DataFrame({
            "game": work.game.name, "players": work.n_players, "metric": m, "strategy_a": a, "strategy_b": b,
            "diff": df["diff"], "ci_low": df["ci_low"], "ci_high": df["ci_high"], "p_value": df["p_value"],
            "p_holm": df["p_holm"],
            "better": [better(m, d, p, x, y) for d, p, x, y in zip(df["diff"], df["p_holm"], a, b)],
            "unpaired_ci_low": df["unpaired_ci_low"], "unpaired_ci_high": df["unpaired_ci_high"],
            "deals": deals(work, tally), "seed": seed}, columns=PAIRED_COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PAIRED_COLUMNS)


def ranking_table(work: Work, tally, seed: int, metrics) -> pd.DataFrame:
    """Best first per ranked metric; ``indistinguishable_from`` lists the strategies the data cannot
    separate from this one (Holm-adjusted paired p >= 0.05)."""
    frames = []
    labels = work.unit_labels
    for m in metrics:
        if m not in stats.LOWER_IS_BETTER | stats.HIGHER_IS_BETTER:
            continue
        df = stats.ranking(tally, m, LEVEL)
        frames.append(pd.DataFrame({
            "game": work.game.name, "players": work.n_players, "metric": m, "rank": df["rank"],
            "strategy": [labels[u] for u in df["unit"]], "value": df["value"], "ci_low": df["ci_low"],
            "ci_high": df["ci_high"], "n": df["n"].astype(np.int64),
            "indistinguishable_from": [", ".join(labels[v] for v in close) for close in df["indistinguishable_from"]],
            "seed": seed}, columns=RANKING_COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RANKING_COLUMNS)


def seat_table(plan: Plan, tally: Tally, seed: int, metrics) -> pd.DataFrame:
    """Seat effects of an all-same-strategy table: each seat's value with its interval, and its
    difference from the mean of all seats (``vs_mean``; a negative penalty difference is an
    advantage) with a paired 95% interval and Holm-adjusted p-values over the seats."""
    frames = []
    for m in metrics:
        vm = stats.versus_mean(tally, m, LEVEL)
        own = stats.summarise(tally, LEVEL, metrics=(m,))
        frames.append(pd.DataFrame({
            "game": plan.game.name, "players": plan.n_players, "strategy": plan.entries[0].label,
            "seat": vm["unit"].astype(np.int64), "metric": m, "value": own["value"], "ci_low": own["ci_low"],
            "ci_high": own["ci_high"], "vs_mean": vm["vs_mean"], "vs_mean_ci_low": vm["ci_low"],
            "vs_mean_ci_high": vm["ci_high"], "p_value": vm["p_value"], "p_holm": vm["p_holm"],
            "deals": tally.blocks, "seed": seed}, columns=SEAT_COLUMNS))
    return pd.concat(frames, ignore_index=True)
