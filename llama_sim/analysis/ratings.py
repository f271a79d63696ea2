"""A league's ratings: the games of every line-up at one player count fitted by ``core.ratings``, with
intervals over deal blocks, and each line-up predicted from the others (the held-out check).

Only full games have a winner, so a league of single rounds has no ratings (empty tables).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from llama_sim.core import ratings as model
from llama_sim.core.stats import WIN_SCALE, Stratified, block_covariance

RATING_COLUMNS = ["game", "players", "strategy", "metric", "value", "ci_low", "ci_high", "se", "games", "lineups",
                  "seed"]
CHECK_COLUMNS = ["game", "players", "lineup", "strategies", "strategy", "predicted", "observed", "equal_share",
                 "games"]


def groups_of(work, tally: Stratified, strategy_index: list[int], lineup: int) -> list[model.Group]:
    """One ``core.ratings.Group`` per stratum (seating class) of a line-up's games."""
    out = []
    strata = tally.strata if isinstance(tally, Stratified) else (tally,)
    for plan, t in zip(work.plans, strata):
        win = [t.index("win60", u) for u in range(t.units)]
        cov = block_covariance(t)
        out.append(model.Group(
            strategy=np.asarray(strategy_index), seats=plan.appearances() / plan.rows, games=float(t.blocks * plan.rows),
            wins=t.s1[win] / WIN_SCALE, cov=None if cov is None else cov[np.ix_(win, win)] / WIN_SCALE ** 2,
            blocks=t.blocks, lineup=lineup))
    return out


def ratings_tables(game: str, players: int, labels: list[str], groups: list[model.Group], lineup_names: dict,
                   seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ratings, held-out check) at one player count: ``value`` is the centred log strength (a
    difference of 0.1 is about 2.5 points of head-to-head win rate near even)."""
    k = len(labels)
    value, se, df = model.ratings(groups, k)
    rows = []
    for i, label in enumerate(labels):
        lo, hi = model.interval(value[i], se[i], df[i])
        mine = [g for g in groups if i in g.strategy]
        rows.append({"game": game, "players": players, "strategy": label, "metric": "rating", "value": value[i],
                     "ci_low": lo, "ci_high": hi, "se": se[i], "games": int(sum(g.games for g in mine)),
                     "lineups": len({g.lineup for g in mine}), "seed": seed})
    check = [{"game": game, "players": players, "lineup": r["lineup"], "strategies": lineup_names[r["lineup"]],
              "strategy": labels[r["strategy"]], "predicted": r["predicted"], "observed": r["observed"],
              "equal_share": r["equal_share"], "games": int(r["games"])} for r in model.held_out(groups, k)]
    return pd.DataFrame(rows, columns=RATING_COLUMNS), pd.DataFrame(check, columns=CHECK_COLUMNS)


def head_to_head(ratings: pd.DataFrame, a: str, b: str, players: int) -> float:
    """The predicted share of games ``a`` wins against ``b`` alone at a table of ``players`` (each
    holding half the seats): ``gamma_a / (gamma_a + gamma_b)``."""
    r = ratings[ratings.players == players].set_index("strategy")["value"]
    return 1 / (1 + math.exp(r[b] - r[a]))


def held_out_text(check: pd.DataFrame) -> str:
    """One line per player count: the mean absolute error of the predicted win rates of held-out line-ups,
    next to that of predicting every strategy its share of the seats."""
    lines = []
    for n, g in check.groupby("players", sort=False):
        mae = float(np.mean(np.abs(g.predicted - g.observed)))
        base = float(np.mean(np.abs(g.equal_share - g.observed)))
        # what the observed rates' own sampling noise alone gives: E|N(0, p(1-p)/games)| (games independent)
        p, games = g.predicted.to_numpy(float), g.games.to_numpy(float)
        noise = float(np.mean(np.sqrt(p * (1 - p) / games * 2 / np.pi)))
        lines.append(f"{n} players: each of {g.lineup.nunique()} line-ups predicted from the others: mean absolute "
                     f"error of the win rate {mae:.4f} (sampling noise alone ~{noise:.4f}; equal shares: {base:.4f})")
    return "\n".join(lines) if lines else "(held-out check: needs at least 3 line-ups at a player count)"
