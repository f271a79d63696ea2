"""Leagues: every strategy against every other, at each player count (``llama_sim.league``).

A ``compare`` seats at most one strategy per seat, so ``K`` strategies fit a table of ``N`` only
when ``K <= N``. A league at ``N`` players plays every line-up of ``N`` of the ``K`` strategies
(all ``C(K, N)`` combinations when ``K > N``; the single line-up of all ``K``, filled as ``compare``
fills it, when ``K <= N``). Each line-up is one ``compare`` run: the balanced seating design of
``designs.comparison_design`` (every strategy in every seat, common deals within the line-up).
So every strategy plays ``C(K-1, N-1)`` line-ups, every pair meets in ``C(K-2, N-2)`` of them,
and every strategy plays the same number of games (or rounds) in all.

Sizes and seeds. ``games`` (or ``rounds``) is the total of one player count, spread evenly:
each line-up plays ``ceil(games / line-ups)`` rounded up to whole deal blocks (at least 2 blocks,
so that it has a variance). Line-up ``i`` at ``N`` players is played with its own seed,
``lineup_seed(seed, N, i)`` (a SplitMix64 hash, like the strata of a compare), so line-ups are
independent runs; its numbers are exactly those of ``llama_sim.compare`` on that line-up with
that seed and that count (the ``lineups`` table lists both).

Statistics. A strategy's league value is the plain mean of its value in the ``L`` line-ups it
plays (each line-up weighs the same: the expected result against a uniformly drawn set of
``N - 1`` distinct opponents). Line-ups are independent, so the variance of the mean is
``sum_i se_i^2 / L^2``, ``se_i`` the delta-method standard error of the line-up's own value
(over its deal blocks). Interval: ``mean +- t se`` for points metrics; for rates the
design-effect Wilson interval that ``compare`` uses, with ``n_eff = p (1 - p) / se^2``; ``t`` is
the Student quantile on the Satterthwaite degrees of freedom of the sum of the line-ups' variances
(each on its own, ``stats.estimate``'s), and below 4 of them there is no interval (``t_over``).
The difference of two strategies (``paired``: ``diff = value_a - value_b``, so it agrees with the
ranking) combines its variance line-up by line-up: a line-up that holds both contributes the
variance of their *paired* difference on its common deals (seat and deal luck cancel), a
line-up that holds only one contributes that one's own variance, and independent line-ups add:
``var = (sum_shared se(a - b)^2 + sum_a_only se_a^2 + sum_b_only se_b^2) / L^2``. t
interval (as above); p-values Holm-adjusted over the pairs of one metric and player count; the ranking's
``indistinguishable_from`` lists the strategies whose adjusted p is at least 0.05. ``paired`` also
gives the head-to-head: the mean paired difference over the ``C(K-2, N-2)`` line-ups holding both
only (variance ``sum se^2 / m^2``), the edge under exactly the same opponents. ``strongest`` holds,
per player count, the best strategy on the headline metric (win rate with games), its edge over
the runner-up (the difference above, in the better direction) and the head-to-head.
"""
from __future__ import annotations

import itertools
import textwrap
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import pandas as pd

from llama_sim.core import registry, stats
from llama_sim.core.errors import UsageError
from llama_sim.core.intervals import MIN_BLOCKS, satterthwaite, t_p_value, t_value
from llama_sim.analysis.ratings import CHECK_COLUMNS, RATING_COLUMNS, groups_of, held_out_text, ratings_tables
from llama_sim.analysis.runs import (
    luck_line,
    Progress, check_run_options, game_options, load_strategies, note, play_mode, rules_line, values_at_counts,
)
from llama_sim.core.output import RESULT_COLUMNS, TERMINAL_WIDTH, ci_text
from llama_sim.core.words import est, est_points, metric_words, per_hundred
from llama_sim.core.ruleset import get_game
from llama_sim.run.backends import make_backend, run
from llama_sim.run.chunks import blocks_for, check_seed
from llama_sim.core.luck import resolve
from llama_sim.run.designs import comparison_design, deals, with_luck_of
from llama_sim.run.tables import better, compared_metrics

