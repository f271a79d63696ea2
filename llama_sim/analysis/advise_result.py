"""What ``advise`` returns: ``AdviceResult``, an advice's table and ranking with its text, header and
plot; the plain sentence that states the advice; and the result of a position the rule set answers
exactly (every interval the value itself)."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from llama_sim.core.advice import ExactAnswer
from llama_sim.core.position import Position

METRICS_ROUND = ("penalty_per_round", "went_out_rate")
METRICS_GAME = ("penalty_per_round", "went_out_rate", "win_rate")
COLUMNS = ["game", "action", "metric", "value", "ci_low", "ci_high", "n", "seed", "best"]


@dataclass
class AdviceResult:
    """What ``advise`` found. ``table``: one row per (action, metric) with columns ``COLUMNS``;
    metrics ``penalty_per_round``, ``went_out_rate`` (and ``win_rate``) plus ``<metric>_vs_best``,
    each action's paired difference to the best action. Rows are ordered best action first."""

    game: str
    position: Position
    table: pd.DataFrame
    ranking: list[str]
    method: str  # "roll-outs" or "exact solver"
    horizon: str
    rollouts: int
    seed: int
    strategies: list[str]
    sentence: str
    notes: list[str] = field(default_factory=list)
    strategy_values: list[str] = field(default_factory=list)  # each seat's strategy with the values it played
    exact_actions: list[str] = field(default_factory=list)  # roll-out values that are exact (nothing left to chance)

    def how(self) -> str:
        """How the values were found, for a header: the exact solver, exact roll-outs (no action leaves
        anything to chance, and every roll-out agreed) or roll-outs with intervals."""
        if self.method != "roll-outs":
            return self.method
        if self.ranking and set(self.ranking) <= set(self.exact_actions):
            after = "the only action" if len(self.ranking) == 1 else "any action"
            return (f"exact: nothing is left to chance after {after} ({self.rollouts:,} roll-outs, all equal), "
                    f"{self.played()}")
        return f"{self.method}, {self.rollouts:,} roll-outs, {self.played()}"

    def played(self) -> str:
        """Who played the roll-outs, with the values they played with, for a header."""
        seats = self.strategy_values or self.strategies
        if len(set(seats)) == 1 and len(seats) > 1:
            return f"every seat {seats[0]}"
        return "seats " + " / ".join(seats)

    def table_line(self) -> str:
        """The table the advice assumed, for a header: players, who has quit, the scores (token games: the
        tokens, the magic token, the stage and a running show)."""
        pos = self.position
        others = pos.n - 1
        parts = [f"{pos.n} players (you and {others} other{'s' if others != 1 else ''} in turn order after you)"]
        if pos.quit[1:].any():
            parts.append("quit: player " + ", ".join(str(s) for s in range(1, pos.n) if pos.quit[s]))
        if pos.ones is not None:
            tokens = ", ".join(f"{o}x1+{t}x10" for o, t in zip(pos.ones.tolist(), pos.tens.tolist()))
            parts.append(f"tokens, yours first: {tokens} (scores {', '.join(map(str, pos.scores.tolist()))})")
            where = {-1: "in the pool", -2: "on the stage", 0: "yours"}.get(pos.magic, f"player {pos.magic}'s")
            parts.append(f"magic token {where}")
            parts.append(f"stage {pos.stage_ones}x1+{pos.stage_tens}x10" if pos.stage_ones or pos.stage_tens
                         else "stage empty")
            if pos.show:
                parts.append("a show is running")
        else:
            parts.append(f"scores, yours first: {', '.join(map(str, pos.scores.tolist()))}")
        return "; ".join(parts)

    def for_winning(self) -> str:
        """For a points-valued answer, one line saying what to use for winning and why ("" otherwise)."""
        if self.horizon == "game" or self.method != "roll-outs" or len(self.ranking) < 2:
            return ""
        return ("\nFor winning, ask with --horizon game (the win rate): fewest points this round is not always "
                "most wins, since going out returns a token and quitting hands the others an easier round.")

    @property
    def best(self) -> str:
        return self.ranking[0]

    def value(self, action: str, metric: str = "penalty_per_round") -> float:
        row = self.table[(self.table.action == action) & (self.table.metric == metric)]
        return float(row.value.iloc[0])

    def text(self) -> str:
        t = self.table
        metrics = [m for m in (METRICS_GAME if self.horizon == "game" else METRICS_ROUND) if m in set(t.metric)]
        rows = [["action", *metrics]]
        for a in self.ranking:
            cells = [a]
            for m in metrics:
                r = t[(t.action == a) & (t.metric == m)]
                cells.append("-" if r.empty else _fmt_interval(r.value.iloc[0], r.ci_low.iloc[0], r.ci_high.iloc[0]))
            rows.append(cells)
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["   ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                 for r in rows]
        primary = metrics[-1] if self.horizon == "game" else "penalty_per_round"
        diffs = t[t.metric == primary + "_vs_best"]
        if len(self.ranking) > 1 and len(diffs):  # (a lone action has nothing to be compared with)
            lines.append(f"\n{primary}, difference to {self.best} (paired):")
            for a in self.ranking[1:]:
                r = diffs[diffs.action == a].iloc[0]
                lines.append(f"  {a:<16} {_fmt_interval(r.value, r.ci_low, r.ci_high, sign=True)}")
        return "\n".join(lines)

    def plot(self):
        """Each action's value with its interval (left) and its paired difference to the best (right)."""
        from llama_sim.analysis.plots import new_figure

        primary = "win_rate" if self.horizon == "game" else "penalty_per_round"
        t = self.table
        rows = [t[(t.action == a) & (t.metric == primary)].iloc[0] for a in self.ranking]
        diffs = [t[(t.action == a) & (t.metric == primary + "_vs_best")] for a in self.ranking]
        fig = new_figure(11, 2.4 + 0.6 * len(rows))
        axes = fig.subplots(1, 2 if len(rows) > 1 and any(len(d) for d in diffs) else 1, squeeze=False, sharey=True)
        y = np.arange(len(rows))[::-1]
        ax = axes[0, 0]
        vals = np.array([r.value for r in rows])
        lo = vals - np.array([r.ci_low for r in rows])
        hi = np.array([r.ci_high for r in rows]) - vals
        colours = ["tab:green" if i == 0 else "tab:blue" for i in range(len(rows))]
        ax.barh(y, vals, color=colours, alpha=0.35)
        ax.errorbar(vals, y, xerr=[lo, hi], fmt="o", color="black", capsize=4)
        for yi, r in zip(y, rows):
            ax.annotate(_fmt_interval(r.value, r.ci_low, r.ci_high), (r.value, yi), xytext=(6, 6),
                        textcoords="offset points")
        ax.set_xlim(min(0.0, float(min(r.ci_low for r in rows))), float(max(r.ci_high for r in rows)) * 1.3 + 1e-9)
        ax.set_yticks(y, self.ranking)
        ax.set_xlabel(primary.replace("_", " ") + (" (lower is better)" if primary == "penalty_per_round"
                                                    else " (higher is better)"))
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title("value of each action (95% interval)")
        if axes.shape[1] == 2:
            ax2 = axes[0, 1]
            for yi, d in zip(y, diffs):
                if len(d):
                    r = d.iloc[0]
                    ax2.errorbar([r.value], [yi], xerr=[[r.value - r.ci_low], [r.ci_high - r.value]], fmt="o",
                                 color="tab:red" if yi != y[0] else "tab:green", capsize=4)
            ax2.axvline(0, color="grey", lw=0.8)
            ax2.set_xlabel(f"difference to {self.best} (paired)")
            ax2.set_title("paired difference to the best")
        who = self.how()
        fig.suptitle("\n".join(textwrap.wrap(f"{self.game}: {self.sentence}", 110)
                                + textwrap.wrap(f"Table: {self.table_line()}", 110)
                                + textwrap.wrap(f"({who}, seed {self.seed}, horizon {self.horizon})", 110)))
        return fig


def _fmt_interval(v, lo, hi, sign=False) -> str:
    f = "{:+.3f}" if sign else "{:.3f}"
    if lo == hi == v:
        return f.format(v) + " (exact)"
    return f.format(v) + f" [{f.format(lo)}, {f.format(hi)}]"


def advice_sentence(res_rows: dict, ranking: list[str], horizon: str, exact: dict, phrase) -> str:
    """A plain sentence naming every action's value, best first: 'Playing the 4 costs 2.44 ± 0.53 points
    on average, drawing 5.32 ± 0.54, quitting 22.00 exactly; so play 4.' (``phrase``: the rule set's
    gerund of an action name). The game horizon gives each action's win rate instead."""
    def cap(text):
        return text[0].upper() + text[1:]

    if horizon == "game":
        best = ranking[0]
        shares = []
        for i, a in enumerate(ranking):
            v, lo, hi = res_rows[(a, "win_rate")]
            shares.append(f"{phrase(a)} wins {100 * v:.1f} ± {50 * (hi - lo):.1f} of every 100 games"
                          if i == 0 else f"{phrase(a)} {100 * v:.1f} ± {50 * (hi - lo):.1f}")
        s = cap(", ".join(shares))
        if len(ranking) > 1:
            d, dlo, dhi = res_rows[(ranking[1], "win_rate_vs_best")]
            sep = dhi < 0
            s += (f"; {phrase(ranking[1])} wins {100 * -d:.1f} ± {50 * (dhi - dlo):.1f} percentage points less "
                  f"(paired), " + (f"so {best}." if sep else "which the roll-outs cannot separate: either will do."))
        return s + ("" if s.endswith(".") else ".")

    def cost(a, first):
        v, lo, hi = res_rows[(a, "penalty_per_round")]
        unit = " points" if first else ""
        if exact[a]:
            return f"{v:.2f}{unit} exactly"
        if lo == hi:
            return f"{v:.2f}{unit} in every roll-out"
        return f"{v:.2f} ± {(hi - lo) / 2:.2f}{unit}" + (" on average" if first else "")

    best = ranking[0]
    s = cap(", ".join(f"{phrase(a)} {'costs ' if i == 0 else ''}{cost(a, i == 0)}" for i, a in enumerate(ranking)))
    if len(ranking) > 1:
        d, dlo, dhi = res_rows[(ranking[1], "penalty_per_round_vs_best")]
        separated = dlo > 0 or (dlo == dhi == d and d > 0)
    else:
        separated = True
    if separated:
        return s + f"; so {best}."
    return s + f"; {best} and {ranking[1]} cannot be told apart at this precision (either will do)."


def exact_result(pos: Position, acts: list[str], answer: ExactAnswer, horizon: str, seed: int) -> AdviceResult:
    """The rule set's exact values as a result: every interval is the value itself."""
    val = answer.values
    ranking = sorted(acts, key=lambda a: (val[a], a != answer.preferred))
    rows = [dict(game=pos.game, action=a, metric="penalty_per_round", value=val[a], ci_low=val[a], ci_high=val[a],
                 n=0, seed=seed, best=a == ranking[0]) for a in ranking]
    rows += [dict(game=pos.game, action=a, metric="penalty_per_round_vs_best", value=val[a] - val[ranking[0]],
                  ci_low=val[a] - val[ranking[0]], ci_high=val[a] - val[ranking[0]], n=0, seed=seed,
                  best=a == ranking[0]) for a in ranking]
    table = pd.DataFrame(rows, columns=COLUMNS)
    return AdviceResult(pos.game, pos, table, ranking, "exact solver", horizon, 0, seed, answer.strategies,
                        f"{answer.summary}, so {ranking[0]}.", notes=list(answer.notes))
