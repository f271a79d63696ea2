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
from llama_sim.core.words import (
    LOWER_IS_BETTER, best_phrase, counts_text, est, est_unit, leads, listing, magnitude, metric_words,
    more_or_less, ordinal, separated, thousands,
)
from llama_sim.present.spec import COUNT_KEYS, Spec, Step
from llama_sim.present.step_options import option_grid_points
from llama_sim.present.terms import metric_terms

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
    return [solve(spec.game, **args, **spec.options)]


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
    if "rollouts" in out:
        out["rollouts"] = max(2, math.ceil(out["rollouts"] * scale))
    if "max_rollouts" in out:
        out["max_rollouts"] = max(2, math.ceil(out["max_rollouts"] * scale))
    return out


def _scaled_key(key: str, low: int) -> Callable[[dict, float], dict]:
    def scaled(args: dict, scale: float) -> dict:
        return {**args, key: max(low, math.ceil(args[key] * scale))}

    return scaled


# ------------------------------------------------------------------------------------ conclusions

def _headline(metrics) -> str:
    """The metric a step's answer is about: win rate when games were played, else the first one."""
    metrics = list(dict.fromkeys(metrics))
    return "win_rate" if "win_rate" in metrics else metrics[0]


def _lead(r) -> dict:
    """A compare result's best strategy against the runner-up on the headline metric: the paired
    difference (best - runner-up), its interval and whether the data separate them."""
    metric = _headline(r.ranking.metric)
    rank = r.ranking[r.ranking.metric == metric].sort_values("rank")
    top, second = rank.strategy.iloc[0], rank.strategy.iloc[1]
    pairs = r.paired[r.paired.metric == metric]
    row = pairs[((pairs.strategy_a == top) & (pairs.strategy_b == second))
                | ((pairs.strategy_a == second) & (pairs.strategy_b == top))].iloc[0]
    sign = 1 if row.strategy_a == top else -1  # top - second
    lo, hi = sorted((sign * row.ci_low, sign * row.ci_high))
    return {"players": int(rank.players.iloc[0]), "metric": metric, "top": top, "second": second,
            "diff": sign * row["diff"], "lo": lo, "hi": hi, "clear": row.better == top and separated(lo, hi),
            "order": list(rank.strategy)}


def _conclude_compare(results: list) -> str:
    """Per player count: the best strategy against the runner-up on the headline metric (win rate
    with games, else penalty per round), with the paired interval of their difference; one sentence
    for every count when the same strategy clearly leads the same runner-up at each."""
    leads_ = [_lead(r) for r in results]
    x = leads_[0]
    nxt = ", the next best" if len(x["order"]) > 2 else ""
    if len(leads_) > 1 and all(y["clear"] and (y["top"], y["second"], y["metric"]) == (x["top"], x["second"], x["metric"])
                               for y in leads_):
        sizes = [f"{magnitude(y['diff'], y['lo'], y['hi'])} at {y['players']}{' players' if k == 0 else ''}"
                 for k, y in enumerate(leads_)]
        head = leads(x["metric"], x["top"], x["second"], x["diff"], x["lo"], x["hi"], size=False)
        return f"{head}{nxt}: {listing(sizes)}."
    parts = []
    for x in leads_:
        nxt = ", the next best" if len(x["order"]) > 2 else ""
        order = f" (order: {', '.join(x['order'])})" if len(x["order"]) > 2 else ""
        if x["clear"]:
            parts.append(f"At {x['players']} players "
                         f"{leads(x['metric'], x['top'], x['second'], x['diff'], x['lo'], x['hi'])}{nxt}{order}.")
        else:
            parts.append(f"At {x['players']} players the data do not separate {x['top']} and {x['second']} on "
                         f"{metric_words(x['metric'])}: {x['top']} - {x['second']} = "
                         f"{est(x['diff'], x['lo'], x['hi'], sign=True)}{order}.")
    return " ".join(parts)


def _conclude_league(results: list) -> str:
    return results[0].conclusion


