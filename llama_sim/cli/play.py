"""Commands that play line-ups: simulate, compare (seat tables and leagues too), bench, sweep.

The API (and with it pandas and Numba) is imported by each command when it runs, not with this module.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from llama_sim.cli.app import (
    TERMINAL_WIDTH, FormatOpt, ForceOpt, OutOpt, PlotOpt,
    aligned, app, check_plot, ci_cell, declared, out_paths, compile_notice, num, pval, rule_set_options, save_plot, setup,
)
from llama_sim.core.commands import COMMANDS
from llama_sim.core.errors import UsageError
from llama_sim.core.output import check_format, emit
from llama_sim.core.ruleset import all_games, get_game

if TYPE_CHECKING:
    import pandas as pd


@app.command()
@rule_set_options
@declared("simulate")
def simulate(fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, **params):
    """Play a fixed line-up (seat 0 starts) and report each seat's results."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), params.get("quiet", False), fmt, out, force)
    r = api.simulate(**params)
    emit(r.results, fmt, out, preamble=r.header, force=force)



# ------------------------------------------------------------------------------------ compare

COMPARE_VIEWS = ("results", "paired", "ranking", "seats", "strongest", "lineups", "ratings", "all")
LEAGUE_TABLES = ("results", "paired", "ranking", "strongest", "lineups", "ratings")


def _compare_views(view: Optional[str], fmt: str, seat_table: bool, league: bool = False) -> tuple[str, ...]:
    """Which tables a compare run prints: ``all`` by default for the readable table, else
    ``results`` (the contract's table); csv holds one table only."""
    names = LEAGUE_TABLES if league else ("results", "seats") if seat_table else ("results", "paired", "ranking")
    if view is None:
        if fmt != "table":
            view = "results"
        else:  # the seat table already shows every seat's value
            view = "seats" if seat_table else "all"
    if view not in COMPARE_VIEWS:
        raise UsageError(f"unknown --view '{view}' (use {', '.join(names + ('all',))})")
    if view == "all":
        if fmt == "csv":
            raise UsageError(f"--format csv prints one table: choose --view {'|'.join(names)} "
                             "(--format json holds them all)")
        return names
    if view not in names:
        needs = "--league" if view in ("strongest", "lineups", "ratings") else f"{'no ' if seat_table else ''}--seat-table"
        raise UsageError(f"--view {view} needs {needs} (this run has: {', '.join(names)})")
    return (view,)


def _readable_paired(df: pd.DataFrame) -> str:
    """One verdict per pair, from the paired interval and its Holm-adjusted p. The interval the same data
    would give were the two estimates independent (unpaired_ci_*) stays out of the terminal view: it
    is wider, can cover 0 where the paired one does not, and so reads like a second, contradicting
    verdict (--format csv|json keep it)."""
    league = "head_to_head" in df.columns  # a league: the head-to-head where both play as well
    head = ["metric", "a", "b", "a - b [95% paired CI]", "p (Holm)", "verdict"]
    rows = [(["players"] if league else []) + head + (["head-to-head where both play"] if league else [])]
    for r in df.itertuples():
        verdict = f"{r.better} better" if r.better else ("different" if r.p_holm < 0.05 else "cannot separate")
        extra = ([ci_cell(r.head_to_head, r.h2h_ci_low, r.h2h_ci_high, sign=True)] if league else [])
        rows.append(([str(r.players)] if league else []) + [
            r.metric, r.strategy_a, r.strategy_b,
            ci_cell(r.diff, r.ci_low, r.ci_high, sign=True),
            pval(r.p_holm), verdict] + extra)
    return aligned(rows, keep=4 if league else 3)


def _readable_ranking(df: pd.DataFrame) -> str:
    from llama_sim.core import stats

    parts = []
    for metric, group in df.groupby("metric", sort=False):
        order = "lower" if metric in stats.LOWER_IS_BETTER else "higher"
        rows = [["rank", "strategy", f"{metric} ({order} is better)", "cannot be separated from"]]
        for r in group.itertuples():
            rows.append([str(r.rank), r.strategy, ci_cell(r.value, r.ci_low, r.ci_high),
                         r.indistinguishable_from or "-"])
        parts.append(aligned(rows, keep=2))
    return "\n\n".join(parts)


