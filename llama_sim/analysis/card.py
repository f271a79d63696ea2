"""``card``: the simplest quit rule that plays (almost) as well as the full quit chart at a table.

The bundled win-valued quit chart (``llamasim chart --measure win``; the ``chart`` strategy plays it)
has a cell for every hand-points x smallest-opponent-hand x token: right, and impossible to carry to
the table. A *card* is a rule of at most four numbers (``QuitRule``, the parameters of each rule
set's ``card`` strategy, which plays the chart strategy's moves except when stuck):

    quit with at most ``quit_at`` points                                  (level 1: one number)
    ... at most ``ten_quit_at`` when going out would return a 10 (or 20)   (level 2)
    ... at most ``near_quit_at`` when an opponent still in holds at most ``near`` cards (level 3;
        the 10 exception still holds: going out returning a 10 is worth more than a near finish)

How it is found: each level's candidates (small grids around the level below's best) are played as
the ``card`` strategy against the ``chart`` strategy (``compare``: both in every seat of the same
deals, paired win rates); the card is the simplest level whose best candidate wins at most
``TOLERANCE`` less than the chart (else the best candidate found, its cost stated). Choosing the
best of many candidates on the same games flatters it, so the card is then measured on fresh games
(another seed, ``CHECK_FACTOR`` times as many) against the chart and against the strongest strategy
at that count (the league's, ``core.advice.default_policy_at``): those are the figures the card states.
"""
from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

import pandas as pd

from llama_sim.analysis.chart import chart_rules, wording
from llama_sim.analysis.compare import compare
from llama_sim.core.advice import advice_of, default_policy_at
from llama_sim.core.chart_data import CARD_PARAMS, bundled_document
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game

TOLERANCE = 0.005  # win rate a card may give up against the full chart
CHECK_FACTOR = 4  # the check plays this many times the games of one candidate, on another seed
CHECK_SEED_OFFSET = 1_000_003
NEVER = -1  # a threshold that never quits
LEVELS = ("one threshold", "a threshold and a token exception", "a threshold, a token and an opponent exception")


@dataclass(frozen=True)
class QuitRule:
    """A card's rule: the ``card`` strategy's parameters (``CARD_PARAMS``), whole numbers."""

    quit_at: int
    ten_quit_at: int
    near: int = 0
    near_quit_at: int = 0

    def __post_init__(self):
        for name, (_, low, high, _) in CARD_PARAMS.items():
            value = getattr(self, name)
            if value != int(value) or not low <= value <= high:
                raise UsageError(f"{name}: a card's {name} is a whole number from {low:g} to {high:g}, not {value}")

    @property
    def level(self) -> int:
        """How many parts the rule has: 1 a threshold, 2 with the token exception, 3 with the opponent's."""
        return 3 if self.near > 0 else 2 if self.ten_quit_at != self.quit_at else 1

    def values(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in CARD_PARAMS}

    def spec(self) -> str:
        """The strategy spec that plays the rule (every parameter given: no preset replaces one)."""
        return "card:" + ",".join(f"{k}={int(v)}" for k, v in self.values().items())

    def quits(self, token_class: int, points: int, nearest: int) -> bool:
        """The rule's choice when stuck (token class as ``chart_data.TOKENS``: 2 and 3 return a 10 or 20)."""
        limit = self.near_quit_at if 0 < nearest <= self.near else self.quit_at
        if token_class >= 2:
            limit = self.ten_quit_at
        return points <= limit

    def lines(self, game: str) -> list[str]:
        """The rule in a player's words, generated from the parameters (``from_lines`` reads them back)."""
        words = wording(game)
        when, other = ("No card fits", "hand") if words["play_on"] == "draw" else ("Roll or quit", "row")
        first = f"{when}: {_limit(self.quit_at, words['play_on'])}."
        out = [first]
        if self.near > 0:
            out.append(f"An opponent still in has {self.near} card{'s' if self.near != 1 else ''} or fewer in their "
                       f"{other}: {_limit(self.near_quit_at, words['play_on'])}.")
        if self.ten_quit_at != self.quit_at or (self.near > 0 and self.near_quit_at != self.ten_quit_at):
            out.append(f"Going out would return a 10 (you hold one): {_limit(self.ten_quit_at, words['play_on'])}"
                       + (", whatever the others hold." if self.near > 0 else "."))
        return out

    @classmethod
    def from_lines(cls, lines: list[str]) -> "QuitRule":
        """The rule a card's text states (the inverse of ``lines``)."""
        def limit(line):
            if "never quit" in line:
                return NEVER
            return int(re.search(r"quit (?:only )?with (\d+) points?", line).group(1))

        quit_at = limit(lines[0])
        ten = next((limit(x) for x in lines[1:] if x.startswith("Going out would return a 10")), quit_at)
        near_line = next((x for x in lines[1:] if x.startswith("An opponent still in")), None)
        if near_line is None:
            return cls(quit_at, ten)
        near = int(re.search(r"has (\d+) cards? or fewer", near_line).group(1))
        return cls(quit_at, ten, near, limit(near_line))


