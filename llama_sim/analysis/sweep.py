"""``sweep``: one or two parameters of a strategy against fixed opponents, every value on the same deals."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from llama_sim.analysis.runs import (
    Progress, game_options, interval_note, load_strategies, luck_line, play_mode, result_table, rules_line,
)
from llama_sim.core.output import ci_text
from llama_sim.core import registry, stats
from llama_sim.core.commands import SWEEP
from llama_sim.core.errors import UsageError
from llama_sim.core.registry import with_values
from llama_sim.core.ruleset import get_game
from llama_sim.run.backends import run
from llama_sim.run.chunks import blocks_for
from llama_sim.core.luck import resolve
from llama_sim.run.designs import comparison_design, sweep_design, with_luck_of


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
            value, diff = ci_text(r.value, r.ci_low, r.ci_high), ci_text(r.diff, r.diff_ci_low, r.diff_ci_high, sign=True)
            lines.append(f"{values}  {value:>26}  {diff}{mark}")
        lines.append("~ best: the paired 95% interval of its difference to the best value covers 0 "
                     "(the data cannot separate them)")
        return "\n".join(lines)

    def plot(self):
        from llama_sim.analysis.plots import plot_sweep

        return plot_sweep(self)


def _sweep_axes(param) -> list[tuple[str, np.ndarray]]:
    """One or two axes from the declared grid (``core.commands``: ``k=lo:hi:step`` strings or a
    ``{name: values}`` table)."""
    grid = SWEEP.param("param").read(param)
    return [(k, np.asarray(v, dtype=np.float64)) for k, v in grid.items()]


def sweep(game: str, strategy: str, param, *, vs: Sequence[str] = (), players: int = 4,
          rounds: Optional[int] = None, games: Optional[int] = None, luck: Optional[bool] = None, seed: int = 1,
          threads: Optional[int] = None, strategies_file: Optional[Path] = None, quiet: bool = False,
          **rule_options) -> SweepResult:
    """Sweep one or two parameters of ``strategy`` against fixed opponents ``vs`` (default: the
    strategy at its defaults), every value on the same deals: ``llamasim sweep --game G --strategy S
    --param k=lo:hi:step [--param k2=lo:hi:step] --vs A``.

    ``param``: ``"k=lo:hi:step"``, a list of one or two of them, or ``{"k": [values], ...}``. Two
    parameters sweep their grid (first parameter outermost). The headline metric is
    ``penalty_per_round`` (lower is better), or ``win_rate`` with ``games``; ``luck``: luck-adjusted
    penalties (``core.luck``; None: the rule set's default)."""
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
    # All values in one design on the same deals (``designs.sweep_design``): each value's numbers
    # equal its own run's, and the paired difference of any two values is known.
    plan = comparison_design(spec, players, [swept_players[0]] + opponents, games_mode, cfg)
    joint = with_luck_of(sweep_design(spec, players, swept_players, opponents, games_mode, cfg), resolve(spec, luck))
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
              f"\nparameters: {'; '.join(played)}{rules_line(spec, cfg)}{luck_line(joint)}"
              f"{interval_note(n_blocks, plan.rows, games_mode)}")
    return SweepResult(table, summary, keys, headline, plan.unit_labels[1], header,
                       {"seed": seed, "rules": spec.describe_config(cfg), **({"luck": "on"} if joint.luck else {})})
