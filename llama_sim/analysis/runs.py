"""What the run commands (simulate, compare, seat tables, sweeps, leagues) share: the count or
``--precision`` run of a plan or design with its progress bar, and the lines of their headers."""
from __future__ import annotations

import sys
import time
from typing import Optional

import numpy as np
import pandas as pd

from llama_sim.core import registry, stats
from llama_sim.core.commands import DEFAULT_MAX_ROUNDS, DEFAULT_ROUNDS
from llama_sim.core.errors import UsageError
from llama_sim.core.intervals import MIN_BLOCKS, not_given
from llama_sim.core.output import RESULT_COLUMNS
from llama_sim.core.registry import with_values
from llama_sim.run.backends import run
from llama_sim.run.chunks import blocks_for, check_plays
from llama_sim.run.designs import Plan


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


# ------------------------------------------------------------------------------------ options

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


def load_strategies(strategies_file) -> None:
    """A command's strategies files (None, one path or several) loaded, in order."""
    registry.load_files(strategies_file)


# ------------------------------------------------------------------------------------ headers

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
    text = ("\nparameters: " + "; ".join(with_values(lab, vals) for lab, vals in played.items())) if played else ""
    return text + luck_line(work)


def luck_line(work) -> str:
    """A header line when the penalties are luck-adjusted (``core.luck``)."""
    if not getattr(work, "luck", False):
        return ""
    return ("\nluck-adjusted: penalty per round minus the luck of every deal, draw and roll under the rule set's "
            "value function (unbiased; other measures plain; --luck off for the plain estimates)")


def interval_note(blocks: int, per_block: int, games_mode: bool) -> str:
    """A header line saying why a run too small for intervals (``intervals.MIN_BLOCKS``) prints none."""
    if blocks >= MIN_BLOCKS:
        return ""
    return "\n" + not_given(blocks, per_block, "games" if games_mode else "rounds")


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


# ------------------------------------------------------------------------------------ runs

def run_plan(plan: Plan, count: int, seed: int, threads: Optional[int], quiet: bool) -> stats.Tally:
    n_blocks = blocks_for(plan, count)
    progress = Progress(n_blocks, not quiet, "games" if plan.games_mode else "rounds")
    try:
        return run(plan, seed, 0, n_blocks, threads, progress)
    finally:
        progress.close()


def run_work(work, seed: int, backend, count: Optional[int], precision: Optional[float], max_rounds: int,
              half_width, quiet: bool) -> tuple[stats.Tally, dict]:
    """Fixed count (at least ``min_blocks`` deal blocks) or the ``--precision`` loop."""
    from llama_sim.run.backends import run_to_precision
    from llama_sim.run.chunks import min_blocks
    from llama_sim.run.designs import deals

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
                        "a variance needs at least 2 deal blocks")
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
