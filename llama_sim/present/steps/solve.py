"""The solve step: the exact solo policy of a rule set with a solver (no sampling, so ``--scale``
leaves it alone and it reports no seed)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from llama_sim.analysis.solve import solve
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind


def _run_solve(spec: Spec, args: dict, quiet: bool) -> list:
    return [solve(spec.game, **args, **spec.options)]


def _conclude_solve(results: list) -> str:
    df = results[0].policy
    if len(df) == 1:
        r = df.iloc[0]
        other = "quitting" if r.best == "roll" else "rolling on"
        return (f"In row {r.row} (llama row {r.llama_row}, dice {r.dice_layout}, score {r.score}) the optimum is to "
                f"{r.best}: rolling on is expected to add {r.roll_value:.3f} points to the score (less tokens "
                f"returned), quitting {r.quit_value:.3f}, so {r.best} beats {other} by "
                f"{abs(r.roll_value - r.quit_value):.3f} points (exact).")
    roll = df[df.best == "roll"]
    quit_ = df[df.best == "quit"]
    always = quit_.quit_value.max() + 1 if len(quit_) else 0
    never = roll.quit_value.min() - 1 if len(roll) else df.quit_value.max()
    return (f"With dice {df.dice_layout.iloc[0]}, llama row {df.llama_row.iloc[0]} and score {df.score.iloc[0]}, the "
            f"optimal solo policy rolls in {len(roll)} of {len(df)} rows: always when the row's penalty is {always:g} or "
            f"more, never when it is {never:g} or less (exact).")


def _method_solve(args: dict, results: list) -> str:
    return "Solved exactly by dynamic programming over the row and the score: no sampling."


def _display_solve(results: list) -> pd.DataFrame:
    df = results[0].policy
    cols = ["row", "quit_value", "roll_value", "best"]
    shown = df[cols] if len(df) <= 40 else df[cols].sort_values("quit_value").iloc[
        np.linspace(0, len(df) - 1, 30).round().astype(int)]
    return shown.round(4).rename(columns={"quit_value": "quit now", "roll_value": "roll on (expected)"})


KIND = StepKind(run=_run_solve, tables=("policy",), conclude=_conclude_solve, display=_display_solve,
                method=_method_solve, answers_on=lambda results: {"penalty_per_round"},
                terms=lambda results: ["exact"], scale=lambda args, scale: args, exact=True)
