"""Experiment specs (TOML) and the reports they produce (``llamasim run SPEC``).

A spec holds a question in words and the steps that answer it::

    name = "lama-quit"                      # optional: the file name without .toml
    question = "When should a L.A.M.A. player stop drawing and quit?"
    game = "lama"
    seed = 1
    # options = { dice_layout = "12-34-56" }  (dice) or { deck_file = "symbols.toml" } (kadabra)
    # defaults for every step: players, rounds | games | precision (+ max_rounds)

    [[steps]]
    kind = "compare"                        # compare | league | seat_table | sweep | solve | simulate
    strategies = ["smart", "threshold", "greedy"]   # or "all": every built-in strategy
    players = [3, 4, 5, 6]                  # one comparison per count
    games = 20000

    [[steps]]
    kind = "league"                         # every line-up of N of the strategies, N = each count
    strategies = "all"                      # the default
    players = [2, 3, 4, 5, 6]               # the default: every count the rule set allows
    games = 200000                          # in all per player count, spread over the line-ups

    [[steps]]
    kind = "sweep"
    strategy = "threshold"
    grid = { quit_at = "0:14:1" }           # "lo:hi:step" or a list of values; two keys: a 2-D grid
    vs = ["greedy"]
    players = 4
    rounds = 200000

The whole spec is validated before anything runs: an unknown key, a wrong type, an unknown
strategy or parameter, a bad grid, a player count the rule set does not allow: one error naming
the key (``steps[2].grid.quit_at: ...``), exit status 2.

``run_experiment`` runs the steps through the API (``llama_sim.api``) and writes the report folder
(default ``reports/<name>/``): ``tables/`` (CSV and Parquet of every table), ``plots/`` (PNG and
SVG), ``report.md``, ``report.html`` (self-contained: plots embedded) and ``run.json`` (command,
seed, package version, git commit, rule-set options, timings). ``scale`` multiplies every rounds,
games and max_rounds count (precision targets are widened by ``1/sqrt(scale)``), for a quick look.
The same spec and seed give identical tables. Each step states its answer in one or two plain
sentences, derived from the data, each estimate with its interval; the report puts the answers
first, then the terms it uses (a spec may define its own: ``terms = { quit_at = "..." }``), then
the spec's ``reading`` (a paragraph reconciling measures or giving context), then each step's
evidence.

Rule-set options per step: ``options = { dice_layout = "13-25-46" }`` on a step overrides the
spec's ``options`` for that step; ``option_grid = { dice_layout = "all" }`` (or a list of values)
runs the step once per value (``"all"``: every value the rule set names, e.g. the 15 dice layouts).
Each value plays its own deals (seed, seed + 1, ... in grid order), so the runs are independent: the
step's tables gain a column per grid key, and its conclusion and summary table across the values
(``llama_sim.present.across``) compare values with unpaired intervals.

Step kinds are a table (``STEP_KINDS``): a kind names its keys and its run, table, conclusion and
display functions and how ``--scale`` applies to it, so a new kind is one module and one entry.

This module holds the entry points (``load_spec``, ``run_experiment``, ``bundled_report_spec``); the
parts live next to it: ``spec`` (the spec records and each kind's validation), ``step_options``
(per-step options and option grids), ``steps`` (a package, one module per kind: run, conclusion,
display and the rest of its presentation) and ``report`` (report.md, report.html, run.json and the
folder).
"""
from __future__ import annotations

import math
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from llama_sim.core.commands import SEED, STRATEGIES_FILE, Problem
from llama_sim.core.errors import UsageError
from llama_sim.present.report import ExperimentResult, check_out_dir, default_out, write_report
from llama_sim.present.spec import (
    COUNT_KEYS, MAX_STEP_NAME, TOP_KEYS, Checker, Spec, SpecError, Step, check_step, step_command, step_keys,
    type_name,
)
from llama_sim.present.step_options import STEP_OPTION_KEYS, check_step_options, step_rules_json, step_spec
from llama_sim.present.steps import STEP_KINDS, StepOutcome, run_option_grid

# ------------------------------------------------------------------------------------ loading

