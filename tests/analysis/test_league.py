"""Leagues (llama_sim.league, the experiment step `league`): the design (every strategy in the same
number of line-ups and seats) and the numbers against an independent computation from `compare`."""
import math
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import llama_sim
from llama_sim.core.words import est
from llama_sim.analysis.league import lineup_seed, lineups
from llama_sim.run.designs import seating_classes
from llama_sim.core.intervals import satterthwaite, t_value

# Each line-up here is a 2-player compare of 200 plays: 100 deal blocks, so its intervals use Student t on
# 99 degrees of freedom; a league value adds two such estimates (Satterthwaite degrees of freedom).
Z = t_value(0.95, 99)
THREE = ["smart", "greedy", "threshold"]


@given(k=st.integers(2, 8), n=st.integers(2, 6))
@settings(max_examples=60, deadline=None)
def test_every_strategy_plays_as_many_line_ups_and_seats_as_every_other(k, n):
    combos = lineups(k, n)
    per_strategy = Counter(s for c in combos for s in c)
    per_pair = Counter(p for c in combos for p in combinations(c, 2))
    if k > n:
        assert len(combos) == math.comb(k, n) == len(set(combos))
        assert all(len(c) == n for c in combos)
        assert set(per_strategy.values()) == {math.comb(k - 1, n - 1)}
        assert set(per_pair.values()) == {math.comb(k - 2, n - 2)} and len(per_pair) == math.comb(k, 2)
    else:
        assert combos == [tuple(range(k))]
    # seats over the whole design: every line-up played in compare's balanced seating
    seats = Counter()
    for c in combos:
        for table in seating_classes(n, len(c)):
            seats.update(c[u] for u in table.ravel())
    assert len(seats) == k and len(set(seats.values())) == 1


@pytest.fixture(scope="module")
def two_player_league():
    """Three strategies at 2 players (three line-ups), and the three compares it must equal."""
    league = llama_sim.league("lama", THREE, players=2, games=600, seed=7, quiet=True)
    compares = [llama_sim.compare("lama", [THREE[a], THREE[b]], players=2, games=200,
                                  seed=lineup_seed(7, 2, i), quiet=True)
                for i, (a, b) in enumerate(combinations(range(3), 2))]
    return league, compares


def _pooled(compare, strategy, metric):
    r = compare.results
    return r[(r.strategy == strategy) & (r.metric == metric) & r.seat.isna()].iloc[0]


def test_a_two_player_league_is_the_mean_of_its_compares(two_player_league):
    league, compares = two_player_league
    lu = league.lineups
    assert list(lu.drop_duplicates("lineup").strategies) == ["smart, greedy", "smart, threshold", "greedy, threshold"]
    assert set(lu.plays) == {200} and set(lu.lineup_seed) == {lineup_seed(7, 2, i) for i in range(3)}
    # every line-up's numbers are exactly those of compare on that line-up with its seed
    for i, c in enumerate(compares):
        for row in lu[lu.lineup == i].itertuples():
            ref = _pooled(c, row.strategy, row.metric)
            assert (row.value, row.ci_low, row.ci_high, row.n) == (ref.value, ref.ci_low, ref.ci_high, ref.n)
    # each league value is the mean over the strategy's two line-ups; variances of independent runs add
    for s in THREE:
        mine = [c for c in compares if s in set(c.results.strategy)]
        assert len(mine) == 2
        for metric in ("win_rate", "penalty_per_round", "final_score"):
            refs = [_pooled(c, s, metric) for c in mine]
            got = league.results[(league.results.strategy == s) & (league.results.metric == metric)].iloc[0]
            assert got.value == np.mean([r.value for r in refs])
            assert got.n == sum(r.n for r in refs)
            if metric != "win_rate":  # points metrics: mean +- t se, se from each compare's own interval
                ses = [(r.ci_high - r.ci_low) / (2 * Z) for r in refs]
                se = math.sqrt(sum(x ** 2 for x in ses)) / 2
                t = t_value(0.95, satterthwaite([x ** 2 for x in ses], 99))
                assert got.ci_high - got.ci_low == pytest.approx(2 * t * se, rel=1e-9)
                assert (got.ci_low + got.ci_high) / 2 == pytest.approx(got.value, rel=1e-12)


