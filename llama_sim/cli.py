"""The ``llamasim`` command line: a thin layer over the library.

Every user error becomes one line on stderr and exit status 2 (see ``main``).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
import typer

try:  # typer >= 0.20 ships its own copy of click; older versions use click itself
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as cx

from . import jit, registry, stats
from .errors import UsageError
from .games import all_games, get_game
from .output import RESULT_COLUMNS, check_format, check_out, emit, to_json, write_table
from .simulate import Plan, blocks_for, comparison_design, run, seat_plan

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Monte Carlo strategy analyser for the L.A.M.A. family of games.",
)

GameOpt = typer.Option(..., "--game", "-g", help="Rule set: lama, party, kadabra or dice.")
SeedOpt = typer.Option(1, "--seed", help="One seed determines every number of the run.")
ThreadsOpt = typer.Option(None, "--threads", help="Worker threads (default: all cores). Results do not depend on it.")
FormatOpt = typer.Option("table", "--format", help="table, csv or json (json: one document on stdout).")
OutOpt = typer.Option(None, "--out", help="Also write the table to this .csv, .json or .parquet file.")
ForceOpt = typer.Option(False, "--force", help="Overwrite --out if it exists.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress bar or compile notice.")
RoundsOpt = typer.Option(None, "--rounds", help="Rounds to play (default 100000 unless --games is given).")
GamesOpt = typer.Option(None, "--games", help="Full games to 40 points to play instead of single rounds.")
StratFileOpt = typer.Option(None, "--strategies-file", help="A Python file registering more strategies.")
LayoutOpt = typer.Option(None, "--dice-layout", help="dice: the dice face layout (a name or e.g. 1234LL/1256LL/3456LL).")
DeckFileOpt = typer.Option(None, "--deck-file", help="kadabra: a TOML file replacing the action-symbol table.")

DEFAULT_ROUNDS = 100_000


class _Progress:
    """A rich progress bar on stderr that appears only once a run has taken over a second."""

    def __init__(self, total: int, enabled: bool, what: str):
        self.total, self.enabled, self.what = total, enabled and sys.stderr.isatty(), what
        self.done = 0
        self.start = time.perf_counter()
        self.bar = None
        self.task = None

    def __call__(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.bar is None and time.perf_counter() - self.start > 1.0 and self.done < self.total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn(self.what), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=self.total)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _compile_notice(quiet: bool) -> None:
    if quiet:
        jit.on_compile = None
    else:
        jit.on_compile = lambda label: print(f"compiling {label} (first run only; cached for later runs)...",
                                             file=sys.stderr, flush=True)


def _game_options(dice_layout: Optional[str], deck_file: Optional[Path]) -> dict:
    options = {}
    if dice_layout is not None:
        options["dice_layout"] = dice_layout
    if deck_file is not None:
        options["deck_file"] = deck_file
    return options


def _mode(rounds: Optional[int], games: Optional[int]) -> tuple[bool, int]:
    if rounds is not None and games is not None:
        raise UsageError("give --rounds or --games, not both")
    if games is not None:
        return True, games
    return False, DEFAULT_ROUNDS if rounds is None else rounds


def result_table(plan: Plan, tally: stats.Tally, seed: int) -> pd.DataFrame:
    summary = stats.summarise(tally)
    df = pd.DataFrame({
        "game": plan.game.name,
        "players": plan.n_players,
        "strategy": [plan.unit_labels[u] for u in summary["unit"]],
        "seat": pd.array([plan.unit_seats[u] for u in summary["unit"]], dtype="Int64"),
        "metric": summary["metric"],
        "value": summary["value"],
        "ci_low": summary["ci_low"],
        "ci_high": summary["ci_high"],
        "n": summary["n"].astype(np.int64),
        "seed": seed,
    })
    return df[RESULT_COLUMNS]


def _rules_line(spec, cfg: np.ndarray) -> str:
    """The rule-set options a run used (symbol table, dice layout), for every report header."""
    described = spec.describe_config(cfg)
    return ("\nrules: " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in described.items())) if described else ""


def _played_values(work) -> dict[str, dict[str, float]]:
    """Each label's parameter values as played (a spec without values plays the table's preset)."""
    return {lab: e.values() for lab, e in zip(work.unit_labels, work.entries) if e.values()}


def _values_line(work) -> str:
    """The played parameter values for a report header, so a label like ``threshold`` is honest."""
    played = _played_values(work)
    return ("\nparameters: " + "; ".join(f"{lab} " + ",".join(f"{k}={v:g}" for k, v in vals.items())
                                         for lab, vals in played.items())) if played else ""


def _execute(plan: Plan, count: int, seed: int, threads: Optional[int], quiet: bool) -> stats.Tally:
    n_blocks = blocks_for(plan, count)
    progress = _Progress(n_blocks, not quiet, "games" if plan.games_mode else "rounds")
    try:
        return run(plan, seed, 0, n_blocks, threads, progress)
    finally:
        progress.close()


def _setup(game_name: str, strategies_file: Optional[Path], quiet: bool, fmt: str, out: Optional[Path], force: bool):
    check_format(fmt)
    check_out(out, force)
    game = get_game(game_name)
    if strategies_file is not None:
        registry.load_file(strategies_file)
    _compile_notice(quiet)
    return game


@app.command()
def games(fmt: str = FormatOpt):
    """List the rule sets and their options."""
    check_format(fmt)
    rows = [{"game": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
             "options": "; ".join(f"--{k.replace('_', '-')}: {v}" for k, v in g.options.items()) or "-"}
            for g in all_games().values()]
    df = pd.DataFrame(rows)
    text = []
    for g in all_games().values():
        text.append(f"{g.name:<8} {g.title:<24} {g.min_players}-{g.max_players} players")
        text.extend(f"{'':9}--{k.replace('_', '-')}: {v}" for k, v in g.options.items())
    emit(df, fmt, None, readable_text="\n".join(text))


@app.command()
def strategies(game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set."),
               strategies_file: Optional[Path] = StratFileOpt, fmt: str = FormatOpt):
    """List the registered strategies with their parameters."""
    check_format(fmt)
    names = [get_game(game).name] if game else list(all_games())
    if strategies_file is not None:
        registry.load_file(strategies_file)
    rows = []
    for g in names:
        for s in registry.strategies_for(g):
            rows.append({"game": g, "strategy": s.name,
                         "params": ", ".join(f"{p.name}={p.default:g} [{p.low:g}, {p.high:g}]" for p in s.params) or "-",
                         "presets": "; ".join(f"{n}p: " + ",".join(f"{k}={v:g}" for k, v in vals.items())
                                              for n, vals in sorted(s.presets.items())) or "-",
                         "description": s.description})
    df = pd.DataFrame(rows, columns=["game", "strategy", "params", "presets", "description"])
    text = []
    for g, group in df.groupby("game", sort=False):
        text.append(f"{g}:")
        width = max(len(x) for x in group.strategy)
        for r in group.itertuples():
            text.append(f"  {r.strategy:<{width}}  {r.description}")
            if r.params != "-":
                text.append(f"  {'':<{width}}  params: {r.params}")
            if r.presets != "-":
                text.append(f"  {'':<{width}}  presets (other counts: the nearest, ties to the larger): {r.presets}")
    emit(df, fmt, None, readable_text="\n".join(text))


@app.command()
def simulate(
    game: str = GameOpt,
    seat: list[str] = typer.Option(..., "--seat", "-s", help="Strategy of the next seat (repeat per seat): name or name:k=v,k=v."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt,
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
):
    """Play a fixed line-up (seat 0 starts) and report each seat's results."""
    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    games_mode, count = _mode(rounds, games_)
    players = [registry.parse_spec(spec.name, s) for s in seat]
    plan = seat_plan(spec, players, games_mode, spec.config(**_game_options(dice_layout, deck_file)))
    tally = _execute(plan, count, seed, threads, quiet)
    df = result_table(plan, tally, seed)
    unit = "games" if games_mode else "rounds"
    emit(df, fmt, out, preamble=f"{spec.title}, {plan.n_players} players, {tally.blocks} {unit}, seed {seed} "
                                f"(95% intervals){_rules_line(spec, plan.cfg)}{_values_line(plan)}")