def _readable_seats(df: pd.DataFrame) -> str:
    parts = []
    metrics = list(dict.fromkeys(df["metric"]))
    for (strategy, n), group in df.groupby(["strategy", "players"], sort=False):
        head = ["seat"]
        for m in metrics:
            head += [f"{m} [95% CI]", "vs mean [95% CI]"]
        rows = [head]
        for seat, g in group.groupby("seat", sort=True):
            cells = [str(seat)]
            by = {r.metric: r for r in g.itertuples()}
            for m in metrics:
                r = by[m]
                cells.append(ci_cell(r.value, r.ci_low, r.ci_high))
                cells.append(ci_cell(r.vs_mean, r.vs_mean_ci_low, r.vs_mean_ci_high, sign=True) + (" *" if r.p_holm < 0.05 else ""))
            rows.append(cells)
        parts.append(f"{n} players, every seat {strategy} ({int(group['deals'].iloc[0])} deals):\n"
                     + aligned(rows, together=2))
    return "\n\n".join(parts)


def _readable_lineups(df: pd.DataFrame) -> str:
    """A league's line-ups, each as its own small results table (the seeds, blocks and standard errors
    are in --format csv|json)."""
    from llama_sim.core.output import readable

    parts = []
    for (n, index), g in df.groupby(["players", "lineup"], sort=False):
        what = "games" if "win_rate" in set(g["metric"]) else "rounds"
        head = f"{n} players, line-up {index}: {g['strategies'].iloc[0]} ({int(g['plays'].iloc[0])} {what})"
        parts.append(textwrap.fill(head, TERMINAL_WIDTH) + "\n" + readable(g.assign(seat=None)))
    return "\n\n".join(parts)


def _readable_ratings(df: pd.DataFrame) -> str:
    """Per player count, the strategies by rating (centred log strength), best first."""
    if df.empty:
        return "(ratings need full games: --games)"
    parts = []
    for n, g in df.groupby("players", sort=False):
        rows = [["strategy", "rating [95% CI]", "games", "line-ups"]]
        for r in g.sort_values("value", ascending=False).itertuples():
            rows.append([r.strategy, ci_cell(r.value, r.ci_low, r.ci_high, sign=True), str(r.games), str(r.lineups)])
        parts.append(f"{n} players:\n" + aligned(rows))
    return "\n\n".join(parts)


def _readable_results(df: pd.DataFrame) -> str:
    """The contract table, one section per player count when there are several."""
    from llama_sim.core.output import readable

    if df["players"].nunique() == 1:
        return readable(df)
    return "\n\n".join(f"{n} players:\n{readable(g)}" for n, g in df.groupby("players", sort=False))