def _conclude_seat_table(results: list) -> str:
    """Seat 0 (who starts the first round) against the mean of all seats, per strategy and count."""
    seats = results[0].seats
    metric = _headline(seats.metric)
    lower_better = metric in LOWER_IS_BETTER
    parts = []
    for strategy, first in seats[(seats.metric == metric) & (seats.seat == 0)].groupby("strategy", sort=False):
        cells, good, bad = [], [], []
        for k, row in enumerate(first.itertuples()):
            cells.append(f"{est(row.vs_mean, row.vs_mean_ci_low, row.vs_mean_ci_high, sign=True)} at {row.players}"
                         + (" players" if k == 0 else ""))
            if row.p_holm < 0.05:
                (good if (row.vs_mean < 0) == lower_better else bad).append(str(row.players))
        verdicts = ([f"a clear advantage at {listing(good)} players"] if good else []) + (
            [f"a clear disadvantage at {listing(bad)} players"] if bad else [])
        verdict = ("none of these is clear of chance once every seat is tested (Holm)" if not verdicts else
                   f"it is {' and '.join(verdicts)} (Holm-corrected over the seats)")
        parts.append(f"With every seat playing {strategy}, the first player's {metric_words(metric)} differs from "
                     f"the average seat's by {listing(cells)}; {verdict}.")
    return " ".join(parts)


def _conclude_sweep(results: list) -> str:
    r = results[0]
    best = r.best
    s = r.summary
    metric = r.headline
    cols = ["param_value", "param2_value"][:len(r.params)]
    where = ", ".join(f"{k} = {best[c]:g}" for k, c in zip(r.params, cols))
    n = int(r.results.players.iloc[0])
    text = (f"At {n} players against {r.opponent}, {where} gives {best_phrase(metric)}: "
            f"{est_unit(metric, best.value, best.ci_low, best.ci_high)}, ")
    if separated(best.diff_ci_low, best.diff_ci_high):
        text += more_or_less(metric, best["diff"], best.diff_ci_low, best.diff_ci_high, r.opponent, unit=False)
    else:
        text += (f"which the data do not separate from {r.opponent} "
                 f"({est(best['diff'], best.diff_ci_low, best.diff_ci_high, sign=True)})")
    near = s[s.near_best]
    if near.empty:
        text += "; every other value is clearly worse."
    elif len(r.params) == 1:
        values = [f"{v:g}" for v in near.param_value]
        text += f"; {r.params[0]} = {listing(values, 'or')} cannot be told apart from it."
    elif len(near) <= 3:
        settings = ["; ".join(f"{k} = {v:g}" for k, v in zip(r.params, row)) for row in near[cols].itertuples(index=False)]
        text += f"; {listing(settings, 'or')} cannot be told apart from it."
    else:
        text += f"; {len(near)} other settings cannot be told apart from it (see the table)."
    return text


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


def _conclude_simulate(results: list) -> str:
    df = results[0].results
    metric = _headline(df.metric)
    g = df[df.metric == metric]
    n = len(g.seat.dropna().unique())
    return (f"{metric_words(metric).capitalize()} by seat at {n} players: " + "; ".join(
        f"seat {int(r.seat)} ({r.strategy}) {est(r.value, r.ci_low, r.ci_high)}" for r in g.dropna(subset=["seat"])
        .itertuples()) + ".")


def _conclude_advise(results: list) -> str:
    return results[0].sentence


def _runs(points: list[int]) -> list[tuple[int, int]]:
    """Consecutive stretches of the sorted ``points`` (neighbours in the list count as consecutive)."""
    runs: list[list[int]] = []
    for p in points:
        if runs and runs[-1][1] == p - 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return [tuple(r) for r in runs]


def _token_words(token: int) -> str:
    return "no token at stake" if token == 0 else f"a {token} at stake"


def _chart_rule(cells: pd.DataFrame, letter: str, play_on: str) -> str:
    """What a chart says per token class, by hand points: where most decisions are in cells where
    quitting is better, and where most are in cells where playing on is better."""
    parts = []
    for token, part in cells.groupby("token", sort=True):
        by_points = part.groupby("hand_points")
        total = by_points.decisions.sum()
        share = {a: part[part.answer == a].groupby("hand_points").decisions.sum().reindex(total.index, fill_value=0)
                 / total for a in ("Q", letter)}
        every = sorted(total.index)
        verdict = {p: "Q" if share["Q"][p] > 0.5 else letter if share[letter][p] > 0.5 else "?" for p in every}
        words = []
        for answer, verb in (("Q", "quit"), (letter, play_on)):
            mine = [p for p in every if verdict[p] == answer]
            runs = []
            for lo, hi in _runs([every.index(p) for p in mine]):
                a, b = every[lo], every[hi]
                if a == every[0] and b == every[-1]:
                    runs.append("always")
                elif b == every[-1] and a != b:
                    runs.append(f"from {a} points on")
                else:
                    runs.append(f"at {a} point{'s' if a != 1 else ''}" if a == b else f"at {a}-{b} points")
            if runs == ["always"]:
                words.append(f"always {verb}")
            elif runs:
                words.append(f"{verb} {listing(runs)}")
        parts.append(f"with {_token_words(int(token))} " + (" and ".join(words) if words else
                                                             "the data do not separate quitting and " + play_on + "ing"))
    return "; ".join(parts)


