"""``solve``: exact values where a rule set has an exact solver (``RuleSet.exact_solver``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import pandas as pd

from llama_sim.analysis.runs import game_options
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game, solvable_names


@dataclass
class SolveResult:
    """``solve``: the dice solo phase solved exactly; ``policy`` has one row per position (row,
    quit_value, roll_value, best, value, and with ``table`` the ``keeps`` column)."""

    policy: pd.DataFrame
    text: str
    run: dict = field(default_factory=dict)
    title: str = ""  # what the plot says was solved
    subject: str = ""  # what was solved, for a summary across option values
    dealt: Optional[tuple[float, float]] = None  # (optimal, quit at once) over the deal, when the table has it

    @property
    def results(self) -> pd.DataFrame:
        return self.policy

    def plot(self):
        from llama_sim.analysis.plots import plot_solve

        return plot_solve(self)


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
    solved = spec.exact_solver(row=row, llama_row=llama_row, table=table, score=score,
                               **game_options(**rule_options))
    return SolveResult(solved.table, solved.text, {"rules": solved.rules}, solved.title, solved.subject,
                       solved.dealt)
