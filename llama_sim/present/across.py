"""Summaries of one experiment step run once per value of a rule-set option (``option_grid``).

Every value plays its own deals (its own seed), so the estimates of different values are
independent: the difference of two values has the unpaired standard error
``sqrt(se_a**2 + se_b**2)``, where ``se`` is read off each value's 95% interval (half-width / z;
for a rate with a Wilson interval this is the normal approximation). ``spread`` names the lowest
and the highest value and gives their difference an interval that is simultaneous over all pairs
(Bonferroni: picking the two extremes out of L values is one of L(L-1)/2 comparisons), and
Cochran's Q tests whether all values could be equal.

Differences *within* one value (strategy against strategy, parameter value against the best)
stay paired: they come from the step's own paired tables.

``summarise(kind, results, tags)`` returns an ``AcrossSummary`` (tables, one sentence, a compact
display table, a plot) for compare, sweep (one parameter) and solve steps, else None.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pandas as pd

from llama_sim.core.words import decimals, est, listing, metric_words

@dataclass
class AcrossSummary:
    """A step's result across option values: ``tables`` (name -> tidy DataFrame), the ``sentence``
    that answers it, the ``display`` table of the report and ``plot()`` (a matplotlib Figure)."""

    tables: dict
    sentence: str
    display: pd.DataFrame
    figure: Callable

    def plot(self):
        return self.figure()


# ------------------------------------------------------------------------------------ statistics

def spread(labels, values, ci_low, ci_high, level: float = 0.95) -> dict:
    """Independent estimates with their ``level`` intervals: the lowest and highest, their
    difference ``high - low`` with an interval simultaneous over all L(L-1)/2 pairs (Bonferroni),
    and Cochran's Q test of 'all equal' (p-value of chi-square with L-1 degrees of freedom)."""
    from scipy import stats

    v = np.asarray(values, float)
    z = stats.norm.ppf(0.5 + level / 2)
    se = (np.asarray(ci_high, float) - np.asarray(ci_low, float)) / (2 * z)
    lo, hi = int(np.argmin(v)), int(np.argmax(v))
    pairs = len(v) * (len(v) - 1) // 2
    z_all = stats.norm.ppf(1 - (1 - level) / (2 * max(1, pairs)))
    diff = v[hi] - v[lo]
    half = z_all * math.hypot(se[hi], se[lo])
    if len(v) > 1 and (se > 0).all():
        w = 1 / se**2
        q = float(np.sum(w * (v - np.sum(w * v) / np.sum(w)) ** 2))
        p = float(stats.chi2.sf(q, len(v) - 1))
    else:
        q = p = float("nan")
    return {"lowest": labels[lo], "lowest_value": v[lo], "highest": labels[hi], "highest_value": v[hi],
            "diff": diff, "diff_ci_low": diff - half, "diff_ci_high": diff + half, "pairs": pairs, "q": q,
            "p_all_equal": p}


def _tag_label(tag: dict) -> str:
    return ", ".join(str(v) for v in tag.values())


def _option_words(tags: list[dict]) -> str:
    """``the 15 dice layouts``; two options: ``the 6 combinations of a x b``."""
    keys = list(tags[0])
    n = len({_tag_label(t) for t in tags})
    if len(keys) == 1:
        return f"the {n} {keys[0].replace('_', ' ')}s"
    return f"the {n} combinations of {' x '.join(k.replace('_', ' ') for k in keys)}"


def _spread_words(s: dict, what: str, digits: Optional[int] = None) -> str:
    """"the values cannot be told apart on <what> (4.81 to 4.83; largest difference 0.020 [-0.007, 0.046],
    simultaneous)", or how they differ when the largest difference is clear of 0."""
    d = decimals(s["diff_ci_low"], s["diff_ci_high"]) if digits is None else digits
    f = f"{{:.{min(4, d + 1)}f}}"  # the values themselves are narrower than their difference
    span = f"{f.format(s['lowest_value'])} to {f.format(s['highest_value'])}"
    diff = f"largest difference {est(s['diff'], s['diff_ci_low'], s['diff_ci_high'], digits=d)}, simultaneous"
    if s["diff_ci_low"] <= 0:
        return f"{what} ({span}; {diff})"
    return (f"{what}, from {f.format(s['lowest_value'])} ({s['lowest']}) to {f.format(s['highest_value'])} "
            f"({s['highest']}; {diff})")


