"""``luck_gain``: what luck adjustment (``core.luck``) buys a comparison, measured on the same deals.

At each player count the strategies' comparison design (``compare``'s) is played twice on one seed, with
luck off and on (the same deals, draws, rolls and policy streams; the luck-on tally also holds the plain
sums). For every pair it reports the plain and the adjusted paired difference of penalty per round with
their 95% intervals, the half-width ratio (plain / adjusted) and the games saved (its square: how many
times fewer games the adjusted comparison needs for the same half-width), the bias check (the gap
between the two estimates, which is the pair's mean luck, with its own interval: it should cover 0),
and the CPU time per round (or game) of each run.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import pandas as pd

from llama_sim.analysis.runs import Progress, game_options, load_strategies, play_mode, rules_line, values_at_counts
from llama_sim.core import registry, stats
from llama_sim.core.luck import LUCK_METRIC, LUCK_SCALE, resolve
from llama_sim.core.output import ci_text, columns_text
from llama_sim.core.ruleset import get_game
from llama_sim.run.backends import run
from llama_sim.run.chunks import blocks_for
from llama_sim.run.designs import comparison_design, with_luck_of

METRIC = "penalty_per_round"
COLUMNS = ["game", "players", "strategy_a", "strategy_b", "metric", "plain", "plain_ci_low", "plain_ci_high",
           "adjusted", "adjusted_ci_low", "adjusted_ci_high", "half_width_ratio", "games_saved", "luck_gap",
           "luck_gap_ci_low", "luck_gap_ci_high", "cpu_us_off", "cpu_us_on", "deals", "seed"]


@dataclass
class LuckGainResult:
    """``luck_gain``: one row per player count and pair (``gains``)."""

    gains: pd.DataFrame
    header: str
    run: dict = field(default_factory=dict)

    def plot(self):
        from llama_sim.analysis.plots import plot_luck_gain

        return plot_luck_gain(self)

    @property
    def text(self) -> str:
        """The readable table: one line per player count and pair."""
        head = ["players", "a", "b", "plain a - b", "adjusted a - b", "ratio", "games saved", "luck gap",
                "CPU us off", "on"]
        body = [[str(r.players), r.strategy_a, r.strategy_b,
                 ci_text(r.plain, r.plain_ci_low, r.plain_ci_high, sign=True),
                 ci_text(r.adjusted, r.adjusted_ci_low, r.adjusted_ci_high, sign=True),
                 f"{r.half_width_ratio:.2f}", f"{r.games_saved:.2f}",
                 ci_text(r.luck_gap, r.luck_gap_ci_low, r.luck_gap_ci_high, sign=True),
                 f"{r.cpu_us_off:.2f}", f"{r.cpu_us_on:.2f}"] for r in self.gains.itertuples()]
        return ("Paired differences of penalty per round (a - b, 95% intervals over deal blocks), luck off and "
                "on, on the same deals;\nratio: plain / adjusted half-width; games saved: its square; luck "
                "gap: plain - adjusted (the pair's mean luck, unbiased: should cover 0)\n"
                + columns_text([head] + body, keep=3))


def luck_gap(tally, a: int, b: int, level: float = 0.95) -> tuple[float, float, float]:
    """The plain minus the adjusted paired difference of penalty per round of units ``a`` and ``b``: the
    pair's mean luck per round, with a t interval over design blocks (delta method, as ``stats``)."""
    b_count = tally.blocks
    g = np.zeros(tally.dim)
    gap = 0.0
    for unit, sign in ((a, 1.0), (b, -1.0)):
        k = tally.index(LUCK_METRIC, unit)
        if tally.mode == "game":
            j = tally.index("rounds", unit)
            y_total = int(tally.s1[j])
        else:
            j, y_total = None, int(tally.appearances[unit]) * b_count
        value = int(tally.s1[k]) / LUCK_SCALE / y_total
        ybar = y_total / b_count
        gap += sign * value
        g[k] += sign / (LUCK_SCALE * ybar)
        if j is not None:
            g[j] -= sign * value / ybar
    cov = stats.block_covariance(tally)
    if cov is None:
        return gap, math.nan, math.nan
    half = stats.t_value(level, b_count - 1) * math.sqrt(max(float(np.sum(np.outer(g, g) * cov)) / b_count, 0.0))
    return gap, gap - half, gap + half


def luck_gain(game: str, strategies: Sequence[str], *, players: Union[None, int, Sequence[int]] = None,
              rounds: Optional[int] = None, games: Optional[int] = None, seed: int = 1,
              threads: Optional[int] = None, strategies_file: Optional[Path] = None, quiet: bool = False,
              **rule_options) -> LuckGainResult:
    """Measure what luck adjustment saves comparing ``strategies`` at each player count (default 2 and 4,
    within the rule set's range): ``llamasim luck-gain --game G A B [--players N ...]``."""
    spec = get_game(game)
    resolve(spec, True)  # a rule set without a value function: one line
    load_strategies(strategies_file)
    games_mode, count = play_mode(rounds, games)
    entries = [registry.parse_spec(spec.name, s) for s in strategies]
    cfg = spec.config(**game_options(**rule_options))
    if players is None:
        counts = [n for n in (2, 4) if spec.min_players <= n <= spec.max_players] or [spec.min_players]
    else:
        counts = [players] if isinstance(players, int) else list(players)
    unit = "games" if games_mode else "rounds"
    rows, infos, work = [], [], None
    for n in counts:
        work = comparison_design(spec, n, entries, games_mode, cfg)
        n_blocks = blocks_for(work, count)
        tallies, cpu = {}, {}
        for luck in (False, True):
            run(with_luck_of(work, luck), seed, 0, 1, threads)  # compiled or loaded before the clock starts
            progress = Progress(n_blocks * len(work.tables), not quiet, unit)
            start = time.process_time()
            try:
                tallies[luck] = run(with_luck_of(work, luck), seed, 0, n_blocks, threads, progress)
            finally:
                progress.close()
            cpu[luck] = (time.process_time() - start) / (n_blocks * work.rows) * 1e6
        plain = stats.paired(tallies[False], METRIC)
        adjusted = stats.paired(tallies[True], METRIC)
        for p, q in zip(plain.itertuples(), adjusted.itertuples()):
            adjusted_width = q.ci_high - q.ci_low  # (0 for two copies of one strategy; NaN below MIN_BLOCKS)
            ratio = (p.ci_high - p.ci_low) / adjusted_width if adjusted_width > 0 else math.nan
            gap = luck_gap(tallies[True], p.unit_a, p.unit_b)
            rows.append([spec.name, n, work.unit_labels[p.unit_a], work.unit_labels[p.unit_b], METRIC, p.diff,
                         p.ci_low, p.ci_high, q.diff, q.ci_low, q.ci_high, ratio, ratio ** 2, *gap,
                         cpu[False], cpu[True], tallies[True].blocks * len(work.tables), seed])
        infos.append({"players": n, "deal_blocks": n_blocks, unit: n_blocks * work.rows})
    gains = pd.DataFrame(rows, columns=COLUMNS)
    header = (f"{spec.title}: what luck adjustment saves, {' vs '.join(work.unit_labels)} at "
              f"{', '.join(map(str, counts))} players, the same {unit} with luck off and on, seed {seed}"
              f"{values_at_counts(entries, counts)}{rules_line(spec, cfg)}")
    return LuckGainResult(gains, header, {"seed": seed, "rules": spec.describe_config(cfg), "tables": infos})
