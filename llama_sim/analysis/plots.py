"""Plots of the API's results (matplotlib, no screen needed): every estimate with its 95% interval.

Figures are built with ``matplotlib.figure.Figure`` directly (no pyplot, no global backend
switch), so they render with Agg to PNG or SVG and still display in a notebook. One function per
result object; ``result.plot()`` calls it.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from llama_sim.core.files import whole_file
from llama_sim.core.output import check_new_file

PLOT_SUFFIXES = (".png", ".svg")
UNITS = {
    "penalty_per_round": "penalty points per round",
    "win_rate": "share of games won",
    "went_out_rate": "share of rounds",
    "quit_rate": "share of rounds",
    "final_score": "penalty points per game",
    "rounds_per_game": "rounds per game",
}
LOWER_NOTE = {"penalty_per_round": "lower is better", "final_score": "lower is better",
              "win_rate": "higher is better"}
DPI = 100  # constrained layout fits every label, so no second "tight" drawing pass is needed
# Every text of a figure is at least this many points at the saved size (matplotlib's default size; its
# "small" is 8.3), and figures are at most MAX_WIDTH inches wide: a PNG reads at 100% zoom.
FONT_PT = 10
MAX_WIDTH = 15
BLUE, ORANGE, GREY = "#1f77b4", "#d95f02", "#777777"


def check_plot_path(path: Path, force: bool, option: str = "--plot") -> None:
    """Refuse before any work is done: a .png or .svg name, a folder that exists, no overwrite."""
    check_new_file(path, force, option, PLOT_SUFFIXES)


def save(fig, path: Path, force: bool = True) -> None:
    """PNG or SVG by the file name; no timestamps and fixed SVG element ids (a salt instead of random
    ones), so the same result gives the same file and a regenerated report changes only what changed.
    Written whole or not at all (``files.whole_file``): a failed write leaves an old file as it was;
    without ``force`` a file that appeared during the run is not overwritten."""
    import matplotlib

    path = Path(path)
    metadata = {"Date": None} if path.suffix.lower() == ".svg" else {"Software": None}
    with whole_file(path, force) as tmp, matplotlib.rc_context({"svg.hashsalt": "llama_sim"}):
        fig.savefig(tmp, dpi=DPI, metadata=metadata)


def new_figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def metric_label(metric: str) -> str:
    unit = UNITS.get(metric, "")
    note = LOWER_NOTE.get(metric)
    return f"{metric} ({unit}{'; ' + note if note else ''})" if unit else metric


def _title(text: str) -> str:
    return text.split("\nrules:")[0].split("\n")[0]


def _rules(header: str) -> str:
    for line in header.split("\n"):
        if line.startswith("rules: "):
            return "\n" + line
    return ""


def wrap_label(text: str, width: int = 30) -> str:
    """A long strategy spec (``keep_llama:quit_at=1,keep=1,...``) broken after commas, so tick
    labels never squeeze the axes away."""
    lines, line = [], ""
    for part in str(text).split(","):
        piece = part if not line else "," + part
        if line and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = part
        else:
            line += piece
    return "\n".join(lines + [line])


def _errorbar_h(ax, values, lows, highs, labels, color=BLUE):
    labels = [wrap_label(x) for x in labels]
    y = np.arange(len(values))[::-1]
    values, lows, highs = (np.asarray(x, dtype=float) for x in (values, lows, highs))
    ax.errorbar(values, y, xerr=[values - lows, highs - values], fmt="o", color=color, capsize=4)
    ax.set_yticks(y, labels)
    ax.grid(axis="x", alpha=0.3)
    return y


# ------------------------------------------------------------------------------------ compare

def plot_compare(result):
    """Per compared metric: each strategy's value with its interval (best first), and a forest plot
    of every pair's paired difference a - b with its interval (0 = no difference)."""
    metrics = list(dict.fromkeys(result.paired["metric"])) or ["penalty_per_round"]
    pairs_per_metric = len(result.paired) // max(1, len(metrics))
    lines = max([1] + [wrap_label(f"{a} - {b}" if len(a) + len(b) <= 40 else f"{a},\n- {b}").count("\n") + 1
                       for a, b in zip(result.paired.strategy_a, result.paired.strategy_b)])
    rows = max(3, len(result.ranking) // max(1, len(metrics)) + 1, 0.4 * lines * pairs_per_metric + 1)
    fig = new_figure(11, 1.2 + 0.45 * len(metrics) * rows)
    axes = fig.subplots(len(metrics), 2, squeeze=False)
    for (ax_v, ax_d), metric in zip(axes, metrics):
        rank = result.ranking[result.ranking.metric == metric]
        if rank.empty:
            rank = result.results[(result.results.metric == metric) & result.results.seat.isna()]
        _errorbar_h(ax_v, rank["value"], rank["ci_low"], rank["ci_high"], list(rank["strategy"]))
        ax_v.set_xlabel(metric_label(metric))
        ax_v.set_title(f"{metric} per strategy, 95% CI\n(best first)")
        pairs = result.paired[result.paired.metric == metric]
        labels = [f"{a} - {b}" if len(a) + len(b) <= 40 else f"{wrap_label(a)}\n- {wrap_label(b)}"
                  for a, b in zip(pairs.strategy_a, pairs.strategy_b)]
        colors = [ORANGE if b else GREY for b in pairs["better"]]
        y = np.arange(len(pairs))[::-1]
        for yi, (_, r), c in zip(y, pairs.iterrows(), colors):
            ax_d.errorbar([r["diff"]], [yi], xerr=[[r["diff"] - r.ci_low], [r.ci_high - r["diff"]]], fmt="s",
                          color=c, capsize=4)
        ax_d.set_yticks(y, labels)
        ax_d.axvline(0, color="black", lw=0.8)
        ax_d.grid(axis="x", alpha=0.3)
        ax_d.locator_params(axis="x", nbins=6)
        ax_d.set_xlabel(f"difference a - b ({UNITS.get(metric, metric)})")
        ax_d.set_title("paired differences a - b, 95% CI\n(orange: Holm-adjusted p < 0.05)")
    fig.suptitle("\n".join(textwrap.wrap(_title(result.header) + " (95% intervals over deal blocks)", 110))
                 + _rules(result.header))
    return fig


def plot_grade(result):
    """Points lost per decision by decision kind, one bar group per strategy, with 95% intervals."""
    t = result.table[result.table.metric == "points_lost_per_decision"]
    strategies = list(dict.fromkeys(t.strategy))
    kinds = sorted(k for k in set(t.decision) if k) + [""]
    fig = new_figure(min(14.0, max(7.0, 1.5 + 0.35 * len(kinds) * max(1, len(strategies)))), 6)
    ax = fig.subplots()
    if t["value"].max() > 20 * max(t["value"].median(), 0.05):  # a random or always-quitting strategy
        ax.set_yscale("symlog", linthresh=0.5, linscale=0.5)  # would flatten every other bar
    width = 0.8 / max(1, len(strategies))
    colors = [BLUE, ORANGE, "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", GREY, "#a6761d", "#17becf"]
    for i, strategy in enumerate(strategies):
        part = t[t.strategy == strategy].set_index("decision").reindex(kinds)
        x = np.arange(len(kinds)) + (i - (len(strategies) - 1) / 2) * width
        ax.bar(x, part["value"], width, color=colors[i % len(colors)], label=strategy,
               yerr=[part["value"] - part["ci_low"], part["ci_high"] - part["value"]], capsize=3)
    ax.set_xticks(np.arange(len(kinds)), [k or "all decisions" for k in kinds],
                  **({"rotation": 30, "ha": "right"} if len(kinds) > 5 else {}))
    low, high = t["ci_low"].fillna(t["value"]).min(), t["ci_high"].fillna(t["value"]).max()
    ax.set_ylim(min(0.0, float(low)) * 1.1, max(float(high) * 1.2, 0.01))
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("points lost per decision (vs roll-outs' best)"
                  + ("\n(linear below 0.5, logarithmic above)" if ax.get_yscale() == "symlog" else ""))
    ax.set_xlabel("decision kind (the kinds of its legal actions)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(title="strategy", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("\n".join(textwrap.wrap(_title(result.header) + " (95% intervals over rounds)", 100)))
    return fig


def plot_league(results):
    """Several comparisons of the same strategies at different player counts: each strategy's value
    with its interval over the player count, one panel per compared metric."""
    ranking = pd.concat([r.ranking for r in results], ignore_index=True)
    metrics = list(dict.fromkeys(ranking["metric"]))
    fig = new_figure(min(MAX_WIDTH, 5.5 * len(metrics)), 4.5)
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    strategies = list(dict.fromkeys(results[0].results["strategy"]))
    for ax, metric in zip(axes, metrics):
        g = ranking[ranking.metric == metric]
        for i, strategy in enumerate(strategies):
            gs = g[g.strategy == strategy].sort_values("players")
            x = gs["players"].to_numpy(float) + (i - (len(strategies) - 1) / 2) * 0.05
            v = gs["value"].to_numpy(float)
            ax.errorbar(x, v, yerr=[v - gs.ci_low.to_numpy(float), gs.ci_high.to_numpy(float) - v], fmt="o-",
                        capsize=3, label=strategy)
        ax.set_xticks(sorted(g["players"].unique()))
        ax.set_xlabel("players at the table")
        ax.set_ylabel(metric_label(metric).replace(" (", "\n(", 1))
        ax.set_title(f"{metric} by player count, 95% CI")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"{_title(results[0].header).split(',')[0]}: {' vs '.join(strategies)} at "
                 f"{', '.join(str(int(n)) for n in sorted(ranking.players.unique()))} players"
                 + _rules(results[0].header))
    return fig


LEAGUE_LEADERS = 4  # strategies per count shown in the zoomed lower row of a league plot
FAR_BEHIND = 2.5  # an also-ran's gap to the best is this many times the median gap at every count


def also_rans(g: pd.DataFrame, higher_better: bool) -> list[str]:
    """The strategies of one metric's ranking (``players``, ``strategy``, ``value``) far behind at every
    count: each gap to the best more than ``FAR_BEHIND`` times the median gap there. Drawn with the
    others they would squash the leaders into a line."""
    far = None
    for _, gn in g.groupby("players"):
        best = gn.value.max() if higher_better else gn.value.min()
        gaps = (gn.value - best).abs()
        here = set(gn.strategy[gaps > FAR_BEHIND * max(float(gaps.median()), 1e-12)])
        far = here if far is None else far & here
    return sorted(far or [])


def plot_league_table(result):
    """A league (``llama_sim.league``), one column per compared metric. Top: each strategy's league
    value by player count with its 95% interval, on a scale the leaders can be told apart on: the
    also-rans (``also_rans``) are named in a note with their range instead of drawn.
    Bottom, zoomed on the leaders: at each count the best strategy (at 0) and the next three, each
    as its difference to the best with the difference's 95% interval (paired where they share a
    line-up), so that gaps of a hundredth are readable."""
    import matplotlib

    ranking, paired = result.ranking, result.paired
    metrics = list(dict.fromkeys(ranking["metric"]))
    strategies = list(dict.fromkeys(result.results["strategy"]))
    counts = sorted(ranking["players"].unique())
    fig = new_figure(min(MAX_WIDTH, max(11, 5.5 * len(metrics))), 10)
    axes = fig.subplots(2, len(metrics), squeeze=False)
    colors = matplotlib.colormaps["tab10"]
    style = {s: (colors(j % 10), "osD^v<>ph*"[j % 10]) for j, s in enumerate(strategies)}
    spread = lambda j: (j - (len(strategies) - 1) / 2) * 0.04  # noqa: E731  (keeps error bars apart)
    for (ax, ax_d), metric in zip(axes.T, metrics):
        g = ranking[ranking.metric == metric]
        behind = also_rans(g, metric != "penalty_per_round" and metric != "final_score")
        fmt = lambda v: f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"  # noqa: E731
        note = "; ".join(f"{s} {fmt(g[g.strategy == s].value.min())} to {fmt(g[g.strategy == s].value.max())}"
                         for s in behind)
        for j, strategy in enumerate(strategies):
            if strategy in behind:
                continue
            gs = g[g.strategy == strategy].sort_values("players")
            v = gs["value"].to_numpy(float)
            yerr = np.maximum(0, [v - gs.ci_low.to_numpy(float), gs.ci_high.to_numpy(float) - v])  # rounding at 0
            color, marker = style[strategy]
            ax.errorbar(gs["players"].to_numpy(float) + spread(j), v, yerr=yerr, fmt=marker + "-", ms=5,
                        capsize=3, color=color, label=strategy)
        ax.set_ylabel(metric_label(metric).replace(" (", "\n(", 1))
        ax.set_title(f"{metric}: mean over each strategy's line-ups, 95% CI")
        ax.legend(ncols=2)
        shown = set()
        for n in counts:
            gn = g[(g.players == n) & (g["rank"] <= LEAGUE_LEADERS)].sort_values("rank")
            best = gn.strategy.iloc[0]
            for r in gn.itertuples():
                j = strategies.index(r.strategy)
                color, marker = style[r.strategy]
                label = r.strategy if r.strategy not in shown else None
                shown.add(r.strategy)
                if r.strategy == best:
                    ax_d.plot([n + spread(j)], [0.0], marker=marker, color=color, ms=8, ls="none", label=label)
                    continue
                pr = paired[(paired.players == n) & (paired.metric == metric)
                            & (((paired.strategy_a == r.strategy) & (paired.strategy_b == best))
                               | ((paired.strategy_a == best) & (paired.strategy_b == r.strategy)))].iloc[0]
                sign = 1 if pr.strategy_a == r.strategy else -1
                d, lo, hi = sign * pr["diff"], *sorted((sign * pr.ci_low, sign * pr.ci_high))
                ax_d.errorbar([n + spread(j)], [d], yerr=[[max(0, d - lo)], [max(0, hi - d)]], fmt=marker,
                              color=color, ms=5, capsize=3, label=label)
        ax_d.axhline(0, color="black", lw=0.8)
        ax_d.set_ylabel(f"difference to the best\n({UNITS.get(metric, metric)})")
        ax_d.set_title(f"{metric} minus the best's at each count\n"
                       f"({min(LEAGUE_LEADERS, len(strategies))} leaders; the best at 0), 95% CI")
        ax_d.legend(ncols=2)
        for a in (ax, ax_d):
            a.set_xticks(counts)
            a.set_xlabel("players at the table")
            a.grid(alpha=0.3)
        if note:
            ax.set_xlabel("players at the table\n" + textwrap.fill(f"not drawn, far behind: {note}", 50))
    rules = textwrap.fill(_rules(result.header).strip(), 140)  # Kadabra's symbol table is a long line
    fig.suptitle(_title(result.header) + ("\n" + rules if rules else ""))
    return fig


# ------------------------------------------------------------------------------------ seat table

def plot_seat_table(result):
    """Per strategy and metric: left, each seat's value (seat 0 starts the first round), one line per
    player count; right, each seat's difference from the mean of its table's seats with its paired
    interval (the seat advantage). Every point with its 95% interval."""
    import matplotlib

    seats = result.seats
    groups = list(seats.groupby(["strategy", "metric"], sort=False))
    fig = new_figure(12, 3.8 * len(groups))
    axes = fig.subplots(len(groups), 2, squeeze=False)
    counts = sorted(seats["players"].unique())
    cmap = matplotlib.colormaps["viridis"]
    for (ax, ax_d), ((strategy, metric), g) in zip(axes, groups):
        for i, n in enumerate(counts):
            gn = g[g.players == n].sort_values("seat")
            if gn.empty:
                continue
            color = cmap(i / max(1, len(counts) - 1) * 0.9)
            x = gn["seat"].to_numpy() + (i - (len(counts) - 1) / 2) * 0.06
            for a, col, low, high in ((ax, "value", "ci_low", "ci_high"),
                                      (ax_d, "vs_mean", "vs_mean_ci_low", "vs_mean_ci_high")):
                v = gn[col].to_numpy(dtype=float)
                a.errorbar(x, v, yerr=[v - gn[low].to_numpy(float), gn[high].to_numpy(float) - v], fmt="o-",
                           color=color, capsize=3, label=f"{n} players")
        unit = UNITS.get(metric, metric)
        for a in (ax, ax_d):
            a.set_xticks(range(int(seats["seat"].max()) + 1))
            a.set_xlabel("seat (0 starts the first round)")
            a.grid(alpha=0.3)
        ax_d.axhline(0, color="black", lw=0.8)
        ax.set_ylabel(f"{metric}\n({unit})")
        ax_d.set_ylabel(f"seat minus mean of seats\n({unit})")
        ax.set_title(f"every seat plays {strategy}: {metric} by seat, 95% CI")
        ax_d.set_title("seat advantage: difference from the table mean,\npaired 95% CI")
        ax_d.legend(ncols=min(3, len(counts)), loc="best")
    fig.suptitle(_title(result.header) + _rules(result.header))
    return fig


# ------------------------------------------------------------------------------------ sweep

def plot_sweep(result):
    """1-D: the headline metric over the parameter with its interval band, and the paired
    difference to the first opponent; 2-D: a heatmap of the headline metric, each cell annotated
    with its value and the half-width of its interval, the best cell outlined."""
    s = result.summary
    metric = result.headline
    if len(result.params) == 2:
        return _sweep_heatmap(result)
    fig = new_figure(9, 7)
    ax, ax_d = fig.subplots(2, 1, sharex=True)
    x = s["param_value"].to_numpy(float)
    ax.fill_between(x, s.ci_low, s.ci_high, color=BLUE, alpha=0.2, label="95% CI")
    ax.errorbar(x, s["value"], yerr=[s["value"] - s.ci_low, s.ci_high - s["value"]], fmt="o-", color=BLUE,
                capsize=3, label=metric)
    best = result.best
    ax.plot([best.param_value], [best.value], marker="*", ms=16, color=ORANGE, ls="none",
            label=f"best: {result.params[0]} = {best.param_value:g}")
    ax.set_ylabel(metric_label(metric).replace(" (", "\n(", 1))
    ax.set_title(f"{metric} of the swept strategy")
    ax.legend()
    ax.grid(alpha=0.3)
    ax_d.fill_between(x, s.diff_ci_low, s.diff_ci_high, color=ORANGE, alpha=0.2, label="95% paired CI")
    ax_d.plot(x, s["diff"], "o-", color=ORANGE, label=f"swept - {result.opponent}")
    ax_d.axhline(0, color="black", lw=0.8)
    ax_d.set_xlabel(f"{result.params[0]} (parameter value)")
    ax_d.set_ylabel(f"difference\n({UNITS.get(metric, metric)})")
    ax_d.set_title(f"paired difference to {result.opponent} on the same deals")
    ax_d.legend()
    ax_d.grid(alpha=0.3)
    fig.suptitle(_title(result.header) + " (95% intervals)" + _rules(result.header))
    return fig


def _sweep_heatmap(result):
    s = result.summary
    metric = result.headline
    xs = sorted(s["param2_value"].unique())
    ys = sorted(s["param_value"].unique())
    grid = np.full((len(ys), len(xs)), np.nan)
    half = np.full_like(grid, np.nan)
    for r in s.itertuples():
        i, j = ys.index(r.param_value), xs.index(r.param2_value)
        grid[i, j] = r.value
        half[i, j] = (r.ci_high - r.ci_low) / 2
    fig = new_figure(min(MAX_WIDTH, max(6, 0.9 * len(xs) + 3.5)), max(4, 0.6 * len(ys) + 2))
    ax = fig.subplots()
    cmap = "viridis" if metric == "win_rate" else "viridis_r"  # bright = better either way
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap)
    fig.colorbar(im, ax=ax, label=metric_label(metric))
    ax.set_xticks(range(len(xs)), [f"{v:g}" for v in xs])
    ax.set_yticks(range(len(ys)), [f"{v:g}" for v in ys])
    ax.set_xlabel(f"{result.params[1]} (parameter value)")
    ax.set_ylabel(f"{result.params[0]} (parameter value)")
    if grid.size <= 120 and len(xs) <= (MAX_WIDTH - 3.5) / 0.9:  # a 10-point value and half-width per cell
        for i in range(len(ys)):
            for j in range(len(xs)):
                red, green, blue, _ = im.cmap(im.norm(grid[i, j]))
                ink = "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"
                ax.text(j, i, f"{grid[i, j]:.3f}\n±{half[i, j]:.3f}", ha="center", va="center", fontsize=FONT_PT,
                        color=ink)
    best = result.best
    bi, bj = ys.index(best.param_value), xs.index(best.param2_value)
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((bj - 0.5, bi - 0.5), 1, 1, fill=False, ec=ORANGE, lw=2.5))
    ax.set_title(f"{metric} (cell: value ± 95% half-width; outlined: best)")
    fig.suptitle(_title(result.header) + _rules(result.header))
    return fig


