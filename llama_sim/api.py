"""The Python API: the one layer that the CLI, the experiment runner and notebooks call.

Each function runs one kind of experiment and returns a result object whose attributes are tidy
pandas DataFrames with the same columns as the CLI's tables, plus ``plot()`` (a matplotlib Figure,
see ``llama_sim.analysis.plots``) and ``text`` (what the CLI prints for ``--format table``)::

    import llama_sim
    r = llama_sim.compare("lama", ["smart", "greedy"], players=4, rounds=100_000, seed=1)
    r.results, r.paired, r.ranking      # DataFrames
    r.plot().savefig("compare.png")

Same arguments, same numbers as the CLI (``llamasim compare --game lama --players 4 smart greedy
--rounds 100000 --seed 1``). Bad input raises ``llama_sim.core.errors.UsageError`` with the message the
CLI prints. ``quiet=False`` (the default) prints the CLI's notes on stderr and a progress bar when
stderr is a terminal.
"""
from __future__ import annotations

from llama_sim.analysis import advise as _advise, chart as _chart, compare as _compare, league as _league
from llama_sim.analysis import grade as _grade, tune as _tune, variants as _variants
from llama_sim.analysis.compare import CompareResult, SeatTableResult, SimulateResult, SolveResult, SweepResult
from llama_sim.core.arguments import checked
from llama_sim.present import experiment as _experiment

# Every function checks its arguments as the CLI does (``core.arguments``): a wrong type or a
# misspelt keyword is one UsageError, not a TypeError from inside a run or a silently wrong run.
simulate = checked(_compare.simulate)
compare = checked(_compare.compare)
seat_table = checked(_compare.seat_table)
sweep = checked(_compare.sweep)
solve = checked(_compare.solve)
advise = checked(_advise.advise)
chart = checked(_chart.chart)
tune = checked(_tune.tune)
league = checked(_league.league)
grade = checked(_grade.grade)
compare_variants = checked(_variants.compare_variants)
run_experiment = checked(_experiment.run_experiment)

__all__ = ["simulate", "compare", "seat_table", "sweep", "solve", "advise", "chart", "tune", "league",
           "grade", "run_experiment", "compare_variants", "CompareResult", "SeatTableResult", "SimulateResult",
           "SolveResult", "SweepResult"]