# ------------------------------------------------------------------------------------ compare

GAME_FEATURES = ("rounds_per_game", "penalty_per_round", "went_out_rate")


def _compare(results: list, tags: list[dict]) -> Optional[AcrossSummary]:
    if len({int(r.results.players.iloc[0]) for r in results}) > 1:
        return None  # one player count per step: the values are then comparable
    rows, best_rows = [], []
    for r, tag in zip(results, tags):
        label = _tag_label(tag)
        pooled = r.results[r.results.seat.isna()]
        rows.append(pooled.assign(option=label)[["option", "players", "strategy", "metric", "value", "ci_low",
                                                 "ci_high", "n", "seed"]])
        metric = "win_rate" if "win_rate" in set(r.ranking.metric) else r.ranking.metric.iloc[0]
        rank = r.ranking[r.ranking.metric == metric].sort_values("rank")
        top, second = rank.strategy.iloc[0], rank.strategy.iloc[1]
        pair = r.paired[(r.paired.metric == metric) & (((r.paired.strategy_a == top) & (r.paired.strategy_b == second))
                                                       | ((r.paired.strategy_a == second) & (r.paired.strategy_b == top)))]
        p = pair.iloc[0]
        sign = 1 if p.strategy_a == top else -1
        lo, hi = sorted((sign * p.ci_low, sign * p.ci_high))
        best_rows.append({"option": label, "players": int(rank.players.iloc[0]), "metric": metric, "best": top,
                          "runner_up": second, "diff": sign * p["diff"], "diff_ci_low": lo, "diff_ci_high": hi,
                          "separable": bool(lo > 0 or hi < 0), "seed": int(r.results.seed.iloc[0])})
    values = pd.concat(rows, ignore_index=True)
    best = pd.DataFrame(best_rows)
    spreads = []
    for (strategy, metric), g in values.groupby(["strategy", "metric"], sort=False):
        spreads.append({"strategy": strategy, "metric": metric,
                        **spread(list(g.option), g.value, g.ci_low, g.ci_high)})
    spreads = pd.DataFrame(spreads)
    first = values.strategy.iloc[0]
    alike, apart = [], []
    named = False
    for metric in GAME_FEATURES:
        row = spreads[(spreads.metric == metric) & (spreads.strategy == first)]
        if len(row):
            who = "" if metric == "rounds_per_game" else ("its " if named else f"{first}'s ")
            named = named or bool(who)
            text = _spread_words(row.iloc[0], f"{who}{metric_words(metric)}")
            (alike if row.iloc[0]["diff_ci_low"] <= 0 else apart).append(text)
    counts = best.best.value_counts()
    headline = best.metric.iloc[0].replace("_", " ")
    n = len(best)
    where = f"Across {_option_words(tags)} ({best.players.iloc[0]} players, each on its own deals)"
    clear = int(best.separable.sum())
    if len(counts) == 1:
        sentence = (f"{where}, {counts.index[0]} has the {'highest' if best.metric.iloc[0] == 'win_rate' else 'best'} "
                    f"{headline} under every one, clearly ahead of the runner-up under {clear} of the {n} "
                    + (f"(its lead ranges from {100 * best['diff'].min():.1f} to {100 * best['diff'].max():.1f} "
                       f"percentage points)." if best.metric.iloc[0] == "win_rate" else
                       f"(its lead ranges from {best['diff'].min():.3f} to {best['diff'].max():.3f})."))
    else:
        sentence = (f"{where}, the best on {headline} is " + listing([f"{s} under {c}" for s, c in counts.items()])
                    + f" of the {n}; it is clearly ahead of the runner-up under {clear}.")
    noun = _option_words(tags).split(" ", 2)[2]  # dice layouts
    if alike:
        sentence += f" The {noun} cannot be told apart on {listing(alike, 'or')}."
    if apart:
        sentence += f" The {noun} differ on {listing(apart)}."
    display = pd.DataFrame({"option": best.option})
    for metric in GAME_FEATURES:
        g = values[(values.metric == metric) & (values.strategy == first)].set_index("option").loc[best.option]
        if len(g):
            name = metric_words(metric) if metric == "rounds_per_game" else f"{first}: {metric_words(metric)}"
            display[name] = [est(*x) for x in zip(g.value, g.ci_low, g.ci_high)]
    display[f"best on {headline}"] = best.best.to_numpy()
    display["lead over the runner-up"] = [
        f"{est(d, lo, hi, sign=True)} over {ru}" for d, lo, hi, ru in zip(best["diff"], best.diff_ci_low,
                                                                        best.diff_ci_high, best.runner_up)]
    return AcrossSummary({"across": values, "across_spread": spreads, "across_best": best}, sentence, display,
                         lambda: _plot_compare(values, best, first))