LEVEL = 0.95
LEAGUE_SALT = 0x1EA6_0000  # keeps line-up seeds apart from the stratum seeds of a compare
LINEUP_COLUMNS = ["game", "players", "lineup", "strategies", "lineup_seed", "plays", "deal_blocks", "deals",
                  "strategy", "metric", "value", "ci_low", "ci_high", "se", "n"]
PAIRED_COLUMNS = ["game", "players", "metric", "strategy_a", "strategy_b", "diff", "ci_low", "ci_high", "se",
                  "p_value", "p_holm", "better", "head_to_head", "h2h_ci_low", "h2h_ci_high", "lineups_both",
                  "deals_both", "seed"]
RANKING_COLUMNS = ["game", "players", "metric", "rank", "strategy", "value", "ci_low", "ci_high", "n", "lineups",
                   "indistinguishable_from", "seed"]
STRONGEST_COLUMNS = ["game", "players", "metric", "best", "value", "ci_low", "ci_high", "runner_up",
                     "runner_up_value", "edge", "edge_ci_low", "edge_ci_high", "head_to_head", "h2h_ci_low",
                     "h2h_ci_high", "lineups_both", "verdict", "sentence", "seed"]


def lineups(k: int, n: int) -> list[tuple[int, ...]]:
    """The line-ups of a league of ``k`` strategies at ``n`` seats: every ``n``-combination when
    ``k > n`` (lexicographic order), else the one line-up of all ``k``."""
    if k <= n:
        return [tuple(range(k))]
    return list(itertools.combinations(range(k), n))


def lineup_seed(seed: int, players: int, index: int) -> int:
    """The seed of line-up ``index`` at ``players`` players: independent streams per line-up."""
    from llama_sim.run.designs import stratum_seed

    return stratum_seed(seed, LEAGUE_SALT + 1000 * players + index)


def t_over(ses, dfs, blocks) -> tuple[float, float]:
    """(degrees of freedom, 95% quantile) of a sum of independent line-up estimates with standard errors
    ``ses`` on ``dfs`` (Satterthwaite) from ``blocks`` deal blocks each. As for one compare, no quantile
    (NaN) from fewer than ``MIN_BLOCKS`` blocks in all or fewer than ``MIN_BLOCKS - 1`` degrees of freedom."""
    df = satterthwaite(np.asarray(ses, float) ** 2, list(dfs))
    enough = sum(blocks) >= MIN_BLOCKS and df >= MIN_BLOCKS - 1
    return df, (t_value(LEVEL, df) if enough else math.nan)


def combine(values, ses, dfs, blocks, metric: str, n: int) -> tuple[float, float, float, float]:
    """Mean of independent estimates with its t interval: (value, ci_low, ci_high, se)."""
    values, ses = np.asarray(values, float), np.asarray(ses, float)
    value = float(values.mean())
    se = float(math.sqrt(np.sum(ses ** 2)) / len(values))
    _, z = t_over(ses, dfs, blocks)
    if math.isnan(value) or math.isnan(se) or math.isnan(z):
        return value, math.nan, math.nan, se
    if metric in stats.POINT_METRICS:
        return value, value - z * se, value + z * se, se
    n_eff = value * (1 - value) / se ** 2 if se > 0 and 0 < value < 1 else float(n)
    lo, hi = stats.wilson(value, n_eff, z)
    return value, lo, hi, se


def _better_is_higher(metric: str) -> bool:
    return metric not in stats.LOWER_IS_BETTER


def _words(metric: str) -> str:
    return metric.replace("_", " ")


# ------------------------------------------------------------------------------------ result

