"""The "Terms" of a report: each word a reader may not know, defined once.

``GLOSSARY`` holds the generic terms (metrics, intervals, the words of each step kind); a step kind
names the terms its answer and table use (``StepKind.terms``), a spec adds its own (``terms = { .. }``,
which also replace a generic definition of the same name), and every strategy the report plays is
described from the registry, with the parameters the report sets or varies.
"""
from __future__ import annotations

from typing import Iterable

from llama_sim.core.words import metric_words

GLOSSARY: dict[str, tuple[str, str]] = {
    "interval": ("95% interval [low, high]", "follows every estimate: given the games or rounds played, the true "
                                             "value lies in it with 95% confidence."),
    "paired": ("paired difference", "two strategies (or parameter values) are compared on the same deals, so the "
                                    "luck of the cards cancels and the difference's interval is narrow. When that "
                                    "interval holds 0 the data do not separate the two (they cannot be told apart); "
                                    "otherwise the difference is real at 95% confidence."),
    "tied": ("tied with", "in a ranking, the strategies the data do not separate from this one (paired, corrected "
                          "for making many comparisons at once: Holm)."),
    "rounds": ("rounds", "single rounds, each dealt fresh with every score at 0: they measure points, not wins."),
    "games": ("games", "full games, played until a score reaches 40; the lowest score wins."),
    "penalty_per_round": ("penalty per round", "the points a player's score grows by in one round: the cards left in "
                                               "hand or row at its end (each value counted once), plus tokens taken, "
                                               "less the token returned on going out. Lower is better; over a game "
                                               "they add up to the final score."),
    "win_rate": ("win rate", "the share of full games a strategy wins (a tie shares the win). With N players an "
                             "even share is 1/N; higher is better."),
    "went_out_rate": ("went-out rate", "the share of rounds in which the player went out (emptied their hand or "
                                       "row)."),
    "quit_rate": ("quit rate", "the share of rounds in which the player quit."),
    "rounds_per_game": ("rounds per game", "how many rounds a game to 40 points lasts."),
    "final_score": ("final score", "a player's score when the game ends (lower is better)."),
    "line-up": ("line-up", "the strategies seated at one table. A league plays every line-up of N of its strategies "
                           "at N players, each on its own deals, so every strategy meets every other equally often."),
    "league value": ("league value", "a strategy's mean over the line-ups it plays (the win rate or penalty shown "
                                     "in a league table)."),
    "edge": ("edge", "the difference of two league values, the leader's minus the runner-up's."),
    "rating": ("rating", "a strategy's log strength at one player count, mean 0: in a game where strategies "
               "a and b hold one seat each among others, a wins exp(rating_a - rating_b) times as often as b; "
               "fitted to every line-up's winners (a Luce model), its interval over deal blocks."),
    "head-to-head": ("head-to-head", "the leader's edge over the runner-up in the line-ups that seat both only: "
                                     "the same opponents for both."),
    "first player": ("first player", "seat 0, who starts the first round of a game (later rounds start as the "
                                     "rules say)."),
    "vs average seat": ("vs average seat", "a seat's value minus the mean of all seats, with every seat playing the "
                                           "same strategy on the same deals."),
    "holm": ("Holm correction", "testing every seat (or every pair) at once makes some interval miss 0 by chance; "
                                "the Holm-corrected p-value allows for that, and a difference is called clear when "
                                "it is below 0.05."),
    "stuck decision": ("decision cell", "one square of a quit chart: the decisions with the same points in hand (or "
                                        "row), the same range of cards left to draw and the same token at stake. "
                                        "Every such decision was played out both ways on the same cards."),
    "chart answer": ("Q, D, R, ?", "a chart cell's verdict: Q quitting is better, D drawing (R rolling) is better, "
                                   "? the data do not separate them."),
    "token": ("token at stake", "the token a player would return on going out: the largest their score allows "
                                "(a 10 from a score of 10 on), 0 when they hold none."),
    "win measure": ("chance of winning", "the chart values each choice by the share of games won when the rest of "
                                         "the game is played out (in percentage points in the plot)."),
    "roll-out": ("roll-out", "playing a position to the end of the round many times, with the unseen cards dealt "
                             "at random as far as the player can tell, once for each legal action."),
    "points lost": ("points lost", "how many points a decision costs against the best action the roll-outs find "
                                   "(0 for a best decision), per decision and per round."),
    "error rate": ("error rate", "the share of decisions that were not the roll-outs' best action."),
    "independent runs": ("independent runs", "each value of a rule-set option (a dice layout, say) plays its own "
                                             "deals, so two values are compared with unpaired intervals."),
    "simultaneous": ("simultaneous interval", "the interval of the largest difference between option values, widened "
                                              "because that pair was picked out of all pairs."),
    "p all equal": ("p (all equal)", "the chance of differences this large if every option value gave the same result "
                                     "(Cochran's Q test); a large p means no sign of a difference."),
    "tune": ("start, pick", "tuning races many parameter values on common deals and picks one; the pick is then "
                            "measured against the start on fresh deals, which the race never saw."),
    "rulebook": ("rulebook, variant", "the rulebook is the game as printed; a variant switches one rule off and plays "
                                      "the same deals."),
    "effect": ("effect", "a variant's value minus the rulebook's, with a conservative interval (the two runs' "
                         "intervals combined as if independent)."),
    "exact": ("exact", "computed by solving the game, not by sampling: no interval needed."),
    "advice": ("vs best", "an action's value minus the best action's, on the same roll-outs."),
}

