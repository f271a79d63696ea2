"""The step kinds (``STEP_KINDS``): one module per kind holds all of its presentation and run (how it
runs, how ``--scale`` applies to it, its answer, method line, compact table, glossary terms, report
sections, where its points and wins disagree, the measures its answer speaks of) and ends in its
``KIND``; ``common`` holds what several kinds share and runs a step once per value of its option grid.
A new kind is one module and one line here."""
from __future__ import annotations

from llama_sim.present.steps import (
    advise, card, chart, compare, grade, league, luck_gain, seat_table, simulate, solve, sweep, tune, variants,
)
from llama_sim.present.steps.common import StepKind, StepOutcome, run_option_grid, tag_text

__all__ = ["STEP_KINDS", "StepKind", "StepOutcome", "run_option_grid", "tag_text"]

STEP_KINDS: dict[str, StepKind] = {
    "compare": compare.KIND,
    "league": league.KIND,
    "seat_table": seat_table.KIND,
    "sweep": sweep.KIND,
    "luck_gain": luck_gain.KIND,
    "solve": solve.KIND,
    "simulate": simulate.KIND,
    "advise": advise.KIND,
    "chart": chart.KIND,
    "card": card.KIND,
    "tune": tune.KIND,
    "grade": grade.KIND,
    "variants": variants.KIND,
}
