"""What a rule is worth: the same comparison played under the rulebook and under rule variants.

A rule's worth is read two ways in the reports (``experiments/party-pink-and-plus.toml``,
``experiments/kadabra-magic-and-show.toml``):

- to the table (this module): switch the rule off (a rule variant, ``RuleSet.config`` options such
  as party ``pink_llama="plain"`` or kadabra ``magic_show="off"``) and play the same strategies on the
  same seed: how each strategy's penalty per round, went-out rate, rounds per game and win rate
  change, and whether the ranking of the strategies changes;
- to a player: a strategy that uses the rule against an otherwise identical one that does not,
  on the same deals (an ordinary ``compare`` step, paired).

``compare_variants`` runs ``api.compare`` once per (player count, variant), the baseline (the
rule-set options given, the rulebook by default) included, all with the same seed: a variant plays
the baseline's deal stream (the variants change card codes in place, not the deal), so the two runs
share their deals. The effect of a variant is its value minus the baseline's, with a 95% interval
from the two runs' own intervals as if they were independent (sqrt of the summed variances): the
shared deals correlate them positively, so that interval is conservative (wider than a paired one).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from llama_sim.analysis.compare import compare
from llama_sim.analysis.runs import game_options
from llama_sim.core.ruleset import get_game
from llama_sim.core.errors import UsageError
from llama_sim.core.words import est, listing, magnitude, metric_words

BASELINE = "rulebook"
Z95 = 1.959963984540054
EFFECT_METRICS = ("penalty_per_round", "went_out_rate", "rounds_per_game", "win_rate")


@dataclass
class VariantsResult:
    """``results``: every comparison's result rows with a ``variant`` column; ``effects``: per
    (players, variant, strategy, metric) the variant's value, the baseline's and the difference
    with its (conservative) 95% interval; ``ranking``: each comparison's ranking with ``variant``."""

    results: pd.DataFrame
    effects: pd.DataFrame
    ranking: pd.DataFrame
    variants: dict = field(default_factory=dict)  # name -> options
    run: dict = field(default_factory=dict)

    tables = ("results", "effects", "ranking")

    def plot(self):
        return plot_variants(self)


def _half_se(lo, hi):
    return (np.asarray(hi, float) - np.asarray(lo, float)) / (2 * Z95)


def effects_table(results: pd.DataFrame, baseline: str = BASELINE) -> pd.DataFrame:
    """Each variant's pooled per-strategy values against the baseline's (``results`` with ``variant``)."""
    pooled = results[results.seat.isna()] if results.seat.isna().any() else results
    pooled = pooled[pooled.metric.isin(EFFECT_METRICS)]
    key = ["players", "strategy", "metric"]
    base = pooled[pooled.variant == baseline].set_index(key)
    rows = []
    for row in pooled[pooled.variant != baseline].itertuples():
        b = base.loc[(row.players, row.strategy, row.metric)]
        diff = row.value - b.value
        se = float(np.hypot(_half_se(row.ci_low, row.ci_high), _half_se(b.ci_low, b.ci_high)))
        rows.append({"game": row.game, "players": row.players, "variant": row.variant, "strategy": row.strategy,
                     "metric": row.metric, "value": row.value, "ci_low": row.ci_low, "ci_high": row.ci_high,
                     "baseline": b.value, "baseline_ci_low": b.ci_low, "baseline_ci_high": b.ci_high,
                     "effect": diff, "effect_ci_low": diff - Z95 * se, "effect_ci_high": diff + Z95 * se,
                     "seed": row.seed})
    return pd.DataFrame(rows)