def _plot_compare(values: pd.DataFrame, best: pd.DataFrame, first: str):
    from matplotlib.lines import Line2D

    from llama_sim.analysis.plots import BLUE, GREY, MAX_WIDTH, ORANGE, UNITS, new_figure, metric_label

    metrics = [m for m in GAME_FEATURES if m in set(values.metric)]
    options = list(best.option)
    fig = new_figure(min(MAX_WIDTH, 3.6 * (len(metrics) + 1)), 2.8 + 0.34 * len(options))
    axes = fig.subplots(1, len(metrics) + 1, sharey=True, squeeze=False)[0]
    strategies = list(dict.fromkeys(values.strategy))
    colors = [BLUE, ORANGE, GREY, "#2ca02c", "#9467bd", "#8c564b"]
    for ax, metric in zip(axes, metrics):
        shown = [first] if metric == "rounds_per_game" else strategies
        for k, s in enumerate(shown):
            g = values[(values.metric == metric) & (values.strategy == s)].set_index("option").loc[options]
            y = np.arange(len(options))[::-1] + (0.15 * (k - (len(shown) - 1) / 2))
            ax.errorbar(g.value, y, xerr=[g.value - g.ci_low, g.ci_high - g.value], fmt="o", ms=4, capsize=2,
                        color=colors[k % len(colors)])
        ax.set_yticks(np.arange(len(options))[::-1], options)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel(metric_label(metric).replace(" (", "\n(", 1))
        ax.set_title(f"{metric}, 95% CI" + ("\n(whole line-up)" if metric == "rounds_per_game" else ""))
    ax = axes[-1]
    y = np.arange(len(options))[::-1]
    for k, s in enumerate(strategies):
        mine = (best.best == s).to_numpy()
        if mine.any():
            b = best[mine]
            ax.errorbar(b["diff"], y[mine], xerr=[b["diff"] - b.diff_ci_low, b.diff_ci_high - b["diff"]], fmt="s",
                        ms=4, capsize=2, color=colors[k % len(colors)])
    ax.axvline(0, color="black", lw=0.8)
    ax.grid(axis="x", alpha=0.3)
    metric = best.metric.iloc[0]
    ax.set_xlabel(f"best - runner-up\n({UNITS.get(metric, metric)})")
    ax.set_title(f"lead of the best on {metric}\n(paired 95% CI; colour: the best)")
    handles = [Line2D([], [], color=colors[k % len(colors)], marker="o", ls="none") for k in range(len(strategies))]
    fig.legend(handles, strategies, loc="outside lower center", ncols=min(4, len(strategies)))
    fig.suptitle(f"{len(options)} rule-set option values, {int(best.players.iloc[0])} players "
                 f"(independent runs, 95% intervals)")
    return fig