@dataclass
class LeagueResult:
    """``league``: per player count, ``results`` (each strategy's mean over its line-ups, the
    contract layout, seat empty), ``paired`` (every pair's difference of league values, paired in
    the line-ups that hold both, and its head-to-head over those line-ups only),
    ``ranking`` (best first per compared metric), ``strongest`` (the best strategy and its edge over
    the runner-up, with a sentence), ``lineups`` (every line-up's own values, seed and size) and, from
    full games, ``ratings`` (one rating per strategy and count, ``analysis.ratings``) with
    ``rating_check`` (each line-up's win rates predicted from the other line-ups' games)."""

    results: pd.DataFrame
    paired: pd.DataFrame
    ranking: pd.DataFrame
    strongest: pd.DataFrame
    lineups: pd.DataFrame
    headline: str  # the metric that picks the strongest strategy (win_rate with games)
    header: str
    run: dict = field(default_factory=dict)
    ratings: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=RATING_COLUMNS))
    rating_check: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CHECK_COLUMNS))

    tables = ("results", "paired", "ranking", "strongest", "lineups", "ratings")

    @property
    def sentences(self) -> list[str]:
        """One sentence per player count: the strongest strategy and its edge over the runner-up."""
        return list(self.strongest["sentence"])

    @property
    def conclusion(self) -> str:
        """The strongest strategy at each count with its edge over the runner-up, or that the data do
        not separate the two."""
        cells = []
        rate = self.headline == "win_rate"  # in plain words: games in every 100, edges in percentage points
        for k, r in enumerate(self.strongest.itertuples()):
            at = f"at {r.players} players" if k == 0 else f"at {r.players}"
            edge = est_points(self.headline, r.edge, r.edge_ci_low, r.edge_ci_high, sign=r.verdict != "better")
            if rate:
                base = (f"{per_hundred(r.value)} of every 100 games against {per_hundred(r.runner_up_value)} for "
                        f"{r.runner_up}")
                cells.append(f"{at} {r.best}, {base}: {edge} percentage points ahead" if r.verdict == "better" else
                             f"{at} {r.best} and {r.runner_up} cannot be told apart ({base}; {edge} percentage points)")
            elif r.verdict == "better":
                cells.append(f"{at} {r.best}, {edge} ahead of {r.runner_up}")
            else:
                cells.append(f"{at} {r.best} and {r.runner_up} cannot be told apart ({edge})")
        measure = ("win rate" if rate else
                   f"{metric_words(self.headline)} (lower is better)")
        return f"Strongest by {measure}: " + "; ".join(cells) + "."

    @property
    def text(self) -> str:
        """The readable league tables (what the CLI prints)."""
        lines = [self.header, "", "Strongest strategy per player count:"]
        lines += [textwrap.fill(s, TERMINAL_WIDTH, initial_indent="  ", subsequent_indent="    ",
                                break_on_hyphens=False) for s in self.sentences]
        for (n, metric), g in self.ranking.groupby(["players", "metric"], sort=False):
            order = "lower" if metric in stats.LOWER_IS_BETTER else "higher"
            lines += ["", f"{n} players, {metric} ({order} is better; mean over line-ups, 95% CI):"]
            cells = [[f"{r.rank:>2}", r.strategy, ci_text(r.value, r.ci_low, r.ci_high),
                      f"{r.lineups} line-up{'s' if r.lineups > 1 else ''}", r.indistinguishable_from]
                     for r in g.itertuples()]
            widths = [max(len(c[i]) for c in cells) for i in range(4)]
            for c in cells:
                row = "  " + "  ".join(x.rjust(w) if i == 2 else x.ljust(w) for i, (x, w) in enumerate(zip(c, widths)))
                close = f"  ~ {c[4]}" if c[4] else ""
                # the list of close strategies wraps under itself rather than past the terminal's width
                lines += textwrap.wrap(row + close, TERMINAL_WIDTH, subsequent_indent=" " * (len(row) + 4),
                                       break_on_hyphens=False) or [row]
        lines += ["", "~ : strategies the data cannot separate from it (difference of league values, Holm-adjusted",
                  "    p >= 0.05)"]
        return "\n".join(lines)

    def plot(self):
        from llama_sim.analysis.plots import plot_league_table

        return plot_league_table(self)


# ------------------------------------------------------------------------------------ run