METRIC_TERMS = ("penalty_per_round", "win_rate", "went_out_rate", "quit_rate", "rounds_per_game", "final_score")


def metric_terms(metrics: Iterable[str]) -> list[str]:
    """The glossary keys of the metrics a table shows."""
    present = set(metrics)
    return [m for m in METRIC_TERMS if m in present]


def term_lines(keys: Iterable[str], own: dict[str, str]) -> list[tuple[str, str]]:
    """(label, definition) for every key once, in order; a spec's own term replaces a generic one of the
    same key or label, and its other terms come first (they are what the spec is about)."""
    out: list[tuple[str, str]] = [(k, v) for k, v in own.items()]
    taken = {k.lower() for k in own}
    seen = set()
    for key in keys:
        if key in seen or key not in GLOSSARY:
            continue
        seen.add(key)
        label, text = GLOSSARY[key]
        if key.lower() in taken or label.lower() in taken or metric_words(key).lower() in taken:
            continue
        out.append((label, text))
    return out


def strategy_lines(game: str, labels: Iterable[str], players: Iterable[int] = ()) -> list[tuple[str, str]]:
    """(name, description) of every strategy the labels name, once, with the parameters the labels set
    and the per-count presets that unset parameters take."""
    from llama_sim.core import registry
    from llama_sim.core.errors import UsageError

    by_name: dict[str, dict] = {}
    for label in labels:
        try:
            player = registry.parse_spec(game, label)
        except UsageError:
            continue
        s = player.strategy
        entry = by_name.setdefault(s.name, {"strategy": s, "set": set(), "free": False})
        entry["set"] |= {p.name for p in s.params if p.name not in player.free}
        entry["free"] = entry["free"] or bool(player.free)
    out = []
    for name, entry in by_name.items():
        s = entry["strategy"]
        text = s.description.rstrip(".") + "."
        notes = [f"{p.name}: {p.description}" for p in s.params if p.name in entry["set"] and p.description]
        if notes:
            text += " Parameters: " + "; ".join(notes) + "."
        if entry["free"] and s.presets:
            text += f" Unset parameters take the values tuned per player count: {_presets(game, s)}."
        out.append((name, text))
    return out


def _presets(game: str, strategy) -> str:
    """``2 players quit_at = 8; 3 and 4 players quit_at = 2; ...``: what each player count plays."""
    from llama_sim.core.ruleset import get_game
    from llama_sim.core.words import counts_text

    spec = get_game(game)
    groups: list[tuple[list[int], dict]] = []
    for n in range(spec.min_players, spec.max_players + 1):
        values = strategy.preset_for(n)
        if groups and groups[-1][1] == values:
            groups[-1][0].append(n)
        else:
            groups.append(([n], values))
    return "; ".join(f"{counts_text(counts)} "
                     + ", ".join(f"{k} = {v:g}" for k, v in values.items()) for counts, values in groups if values)