def _conclude_chart(results: list) -> str:
    """The chart's rule per token class (by hand points, where most decisions have a clear answer)
    and its most frequent cell with that cell's interval."""
    from llama_sim.analysis.chart import wording

    r = results[0]
    words = wording(r.game)
    play_on = words["play_on"]  # draw, roll
    cells = r.cells[r.cells.chart == "pile"]
    top = cells.sort_values("decisions", ascending=False).iloc[0]
    span = f"{top.bin_low}" if top.bin_low == top.bin_high else f"{top.bin_low}-{top.bin_high}"
    where = f"{int(top.hand_points)} points, {span} {words['pile']}, {_token_words(int(top.token))}"
    d, lo, hi = top.mean_quit_minus_draw, top.ci_low, top.ci_high
    win = r.measure == "win"
    scale = 100 if win else 1  # the win measure in percentage points, as the plot shows it
    unit = "percentage points" if win else "points"
    if not separated(lo, hi) and win:  # minus the win share: quitting changes the chance of winning by -d
        verdict = (f"the data do not separate quitting and {play_on}ing (quitting changes the chance of winning by "
                   f"{est(-d * scale, -hi * scale, -lo * scale, sign=True)} {unit})")
    elif not separated(lo, hi):
        verdict = (f"the data do not separate quitting and {play_on}ing (quit - {play_on}: "
                   f"{est(d, lo, hi, sign=True)} {unit})")
    elif win:  # the win measure values a branch by minus its win share
        verdict = (f"quitting {'lowers' if d > 0 else 'raises'} the chance of winning the game by "
                   f"{magnitude(d * scale, lo * scale, hi * scale)} percentage points")
    else:
        whose = "" if r.measure == "own" else " relative to the others"
        verdict = (f"quitting {'costs' if d > 0 else 'saves'} {magnitude(d, lo, hi)} points{whose} over the rest of "
                   f"the round against {play_on}ing")
    return (f"In the {words['decision']} that {r.policy} meets at {r.players} players, by hand points: "
            f"{_chart_rule(cells, words['letter'], play_on)} (elsewhere, the data do not separate the two). "
            f"In the most frequent cell ({where}), {verdict}.")


def _conclude_tune(results: list) -> str:
    r = results[0]
    s = r.summary()
    vs = ", ".join(dict.fromkeys(str(r.vs).split(",")))
    pick = s["pick"].partition(":")[2] or s["pick"]
    head = f"Tuning {r.strategy} at {r.players} players against {vs} picks {pick} (start: {s['start']})"
    lo, hi = s["edge_ci_low"], s["edge_ci_high"]
    if r.verdict == "same parameters":
        return f"{head}: the start stays."
    if not separated(lo, hi):
        return (f"{head}; on fresh deals the data do not separate the pick from the start "
                f"({est(s['edge'], lo, hi, sign=True)} {metric_words(r.metric)}).")
    return f"{head}; on fresh deals {leads(r.metric, 'the pick', 'the start', s['edge'], lo, hi)}."


def _conclude_grade(results: list) -> str:
    t = results[0].table
    pooled = t[(t.decision == "") & (t.metric == "points_lost_per_round")].sort_values("value")
    best, worst = pooled.iloc[0], pooled.iloc[-1]
    then = "" if len(pooled) < 3 else (f", then {pooled.iloc[1].strategy}'s, "
                                       f"{est(pooled.iloc[1].value, pooled.iloc[1].ci_low, pooled.iloc[1].ci_high)}")
    return (f"At {int(best.players)} players, against roll-outs of every legal action, {best.strategy}'s decisions "
            f"lose the fewest points, {est(best.value, best.ci_low, best.ci_high)} per round{then}; {worst.strategy}'s "
            f"lose the most, {est(worst.value, worst.ci_low, worst.ci_high)}.")


# ------------------------------------------------------------------------------------ how a step measured

