"""Commands that answer a question about play: advise, chart, tune, solve (each imports the API when
it runs)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from llama_sim.cli.app import (
    FormatOpt, ForceOpt, OutOpt, PlotOpt, QuietOpt, aligned, app, check_plot, ci_cell, declared, out_paths,
    position_options, pval, rule_set_options, save_plot, setup,
)
from llama_sim.core.commands import COMMANDS
from llama_sim.core.errors import UsageError
from llama_sim.core.output import check_format, check_new_file, check_out, emit


# ------------------------------------------------------------------------------------ advise


@app.command()
@rule_set_options
@position_options
@declared("advise")
def advise(plot: Optional[Path] = PlotOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt,
           quiet: bool = QuietOpt, **params):
    """Expected points of each legal action in a typed-in position, best first: determinized
    roll-outs (common random numbers for all actions), or the exact solver for a lone dice player.
    Default stop: the best action 3 standard errors clear of the runner-up, or every 95% half-width
    below 0.02, at most --max-rollouts."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    check_plot(plot, force)
    params.setdefault("threads", os.cpu_count())
    res = api.advise(**params)
    game, seed = params["game"], params.get("seed", 1)
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(res.plot(), plot, force)
    emit(res.table, fmt, out, preamble=f"{game}: advice for {res.table_line()}\n({res.how()}; horizon "
                                       f"{res.horizon}; seed {seed})",
         readable_text=res.text() + "\n" + res.sentence + res.for_winning()
         + (f"\nwrote {plot}" if plot is not None else ""), force=force)


# ------------------------------------------------------------------------------------ chart


@app.command()
@declared("chart")
def chart(
    plot: Optional[Path] = typer.Option(None, "--plot", help="Heatmap of the pile chart (hand points x cards left "
                                        "in the draw pile) to this .png/.svg file."),
    opponent_plot: Optional[Path] = typer.Option(None, "--opponent-plot", help="Heatmap of the opponent chart (hand "
                                                 "points x smallest opponent hand; the one the bundled chart "
                                                 "strategies play) to this .png/.svg file."),
    emit_strategy: Optional[Path] = typer.Option(None, "--emit-strategy", help="Write a strategy file playing this "
                                                 "chart (named after the file; load with --strategies-file)."),
    emit_feature: str = typer.Option("opponent", "--emit-feature", help="Which chart --emit-strategy plays: "
                                     "opponent (hand points x smallest opponent hand) or pile."),
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
    **params,
):
    """Quit charts: at every stuck decision (no card fits, drawing legal) of games the policy plays,
    quit and draw are each played out by the policy from the true state (common random numbers);
    per cell of hand points x cards left in the draw pile (and x the smallest opponent hand), split by
    the token going out would return: Q (quit better), D (draw better) or ? (95% interval covers 0).

    dice: the roll-or-quit chart of the multi-player phase (someone else still in): every roll-or-quit
    decision, quit vs roll; row points x cards left in the llama row (and x the smallest row of another
    player still in); D means roll."""
    from llama_sim import api
    from llama_sim.analysis import chart as C
    from llama_sim.analysis.runs import Progress

    setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    if plot is not None and opponent_plot is not None and plot.resolve() == opponent_plot.resolve():
        raise UsageError(f"--plot and --opponent-plot name the same file ({plot})")
    check_plot(plot, force)
    check_plot(opponent_plot, force)
    if emit_strategy is not None:
        check_new_file(emit_strategy, force, "--emit-strategy", (".py",))
    if emit_strategy is not None and not emit_strategy.stem.isidentifier():
        raise UsageError(f"--emit-strategy {emit_strategy}: the file name must be a Python name (it names the strategy)")
    if emit_feature not in C.FEATURES:
        raise UsageError(f"unknown --emit-feature '{emit_feature}' (use {', '.join(C.FEATURES)})")
    values = COMMANDS["chart"].read(params)
    progress = Progress(values["games"], not quiet, "games")
    try:
        result = api.chart(**params, progress=progress)
    finally:
        progress.close()
    notes = []
    for name, path in (("pile", plot), ("opponent", opponent_plot)):  # only the files asked for
        if path is not None:
            from llama_sim.analysis.plots import save

            save(result.plot(name), path, force)
            notes.append(f"wrote {path}")
    if emit_strategy is not None:
        name = C.emit_strategy(result, emit_strategy, emit_feature, force)
        notes.append(f"wrote {emit_strategy} (strategy '{name}': --strategies-file {emit_strategy})")
    text = "\n\n".join([C.readable(result, "pile"), C.readable(result, "opponent"), *notes])
    emit(result.cells, fmt, out, readable_text=text, force=force)


# ------------------------------------------------------------------------------------ card


@app.command()
@declared("card")
def card(
    plot: Optional[Path] = typer.Option(None, "--plot", help="The card on one page, to this .png/.svg file."),
    html: Optional[Path] = typer.Option(None, "--html", help="The card as a web page, to this .html file."),
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt, **params,
):
    """A quit rule card: the simplest rule (a threshold on your points, and at most an exception for a
    near finish and one for holding a 10) that wins (almost) as often as the full win-valued quit
    chart at this table, found by playing candidate rules against the chart strategy, then measured
    on fresh games against the chart and against the strongest strategy. The table (--out, --format)
    lists every candidate tried."""
    from llama_sim import api

    setup(params["game"], None, quiet, fmt, out, force)
    check_plot(plot, force)
    if html is not None:
        check_new_file(html, force, "--html", (".html", ".htm"))
    params.setdefault("threads", 1)
    result = api.card(**params)
    notes = []
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(result.figure(), plot, force)
        notes.append(f"wrote {plot}")
    if html is not None:
        from llama_sim.core.files import write_text

        write_text(html, result.html(), force)
        notes.append(f"wrote {html}")
    emit(result.candidates, fmt, out, readable_text="\n".join([result.text(), *notes]), force=force)


