"""The compare step: every strategy in every seat on the same deals, one comparison per player count;
its answer is the leader against the runner-up on the headline metric."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.compare import compare
from llama_sim.analysis.plots import plot_league
from llama_sim.core import registry
from llama_sim.core.words import counts_text, est, leads, listing, magnitude, metric_words, separated, win_lead
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import (
    StepKind, ci_column, disagreements, headline, headline_of, metric_keys, size,
)
from llama_sim.present.terms import metric_terms


def _run_compare(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategies", "players")}
    return [compare(spec.game, args["strategies"], players=n, seed=spec.seed, quiet=quiet, **rest,
                        **spec.options) for n in args["players"]]


def _lead(r) -> dict:
    """A compare result's best strategy against the runner-up on the headline metric: the paired
    difference (best - runner-up), its interval and whether the data separate them."""
    metric = headline(r.ranking.metric)
    rank = r.ranking[r.ranking.metric == metric].sort_values("rank")
    top, second = rank.strategy.iloc[0], rank.strategy.iloc[1]
    pairs = r.paired[r.paired.metric == metric]
    row = pairs[((pairs.strategy_a == top) & (pairs.strategy_b == second))
                | ((pairs.strategy_a == second) & (pairs.strategy_b == top))].iloc[0]
    sign = 1 if row.strategy_a == top else -1  # top - second
    lo, hi = sorted((sign * row.ci_low, sign * row.ci_high))
    values = rank.set_index("strategy").value
    return {"players": int(rank.players.iloc[0]), "metric": metric, "top": top, "second": second,
            "diff": sign * row["diff"], "lo": lo, "hi": hi, "clear": row.better == top and separated(lo, hi),
            "order": list(rank.strategy), "rate_top": float(values[top]), "rate_second": float(values[second])}


def _cost(r) -> str:
    """For a table with a search player (the expert): what its games cost, as games per second and
    seconds per game of the whole table (the heuristics' share is small)."""
    game = str(r.results.game.iloc[0])
    names = {str(s).partition(":")[0] for s in r.results.strategy}
    try:
        searching = [n for n in names if registry.get(game, n).search]
    except Exception:  # a name the registry does not know here (a strategies file): no cost line
        return ""
    table = r.run.get("tables", [{}])[0]
    seconds, played = table.get("seconds"), table.get("games")
    if not searching or not seconds or not played:
        return ""
    per_game = seconds / played
    each = f"{per_game:.2f} s" if per_game >= 0.1 else f"{1000 * per_game:.1f} ms"
    return (f" What {listing(sorted(searching))} costs: the table played {played / seconds:,.1f} games per second, "
            f"{each} per game ({r.run.get('backend', '')}).")


def _conclude_compare(results: list) -> str:
    """Per player count: the best strategy against the runner-up on the headline metric (win rate
    with games, else penalty per round), with the paired interval of their difference; one sentence
    for every count when the same strategy clearly leads the same runner-up at each."""
    leads_ = [_lead(r) for r in results]
    x = leads_[0]
    nxt = ", the next best" if len(x["order"]) > 2 else ""
    if x["metric"] == "win_rate":  # rates as games in every 100, edges in percentage points
        parts = []
        for y, r in zip(leads_, results):
            order = f" (order: {', '.join(y['order'])})" if len(y["order"]) > 2 else ""
            parts.append(f"At {y['players']} players "
                         f"{win_lead(y['top'], y['second'], y['rate_top'], y['rate_second'], y['diff'], y['lo'], y['hi'])}"
                         f"{order}.{_cost(r)}")
        return " ".join(parts)
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


def _method_compare(args: dict, results: list) -> str:
    return (f"Every strategy plays every seat on the same deals, {size(args, results)} at "
            f"{counts_text(args['players'])}.{rounded(args, results)}")


def rounded(args: dict, results: list) -> str:
    """" (Whole deal blocks made 260 games of the 250 asked.)" when a run played more than asked."""
    unit = "games" if "games" in args else "rounds" if "rounds" in args else None
    if unit is None or "precision" in args:
        return ""
    played = sorted({t.get(unit) for r in results for t in r.run.get("tables", []) if t.get(unit)})
    if not played or played == [args[unit]]:
        return ""
    made = " to ".join(f"{p:,}" for p in played[::max(1, len(played) - 1)])
    return f" (Whole deal blocks, every strategy in every seat, made {made} {unit} of the {args[unit]:,} asked.)"


def _display_compare(results: list) -> pd.DataFrame:
    rank = pd.concat([r.ranking for r in results], ignore_index=True)
    head = headline(rank.metric)
    metrics = [head] + [m for m in dict.fromkeys(rank.metric) if m != head]
    first = rank[rank.metric == head][["players", "rank", "strategy", "indistinguishable_from"]].reset_index(drop=True)
    table = first[["players", "rank", "strategy"]].copy()
    for m in metrics:
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        rows = g.loc[list(zip(table.players, table.strategy))]
        table[metric_words(m)] = ci_column(rows.value, rows.ci_low, rows.ci_high)
    tied = "tied with" if len(metrics) == 1 else f"tied with (on {metric_words(head)})"
    table[tied] = first.indistinguishable_from.replace("", "-").to_numpy()
    if table.players.nunique() == 1:
        table = table.drop(columns="players")
    return table


def _terms_compare(results: list) -> list[str]:
    games = any("win_rate" in set(r.results.metric) for r in results)
    return ["interval", "paired", "tied", "games" if games else "rounds"] + metric_terms(
        m for r in results for m in metric_keys(r.ranking))


def _disagree_compare(results: list) -> list[str]:
    return [s for r in results for s in disagreements(r.ranking)]


KIND = StepKind(run=_run_compare, tables=("results", "paired", "ranking"), conclude=_conclude_compare,
                display=_display_compare, method=_method_compare, answers_on=headline_of("ranking"),
                terms=_terms_compare, plot_suffix=lambda r: f"_{int(r.results.players.iloc[0])}p",
                disagree=_disagree_compare, overview=plot_league)