def _size(args: dict) -> str:
    if "precision" in args:
        cap = f" (at most {thousands(args['max_rounds'])} rounds)" if "max_rounds" in args else ""
        return f"played until every interval's half-width is at most {args['precision']:g}{cap}"
    if "games" in args:
        return f"{thousands(args['games'])} full games"
    return f"{thousands(args.get('rounds', DEFAULT_ROUNDS))} single rounds"


def _method_compare(args: dict, results: list) -> str:
    return (f"Every strategy plays every seat on the same deals, {_size(args)} at "
            f"{counts_text(args['players'])}.")


def _method_league(args: dict, results: list) -> str:
    k = len(args["strategies"])
    return (f"At each player count N every line-up of N of the {k} strategies plays its own deals; "
            f"{_size(args)} per player count in all, spread evenly over the line-ups.")


def _method_seat_table(args: dict, results: list) -> str:
    return (f"Every seat plays {listing(args['strategies'], 'or')}, {_size(args)} per player count, "
            f"at {counts_text(args['players'])}.")


def _method_sweep(args: dict, results: list) -> str:
    grid = "; ".join(f"{k} = {_values_text(v)}" for k, v in args["param"].items())
    vs = listing(args["vs"]) or "copies of itself"
    opponent = results[0].opponent
    return (f"{args['strategy']} with {grid} against {vs} at {args['players']} players, {_size(args)} per value, "
            f"every value on the same deals. \"vs {opponent}\" is its value minus {opponent}'s at the same tables, "
            f"\"vs best\" its value minus the best value's.")


def _values_text(values: list) -> str:
    values = list(values)
    steps = {round(b - a, 9) for a, b in zip(values, values[1:])}
    if len(values) > 3 and len(steps) == 1:
        return f"{values[0]:g} to {values[-1]:g}"
    return listing([f"{v:g}" for v in values])


def _method_solve(args: dict, results: list) -> str:
    return "Solved exactly by dynamic programming over the row and the score: no sampling."


def _method_simulate(args: dict, results: list) -> str:
    return f"The seats as listed, seat 0 starting the first round, {_size(args)}."


def _method_advise(args: dict, results: list) -> str:
    r = results[0]
    if r.method != "roll-outs":
        return f"Valued exactly ({r.method}): no sampling."
    who = listing(list(dict.fromkeys(r.strategies)))
    return (f"Every legal action is played out from the position {thousands(r.rollouts)} times on the same deals of "
            f"the cards the player cannot see, then the table plays {who} to the end of the "
            f"{'game' if r.horizon == 'game' else 'round'}.")


def _method_chart(args: dict, results: list) -> str:
    from llama_sim.analysis.chart import wording

    r = results[0]
    words = wording(r.game)
    return (f"{thousands(r.games)} full games of {r.policy} at {r.players} players; at each of its {words['decision']} "
            f"both choices were played out on the same cards. Per token at stake: how many such decisions, how "
            f"often {r.policy} quit, and the share of the decisions in cells where quitting is better, where "
            f"{words['play_on']}ing is, and where the data do not separate them.")


def _method_tune(args: dict, results: list) -> str:
    r = results[0]
    return (f"A race of {r.strategy}'s parameter values on common deals ({thousands(args['budget'])} rounds' worth "
            f"in all), then the pick against the start on fresh deals.")


def _method_grade(args: dict, results: list) -> str:
    return (f"{thousands(args['decisions'])} decisions of each strategy at {args['players']} players, each valued "
            f"by {thousands(args['rollouts'])} roll-outs of every legal action.")


def _method_variants(args: dict, results: list) -> str:
    return (f"The same strategies on the same deals under the rulebook and under each variant, {_size(args)} per "
            f"player count.")


# ------------------------------------------------------------------------------------ where points and wins disagree

def _disagree(ranking: pd.DataFrame) -> list[str]:
    """Per player count: the strategy with the lowest penalty per round when another clearly wins more
    games (the data separate the two on both measures)."""
    if not {"penalty_per_round", "win_rate"} <= set(ranking.metric):
        return []
    out = []

    def tied(row) -> set:
        return set(filter(None, str(row.indistinguishable_from or "").split(", ")))

    for n, g in ranking.groupby("players", sort=False):
        points = g[g.metric == "penalty_per_round"].sort_values("rank")
        wins = g[g.metric == "win_rate"].sort_values("rank")
        low, lead = points.iloc[0], wins.iloc[0]
        if low.strategy == lead.strategy or low.strategy in tied(lead) or lead.strategy in tied(low):
            continue
        place = int(wins.strategy.tolist().index(low.strategy)) + 1
        out.append(f"at {n} players {low.strategy} has the lowest penalty per round, "
                   f"{est(low.value, low.ci_low, low.ci_high)}, but ranks {ordinal(place)} by win rate, "
                   f"behind {listing(wins.strategy.iloc[:place - 1].tolist())}")
    return out


