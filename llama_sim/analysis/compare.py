"""``compare`` and ``seat_table``: strategies on the same deals in the balanced design, and seat effects
of one strategy playing every seat."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

import pandas as pd

from llama_sim.analysis.runs import (
    check_run_options, game_options, interval_note, load_strategies, play_mode, result_table, rules_line, run_summary,
    run_work, values_at_counts, values_line,
)
from llama_sim.core import registry
from llama_sim.core.ruleset import get_game
from llama_sim.core.luck import resolve
from llama_sim.run.designs import comparison_design, with_luck_of


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


def _compare_run(game, strategies, seat_effects: bool, players, rounds, games, seed, precision, max_rounds,
                 metrics, backend, scheduler, workers, threads, strategies_file, quiet,
                 rule_options=None, luck=None):
    from llama_sim.run.backends import make_backend
    from llama_sim.run.designs import seat_effects_plan
    from llama_sim.run.tables import (
        compared_metrics, comparison_half_width, paired_table, ranking_table, seat_half_width,
        seat_table as seat_effects_table,
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
    luck = resolve(spec, luck)
    count = count if (given or precision is None) else None
    if seat_effects:
        if isinstance(players, int) or players is None:
            counts = [players] if players is not None else list(range(spec.min_players, spec.max_players + 1))
        else:
            counts = list(players)
        works = [with_luck_of(seat_effects_plan(spec, p, n, games_mode, cfg), luck) for p in entries for n in counts]
        half_width = seat_half_width(metrics)
    else:
        n_players = min(max(4, spec.min_players), spec.max_players) if players is None else players
        works = [with_luck_of(comparison_design(spec, n_players, entries, games_mode, cfg), luck)]
        half_width = comparison_half_width(metrics)
    with make_backend(backend, threads, scheduler, workers) as runner:
        done = [run_work(w, seed, runner, count, precision, max_rounds, half_width, quiet) for w in works]
        backend_text = runner.describe()
    infos = [info for _, info in done]
    summary = run_summary(infos, backend_text, seed)
    unit = "games" if games_mode else "rounds"
    if given and precision is None and any(i[unit] != count for i in infos):  # whole deal blocks only
        played = sorted({i[unit] for i in infos})
        summary += (f"\n{count:,} {unit} asked per table; whole deal blocks (every strategy in every seat) made "
                    f"{' to '.join(f'{p:,}' for p in played[::max(1, len(played) - 1)])}")
    results = pd.concat([result_table(w, t, seed) for w, (t, _) in zip(works, done)], ignore_index=True)
    run_info = {"seed": seed, "backend": backend_text, "rules": spec.describe_config(cfg), "tables": infos,
                **({"luck": "on"} if luck else {})}  # (said only when on: plain runs' output as before)
    if seat_effects:
        seats = pd.concat([seat_effects_table(w, t, seed, metrics) for w, (t, _) in zip(works, done)],
                          ignore_index=True)
        head = (f"{spec.title}: seat effects, every seat playing the same strategy"
                f"{values_at_counts(entries, sorted({w.n_players for w in works}))}")
        few = min(done, key=lambda d: d[0].blocks)[0].blocks
        note_line = interval_note(few, max(w.rows for w in works), games_mode)
        return SeatTableResult(results, seats, f"{head}{rules_line(spec, cfg)}\n{summary}{note_line}", run_info)
    work, (tally, info) = works[0], done[0]
    what = "games" if games_mode else "rounds"
    head = (f"{spec.title}, {work.n_players} players: {' vs '.join(work.unit_labels)}\n"
            f"{info['deal_blocks']} deal blocks x {work.rows} seatings ({info['strata']} rotation classes, "
            f"{info['deals']} deals){'' if what == 'rounds' else ', full games to 40'}{values_line(work)}")
    return CompareResult(results, paired_table(work, tally, seed, metrics), ranking_table(work, tally, seed, metrics),
                         f"{head}{rules_line(spec, cfg)}\n{summary}{interval_note(tally.blocks, work.rows, games_mode)}",
                         run_info)


def compare(game: str, strategies: Sequence[str], *, players: Optional[int] = None, rounds: Optional[int] = None,
            games: Optional[int] = None, seed: int = 1, precision: Optional[float] = None,
            max_rounds: Optional[int] = None, metrics: Optional[Sequence[str]] = None, luck: Optional[bool] = None,
            backend: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None,
            threads: Optional[int] = None, strategies_file: Optional[Path] = None, quiet: bool = False,
            **rule_options) -> CompareResult:
    """Compare strategies on the same deals, every strategy in every seat (the balanced design of
    ``llama_sim.simulate``): ``llamasim compare --game G [--players N] A B ...``.

    ``players`` defaults to 4 (within the rule set's range); ``metrics`` are the compared metrics
    (default ``penalty_per_round``, plus ``win_rate`` with ``games``); ``precision`` plays in
    batches until every covered 95% half-width is at most this (``max_rounds`` caps it);
    ``luck``: luck-adjusted penalties (``core.luck``; None: the rule set's default);
    ``rule_options``: rule variants by name (``pink_llama="plain"``, ``magic_show="off"``, ...)."""
    return _compare_run(game, strategies, False, players, rounds, games, seed, precision, max_rounds, metrics,
                        backend, scheduler, workers, threads, strategies_file, quiet,
                        rule_options, luck)


def seat_table(game: str, strategies: Union[str, Sequence[str]], *, players: Union[None, int, Sequence[int]] = None,
               rounds: Optional[int] = None, games: Optional[int] = None, seed: int = 1,
               precision: Optional[float] = None, max_rounds: Optional[int] = None,
               metrics: Optional[Sequence[str]] = None, luck: Optional[bool] = None, backend: str = "local",
               scheduler: Optional[str] = None,
               workers: Optional[int] = None, threads: Optional[int] = None, strategies_file: Optional[Path] = None,
               quiet: bool = False, **rule_options) -> SeatTableResult:
    """Seat effects (e.g. the first-player advantage): every seat plays the same strategy, for each
    strategy given and each player count (default every count the rule set allows; ``players``
    may be one count or a list): ``llamasim compare --game G --seat-table A [--players N]``."""
    return _compare_run(game, strategies, True, players, rounds, games, seed, precision, max_rounds, metrics,
                        backend, scheduler, workers, threads, strategies_file, quiet,
                        rule_options, luck)