def _limit(threshold: int, play_on: str) -> str:
    if threshold == NEVER:
        return f"{play_on} (never quit)"
    if threshold == 0:
        return f"quit only with 0 points, else {play_on}"
    return f"quit with {threshold} point{'s' if threshold != 1 else ''} or less, else {play_on}"


@dataclass
class Measured:
    """A paired win-rate difference, the card minus ``against``, with its 95% interval."""

    against: str
    diff: float
    low: float
    high: float
    card_rate: float
    other_rate: float
    games: int

    def words(self) -> str:
        return (f"the card wins {100 * self.card_rate:.1f} of every 100 games against {100 * self.other_rate:.1f} "
                f"for {self.against}: {100 * self.diff:+.1f} percentage points [{100 * self.low:+.1f}, "
                f"{100 * self.high:+.1f}] (paired, {self.games:,} games)")


@dataclass
class CardResult:
    """What ``card`` found: the rule, its measured cost against the chart and the strongest strategy,
    and every candidate tried (``candidates``: level, spec, estimate and interval against the chart)."""

    game: str
    players: int
    rule: QuitRule
    vs_chart: Measured
    vs_strongest: Measured | None
    strongest: str
    candidates: pd.DataFrame
    games: int  # full games each candidate played (compare rounds the games asked for up to whole deal blocks)
    seed: int
    notes: list[str] = field(default_factory=list)

    tables = ("candidates",)

    @property
    def title(self) -> str:
        return f"{chart_rules(self.game).title}, {self.players} players: when to quit"

    def verdict(self) -> str:
        """Whether the card plays as well as the chart, in one sentence."""
        m = self.vs_chart
        if m.low > 0:
            policy = bundled_document(self.game)["policy"]
            return (f"Wins more often than the full quit chart: {100 * m.diff:.1f} percentage points more (the "
                    f"chart's cells are estimates, valued with every seat playing {policy}).")
        if m.low >= -TOLERANCE:
            return (f"Plays as well as the full quit chart, within {100 * TOLERANCE:.1f} percentage points "
                    f"(at 95%).")
        if m.diff >= -TOLERANCE:
            return (f"Plays about as well as the full quit chart: {100 * -m.diff:.1f} percentage points behind by "
                    f"the estimate (within {100 * TOLERANCE:.1f}), though the interval reaches {100 * -m.low:.1f}.")
        return f"Costs {100 * -m.diff:.1f} percentage points of win rate against the full quit chart (its cost)."

    def text(self) -> str:
        lines = [self.title, ""] + [f"  {x}" for x in self.rule.lines(self.game)] + ["", self.verdict()]
        lines.append(f"Against the chart: {self.vs_chart.words()}.")
        if self.vs_strongest is not None:
            lines.append(f"Against {self.strongest}, the strongest strategy at {self.players} players: "
                         f"{self.vs_strongest.words()}.")
        lines += ["", f"Other cards play as the chart strategy does. Found among {len(self.candidates)} rules of up "
                      f"to three parts ({self.games:,} games each, seed {self.seed}); played as the strategy "
                      f"{self.rule.spec()}; figures from fresh games (seed {self.seed + CHECK_SEED_OFFSET}).",
                  "Why win rate: the rule is chosen for winning games, not for the fewest points a round; "
                  "quitting early also hands the others an easier round."]
        lines += self.notes
        return "\n".join(lines)

    def figure(self):
        """The card on one page: the rule large, the figures below."""
        from llama_sim.analysis.plots import new_figure

        fig = new_figure(8.27, 4.6)
        fig.text(0.04, 0.93, self.title, fontsize=17, weight="bold", va="top")
        y = 0.80
        for line in self.rule.lines(self.game):
            for part in textwrap.wrap(line, 62):
                fig.text(0.06, y, part, fontsize=14, va="top")
                y -= 0.075
            y -= 0.02
        y -= 0.02
        small = [self.verdict(), f"Against the chart: {self.vs_chart.words()}."]
        if self.vs_strongest is not None:
            small.append(f"Against {self.strongest}: {self.vs_strongest.words()}.")
        small.append(f"Played as {self.rule.spec()}; llamasim card --game {self.game} --players {self.players}.")
        for line in small:
            for part in textwrap.wrap(line, 105):
                fig.text(0.04, y, part, fontsize=9, va="top", color="#333333")
                y -= 0.05
        return fig

    def plot(self):
        return self.figure()

    def html(self) -> str:
        rule = "".join(f"<li>{html.escape(x)}</li>" for x in self.rule.lines(self.game))
        facts = [self.verdict(), f"Against the chart: {self.vs_chart.words()}."]
        if self.vs_strongest is not None:
            facts.append(f"Against {self.strongest}, the strongest strategy at {self.players} players: "
                         f"{self.vs_strongest.words()}.")
        rest = self.text().split("\n\n")[-1]
        return (f"<!doctype html><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
                "<body style='font-family:sans-serif;max-width:42em;margin:2em auto'>"
                f"<h1>{html.escape(self.title)}</h1><ul style='font-size:1.4em'>{rule}</ul>"
                + "".join(f"<p>{html.escape(x)}</p>" for x in facts)
                + f"<p style='color:#555'>{html.escape(rest)}</p></body>\n")