def _emit_compare(tables: dict[str, pd.DataFrame], views: tuple[str, ...], fmt: str, paths: dict[str, Path],
                  run_info: dict, preamble: str, force: bool) -> None:
    """Write every table to ``--out`` (and siblings), then print the chosen view(s)."""
    import json

    from llama_sim.core.output import to_json, write_tables

    write_tables({path: tables[name] for name, path in paths.items()}, force)
    if fmt == "json":
        if len(views) == 1:
            sys.stdout.write(to_json(tables[views[0]]) + "\n")
        else:
            doc = {"run": run_info, **{v: json.loads(to_json(tables[v])) for v in views}}
            sys.stdout.write(json.dumps(doc, indent=1, default=float) + "\n")
        return
    if fmt == "csv":
        tables[views[0]].to_csv(sys.stdout, index=False)
        return
    titles = {
        "results": "Results (95% intervals over deal blocks; seat 'all': pooled over every seat)",
        "paired": "Paired differences, every pair on the same deals (a - b; p Holm-adjusted over the pairs)",
        "ranking": "Ranking (strategies the data cannot separate at 95% are listed)",
        "seats": "Seat effects (vs mean = seat minus the mean of all seats; * = Holm-adjusted p < 0.05; "
                 "a negative penalty difference is an advantage)",
        "strongest": "Strongest strategy per player count (edge over the runner-up, 95% CI)",
        "lineups": "Every line-up's own values (each a compare on its own seed)",
        "ratings": "Ratings (log strength, mean 0 per player count: a wins against b alone with probability "
                   "1 / (1 + exp(rating_b - rating_a)); 95% CI over deal blocks)",
    }
    text = {"results": _readable_results, "paired": _readable_paired, "ranking": _readable_ranking, "seats": _readable_seats,
            "strongest": lambda df: "\n".join(textwrap.fill(x, TERMINAL_WIDTH, break_on_hyphens=False)
                                               for x in df["sentence"]),
            "lineups": _readable_lineups, "ratings": _readable_ratings}
    if "strongest" in tables:  # a league: differences of league values, paired where both play
        titles["paired"] = ("Paired differences of league values (a - b, paired in the line-ups holding both; "
                            "p Holm-adjusted over the pairs)")
    print(preamble)
    for v in views:
        print(f"\n{titles[v]}\n{text[v](tables[v])}")
        if v == "ratings" and run_info.get("held_out"):
            print(f"Held-out check: {run_info['held_out']}")
    for path in paths.values():
        print(f"wrote {path}")


