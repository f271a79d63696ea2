"""The ``llamasim`` command line: a thin layer over the library.

Every user error becomes one line on stderr and exit status 2 (see ``main``).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import pandas as pd
import typer

try:  # typer >= 0.20 ships its own copy of click; older versions use click itself
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as cx

from llama_sim import api
from llama_sim.core import jit, registry, stats
from llama_sim.analysis.compare import DEFAULT_MAX_ROUNDS, Progress, game_options, note, rules_line
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import all_games, get_game
from llama_sim.core.ruleset import option_flag
from llama_sim.core.output import check_format, check_new_file, check_out, emit

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Monte Carlo strategy analyser for the L.A.M.A. family of games.",
)

_DEBUG = {"on": False}  # --debug: print the details behind a one-line error


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"llamasim {version('llama_sim')}")
        except PackageNotFoundError:  # running from a source tree that was never installed
            print("llamasim (not installed)")
        raise typer.Exit()


@app.callback()
def _global_options(
    debug: bool = typer.Option(False, "--debug", help="On an error, also print the full details (e.g. Numba's compile message)."),
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
):
    """Monte Carlo strategy analyser for the L.A.M.A. family of games."""
    _DEBUG["on"] = debug


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
# Rule variants (what a rule is worth: the same deals without it); each rule set checks its own.
PinkOpt = typer.Option(None, "--pink-llama", help="party: rulebook, or plain (the pink llama plays and scores as an ordinary llama).")
PlusOpt = typer.Option(None, "--plus-cards", help="party: rulebook, or plain (plus cards are ordinary cards: no extra turn).")
MagicOpt = typer.Option(None, "--magic-token", help="kadabra: on, or off (no magic symbols: the magic token stays in the pool).")
ShowOpt = typer.Option(None, "--magic-show", help="kadabra: on, or off (a llama stakes nothing: no stage, no show).")


def _variants(pink_llama, plus_cards, magic_token, magic_show) -> dict:
    """The rule-variant options given, by their API names."""
    return {k: v for k, v in (("pink_llama", pink_llama), ("plus_cards", plus_cards), ("magic_token", magic_token),
                              ("magic_show", magic_show)) if v is not None}
PlotOpt = typer.Option(None, "--plot", help="Also draw the result to this .png or .svg file (matplotlib).")

def _compile_notice(quiet: bool) -> None:
    if quiet:
        jit.on_compile = None
    else:
        jit.on_compile = lambda label: print(f"compiling {label} (first run only; cached for later runs)...",
                                             file=sys.stderr, flush=True)

def _setup(game_name: str, strategies_file: Optional[Path], quiet: bool, fmt: str, out: Optional[Path], force: bool):
    check_format(fmt)
    check_out(out, force)
    game = get_game(game_name)
    if strategies_file is not None:
        registry.load_file(strategies_file)
    _compile_notice(quiet)
    return game


def _check_plot(path: Optional[Path], force: bool) -> None:
    """``--plot`` is checked before any work, like ``--out``."""
    from llama_sim.analysis.plots import check_plot_path

    if path is not None:
        check_plot_path(path, force, "--plot")


def _save_plot(result, path: Optional[Path], fmt: str) -> None:
    if path is None:
        return
    from llama_sim.analysis.plots import save

    save(result.plot(), path)
    if fmt == "table":
        print(f"wrote {path}")


@app.command()
def games(fmt: str = FormatOpt):
    """List the rule sets and their options."""
    check_format(fmt)
    rows = [{"game": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
             "options": "; ".join(f"{option_flag(k)}: {v}" for k, v in g.options.items()) or "-"}
            for g in all_games().values()]
    df = pd.DataFrame(rows)
    text = []
    for g in all_games().values():
        text.append(f"{g.name:<8} {g.title:<24} {g.min_players}-{g.max_players} players")
        text.extend(f"{'':9}{option_flag(k)}: {v}" for k, v in g.options.items())
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
    pink_llama: Optional[str] = PinkOpt, plus_cards: Optional[str] = PlusOpt,
    magic_token: Optional[str] = MagicOpt, magic_show: Optional[str] = ShowOpt,
):
    """Play a fixed line-up (seat 0 starts) and report each seat's results."""
    _setup(game, strategies_file, quiet, fmt, out, force)
    r = api.simulate(game, seat, rounds=rounds, games=games_, seed=seed, threads=threads, dice_layout=dice_layout,
                     deck_file=deck_file, quiet=quiet, **_variants(pink_llama, plus_cards, magic_token, magic_show))
    emit(r.results, fmt, out, preamble=r.header)