# ------------------------------------------------------------------------------------ the search


def _versus(game, players, a_spec, b_spec, games, seed, threads) -> tuple[float, float, float, float, float, int]:
    """(a - b paired win rate, its interval, a's and b's win rates, games played) from ``compare``."""
    res = compare(game, [a_spec, b_spec], players=players, games=games, seed=seed, threads=threads, quiet=True,
                  metrics=["win_rate"])
    p = res.paired[res.paired.metric == "win_rate"].iloc[0]
    sign = 1 if p.strategy_a == a_spec else -1
    lo, hi = sorted((sign * p.ci_low, sign * p.ci_high))
    rates = res.results[res.results.metric == "win_rate"].set_index("strategy")
    return (sign * float(p["diff"]), lo, hi, float(rates.loc[a_spec, "value"]), float(rates.loc[b_spec, "value"]),
            int(rates.loc[a_spec, "n"]))


def _candidates(level: int, base: QuitRule) -> list[QuitRule]:
    """Level 1: every threshold up to 15; level 2: the level-1 threshold with another for a 10; level 3:
    level 2's with an opponent exception."""
    if level == 1:
        return [QuitRule(t, t) for t in range(NEVER, 16)]
    if level == 2:
        return [QuitRule(base.quit_at, t) for t in range(NEVER, base.quit_at + 6) if t != base.quit_at]
    return [QuitRule(base.quit_at, base.ten_quit_at, k, t) for k in (1, 2, 3)
            for t in range(max(NEVER, base.quit_at - 2), base.quit_at + 11)]


def card(game: str, players: int = 4, games: int = 50_000, seed: int = 1, threads: int | None = 1,
         progress=None) -> CardResult:
    """The simplest quit rule for ``game`` at ``players`` players (see the module docstring); ``games``
    full games per candidate rule."""
    rule_set = get_game(game)
    chart_rules(game)  # a rule set without a quit chart is refused here
    if not rule_set.min_players <= players <= rule_set.max_players:
        raise UsageError(f"players: {rule_set.name} is played by {rule_set.min_players} to {rule_set.max_players} "
                         f"players, not {players}")
    rows, best_of = [], {}
    base = None
    for level in (1, 2, 3):
        for rule in _candidates(level, base):
            d, lo, hi, _, _, n = _versus(rule_set.name, players, rule.spec(), "chart", games, seed, threads)
            rows.append(dict(game=rule_set.name, players=players, level=level, rule=rule.spec(), vs_chart=d,
                             ci_low=lo, ci_high=hi, games=n, seed=seed))
            if level not in best_of or d > best_of[level][1]:
                best_of[level] = (rule, d)
            if progress is not None:
                progress(1)
        base = best_of[level][0]
    chosen = next((best_of[k][0] for k in (1, 2, 3) if best_of[k][1] >= -TOLERANCE),
                  max(best_of.values(), key=lambda x: x[1])[0])
    check_seed, check_games = seed + CHECK_SEED_OFFSET, CHECK_FACTOR * games
    d, lo, hi, a, b, n = _versus(rule_set.name, players, chosen.spec(), "chart", check_games, check_seed, threads)
    vs_chart = Measured("chart", d, lo, hi, a, b, n)
    strongest = default_policy_at(advice_of(rule_set), players)
    vs_strongest = None
    if strongest != "chart":
        d, lo, hi, a, b, n = _versus(rule_set.name, players, chosen.spec(), strongest, check_games, check_seed,
                                     threads)
        vs_strongest = Measured(strongest, d, lo, hi, a, b, n)
    notes = [] if vs_strongest is not None else [f"The chart strategy is itself the strongest at {players} players."]
    if rows and rows[0]["games"] != games:
        notes.append(f"({games:,} games asked per rule; compare plays whole deal blocks, so {rows[0]['games']:,} "
                     f"were played.)")
    return CardResult(rule_set.name, players, chosen, vs_chart, vs_strongest, strongest, pd.DataFrame(rows),
                      rows[0]["games"], seed, notes)