# ------------------------------------------------------------------------------------ solve

def plot_solve(result):
    """An exact solver's policy (the dice solo phase): for every row, the expected rest of the round (points added less tokens
    returned) of quitting now against the advantage of rolling on (roll - quit; below 0: roll). Exact
    values, so no intervals."""
    df = result.policy
    fig = new_figure(9, 5.5)
    ax = fig.subplots()
    if len(df) == 1:
        r = df.iloc[0]
        ax.bar(["quit now", "roll on (then optimal)"], [r.quit_value, r.roll_value], color=[GREY, BLUE])
        for x, v in enumerate([r.quit_value, r.roll_value]):
            ax.text(x, v, f"{v:.4f}", ha="center", va="bottom")
        ax.set_ylabel("expected points added less tokens returned (lower is better)")
        ax.set_title(f"row {r.row}: optimal choice {r.best} (exact values, no sampling error)")
    else:
        gain = (df["roll_value"] - df["quit_value"]).to_numpy(float)
        quit_value = df["quit_value"].to_numpy(float)
        roll = (df["best"] == "roll").to_numpy()
        ax.scatter(quit_value[~roll], gain[~roll], s=10, color=GREY, label=f"quit ({(~roll).sum()} rows)")
        ax.scatter(quit_value[roll], gain[roll], s=10, color=BLUE, label=f"roll ({roll.sum()} rows)")
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel("penalty of quitting now (points of the row)")
        ax.set_ylabel("roll value - quit value (points; below 0: rolling is better)")
        ax.set_title(f"optimal policy over {len(df)} rows (exact values, no sampling error)")
        ax.legend()
    ax.grid(alpha=0.3)
    fig.suptitle(result.title)
    return fig