# ------------------------------------------------------------------------------------ sweep

def _sweep(results: list, tags: list[dict]) -> Optional[AcrossSummary]:
    if any(len(r.params) != 1 for r in results):
        return None
    param = results[0].params[0]
    frames, rows = [], []
    for r, tag in zip(results, tags):
        label = _tag_label(tag)
        s = r.summary.assign(option=label)
        frames.append(s[["option", *s.columns.drop("option")]])
        b = r.best
        near = sorted(s.param_value[s.near_best])
        rows.append({"option": label, "param": param, "best_value": b.param_value, "metric": r.headline,
                     "value": b.value, "ci_low": b.ci_low, "ci_high": b.ci_high,
                     "near_best": " ".join(f"{v:g}" for v in near), "seed": int(s.seed.iloc[0])})
    every = pd.concat(frames, ignore_index=True)
    best = pd.DataFrame(rows)
    good = every[every.best | every.near_best]
    cover = good.groupby("param_value").option.nunique()
    n = len(best)
    counts = best.best_value.value_counts().sort_index()
    if len(counts) == 1:
        best_words = f"{counts.index[0]:g} under all {n}"
    else:
        best_words = listing([f"{v:g} under {c}" for v, c in counts.items()]) + f" of the {n}"
    robust = cover[cover == n].index.tolist()
    if robust:
        robust_words = (f"{param} = {listing([f'{v:g}' for v in robust])} "
                        f"{'is' if len(robust) == 1 else 'are'} the best or tied with it under every one")
    else:
        top = cover.idxmax()
        robust_words = (f"no value is the best or tied with it under every one; {param} = {top:g} is under "
                        f"{cover.max()} of the {n}")
    # the cost of playing the most common best value where another value is best
    common = counts.idxmax()
    at_common = every[every.param_value == common].set_index("option").loc[best.option]
    worst = at_common.vs_best.abs().idxmax()
    w = at_common.loc[worst]
    s = spread(list(best.option), best.value, best.ci_low, best.ci_high)
    metric = results[0].headline
    words = metric.replace("_", " ")
    if counts[common] == n:
        cost = ""
    elif w.vs_best_ci_low <= 0 <= w.vs_best_ci_high:
        cost = (f" Where another value is best, {param} = {common:g} is never clearly worse (largest gap "
                f"{est(w.vs_best, w.vs_best_ci_low, w.vs_best_ci_high, sign=True)} {words}, {worst}).")
    else:
        cost = (f" Where another value is best, {param} = {common:g} is at worst "
                f"{est(w.vs_best, w.vs_best_ci_low, w.vs_best_ci_high, sign=True)} {words} from it ({worst}).")
    n_players = int(results[0].results.players.iloc[0])
    at_best = _spread_words(s, f"the {words} at the best value")
    noun = _option_words(tags).split(" ", 2)[2]
    at_best = (f"The {noun} cannot be told apart on {at_best}." if s["diff_ci_low"] <= 0 else
               f"The {noun} differ on {at_best}.")
    sentence = (f"Across {_option_words(tags)} ({n_players} players against {results[0].opponent}, each on its own "
                f"deals) the best {param} is {best_words}; {robust_words}.{cost} {at_best}")
    display = pd.DataFrame({"option": best.option, f"best {param}": best.best_value,
                            f"{words} at best": [est(*x) for x in zip(best.value, best.ci_low, best.ci_high)],
                            "tied with best": best.near_best.replace("", "-"),
                            f"{param} = {common:g} vs best": [
                                est(*x, sign=True) for x in zip(at_common.vs_best, at_common.vs_best_ci_low,
                                                                at_common.vs_best_ci_high)]})
    return AcrossSummary({"across": every, "across_best": best}, sentence, display,
                         lambda: _plot_sweep(every, best, param, metric, results[0].opponent))