def load_spec(source, name: Optional[str] = None) -> Spec:
    """Read and validate a spec (a TOML path, or an already parsed dict); raises ``SpecError``."""
    from llama_sim.core import registry
    from llama_sim.core.ruleset import get_game

    if isinstance(source, dict):
        raw, label, folder = source, "<spec>", Path.cwd()
    else:
        path = Path(source)
        label, folder = str(path), path.parent
        if not path.is_file():
            raise SpecError(f"{path}: spec file not found")
        try:
            raw = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path}: not valid TOML: {exc}") from None
        except RecursionError:  # tomllib parses nested arrays and tables recursively
            raise SpecError(f"{path}: not valid TOML: nested too deeply") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"{path}: cannot read: {exc}") from None
        name = name or path.stem
    check = Checker(label)
    check.unknown("", raw, TOP_KEYS)
    for key in ("question", "game", "steps"):
        if key not in raw:
            check.fail(key, "is required")
    name = check.string("name", raw["name"]) if "name" in raw else (name or "experiment")
    if any(c in name for c in "/\\") or name.startswith("."):
        check.fail("name", f"'{name}' must be a plain folder name")
    question = check.string("question", raw["question"])
    terms = check.terms("terms", raw["terms"]) if "terms" in raw else {}
    reading = None
    if "reading" in raw:  # paragraphs (blank lines between them), each on one line
        paragraphs = [" ".join(p.split()) for p in check.string("reading", raw["reading"]).split("\n\n")]
        reading = "\n\n".join(p for p in paragraphs if p)
    try:
        game = get_game(check.string("game", raw["game"]))
    except UsageError as exc:
        check.fail("game", str(exc))
    seed = check.read("seed", SEED, raw.get("seed", 1))  # as --seed and the API read it
    options = raw.get("options", {})
    if not isinstance(options, dict):
        check.fail("options", f"must be a table, not {type_name(options)}")
    options = dict(options)
    for key, value in options.items():
        check.string(f"options.{key}", value)
    for key in game.file_options & set(options):  # read relative to the spec, wherever it is run from
        options[key] = folder / options[key]
    try:
        game.config(**options)
    except UsageError as exc:
        check.fail("options", str(exc))
    strategies_file = None
    if "strategies_file" in raw:  # a path or a list of paths, each relative to the spec
        strategies_file = [folder / path for path in check.read("strategies_file", STRATEGIES_FILE,
                                                                raw["strategies_file"])]
        try:
            registry.load_files(strategies_file)
        except UsageError as exc:
            check.fail("strategies_file", str(exc))
    defaults = {k: raw[k] for k in ("players",) + COUNT_KEYS if k in raw}
    steps_raw = raw["steps"]
    if not isinstance(steps_raw, list) or not steps_raw:
        check.fail("steps", "must be a non-empty array of tables ([[steps]])")
    steps, names = [], set()
    for i, step in enumerate(steps_raw):
        where = f"steps[{i}]."
        if not isinstance(step, dict):
            check.fail(f"steps[{i}]", f"must be a table, not {type_name(step)}")
        if "kind" not in step:
            check.fail(f"{where}kind", f"is required ({', '.join(STEP_KINDS)})")
        kind = check.string(f"{where}kind", step["kind"])
        if kind not in STEP_KINDS:
            check.fail(f"{where}kind", f"unknown step kind '{kind}' (use {', '.join(STEP_KINDS)})")
        step_game, spec_options = game, options
        if "game" in step:  # a step of another rule set: the spec's rule-set options are not its own
            try:
                step_game = get_game(check.string(f"{where}game", step["game"]))
            except UsageError as exc:
                check.fail(f"{where}game", str(exc))
            spec_options = {} if step_game is not game else options
        allowed = step_keys(kind, step_game) | STEP_OPTION_KEYS | {"kind", "name", "title", "game"}
        for key in [k for k in step if k not in allowed]:  # in the spec's order: the first is named
            try:  # the words the command line and the API use for a parameter the command does not take
                step_command(kind).unknown(key)
            except Problem as exc:
                check.fail(f"{where}{key}", exc.problem)
        step_name = check.string(f"{where}name", step["name"]) if "name" in step else f"{i + 1}-{kind}"
        if not all(c.isalnum() or c in "-_" for c in step_name):
            check.fail(f"{where}name", f"'{step_name}' may hold only letters, digits, - and _")
        if len(step_name) > MAX_STEP_NAME:
            check.fail(f"{where}name", f"is {len(step_name)} characters long; at most {MAX_STEP_NAME} (it names files)")
        if step_name in names:
            check.fail(f"{where}name", f"'{step_name}' is used by another step")
        names.add(step_name)
        title = check.string(f"{where}title", step["title"]) if "title" in step else kind.replace("_", " ")
        step_options, option_grid = check_step_options(check, where, step, spec_options, folder, step_game)
        rules = spec_options if step_options is None else step_options
        if not step_command(kind).rule_options and (rules or option_grid):
            key = f"{where}options" if STEP_OPTION_KEYS & set(step) else "options"
            check.fail(key, f"a {kind} step plays the rule set's own rules and takes no rule-set options "
                            f"(steps[{i}])")
        args = check_step(check, where, kind, step, rules, defaults, step_game)
        steps.append(Step(kind, step_name, title, args, step_options, option_grid,
                          None if step_game is game else step_game.name))
    return Spec(name, question, game.name, seed, options, steps, label, raw, strategies_file, terms, reading)


