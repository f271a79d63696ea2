"""The step kinds (``STEP_KINDS``): for each, how it runs (an analysis function), how ``--scale``
applies to it, the one-sentence conclusion derived from its data and the compact table the report
shows; also running a step once per value of its option grid."""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from llama_sim.analysis.advise import advise
from llama_sim.analysis.chart import chart
from llama_sim.analysis.compare import DEFAULT_ROUNDS, compare, seat_table, simulate, solve, sweep
from llama_sim.analysis.grade import grade
from llama_sim.analysis.league import league
from llama_sim.analysis.tune import tune
from llama_sim.core.output import ci_text as _ci
from llama_sim.present.spec import (
    ADVISE_POSITION_KEYS, COUNT_KEYS, Spec, Step, check_advise, check_chart, check_compare, check_league,
    check_grade, check_seat_table, check_simulate, check_solve, check_sweep, check_tune, check_variants,
)
from llama_sim.present.step_options import option_grid_points

# ------------------------------------------------------------------------------------ running

def _run_variants(spec: Spec, args: dict, quiet: bool) -> list:
    from llama_sim.analysis.variants import compare_variants

    rest = {k: v for k, v in args.items() if k not in ("strategies", "variants", "players")}
    return [compare_variants(spec.game, args["strategies"], args["variants"], players=args["players"],
                             seed=spec.seed, quiet=quiet, strategies_file=spec.strategies_file, **rest,
                             **spec.options)]


def _scaled(args: dict, scale: float) -> dict:
    out = dict(args)
    for k in ("rounds", "games", "max_rounds"):
        if k in out:
            out[k] = max(1, math.ceil(out[k] * scale))
    if "precision" in out:
        out["precision"] = out["precision"] / math.sqrt(scale)
    if not any(k in out for k in ("rounds", "games", "precision")):
        out["rounds"] = max(1, math.ceil(DEFAULT_ROUNDS * scale))
    return out