# ------------------------------------------------------------------------------------ compare

COMPARE_VIEWS = ("results", "paired", "ranking", "seats", "strongest", "lineups", "all")
LEAGUE_TABLES = ("results", "paired", "ranking", "strongest", "lineups")


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
        needs = "--league" if view in ("strongest", "lineups") else f"{'no ' if seat_table else ''}--seat-table"
        raise UsageError(f"--view {view} needs {needs} (this run has: {', '.join(names)})")
    return (view,)


def _out_paths(out: Optional[Path], names: tuple[str, ...], force: bool) -> dict[str, Path]:
    """``x.csv`` holds the results, ``x.<table>.csv`` every other table; all checked before running."""
    if out is None:
        return {}
    paths = {n: out if n == "results" else out.with_name(f"{out.stem}.{n}{out.suffix}") for n in names}
    for path in paths.values():
        check_out(path, force)
    return paths


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
    league = "head_to_head" in df.columns  # a league: the head-to-head where both play instead
    last = "head-to-head where both play" if league else "unpaired CI (same data)"
    rows = [(["players"] if league else []) + ["metric", "a", "b", "a - b [95% paired CI]", "p (Holm)", "verdict", last]]
    for r in df.itertuples():
        verdict = f"{r.better} better" if r.better else ("different" if r.p_holm < 0.05 else "cannot separate")
        extra = (f"{_num(r.head_to_head, sign=True)} [{_num(r.h2h_ci_low, sign=True)}, {_num(r.h2h_ci_high, sign=True)}]"
                 if league else f"[{_num(r.unpaired_ci_low, sign=True)}, {_num(r.unpaired_ci_high, sign=True)}]")
        rows.append(([str(r.players)] if league else []) + [
            r.metric, r.strategy_a, r.strategy_b,
            f"{_num(r.diff, sign=True)} [{_num(r.ci_low, sign=True)}, {_num(r.ci_high, sign=True)}]",
            _pval(r.p_holm), verdict, extra])
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
    from llama_sim.core.output import readable

    if df["players"].nunique() == 1:
        return readable(df)
    return "\n\n".join(f"{n} players:\n{readable(g)}" for n, g in df.groupby("players", sort=False))


def _emit_compare(tables: dict[str, pd.DataFrame], views: tuple[str, ...], fmt: str, paths: dict[str, Path],
                  run_info: dict, preamble: str) -> None:
    """Write every table to ``--out`` (and siblings), then print the chosen view(s)."""
    import json

    from llama_sim.core.output import to_json, write_tables

    write_tables({path: tables[name] for name, path in paths.items()})
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
    }
    text = {"results": _readable_results, "paired": _readable_paired, "ranking": _readable_ranking, "seats": _readable_seats,
            "strongest": lambda df: "\n".join(df["sentence"]), "lineups": lambda df: df.to_string(index=False)}
    if "strongest" in tables:  # a league: differences of league values, paired where both play
        titles["paired"] = ("Paired differences of league values (a - b, paired in the line-ups holding both; "
                            "p Holm-adjusted over the pairs)")
    print(preamble)
    for v in views:
        print(f"\n{titles[v]}\n{text[v](tables[v])}")
    for path in paths.values():
        print(f"wrote {path}")


