"""``simulate``: one fixed line-up, each seat reported."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd

from llama_sim.analysis.runs import (
    game_options, interval_note, load_strategies, play_mode, result_table, rules_line, run_plan, values_line,
)
from llama_sim.core import registry
from llama_sim.core.ruleset import get_game
from llama_sim.core.luck import resolve
from llama_sim.run.designs import seat_plan, with_luck_of


@dataclass
class SimulateResult:
    """``simulate``: each seat's results (``results``, the contract layout)."""

    results: pd.DataFrame
    header: str  # the CLI's preamble: rule set, players, plays, seed, rule-set options
    run: dict = field(default_factory=dict)

    def plot(self):
        from llama_sim.analysis.plots import plot_simulate

        return plot_simulate(self)


def simulate(game: str, seats: Sequence[str], *, rounds: Optional[int] = None, games: Optional[int] = None,
             luck: Optional[bool] = None, seed: int = 1, threads: Optional[int] = None,
             strategies_file: Optional[Path] = None, quiet: bool = False, **rule_options) -> SimulateResult:
    """Play a fixed line-up (``seats[0]`` starts; each entry ``name`` or ``name:k=v,k=v``) and
    report each seat: ``llamasim simulate --game G -s A -s B ...``. ``luck``: luck-adjusted penalties
    (``core.luck``; None: the rule set's default). ``rule_options``: rule
    variants by name (``pink_llama="plain"``, ``magic_show="off"``, ...; see ``game_options``)."""
    spec = get_game(game)
    load_strategies(strategies_file)
    games_mode, count = play_mode(rounds, games)
    players = [registry.parse_spec(spec.name, s) for s in seats]
    plan = with_luck_of(seat_plan(spec, players, games_mode, spec.config(**game_options(**rule_options))),
                        resolve(spec, luck))
    tally = run_plan(plan, count, seed, threads, quiet)
    unit = "games" if games_mode else "rounds"
    header = (f"{spec.title}, {plan.n_players} players, {tally.blocks} {unit}, seed {seed} "
              f"(95% intervals){rules_line(spec, plan.cfg)}{values_line(plan)}"
              f"{interval_note(tally.blocks, plan.rows, games_mode)}")
    return SimulateResult(result_table(plan, tally, seed), header,
                          {"seed": seed, unit: tally.blocks, "rules": spec.describe_config(plan.cfg),
                           **({"luck": "on"} if plan.luck else {})})