# ------------------------------------------------------------------------------------ tune


@app.command()
@rule_set_options
@declared("tune")
def tune(
    fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the final table to this .csv, .json or .parquet file, and the candidates and the race next to it (x.candidates.csv, x.race.csv)."),
    force: bool = ForceOpt,
    plot: Optional[Path] = typer.Option(None, "--plot", help="Save the race and the final check as a .png or .svg image."),
    quiet: bool = QuietOpt,
    **params,
):
    """Tune every parameter of a strategy at once, noise-aware (a race on common deals).

    \b
    Candidates: the starting parameters and a Latin-hypercube sample of the
    parameters' bounds (whole-number parameters on the integer grid; the
    whole grid when it is small). A race in stages: every candidate plays the
    same deals in every seat against the field; a candidate whose paired
    difference to the stage's leader is worse over its whole interval
    (Bonferroni over the stage) is dropped, and successive halving keeps the
    best half. Then a second race around the winner refines it. The pick and
    the starting parameters are re-measured on fresh deals: the final table
    gives both with 95% intervals and the pick's paired edge over the start.
    --vs self: the other seats play the current leader (updated between
    stages), and the final check is pick vs start head to head.
    Same seed, same result, for any --threads.
    """
    from llama_sim import api
    from llama_sim.analysis.runs import game_options, rules_line
    from llama_sim.core.output import to_json, write_tables

    spec = setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    paths = out_paths(out, ("results", "candidates", "race"), force)  # results: the final table
    check_plot(plot, force)
    values = COMMANDS["tune"].read({k: v for k, v in params.items() if k in COMMANDS["tune"].names})
    rule_options = {k: v for k, v in params.items() if k not in COMMANDS["tune"].names}
    players, budget, metric, seed = values["players"], values["budget"], values["metric"], values["seed"]
    result = api.tune(**params)
    tables = {"results": result.final, "candidates": result.candidates, "race": result.race}
    write_tables({path: tables[name] for name, path in paths.items()}, force)
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(result.plot(), plot, force)
    if fmt == "json":
        doc = {"summary": {k: json_value(v) for k, v in result.summary().items()},
               "final": json.loads(to_json(result.final)), "candidates": json.loads(to_json(result.candidates)),
               "race": json.loads(to_json(result.race))}
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    if fmt == "csv":
        result.final.to_csv(sys.stdout, index=False)
        return
    s = result.summary()
    pick, start = result.final.iloc[0], result.final.iloc[1]
    kept = result.candidates
    measure = metric + (", luck-adjusted" if result.luck else "")
    print(f"{spec.title}, {players} players: tuning {result.strategy} vs {result.vs}, {measure}, budget {budget} rounds, "
          f"seed {seed}" + (f"\nparameters of the field: {result.vs_values}" if result.vs_values else "")
          + rules_line(spec, spec.config(**game_options(**rule_options))))
    print(f"{len(kept)} candidates in {result.race['stage'].nunique()} stages "
          f"({(kept.status == 'worse').sum()} dropped as worse, {(kept.status == 'halved').sum()} by halving); "
          f"{result.rounds} rounds played")
    print(f"fresh deals ({int(pick.deals)} deals):")
    print(aligned([["", "parameters", metric, "95% CI"],
                    ["pick", pick.params, *ci_cell(pick.value, pick.ci_low, pick.ci_high).split(" ", 1)],
                    ["start", start.params, *ci_cell(start.value, start.ci_low, start.ci_high).split(" ", 1)]]))
    print(f"edge of the pick over the start: {ci_cell(s['edge'], s['edge_ci_low'], s['edge_ci_high'], sign=True)}"
          f" (p {pval(pick.p_value)}): {result.verdict}")
    print(f"use: --strategy {result.pick_spec}")
    for path in paths.values():
        print(f"wrote {path}")
    if plot is not None:
        print(f"wrote {plot}")


def json_value(v):
    import numpy as np

    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if np.isnan(v) else float(v)
    return v


# ------------------------------------------------------------------------------------ solve


@app.command()
@rule_set_options
@declared("solve")
def solve(fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, plot: Optional[Path] = PlotOpt,
          **params):
    """Exact optimum of the dice game's solo phase (everybody else has quit): the expected rest of
    the round (points at its end less tokens returned) of quitting now and of rolling on under
    optimal play, and the optimal choice."""
    from llama_sim import api

    check_format(fmt)
    check_out(out, force)
    check_plot(plot, force)
    r = api.solve(**params)
    emit(r.policy, fmt, out, readable_text=r.text, force=force)
    save_plot(r, plot, fmt, force)



# ------------------------------------------------------------------------------------ grade


@app.command()
@rule_set_options
@declared("grade")
def grade(plot: Optional[Path] = PlotOpt, fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt,
          quiet: bool = QuietOpt, **params):
    """How far a strategy is from good play: the decisions it meets in its own rounds, each valued by
    roll-outs of every legal action (the expert's search), as error rate and points lost per decision
    and per round, by decision kind; the costliest mistakes as advise commands."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    check_plot(plot, force)
    res = api.grade(**params)
    emit(res.table, fmt, out, readable_text=res.text(), force=force)
    save_plot(res, plot, fmt, force)
