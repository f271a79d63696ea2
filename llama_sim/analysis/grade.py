"""``llamasim grade``: how far a strategy is from good play, in points (the model: GNU Backgammon's
error rates).

1. The strategy plays rounds against itself in every seat (the reference engine, which hands each
   decision to a recorder): every decision with more than one legal action is kept, with what the
   player saw and what it chose, until ``decisions`` are kept (whole rounds, so per-round figures
   are exact sums).
2. Each decision is valued by the expert's roll-outs (``core.expert.rollout_values``): the hidden
   cards sampled from what the player saw, every legal action played on the same samples, everyone
   continuing with the expert's base strategy. Two independent sets of ``rollouts`` samples: the
   first *selects* the best action, the second *values* the chosen and the selected action. Valuing
   on the samples that selected would inflate every loss (the maximum of noisy means is biased
   low, for points); on fresh samples the loss is an unbiased estimate of what the choice costs
   against the selected action.
3. Per decision kind (the kinds of the legal actions: "play/draw/quit", "draw/quit", "roll/quit",
   ...) and pooled: ``error_rate`` (the share of decisions whose action is worse than the selected
   best beyond noise: its paired difference on the valuing samples more than 1.96 standard errors),
   ``points_lost_per_decision`` and ``points_lost_per_round`` (per player and round: every round
   counted, also its decisions with one legal action). Intervals treat rounds as the independent units (decisions in
   one round share its cards): ratio estimators, linearised.

Points are the deciding player's own score change over the round (tokens returned included): what
``compare`` reports as ``penalty_per_round``.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from llama_sim.core import interrupt, registry
from llama_sim.core import rng as R
from llama_sim.core.scoring import ROUND_METRICS
from llama_sim.core.errors import Interrupted, UsageError, illegal_action_error
from llama_sim.core.expert import OWN
from llama_sim.core.intervals import MIN_BLOCKS, t_value
from llama_sim.core.kit import position_words
from llama_sim.core.output import ci_text
from llama_sim.core.ruleset import get_game
from llama_sim.core.intervals import wilson
from llama_sim.run.chunks import policy_error

METRICS = ("error_rate", "points_lost_per_decision", "points_lost_per_round")
LEVEL = 0.95
Z = 1.959963984540054  # a choice is an error when its loss is more than Z standard errors
_SALT = 0x6A09E667F3BCC909  # the valuing streams' seeds differ from the games' (same seed)


@dataclass
class Decision:
    """One recorded decision: what the player saw, the legal set, what it chose, in which round."""

    obs: np.ndarray
    hand: np.ndarray
    legal: int
    action: int
    round: int


def decision_kind(legal: int, action_names: tuple[str, ...]) -> str:
    """The kinds of the legal actions, in action order: 'play/draw/quit', 'draw/quit', 'roll/quit'."""
    kinds: list[str] = []
    for a, name in enumerate(action_names):
        if (legal >> a) & 1:
            word = name.split()[0]
            if word not in kinds:
                kinds.append(word)
    return "/".join(kinds)


def record_decisions(game: str, player: registry.Player, n: int, decisions: int, seed: int, cfg) -> tuple[list, int]:
    """Rounds of ``player`` in every seat until ``decisions`` choices (more than one legal action) are
    recorded; returns (decisions, rounds played)."""
    rule_set = get_game(game)
    policy = player.strategy.policy
    kept: list[Decision] = []
    round_no = [0]
    last: list = []  # the latest decision asked: an illegal one's position

    def recorder(obs, hand, legal, params, rng):
        action = int(policy(obs, hand, legal, params, rng))
        last[:] = [(np.array(obs), np.array(hand), int(legal))]
        if legal & (legal - 1):  # more than one bit: a choice
            kept.append(Decision(np.array(obs), np.array(hand), int(legal), action, round_no[0]))
        return action

    entries = [(recorder, player.params)]
    seats = np.zeros((1, n), np.int64)
    width = len(ROUND_METRICS)
    s1 = np.zeros(width, np.int64)  # the reference loop's tallies (round metrics x 1 unit), unused here
    s2 = np.zeros((width, width), np.int64)
    while len(kept) < decisions:
        try:
            rule_set.reference_blocks(seed, round_no[0], 1, n, seats, seats, 1, False, entries, cfg, s1, s2)
        except (UsageError, Interrupted):
            raise
        except Exception as exc:  # an illegal action, or the graded strategy's own code raised: one line
            illegal = illegal_action_error(exc, [player.label] * n, rule_set.action_names,
                                           lambda: position_words(game, *last[0]) if last else None)
            raise (illegal if illegal is not None else policy_error(exc, [player])) from None
        round_no[0] += 1
        if round_no[0] > 100 * decisions + 1000:
            raise UsageError(f"{player.label} met no choice in {round_no[0]:,} rounds of {game}: nothing to grade")
    return kept, round_no[0]


def value_decisions(search, found: list[Decision], rollouts: int, base: int, seed: int, threads: int):
    """(selected best action, loss of the choice, error flag) per decision (see the module docstring)."""
    out = np.zeros((len(found), 3))

    def one(j: int) -> None:
        d = found[j]
        k = bin(d.legal).count("1")
        actions = [a for a in range(64) if (d.legal >> a) & 1]
        pick = np.zeros((rollouts, k))
        value = np.zeros((rollouts, k))
        key_pick = np.uint64(R.block_key(np.uint64(seed ^ _SALT), np.uint64(2 * j)))
        key_value = np.uint64(R.block_key(np.uint64(seed ^ _SALT), np.uint64(2 * j + 1)))
        search.values(d.obs, d.hand, np.int64(d.legal), key_pick, rollouts, OWN, base, pick)
        search.values(d.obs, d.hand, np.int64(d.legal), key_value, rollouts, OWN, base, value)
        best = int(np.argmin(pick.mean(axis=0)))  # the first of equals
        chosen = actions.index(d.action)
        diff = value[:, chosen] - value[:, best]
        se = diff.std(ddof=1) / np.sqrt(rollouts) if rollouts > 1 else 0.0
        out[j] = (actions[best], diff.mean(), float(chosen != best and diff.mean() > Z * se))

    def chunk(indices) -> None:
        with interrupt.track():
            for j in indices:
                one(j)

    def run_all() -> None:
        parts = [range(t, len(found), threads) for t in range(threads)]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(chunk, parts))

    if found:  # compile (or load) once, before the threads start
        interrupt.call(one, 0)
        interrupt.call(run_all)
    return out


def _ratio(x: np.ndarray, d: np.ndarray, rate: bool = False, held: np.ndarray | None = None) -> tuple[float, float, float]:
    """Σx / Σd over rounds with its 95% interval (linearised; rounds independent, so the rounds
    that hold a decision are the units and set the t quantile's degrees of freedom).

    A point value gets ``est +- t se`` from ``MIN_BLOCKS`` such rounds on (no interval below). A
    ``rate`` gets the Wilson interval on the effective number of decisions (``stats.estimate``'s
    design effect; the plain count when the variance is 0 or the rate 0 or 1): inside [0, 1] and
    never of zero width, however few the decisions. ``held``: each round's decisions, when ``d`` counts
    something else (players, for a per-round figure): the rounds holding one are the units."""
    r = len(x)
    total = d.sum()
    if total == 0:
        return float("nan"), float("nan"), float("nan")
    est = x.sum() / total
    units = int(np.count_nonzero(d if held is None else held))
    if units < 2:
        return est, float("nan"), float("nan")
    resid = (x - est * d) / (total / r)
    var = resid.var(ddof=1) / r
    q = t_value(LEVEL, units - 1)
    if rate:
        var0 = var * (r - 1) / r
        n_eff = est * (1 - est) / var0 if var0 > 0 and 0 < est < 1 else float(total)
        return (est, *wilson(est, n_eff, q))
    if units < MIN_BLOCKS:
        return est, float("nan"), float("nan")
    se = np.sqrt(var)
    return est, est - q * se, est + q * se


@dataclass
class GradeResult:
    """``table``: one row per (strategy, decision kind, metric), ``decision`` empty when pooled;
    ``mistakes``: the costliest errors, each as the ``advise`` options of its position."""

    table: pd.DataFrame
    mistakes: pd.DataFrame
    header: str
    run: dict

    def plot(self):
        from llama_sim.analysis.plots import plot_grade

        return plot_grade(self)

    def text(self) -> str:
        """The readable table: per strategy the pooled figures, then each decision kind; then the
        costliest mistakes as ``advise`` commands."""
        lines = [self.header, ""]
        head = ["strategy", "decision", "decisions", "error rate", "points lost per decision",
                "points lost per round"]
        rows = [head]
        t = self.table
        for (strategy, kind), part in t.groupby(["strategy", "decision"], sort=False):
            by = {r.metric: r for r in part.itertuples()}
            rows.append([strategy, kind or "all", str(by["error_rate"].n),
                         ci_text(by["error_rate"].value, by["error_rate"].ci_low, by["error_rate"].ci_high, 3),
                         *(ci_text(by[m].value, by[m].ci_low, by[m].ci_high, 3)
                           for m in ("points_lost_per_decision", "points_lost_per_round"))])
        order = sorted(rows[1:], key=lambda r: (list(dict.fromkeys(t.strategy)).index(r[0]), r[1] != "all", r[1]))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in [head] + order:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if (self.table.ci_low.isna() & self.table.value.notna()).any():
            lines += ["", "n/a: no interval, the decisions come from too few rounds (rates need 2, points 5: rounds are "
                          "the independent units); raise --decisions"]
        if not self.mistakes.empty:
            lines += ["", "Costliest mistakes (the largest estimated losses, so they lean high; advise re-values one):"]
            for r in self.mistakes.itertuples():
                lines.append(f"  {r.strategy}: chose {r.chose}, best {r.best}, {r.points_lost:.2f} points lost")
                if r.position:
                    lines.append(f"    llamasim advise {r.position}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"GradeResult({self.header})"


def grade(game: str, strategies, *, players: int = 4, decisions: int = 1000, rollouts: int = 200,
          policy: str | None = None, seed: int = 1, threads: int | None = None, mistakes: int = 5,
          **rule_options) -> GradeResult:
    """Grade each strategy (a spec or a list of specs) at ``players`` players: see the module docstring.
    ``policy``: the roll-outs' strategy, one of the expert's bases (default: the expert's own
    choice for the player count)."""
    rule_set = get_game(game)
    labels = [strategies] if isinstance(strategies, str) else list(strategies)
    if not labels:
        raise UsageError("grade needs at least one strategy")
    if not rule_set.min_players <= players <= rule_set.max_players:
        raise UsageError(f"{game} takes {rule_set.min_players} to {rule_set.max_players} players, not {players}")
    for name, value, low, high in (("--decisions", decisions, 1, 1_000_000), ("--rollouts", rollouts, 2, 100_000),
                                   ("--mistakes", mistakes, 0, 1000)):
        if not low <= value <= high:
            raise UsageError(f"{name} must be from {low:,} to {high:,}, got {value}")
    search, base = expert_search(game, players, policy, "grade")
    threads = max(1, min(threads or os.cpu_count() or 1, 64))
    cfg = rule_set.config(**rule_options)
    names = rule_set.action_names
    rows: list[dict] = []
    worst: list[dict] = []
    for label in labels:
        player = registry.at_table(registry.parse_spec(game, label), players)
        found, n_rounds = record_decisions(game, player, players, decisions, seed, cfg)
        graded = value_decisions(search, found, rollouts, base, seed, threads)
        kinds = [decision_kind(d.legal, names) for d in found]
        round_of = np.array([d.round for d in found], np.int64)
        for kind in sorted(set(kinds)) + [""]:
            mask = np.array([kind == "" or k == kind for k in kinds])
            per_round = {m: np.zeros(n_rounds) for m in ("count", "errors", "loss")}
            np.add.at(per_round["count"], round_of[mask], 1)
            np.add.at(per_round["errors"], round_of[mask], graded[mask, 2])
            np.add.at(per_round["loss"], round_of[mask], graded[mask, 1])
            values = {"error_rate": _ratio(per_round["errors"], per_round["count"], rate=True),
                      "points_lost_per_decision": _ratio(per_round["loss"], per_round["count"]),
                      "points_lost_per_round": _ratio(per_round["loss"], np.full(n_rounds, players),
                                                      held=per_round["count"])}
            for metric in METRICS:
                v, lo, hi = values[metric]
                rows.append(dict(game=game, players=players, strategy=label, decision=kind, metric=metric,
                                 value=v, ci_low=lo, ci_high=hi,
                                 n=int(mask.sum()) if metric != "points_lost_per_round" else n_rounds * players))
        for j in np.argsort(-graded[:, 1])[:mistakes]:
            if graded[j, 2] != 1:
                continue
            d = found[j]
            worst.append(dict(game=game, players=players, strategy=label, decision=kinds[j],
                              chose=names[d.action], best=names[int(graded[j, 0])], points_lost=graded[j, 1],
                              position=position_text(rule_set, d)))
    header = (f"{rule_set.title}, {players} players: grade of {', '.join(labels)} against roll-outs "
              f"({rollouts} samples to select and {rollouts} to value each decision, base "
              f"{search.bases[base]}), seed {seed}")
    run = dict(seed=seed, players=players, decisions=decisions, rollouts=rollouts, base=search.bases[base])
    return GradeResult(pd.DataFrame(rows), pd.DataFrame(worst, columns=["game", "players", "strategy", "decision",
                                                                          "chose", "best", "points_lost", "position"]),
                       header, run)


def expert_search(game: str, players: int, policy: str | None, what: str):
    """The rule set's expert search and the index of its roll-outs' base strategy (``policy``, or the
    expert's own choice for ``players``)."""
    search = get_game(game).expert_search
    if search is None:
        raise UsageError(f"{game} has no expert to {what} with")
    base = int(registry.at_table(registry.parse_spec(game, "expert"), players).params[2])
    if policy is not None:
        if policy not in search.bases:
            raise UsageError(f"--policy {policy}: {what}'s roll-outs play one of the expert's base strategies "
                             f"({', '.join(search.bases)})")
        base = search.bases.index(policy)
    return search, base


def position_text(rule_set, d: Decision) -> str:
    """The decision's position as ``advise`` options, when the rule set's advisor can write them."""
    advice = rule_set.hook("advice")
    write = getattr(advice, "options_text", None) if advice is not None else None
    return write(d.obs, d.hand) if write is not None else ""