def _plot_sweep(every: pd.DataFrame, best: pd.DataFrame, param: str, metric: str, opponent: str):
    """Heatmap: option values x parameter values, coloured by the paired difference to each
    option value's best parameter value; the best cell starred, cells not separable from it dotted."""
    from llama_sim.analysis.plots import FONT_PT, MAX_WIDTH, UNITS, new_figure

    options = list(best.option)
    xs = sorted(every.param_value.unique())
    grid = every.pivot(index="option", columns="param_value", values="vs_best").loc[options, xs]
    fig = new_figure(min(MAX_WIDTH, max(7.5, 3.6 + 0.8 * len(xs))), 2.4 + 0.4 * len(options))
    ax = fig.subplots()
    data = grid.to_numpy(float)
    # worse is negative for a win rate, positive for a penalty: colour by 'how much worse'
    worse = -data if metric == "win_rate" else data
    im = ax.imshow(worse, aspect="auto", cmap="viridis_r")
    for i, opt in enumerate(options):
        for j, x in enumerate(xs):
            row = every[(every.option == opt) & (every.param_value == x)].iloc[0]
            mark = "*" if row.best else ("~" if row.near_best else "")
            ax.text(j, i, f"{row.vs_best:+.3f}{mark}", ha="center", va="center", fontsize=FONT_PT,
                    color="white" if worse[i, j] > np.nanmax(worse) * 0.55 else "black")
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(options)), options)
    ax.set_xlabel(f"{param} (parameter value)")
    bar = fig.colorbar(im, ax=ax)
    bar.set_label(f"worse than the row's best\n({UNITS.get(metric, metric)})")
    ax.set_title(f"{metric} against {opponent}: paired difference to each row's best value\n"
                 f"(* best; ~ paired 95% CI covers 0; each row an independent run)")
    return fig


# ------------------------------------------------------------------------------------ solve

def _range(values: pd.Series) -> str:
    lo, hi = values.min(), values.max()
    return f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}"


def _solve(results: list, tags: list[dict]) -> AcrossSummary:
    rows = []
    full = all(r.dealt is not None for r in results)
    for r, tag in zip(results, tags):
        df = r.policy
        roll, quit_ = df[df.best == "roll"], df[df.best == "quit"]
        row = {"option": _tag_label(tag), "llama_row": df.llama_row.iloc[0],
               "rows": len(df), "rows_roll": len(roll)}
        if len(df) == 1:
            row.update(row_cards=df.row.iloc[0], quit_value=df.quit_value.iloc[0], roll_value=df.roll_value.iloc[0],
                       best=df.best.iloc[0])
        else:
            row.update(always_roll_from=quit_.quit_value.max() + 1 if len(quit_) else 0.0,
                       never_roll_up_to=roll.quit_value.min() - 1 if len(roll) else df.quit_value.max())
        if full:
            row["dealt_value"], row["dealt_quit_value"] = r.dealt
        rows.append(row)
    table = pd.DataFrame(rows)
    where = f"Across {_option_words(tags)} (exact values, no sampling error)"
    if "row_cards" in table:
        lo, hi = table.roll_value.idxmin(), table.roll_value.idxmax()
        sentence = (f"{where}, rolling on from row {table.row_cards.iloc[0]} (llama row {table.llama_row.iloc[0]}) is "
                    f"worth {table.roll_value[lo]:.4f} ({table.option[lo]}) to {table.roll_value[hi]:.4f} "
                    f"({table.option[hi]}) against {table.quit_value.iloc[0]:g} for quitting; the optimum rolls in "
                    f"{(table.best == 'roll').sum()} of {len(table)}.")
        display = table[["option", "quit_value", "roll_value", "best"]].round(4).rename(
            columns={"quit_value": "quit now", "roll_value": "roll on (expected)"})
    else:
        sentence = (f"{where}, the optimal solo policy (llama row {table.llama_row.iloc[0]}) rolls in "
                    f"{_range(table.rows_roll)} of the {table.rows.iloc[0]} rows; it always rolls from a row penalty "
                    f"of {_range(table.always_roll_from)} on and never at {_range(table.never_roll_up_to)} or less")
        if full:
            lo, hi = table.dealt_value.idxmin(), table.dealt_value.idxmax()
            sentence += (f"; alone from the deal, the optimal expected penalty of a dealt six-card row is "
                         f"{table.dealt_value[lo]:.4f} ({table.option[lo]}) to {table.dealt_value[hi]:.4f} "
                         f"({table.option[hi]}), a range of {table.dealt_value[hi] - table.dealt_value[lo]:.4f} "
                         f"points, against {table.dealt_quit_value.iloc[0]:.4f} for quitting at once")
        sentence += "."
        cols = ["option", "rows_roll", "always_roll_from", "never_roll_up_to"] + (["dealt_value"] if full else [])
        display = table[cols].round(4).rename(columns={
            "rows_roll": f"rows where rolling is best (of {table.rows.iloc[0]})", "always_roll_from": "always roll from",
            "never_roll_up_to": "never roll at or below", "dealt_value": "expected penalty of a dealt row, alone"})
    return AcrossSummary({"across": table}, sentence, display, lambda: _plot_solve(table, results[0].subject))