@app.command()
@rule_set_options
@declared("compare")
def compare(
    seat_table: bool = typer.Option(False, "--seat-table", help="Seat effects instead: every seat plays the same strategy, for each strategy given and each player count."),
    league: bool = typer.Option(False, "--league", help="A league instead: at each player count (--players, default all) every line-up of that many of the strategies ('all': every built-in one); --games/--rounds is the total per count. Tables: results, paired, ranking, strongest, lineups, ratings."),
    view: Optional[str] = typer.Option(None, "--view", help="results, paired, ranking (seats with --seat-table) or all. Default: all for --format table, results for csv/json."),
    fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the results to this .csv, .json or .parquet file and every other table next to it (x.paired.csv, x.ranking.csv, x.seats.csv)."),
    force: bool = ForceOpt, plot: Optional[Path] = PlotOpt,
    **params,
):
    """Compare strategies on the same deals, every strategy in every seat.

    \b
    Design: k strategies at n seats; each strategy gets n // k seats and every
    choice of the n % k strategies that get one more is used equally often.
    Every distinct seating of those line-ups is played; a seating and its
    rotations share one deal per block (each strategy plays every seat of
    that deal), and each rotation class draws its own deals. A deal block
    (one block of every class) is the unit of analysis: all 95% intervals are
    computed over deal blocks (Student t; none from fewer than 5). Two
    copies of a strategy have the same expected result; no strategy keeps a
    seat or a neighbour.

    \b
    Tables (--view; --format table prints all three, or seats, by default):
      results  the contract layout: game, players, strategy, seat (empty:
               pooled), metric, value, ci_low, ci_high, n, seed
      paired   every pair and compared metric: diff = a - b, paired 95% CI,
               p_value, p_holm (Holm over the pairs of that metric), better
               (the winner when p_holm < 0.05), deals, seed, and for
               contrast only the CI the same data would give if the two
               estimates were independent (unpaired_ci_*, csv/json only;
               invalid when they are correlated, e.g. the win shares of
               two strategies)
      ranking  per compared metric, best first, with the strategies that the
               data cannot separate from each one (p_holm >= 0.05)
      seats    (--seat-table) each seat's value with its CI and vs_mean =
               value minus the mean of all seats, with its paired CI and
               p_value, p_holm (Holm over the seats of one table)
    --format csv/json print the results table unless --view picks another;
    --format json --view all prints one document {"run", "results", ...}.
    --out x.csv writes results to x.csv and the other tables to x.paired.csv,
    x.ranking.csv (x.seats.csv); same for .json and .parquet. Nothing is
    overwritten without --force.

    \b
    --precision X: after each batch, every interval of the compared metrics
    (each strategy's and every paired difference; with --seat-table each
    seat's and each seat-vs-mean difference) is computed; the run stops when
    all half-widths are <= X. Otherwise the next batch grows the blocks to
    1.1 B (h / X)^2 (h: largest half-width now), at least 1.25x and at most
    4x, up to --max-rounds. The first batch has at least 200 deals (or what
    --rounds/--games ask, which also set the mode). A precision run's deals
    are the first deals of a fixed run with the same seed.

    \b
    --backend dask runs the same chunks, seeded the same way, on a Dask
    cluster: --scheduler ADDRESS, or a LocalCluster of --workers processes
    with --threads threads each. Same seed, same numbers on every backend.
    Install with: pip install -e ".[dask]"

    \b
    --league: at each player count (--players N, default every count) play
    every line-up of N of the strategies (all of them when they fit), each
    line-up a compare on its own seed; --games/--rounds is the total per
    count. A strategy's value is its mean over its line-ups (independent:
    variances add); paired differences combine the line-ups' paired and
    own variances; strongest names the best per count and its edge over
    the runner-up; ratings (--games) give one number per strategy and
    count that predicts win rates in any line-up (a Luce model of who
    wins, checked by predicting each line-up from the others). Same as
    llama_sim.league(...).
    """
    from llama_sim import api
    from llama_sim.analysis.runs import note

    quiet = params.get("quiet", False)
    setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    if league:
        if seat_table or "precision" in params or "max_rounds" in params:
            raise UsageError("--league takes --rounds or --games (the total per player count), not "
                             + ("--seat-table" if seat_table else "--precision/--max-rounds"))
        views = _compare_views(view, fmt, False, league=True)
        paths = out_paths(out, LEAGUE_TABLES, force)
        check_plot(plot, force)
        r = api.league(**params)
        if fmt == "table" and view is None:  # the readable league: strongest per count, then the rankings
            _emit_compare({t: getattr(r, t) for t in r.tables}, (), fmt, paths, r.run, r.text, force)
        else:
            _emit_compare({t: getattr(r, t) for t in r.tables}, views, fmt, paths, r.run, r.header, force)
        save_plot(r, plot, fmt, force)
        return
    views = _compare_views(view, fmt, seat_table)
    paths = out_paths(out, ("results", "seats") if seat_table else ("results", "paired", "ranking"), force)
    check_plot(plot, force)
    r = (api.seat_table if seat_table else api.compare)(**params)
    if "precision" in params and fmt != "table":
        note(quiet, r.header.rsplit("\n", 1)[-1])
    tables = {name: getattr(r, name) for name in r.tables}
    _emit_compare(tables, views, fmt, paths, r.run, r.header, force)
    save_plot(r, plot, fmt, force)



@app.command()
@declared("bench")
def bench(fmt: str = FormatOpt, **params):
    """Rounds per second of each kernel and of its reference engine on the same work
    (with LLAMA_SIM_KERNEL=generic: the generic kernels only, no line-up kernel compiled)."""
    import pandas as pd

    from llama_sim.analysis.bench import bench_game

    check_format(fmt)
    values = COMMANDS["bench"].read(params)
    compile_notice(values["quiet"])
    names = [get_game(values["game"]).name] if values["game"] else list(all_games())
    df = pd.DataFrame([bench_game(get_game(g), values["rounds"], values["reference_rounds"], values["threads"])
                       for g in names])
    emit(df, fmt, None, readable_text=_readable_bench(df))


def compact(n) -> str:
    """A rate as a terminal reads it at a glance: 1,234 / 411k / 1.07M (csv and json keep every digit)."""
    if n is None or n != n:
        return "-"
    n = float(n)
    if n < 10_000:
        return f"{n:,.0f}"
    if n < 1_000_000:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.3g}M"