def _disagree_compare(results: list) -> list[str]:
    return [s for r in results for s in _disagree(r.ranking)]


def _disagree_league(results: list) -> list[str]:
    return _disagree(results[0].ranking)


# ------------------------------------------------------------------------------------ display tables

def _ci_column(values, lows, highs, sign: bool = False) -> list[str]:
    """A column of ``value [low, high]``, each rounded as its own interval supports."""
    return [est(v, lo, hi, sign=sign) for v, lo, hi in zip(values, lows, highs)]


def _pivot_metrics(df: pd.DataFrame, keys: list[str], metrics: list[str], extra=None) -> pd.DataFrame:
    """One row per ``keys``, one ``value [low, high]`` column per metric (in ``metrics`` order)."""
    base = df[df.metric == metrics[0]][keys].reset_index(drop=True)
    for m in metrics:
        g = df[df.metric == m].set_index(keys)
        rows = g.loc[[tuple(r) if len(keys) > 1 else r[0] for r in base.itertuples(index=False)]]
        base[metric_words(m)] = _ci_column(rows.value, rows.ci_low, rows.ci_high)
        if extra is not None:
            extra(base, m, rows)
    return base


def _display_compare(results: list) -> pd.DataFrame:
    rank = pd.concat([r.ranking for r in results], ignore_index=True)
    head = _headline(rank.metric)
    metrics = [head] + [m for m in dict.fromkeys(rank.metric) if m != head]
    first = rank[rank.metric == head][["players", "rank", "strategy", "indistinguishable_from"]].reset_index(drop=True)
    table = first[["players", "rank", "strategy"]].copy()
    for m in metrics:
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        rows = g.loc[list(zip(table.players, table.strategy))]
        table[metric_words(m)] = _ci_column(rows.value, rows.ci_low, rows.ci_high)
    tied = "tied with" if len(metrics) == 1 else f"tied with (on {metric_words(head)})"
    table[tied] = first.indistinguishable_from.replace("", "-").to_numpy()
    if table.players.nunique() == 1:
        table = table.drop(columns="players")
    return table


def _display_league(results: list) -> pd.DataFrame:
    """The league table: per player count, best first by the headline metric, every compared metric."""
    r = results[0]
    rank = r.ranking
    metrics = [r.headline] + [m for m in dict.fromkeys(rank.metric) if m != r.headline]
    table = rank[rank.metric == r.headline][["players", "rank", "strategy"]].reset_index(drop=True)
    for m in metrics:
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        rows = g.loc[list(zip(table.players, table.strategy))]
        table[metric_words(m)] = _ci_column(rows.value, rows.ci_low, rows.ci_high)
    table[f"tied with (on {metric_words(r.headline)})"] = [
        rank[(rank.metric == r.headline) & (rank.players == n) & (rank.strategy == s)].indistinguishable_from.iloc[0]
        or "-" for n, s in zip(table.players, table.strategy)]
    return table


def _sections_league(results: list) -> list[tuple[str, str, pd.DataFrame]]:
    """The strongest-strategy section: the table of the leader per player count (the answer has the words)."""
    r = results[0]
    s = r.strongest
    table = pd.DataFrame({
        "players": s.players, "strongest": s.best, metric_words(r.headline): _ci_column(s.value, s.ci_low, s.ci_high),
        "runner-up": s.runner_up, "edge": _ci_column(s.edge, s.edge_ci_low, s.edge_ci_high, sign=True),
        "head-to-head": _ci_column(s.head_to_head, s.h2h_ci_low, s.h2h_ci_high, sign=True),
        "line-ups with both": s.lineups_both})
    text = "The leader at each player count, and by how much it leads the runner-up (edge and head-to-head: see Terms)."
    return [("Strongest strategy", text, table)]