@app.command()
def compare(
    game: str = GameOpt,
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Players at the table (default 4; with --seat-table: every count the game allows)."),
    strategy: list[str] = typer.Argument(..., help="Strategies to compare: name or name:k=v,k=v ('all' with --league: every built-in one)."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    precision: Optional[float] = typer.Option(None, "--precision", help="Play in batches until every covered 95% interval's half-width is at most this."),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", help=f"With --precision: stop at this many rounds (games with --games) per table even if not precise (default {DEFAULT_MAX_ROUNDS})."),
    metric: list[str] = typer.Option([], "--metric", help="Compared metric (repeatable): gets paired differences, a ranking and the --precision target. Default penalty_per_round, plus win_rate with --games."),
    seat_table: bool = typer.Option(False, "--seat-table", help="Seat effects instead: every seat plays the same strategy, for each strategy given and each player count."),
    league: bool = typer.Option(False, "--league", help="A league instead: at each player count (--players, default all) every line-up of that many of the strategies ('all': every built-in one); --games/--rounds is the total per count. Tables: results, paired, ranking, strongest, lineups."),
    view: Optional[str] = typer.Option(None, "--view", help="results, paired, ranking (seats with --seat-table) or all. Default: all for --format table, results for csv/json."),
    backend: str = typer.Option("local", "--backend", help="local (threads) or dask (needs the dask extra)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address (default: start a LocalCluster on this machine)."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Dask LocalCluster worker processes (default: one per core)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="local: threads (default all cores); dask LocalCluster: threads per worker (default 1). Results do not depend on it."),
    fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the results to this .csv, .json or .parquet file and every other table next to it (x.paired.csv, x.ranking.csv, x.seats.csv)."),
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt, plot: Optional[Path] = PlotOpt,
    pink_llama: Optional[str] = PinkOpt, plus_cards: Optional[str] = PlusOpt,
    magic_token: Optional[str] = MagicOpt, magic_show: Optional[str] = ShowOpt,
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

    \b
    --league: at each player count (--players N, default every count) play
    every line-up of N of the strategies (all of them when they fit), each
    line-up a compare on its own seed; --games/--rounds is the total per
    count. A strategy's value is its mean over its line-ups (independent:
    variances add); paired differences combine the line-ups' paired and
    own variances; strongest names the best per count and its edge over
    the runner-up. Same as llama_sim.league(...).
    """
    _setup(game, strategies_file, quiet, fmt, out, force)
    if league:
        if seat_table or precision is not None or max_rounds is not None:
            raise UsageError("--league takes --rounds or --games (the total per player count), not "
                             + ("--seat-table" if seat_table else "--precision/--max-rounds"))
        views = _compare_views(view, fmt, False, league=True)
        paths = _out_paths(out, LEAGUE_TABLES, force)
        _check_plot(plot, force)
        r = api.league(game, "all" if strategy == ["all"] else strategy, players=players, rounds=rounds, games=games_,
                       seed=seed, metrics=metric, backend=backend, scheduler=scheduler, workers=workers,
                       threads=threads, dice_layout=dice_layout, deck_file=deck_file, quiet=quiet,
                       **_variants(pink_llama, plus_cards, magic_token, magic_show))
        if fmt == "table" and view is None:  # the readable league: strongest per count, then the rankings
            _emit_compare({t: getattr(r, t) for t in r.tables}, (), fmt, paths, r.run, r.text)
        else:
            _emit_compare({t: getattr(r, t) for t in r.tables}, views, fmt, paths, r.run, r.header)
        _save_plot(r, plot, fmt)
        return
    views = _compare_views(view, fmt, seat_table)
    paths = _out_paths(out, ("results", "seats") if seat_table else ("results", "paired", "ranking"), force)
    _check_plot(plot, force)
    run_compare = api.seat_table if seat_table else api.compare
    r = run_compare(game, strategy, players=players, rounds=rounds, games=games_, seed=seed, precision=precision,
                    max_rounds=max_rounds, metrics=metric, backend=backend, scheduler=scheduler, workers=workers,
                    threads=threads, dice_layout=dice_layout, deck_file=deck_file, quiet=quiet,
                    **_variants(pink_llama, plus_cards, magic_token, magic_show))
    if precision is not None and fmt != "table":
        note(quiet, r.header.rsplit("\n", 1)[-1])
    tables = {name: getattr(r, name) for name in r.tables}
    _emit_compare(tables, views, fmt, paths, r.run, r.header)
    _save_plot(r, plot, fmt)


@app.command()
def bench(
    game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set (default: all)."),
    rounds: int = typer.Option(400_000, "--rounds", help="Rounds for the kernel timing."),
    reference_rounds: int = typer.Option(2_000, "--reference-rounds", help="Rounds for the reference-engine timing."),
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, quiet: bool = QuietOpt,
):
    """Rounds per second of each kernel and of its reference engine on the same work."""
    from llama_sim.analysis.bench import bench_game

    check_format(fmt)
    _compile_notice(quiet)
    if rounds <= 0 or reference_rounds <= 0:
        raise UsageError("--rounds and --reference-rounds must be positive")
    names = [get_game(game).name] if game else list(all_games())
    df = pd.DataFrame([bench_game(get_game(g), rounds, reference_rounds, threads) for g in names])
    emit(df, fmt, None, readable_text=df.to_string(index=False))


@app.command()
def sweep(
    game: str = GameOpt,
    strategy: str = typer.Option(..., "--strategy", help="The strategy whose parameter is swept (name or name:k=v)."),
    param: list[str] = typer.Option(..., "--param", help="Parameter range k=lo:hi:step, e.g. quit_at=0:20:1; give it twice for a 2-D grid."),
    vs: list[str] = typer.Option([], "--vs", help="Opponent strategies (repeatable; default: the swept strategy at its defaults)."),
    players: int = typer.Option(4, "--players", "-p", help="Number of players at the table."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt,
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt, plot: Optional[Path] = PlotOpt,
    pink_llama: Optional[str] = PinkOpt, plus_cards: Optional[str] = PlusOpt,
    magic_token: Optional[str] = MagicOpt, magic_show: Optional[str] = ShowOpt,
):
    """Sweep one parameter against fixed opponents (same deals for every value) and find the best.

    Each value plays a rotated comparison against the opponents on the same seed, so values are
    compared on common deals. The table adds columns param and param_value to the result layout;
    the readable view shows the headline metric (penalty per round, or win rate with --games) and
    its paired difference to the first opponent. Two --param sweep their grid (at most 400 points;
    columns param2 and param2_value; --plot draws a heatmap)."""
    _setup(game, strategies_file, quiet, fmt, out, force)
    _check_plot(plot, force)
    r = api.sweep(game, strategy, param, vs=vs, players=players, rounds=rounds, games=games_, seed=seed,
                  threads=threads, dice_layout=dice_layout, deck_file=deck_file, quiet=quiet,
                  **_variants(pink_llama, plus_cards, magic_token, magic_show))
    emit(r.results, fmt, out, preamble=r.header, readable_text=r.text)
    _save_plot(r, plot, fmt)


# ------------------------------------------------------------------------------------ advise


@app.command()
def advise(
    game: str = GameOpt,
    hand: Optional[str] = typer.Option(None, "--hand", help='Your hand, e.g. "2 2 6 L" (Party: +3 plus cards, P the pink '
                                                             'llama; Kadabra: 2/3 doubles, symbols as 1+give, 2d, 3m).'),
    top: Optional[str] = typer.Option(None, "--top", help="The top card of the discard pile."),
    hand_sizes: Optional[str] = typer.Option(None, "--hand-sizes", help="The other players' hand sizes in turn order "
                                                                       "after you, e.g. 3,5,1 (their count gives the players)."),
    quit: Optional[str] = typer.Option(None, "--quit", help="Which of the other players have quit (1-based, same order), e.g. 2 or 1,3."),
    pile: Optional[int] = typer.Option(None, "--pile", help="Cards left in the draw pile."),
    discard: Optional[str] = typer.Option(None, "--discard", help="Cards known to lie in the discard pile besides the top card "
                                                                  "(dice: the cards discarded this round)."),
    scores: Optional[str] = typer.Option(None, "--scores", help="Everyone's score, yours first (default all 0)."),
    ones: Optional[str] = typer.Option(None, "--ones", help="kadabra: 1-tokens held, yours first (default 3 each)."),
    tens: Optional[str] = typer.Option(None, "--tens", help="kadabra: 10-tokens held, yours first (default 0)."),
    magic: Optional[str] = typer.Option(None, "--magic", help="kadabra: the magic token: pool, stage, me, or a player 1..n-1."),
    stage: Optional[str] = typer.Option(None, "--stage", help="kadabra: 1s and 10s on the stage, e.g. 3,1."),
    show: bool = typer.Option(False, "--show", help="kadabra: a show is running (your decision: a llama or collect)."),
    row: Optional[str] = typer.Option(None, "--row", help='dice: your row, e.g. "2 5 L".'),
    llama_row: Optional[str] = typer.Option(None, "--llama-row", help="dice: cards still in the llama row (default all 7)."),
    rows: Optional[str] = typer.Option(None, "--rows", help='dice: the other players\' rows in turn order after you, '
                                                           '";"-separated, e.g. "1 2 3;4 L".'),
    position: Optional[Path] = typer.Option(None, "--position", help="The position as a TOML or JSON file with the same keys."),
    action: Optional[list[str]] = typer.Option(None, "--action", help='Only these actions (repeatable), e.g. --action draw --action quit.'),
    policy: Optional[str] = typer.Option(None, "--policy", help="Roll-out strategy of every seat (default: the rule set's "
                                                                "strongest: smart, chain, showman, solo_optimal)."),
    opponents: Optional[str] = typer.Option(None, "--opponents", help="Per-seat strategies of the other players, e.g. greedy,smart,smart."),
    horizon: str = typer.Option("round", "--horizon", help="round (points over the rest of this round) or game (also the win rate)."),
    rollouts: Optional[int] = typer.Option(None, "--rollouts", help="Exactly this many roll-outs (each plays every action)."),
    precision: Optional[float] = typer.Option(None, "--precision", help="Stop once every action's 95% half-width is below this."),
    max_rollouts: int = typer.Option(200_000, "--max-rollouts", help="Cap of the default stop rule."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
    plot: Optional[Path] = PlotOpt, strategies_file: Optional[Path] = StratFileOpt,
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
):
    """Expected points of each legal action in a typed-in position, best first: determinized
    roll-outs (common random numbers for all actions), or the exact solver for a lone dice player.
    Default stop: the best action 3 standard errors clear of the runner-up, or every 95% half-width
    below 0.02, at most --max-rollouts."""
    _setup(game, strategies_file, quiet, fmt, out, force)
    _check_plot(plot, force)
    res = api.advise(game, position_file=position, actions=action, policy=policy,
                     opponents=[s for s in opponents.split(",") if s.strip()] if opponents else None,
                     horizon=horizon, n_rollouts=rollouts, precision=precision, max_rollouts=max_rollouts, seed=seed,
                     threads=threads if threads is not None else os.cpu_count(), dice_layout=dice_layout,
                     deck_file=deck_file, hand=hand, top=top, hand_sizes=hand_sizes, quit=quit, pile=pile,
                     discard=discard, scores=scores, ones=ones, tens=tens, magic=magic, stage=stage, show=show,
                     row=row, llama_row=llama_row, rows=rows)
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(res.plot(), plot)
    how = (f"{res.method}, {res.rollouts:,} roll-outs, strategies {', '.join(res.strategies)}"
           if res.method == "roll-outs" else res.method)
    emit(res.table, fmt, out, preamble=f"{game}: advice ({how}; horizon {res.horizon}; seed {seed})",
         readable_text=res.text() + "\n" + res.sentence + (f"\nwrote {plot}" if plot is not None else ""))


# ------------------------------------------------------------------------------------ chart


@app.command()
def chart(
    game: str = GameOpt,
    players: int = typer.Option(4, "--players", "-p", help="Players at the table."),
    policy: Optional[str] = typer.Option(None, "--policy", help="The policy every seat plays, also in the "
                                         "roll-outs (default: the strongest built-in, lama smart, party chain, kadabra "
                                         "showman, dice solo_optimal:quit_at=1)."),
    n_games: int = typer.Option(20_000, "--games", help="Full games to 40 points whose stuck decisions are valued."),
    measure: str = typer.Option("own", "--measure", help="own: the deciding player's net score change over the "
                                "rest of the round (as penalty_per_round); relative: that minus the others' mean "
                                "change (what decides a game); win: minus the win share, the rest of the game played out "
                                "(what the bundled charts use)."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt,
    pile_bins: Optional[str] = typer.Option(None, "--pile-bins", help="Lower edges of the draw-pile bins, "
                                            "e.g. 0,1,2,4,8,16 (default 0,1,2,3,4,6,8,11,15,20,26,32,40; dice: "
                                            "cards left in the llama row, default 1,...,7)."),
    opponent_bins: Optional[str] = typer.Option(None, "--opponent-bins", help="Lower edges of the smallest-"
                                                "opponent-hand bins (default 1,2,3,4,5,6,7,9,12,16; dice: the "
                                                "smallest row of another player still in, default 1,...,10)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Heatmap of the pile chart to this .png/.svg file; "
                                        "the opponent chart goes to <name>.opponent.<ext>."),
    emit_strategy: Optional[Path] = typer.Option(None, "--emit-strategy", help="Write a strategy file playing this "
                                                 "chart (named after the file; load with --strategies-file)."),
    emit_feature: str = typer.Option("opponent", "--emit-feature", help="Which chart --emit-strategy plays: "
                                     "opponent (hand points x smallest opponent hand) or pile."),
    strategies_file: Optional[Path] = StratFileOpt,
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
):
    """Quit charts: at every stuck decision (no card fits, drawing legal) of games the policy plays,
    quit and draw are each played out by the policy from the true state (common random numbers);
    per cell of hand points x cards left in the draw pile (and x the smallest opponent hand), split by
    the token going out would return: Q (quit better), D (draw better) or ? (95% interval covers 0).

    dice: the roll-or-quit chart of the multi-player phase (someone else still in): every roll-or-quit
    decision, quit vs roll; row points x cards left in the llama row (and x the smallest row of another
    player still in); D means roll."""
    from llama_sim.analysis import chart as C

    _setup(game, strategies_file, quiet, fmt, out, force)
    opponent_plot = None if plot is None else plot.with_name(f"{plot.stem}.opponent{plot.suffix}")
    _check_plot(plot, force)
    _check_plot(opponent_plot, force)
    if emit_strategy is not None:
        check_new_file(emit_strategy, force, "--emit-strategy", (".py",))
    if emit_strategy is not None and not emit_strategy.stem.isidentifier():
        raise UsageError(f"--emit-strategy {emit_strategy}: the file name must be a Python name (it names the strategy)")
    if emit_feature not in C.FEATURES:
        raise UsageError(f"unknown --emit-feature '{emit_feature}' (use {', '.join(C.FEATURES)})")
    pile_edges = C.parse_edges(pile_bins, None, "pile")
    opp_edges = C.parse_edges(opponent_bins, None, "opponent")
    progress = Progress(n_games, not quiet, "games")
    try:
        result = api.chart(game, players, policy, n_games, seed, threads=threads, pile_edges=pile_edges,
                           opp_edges=opp_edges, progress=progress, measure=measure)
    finally:
        progress.close()
    notes = []
    if plot is not None:
        from llama_sim.analysis.plots import save

        for name, path in (("pile", plot), ("opponent", opponent_plot)):
            save(result.plot(name), path)
            notes.append(f"wrote {path}")
    if emit_strategy is not None:
        name = C.emit_strategy(result, emit_strategy, emit_feature)
        notes.append(f"wrote {emit_strategy} (strategy '{name}': --strategies-file {emit_strategy})")
    text = "\n\n".join([C.readable(result, "pile"), C.readable(result, "opponent"), *notes])
    emit(result.cells, fmt, out, readable_text=text)


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
    plot: Optional[Path] = typer.Option(None, "--plot", help="Save the race and the final check as a .png or .svg image."),
    quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
    pink_llama: Optional[str] = PinkOpt, plus_cards: Optional[str] = PlusOpt,
    magic_token: Optional[str] = MagicOpt, magic_show: Optional[str] = ShowOpt,
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
    from llama_sim.core.output import to_json, write_tables

    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    paths = _out_paths(out, ("results", "candidates", "race"), force)  # results: the final table
    _check_plot(plot, force)
    result = api.tune(game, strategy, players, vs=vs, budget=budget, metric=metric, seed=seed, threads=threads,
                      candidates=candidates, dice_layout=dice_layout, deck_file=deck_file,
                      **_variants(pink_llama, plus_cards, magic_token, magic_show))
    tables = {"results": result.final, "candidates": result.candidates, "race": result.race}
    write_tables({path: tables[name] for name, path in paths.items()})
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(result.plot(), plot)
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
          f"seed {seed}{rules_line(spec, spec.config(**game_options(dice_layout, deck_file, **_variants(pink_llama, plus_cards, magic_token, magic_show))))}")
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
    import numpy as np

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
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, plot: Optional[Path] = PlotOpt,
):
    """Exact optimum of the dice game's solo phase (everybody else has quit): the expected final
    penalty of quitting now and of rolling on under optimal play, and the optimal choice."""
    check_format(fmt)
    check_out(out, force)
    _check_plot(plot, force)
    r = api.solve(game, row=row, llama_row=llama_row, dice_layout=dice_layout, table=table)
    emit(r.policy, fmt, out, readable_text=r.text)
    _save_plot(r, plot, fmt)


# ------------------------------------------------------------------------------------ experiments

ScaleOpt = typer.Option(1.0, "--scale", help="Multiply every rounds/games count (e.g. 0.01 for a quick look).")


def _report_options(out: Optional[Path], scale: float) -> str:
    """The options of a run that change what it writes, for run.json's command."""
    return (f" --out {out}" if out is not None else "") + (f" --scale {scale:g}" if scale != 1 else "")


def _report(spec, out: Optional[Path], scale: float, force: bool, quiet: bool, fmt: str, command: str) -> None:
    check_format(fmt)
    _compile_notice(quiet)
    r = api.run_experiment(spec, out=out, scale=scale, force=force, quiet=quiet, command=command)
    if fmt == "json":
        sys.stdout.write(json.dumps({"out": str(r.out), **r.run}, indent=1, default=str) + "\n")
        return
    if fmt == "csv":
        pd.DataFrame([{"step": s["name"], "kind": s["kind"], "seconds": s["seconds"], "conclusion": s["conclusion"]}
                      for s in r.run["steps"]]).to_csv(sys.stdout, index=False)
        return
    print(f"{r.spec.name}: {r.spec.question}")
    for step in r.steps:
        print(f"- {step.step.title}: {step.conclusion}")
    print(f"wrote {r.out}/ (report.md, report.html, run.json, tables/, plots/)")


@app.command("run")
def run_spec(
    spec: Path = typer.Argument(..., help="An experiment spec, e.g. experiments/lama-quit-threshold.toml."),
    out: Optional[Path] = typer.Option(None, "--out", help="Report folder (default reports/<name>)."),
    scale: float = ScaleOpt,
    force: bool = typer.Option(False, "--force", help="Replace the report folder if it exists."),
    quiet: bool = QuietOpt, fmt: str = FormatOpt,
):
    """Run an experiment spec (TOML) and write its report folder.

    \b
    The spec is validated completely before anything runs. The folder holds
    tables/ (CSV and Parquet), plots/ (PNG and SVG), report.md, a
    self-contained report.html and run.json (command, seed, version, git
    commit, rule-set options, timings). Same spec and seed: same tables."""
    _report(spec, out, scale, force, quiet, fmt, f"llamasim run {spec}" + _report_options(out, scale))


@app.command("report")
def report(
    game: str = GameOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Report folder (default reports/<game>-strategies)."),
    scale: float = ScaleOpt,
    force: bool = typer.Option(False, "--force", help="Replace the report folder if it exists."),
    quiet: bool = QuietOpt, fmt: str = FormatOpt,
):
    """The built-in strategy report of a rule set: a league table of its built-in strategies and the
    first-player advantage (a spec bundled with the package; --scale sizes it)."""
    from llama_sim.present.experiment import bundled_report_spec

    path = bundled_report_spec(game)
    _report(path, out, scale, force, quiet, fmt, f"llamasim report --game {get_game(game).name}"
            + _report_options(out, scale))


# Metavars users can read in --help (typer's default shows the Python type: <list[str]>, <int>).
_METAVARS = {"--game": "GAME", "game": "GAME", "--seat": "STRATEGY", "--vs": "STRATEGY", "--strategy": "STRATEGY",
             "strategy": "STRATEGY", "--param": "K=LO:HI:STEP", "--format": "table|csv|json", "--view": "VIEW",
             "--backend": "local|dask", "--scheduler": "ADDRESS", "--metric": "METRIC", "--dice-layout": "LAYOUT",
             "--row": "ROW", "--llama-row": "ROW", "--deck-file": "FILE.toml", "--strategies-file": "FILE.py",
             "--out": "FILE"}
_TYPE_METAVARS = {"int": "N", "float": "X", "Path": "PATH", "str": "TEXT"}


def _readable_metavars(command) -> None:
    """Give every option and argument without a metavar a readable one, by name or by type."""
    for sub in getattr(command, "commands", {}).values():
        _readable_metavars(sub)
    for param in command.params:
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        name = max(param.opts, key=len) if param.opts else param.name
        kind = getattr(param, "bare_type", lambda: "")().removeprefix("list[").removesuffix("]")
        param.metavar = _METAVARS.get(name) or _TYPE_METAVARS.get(kind, "VALUE")
        if param.param_type_name == "argument":  # its name is shown; typer would add <list[str]>
            param.display_type_rich = lambda ctx=None: None


def _interrupted(*_) -> None:
    from llama_sim.run.simulate import Interrupted

    raise Interrupted()


def _interrupt_message() -> str:
    from llama_sim.run.simulate import played

    done = f"{played['games']} games" if played["games"] and not played["rounds"] else f"{played['rounds']} rounds"
    return f"llamasim: interrupted after {done}; nothing written"


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning every usage problem into one line and exit status 2,
    and Ctrl-C into one line and status 130 (no file is written: see ``output.write_tables``)."""
    import signal
    import threading

    from llama_sim.run.simulate import Interrupted, played

    played.update(rounds=0, games=0)
    _DEBUG["on"] = False
    # Ctrl-C raises our own exception: click would turn a KeyboardInterrupt into its own message.
    previous = signal.signal(signal.SIGINT, _interrupted) if threading.current_thread() is threading.main_thread() else None
    command = typer.main.get_command(app)
    _readable_metavars(command)
    try:
        command.main(args=argv, standalone_mode=False, prog_name="llamasim")
    except (Interrupted, KeyboardInterrupt, typer.Abort):
        print(_interrupt_message(), file=sys.stderr, flush=True)
        sys.exit(130)
    except UsageError as exc:
        print(f"llamasim: error: {exc}", file=sys.stderr)
        if _DEBUG["on"] and exc.details:
            print(exc.details, file=sys.stderr)
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
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