def _readable_bench(df: pd.DataFrame) -> str:
    """bench's table in under 100 columns: short headings, rounded rates, numbers right-aligned (the
    full table, every column with every digit, is --format csv|json), and what the headings mean."""
    threads = next((c.rsplit("_", 2)[1] for c in df.columns
                    if c.startswith("kernel_rounds_per_s_") and not c.endswith("_1_thread")), "n")
    speed = ["game", "line-up", "kernel", f"{threads} thr", "line-up", f"{threads} thr", "limit", "k/lim", "l/lim"]
    work = ["game", "dec/round", "dec/s", "ref", "x ref", "agrees"]
    share = lambda x: "-" if x is None or x != x else f"{x:.2f}"  # noqa: E731
    agrees = lambda r: "yes" if r["reference_agrees"] and r.get("limit_agrees") in (True, None) else "NO"  # noqa: E731
    records = df.to_dict("records")
    speed_rows = [[r["game"], r["line-up"], compact(r["kernel_rounds_per_s_1_thread"]),
                   compact(r[f"kernel_rounds_per_s_{threads}_threads"]), compact(r["lineup_rounds_per_s_1_thread"]),
                   compact(r[f"lineup_rounds_per_s_{threads}_threads"]), compact(r["limit_rounds_per_s_1_thread"]),
                   share(r["kernel_of_limit"]), share(r["lineup_of_limit"])] for r in records]
    work_rows = [[r["game"], f"{r['decisions_per_round']:.2f}", compact(r["kernel_decisions_per_s_1_thread"]),
                  compact(r["reference_rounds_per_s"]), f"{r['speedup_1_thread']:g}", agrees(r)] for r in records]

    def block(head, rows, left):
        widths = [max(len(x[i]) for x in [head] + rows) for i in range(len(head))]
        return "\n".join("  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
                         .rstrip() for cells in [head] + rows)

    legend = (f"kernel, line-up: rounds per second of the generic kernel and of the line-up's own, on 1 thread "
              f"({threads} thr: on {threads}); limit: the same work in a loop specialised for this line-up, on 1 "
              f"thread, the most the kernels' design allows; k/lim, l/lim: the kernels' share of it; dec: decisions "
              f"(policy calls), dec/s on 1 thread; ref: the reference engine's rounds per second; x ref: kernel / "
              f"reference on 1 thread; agrees: the kernels' and the limit's sums equal the reference's. Every column "
              f"with every digit: --format csv or json.")
    return "\n\n".join([block(speed, speed_rows, {0, 1}), block(work, work_rows, {0, 5}), textwrap.fill(legend, TERMINAL_WIDTH)])



@app.command("luck-gain")
@rule_set_options
@declared("luck_gain")
def luck_gain(fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, **params):
    """What luck adjustment saves: each pair compared on the same deals with --luck off and on.

    Per player count and pair: the plain and the adjusted paired difference of penalty per round,
    the half-width ratio (plain / adjusted), games saved (its square), the luck gap (plain minus
    adjusted: the pair's mean luck, which should cover 0) and the CPU time per play of each run."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), params.get("quiet", False), fmt, out, force)
    r = api.luck_gain(**params)
    emit(r.gains, fmt, out, preamble=r.header, readable_text=r.text, force=force)


@app.command()
@rule_set_options
@declared("sweep")
def sweep(fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, plot: Optional[Path] = PlotOpt,
          **params):
    """Sweep one parameter against fixed opponents (same deals for every value) and find the best.

    Each value plays a rotated comparison against the opponents on the same seed, so values are
    compared on common deals. The table adds columns param and param_value to the result layout;
    the readable view shows the headline metric (penalty per round, or win rate with --games) and
    its paired difference to the first opponent. Two --param sweep their grid (at most 400 points;
    columns param2 and param2_value; --plot draws a heatmap)."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), params.get("quiet", False), fmt, out, force)
    check_plot(plot, force)
    r = api.sweep(**params)
    emit(r.results, fmt, out, preamble=r.header, readable_text=r.text, force=force)
    save_plot(r, plot, fmt, force)