def _display_seat_table(results: list) -> pd.DataFrame:
    s = results[0].seats
    head = _headline(s.metric)
    metrics = [head] + [m for m in dict.fromkeys(s.metric) if m != head]
    keys = ["strategy", "players", "seat"]
    table = s[s.metric == head][keys].reset_index(drop=True)
    for m in metrics:
        g = s[s.metric == m].set_index(keys).loc[list(table.itertuples(index=False, name=None))]
        table[metric_words(m)] = _ci_column(g.value, g.ci_low, g.ci_high)
        table[f"{metric_words(m)} vs average seat"] = _ci_column(g.vs_mean, g.vs_mean_ci_low, g.vs_mean_ci_high,
                                                                 sign=True)
        if m == head:
            table[f"clear (Holm, {metric_words(m)})"] = np.where(g.p_holm.to_numpy() < 0.05, "yes", "")
    if table.strategy.nunique() == 1:
        table = table.drop(columns="strategy")
    return table


def _display_sweep(results: list) -> pd.DataFrame:
    r = results[0]
    s = r.summary
    out = {k: s[c] for k, c in zip(r.params, ("param_value", "param2_value"))}
    out[metric_words(r.headline)] = _ci_column(s.value, s.ci_low, s.ci_high)
    out[f"vs {r.opponent}"] = _ci_column(s["diff"], s.diff_ci_low, s.diff_ci_high, sign=True)
    out["vs best"] = _ci_column(s.vs_best, s.vs_best_ci_low, s.vs_best_ci_high, sign=True)
    out["verdict"] = np.where(s.best, "best", np.where(s.near_best, "tied with best", ""))
    return pd.DataFrame(out)


def _display_solve(results: list) -> pd.DataFrame:
    df = results[0].policy
    cols = ["row", "quit_value", "roll_value", "best"]
    shown = df[cols] if len(df) <= 40 else df[cols].sort_values("quit_value").iloc[
        np.linspace(0, len(df) - 1, 30).round().astype(int)]
    return shown.round(4).rename(columns={"quit_value": "quit now", "roll_value": "roll on (expected)"})


def _display_simulate(results: list) -> pd.DataFrame:
    df = results[0].results
    head = _headline(df.metric)
    metrics = [head] + [m for m in dict.fromkeys(df.metric) if m != head]
    seated = df.dropna(subset=["seat"]).assign(seat=lambda d: d.seat.astype(int))
    return _pivot_metrics(seated, ["seat", "strategy"], metrics)


def _display_advise(results: list) -> pd.DataFrame:
    r = results[0]
    t = r.table
    primary = "win_rate" if r.horizon == "game" else "penalty_per_round"
    rows = []
    for a in r.ranking:
        own = t[(t.action == a) & (t.metric == primary)].iloc[0]
        diff = t[(t.action == a) & (t.metric == primary + "_vs_best")]
        rows.append({"action": a, metric_words(primary): est(own.value, own.ci_low, own.ci_high),
                     "vs best": (est(*diff[["value", "ci_low", "ci_high"]].iloc[0], sign=True) if len(diff) else "-"),
                     "roll-outs": int(own.n)})
    return pd.DataFrame(rows)


def _display_chart(results: list) -> pd.DataFrame:
    """Per token at stake: how many decisions, how often the policy quit, and the share of them in
    cells where quitting, playing on or neither is better."""
    from llama_sim.analysis.chart import wording

    r = results[0]
    words = wording(r.game)
    cells = r.cells[r.cells.chart == "pile"]
    rows = []
    for s in r.summary.itertuples():
        mine = cells[cells.token == s.token]
        total = mine.decisions.sum()
        share = {a: mine[mine.answer == a].decisions.sum() / total if total else 0.0 for a in ("Q", words["letter"], "?")}
        rows.append({"token at stake": s.token, "decisions": s.decisions, "per game": round(s.per_game, 1),
                     f"{r.policy} quits": f"{s.policy_quit_rate:.0%}", "quitting better": f"{share['Q']:.0%}",
                     f"{words['play_on']}ing better": f"{share[words['letter']]:.0%}",
                     "cannot be told apart": f"{share['?']:.0%}"})
    return pd.DataFrame(rows)


def _display_grade(results: list) -> pd.DataFrame:
    t = results[0].table
    pooled = t[t.decision == ""]
    rows = []
    for strategy, part in pooled.groupby("strategy", sort=False):
        by = {r.metric: r for r in part.itertuples()}
        rows.append({"strategy": strategy, "decisions": by["error_rate"].n, "_sort": by["points_lost_per_round"].value,
                     **{m.replace("_", " "): est(by[m].value, by[m].ci_low, by[m].ci_high)
                        for m in ("error_rate", "points_lost_per_decision", "points_lost_per_round")}})
    return pd.DataFrame(rows).sort_values("_sort").drop(columns="_sort").reset_index(drop=True)