def _plot_solve(table: pd.DataFrame, subject: str):
    """Exact values per option value as dots on an axis zoomed to their range (the differences are
    small), each labelled with its value."""
    from llama_sim.analysis.plots import BLUE, new_figure

    fig = new_figure(11, 2.2 + 0.32 * len(table))
    options = list(table.option)
    y = np.arange(len(options))[::-1]
    panels = []
    if "dealt_value" in table:
        panels.append((table.dealt_value, "{:.4f}", "expected penalty of a dealt six-card row, alone\n(points; lower "
                       "is better; exact)", f"solo value of the deal (quitting at once: "
                                            f"{table.dealt_quit_value.iloc[0]:.4f})"))
    elif "roll_value" in table:
        panels.append((table.roll_value, "{:.4f}", "expected points of rolling on, less tokens returned (exact)",
                       f"row {table.row_cards.iloc[0]} (quitting: {table.quit_value.iloc[0]:g})"))
    if table.rows.iloc[0] > 1:
        panels.append((table.rows_roll, "{:d}", f"rows (of {table.rows.iloc[0]}) where rolling is optimal",
                       "how often the optimum rolls"))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (values, fmt, xlabel, title) in zip(axes, panels):
        ax.plot(values, y, "o", color=BLUE)
        for yi, v in zip(y, values):
            ax.annotate(fmt.format(v), (v, yi), xytext=(6, 0), textcoords="offset points", va="center")
        span = float(values.max() - values.min()) or 1.0
        ax.set_xlim(float(values.min()) - 0.1 * span, float(values.max()) + 0.35 * span)
        ax.set_yticks(y, options)
        ax.ticklabel_format(axis="x", useOffset=False)
        ax.locator_params(axis="x", nbins=5)
        ax.grid(alpha=0.3)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
    fig.suptitle(f"{subject} across {len(table)} rule-set option values, llama row "
                 f"{table.llama_row.iloc[0]} (exact values, no sampling error)")
    return fig


SUMMARIES = {"compare": _compare, "sweep": _sweep, "solve": _solve}


def summarise(kind: str, results: list, tags: list[dict]) -> Optional[AcrossSummary]:
    """The summary across option values of a step of ``kind`` (None: the kind has none; the report
    then shows each value's own table and plot)."""
    make = SUMMARIES.get(kind)
    summary = make(results, tags) if make else None
    if summary is not None:  # name the option column after the option
        name = "_".join(tags[0])
        summary.tables = {k: v.rename(columns={"option": name}) for k, v in summary.tables.items()}
        summary.display = summary.display.rename(columns={"option": name.replace("_", " ")})
    return summary
