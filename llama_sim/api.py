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

from llama_sim.analysis import advise as _advise, card as _card, chart as _chart, compare as _compare
from llama_sim.analysis import league as _league, luck as _luck
from llama_sim.analysis import check as _check, grade as _grade, trace as _trace, tune as _tune
from llama_sim.analysis import simulate as _simulate, solve as _solve, sweep as _sweep, variants as _variants
from llama_sim.analysis.compare import CompareResult, SeatTableResult
from llama_sim.analysis.simulate import SimulateResult
from llama_sim.analysis.solve import SolveResult
from llama_sim.analysis.sweep import SweepResult
from llama_sim.core.arguments import declared_api
from llama_sim.core.commands import COMMANDS
from llama_sim.present import experiment as _experiment

# Every function reads its arguments with its command's declaration (``core.commands``), as the
# command line and experiment specs do: a wrong type, a value out of range or a misspelt keyword is
# one UsageError with the same words, never a TypeError from inside a run or a silently wrong run.
simulate = declared_api(COMMANDS["simulate"], _simulate.simulate)
compare = declared_api(COMMANDS["compare"], _compare.compare)
seat_table = declared_api(COMMANDS["seat_table"], _compare.seat_table)
sweep = declared_api(COMMANDS["sweep"], _sweep.sweep)
luck_gain = declared_api(COMMANDS["luck_gain"], _luck.luck_gain)
solve = declared_api(COMMANDS["solve"], _solve.solve)
advise = declared_api(COMMANDS["advise"], _advise.advise)
chart = declared_api(COMMANDS["chart"], _chart.chart)
card = declared_api(COMMANDS["card"], _card.card)
tune = declared_api(COMMANDS["tune"], _tune.tune)
league = declared_api(COMMANDS["league"], _league.league)
grade = declared_api(COMMANDS["grade"], _grade.grade)
compare_variants = declared_api(COMMANDS["variants"], _variants.compare_variants)
run_experiment = declared_api(COMMANDS["run"], _experiment.run_experiment)
trace = declared_api(COMMANDS["trace"], _trace.trace)
check = declared_api(COMMANDS["check"], _check.check)

__all__ = ["simulate", "compare", "seat_table", "sweep", "luck_gain", "solve", "advise", "chart", "card", "tune", "league",
           "grade", "trace", "check", "run_experiment", "compare_variants", "CompareResult", "SeatTableResult", "SimulateResult",
           "SolveResult", "SweepResult"]
