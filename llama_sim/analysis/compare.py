"""Simulate, compare, seat tables, sweeps and solve: the runs behind the API functions of those names.

Each returns a result object whose attributes are tidy pandas DataFrames with the same columns as
the CLI's tables, plus ``plot()`` and ``text`` (what the CLI prints for ``--format table``).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import pandas as pd

from llama_sim.core import registry, stats
from llama_sim.core.registry import with_values
from llama_sim.core.commands import (  # noqa: F401  (callers take the limits from here)
    DEFAULT_MAX_ROUNDS, DEFAULT_ROUNDS, MAX_SWEEP_GRID, MAX_SWEEP_VALUES, SWEEP,
)
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game, solvable_names
from llama_sim.core.output import RESULT_COLUMNS
from llama_sim.run.backends import run
from llama_sim.run.simulate import Plan, blocks_for, check_plays, comparison_design, seat_plan, sweep_design



# ------------------------------------------------------------------------------------ progress

class Progress:
    """A rich progress bar on stderr that appears only once a run has taken over a second, and
    only when stderr is a terminal."""

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
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

            self.bar = Bar(TextColumn(self.what), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                           console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=self.total)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


class _BatchProgress:
    """A fresh progress bar per ``--precision`` batch (its size is only known when it starts)."""

    def __init__(self, quiet: bool, what: str):
        self.quiet, self.what, self.bar = quiet, what, None

    def __call__(self, units: int):
        self.close()
        self.bar = Progress(units, not self.quiet, self.what)
        return self.bar

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def note(quiet: bool, text: str) -> None:
    if not quiet:
        print(f"llamasim: {text}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ helpers

def game_options(**rule_options) -> dict:
    """The rule-set options given (None: not given), for ``RuleSet.config``, which checks them: each
    rule set declares its own (``RuleSet.options``)."""
    return {k: v for k, v in rule_options.items() if v is not None}


def play_mode(rounds: Optional[int], games: Optional[int]) -> tuple[bool, int]:
    """(games_mode, count): ``--rounds`` or ``--games``, never both; 100000 rounds by default."""
    if rounds is not None and games is not None:
        raise UsageError("give --rounds or --games, not both")
    if games is not None:
        return True, games
    return False, DEFAULT_ROUNDS if rounds is None else rounds


def result_table(plan, tally: stats.Tally, seed: int) -> pd.DataFrame:
    """The contract's result layout (``output.RESULT_COLUMNS``) of one plan or design."""
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


def rules_line(spec, cfg: np.ndarray) -> str:
    """The rule-set options a run used (symbol table, dice layout), for every report header."""
    described = spec.describe_config(cfg)
    return ("\nrules: " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in described.items())) if described else ""


def played_values(work) -> dict[str, dict[str, float]]:
    """Each label's parameter values as played (a spec without values plays the table's preset)."""
    return {lab: e.values() for lab, e in zip(work.unit_labels, work.entries) if e.values()}


def values_line(work) -> str:
    """The played parameter values for a report header, so a label like ``threshold`` is honest."""
    played = played_values(work)
    return ("\nparameters: " + "; ".join(with_values(lab, vals) for lab, vals in played.items())) if played else ""


def values_at_counts(entries, counts) -> str:
    """Header lines with the values each of ``entries`` (``Player``) plays at each table size of
    ``counts`` (presets differ by count): one line per count, or one line when they agree."""
    lines = {n: "; ".join(with_values(p.label, registry.at_table(p, n).values()) for p in entries
                          if p.strategy.params) for n in counts}
    if not any(lines.values()):
        return ""
    if len(set(lines.values())) == 1:
        return f"\nparameters: {next(iter(lines.values()))}"
    runs: list[list] = []  # consecutive counts that play the same values share a line
    for n, line in lines.items():
        if runs and runs[-1][2] == line and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n, line])
    return "".join(f"\nparameters at {a if a == b else f'{a}-{b}'} players: {line}" for a, b, line in runs if line)


def load_strategies(strategies_file) -> None:
    """A command's strategies files (None, one path or several) loaded, in order."""
    registry.load_files(strategies_file)