def _display_tune(results: list) -> pd.DataFrame:
    r = results[0]
    f = r.final
    return pd.DataFrame({"": f.iloc[:, 0] if "which" not in f else f.which, "parameters": f.params,
                         metric_words(r.metric): _ci_column(f.value, f.ci_low, f.ci_high),
                         "vs start": _ci_column(f.diff_vs_start, f.diff_ci_low, f.diff_ci_high, sign=True)})


# ------------------------------------------------------------------------------------ terms

def _metric_keys(df: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(df.metric)) if "metric" in df else []


def _terms_compare(results: list) -> list[str]:
    games = any("win_rate" in set(r.results.metric) for r in results)
    return ["interval", "paired", "tied", "games" if games else "rounds"] + metric_terms(
        m for r in results for m in _metric_keys(r.ranking))


def _terms_league(results: list) -> list[str]:
    r = results[0]
    return (["interval", "paired", "tied", "games" if "win_rate" in set(r.ranking.metric) else "rounds", "line-up",
             "league value", "edge", "head-to-head"] + metric_terms(_metric_keys(r.ranking)))


def _terms_seat_table(results: list) -> list[str]:
    s = results[0].seats
    return ["interval", "first player", "vs average seat", "holm",
            "games" if "win_rate" in set(s.metric) else "rounds"] + metric_terms(_metric_keys(s))


def _terms_sweep(results: list) -> list[str]:
    r = results[0]
    return ["interval", "paired", "games" if r.headline == "win_rate" else "rounds"] + metric_terms([r.headline])


def _terms_chart(results: list) -> list[str]:
    return ["interval", "stuck decision", "chart answer", "token"] + (["win measure"] if results[0].measure == "win"
                                                                     else ["penalty_per_round"])


def _terms_tune(results: list) -> list[str]:
    return ["interval", "paired", "tune"] + metric_terms([results[0].metric])


def _terms_grade(results: list) -> list[str]:
    return ["interval", "roll-out", "points lost", "error rate"]


def _terms_advise(results: list) -> list[str]:
    return ["interval", "roll-out", "advice", "penalty_per_round"] + (["win_rate"] if results[0].horizon == "game"
                                                                     else [])


def _terms_simulate(results: list) -> list[str]:
    return ["interval"] + metric_terms(_metric_keys(results[0].results))


def _terms_variants(results: list) -> list[str]:
    return ["interval", "rulebook", "effect", "tied", "games"] + metric_terms(_metric_keys(results[0].effects))


def answers_on(kind: str, results: list) -> set:
    """The measures a step's answer speaks of: penalty per round, win rate or both."""
    r = results[0]
    if kind == "variants":
        return {"penalty_per_round", "win_rate"}
    if kind == "chart":
        return {"win_rate" if r.measure == "win" else "penalty_per_round"}
    if kind == "sweep":
        return {r.headline}
    if kind == "tune":
        return {r.metric}
    if kind == "advise":
        return {"win_rate" if r.horizon == "game" else "penalty_per_round"}
    if kind in ("grade", "solve"):
        return {"penalty_per_round"}
    for name in ("ranking", "seats", "results"):
        df = getattr(r, name, None)
        if isinstance(df, pd.DataFrame) and "metric" in df:
            return {_headline(df.metric)}
    return set()


@dataclass(frozen=True)
class StepKind:
    """One kind of step: its keys, validation, run, tables (name -> result attribute), the answer
    (one or two sentences derived from the data, each estimate with its interval), the compact
    table shown in the report, how the step measured (``method``, one line), the glossary terms its
    answer and table use, and where its points and win-rate rankings disagree."""

    keys: frozenset
    check: Callable
    run: Callable
    tables: tuple[str, ...]
    conclude: Callable
    display: Callable
    method: Callable[[dict, list], str]
    terms: Callable[[list], list] = lambda results: ["interval"]
    plot_suffix: Callable[[Any], str] = lambda r: ""
    scale: Callable[[dict, float], dict] = lambda args, scale: _scaled(args, scale)  # --scale
    sections: Callable[[list], list] = lambda results: []  # extra (title, text, table) sections of the report
    disagree: Callable[[list], list] = lambda results: []  # sentences: lowest penalty but not the most wins