def compare_variants(game: str, strategies: Sequence[str], variants: dict, *, players=4,
                     rounds: Optional[int] = None, games: Optional[int] = None, seed: int = 1,
                     threads: Optional[int] = None, strategies_file=None, quiet: bool = False,
                     **options) -> VariantsResult:
    """Compare ``strategies`` under the baseline rules (``options``, the rulebook by default) and under
    each variant (``variants``: name -> rule options added to ``options``), at each player count of
    ``players`` (one count or a list), all on seed ``seed``."""
    spec = get_game(game)
    if not variants:
        raise UsageError("give at least one rule variant")
    if BASELINE in variants:
        raise UsageError(f"'{BASELINE}' names the baseline; give the variants other names")
    counts = [players] if isinstance(players, int) else list(players)
    every = {BASELINE: {}, **{name: dict(v) for name, v in variants.items()}}
    for name, extra in every.items():  # every option set must be valid before anything runs
        spec.config(**game_options(**{**options, **extra}))
    frames, rankings, info = [], [], {}
    for n in counts:
        for name, extra in every.items():
            r = compare(game, strategies, players=n, rounds=rounds, games=games, seed=seed, threads=threads,
                        strategies_file=strategies_file, quiet=quiet, **{**options, **extra})
            frames.append(r.results.assign(variant=name))
            rankings.append(r.ranking.assign(variant=name))
            info[name] = r.run.get("rules", {})
            luck = r.run.get("luck")
    results = pd.concat(frames, ignore_index=True)
    ranking = pd.concat(rankings, ignore_index=True)
    return VariantsResult(results, effects_table(results), ranking, every,
                          {"seed": seed, "rules": info, **({"luck": luck} if luck else {})})


def ranking_order(ranking: pd.DataFrame, players: int, variant: str, metric: str) -> list[str]:
    r = ranking[(ranking.players == players) & (ranking.variant == variant) & (ranking.metric == metric)]
    return list(r.sort_values("rank").strategy)


def ranking_groups(ranking: pd.DataFrame, players: int, variant: str, metric: str) -> list[list[str]]:
    """The ranking as groups the data cannot separate: a strategy joins the group before it when
    it is indistinguishable from one of its members (``compare``'s ranking table)."""
    r = ranking[(ranking.players == players) & (ranking.variant == variant) & (ranking.metric == metric)]
    groups: list[list[str]] = []
    for row in r.sort_values("rank").itertuples():
        alike = set(filter(None, str(row.indistinguishable_from or "").split(", ")))  # labels may hold ","
        if groups and alike & set(groups[-1]):
            groups[-1].append(row.strategy)
        else:
            groups.append([row.strategy])
    return groups


def _groups_text(groups: list[list[str]]) -> str:
    return " > ".join(" ~ ".join(g) for g in groups)


def _change(e: float, lo: float, hi: float, more: str, fewer: str) -> str:
    """"0.43 [0.38, 0.49] fewer", or "no clear change (+0.01 [-0.01, +0.04])"."""
    if lo > 0 or hi < 0:
        return f"{magnitude(e, lo, hi)} {more if e > 0 else fewer}"
    return f"no clear change ({est(e, lo, hi, sign=True)})"


def _headline(rank: pd.DataFrame) -> str:
    return "win_rate" if "win_rate" in set(rank.metric) else "penalty_per_round"


def conclude_variants(result: VariantsResult) -> str:
    """One sentence per variant: its effect on the penalty per round of the strategy that leads under
    the rulebook at each player count, on the length of a game, on that strategy's win rate where
    the change is clear, and at which counts the ranking changes (the ranking as groups the data
    cannot separate, as ``compare`` ranks them)."""
    e, rank = result.effects, result.ranking
    metric = _headline(rank)
    counts = sorted(set(e.players))
    leaders = {n: ranking_order(rank, n, BASELINE, metric)[0] for n in counts}
    one = len(set(leaders.values())) == 1  # the same leader at every count: named once
    who = (f"{leaders[counts[0]]}, the leader under the {BASELINE}," if one else
           f"the strategy that leads under the {BASELINE}")
    sentences = []
    for variant in [v for v in result.variants if v != BASELINE]:
        points, lengths, moved, wins = [], [], [], []
        for k, n in enumerate(counts):
            best = leaders[n]
            cell = e[(e.players == n) & (e.variant == variant) & (e.strategy == best)].set_index("metric")
            p = cell.loc["penalty_per_round"]
            at = f"at {n} players" if k == 0 else f"at {n}"
            points.append(f"{_change(p.effect, p.effect_ci_low, p.effect_ci_high, 'more', 'fewer')}"
                          f"{' points per round' if k == 0 else ''} {at}{'' if one else f' ({best})'}")
            if "rounds_per_game" in cell.index:
                g = cell.loc["rounds_per_game"]
                if g.effect_ci_low > 0 or g.effect_ci_high < 0:
                    unit = "" if lengths else "rounds "
                    lengths.append(_change(g.effect, g.effect_ci_low, g.effect_ci_high, f"{unit}longer",
                                           f"{unit}shorter") + f" {at}")
                else:
                    lengths.append(f"about as long {at} ({est(g.effect, g.effect_ci_low, g.effect_ci_high, sign=True)})")
            if "win_rate" in cell.index:
                w = cell.loc["win_rate"]
                if w.effect_ci_low > 0 or w.effect_ci_high < 0:
                    wins.append((w.effect > 0, magnitude(100 * w.effect, 100 * w.effect_ci_low, 100 * w.effect_ci_high)
                                 + " percentage points", n, best))  # in plain words
            old, new = ranking_groups(rank, n, BASELINE, metric), ranking_groups(rank, n, variant, metric)
            if [sorted(g) for g in old] != [sorted(g) for g in new]:
                moved.append(str(n))
        text = f"With {variant}, {who} takes {listing(points)}"
        if lengths:
            text += f"; games last {listing(lengths)}"
        if wins:
            same = len({up for up, *_ in wins}) == 1
            parts = [(f"{'rises' if up else 'falls'} by " if k == 0 or not same else "")
                     + f"{size} at {n}{' players' if k == 0 else ''}{'' if one else f' ({best})'}"
                     for k, (up, size, n, best) in enumerate(wins)]
            whose = "its" if one else "the leader's"
            text += f"; {whose} win rate {listing(parts)}"
        words = metric.replace("_", " ")
        text += (f"; the order by {words} changes at {listing(moved)} players" if moved else
                 f"; the order by {words} does not change") + "."
        sentences.append(text)
    return " ".join(sentences)