def _execute(plan: Plan, count: int, seed: int, threads: Optional[int], quiet: bool) -> stats.Tally:
    n_blocks = blocks_for(plan, count)
    progress = Progress(n_blocks, not quiet, "games" if plan.games_mode else "rounds")
    try:
        return run(plan, seed, 0, n_blocks, threads, progress)
    finally:
        progress.close()


def _run_work(work, seed: int, backend, count: Optional[int], precision: Optional[float], max_rounds: int,
              half_width, quiet: bool) -> tuple[stats.Tally, dict]:
    """Fixed count (at least ``min_blocks`` deal blocks) or the ``--precision`` loop."""
    from llama_sim.run.backends import run_to_precision
    from llama_sim.run.simulate import deals, min_blocks

    what = "games" if work.games_mode else "rounds"
    n_strata = 1 if isinstance(work, Plan) else len(work.tables)
    floor = min_blocks(work, precision is not None)
    label = f"{work.game.name} {work.n_players}p {what}"
    # A count the tool cannot schedule is refused before anything compiles or plays.
    if count is not None:
        blocks_for(work, count)
    if precision is not None:
        check_plays(work, max_rounds // work.rows)
    start = time.perf_counter()
    backend.warm(work)  # compiles (first run) or loads the kernels: timed apart from the play
    compile_seconds = time.perf_counter() - start
    start = time.perf_counter()
    info: dict = {}
    if precision is None:
        blocks = blocks_for(work, count)
        if blocks < floor:
            note(quiet, f"{count} {what} raised to {floor * work.rows} ({floor} blocks of {work.rows} seatings): "
                        "an interval needs at least 2 deal blocks")
            blocks = floor
        progress = Progress(blocks * n_strata, not quiet, label)
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
            note(quiet, f"{label}: precision {precision:g} not reached within --max-rounds {max_rounds}: "
                        f"largest half-width {res.half_width:.4g}")
    seconds = time.perf_counter() - start
    plays = tally.blocks * work.rows
    info = {"game": work.game.name, "players": work.n_players, what: plays, "deal_blocks": tally.blocks,
            "seatings_per_block": work.rows, "strata": n_strata, "deals": deals(work, tally),
            "params": played_values(work),
            "seconds": round(seconds, 3), f"{what}_per_second": round(plays / seconds) if seconds > 0 else None,
            "compile_seconds": round(compile_seconds, 3),
            **info}
    return tally, info


def run_summary(infos: list[dict], backend_text: str, seed: int) -> str:
    what = "games" if "games" in infos[0] else "rounds"
    plays = sum(i[what] for i in infos)
    seconds = sum(i["seconds"] for i in infos)
    line = (f"{plays} {what} in {seconds:.1f} s on {backend_text}"
            + (f" ({plays / seconds:,.0f} {what}/s)" if seconds > 0 else "") + f", seed {seed}"
            + f"; kernels compiled or loaded in {sum(i['compile_seconds'] for i in infos):.1f} s before that")
    if "precision" in infos[0]:
        reached = all(i["precision_reached"] for i in infos)
        worst = max(i["max_half_width"] for i in infos)
        line += (f"; --precision {infos[0]['precision']:g} " + ("reached" if reached else "NOT reached")
                 + f" (largest half-width {worst:.4g})")
    return line


# ------------------------------------------------------------------------------------ results

@dataclass
class SimulateResult:
    """``simulate``: each seat's results (``results``, the contract layout)."""

    results: pd.DataFrame
    header: str  # the CLI's preamble: rule set, players, plays, seed, rule-set options
    run: dict = field(default_factory=dict)

    def plot(self):
        from llama_sim.analysis.plots import plot_simulate

        return plot_simulate(self)


@dataclass
class CompareResult:
    """``compare``: ``results`` (each strategy pooled over seats), ``paired`` (every pair's paired
    difference), ``ranking`` (best first, with the strategies the data cannot separate)."""

    results: pd.DataFrame
    paired: pd.DataFrame
    ranking: pd.DataFrame
    header: str
    run: dict = field(default_factory=dict)

    tables = ("results", "paired", "ranking")

    def plot(self):
        from llama_sim.analysis.plots import plot_compare

        return plot_compare(self)


@dataclass
class SeatTableResult:
    """``seat_table``: every seat playing the same strategy; ``seats`` holds each seat's value and
    its difference from the mean of all seats, per strategy and player count."""

    results: pd.DataFrame
    seats: pd.DataFrame
    header: str
    run: dict = field(default_factory=dict)

    tables = ("results", "seats")

    def plot(self):
        from llama_sim.analysis.plots import plot_seat_table

        return plot_seat_table(self)


@dataclass
class SweepResult:
    """``sweep``: ``results`` (the swept strategy's rows per parameter value: the contract layout
    plus param, param_value, and param2, param2_value for a 2-D sweep) and ``summary`` (per value:
    the headline metric with its interval, the paired difference to the first opponent, ``best``,
    the paired difference to the best value ``vs_best`` and ``near_best``: every value whose paired
    95% interval to the best covers 0, i.e. that the data cannot separate from it)."""

    results: pd.DataFrame
    summary: pd.DataFrame
    params: list[str]
    headline: str
    opponent: str
    header: str
    run: dict = field(default_factory=dict)

    @property
    def best(self) -> pd.Series:
        """The summary row of the best value (highest win rate, or lowest penalty)."""
        return self.summary[self.summary["best"]].iloc[0]

    @property
    def text(self) -> str:
        """The CLI's readable sweep table."""
        s = self.summary
        keys = self.params
        head = "  ".join(f"{k:>10}" for k in keys)
        lines = [f"{head}  {self.headline:<26}  vs {self.opponent}: difference"]
        for r in s.itertuples():
            values = "  ".join(f"{getattr(r, c):>10g}" for c in ("param_value", "param2_value")[:len(keys)])
            mark = "  <- best" if r.best else ("  ~ best" if r.near_best else "")
            lines.append(f"{values}  {r.value:8.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]  "
                         f"{r.diff:+.4f} [{r.diff_ci_low:+.4f}, {r.diff_ci_high:+.4f}]{mark}")
        lines.append("~ best: the paired 95% interval of its difference to the best value covers 0 "
                     "(the data cannot separate them)")
        return "\n".join(lines)

    def plot(self):
        from llama_sim.analysis.plots import plot_sweep

        return plot_sweep(self)


@dataclass
class SolveResult:
    """``solve``: the dice solo phase solved exactly; ``policy`` has one row per position (row,
    quit_value, roll_value, best, value, and with ``table`` the ``keeps`` column)."""

    policy: pd.DataFrame
    text: str
    run: dict = field(default_factory=dict)

    @property
    def results(self) -> pd.DataFrame:
        return self.policy

    def plot(self):
        from llama_sim.analysis.plots import plot_solve

        return plot_solve(self)


# ------------------------------------------------------------------------------------ functions

def simulate(game: str, seats: Sequence[str], *, rounds: Optional[int] = None, games: Optional[int] = None,
             seed: int = 1, threads: Optional[int] = None, strategies_file: Optional[Path] = None,
             quiet: bool = False, **rule_options) -> SimulateResult:
    """Play a fixed line-up (``seats[0]`` starts; each entry ``name`` or ``name:k=v,k=v``) and
    report each seat: ``llamasim simulate --game G -s A -s B ...``. ``rule_options``: rule
    variants by name (``pink_llama="plain"``, ``magic_show="off"``, ...; see ``game_options``)."""
    spec = get_game(game)
    load_strategies(strategies_file)
    games_mode, count = play_mode(rounds, games)
    players = [registry.parse_spec(spec.name, s) for s in seats]
    plan = seat_plan(spec, players, games_mode, spec.config(**game_options(**rule_options)))
    tally = _execute(plan, count, seed, threads, quiet)
    unit = "games" if games_mode else "rounds"
    header = (f"{spec.title}, {plan.n_players} players, {tally.blocks} {unit}, seed {seed} "
              f"(95% intervals){rules_line(spec, plan.cfg)}{values_line(plan)}")
    return SimulateResult(result_table(plan, tally, seed), header,
                          {"seed": seed, unit: tally.blocks, "rules": spec.describe_config(plan.cfg)})


def check_run_options(precision, max_rounds, threads, workers) -> int:
    if precision is not None and not precision > 0:
        raise UsageError(f"--precision must be positive, not {precision:g}")
    if max_rounds is not None and precision is None:
        raise UsageError("--max-rounds applies only with --precision")
    if max_rounds is not None and max_rounds < 1:
        raise UsageError(f"--max-rounds must be positive, not {max_rounds}")
    if threads is not None and threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    return max_rounds or DEFAULT_MAX_ROUNDS


def _compare_run(game, strategies, seat_effects: bool, players, rounds, games, seed, precision, max_rounds,
                 metrics, backend, scheduler, workers, threads, strategies_file, quiet,
                 rule_options=None):
    from llama_sim.run.backends import make_backend
    from llama_sim.run.simulate import (
        comparison_half_width, compared_metrics, paired_table, ranking_table, seat_effects_plan,
        seat_half_width, seat_table as seat_effects_table,
    )

    spec = get_game(game)
    load_strategies(strategies_file)
    if isinstance(strategies, str):
        strategies = [strategies]
    games_mode, count = play_mode(rounds, games)
    given = rounds is not None or games is not None
    metrics = compared_metrics(games_mode, list(metrics) if metrics else None)
    max_rounds = check_run_options(precision, max_rounds, threads, workers)
    entries = [registry.parse_spec(spec.name, s) for s in strategies]
    cfg = spec.config(**game_options(**(rule_options or {})))
    count = count if (given or precision is None) else None
    if seat_effects:
        if isinstance(players, int) or players is None:
            counts = [players] if players is not None else list(range(spec.min_players, spec.max_players + 1))
        else:
            counts = list(players)
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
    summary = run_summary(infos, backend_text, seed)
    unit = "games" if games_mode else "rounds"
    if given and precision is None and any(i[unit] != count for i in infos):  # whole deal blocks only
        played = sorted({i[unit] for i in infos})
        summary += (f"\n{count:,} {unit} asked per table; whole deal blocks (every strategy in every seat) made "
                    f"{' to '.join(f'{p:,}' for p in played[::max(1, len(played) - 1)])}")
    results = pd.concat([result_table(w, t, seed) for w, (t, _) in zip(works, done)], ignore_index=True)
    run_info = {"seed": seed, "backend": backend_text, "rules": spec.describe_config(cfg), "tables": infos}
    if seat_effects:
        seats = pd.concat([seat_effects_table(w, t, seed, metrics) for w, (t, _) in zip(works, done)],
                          ignore_index=True)
        head = (f"{spec.title}: seat effects, every seat playing the same strategy"
                f"{values_at_counts(entries, sorted({w.n_players for w in works}))}")
        return SeatTableResult(results, seats, f"{head}{rules_line(spec, cfg)}\n{summary}", run_info)
    work, (tally, info) = works[0], done[0]
    what = "games" if games_mode else "rounds"
    head = (f"{spec.title}, {work.n_players} players: {' vs '.join(work.unit_labels)}\n"
            f"{info['deal_blocks']} deal blocks x {work.rows} seatings ({info['strata']} rotation classes, "
            f"{info['deals']} deals){'' if what == 'rounds' else ', full games to 40'}{values_line(work)}")
    return CompareResult(results, paired_table(work, tally, seed, metrics), ranking_table(work, tally, seed, metrics),
                         f"{head}{rules_line(spec, cfg)}\n{summary}", run_info)


def compare(game: str, strategies: Sequence[str], *, players: Optional[int] = None, rounds: Optional[int] = None,
            games: Optional[int] = None, seed: int = 1, precision: Optional[float] = None,
            max_rounds: Optional[int] = None, metrics: Optional[Sequence[str]] = None, backend: str = "local",
            scheduler: Optional[str] = None, workers: Optional[int] = None, threads: Optional[int] = None,
            strategies_file: Optional[Path] = None, quiet: bool = False, **rule_options) -> CompareResult:
    """Compare strategies on the same deals, every strategy in every seat (the balanced design of
    ``llama_sim.simulate``): ``llamasim compare --game G [--players N] A B ...``.

    ``players`` defaults to 4 (within the rule set's range); ``metrics`` are the compared metrics
    (default ``penalty_per_round``, plus ``win_rate`` with ``games``); ``precision`` plays in
    batches until every covered 95% half-width is at most this (``max_rounds`` caps it);
    ``rule_options``: rule variants by name (``pink_llama="plain"``, ``magic_show="off"``, ...)."""
    return _compare_run(game, strategies, False, players, rounds, games, seed, precision, max_rounds, metrics,
                        backend, scheduler, workers, threads, strategies_file, quiet,
                        rule_options)


def seat_table(game: str, strategies: Union[str, Sequence[str]], *, players: Union[None, int, Sequence[int]] = None,
               rounds: Optional[int] = None, games: Optional[int] = None, seed: int = 1,
               precision: Optional[float] = None, max_rounds: Optional[int] = None,
               metrics: Optional[Sequence[str]] = None, backend: str = "local", scheduler: Optional[str] = None,
               workers: Optional[int] = None, threads: Optional[int] = None, strategies_file: Optional[Path] = None,
               quiet: bool = False, **rule_options) -> SeatTableResult:
    """Seat effects (e.g. the first-player advantage): every seat plays the same strategy, for each
    strategy given and each player count (default every count the rule set allows; ``players``
    may be one count or a list): ``llamasim compare --game G --seat-table A [--players N]``."""
    return _compare_run(game, strategies, True, players, rounds, games, seed, precision, max_rounds, metrics,
                        backend, scheduler, workers, threads, strategies_file, quiet,
                        rule_options)


def _sweep_axes(param) -> list[tuple[str, np.ndarray]]:
    """One or two axes from the declared grid (``core.commands``: ``k=lo:hi:step`` strings or a
    ``{name: values}`` table)."""
    grid = SWEEP.param("param").read(param)
    return [(k, np.asarray(v, dtype=np.float64)) for k, v in grid.items()]


def sweep(game: str, strategy: str, param, *, vs: Sequence[str] = (), players: int = 4,
          rounds: Optional[int] = None, games: Optional[int] = None, seed: int = 1, threads: Optional[int] = None,
          strategies_file: Optional[Path] = None, quiet: bool = False, **rule_options) -> SweepResult:
    """Sweep one or two parameters of ``strategy`` against fixed opponents ``vs`` (default: the
    strategy at its defaults), every value on the same deals: ``llamasim sweep --game G --strategy S
    --param k=lo:hi:step [--param k2=lo:hi:step] --vs A``.

    ``param``: ``"k=lo:hi:step"``, a list of one or two of them, or ``{"k": [values], ...}``. Two
    parameters sweep their grid (first parameter outermost). The headline metric is
    ``penalty_per_round`` (lower is better), or ``win_rate`` with ``games``."""
    spec = get_game(game)
    load_strategies(strategies_file)
    games_mode, count = play_mode(rounds, games)
    axes = _sweep_axes(param)
    base = registry.parse_spec(spec.name, strategy)
    for key, _ in axes:
        if key not in {p.name for p in base.strategy.params}:
            known = ", ".join(p.name for p in base.strategy.params) or "none"
            raise UsageError(f"{spec.name} strategy '{base.strategy.name}' has no parameter '{key}' "
                             f"(parameters: {known})")
    opponents = [registry.parse_spec(spec.name, v) for v in vs] or [registry.parse_spec(spec.name, base.strategy.name)]
    cfg = spec.config(**game_options(**rule_options))
    name, _, rest = strategy.partition(":")
    keys = [k for k, _ in axes]
    fixed = [item for item in rest.split(",") if item.strip() and item.partition("=")[0].strip() not in keys]
    headline = "win_rate" if games_mode else "penalty_per_round"
    grid = [(v,) for v in axes[0][1]] if len(axes) == 1 else [(a, b) for a in axes[0][1] for b in axes[1][1]]
    # every grid value must be legal before anything runs
    swept_specs = [f"{name}:" + ",".join(fixed + [f"{k}={v:g}" for k, v in zip(keys, point)]) for point in grid]
    swept_players = [registry.parse_spec(spec.name, s) for s in swept_specs]
    # All values in one design on the same deals (``simulate.sweep_design``): each value's numbers
    # equal its own run's, and the paired difference of any two values is known.
    plan = comparison_design(spec, players, [swept_players[0]] + opponents, games_mode, cfg)
    joint = sweep_design(spec, players, swept_players, opponents, games_mode, cfg)
    n_blocks = blocks_for(plan, count)
    progress = Progress(n_blocks * len(joint.tables), not quiet, "games" if games_mode else "rounds")
    try:
        tally = run(joint, seed, 0, n_blocks, threads, progress)
    finally:
        progress.close()
    every = result_table(joint, tally, seed)
    n_values = len(grid)

    def contrast(a: int, b: int) -> stats.Estimate:
        weights = np.zeros(len(joint.unit_labels))
        weights[a] += 1.0
        weights[b] -= 1.0  # a == b: all zero, the difference is exactly 0
        return stats.contrast(tally, headline, weights)

    tables, rows = [], []
    for v, point in enumerate(grid):
        df = every[every.strategy == joint.unit_labels[v]].assign(param=keys[0], param_value=float(point[0]))
        row = {"param": keys[0], "param_value": float(point[0])}
        if len(keys) == 2:
            df = df.assign(param2=keys[1], param2_value=float(point[1]))
            row.update(param2=keys[1], param2_value=float(point[1]))
        tables.append(df)
        est = stats.estimate(tally, headline, v)
        diff = contrast(v, n_values + v)  # against the first opponent at this value's tables
        rows.append({**row, "metric": headline, "value": est.value, "ci_low": est.ci_low, "ci_high": est.ci_high,
                     "opponent": plan.unit_labels[1], "diff": diff.value, "diff_ci_low": diff.ci_low,
                     "diff_ci_high": diff.ci_high, "seed": seed})
    table = pd.concat(tables, ignore_index=True)
    summary = pd.DataFrame(rows)
    values = summary["value"].to_numpy()
    best_index = int(np.argmax(values) if headline == "win_rate" else np.argmin(values))  # first best on ties
    summary["best"] = np.arange(len(summary)) == best_index
    to_best = [contrast(v, best_index) for v in range(n_values)]
    summary["vs_best"] = [e.value for e in to_best]
    summary["vs_best_ci_low"] = [e.ci_low for e in to_best]
    summary["vs_best_ci_high"] = [e.ci_high for e in to_best]
    # the values the data cannot separate from the best: their paired interval to it covers 0
    summary["near_best"] = [bool(e.ci_low <= 0 <= e.ci_high) and v != best_index for v, e in enumerate(to_best)]
    fixed_values = {k: v for k, v in plan.entries[0].values().items() if k not in keys}
    played = [with_values(base.strategy.name, fixed_values) + f" with {'/'.join(keys)} swept"]
    played += [with_values(lab, e.values()) for lab, e in zip(plan.unit_labels[1:], plan.entries[1:])]
    header = (f"{spec.title}, {players} players, sweep of {base.strategy.name}.{'/'.join(keys)}, seed {seed}"
              f"\nparameters: {'; '.join(played)}{rules_line(spec, cfg)}")
    return SweepResult(table, summary, keys, headline, plan.unit_labels[1], header,
                       {"seed": seed, "rules": spec.describe_config(cfg)})


def solve(game: Optional[str] = None, *, row: Optional[str] = None, llama_row: str = "1 2 3 4 5 6 L",
          score: int = 0, table: bool = False, **rule_options) -> SolveResult:
    """Exact values where a rule set is solvable (the dice game's solo phase): ``llamasim solve dice
    --row "2 5 L"`` (one position) or ``table=True`` (the whole optimal policy: every sub-row of
    ``row``, or every row of up to 6 cards). ``score`` (0..39) is the solo player's: it decides the
    tokens returned after three llamas and on going out, which the values count. ``game`` defaults
    to the one rule set with a solver."""
    solvable = solvable_names()
    spec = get_game(game if game is not None else solvable[0])
    if spec.exact_solver is None:
        raise UsageError(f"solve has an exact solver for {' and '.join(solvable)} only, not {spec.name}")
    spec.reject_other_options({k: v for k, v in rule_options.items() if k not in spec.options})
    df, text, rules = spec.exact_solver(row=row, llama_row=llama_row, table=table, score=score,
                                        **game_options(**rule_options))
    return SolveResult(df, text, {"rules": rules})