_COMMON = {"kind", "name", "title"}
_COUNTS = set(COUNT_KEYS)


def _variants_kind() -> StepKind:
    from llama_sim.analysis.variants import BASELINE, conclude_variants, display_variants, ranking_table

    def sections(results: list) -> list:
        text = (f"The strategies in order under the {BASELINE} and under each variant, best first by "
                f"{metric_words(_headline(results[0].ranking.metric))}: a > b means a is clearly ahead, a ~ b that "
                f"the data do not separate them.")
        return [("Rankings", text, ranking_table(results[0]))]

    return StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "variants"}), None,
                    _run_variants, ("results", "effects", "ranking"), lambda results: conclude_variants(results[0]),
                    lambda results: display_variants(results[0]), _method_variants, _terms_variants,
                    sections=sections)


STEP_KINDS: dict[str, StepKind] = {
    "compare": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), None,
                        _run_compare, ("results", "paired", "ranking"), _conclude_compare, _display_compare,
                        _method_compare, _terms_compare, lambda r: f"_{int(r.results.players.iloc[0])}p",
                        disagree=_disagree_compare),
    "league": StepKind(frozenset(_COMMON | {"rounds", "games", "strategies", "players", "metrics"}), None,
                       _run_league, ("results", "paired", "ranking", "strongest", "lineups"), _conclude_league,
                       _display_league, _method_league, _terms_league, sections=_sections_league,
                       disagree=_disagree_league),
    "seat_table": StepKind(frozenset(_COMMON | _COUNTS | {"strategies", "players", "metrics"}), None,
                           _run_seat_table, ("results", "seats"), _conclude_seat_table, _display_seat_table,
                           _method_seat_table, _terms_seat_table),
    "sweep": StepKind(frozenset(_COMMON | {"rounds", "games", "strategy", "grid", "vs", "players"}), None,
                      _run_sweep, ("results", "summary"), _conclude_sweep, _display_sweep, _method_sweep,
                      _terms_sweep),
    "solve": StepKind(frozenset(_COMMON | {"row", "llama_row", "score", "table"}), None, _run_solve, ("policy",),
                      _conclude_solve, _display_solve, _method_solve, lambda results: ["exact"],
                      scale=lambda args, scale: args),
    "simulate": StepKind(frozenset(_COMMON | {"rounds", "games", "seats"}), None, _run_simulate,
                         ("results",), _conclude_simulate, _display_simulate, _method_simulate, _terms_simulate),
    "advise": StepKind(frozenset(_COMMON | set() | {"policy", "opponents", "horizon", "rollouts",
                                                                      "precision", "max_rollouts"}),
                       None, _run_advise, ("table",), _conclude_advise, _display_advise, _method_advise,
                       _terms_advise, scale=_scaled_advise),
    "chart": StepKind(frozenset(_COMMON | {"players", "games", "policy", "measure"}), None, _run_chart,
                      ("cells", "summary"), _conclude_chart, _display_chart, _method_chart, _terms_chart,
                      scale=_scaled_key("games", 20)),
    "tune": StepKind(frozenset(_COMMON | {"strategy", "players", "vs", "budget", "metric"}), None, _run_tune,
                     ("final", "candidates", "race"), _conclude_tune, _display_tune, _method_tune, _terms_tune,
                     scale=_scaled_key("budget", 2000)),
    "grade": StepKind(frozenset(_COMMON | {"strategies", "players", "decisions", "rollouts"}), None, _run_grade,
                      ("table", "mistakes"), _conclude_grade, _display_grade, _method_grade, _terms_grade,
                      scale=_scaled_key("decisions", 50)),
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
    args: dict = field(default_factory=dict)  # the arguments the step ran with (after --scale)


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
    args = entry.scale(step.args, scale)
    for i, point in enumerate(option_grid_points(step)):
        if not quiet:
            print(f"llamasim:   {tag_text(point)}", file=sys.stderr, flush=True)
        options = {**step.options, **point}
        got = entry.run(replace(spec, options=options, seed=spec.seed + i), args, quiet)
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
                           tags=tags, args=args)
    tables.update(summary.tables)
    return StepOutcome(step, results, tables, summary.sentence, summary.display, seconds, tags=tags, details=details,
                       summary=summary, args=args)
