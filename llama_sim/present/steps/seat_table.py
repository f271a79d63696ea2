"""The seat_table step: every seat playing the same strategy; its answer is the first player's
difference from the average seat."""
from __future__ import annotations

import numpy as np
import pandas as pd

from llama_sim.analysis.compare import seat_table
from llama_sim.core.words import LOWER_IS_BETTER, counts_text, est_points, listing, metric_words
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import (
    StepKind, ci_column, headline, headline_of, metric_keys, size,
)
from llama_sim.present.terms import metric_terms


def _run_seat_table(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "strategies"}
    return [seat_table(spec.game, args["strategies"], seed=spec.seed, quiet=quiet, **rest, **spec.options)]


def _conclude_seat_table(results: list) -> str:
    """Seat 0 (who starts the first round) against the mean of all seats, per strategy and count."""
    seats = results[0].seats
    metric = headline(seats.metric)
    lower_better = metric in LOWER_IS_BETTER
    parts = []
    for strategy, first in seats[(seats.metric == metric) & (seats.seat == 0)].groupby("strategy", sort=False):
        cells, good, bad = [], [], []
        rate = metric == "win_rate"  # in plain words: percentage points, with the even share
        for k, row in enumerate(first.itertuples()):
            shift = est_points(metric, row.vs_mean, row.vs_mean_ci_low, row.vs_mean_ci_high, sign=True)
            cells.append(f"{shift}{' percentage points' if rate and k == 0 else ''} at {row.players}"
                         + (f" players (an even share: {100 / row.players:.0f} of every 100 games)" if rate and k == 0
                            else " players" if k == 0 else ""))
            if row.p_holm < 0.05:
                (good if (row.vs_mean < 0) == lower_better else bad).append(str(row.players))
        verdicts = ([f"a clear advantage at {listing(good)} players"] if good else []) + (
            [f"a clear disadvantage at {listing(bad)} players"] if bad else [])
        verdict = ("none of these is clear of chance once every seat is tested (Holm)" if not verdicts else
                   f"it is {' and '.join(verdicts)} (Holm-corrected over the seats)")
        parts.append(f"With every seat playing {strategy}, the first player's {metric_words(metric)} differs from "
                     f"the average seat's by {listing(cells)}; {verdict}.")
    return " ".join(parts)


def _method_seat_table(args: dict, results: list) -> str:
    return (f"Every seat plays {listing(args['strategies'], 'or')}, {size(args, results)} per player count, "
            f"at {counts_text(args['players'])}.")


def _display_seat_table(results: list) -> pd.DataFrame:
    s = results[0].seats
    head = headline(s.metric)
    metrics = [head] + [m for m in dict.fromkeys(s.metric) if m != head]
    keys = ["strategy", "players", "seat"]
    table = s[s.metric == head][keys].reset_index(drop=True)
    for m in metrics:
        g = s[s.metric == m].set_index(keys).loc[list(table.itertuples(index=False, name=None))]
        table[metric_words(m)] = ci_column(g.value, g.ci_low, g.ci_high)
        table[f"{metric_words(m)} vs average seat"] = ci_column(g.vs_mean, g.vs_mean_ci_low, g.vs_mean_ci_high,
                                                                 sign=True)
        if m == head:
            table[f"clear (Holm, {metric_words(m)})"] = np.where(g.p_holm.to_numpy() < 0.05, "yes", "")
    if table.strategy.nunique() == 1:
        table = table.drop(columns="strategy")
    return table


def _terms_seat_table(results: list) -> list[str]:
    s = results[0].seats
    return ["interval", "first player", "vs average seat", "holm",
            "games" if "win_rate" in set(s.metric) else "rounds"] + metric_terms(metric_keys(s))


KIND = StepKind(run=_run_seat_table, tables=("results", "seats"), conclude=_conclude_seat_table,
                display=_display_seat_table, method=_method_seat_table, answers_on=headline_of("seats"),
                terms=_terms_seat_table)