def _run_compare(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategies", "players")}
    return [compare(spec.game, args["strategies"], players=n, seed=spec.seed, quiet=quiet, **rest,
                        **spec.options) for n in args["players"]]


def _run_league(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [league(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_seat_table(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [seat_table(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_sweep(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategy", "param")}
    return [sweep(spec.game, args["strategy"], args["param"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_solve(spec: Spec, args: dict, quiet: bool) -> list:
    return [solve(spec.game, dice_layout=spec.options.get("dice_layout"), **args)]


def _run_simulate(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "seats"}
    return [simulate(spec.game, args["seats"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _run_advise(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "position"}
    return [advise(spec.game, seed=spec.seed, **rest, **args["position"], **spec.options)]


def _run_chart(spec: Spec, args: dict, quiet: bool) -> list:
    return [chart(spec.game, seed=spec.seed, **args)]


def _run_tune(spec: Spec, args: dict, quiet: bool) -> list:
    return [tune(spec.game, seed=spec.seed, **args, **spec.options)]


def _run_grade(spec: Spec, args: dict, quiet: bool) -> list:
    return [grade(spec.game, seed=spec.seed, **args, **spec.options)]


def _scaled_advise(args: dict, scale: float) -> dict:
    """A fixed roll-out count scales; the default stop rule (3 standard errors or 0.02) does not."""
    out = dict(args)
    if "n_rollouts" in out:
        out["n_rollouts"] = max(2, math.ceil(out["n_rollouts"] * scale))
    if "max_rollouts" in out:
        out["max_rollouts"] = max(2, math.ceil(out["max_rollouts"] * scale))
    return out


def _scaled_key(key: str, low: int) -> Callable[[dict, float], dict]:
    def scaled(args: dict, scale: float) -> dict:
        return {**args, key: max(low, math.ceil(args[key] * scale))}

    return scaled


# ------------------------------------------------------------------------------------ conclusions

def _metric_words(metric: str) -> str:
    return metric.replace("_", " ")


def _conclude_compare(results: list) -> str:
    """Per player count: the best strategy against the runner-up on the headline metric (win rate
    with games, else penalty per round), with the paired interval of their difference."""
    parts = []
    for r in results:
        metric = "win_rate" if "win_rate" in set(r.ranking.metric) else r.ranking.metric.iloc[0]
        rank = r.ranking[r.ranking.metric == metric].sort_values("rank")
        n = int(rank.players.iloc[0])
        top, second = rank.strategy.iloc[0], rank.strategy.iloc[1]
        pairs = r.paired[r.paired.metric == metric]
        row = pairs[((pairs.strategy_a == top) & (pairs.strategy_b == second))
                    | ((pairs.strategy_a == second) & (pairs.strategy_b == top))].iloc[0]
        sign = 1 if row.strategy_a == top else -1  # top - second
        diff = sign * row["diff"]
        lo, hi = sorted((sign * row.ci_low, sign * row.ci_high))
        order = f" (ranking: {', '.join(rank.strategy)})" if len(rank) > 2 else ""
        if row.better == top and lo * hi > 0:
            parts.append(f"At {n} players {top} beats {second}, the next best, by {abs(diff):.3f} "
                         f"{_metric_words(metric)} (paired 95% CI [{min(abs(lo), abs(hi)):.3f}, "
                         f"{max(abs(lo), abs(hi)):.3f}], {int(row.deals)} deals){order}.")
        else:
            parts.append(f"At {n} players the data cannot separate {top} and {second} on {_metric_words(metric)}: "
                         f"{top} - {second} = {diff:+.3f} (paired 95% CI [{lo:+.3f}, {hi:+.3f}], "
                         f"{int(row.deals)} deals){order}.")
    return " ".join(parts)


def _conclude_league(results: list) -> str:
    return results[0].conclusion


def _conclude_seat_table(results: list) -> str:
    """Seat 0 (who starts the first round) against the mean of all seats, per strategy and count."""
    seats = results[0].seats
    metric = "win_rate" if "win_rate" in set(seats.metric) else seats.metric.iloc[0]
    lower_better = metric != "win_rate"
    parts = []
    for strategy, first in seats[(seats.metric == metric) & (seats.seat == 0)].groupby("strategy", sort=False):
        cells = []
        for row in first.itertuples():
            if row.p_holm < 0.05:
                verdict = "an advantage" if (row.vs_mean < 0) == lower_better else "a disadvantage"
            else:
                verdict = "not separable from 0 after the Holm correction over the seats"
            cells.append(f"{row.vs_mean:+.3f} [{row.vs_mean_ci_low:+.3f}, {row.vs_mean_ci_high:+.3f}] at "
                         f"{row.players} players ({verdict})")
        parts.append(f"With every seat playing {strategy}, starting the first round (seat 0) changes the "
                     f"{_metric_words(metric)} relative to the mean of all seats by " + "; ".join(cells)
                     + " (paired 95% CIs).")
    return " ".join(parts)


def _conclude_sweep(results: list) -> str:
    r = results[0]
    best = r.best
    s = r.summary
    lower = r.headline != "win_rate"
    where = ", ".join(f"{k} = {best[c]:g}" for k, c in zip(r.params, ("param_value", "param2_value")))
    near = s[s.near_best]
    cols = ["param_value", "param2_value"][:len(r.params)]
    sep = ", " if len(r.params) == 1 else "; "
    close = sep.join(", ".join(f"{v:g}" for v in row) for row in near[cols].itertuples(index=False)) or "none"
    return (f"Against {r.opponent} at {int(r.results.players.iloc[0])} players, {where} gives the "
            f"{'lowest' if lower else 'highest'} {_metric_words(r.headline)}, {best.value:.3f} "
            f"(95% CI [{best.ci_low:.3f}, {best.ci_high:.3f}]), a difference of {best['diff']:+.3f} to {r.opponent} "
            f"on the same deals (paired 95% CI [{best.diff_ci_low:+.3f}, {best.diff_ci_high:+.3f}]); the values "
            f"the data cannot separate from it (paired 95% interval to it covering 0): {close}.")


def _conclude_solve(results: list) -> str:
    df = results[0].policy
    if len(df) == 1:
        r = df.iloc[0]
        return (f"In row {r.row} (llama row {r.llama_row}, dice {r.dice_layout}, score {r.score}) the optimum is to "
                f"{r.best}: the rest of the round is expected to add {r.roll_value:.3f} points (less tokens returned) "
                f"rolling on against {r.quit_value:.3f} quitting (exact, no sampling error).")
    roll = df[df.best == "roll"]
    quit_ = df[df.best == "quit"]
    always = quit_.quit_value.max() + 1 if len(quit_) else 0
    never = roll.quit_value.min() - 1 if len(roll) else df.quit_value.max()
    return (f"With dice {df.dice_layout.iloc[0]}, llama row {df.llama_row.iloc[0]} and score {df.score.iloc[0]}, the "
            f"optimal solo policy rolls "
            f"in {len(roll)} of {len(df)} rows: always when the row's penalty is {always:g} or more, never when it "
            f"is {never:g} or less (exact values, no sampling error).")


def _conclude_simulate(results: list) -> str:
    df = results[0].results
    metric = "win_rate" if "win_rate" in set(df.metric) else "penalty_per_round"
    g = df[df.metric == metric]
    return ("Per seat " + _metric_words(metric) + ": " + "; ".join(
        f"seat {int(r.seat)} {r.strategy} {r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" for r in g.itertuples())
        + " (95% CIs).")


def _conclude_advise(results: list) -> str:
    return results[0].sentence


def _conclude_chart(results: list) -> str:
    """The chart's verdicts and its most frequent cell, with that cell's interval."""
    from llama_sim.analysis.chart import wording

    r = results[0]
    words = wording(r.game)
    other = words["letter"]  # D (draw) or R (roll)
    cells = r.cells[r.cells.chart == "pile"]
    counts = cells.answer.value_counts()
    share = {a: float(cells[cells.answer == a].share.sum()) for a in ("Q", other, "?")}
    top = cells.sort_values("decisions", ascending=False).iloc[0]
    # The win measure values a branch by minus its win share: quit - draw > 0 means drawing wins more often.
    unit = "in the chance of not winning the game" if r.measure == "win" else "points"
    verb = words["play_on"] + "ing"  # drawing, rolling
    return (f"Under {r.policy} at {r.players} players ({r.games} games; {words['decision']}), quitting beats "
            f"{verb} in {counts.get('Q', 0)} cells holding {share['Q']:.0%} of the decisions, {verb} beats "
            f"quitting in {counts.get(other, 0)} cells holding {share[other]:.0%}, and the data cannot "
            f"separate {counts.get('?', 0)} cells holding {share['?']:.0%}; the most frequent cell ({int(top.hand_points)} "
            f"points, {top.bin_low}-{top.bin_high} {words['pile']}, token {top.token}) reads {top.answer}: quit - "
            f"{words['play_on']} = {top.mean_quit_minus_draw:+.3f} {unit} (95% CI [{top.ci_low:+.3f}, "
            f"{top.ci_high:+.3f}]).")


def _conclude_tune(results: list) -> str:
    r = results[0]
    s = r.summary()
    return (f"Tuning {r.strategy} at {r.players} players against {r.vs} picks {r.pick_spec}: on fresh deals its "
            f"{_metric_words(r.metric)} differs from the start's by {s['edge']:+.4f} (95% CI "
            f"[{s['edge_ci_low']:+.4f}, {s['edge_ci_high']:+.4f}]): {r.verdict}.")


def _conclude_grade(results: list) -> str:
    t = results[0].table
    pooled = t[(t.decision == "") & (t.metric == "points_lost_per_round")].sort_values("value")
    best, worst = pooled.iloc[0], pooled.iloc[-1]
    return (f"At {int(best.players)} players, against roll-outs of every legal action, {best.strategy} loses the "
            f"fewest points, {_ci(best.value, best.ci_low, best.ci_high, 3)} per round, and {worst.strategy} the "
            f"most, {_ci(worst.value, worst.ci_low, worst.ci_high, 3)}.")


# ------------------------------------------------------------------------------------ display tables

def _display_compare(results: list) -> pd.DataFrame:
    rank = pd.concat([r.ranking for r in results], ignore_index=True)
    return pd.DataFrame({"players": rank.players, "metric": rank.metric, "rank": rank["rank"], "strategy": rank.strategy,
                         "value [95% CI]": [_ci(*x) for x in zip(rank.value, rank.ci_low, rank.ci_high)],
                         "cannot be separated from": rank.indistinguishable_from.replace("", "-")})


def _display_league(results: list) -> pd.DataFrame:
    """The league table: per player count, best first by the headline metric, every compared metric."""
    r = results[0]
    rank = r.ranking
    table = rank[rank.metric == r.headline][["players", "rank", "strategy", "lineups"]].reset_index(drop=True)
    for m in dict.fromkeys(rank.metric):
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        table[f"{m} [95% CI]"] = [_ci(*g.loc[(n, s), ["value", "ci_low", "ci_high"]])
                                  for n, s in zip(table.players, table.strategy)]
    table["cannot be separated from"] = [rank[(rank.metric == r.headline) & (rank.players == n)
                                              & (rank.strategy == s)].indistinguishable_from.iloc[0] or "-"
                                         for n, s in zip(table.players, table.strategy)]
    return table.rename(columns={"lineups": "line-ups"})


def _sections_league(results: list) -> list[tuple[str, str, pd.DataFrame]]:
    """The strongest-strategy section: one sentence per player count and its table."""
    r = results[0]
    s = r.strongest
    table = pd.DataFrame({
        "players": s.players, "strongest": s.best, f"{r.headline} [95% CI]": [_ci(*x, 3) for x in zip(
            s.value, s.ci_low, s.ci_high)], "runner-up": s.runner_up,
        "edge over it [95% CI]": [_ci(*x, 3, sign=True) for x in zip(s.edge, s.edge_ci_low, s.edge_ci_high)],
        "head-to-head [95% CI]": [_ci(*x, 3, sign=True) for x in zip(s.head_to_head, s.h2h_ci_low, s.h2h_ci_high)],
        "line-ups with both": s.lineups_both})
    text = " ".join(r.sentences) + (
        " The edge is the difference of the two league values (each the mean over its own line-ups; paired on the "
        "common deals of the line-ups that hold both); the head-to-head uses only the line-ups that hold both.")
    return [("Strongest strategy", text, table)]


def _display_seat_table(results: list) -> pd.DataFrame:
    s = results[0].seats
    return pd.DataFrame({"strategy": s.strategy, "players": s.players, "seat": s.seat, "metric": s.metric,
                         "value [95% CI]": [_ci(*x) for x in zip(s.value, s.ci_low, s.ci_high)],
                         "vs mean [95% CI]": [_ci(*x, sign=True) for x in zip(s.vs_mean, s.vs_mean_ci_low,
                                                                               s.vs_mean_ci_high)],
                         "p (Holm)": [f"{p:.4f}" for p in s.p_holm]})


def _display_sweep(results: list) -> pd.DataFrame:
    r = results[0]
    s = r.summary
    out = {k: s[c] for k, c in zip(r.params, ("param_value", "param2_value"))}
    out[f"{r.headline} [95% CI]"] = [_ci(*x) for x in zip(s.value, s.ci_low, s.ci_high)]
    out[f"vs {r.opponent} [paired 95% CI]"] = [_ci(*x, sign=True) for x in zip(s["diff"], s.diff_ci_low, s.diff_ci_high)]
    out[f"vs best [paired 95% CI]"] = [_ci(*x, sign=True) for x in zip(s.vs_best, s.vs_best_ci_low, s.vs_best_ci_high)]
    out["best"] = np.where(s.best, "best", np.where(s.near_best, "~ best", ""))
    return pd.DataFrame(out)


def _display_solve(results: list) -> pd.DataFrame:
    df = results[0].policy
    cols = ["row", "quit_value", "roll_value", "best"]
    shown = df[cols] if len(df) <= 40 else df[cols].sort_values("quit_value").iloc[
        np.linspace(0, len(df) - 1, 30).round().astype(int)]
    return shown.round(4)


def _display_simulate(results: list) -> pd.DataFrame:
    df = results[0].results
    return pd.DataFrame({"seat": df.seat, "strategy": df.strategy, "metric": df.metric,
                         "value [95% CI]": [_ci(*x) for x in zip(df.value, df.ci_low, df.ci_high)], "n": df.n})


def _display_advise(results: list) -> pd.DataFrame:
    r = results[0]
    t = r.table
    primary = "win_rate" if r.horizon == "game" else "penalty_per_round"
    rows = []
    for a in r.ranking:
        own = t[(t.action == a) & (t.metric == primary)].iloc[0]
        diff = t[(t.action == a) & (t.metric == primary + "_vs_best")]
        rows.append({"action": a, f"{primary} [95% CI]": _ci(own.value, own.ci_low, own.ci_high, 3),
                     "vs best [paired 95% CI]": (_ci(*diff[["value", "ci_low", "ci_high"]].iloc[0], 3, sign=True)
                                                 if len(diff) else "-"), "n": int(own.n)})
    return pd.DataFrame(rows)


def _display_chart(results: list) -> pd.DataFrame:
    return results[0].summary


def _display_grade(results: list) -> pd.DataFrame:
    t = results[0].table
    pooled = t[t.decision == ""]
    rows = []
    for strategy, part in pooled.groupby("strategy", sort=False):
        by = {r.metric: r for r in part.itertuples()}
        rows.append({"strategy": strategy, "decisions": by["error_rate"].n,
                     **{m.replace("_", " "): _ci(by[m].value, by[m].ci_low, by[m].ci_high, 3)
                        for m in ("error_rate", "points_lost_per_decision", "points_lost_per_round")}})
    return pd.DataFrame(rows).sort_values("points lost per round", key=lambda c: c.str.split().str[0].astype(float))


def _display_tune(results: list) -> pd.DataFrame:
    f = results[0].final
    return pd.DataFrame({"": f.iloc[:, 0] if "role" not in f else f.role, "parameters": f.params,
                         "value [95% CI]": [_ci(*x) for x in zip(f.value, f.ci_low, f.ci_high)]})


@dataclass(frozen=True)
class StepKind:
    """One kind of step: its keys, validation, run, tables (name -> result attribute), conclusion
    and the compact table shown in the report."""

    keys: frozenset
    check: Callable
    run: Callable
    tables: tuple[str, ...]
    conclude: Callable
    display: Callable
    plot_suffix: Callable[[Any], str] = lambda r: ""
    scale: Callable[[dict, float], dict] = lambda args, scale: _scaled(args, scale)  # --scale
    sections: Callable[[list], list] = lambda results: []  # extra (title, text, table) sections of the report


_COMMON = {"kind", "name", "title"}
_COUNTS = set(COUNT_KEYS)


def _variants_kind() -> StepKind:
    from llama_sim.analysis.variants import conclude_variants, display_variants

    return StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "variants"}), check_variants,
                    _run_variants, ("results", "effects", "ranking"), lambda results: conclude_variants(results[0]),
                    lambda results: display_variants(results[0]))


STEP_KINDS: dict[str, StepKind] = {
    "compare": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), check_compare,
                        _run_compare, ("results", "paired", "ranking"), _conclude_compare, _display_compare,
                        lambda r: f"_{int(r.results.players.iloc[0])}p"),
    "league": StepKind(frozenset(_COMMON | {"rounds", "games", "strategies", "players", "metrics"}), check_league,
                       _run_league, ("results", "paired", "ranking", "strongest", "lineups"), _conclude_league,
                       _display_league, sections=_sections_league),
    "seat_table": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), check_seat_table,
                           _run_seat_table, ("results", "seats"), _conclude_seat_table, _display_seat_table),
    "sweep": StepKind(frozenset(_COMMON | {"rounds", "games", "strategy", "grid", "vs", "players"}), check_sweep,
                      _run_sweep, ("results", "summary"), _conclude_sweep, _display_sweep),
    "solve": StepKind(frozenset(_COMMON | {"row", "llama_row", "score", "table"}), check_solve, _run_solve, ("policy",),
                      _conclude_solve, _display_solve, scale=lambda args, scale: args),
    "simulate": StepKind(frozenset(_COMMON | {"rounds", "games", "seats"}), check_simulate, _run_simulate,
                         ("results",), _conclude_simulate, _display_simulate),
    "advise": StepKind(frozenset(_COMMON | set(ADVISE_POSITION_KEYS) | {"policy", "opponents", "horizon", "rollouts",
                                                                      "precision", "max_rollouts"}),
                       check_advise, _run_advise, ("table",), _conclude_advise, _display_advise,
                       scale=_scaled_advise),
    "chart": StepKind(frozenset(_COMMON | {"players", "games", "policy", "measure"}), check_chart, _run_chart,
                      ("cells", "summary"), _conclude_chart, _display_chart, scale=_scaled_key("games", 20)),
    "tune": StepKind(frozenset(_COMMON | {"strategy", "players", "vs", "budget", "metric"}), check_tune, _run_tune,
                     ("final", "candidates", "race"), _conclude_tune, _display_tune,
                     scale=_scaled_key("budget", 2000)),
    "grade": StepKind(frozenset(_COMMON | {"strategies", "players", "decisions", "rollouts"}), check_grade, _run_grade,
                      ("table", "mistakes"), _conclude_grade, _display_grade, scale=_scaled_key("decisions", 50)),
    "variants": _variants_kind(),
}


@dataclass
class StepOutcome:
    step: Step
    results: list
    tables: dict[str, pd.DataFrame]
    conclusion: str
    display: pd.DataFrame
    seconds: float
    plots: list[str] = field(default_factory=list)  # plot files, relative to the report folder
    tags: list[dict] = field(default_factory=list)  # option grid: each result's option values
    details: list[str] = field(default_factory=list)  # option grid: each value's own conclusion
    summary: Any = None  # option grid: the ``llama_sim.present.across`` summary across the values


def tag_text(tag: dict, sep: Optional[str] = None) -> str:
    """``dice layout 13-25-46`` for a sentence; with ``sep`` only the values (``13-25-46``), for a file name."""
    if sep is not None:
        return sep.join("".join(c if c.isalnum() or c in "-." else "_" for c in str(v)) for v in tag.values())
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in tag.items())


def _tagged(df: pd.DataFrame, tag: dict) -> pd.DataFrame:
    """``df`` with the grid point's option values as leading columns (unless it has them already)."""
    new = {k: v for k, v in tag.items() if k not in df.columns}
    return df.assign(**new)[[*new, *df.columns]]


def run_option_grid(spec: Spec, step: Step, entry, scale: float, quiet: bool, started: float) -> "StepOutcome":
    """Run the step once per grid point, each on its own deals (seed + index), tag every table with
    the point's option values and summarise across the points (``llama_sim.present.across``)."""
    from dataclasses import replace

    from llama_sim.present import across

    results, tags, details, displays = [], [], [], []
    for i, point in enumerate(option_grid_points(step)):
        if not quiet:
            print(f"llamasim:   {tag_text(point)}", file=sys.stderr, flush=True)
        options = {**step.options, **point}
        got = entry.run(replace(spec, options=options, seed=spec.seed + i), entry.scale(step.args, scale), quiet)
        results += got
        tags += [point] * len(got)
        seed = "" if step.kind == "solve" else f" (seed {spec.seed + i})"
        details.append(f"{tag_text(point)}{seed}: {entry.conclude(got)}")
        displays.append(_tagged(entry.display(got), point))
    seconds = time.perf_counter() - started
    tables = {t: pd.concat([_tagged(getattr(r, t), tag) for r, tag in zip(results, tags)], ignore_index=True)
              for t in entry.tables}
    summary = across.summarise(step.kind, results, tags)
    if summary is None:
        return StepOutcome(step, results, tables, " ".join(details), pd.concat(displays, ignore_index=True), seconds,
                           tags=tags)
    tables.update(summary.tables)
    return StepOutcome(step, results, tables, summary.sentence, summary.display, seconds, tags=tags, details=details,
                       summary=summary)
