"""Ratings: one number per strategy that predicts who wins a game, fitted to a league's full games.

Model (Luce's choice model, the first stage of a Plackett-Luce model of finishing orders: the
tallies record each game's winner, not the full order): strategy ``i`` has strength
``gamma_i = exp(rating_i)``, and in a game where strategy ``i`` holds ``m_i`` seats the winner is
one of ``i``'s seats with probability ``m_i gamma_i / sum_j m_j gamma_j``. Two strategies alone at
a table: ``P(a beats b) = gamma_a / (gamma_a + gamma_b)``. Shared wins count as fractions (ties
share, as ``win_rate`` does).

Fit: Hunter's (2004) MM algorithm, ``gamma_i <- W_i / sum_c G_c m_ci / sum_j m_cj gamma_j`` over the
groups ``c`` of games with the same seats (a stratum of a line-up). Each strategy also gets half a
win in one virtual two-player game against strength 1: it keeps a strategy that never wins finite
and anchors the scale (its weight is one game against the thousands a league plays). Ratings are
reported centred: their mean, weighted by how much the games tell about each (the diagonal of the
information matrix), is 0, so a strategy that hardly ever wins, whose rating is known only roughly,
does not drag every other rating's interval wide.

Intervals over deal blocks: the fitted ratings solve the score equations
``sum_c (W_c - G_c p_c(theta)) + prior = 0``, which are linear in the win totals ``W_c``; so
``theta - theta0 ~= H^-1 sum_c (W_c - E W_c)`` with ``H`` the information matrix, and the variance of
each ``W_c`` comes from the covariance of its blocks' win vectors (the sandwich estimator: seats of
one deal are correlated, blocks are not), but never below the model's own variance ``H^-1`` (a
strategy that never wins varies by 0 from block to block). Each group is an independent stream, so a rating's
variance is a sum of parts and its Student-t quantile takes Satterthwaite degrees of freedom, with no
interval below ``MIN_BLOCKS - 1`` of them (as ``league``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from llama_sim.core.intervals import MIN_BLOCKS, satterthwaite, t_value

PRIOR_WINS = 0.5  # half a win in one virtual game against strength 1, per strategy


@dataclass
class Group:
    """Games played with the same seats: ``strategy[u]`` (global index) holds ``seats[u]`` seats in
    each of ``games`` games and won ``wins[u]`` of them; ``cov``: covariance of one block's win vector
    (None below 2 blocks), over ``blocks`` blocks; ``lineup``: which line-up it belongs to."""

    strategy: np.ndarray
    seats: np.ndarray
    games: float
    wins: np.ndarray
    cov: np.ndarray | None
    blocks: int
    lineup: int = 0


def win_probabilities(theta: np.ndarray, group: Group) -> np.ndarray:
    """Each unit's chance of winning one game of ``group`` under ratings ``theta``."""
    w = group.seats * np.exp(theta[group.strategy])
    return w / w.sum()


@dataclass
class Stacked:
    """Groups as padded arrays (``strategy``, ``seats``, ``wins``: groups x units; ``games``), so each step of
    the fit is a few array operations however many groups a league has (a unit of padding holds 0 seats)."""

    strategy: np.ndarray
    seats: np.ndarray
    wins: np.ndarray
    games: np.ndarray

    @classmethod
    def of(cls, groups: list[Group]) -> "Stacked":
        width = max((g.strategy.size for g in groups), default=0)
        shape = (len(groups), width)
        strategy, seats, wins = np.zeros(shape, np.int64), np.zeros(shape), np.zeros(shape)
        for c, g in enumerate(groups):
            strategy[c, :g.strategy.size], seats[c, :g.seats.size], wins[c, :g.wins.size] = g.strategy, g.seats, g.wins
        return cls(strategy, seats, wins, np.array([g.games for g in groups], float))

    def probabilities(self, theta: np.ndarray) -> np.ndarray:
        w = self.seats * np.exp(theta[self.strategy])
        total = w.sum(axis=1, keepdims=True)
        return np.divide(w, total, out=np.zeros_like(w), where=total > 0)

    def per_strategy(self, values: np.ndarray, k: int) -> np.ndarray:
        """Sum of ``values`` (groups x units) over the units of each strategy."""
        return np.bincount(self.strategy.ravel(), weights=values.ravel(), minlength=k)


def _stacked(groups) -> Stacked:
    return groups if isinstance(groups, Stacked) else Stacked.of(groups)