# ------------------------------------------------------------------------------------ running

def _git(*args: str) -> Optional[str]:
    try:
        res = subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def _git_commit() -> Optional[str]:
    """The package's commit, with ``+dirty`` when its sources differ from it (None outside git)."""
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return None
    return commit + ("+dirty" if _git("status", "--porcelain", "--", ".") else "")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("llama_sim")
    except Exception:  # not installed (run from a source tree)
        return "unknown"


def run_experiment(spec, *, out: Optional[Path] = None, scale: float = 1.0, force: bool = False,
                   quiet: bool = False, command: Optional[str] = None, write: bool = True) -> ExperimentResult:
    """Validate ``spec`` (path or dict) completely, run its steps, write the report folder."""
    from llama_sim.core.ruleset import get_game

    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and 0 < scale <= 1000):
        raise UsageError(f"--scale must be a positive number (at most 1000), not {scale}")
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    check_scaled(spec, scale)
    if write:
        check_parquet()
    if out is None:
        out = default_out(spec)
        if write:
            out.parent.mkdir(parents=True, exist_ok=True)  # the default reports/ folder
    out = Path(out)
    if write:
        check_out_dir(out, force)
    game = get_game(spec.game)
    outcomes = []
    started = time.perf_counter()
    for i, step in enumerate(spec.steps):
        entry = STEP_KINDS[step.kind]
        if not quiet:
            print(f"llamasim: step {i + 1}/{len(spec.steps)}: {step.name} ({step.title})", file=sys.stderr,
                  flush=True)
        t0 = time.perf_counter()
        if step.option_grid:
            outcomes.append(run_option_grid(spec, step, entry, scale, quiet, t0))
            continue
        args = entry.scale(step.args, scale)
        results = entry.run(step_spec(spec, step), args, quiet)
        seconds = time.perf_counter() - t0
        tables = {t: pd.concat([getattr(r, t) for r in results], ignore_index=True) for t in entry.tables}
        step_game = get_game(step.game or spec.game)
        own = [] if step.options is None else ["Rule-set options of this step: " + "; ".join(
            f"{k.replace('_', ' ')}: {v}" for k, v in step_game.describe_config(step_game.config(**step.options)).items())]
        outcomes.append(StepOutcome(step, results, tables, entry.conclude(results), entry.display(results), seconds,
                                    details=own, args=args))
    run_info = {
        "command": command or f"llama_sim.run_experiment({spec.source!r}, scale={scale})",
        "spec": spec.source, "name": spec.name, "question": spec.question, "game": spec.game,
        "seed": spec.seed, "scale": scale, "llama_sim_version": _version(), "git_commit": _git_commit(),
        "python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__,
        "rules": game.describe_config(game.config(**spec.options)),
        "steps": [{"name": o.step.name, "kind": o.step.kind, "arguments": _jsonable(
                       STEP_KINDS[o.step.kind].scale(o.step.args, scale)), **step_rules_json(spec, o.step, game),
                   "seconds": round(o.seconds, 3), "conclusion": o.conclusion} for o in outcomes],
        "seconds": round(time.perf_counter() - started, 3),
    }
    result = ExperimentResult(spec, outcomes, out if write else None, run_info)
    if write:
        write_report(result, out, force)
    return result


def check_scaled(spec: Spec, scale: float) -> None:
    """Every step's sizes after ``--scale`` within what its command accepts, before step 1 runs."""
    if scale == 1:
        return
    for i, step in enumerate(spec.steps):
        command = step_command(step.kind)
        for name, value in STEP_KINDS[step.kind].scale(step.args, scale).items():
            if name in command.names and name not in ("players", "precision") and value != step.args.get(name):
                try:
                    command.param(name).read(value)
                except Problem as exc:
                    raise SpecError(f"{spec.source}: steps[{i}].{command.param(name).key}: {exc.problem} "
                                    f"(after --scale {scale:g})") from None


def check_parquet() -> None:
    """A report writes its tables as Parquet too: say so before any work if pyarrow is missing."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise UsageError("writing a report needs pyarrow for its Parquet tables (pip install pyarrow)")


def _jsonable(args: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in args.items()}


def bundled_report_spec(game: str) -> Path:
    """The built-in strategy report of a rule set (``llamasim report --game G``)."""
    from llama_sim.core.ruleset import get_game

    rule_set = get_game(game)
    if rule_set.report_spec is None or not Path(rule_set.report_spec).is_file():
        raise UsageError(f"no built-in report for {rule_set.name}")
    return Path(rule_set.report_spec)