# ------------------------------------------------------------------------------------ simulate

def plot_simulate(result):
    """Each seat's value with its interval, one panel per metric."""
    df = result.results
    metrics = list(dict.fromkeys(df["metric"]))
    columns = min(3, len(metrics))  # full games have six metrics: two rows of three, not one 24-inch row
    rows = -(-len(metrics) // columns)
    fig = new_figure(4.6 * columns, rows * (2.8 + 0.3 * df["seat"].nunique()))
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    for ax, metric in zip(axes, metrics):
        g = df[df.metric == metric]
        _errorbar_h(ax, g["value"], g["ci_low"], g["ci_high"],
                    [f"seat {int(s)}: {st}" for s, st in zip(g["seat"], g["strategy"])])
        ax.set_xlabel(metric_label(metric))
        ax.set_title(f"{metric}, 95% CI")
    fig.suptitle(_title(result.header) + _rules(result.header))
    return fig


def plot_luck_gain(result):
    """Each pair's paired difference with its interval, luck off and on, one row per player count."""
    g = result.gains
    fig = new_figure(7.5, 1.6 + 0.9 * len(g))
    ax = fig.subplots()
    labels = [f"{r.players}p {r.strategy_a} - {r.strategy_b}" for r in g.itertuples()]
    y = np.arange(len(g))
    for shift, (prefix, name, color) in zip((0.15, -0.15), (("plain", "luck off", GREY), ("adjusted", "luck on", BLUE))):
        values, lows, highs = g[prefix], g[f"{prefix}_ci_low"], g[f"{prefix}_ci_high"]
        ax.errorbar(values, y + shift, xerr=[values - lows, highs - values], fmt="o", color=color, capsize=3,
                    label=name)
    ax.set_yticks(y, [wrap_label(t) for t in labels])
    ax.invert_yaxis()
    ax.set_xlabel("paired difference of penalty per round, 95% CI")
    ax.legend(loc="best")
    fig.suptitle(result.header.split(":")[0] + ": the same deals with luck adjustment off and on")
    return fig


def figure_png(fig) -> bytes:
    """The figure as PNG bytes (for embedding)."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()