def fit(groups: list[Group], k: int, mm_steps: int = 100, tol: float = 1e-10) -> np.ndarray:
    """Ratings (log strengths, not centred) of ``k`` strategies: MM steps (each raises the likelihood,
    from any start), then Newton steps on the concave log-likelihood until the score vanishes (MM
    alone crawls when one strategy almost never wins)."""
    st = _stacked(groups)
    wins = PRIOR_WINS + st.per_strategy(st.wins, k)
    gamma = np.ones(k)
    for _ in range(mm_steps):
        strength = (st.seats * gamma[st.strategy]).sum(axis=1, keepdims=True)
        share = np.divide(st.games[:, None] * st.seats, strength, out=np.zeros_like(st.seats), where=strength > 0)
        new = wins / (1.0 / (gamma + 1.0) + st.per_strategy(share, k))  # (with the virtual game against 1)
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-3
        gamma = new
        if done:
            break
    theta = np.log(gamma)
    scale = max(1.0, float(wins.sum()))
    for _ in range(100):
        step = np.linalg.solve(information(theta, st), score(theta, st, wins))
        theta = theta + step
        if np.max(np.abs(score(theta, st, wins))) < tol * scale:
            break
    return theta


def score(theta: np.ndarray, groups: list[Group], wins: np.ndarray | None = None) -> np.ndarray:
    """The log-likelihood's gradient in ``theta``: wins minus expected wins (virtual games included)."""
    st = _stacked(groups)
    k = theta.size
    if wins is None:
        wins = PRIOR_WINS + st.per_strategy(st.wins, k)
    gamma = np.exp(theta)
    return wins - gamma / (gamma + 1) - st.per_strategy(st.games[:, None] * st.probabilities(theta), k)


def information(theta: np.ndarray, groups: list[Group]) -> np.ndarray:
    """``-d score / d theta``: the groups' multinomial information plus the virtual games'."""
    st = _stacked(groups)
    k = theta.size
    gamma = np.exp(theta)
    p = st.probabilities(theta)
    h = np.diag(gamma / (gamma + 1) ** 2 + st.per_strategy(st.games[:, None] * p, k))
    outer = st.games[:, None, None] * p[:, :, None] * p[:, None, :]
    np.add.at(h, (st.strategy[:, :, None], st.strategy[:, None, :]), -outer)
    return h


def ratings(groups: list[Group], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centred ratings, standard errors, degrees of freedom) of ``k`` strategies; NaN standard
    errors when a group has fewer than 2 blocks. Differences of ratings do not depend on the centring."""
    theta = fit(groups, k)
    info = information(theta, groups)
    weight = np.diag(info) / np.trace(info)
    centre = np.eye(k) - np.outer(np.ones(k), weight)
    inverse = np.linalg.inv(info)
    a = centre @ inverse
    parts = np.zeros((len(groups), k))
    for c, g in enumerate(groups):
        if g.cov is None:
            parts[c] = np.nan
            continue
        sub = a[:, g.strategy]
        parts[c] = g.blocks * np.einsum("iu,uv,iv->i", sub, g.cov, sub)
    # never below the model's own variance: a strategy that never (or always) wins has block-to-block
    # variance 0, yet its rating is known only up to the few wins it could have had
    sandwich, own = parts.sum(axis=0), np.diag(a @ centre.T)
    var = np.maximum(sandwich, own)
    # the model's variance is not estimated from blocks: where it is the larger, no small-sample correction
    df = np.array([math.nan if np.isnan(var[i]) else math.inf if own[i] > sandwich[i] else
                   satterthwaite(parts[:, i], [g.blocks - 1 for g in groups]) for i in range(k)])
    return centre @ theta, np.sqrt(var), df


def interval(value: float, se: float, df: float, level: float = 0.95) -> tuple[float, float]:
    """``value +- t se``; NaN below ``MIN_BLOCKS - 1`` degrees of freedom."""
    if math.isnan(se) or math.isnan(df) or df < MIN_BLOCKS - 1:
        return math.nan, math.nan
    q = t_value(level, df)
    return value - q * se, value + q * se


def held_out(groups: list[Group], k: int) -> list[dict]:
    """Each line-up predicted from a fit to all the others: per unit, the predicted and observed win
    rate, and the share of seats it holds (what it would win were all strategies equal)."""
    rows = []
    lineups = sorted({g.lineup for g in groups})
    if len(lineups) < 3:
        return rows
    for held in lineups:
        mine = [g for g in groups if g.lineup == held]
        theta = fit(Stacked.of([g for g in groups if g.lineup != held]), k)
        games = sum(g.games for g in mine)
        for u, s in enumerate(mine[0].strategy):
            predicted = sum(g.games * win_probabilities(theta, g)[u] for g in mine) / games
            observed = sum(g.wins[u] for g in mine) / games
            share = sum(g.games * g.seats[u] / g.seats.sum() for g in mine) / games
            rows.append({"lineup": held, "strategy": int(s), "predicted": predicted, "observed": observed,
                         "equal_share": share, "games": games})
    return rows