def test_the_edge_pairs_where_both_play_and_adds_the_rest(two_player_league):
    league, compares = two_player_league
    by_pair = {frozenset(c.results.strategy.dropna()): c for c in compares}
    for metric in ("win_rate", "penalty_per_round"):
        for a, b in combinations(THREE, 2):
            row = league.paired[(league.paired.metric == metric) & (league.paired.strategy_a == a)
                                & (league.paired.strategy_b == b)].iloc[0]
            value = lambda s: league.results[(league.results.strategy == s)  # noqa: E731
                                             & (league.results.metric == metric)].value.iloc[0]
            assert row["diff"] == value(a) - value(b)
            shared = by_pair[frozenset((a, b))]
            p = shared.paired[shared.paired.metric == metric].iloc[0]
            sign = 1 if (p.strategy_a, p.strategy_b) == (a, b) else -1
            assert row.head_to_head == pytest.approx(sign * p["diff"], rel=1e-12, abs=1e-15)
            pair_se = (p.ci_high - p.ci_low) / (2 * Z)
            assert row.h2h_ci_high - row.h2h_ci_low == pytest.approx(p.ci_high - p.ci_low, rel=1e-9)
            (c_name,) = set(THREE) - {a, b}
            a_only = by_pair[frozenset((a, c_name))]
            b_only = by_pair[frozenset((b, c_name))]
            if metric == "penalty_per_round":  # symmetric intervals: se is their half-width / z
                se_a = (lambda r: (r.ci_high - r.ci_low) / (2 * Z))(_pooled(a_only, a, metric))
                se_b = (lambda r: (r.ci_high - r.ci_low) / (2 * Z))(_pooled(b_only, b, metric))
                expected = math.sqrt(pair_se ** 2 + se_a ** 2 + se_b ** 2) / 2
                assert row.se == pytest.approx(expected, rel=1e-9)
            assert row.lineups_both == 1


def test_strongest_is_the_top_of_the_ranking_with_its_edge(two_player_league):
    league, _ = two_player_league
    s = league.strongest.iloc[0]
    rank = league.ranking[(league.ranking.metric == "win_rate")].sort_values("rank")
    assert (s.best, s.runner_up) == tuple(rank.strategy.iloc[:2])
    assert s.edge == pytest.approx(rank.value.iloc[0] - rank.value.iloc[1], rel=1e-12)
    assert s.edge >= 0 and s.edge_ci_low <= s.edge <= s.edge_ci_high
    assert s.sentence.startswith(f"At 2 players {s.best} ") and f"{s.runner_up}, the runner-up" in s.sentence
    edge = est(s.edge, s.edge_ci_low, s.edge_ci_high, sign=s.verdict != "better")
    points = est(100 * s.edge, 100 * s.edge_ci_low, 100 * s.edge_ci_high, sign=s.verdict != "better")
    assert edge in s.sentence and f"{points} percentage points" in league.conclusion  # a win rate in plain words
    assert f"{round(100 * s.value)} of every 100 games against {round(100 * s.runner_up_value)} for" in league.conclusion


def test_a_league_over_counts_balances_line_ups_and_games():
    four = ["smart", "greedy", "threshold", "chart"]
    r = llama_sim.league("lama", four, players=[3, 4, 6], games=240, seed=3, quiet=True)
    assert list(r.strongest.players) == [3, 4, 6]
    for n, expected in ((3, 3), (4, 1), (6, 1)):  # C(3, 2) line-ups per strategy at 3 players; one otherwise
        rank = r.ranking[(r.ranking.players == n) & (r.ranking.metric == "win_rate")]
        assert set(rank.lineups) == {expected}
        games = r.results[(r.results.players == n) & (r.results.metric == "win_rate")].n
        assert games.nunique() == 1  # every strategy plays as many games
    assert r.lineups[r.lineups.players == 3].lineup.nunique() == 4
    # a league of no more strategies than seats is one compare on the line-up's seed
    c = llama_sim.compare("lama", four, players=4, games=240, seed=lineup_seed(3, 4, 0), quiet=True)
    for s in four:
        got = r.results[(r.results.players == 4) & (r.results.strategy == s) & (r.results.metric == "penalty_per_round")]
        ref = _pooled(c, s, "penalty_per_round")
        assert (got.value.iloc[0], got.ci_low.iloc[0], got.ci_high.iloc[0]) == pytest.approx(
            (ref.value, ref.ci_low, ref.ci_high), rel=1e-12)
    fig = r.plot()
    assert len(fig.axes) == 4 and "league of 4 strategies at 3, 4, 6 players" in fig.get_suptitle()


