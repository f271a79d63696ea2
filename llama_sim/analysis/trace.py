"""``llamasim trace``: one round (or one game) of a line-up, every decision in words.

The round is deal block ``round`` of ``seed``, played on the reference engine with recording
policies (``run.replay``): the reference engine draws from the same streams as the kernels, so the
round traced is the round ``simulate`` plays (a test checks the scores against the kernel's). With
``values`` every decision with a choice is valued by the expert's roll-outs (as ``grade`` values
them): each legal action's expected points for the deciding player over the rest of the round
(lower is better), and what the choice lost against the best of them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from llama_sim.analysis.grade import expert_search
from llama_sim.core import registry
from llama_sim.core import rng as R
from llama_sim.core.errors import Interrupted, UsageError, illegal_action_error
from llama_sim.core.expert import OWN
from llama_sim.core.kit import kit_of, legal_text
from llama_sim.core.ruleset import get_game
from llama_sim.run.replay import Seen, replay, seen_words
from llama_sim.run.chunks import policy_error
from llama_sim.run.designs import seat_plan

_SALT = 0xBB67AE8584CAA73B  # the roll-outs' streams differ from the round's (same seed)


@dataclass
class TraceResult:
    """``decisions``: one row per decision (who, what they saw, the legal actions, the choice, and with
    values each action's value and the points lost); ``outcome``: one row per seat."""

    decisions: pd.DataFrame
    outcome: pd.DataFrame
    header: str
    run: dict

    def text(self) -> str:
        lines = [self.header]
        last = None
        for r in self.decisions.itertuples():
            if r.round != last:
                lines += ["", f"round {r.round}" + (f" of game {self.run['round']}" if self.run["games"] else "")]
                last = r.round
            lines.append(f"  {r.strategy}: {r.saw}; legal: {r.legal} -> {r.chose}")
            if "points_lost" in self.decisions.columns and r.values:
                lines.append(f"      expert values {r.values}; the choice lost {r.points_lost:.2f}")
        lines += ["", "outcome:"]
        for r in self.outcome.to_dict("records"):
            lines.append("  " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in r.items()))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"TraceResult({self.header})"


def trace(game: str, seats, *, games: bool = False, round: int = 0, seed: int = 1, values: bool = False,
          rollouts: int = 200, strategies_file=None, **rule_options) -> TraceResult:
    """Play round (or, with ``games``, game) ``round`` of seed ``seed`` with ``seats[s]`` in seat s and
    return every decision in words (see the module docstring)."""
    rule_set = get_game(game)
    registry.load_files(strategies_file)
    players = [registry.parse_spec(game, s) for s in seats]
    plan = seat_plan(rule_set, players, games, rule_set.config(**{k: v for k, v in rule_options.items()
                                                                  if v is not None}))
    seen: list[Seen] = []
    try:
        s1 = replay(plan, seed, round, seen)
    except (UsageError, Interrupted):
        raise
    except Exception as exc:  # an illegal action (its position is the last decision), or a policy raised
        illegal = illegal_action_error(exc, plan.unit_labels, rule_set.action_names,
                                       lambda: seen_words(game, seen[-1]) if seen else None)
        raise (illegal if illegal is not None else policy_error(exc, plan.entries)) from None
    kit = kit_of(game)
    rows, number, last_turn = [], -1, None
    for d in seen:
        turn = int(d.obs[kit.OBS_TURN])
        if last_turn is None or turn <= last_turn:
            number += 1
        last_turn = turn
        rows.append(dict(game=game, round=number if games else round, turn=turn, seat=int(d.obs[kit.OBS_SEAT]),
                         strategy=plan.unit_labels[d.entry], saw=kit.describe(d.obs, d.hand),
                         legal=legal_text(d.legal, rule_set.action_names), chose=rule_set.action_names[d.action],
                         action=d.action))
    if values:
        _add_values(game, plan.n_players, seen, rows, rollouts, seed)
    metrics = ("penalty", "went_out", "quit", "rounds", "win60", "final_score") if games else \
        ("penalty", "went_out", "quit")
    n = plan.n_players
    outcome = pd.DataFrame([{"seat": s, "strategy": plan.unit_labels[s],
                             **{m: int(s1[i * n + s]) for i, m in enumerate(metrics) if m != "win60"}}
                            for s in range(n)])
    what = f"game {round}" if games else f"round {round}"
    header = (f"{rule_set.title}, {n} players ({', '.join(plan.unit_labels)}), {what} of seed {seed}: "
              f"{len(rows)} decisions" + (f", valued by {rollouts} expert roll-outs each" if values else ""))
    return TraceResult(pd.DataFrame(rows), outcome, header,
                       dict(seed=seed, round=round, games=games, rules=rule_set.describe_config(plan.cfg)))


def _add_values(game: str, n: int, seen: list[Seen], rows: list[dict], rollouts: int, seed: int) -> None:
    """Each decision's legal actions valued by the expert's roll-outs, and the points the choice lost."""
    search, base = expert_search(game, n, None, "value")
    names = get_game(game).action_names
    for j, (d, row) in enumerate(zip(seen, rows)):
        actions = [a for a in range(64) if (d.legal >> a) & 1]
        if len(actions) < 2:
            row.update(values="", points_lost=0.0)
            continue
        out = np.zeros((rollouts, len(actions)))
        key = np.uint64(R.block_key(np.uint64(seed ^ _SALT), np.uint64(j)))
        search.values(d.obs, d.hand, np.int64(d.legal), key, rollouts, OWN, base, out)
        mean = out.mean(axis=0)
        row.update(values=", ".join(f"{names[a]} {v:.2f}" for a, v in zip(actions, mean)),
                   points_lost=float(mean[actions.index(d.action)] - mean.min()))