# ------------------------------------------------------------------------------------ compare

COMPARE_VIEWS = ("results", "paired", "ranking", "seats", "all")
DEFAULT_MAX_ROUNDS = 20_000_000


def _compare_views(view: Optional[str], fmt: str, seat_table: bool) -> tuple[str, ...]:
    """Which tables a compare run prints: ``all`` by default for the readable table, else
    ``results`` (the contract's table); csv holds one table only."""
    names = ("results", "seats") if seat_table else ("results", "paired", "ranking")
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
        raise UsageError(f"--view {view} needs {'no ' if seat_table else ''}--seat-table "
                         f"(this run has: {', '.join(names)})")
    return (view,)


def _out_paths(out: Optional[Path], names: tuple[str, ...], force: bool) -> dict[str, Path]:
    """``x.csv`` holds the results, ``x.<table>.csv`` every other table; all checked before running."""
    if out is None:
        return {}
    paths = {n: out if n == "results" else out.with_name(f"{out.stem}.{n}{out.suffix}") for n in names}
    for path in paths.values():
        check_out(path, force)
    return paths


def _note(quiet: bool, text: str) -> None:
    if not quiet:
        print(f"llamasim: {text}", file=sys.stderr, flush=True)


class _BatchProgress:
    """A fresh progress bar per ``--precision`` batch (its size is only known when it starts)."""

    def __init__(self, quiet: bool, what: str):
        self.quiet, self.what, self.bar = quiet, what, None

    def __call__(self, units: int):
        self.close()
        self.bar = _Progress(units, not self.quiet, self.what)
        return self.bar

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _run_work(work, seed: int, backend, count: Optional[int], precision: Optional[float], max_rounds: int,
              half_width, quiet: bool) -> tuple[stats.Tally, dict]:
    """Fixed count (at least ``min_blocks`` deal blocks) or the ``--precision`` loop."""
    from .simulate import deals, min_blocks, run_to_precision

    what = "games" if work.games_mode else "rounds"
    n_strata = 1 if isinstance(work, Plan) else len(work.tables)
    floor = min_blocks(work, precision is not None)
    label = f"{work.game.name} {work.n_players}p {what}"
    start = time.perf_counter()
    info: dict = {}
    if precision is None:
        blocks = blocks_for(work, count)
        if blocks < floor:
            _note(quiet, f"{count} {what} raised to {floor * work.rows} ({floor} blocks of {work.rows} seatings): "
                         "an interval needs at least 2 deal blocks")
            blocks = floor
        progress = _Progress(blocks * n_strata, not quiet, label)
        try:
            tally = run(work, seed, 0, blocks, progress=progress, backend=backend)
        finally:
            progress.close()
    else:
        first = max(floor, blocks_for(work, count) if count else floor)
        cap = max(first, max_rounds // work.rows)
        bars = _BatchProgress(quiet, label)
        try:
            res = run_to_precision(work, seed, precision, half_width, first, cap, backend=backend,
                                   progress_factory=lambda blocks: bars(blocks * n_strata))
        finally:
            bars.close()
        tally = res.tally
        info = {"precision": precision, "precision_reached": res.reached, "max_half_width": res.half_width,
                "batches_blocks": res.batches}
        if not res.reached:
            _note(quiet, f"{label}: precision {precision:g} not reached within --max-rounds {max_rounds}: "
                         f"largest half-width {res.half_width:.4g}")
    seconds = time.perf_counter() - start
    plays = tally.blocks * work.rows
    info = {"game": work.game.name, "players": work.n_players, what: plays, "deal_blocks": tally.blocks,
            "seatings_per_block": work.rows, "strata": n_strata, "deals": deals(work, tally),
            "params": _played_values(work),
            "seconds": round(seconds, 3), f"{what}_per_second": round(plays / seconds) if seconds > 0 else None,
            **info}
    return tally, info


def _num(value, digits: int = 4, sign: bool = False) -> str:
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _pval(p: float) -> str:
    import math

    if p is None or math.isnan(p):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def _readable_paired(df: pd.DataFrame) -> str:
    rows = [["metric", "a", "b", "a - b [95% paired CI]", "p (Holm)", "verdict", "unpaired CI (same data)"]]
    for r in df.itertuples():
        verdict = f"{r.better} better" if r.better else ("different" if r.p_holm < 0.05 else "cannot separate")
        rows.append([r.metric, r.strategy_a, r.strategy_b,
                     f"{_num(r.diff, sign=True)} [{_num(r.ci_low, sign=True)}, {_num(r.ci_high, sign=True)}]",
                     _pval(r.p_holm), verdict,
                     f"[{_num(r.unpaired_ci_low, sign=True)}, {_num(r.unpaired_ci_high, sign=True)}]"])
    return _aligned(rows)


def _readable_ranking(df: pd.DataFrame) -> str:
    parts = []
    for metric, group in df.groupby("metric", sort=False):
        order = "lower" if metric in stats.LOWER_IS_BETTER else "higher"
        rows = [["rank", "strategy", f"{metric} ({order} is better)", "cannot be separated from"]]
        for r in group.itertuples():
            rows.append([str(r.rank), r.strategy, f"{_num(r.value)} [{_num(r.ci_low)}, {_num(r.ci_high)}]",
                         r.indistinguishable_from or "-"])
        parts.append(_aligned(rows))
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
                cells.append(f"{_num(r.value)} [{_num(r.ci_low)}, {_num(r.ci_high)}]")
                cells.append(f"{_num(r.vs_mean, sign=True)} [{_num(r.vs_mean_ci_low, sign=True)}, "
                             f"{_num(r.vs_mean_ci_high, sign=True)}]" + (" *" if r.p_holm < 0.05 else ""))
            rows.append(cells)
        parts.append(f"{n} players, every seat {strategy} ({int(group['deals'].iloc[0])} deals):\n" + _aligned(rows))
    return "\n\n".join(parts)


def _readable_results(df: pd.DataFrame) -> str:
    """The contract table, one section per player count when there are several."""
    from .output import readable

    if df["players"].nunique() == 1:
        return readable(df)
    return "\n\n".join(f"{n} players:\n{readable(g)}" for n, g in df.groupby("players", sort=False))


def _emit_compare(tables: dict[str, pd.DataFrame], views: tuple[str, ...], fmt: str, paths: dict[str, Path],
                  run_info: dict, preamble: str) -> None:
    """Write every table to ``--out`` (and siblings), then print the chosen view(s)."""
    import json

    from .output import to_json, write_table

    for name, path in paths.items():
        write_table(tables[name], path)
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
    }
    text = {"results": _readable_results, "paired": _readable_paired, "ranking": _readable_ranking, "seats": _readable_seats}
    print(preamble)
    for v in views:
        print(f"\n{titles[v]}\n{text[v](tables[v])}")
    for path in paths.values():
        print(f"wrote {path}")


