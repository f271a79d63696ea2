"""The ``llamasim`` command line: a thin layer over the library.

Every user error becomes one line on stderr and exit status 2 (see ``main``).
"""
from __future__ import annotations

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
from .output import RESULT_COLUMNS, check_format, check_out, emit
from .simulate import Plan, blocks_for, rotation_plan, run, seat_plan

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


def _check_threads(threads: Optional[int]) -> None:
    if threads is not None and threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")


def _execute(plan: Plan, count: int, seed: int, threads: Optional[int], quiet: bool) -> stats.Tally:
    _check_threads(threads)
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
    emit(df, fmt, None, readable_text=df.to_string(index=False))


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
                         "description": s.description})
    df = pd.DataFrame(rows, columns=["game", "strategy", "params", "description"])
    emit(df, fmt, None, readable_text=df.to_string(index=False))


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
    emit(df, fmt, out, preamble=f"{spec.title}, {plan.n_players} players, {tally.blocks} {unit}, seed {seed} (95% intervals)")


@app.command()
def compare(
    game: str = GameOpt,
    players: int = typer.Option(4, "--players", "-p", help="Number of players at the table."),
    strategy: list[str] = typer.Argument(..., help="Strategies to compare: name or name:k=v,k=v."),
    rounds: Optional[int] = RoundsOpt, games_: Optional[int] = GamesOpt, seed: int = SeedOpt,
    threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt,
    force: bool = ForceOpt, quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    dice_layout: Optional[str] = LayoutOpt, deck_file: Optional[Path] = DeckFileOpt,
):
    """Rotate strategies over the seats on the same deals and compare them."""
    spec = _setup(game, strategies_file, quiet, fmt, out, force)
    games_mode, count = _mode(rounds, games_)
    entries = [registry.parse_spec(spec.name, s) for s in strategy]
    plan = rotation_plan(spec, players, entries, games_mode, spec.config(**_game_options(dice_layout, deck_file)))
    tally = _execute(plan, count, seed, threads, quiet)
    df = result_table(plan, tally, seed)
    unit = "games" if games_mode else "rounds"
    total = tally.blocks * plan.rotations
    emit(df, fmt, out, preamble=(f"{spec.title}, {players} players, {total} {unit} ({tally.blocks} deals x "
                                 f"{plan.rotations} seat rotations), seed {seed} (95% intervals over deals)"))


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
        plan = rotation_plan(spec, players, [swept] + opponents, games_mode, cfg)
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
    emit(table, fmt, out, preamble=f"{spec.title}, {players} players, sweep of {base.strategy.name}.{key}, seed {seed}",
         readable_text="\n".join(text))


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