def ranking_table(result: VariantsResult) -> pd.DataFrame:
    """Per player count, the ranking under the rulebook and under each variant: ``a > b ~ c`` (``~``:
    the data do not separate them; ``>``: clearly ahead)."""
    rank = result.ranking
    metric = _headline(rank)
    rows = []
    for n in sorted(set(rank.players)):
        row = {"players": n}
        for variant in result.variants:
            row[variant] = _groups_text(ranking_groups(rank, n, variant, metric))
        rows.append(row)
    return pd.DataFrame(rows)


def display_variants(result: VariantsResult) -> pd.DataFrame:
    """Per player count, variant and strategy: each metric's effect (variant - rulebook)."""
    e = result.effects
    keys = ["players", "variant", "strategy"]
    table = e[e.metric == e.metric.iloc[0]][keys].reset_index(drop=True)
    for m in dict.fromkeys(e.metric):
        g = e[e.metric == m].set_index(keys).loc[list(table.itertuples(index=False, name=None))]
        table[f"{metric_words(m)}: effect"] = [est(*x, sign=True) for x in zip(g.effect, g.effect_ci_low,
                                                                               g.effect_ci_high)]
    return table


def plot_variants(result: VariantsResult):
    """A forest plot per metric: each variant's effect (variant - rulebook) on each strategy at each
    player count, with its 95% interval; 0 = no effect."""
    from llama_sim.analysis.plots import MAX_WIDTH, new_figure, metric_label

    e = result.effects
    metrics = [m for m in EFFECT_METRICS if m in set(e.metric)]
    labels = [f"{r.variant}, {r.players}p, {r.strategy}" for r in
              e[e.metric == metrics[0]].itertuples()]
    fig = new_figure(min(MAX_WIDTH, 3.5 + 4.2 * len(metrics)), 1.6 + 0.32 * len(labels))
    axes = fig.subplots(1, len(metrics), sharey=True, squeeze=False)[0]
    variants = list(dict.fromkeys(e.variant))
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    for ax, metric in zip(axes, metrics):
        d = e[e.metric == metric].reset_index(drop=True)
        y = np.arange(len(d))[::-1]
        for k, variant in enumerate(variants):
            m = (d.variant == variant).to_numpy()
            ax.errorbar(d.effect[m], y[m], xerr=[d.effect[m] - d.effect_ci_low[m], d.effect_ci_high[m] - d.effect[m]],
                        fmt="o", color=colors[k % len(colors)], capsize=3, label=variant)
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_xlabel(f"variant - {BASELINE}")
        ax.set_title(metric_label(metric).replace(" (", "\n(", 1))
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(np.arange(len(labels))[::-1])
    axes[0].set_yticklabels(labels)
    axes[0].legend(loc="best")
    game = e.game.iloc[0]
    fig.suptitle(f"{game}: effect of each rule variant against the {BASELINE} (95% intervals, conservative)")
    return fig
