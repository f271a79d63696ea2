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
    FormatOpt, ForceOpt, GameOpt, OutOpt, PlotOpt, QuietOpt, SeedOpt, StratFileOpt, ThreadsOpt, aligned, app,
    check_plot, out_paths, num, position_options, pval, rule_set_options, save_plot, setup,
)
from llama_sim.core.errors import UsageError
from llama_sim.core.output import check_format, check_new_file, check_out, emit


# ------------------------------------------------------------------------------------ advise


@app.command()
@rule_set_options
@position_options
def advise(
    game: str = GameOpt,
    position: Optional[Path] = typer.Option(None, "--position", help="The position as a TOML or JSON file with the same keys."),
    action: Optional[list[str]] = typer.Option(None, "--action", help='Only these actions (repeatable), e.g. --action draw --action quit.'),
    policy: Optional[str] = typer.Option(None, "--policy", help="Roll-out strategy of every seat (default: the rule set's "
                                                                "strongest: smart, chain, showman, solo_optimal)."),
    opponents: Optional[str] = typer.Option(None, "--opponents", help="Per-seat strategies of the other players, e.g. greedy,smart,smart."),
    horizon: str = typer.Option("round", "--horizon", help="round (points over the rest of this round) or game (also the win rate)."),
    rollouts: Optional[int] = typer.Option(None, "--rollouts", help="Exactly this many roll-outs (each plays every action)."),
    precision: Optional[float] = typer.Option(None, "--precision", help="Stop once every action's 95% half-width is below this."),
    max_rollouts: int = typer.Option(200_000, "--max-rollouts", help="Cap of the default stop rule."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt,
    plot: Optional[Path] = PlotOpt, strategies_file: Optional[Path] = StratFileOpt,
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
    **options,
):
    """Expected points of each legal action in a typed-in position, best first: determinized
    roll-outs (common random numbers for all actions), or the exact solver for a lone dice player.
    Default stop: the best action 3 standard errors clear of the runner-up, or every 95% half-width
    below 0.02, at most --max-rollouts."""
    from llama_sim import api

    setup(game, strategies_file, quiet, fmt, out, force)
    check_plot(plot, force)
    res = api.advise(game, position_file=position, actions=action, policy=policy,
                     opponents=[s for s in opponents.split(",") if s.strip()] if opponents else None,
                     horizon=horizon, n_rollouts=rollouts, precision=precision, max_rollouts=max_rollouts, seed=seed,
                     threads=threads if threads is not None else os.cpu_count(), **options)
    if plot is not None:
        from llama_sim.analysis.plots import save

        save(res.plot(), plot, force)
    emit(res.table, fmt, out, preamble=f"{game}: advice ({res.how()}; horizon {res.horizon}; seed {seed})",
         readable_text=res.text() + "\n" + res.sentence + (f"\nwrote {plot}" if plot is not None else ""), force=force)


# ------------------------------------------------------------------------------------ chart


@app.command()
def chart(
    game: str = GameOpt,
    players: int = typer.Option(4, "--players", "-p", help="Players at the table."),
    policy: Optional[str] = typer.Option(None, "--policy", help="The policy every seat plays, also in the "
                                         "roll-outs (default: the strongest built-in, lama smart, party chain, kadabra "
                                         "showman, dice solo_optimal:quit_at=1)."),
    n_games: int = typer.Option(20_000, "--games", help="Full games to 40 points whose stuck decisions are valued."),
    measure: str = typer.Option("own", "--measure", help="own: the deciding player's net score change over the "
                                "rest of the round (as penalty_per_round); relative: that minus the others' mean "
                                "change (what decides a game); win: minus the win share, the rest of the game played out "
                                "(what the bundled charts use)."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt,
    pile_bins: Optional[str] = typer.Option(None, "--pile-bins", help="Lower edges of the draw-pile bins, "
                                            "e.g. 0,1,2,4,8,16 (default 0,1,2,3,4,6,8,11,15,20,26,32,40; dice: "
                                            "cards left in the llama row, default 1,...,7)."),
    opponent_bins: Optional[str] = typer.Option(None, "--opponent-bins", help="Lower edges of the smallest-"
                                                "opponent-hand bins (default 1,2,3,4,5,6,7,9,12,16; dice: the "
                                                "smallest row of another player still in, default 1,...,10)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Heatmap of the pile chart (hand points x cards left "
                                        "in the draw pile) to this .png/.svg file."),
    opponent_plot: Optional[Path] = typer.Option(None, "--opponent-plot", help="Heatmap of the opponent chart (hand "
                                                 "points x smallest opponent hand; the one the bundled chart "
                                                 "strategies play) to this .png/.svg file."),
    emit_strategy: Optional[Path] = typer.Option(None, "--emit-strategy", help="Write a strategy file playing this "
                                                 "chart (named after the file; load with --strategies-file)."),
    emit_feature: str = typer.Option("opponent", "--emit-feature", help="Which chart --emit-strategy plays: "
                                     "opponent (hand points x smallest opponent hand) or pile."),
    strategies_file: Optional[Path] = StratFileOpt,
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
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
    from llama_sim.analysis.compare import Progress

    setup(game, strategies_file, quiet, fmt, out, force)
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
    pile_edges = C.parse_edges(pile_bins, None, "pile")
    opp_edges = C.parse_edges(opponent_bins, None, "opponent")
    progress = Progress(n_games, not quiet, "games")
    try:
        result = api.chart(game, players, policy, n_games, seed, threads=threads, pile_edges=pile_edges,
                           opp_edges=opp_edges, progress=progress, measure=measure)
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


# ------------------------------------------------------------------------------------ tune


@app.command()
@rule_set_options
def tune(
    game: str = GameOpt,
    strategy: str = typer.Option(..., "--strategy", help="The strategy to tune (name, or name:k=v for another starting point)."),
    players: int = typer.Option(4, "--players", "-p", help="Number of players at the table."),
    vs: str = typer.Option("self", "--vs", help="The other seats: strategy specs, comma-separated (one fills every seat, or one per other seat), or 'self' (the current best)."),
    budget: int = typer.Option(200_000, "--budget", help="Rounds to play in all (a full game counts its rounds); a quarter goes to the final check."),
    metric: str = typer.Option("win_rate", "--metric", help="win_rate (full games to 40) or penalty_per_round (single rounds)."),
    candidates: Optional[int] = typer.Option(None, "--candidates", help="Candidates per race round (default 8 + 8 per parameter, at most 32)."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt, fmt: str = FormatOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Write the final table to this .csv, .json or .parquet file, and the candidates and the race next to it (x.candidates.csv, x.race.csv)."),
    force: bool = ForceOpt,
    plot: Optional[Path] = typer.Option(None, "--plot", help="Save the race and the final check as a .png or .svg image."),
    quiet: bool = QuietOpt, strategies_file: Optional[Path] = StratFileOpt,
    **rule_options,
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
    from llama_sim.analysis.compare import game_options, rules_line
    from llama_sim.core.output import to_json, write_tables

    spec = setup(game, strategies_file, quiet, fmt, out, force)
    paths = out_paths(out, ("results", "candidates", "race"), force)  # results: the final table
    check_plot(plot, force)
    result = api.tune(game, strategy, players, vs=vs, budget=budget, metric=metric, seed=seed, threads=threads,
                      candidates=candidates, **rule_options)
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
    print(f"{spec.title}, {players} players: tuning {result.strategy} vs {result.vs}, {metric}, budget {budget} rounds, "
          f"seed {seed}" + (f"\nparameters of the field: {result.vs_values}" if result.vs_values else "")
          + rules_line(spec, spec.config(**game_options(**rule_options))))
    print(f"{len(kept)} candidates in {result.race['stage'].nunique()} stages "
          f"({(kept.status == 'worse').sum()} dropped as worse, {(kept.status == 'halved').sum()} by halving); "
          f"{result.rounds} rounds played")
    print(f"fresh deals ({int(pick.deals)} deals):")
    print(aligned([["", "parameters", metric, "95% CI"],
                    ["pick", pick.params, num(pick.value), f"[{num(pick.ci_low)}, {num(pick.ci_high)}]"],
                    ["start", start.params, num(start.value), f"[{num(start.ci_low)}, {num(start.ci_high)}]"]]))
    print(f"edge of the pick over the start: {s['edge']:+.4f} [{s['edge_ci_low']:+.4f}, {s['edge_ci_high']:+.4f}]"
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
def solve(
    game: str = typer.Argument(..., help="Rule set: dice (the only one with an exact solver)."),
    row: Optional[str] = typer.Option(None, "--row", help='The solo player\'s row, e.g. "2 5 L" (L = llama).'),
    llama_row: str = typer.Option("1 2 3 4 5 6 L", "--llama-row", help="Cards still in the llama row."),
    score: int = typer.Option(0, "--score",
                              help="The solo player's score (tokens held, 0..39): three llamas and going out "
                                   "return its largest token, which the values count."),
    table: bool = typer.Option(False, "--table", help="The whole optimal policy: every sub-row of --row "
                                                      "(every row of up to 6 cards without --row)."),
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, plot: Optional[Path] = PlotOpt,
    **rule_options,
):
    """Exact optimum of the dice game's solo phase (everybody else has quit): the expected rest of
    the round (points at its end less tokens returned) of quitting now and of rolling on under
    optimal play, and the optimal choice."""
    from llama_sim import api

    check_format(fmt)
    check_out(out, force)
    check_plot(plot, force)
    r = api.solve(game, row=row, llama_row=llama_row, score=score, table=table, **rule_options)
    emit(r.policy, fmt, out, readable_text=r.text, force=force)
    save_plot(r, plot, fmt, force)



# ------------------------------------------------------------------------------------ grade


@app.command()
@rule_set_options
def grade(
    game: str = GameOpt,
    strategy: list[str] = typer.Option(..., "--strategy", "-s", help="Strategy to grade (repeatable)."),
    players: int = typer.Option(4, "--players", "-p", help="Players at the table (the strategy in every seat)."),
    decisions: int = typer.Option(2000, "--decisions", help="Decisions to grade per strategy (whole rounds)."),
    rollouts: int = typer.Option(200, "--rollouts", help="Roll-outs per action to select the best, and as many "
                                                        "again to value the choice."),
    policy: Optional[str] = typer.Option(None, "--policy", help="Roll-out strategy of every seat: one of the "
                                                               "expert's bases (default: the expert's own)."),
    mistakes: int = typer.Option(5, "--mistakes", help="Costliest mistakes to list per strategy."),
    seed: int = SeedOpt, threads: Optional[int] = ThreadsOpt,
    plot: Optional[Path] = PlotOpt, strategies_file: Optional[Path] = StratFileOpt,
    fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
    **rule_options,
):
    """How far a strategy is from good play: the decisions it meets in its own rounds, each valued by
    roll-outs of every legal action (the expert's search), as error rate and points lost per decision
    and per round, by decision kind; the costliest mistakes as advise commands."""
    from llama_sim import api
    from llama_sim.analysis.compare import game_options

    setup(game, strategies_file, quiet, fmt, out, force)
    check_plot(plot, force)
    res = api.grade(game, strategy, players=players, decisions=decisions, rollouts=rollouts, policy=policy,
                    mistakes=mistakes, seed=seed, threads=threads, **game_options(**rule_options))
    emit(res.table, fmt, out, readable_text=res.text(), force=force)
    save_plot(res, plot, fmt, force)
