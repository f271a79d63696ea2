"""The advise step: every legal action of one position valued by roll-outs (or exactly); its answer
is the advice's own sentence."""
from __future__ import annotations

import math

import pandas as pd

from llama_sim.analysis.advise import advise
from llama_sim.core.words import est, listing, metric_words, thousands
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind


def _run_advise(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k != "position"}
    return [advise(spec.game, seed=spec.seed, **rest, **args["position"], **spec.options)]


def _scaled_advise(args: dict, scale: float) -> dict:
    """A fixed roll-out count scales; the default stop rule (3 standard errors or 0.02) does not."""
    out = dict(args)
    if "rollouts" in out:
        out["rollouts"] = max(2, math.ceil(out["rollouts"] * scale))
    if "max_rollouts" in out:
        out["max_rollouts"] = max(2, math.ceil(out["max_rollouts"] * scale))
    return out


def _conclude_advise(results: list) -> str:
    return results[0].sentence


def _method_advise(args: dict, results: list) -> str:
    r = results[0]
    if r.method != "roll-outs":
        return f"Valued exactly ({r.method}): no sampling."
    who = listing(list(dict.fromkeys(r.strategies)))
    return (f"Every legal action is played out from the position {thousands(r.rollouts)} times on the same deals of "
            f"the cards the player cannot see, then the table plays {who} to the end of the "
            f"{'game' if r.horizon == 'game' else 'round'}.")


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


def _terms_advise(results: list) -> list[str]:
    return ["interval", "roll-out", "advice", "penalty_per_round"] + (["win_rate"] if results[0].horizon == "game"
                                                                     else [])


KIND = StepKind(run=_run_advise, tables=("table",), conclude=_conclude_advise,
                display=_display_advise, method=_method_advise,
                answers_on=lambda results: {"win_rate" if results[0].horizon == "game" else "penalty_per_round"},
                terms=_terms_advise, scale=_scaled_advise)
