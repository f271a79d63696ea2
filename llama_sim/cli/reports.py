"""Experiment specs and the built-in reports: ``llamasim run`` and ``llamasim report``."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from llama_sim.cli.app import FormatOpt, QuietOpt, app, compile_notice, declared
from llama_sim.core.commands import COMMANDS
from llama_sim.core.output import check_format
from llama_sim.core.ruleset import all_games, get_game


# ------------------------------------------------------------------------------------ experiments

def _reported() -> str:
    """The rule sets with a built-in report: ``a, b or c``."""
    names = [name for name, rule_set in all_games().items() if rule_set.report_spec is not None]
    return " or ".join(filter(None, [", ".join(names[:-1]), names[-1]])) if names else "none"


GameOpt = typer.Option(..., "--game", "-g", help=f"Rule set: {_reported()}.")
ScaleOpt = typer.Option(1.0, "--scale", help="Multiply every rounds/games count (e.g. 0.01 for a quick look).")


def _report_options(out: Optional[Path], scale: float) -> str:
    """The options of a run that change what it writes, for run.json's command."""
    return (f" --out {out}" if out is not None else "") + (f" --scale {scale:g}" if scale != 1 else "")


def _report(spec, out: Optional[Path], scale: float, force: bool, quiet: bool, fmt: str, command: str) -> None:
    import pandas as pd

    from llama_sim import api

    check_format(fmt)
    compile_notice(quiet)
    r = api.run_experiment(spec, out=out, scale=scale, force=force, quiet=quiet, command=command)
    if fmt == "json":
        sys.stdout.write(json.dumps({"out": str(r.out), **r.run}, indent=1, default=str) + "\n")
        return
    if fmt == "csv":
        pd.DataFrame([{"step": s["name"], "kind": s["kind"], "seconds": s["seconds"], "conclusion": s["conclusion"]}
                      for s in r.run["steps"]]).to_csv(sys.stdout, index=False)
        return
    print(f"{r.spec.name}: {r.spec.question}")
    for step in r.steps:
        print(f"- {step.step.title}: {step.conclusion}")
    print(f"wrote {r.out}/ (report.md, report.html, run.json, tables/, plots/)")


@app.command("run")
@declared("run")
def run_spec(fmt: str = FormatOpt, **params):
    """Run an experiment spec (TOML) and write its report folder.

    \b
    The spec is validated completely before anything runs. The folder holds
    tables/ (CSV and Parquet), plots/ (PNG and SVG), report.md, a
    self-contained report.html and run.json (command, seed, version, git
    commit, rule-set options, timings). Same spec and seed: same tables."""
    values = COMMANDS["run"].read(params)
    spec, out, scale = values["spec"], values["out"], values["scale"]
    _report(spec, out, scale, values["force"], values["quiet"], fmt, f"llamasim run {spec}" + _report_options(out, scale))


@app.command("report")
def report(
    game: str = GameOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Report folder (default reports/<game>-league, the committed report)."),
    scale: float = ScaleOpt,
    force: bool = typer.Option(False, "--force", help="Replace the report folder if it exists."),
    quiet: bool = QuietOpt, fmt: str = FormatOpt,
):
    """The built-in strategy report of a rule set: a league table of its built-in strategies and the
    first-player advantage (a spec bundled with the package; --scale sizes it)."""
    from llama_sim.present.experiment import bundled_report_spec

    path = bundled_report_spec(game)
    _report(path, out, scale, force, quiet, fmt, f"llamasim report --game {get_game(game).name}"
            + _report_options(out, scale))


