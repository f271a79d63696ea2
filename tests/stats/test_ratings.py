"""Ratings (``core.ratings``, ``analysis.ratings``): the MM fit recovers known strengths exactly, its
intervals over blocks cover, held-out line-ups are predicted, and a league shows them."""
import math

import numpy as np
import pytest

import llama_sim
from llama_sim.analysis.coverage import too_often
from llama_sim.analysis.ratings import head_to_head
from llama_sim.core import ratings as model
from llama_sim.core.intervals import t_value
from cli_helpers import call

TRUE = np.array([0.8, 0.2, -0.3, -0.7])  # centred
LINEUPS = [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]


def exact_groups(seats=(1, 1, 1), games=1e6):
    """Groups whose wins are exactly their expectations under ``TRUE``."""
    out = []
    for i, s in enumerate(LINEUPS):
        g = model.Group(np.array(s), np.array(seats, float), games, np.zeros(3), None, 2, lineup=i)
        g.wins = games * model.win_probabilities(TRUE, g)
        out.append(g)
    return out


def test_fit_recovers_exact_strengths_and_solves_the_score_equations():
    for seats in ((1, 1, 1), (2, 1, 1)):  # one strategy holding two seats: P(win) = 2 gamma / (2 gamma + ...)
        groups = exact_groups(seats)
        theta = model.fit(groups, 4)
        # only the virtual half-games pull away from the truth: 1e6 games per line-up make that < 1e-5
        np.testing.assert_allclose(theta - theta.mean(), TRUE, atol=1e-5)
        score = np.full(4, model.PRIOR_WINS) - np.exp(theta) / (np.exp(theta) + 1)  # written out, not model.score
        for g in groups:
            np.add.at(score, g.strategy, g.wins - g.games * model.win_probabilities(theta, g))
        np.testing.assert_allclose(score, 0, atol=1e-3)  # of 4e6 games
        np.testing.assert_allclose(model.score(theta, groups), score, atol=1e-9)
    # a strategy that never wins stays finite (the virtual games) and far below the others
    g = [model.Group(np.array([0, 1]), np.ones(2), 100.0, np.array([100.0, 0.0]), None, 2)]
    theta = model.fit(g, 2)
    assert np.isfinite(theta).all() and theta[0] - theta[1] > 4


def test_held_out_line_ups_are_predicted_exactly_from_exact_data():
    rows = model.held_out(exact_groups(), 4)
    assert len(rows) == 12 and {r["lineup"] for r in rows} == {0, 1, 2, 3}
    assert max(abs(r["predicted"] - r["observed"]) for r in rows) < 1e-5
    assert all(r["equal_share"] == pytest.approx(1 / 3) for r in rows)
    assert model.held_out(exact_groups()[:2], 4) == []  # two line-ups: nothing left to fit on


def multinomial_groups(rng, blocks):
    """Each line-up: ``blocks`` blocks of 4 independent games; per-block win vectors give the covariance."""
    out = []
    for i, s in enumerate(LINEUPS):
        g = model.Group(np.array(s), np.ones(3), 0.0, np.zeros(3), None, blocks, lineup=i)
        per_block = rng.multinomial(4, model.win_probabilities(TRUE, g), size=blocks).astype(float)
        g.games, g.wins = 4.0 * blocks, per_block.sum(axis=0)
        g.cov = np.cov(per_block.T, ddof=1) if blocks > 1 else None
        out.append(g)
    return out


def test_rating_intervals_over_blocks_cover():
    rng = np.random.default_rng(4)
    misses = total = 0
    for _ in range(100):
        groups = multinomial_groups(rng, 60)
        value, se, df = model.ratings(groups, 4)
        # Satterthwaite over the 4 line-ups' blocks, or no correction where the model's own variance is used
        assert (df >= 59).all() and ((df <= 4 * 59 + 1e-9) | np.isinf(df)).all()
        info = model.information(model.fit(groups, 4), groups)
        truth = TRUE - np.diag(info) @ TRUE / np.trace(info)  # the true ratings, centred as reported
        for i in range(4):
            lo, hi = model.interval(value[i], se[i], df[i])
            assert hi - value[i] == pytest.approx(t_value(0.95, df[i]) * se[i])
            total += 1
            misses += not lo <= truth[i] <= hi
    assert not too_often(misses, total)
    few = model.ratings(multinomial_groups(rng, 1), 4)
    assert np.isnan(few[1]).all() and math.isnan(model.interval(0.0, 1.0, 3.0)[0])


def test_league_shows_ratings_that_predict_head_to_head(capsys):
    r = llama_sim.league("lama", ["greedy", "threshold", "random"], players=2, games=240, seed=2, quiet=True)
    assert list(r.ratings.columns[:7]) == ["game", "players", "strategy", "metric", "value", "ci_low", "ci_high"]
    assert len(r.ratings) == 3 and r.ratings.value.min() < 0 < r.ratings.value.max()
    top = r.ratings.sort_values("value").strategy.iloc[-1]
    assert r.ratings.set_index("strategy").value["random"] < r.ratings.value.min() + 1e-12 and top != "random"
    assert head_to_head(r.ratings, top, "random", 2) > 0.8
    assert len(r.rating_check) == 6 and "mean absolute error of the win rate" in r.run["held_out"]
    code, out, _ = call(capsys, "compare", "-g", "lama", "--league", "greedy", "threshold", "random", "-p", "2",
                        "--games", "240", "--seed", "2", "-q", "--view", "ratings")
    assert code == 0 and "Ratings (log strength" in out and "Held-out check: 2 players" in out
    assert (r.ratings.ci_low < r.ratings.value).all() and (r.ratings.value < r.ratings.ci_high).all()
    code, out, _ = call(capsys, "compare", "-g", "lama", "--league", "greedy", "threshold", "-p", "2",
                        "--rounds", "40", "-q", "--view", "ratings")
    assert code == 0 and "(ratings need full games: --games)" in out