def _lineup_rows(game, n, index, labels, seed_i, plays, work, tally, metrics_all) -> list[dict]:
    from llama_sim.run.designs import deals

    rows = []
    for u, label in enumerate(work.unit_labels):
        for m in metrics_all:
            e = stats.estimate(tally, m, u, LEVEL)
            rows.append({"game": game, "players": n, "lineup": index, "strategies": ", ".join(labels),
                         "lineup_seed": seed_i, "plays": plays, "deal_blocks": tally.blocks,
                         "deals": deals(work, tally), "strategy": label, "metric": m, "value": e.value,
                         "ci_low": e.ci_low, "ci_high": e.ci_high, "se": e.se, "n": e.n, "df": e.df})
    return rows


def _pair_diffs(work, tally, metrics) -> dict:
    """(metric, label_a, label_b) -> (diff a - b, se, df) on this line-up's common deals."""
    out = {}
    labels = work.unit_labels
    for m in metrics:
        for a, b in itertools.combinations(range(len(labels)), 2):
            w = np.zeros(len(labels))
            w[a], w[b] = 1.0, -1.0
            e = stats.contrast(tally, m, w, LEVEL)
            out[(m, labels[a], labels[b])] = (e.value, e.se, e.df)
    return out


def league(game: str, strategies: Union[str, Sequence[str]] = "all", *,
           players: Union[None, int, Sequence[int]] = None, rounds: Optional[int] = None,
               games: Optional[int] = None, seed: int = 1, metrics: Optional[Sequence[str]] = None,
               luck: Optional[bool] = None, backend: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None,
               threads: Optional[int] = None, strategies_file: Optional[Path] = None, quiet: bool = False, **rule_options) -> LeagueResult:
    """Every strategy against every other at each player count (default every count the rule set
    allows; ``strategies="all"``: the built-in ones): at ``N`` players every line-up of ``N`` of the
    strategies is a ``compare`` on its own seed, ``games`` (or ``rounds``) being the total per count.
    Each strategy's value is the mean over its line-ups (independent runs: variances add), the
    edge of one strategy over another the mean paired difference over the line-ups holding both;
    see ``llama_sim.league`` for the design and the statistics. ``llamasim compare --league``.
    Returns a ``LeagueResult`` (``results``, ``paired``, ``ranking``, ``strongest``, ``lineups``,
    with games ``ratings`` and ``rating_check`` (``analysis.ratings``), ``conclusion``, ``plot()``)."""
    spec = get_game(game)
    load_strategies(strategies_file)
    check_seed(seed)
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if strategies == ["all"]:
        strategies = registry.builtin_strategies(spec.name)
    if len(strategies) < 2:
        raise UsageError("a league needs at least two strategies")
    entries = [registry.parse_spec(spec.name, s) for s in strategies]
    labels = [p.label for p in entries]
    if len(set(labels)) != len(labels):
        twice = next(lab for lab in labels if labels.count(lab) > 1)
        raise UsageError(f"a league lists each strategy once; '{twice}' is given twice")
    if players is None:
        counts = list(range(spec.min_players, spec.max_players + 1))
    else:
        counts = [players] if isinstance(players, int) else list(players)
    for n in counts:
        if not spec.min_players <= n <= spec.max_players:
            raise UsageError(f"{spec.name} is played by {spec.min_players} to {spec.max_players} players, not {n}")
    games_mode, total = play_mode(rounds, games)
    if total <= 0:
        raise UsageError(f"the number of rounds or games must be positive, not {total}")
    compared = compared_metrics(games_mode, list(metrics) if metrics else None)
    check_run_options(None, None, threads, workers)
    cfg = spec.config(**game_options(**rule_options))
    luck = resolve(spec, luck)  # luck-adjusted penalties (``core.luck``)
    metrics_all = stats.REPORTED["game" if games_mode else "round"]
    what = "games" if games_mode else "rounds"
    k = len(entries)
    # every line-up's design, size and seed, before anything runs (a bad count fails at once)
    plan = []  # (players, index, combo, design, blocks, seed, raised to 2 blocks)
    for n in counts:
        combos = lineups(k, n)
        per_lineup = -(-total // len(combos))
        for i, combo in enumerate(combos):
            work = with_luck_of(comparison_design(spec, n, [entries[j] for j in combo], games_mode, cfg), luck)
            needed = blocks_for(work, per_lineup)
            plan.append((n, i, combo, work, max(2, needed), lineup_seed(seed, n, i), needed < 2))
    lineup_rows, diffs, infos, groups, lineup_names = [], {}, [], {}, {}
    with make_backend(backend, threads, scheduler, workers) as runner:
        for n in counts:
            mine = [p for p in plan if p[0] == n]
            plays = sum(blocks * work.rows for _, _, _, work, blocks, _, _ in mine)
            if any(p[6] for p in mine):
                note(quiet, f"{n} players: {total} {what} over {len(mine)} line-ups raised to {plays} "
                            "(an interval needs at least 2 deal blocks per line-up)")
            units = sum(blocks * len(work.tables) for _, _, _, work, blocks, _, _ in mine)
            progress = Progress(units, not quiet, f"{spec.name} {n}p league ({len(mine)} line-ups)")
            start = time.perf_counter()
            try:
                for _, i, combo, work, blocks, seed_i, _ in mine:
                    tally = run(work, seed_i, 0, blocks, progress=progress, backend=runner)
                    names = [labels[j] for j in combo]
                    lineup_rows += _lineup_rows(spec.name, n, i, names, seed_i, blocks * work.rows, work, tally,
                                                metrics_all)
                    for key, v in _pair_diffs(work, tally, compared).items():
                        diffs[(n, i) + key] = (*v, deals(work, tally), tally.blocks)
                    if games_mode:  # the ratings' games (``analysis.ratings``)
                        groups.setdefault(n, []).extend(groups_of(work, tally, list(combo), i))
                        lineup_names[(n, i)] = ", ".join(names)
            finally:
                progress.close()
            seconds = time.perf_counter() - start
            infos.append({"players": n, "lineups": len(mine), what: plays, "seconds": round(seconds, 3),
                          f"{what}_per_second": round(plays / seconds) if seconds > 0 else None})
        backend_text = runner.describe()
    per_lineup = pd.DataFrame(lineup_rows, columns=LINEUP_COLUMNS + ["df"])
    results, ranking, paired = [], [], []
    for n in counts:
        rows_n = per_lineup[per_lineup.players == n]
        value_of = {}
        for label in labels:
            for m in metrics_all:
                g = rows_n[(rows_n.strategy == label) & (rows_n.metric == m)]
                v, lo, hi, se = combine(g["value"], g["se"], g["df"], g["deal_blocks"], m, int(g["n"].sum()))
                value_of[(label, m)] = (v, lo, hi, int(g["n"].sum()), g["lineup"].nunique())
                results.append({"game": spec.name, "players": n, "strategy": label, "seat": pd.NA, "metric": m,
                                "value": v, "ci_low": lo, "ci_high": hi, "n": int(g["n"].sum()), "seed": seed})
        for m in compared:
            of_pair: dict[frozenset, dict] = {}  # {a, b} -> {line-up: (x, y, x - y, se, deals)}, at n players
            for (nn, i, mm, x, y), v in diffs.items():
                if nn == n and mm == m:
                    of_pair.setdefault(frozenset((x, y)), {})[i] = (x, y, *v)
            own = rows_n[rows_n.metric == m]
            se_of = {label: dict(zip(g["lineup"], zip(g["se"].to_numpy(float), g["df"].to_numpy(float), g["deal_blocks"])))
                     for label, g in own.groupby("strategy")}
            pair_rows = []
            for a, b in itertools.combinations(labels, 2):
                pair_rows.append({"game": spec.name, "players": n, "metric": m, "strategy_a": a, "strategy_b": b,
                                  **_pair(of_pair.get(frozenset((a, b)), {}), se_of.get(a, {}), se_of.get(b, {}), a, b,
                                          value_of[(a, m)][0] - value_of[(b, m)][0]),
                                  "seed": seed})
            holm = stats.holm([r["p_value"] for r in pair_rows])
            for r, p in zip(pair_rows, holm):
                r["p_holm"] = float(p)
                r["better"] = better(m, r["diff"], r["p_holm"], r["strategy_a"], r["strategy_b"])
            paired += pair_rows
            if m not in stats.LOWER_IS_BETTER | stats.HIGHER_IS_BETTER:
                continue
            higher = _better_is_higher(m)
            order = sorted(labels, key=lambda s: (-value_of[(s, m)][0] if higher else value_of[(s, m)][0],
                                                   labels.index(s)))
            for rank, s in enumerate(order, 1):
                v, lo, hi, nn, count = value_of[(s, m)]
                close = [o for o in order if o != s and any(
                    {r["strategy_a"], r["strategy_b"]} == {s, o} and not r["p_holm"] < 1 - LEVEL for r in pair_rows)]
                ranking.append({"game": spec.name, "players": n, "metric": m, "rank": rank, "strategy": s,
                                "value": v, "ci_low": lo, "ci_high": hi, "n": nn, "lineups": count,
                                "indistinguishable_from": ", ".join(close), "seed": seed})
    paired_df = pd.DataFrame(paired, columns=PAIRED_COLUMNS)
    ranking_df = pd.DataFrame(ranking, columns=RANKING_COLUMNS)
    headline = "win_rate" if "win_rate" in compared else compared[0]
    strongest_df = _strongest(spec.name, ranking_df, paired_df, headline, seed)
    results_df = pd.DataFrame(results, columns=RESULT_COLUMNS)
    results_df["seat"] = results_df["seat"].astype("Int64")
    plays = sum(i[what] for i in infos)
    seconds = sum(i["seconds"] for i in infos)
    summary = (f"{plays} {what} in {seconds:.1f} s on {backend_text}, seed {seed}; "
               + "; ".join(f"{i['players']} players: {i['lineups']} line-up{'s' if i['lineups'] > 1 else ''}"
                           for i in infos))
    header = (f"{spec.title}: league of {k} strategies at {', '.join(map(str, counts))} players, "
              f"{'full games to 40' if games_mode else 'single rounds'} (mean over line-ups, 95% CI)\n"
              f"strategies: {', '.join(labels)}; every line-up of N of them, each in compare's balanced seating "
              f"on common deals{values_at_counts(entries, counts)}{rules_line(spec, cfg)}\n{summary}"
              + (luck_line(plan[0][3]) if plan else ""))
    if (results_df.ci_low.isna() & results_df.value.notna()).any():
        header += (f"\n95% intervals: n/a where the line-ups' deal blocks give fewer than {MIN_BLOCKS - 1} degrees "
                   f"of freedom — use more --{what}")
    fitted = [ratings_tables(spec.name, n, labels, groups[n], {i: lineup_names[(n, i)] for nn, i in lineup_names
                                                               if nn == n}, seed) for n in groups]
    rating_df = pd.concat([f[0] for f in fitted], ignore_index=True) if fitted else pd.DataFrame(columns=RATING_COLUMNS)
    check_df = pd.concat([f[1] for f in fitted], ignore_index=True) if fitted else pd.DataFrame(columns=CHECK_COLUMNS)
    run_info = {"seed": seed, "backend": backend_text, "rules": spec.describe_config(cfg), "tables": infos,
                "held_out": held_out_text(check_df) if fitted else None, **({"luck": "on"} if luck else {})}
    return LeagueResult(results_df, paired_df, ranking_df, strongest_df, per_lineup[LINEUP_COLUMNS], headline, header,
                        run_info, rating_df, check_df)


def _pair(diffs: dict, se_a: dict, se_b: dict, a: str, b: str, diff: float) -> dict:
    """The difference of two league values, ``diff = value_a - value_b``, and the head-to-head.

    Both league values are means over ``L`` line-ups (the same ``L`` for every strategy). In a
    line-up holding both, ``a``'s and ``b``'s values share the deals, so that line-up adds the
    variance of their paired difference; a line-up holding one of them adds that one's own
    variance: ``var(diff) = (sum_shared se(a - b)^2 + sum_a_only se_a^2 + sum_b_only se_b^2) / L^2``.
    The head-to-head is the mean paired difference over the shared line-ups only. Quantiles and
    p-values are Student t on the Satterthwaite degrees of freedom of these sums (``t_over``)."""
    # ``diffs``: the pair's paired differences, by line-up, each in its line-up's own order: turned into a - b;
    # ``se_a``, ``se_b``: each one's (standard error, degrees of freedom, blocks) in each line-up that holds it
    shared = {i: (dv if (x, y) == (a, b) else -dv, se, df, dl, bl) for i, (x, y, dv, se, df, dl, bl) in diffs.items()}
    parts = [(v[1], v[2], v[4]) for v in shared.values()] + [
        sd for i, sd in list(se_a.items()) + list(se_b.items()) if i not in shared]
    n_lineups = len(se_a)
    se = math.sqrt(sum(p[0] ** 2 for p in parts)) / n_lineups
    df, z = t_over(*zip(*parts))
    h2h = float(np.mean([v[0] for v in shared.values()]))
    h2h_se = math.sqrt(sum(v[1] ** 2 for v in shared.values())) / len(shared)
    h2h_z = t_over(*zip(*[(v[1], v[2], v[4]) for v in shared.values()]))[1]
    return {"diff": diff, "ci_low": diff - z * se, "ci_high": diff + z * se, "se": se,
            "p_value": math.nan if math.isnan(z) else t_p_value(diff, se, df),
            "head_to_head": h2h, "h2h_ci_low": h2h - h2h_z * h2h_se, "h2h_ci_high": h2h + h2h_z * h2h_se,
            "lineups_both": len(shared), "deals_both": int(sum(v[3] for v in shared.values()))}


def _strongest(game: str, ranking: pd.DataFrame, paired: pd.DataFrame, metric: str, seed: int) -> pd.DataFrame:
    """Per player count: the best strategy on ``metric``, its edge over the runner-up in the better
    direction (win rate higher, penalty lower; the difference of their league values, see
    ``_pair``), the head-to-head edge where both play, and one sentence."""
    rows = []
    higher = _better_is_higher(metric)
    for n, rank in ranking[ranking.metric == metric].groupby("players", sort=False):
        rank = rank.sort_values("rank")
        best, second = rank.iloc[0], rank.iloc[1]
        p = paired[(paired.players == n) & (paired.metric == metric)
                   & (((paired.strategy_a == best.strategy) & (paired.strategy_b == second.strategy))
                      | ((paired.strategy_a == second.strategy) & (paired.strategy_b == best.strategy)))].iloc[0]
        sign = (1 if p.strategy_a == best.strategy else -1) * (1 if higher else -1)
        edge = sign * p["diff"]
        lo, hi = sorted((sign * p.ci_low, sign * p.ci_high))
        h2h = sign * p.head_to_head
        h_lo, h_hi = sorted((sign * p.h2h_ci_low, sign * p.h2h_ci_high))
        verdict = "better" if lo > 0 else "tie"  # edge >= 0: the best leads the league
        count = int(best.lineups)
        own = (f"{_words(metric)} {est(best.value, best.ci_low, best.ci_high)} over its "
               f"{count} line-up{'s' if count > 1 else ''}")
        both = int(p.lineups_both)
        head = ("" if both == count else
                f"; in the {both} line-up{'s' if both > 1 else ''} that seat both, {est(h2h, h_lo, h_hi, sign=True)}")
        if verdict == "better":
            text = (f"At {n} players {best.strategy} is the strongest ({own}), {est(edge, lo, hi)} ahead of "
                    f"{second.strategy}, the runner-up{head}.")
        else:
            text = (f"At {n} players {best.strategy} leads ({own}), but the data do not separate it from "
                    f"{second.strategy}, the runner-up: edge {est(edge, lo, hi, sign=True)}{head}.")
        rows.append({"game": game, "players": int(n), "metric": metric, "best": best.strategy, "value": best.value,
                     "ci_low": best.ci_low, "ci_high": best.ci_high, "runner_up": second.strategy,
                     "runner_up_value": second.value, "edge": edge, "edge_ci_low": lo, "edge_ci_high": hi,
                     "head_to_head": h2h, "h2h_ci_low": h_lo, "h2h_ci_high": h_hi, "lineups_both": both,
                     "verdict": verdict, "sentence": text, "seed": seed})
    return pd.DataFrame(rows, columns=STRONGEST_COLUMNS)
