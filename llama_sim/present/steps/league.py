"""The league step: every line-up of N of the strategies at each player count N; its answer is the
league's own sentence, and its report adds the strongest strategy's section."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.league import league
from llama_sim.core.words import metric_words
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import (
    StepKind, ci_column, disagreements, headline_of, metric_keys, size,
)
from llama_sim.present.terms import metric_terms


def _run_league(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [league(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _conclude_league(results: list) -> str:
    return results[0].conclusion


def _method_league(args: dict, results: list) -> str:
    k = len(args["strategies"])
    return (f"At each player count N every line-up of N of the {k} strategies plays its own deals; "
            f"{size(args, results)} per player count in all, spread evenly over the line-ups.")


def _display_league(results: list) -> pd.DataFrame:
    """The league table: per player count, best first by the headline metric, every compared metric."""
    r = results[0]
    rank = r.ranking
    metrics = [r.headline] + [m for m in dict.fromkeys(rank.metric) if m != r.headline]
    table = rank[rank.metric == r.headline][["players", "rank", "strategy"]].reset_index(drop=True)
    for m in metrics:
        g = rank[rank.metric == m].set_index(["players", "strategy"])
        rows = g.loc[list(zip(table.players, table.strategy))]
        table[metric_words(m)] = ci_column(rows.value, rows.ci_low, rows.ci_high)
    table[f"tied with (on {metric_words(r.headline)})"] = [
        rank[(rank.metric == r.headline) & (rank.players == n) & (rank.strategy == s)].indistinguishable_from.iloc[0]
        or "-" for n, s in zip(table.players, table.strategy)]
    return table


def _sections_league(results: list) -> list[tuple[str, str, pd.DataFrame]]:
    """The strongest-strategy section: the table of the leader per player count (the answer has the words)."""
    r = results[0]
    s = r.strongest
    table = pd.DataFrame({
        "players": s.players, "strongest": s.best, metric_words(r.headline): ci_column(s.value, s.ci_low, s.ci_high),
        "runner-up": s.runner_up, "edge": ci_column(s.edge, s.edge_ci_low, s.edge_ci_high, sign=True),
        "head-to-head": ci_column(s.head_to_head, s.h2h_ci_low, s.h2h_ci_high, sign=True),
        "line-ups with both": s.lineups_both})
    text = "The leader at each player count, and by how much it leads the runner-up (edge and head-to-head: see Terms)."
    sections = [("Strongest strategy", text, table)]
    if not r.ratings.empty:
        g = r.ratings.sort_values(["players", "value"], ascending=[True, False])
        ratings = pd.DataFrame({"players": g.players, "strategy": g.strategy,
                                "rating": ci_column(g.value, g.ci_low, g.ci_high, sign=True), "games": g.games})
        text = ("One rating per strategy and player count that predicts win rates in any line-up (see Terms). "
                "Checked by predicting each line-up from the others: " + r.run["held_out"].replace("\n", "; ") + ".")
        sections.append(("Ratings", text, ratings.reset_index(drop=True)))
    return sections


def _terms_league(results: list) -> list[str]:
    r = results[0]
    return (["interval", "paired", "tied", "games" if "win_rate" in set(r.ranking.metric) else "rounds", "line-up",
             "league value", "edge", "head-to-head"] + (["rating"] if not r.ratings.empty else []) + metric_terms(metric_keys(r.ranking)))


def _disagree_league(results: list) -> list[str]:
    return disagreements(results[0].ranking)


KIND = StepKind(run=_run_league, tables=("results", "paired", "ranking", "strongest", "lineups", "ratings"),
                conclude=_conclude_league, display=_display_league, method=_method_league,
                answers_on=headline_of("ranking"), terms=_terms_league, sections=_sections_league,
                disagree=_disagree_league)