@pytest.mark.parametrize("kwargs,needle", [
    ({"strategies": ["smart"]}, "at least two strategies"),
    ({"strategies": ["smart", "smart"]}, "strategies: lists 'smart' twice"),
    ({"strategies": ["smart", "nosuch"]}, "unknown lama strategy"),
    ({"players": 7}, "2 to 6 players"),
    ({"games": 0}, "games: must be at least 1, not 0"),
    ({"games": 10, "rounds": 10}, "not both"),
])
def test_bad_league_arguments_raise_usage_errors(kwargs, needle):
    from llama_sim.core.errors import UsageError

    args = {"strategies": THREE, "players": 2, "games": 100, "quiet": True, **kwargs}
    with pytest.raises(UsageError, match=needle):
        llama_sim.league("lama", **args)


def test_league_api_matches_the_cli_json(capsys):
    import json

    from llama_sim.core.output import to_json
    from cli_helpers import call

    code, out, err = call(capsys, "compare", "-g", "lama", "--league", "smart", "greedy", "threshold", "-p", "3",
                          "--games", "300", "--seed", "4", "--format", "json", "--view", "all", "-q")
    assert code == 0, err
    doc = json.loads(out)
    r = llama_sim.league("lama", THREE, players=3, games=300, seed=4, quiet=True)
    for name in r.tables:
        assert json.loads(to_json(getattr(r, name))) == doc[name]
    code, out, err = call(capsys, "compare", "-g", "lama", "--league", "all", "-p", "2", "--games", "300", "-q")
    assert code == 0, err
    from llama_sim.core.registry import builtin_strategies

    assert out.startswith(f"L.A.M.A.: league of {len(builtin_strategies('lama'))} strategies at 2 players")
    assert "At 2 players " in out


@pytest.mark.parametrize("extra,needle", [
    (["--seat-table"], "not --seat-table"),
    (["--precision", "0.1"], "not --precision"),
    (["--view", "seats"], "--view seats needs --seat-table"),
    (["-p", "9"], "2 to 6 players"),
    (["smart"], "strategies: lists 'smart' twice"),
])
def test_bad_league_command_lines_exit_2(capsys, extra, needle):
    from cli_helpers import call

    code, out, err = call(capsys, "compare", "-g", "lama", "--league", "smart", "greedy", "--games", "100", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err


def test_a_league_plays_the_rule_variant_it_is_given(capsys):
    """--pink-llama plain reaches the league's games (it was once dropped silently): the line-up's
    numbers are those of compare under the same variant, and differ from the rulebook's."""
    kwargs = dict(players=2, games=400, seed=5, quiet=True)
    plain = llama_sim.league("party", ["chain", "greedy"], pink_llama="plain", **kwargs)
    rulebook = llama_sim.league("party", ["chain", "greedy"], **kwargs)
    ref = llama_sim.compare("party", ["chain", "greedy"], players=2, games=400, seed=lineup_seed(5, 2, 0), quiet=True,
                            pink_llama="plain")
    got = plain.lineups[(plain.lineups.strategy == "chain") & (plain.lineups.metric == "penalty_per_round")].iloc[0]
    assert got.value == _pooled(ref, "chain", "penalty_per_round").value
    other = rulebook.lineups[(rulebook.lineups.strategy == "chain") & (rulebook.lineups.metric == "penalty_per_round")]
    assert other.iloc[0].value != got.value
    from cli_helpers import call

    code, out, err = call(capsys, "compare", "-g", "party", "--league", "chain", "greedy", "-p", "2", "--games", "400",
                          "--seed", "5", "--pink-llama", "plain", "--format", "json", "--view", "lineups", "-q")
    assert code == 0, err
    import json

    row = [r for r in json.loads(out) if r["strategy"] == "chain" and r["metric"] == "penalty_per_round"][0]
    assert row["value"] == got.value