def _run_summary(infos: list[dict], backend_text: str, seed: int) -> str:
    what = "games" if "games" in infos[0] else "rounds"
    plays = sum(i[what] for i in infos)
    seconds = sum(i["seconds"] for i in infos)
    line = (f"{plays} {what} in {seconds:.1f} s on {backend_text}"
            + (f" ({plays / seconds:,.0f} {what}/s)" if seconds > 0 else "") + f", seed {seed}")
    if "precision" in infos[0]:
        reached = all(i["precision_reached"] for i in infos)
        worst = max(i["max_half_width"] for i in infos)
        line += (f"; --precision {infos[0]['precision']:g} " + ("reached" if reached else "NOT reached")
                 + f" (largest half-width {worst:.4g})")
    return line


@app.command()
def compare(
    game: str = GameOpt,
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Players at the table (default 4; with --seat-table: every count the game allows)."),
    strategy: list[str] = typer.Argument(..., help="Strategies to compare: name or name:k=v,k=v."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    precision: Optional[float] = typer.Option(None, "--precision", help="Play in batches until every covered 95% interval's half-width is at most this."),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", help=f"With --precision: stop at this many rounds (games with --games) per table even if not precise (default {DEFAULT_MAX_ROUNDS})."),
    metric: list[str] = typer.Option([], "--metric", help="Compared metric (repeatable): gets paired differences, a ranking and the --precision target. Default penalty_per_round, plus win_rate with --games."),
    seat_table: bool = typer.Option(False, "--seat-table", help="Seat effects instead: every seat plays the same strategy, for each strategy given and each player count."),
    view: Optional[str] = typer.Option(None, "--view", help="results, paired, ranking (seats with --seat-table) or all. Default: all for --format table, results for csv/json."),
    backend: str = typer.Option("local", "--backend", help="local (threads) or dask (needs the dask extra)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address (default: start a LocalCluster on this machine)."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Dask LocalCluster worker processes (default: one per core)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="local: threads (default all cores); dask LocalCluster: threads per worker (default 1). Results do not depend on it."),
    fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the results to this .csv, .json or .parquet file and every other table next to it (x.paired.csv, x.ranking.csv, x.seats.csv)."),
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
):
    """Compare strategies on the same deals, every strategy in every seat.

    \b
    Design: k strategies at n seats; each strategy gets n // k seats and every
    choice of the n % k strategies that get one more is used equally often.
    Every distinct seating of those line-ups is played; a seating and its
    rotations share one deal per block (each strategy plays every seat of
    that deal), and each rotation class draws its own deals. A deal block
    (one block of every class) is the unit of analysis: all 95% intervals are
    computed over deal blocks (at least 2). Two copies of a strategy have
    the same expected result; no strategy keeps a seat or a neighbour.

    \b
    Tables (--view; --format table prints all three, or seats, by default):
      results  the contract layout: game, players, strategy, seat (empty:
               pooled), metric, value, ci_low, ci_high, n, seed
      paired   every pair and compared metric: diff = a - b, paired 95% CI,
               p_value, p_holm (Holm over the pairs of that metric), better
               (the winner when p_holm < 0.05), deals, seed, and for
               contrast only the CI the same data would give if the two
               estimates were independent (unpaired_ci_*; invalid when
               they are correlated, e.g. the win shares of two strategies)
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
    """
    from .backends import make_backend
    from .simulate import (
        comparison_design, comparison_half_width, compared_metrics, paired_table, ranking_table,
        seat_effects_plan, seat_half_width, seat_table as seat_effects_table,
    )

    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    views = _compare_views(view, fmt, seat_table)
    paths = _out_paths(out, ("results", "seats") if seat_table else ("results", "paired", "ranking"), force)
    games_mode, count = _mode(rounds, games_)
    given = rounds is not None or games_ is not None
    metrics = compared_metrics(games_mode, metric)
    if precision is not None and not precision > 0:
        raise UsageError(f"--precision must be positive, not {precision:g}")
    if max_rounds is not None and precision is None:
        raise UsageError("--max-rounds applies only with --precision")
    if max_rounds is not None and max_rounds < 1:
        raise UsageError(f"--max-rounds must be positive, not {max_rounds}")
    max_rounds = max_rounds or DEFAULT_MAX_ROUNDS
    if threads is not None and threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    entries = [registry.parse_spec(spec.name, s) for s in strategy]
    cfg = spec.config(**_game_options(dice_layout, deck_file))
    count = count if (given or precision is None) else None
    if seat_table:
        counts = [players] if players is not None else list(range(spec.min_players, spec.max_players + 1))
        works = [seat_effects_plan(spec, p, n, games_mode, cfg) for p in entries for n in counts]
        half_width = seat_half_width(metrics)
    else:
        n_players = min(max(4, spec.min_players), spec.max_players) if players is None else players
        works = [comparison_design(spec, n_players, entries, games_mode, cfg)]
        half_width = comparison_half_width(metrics)
    with make_backend(backend, threads, scheduler, workers) as runner:
        done = [_run_work(w, seed, runner, count, precision, max_rounds, half_width, quiet) for w in works]
        backend_text = runner.describe()
    infos = [info for _, info in done]
    summary = _run_summary(infos, backend_text, seed)
    if precision is not None and fmt != "table":
        _note(quiet, summary)
    results = pd.concat([result_table(w, t, seed) for w, (t, _) in zip(works, done)], ignore_index=True)
    if seat_table:
        tables = {"results": results,
                  "seats": pd.concat([seat_effects_table(w, t, seed, metrics) for w, (t, _) in zip(works, done)],
                                     ignore_index=True)}
        head = f"{spec.title}: seat effects, every seat playing the same strategy"
    else:
        work, (tally, info) = works[0], done[0]
        tables = {"results": results, "paired": paired_table(work, tally, seed, metrics),
                  "ranking": ranking_table(work, tally, seed, metrics)}
        what = "games" if games_mode else "rounds"
        head = (f"{spec.title}, {work.n_players} players: {' vs '.join(work.unit_labels)}\n"
                f"{info['deal_blocks']} deal blocks x {work.rows} seatings ({info['strata']} rotation classes, "
                f"{info['deals']} deals){'' if what == 'rounds' else ', full games to 40'}{_values_line(work)}")
    run_info = {"seed": seed, "backend": backend_text, "rules": spec.describe_config(cfg), "tables": infos}
    _emit_compare(tables, views, fmt, paths, run_info, f"{head}{_rules_line(spec, cfg)}\n{summary}")


@app.command()
def bench(
    game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set (default: all)."),
    rounds: int = typer.Option(400_000, "--rounds", help="Rounds for the kernel timing."),
    reference_rounds: int = typer.Option(2_000, "--reference-rounds", help="Rounds for the reference-engine timing."),
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, quiet: bool = QuietOpt,
):
    """Rounds per second of each kernel and of its reference engine on the same work."""
    from .bench import bench_game

    check_format(fmt)
    _compile_notice(quiet)
    if rounds <= 0 or reference_rounds <= 0:
        raise UsageError("--rounds and --reference-rounds must be positive")
    names = [get_game(game).name] if game else list(all_games())
    df = pd.DataFrame([bench_game(get_game(g), rounds, reference_rounds, threads) for g in names])
    emit(df, fmt, None, readable_text=df.to_string(index=False))


def _sweep_values(param: str) -> tuple[str, np.ndarray]:
    """``k=lo:hi:step`` -> (k, values lo, lo+step, ..., hi)."""
    key, eq, spec = param.partition("=")
    parts = spec.split(":")
    if not eq or not key.strip() or len(parts) != 3:
        raise UsageError(f"--param '{param}' must look like k=lo:hi:step, e.g. quit_at=0:20:2")
    try:
        lo, hi, step = (float(x) for x in parts)
    except ValueError:
        raise UsageError(f"--param '{param}': lo, hi and step must be numbers") from None
    if step <= 0 or hi < lo:
        raise UsageError(f"--param '{param}': need step > 0 and lo <= hi")
    count = int(np.floor((hi - lo) / step + 1e-9)) + 1
    if count > 200:
        raise UsageError(f"--param '{param}' gives {count} values; at most 200")
    return key.strip(), lo + step * np.arange(count)


@app.command()
def sweep(
    game: str = GameOpt,
    strategy: str = typer.Option(..., "--strategy", help="The strategy whose parameter is swept (name or name:k=v)."),
    param: str = typer.Option(..., "--param", help="Parameter range k=lo:hi:step, e.g. quit_at=0:20:1."),
    vs: list[str] = typer.Option([], "--vs", help="Opponent strategies (repeatable; default: the swept strategy at its defaults)."),
    players: int = typer.Option(4, "--players", "-p", help="Number of players at the table."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt,
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
):
    """Sweep one parameter against fixed opponents (same deals for every value) and find the best.

    Each value plays a rotated comparison against the opponents on the same seed, so values are
    compared on common deals. The table adds columns param and param_value to the result layout;
    the readable view shows the headline metric (penalty per round, or win rate with --games) and
    its paired difference to the first opponent."""
    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    games_mode, count = _mode(rounds, games_)
    key, values = _sweep_values(param)
    base = registry.parse_spec(spec.name, strategy)
    if key not in {p.name for p in base.strategy.params}:
        known = ", ".join(p.name for p in base.strategy.params) or "none"
        raise UsageError(f"{spec.name} strategy '{base.strategy.name}' has no parameter '{key}' (parameters: {known})")
    opponents = [registry.parse_spec(spec.name, v) for v in vs] or [registry.parse_spec(spec.name, base.strategy.name)]
    cfg = spec.config(**_game_options(dice_layout, deck_file))
    name, _, rest = strategy.partition(":")
    fixed = [item for item in rest.split(",") if item.strip() and item.partition("=")[0].strip() != key]
    headline = "win_rate" if games_mode else "penalty_per_round"
    tables, lines = [], []
    for value in values:
        swept = registry.parse_spec(spec.name, f"{name}:" + ",".join(fixed + [f"{key}={value:g}"]))
        plan = comparison_design(spec, players, [swept] + opponents, games_mode, cfg)
        tally = _execute(plan, count, seed, threads, quiet)
        df = result_table(plan, tally, seed)
        df = df[df.strategy == plan.unit_labels[0]].assign(param=key, param_value=float(value))
        tables.append(df)
        est = stats.estimate(tally, headline, 0)
        diff = stats.paired(tally, headline).iloc[0]
        lines.append((float(value), est, diff))
    table = pd.concat(tables, ignore_index=True)
    pick = max if headline == "win_rate" else min
    best = pick(lines, key=lambda x: x[1].value)[0]
    opp = plan.unit_labels[1]
    text = [f"{key:>10}  {headline:<26}  vs {opp}: difference"]
    for value, est, diff in lines:
        mark = "  <- best" if value == best else ""
        text.append(f"{value:>10g}  {est.value:8.4f} [{est.ci_low:.4f}, {est.ci_high:.4f}]  "
                    f"{diff['diff']:+.4f} [{diff.ci_low:+.4f}, {diff.ci_high:+.4f}]{mark}")
    emit(table, fmt, out, preamble=f"{spec.title}, {players} players, sweep of {base.strategy.name}.{key}, seed {seed}"
                                   f"{_rules_line(spec, cfg)}",
         readable_text="\n".join(text))


# ------------------------------------------------------------------------------------ tune


@app.command()
def tune(
    game: str = GameOpt,
    strategy: str = typer.Option(..., "--strategy", help="The strategy to tune (name, or name:k=v for another starting point)."),
    players: int = typer.Option(4, "--players", "-p", help="Number of players at the table."),
    vs: str = typer.Option("self", "--vs", help="The other seats: strategy specs, comma-separated (one fills every seat, or one per other seat), or 'self' (the current best)."),
    budget: int = typer.Option(200_000, "--budget", help="Rounds to play in all (a full game counts its rounds); a quarter goes to the final check."),
    metric: str = typer.Option("win_rate", "--metric", help="win_rate (full games to 40) or penalty_per_round (single rounds)."),
    candidates: Optional[int] = typer.Option(None, "--candidates", help="Candidates per race round (default 8 + 8 per parameter, at most 32)."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the final table to this .csv, .json or .parquet file, and the candidates and the race next to it (x.candidates.csv, x.race.csv)."),
    force: bool = ForceOpt,
    plot: Optional[Path] = typer.Option(None, "--plot", help="Save the race and the final check as an image (.png, .svg or .pdf)."),
    quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
):
    """Tune every parameter of a strategy at once, noise-aware (a race on common deals).

    \b
    Candidates: the starting parameters and a Latin-hypercube sample of the
    parameters' bounds (whole-number parameters on the integer grid; the
    whole grid when it is small). A race in stages: every candidate plays the
    same deals in every seat against the field; a candidate whose paired
    difference to the stage's leader is worse over its whole interval
    (Bonferroni over the stage) is dropped, and successive halving keeps the
    best half. Then a second race around the winner refines it. The pick and
    the starting parameters are re-measured on fresh deals: the final table
    gives both with 95% intervals and the pick's paired edge over the start.
    --vs self: the other seats play the current leader (updated between
    stages), and the final check is pick vs start head to head.
    Same seed, same result, for any --threads.
    """
    from .tune import tune as tune_strategy

    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    paths = _out_paths(out, ("results", "candidates", "race"), force)  # results: the final table
    if plot is not None:
        if plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise UsageError(f"--plot {plot}: use a .png, .svg or .pdf file name")
        if plot.exists() and not force:
            raise UsageError(f"{plot} exists; pass --force to overwrite it")
        if not plot.parent.exists():
            raise UsageError(f"--plot {plot}: folder {plot.parent} does not exist")
    if threads is not None and threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    cfg = spec.config(**_game_options(dice_layout, deck_file))
    result = tune_strategy(spec, strategy, players, vs=vs, budget=budget, metric=metric, seed=seed,
                           threads=threads, candidates=candidates, cfg=cfg)
    for name, path in paths.items():
        write_table({"results": result.final, "candidates": result.candidates, "race": result.race}[name], path)
    if plot is not None:
        result.plot().savefig(plot, dpi=110)
    if fmt == "json":
        doc = {"summary": {k: _json_value(v) for k, v in result.summary().items()},
               "final": json.loads(to_json(result.final)), "candidates": json.loads(to_json(result.candidates)),
               "race": json.loads(to_json(result.race))}
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    if fmt == "csv":
        result.final.to_csv(sys.stdout, index=False)
        return
    s = result.summary()
    pick, start = result.final.iloc[0], result.final.iloc[1]
    kept = result.candidates
    print(f"{spec.title}, {players} players: tuning {result.strategy} vs {result.vs}, {metric}, budget {budget} rounds, "
          f"seed {seed}{_rules_line(spec, cfg)}")
    print(f"{len(kept)} candidates in {result.race['stage'].nunique()} stages "
          f"({(kept.status == 'worse').sum()} dropped as worse, {(kept.status == 'halved').sum()} by halving); "
          f"{result.rounds} rounds played")
    print(f"fresh deals ({int(pick.deals)} deals):")
    print(_aligned([["", "parameters", metric, "95% CI"],
                    ["pick", pick.params, _num(pick.value), f"[{_num(pick.ci_low)}, {_num(pick.ci_high)}]"],
                    ["start", start.params, _num(start.value), f"[{_num(start.ci_low)}, {_num(start.ci_high)}]"]]))
    print(f"edge of the pick over the start: {s['edge']:+.4f} [{s['edge_ci_low']:+.4f}, {s['edge_ci_high']:+.4f}]"
          f" (p {_pval(pick.p_value)}): {result.verdict}")
    print(f"use: --strategy {result.pick_spec}")
    for path in paths.values():
        print(f"wrote {path}")
    if plot is not None:
        print(f"wrote {plot}")


def _json_value(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if np.isnan(v) else float(v)
    return v


# ------------------------------------------------------------------------------------ solve


@app.command()
def solve(
    game: str = typer.Argument(..., help="Rule set: dice (the only one with an exact solver)."),
    row: Optional[str] = typer.Option(None, "--row", help='The solo player\'s row, e.g. "2 5 L" (L = llama).'),
    llama_row: str = typer.Option("1 2 3 4 5 6 L", "--llama-row", help="Cards still in the llama row."),
    dice_layout: Optional[str] = LayoutOpt,
    table: bool = typer.Option(False, "--table", help="The whole optimal policy: every sub-row of --row "
                                                      "(every row of up to 6 cards without --row)."),
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt,
):
    """Exact optimum of the dice game's solo phase (everybody else has quit): the expected final
    penalty of quitting now and of rolling on under optimal play, and the optimal choice."""
    check_format(fmt)
    check_out(out, force)
    spec = get_game(game)
    if spec.name != "dice":
        raise UsageError(f"solve has an exact solver for dice only, not {spec.name}")
    if row is None and not table:
        raise UsageError('give --row (e.g. --row "2 5 L"), or --table for every row')
    from .games.dice import solve_position_table

    df, text = solve_position_table(row, llama_row, dice_layout, table)
    emit(df, fmt, out, readable_text=text)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning every usage problem into one line and exit status 2."""
    try:
        app(args=argv, standalone_mode=False, prog_name="llamasim")
    except UsageError as exc:
        print(f"llamasim: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except cx.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else exc.format_message())
        sys.exit(0)
    except cx.UsageError as exc:
        message = " ".join(exc.format_message().split())
        print(f"llamasim: error: {message}", file=sys.stderr)
        sys.exit(2)
    except typer.Abort:
        print("llamasim: aborted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # e.g. `llamasim ... | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except ValueError as exc:
        if "illegal action" not in str(exc):
            raise
        # A user's strategy broke the policy contract: their input, so one line, not a traceback.
        print(f"llamasim: error: {exc} (check the strategy's use of the legal mask)", file=sys.stderr)
        sys.exit(2)
    except cx.ClickException as exc:
        print(f"llamasim: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
