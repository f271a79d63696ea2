"""The chart step: a quit chart of one policy's decisions to quit or play on, each played out both
ways; its answer is the chart's rule per token at stake and its most frequent cell."""
from __future__ import annotations

import pandas as pd

from llama_sim.analysis.chart import chart, wording
from llama_sim.core.words import est, listing, magnitude, separated, thousands
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, scaled_key


def _run_chart(spec: Spec, args: dict, quiet: bool) -> list:
    return [chart(spec.game, seed=spec.seed, **args)]


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


def _method_chart(args: dict, results: list) -> str:
    r = results[0]
    words = wording(r.game)
    return (f"{thousands(r.games)} full games of {r.policy} at {r.players} players; at each of its {words['decision']} "
            f"both choices were played out on the same cards. Per token at stake: how many such decisions, how "
            f"often {r.policy} quit, and the share of the decisions in cells where quitting is better, where "
            f"{words['play_on']}ing is, and where the data do not separate them.")


def _display_chart(results: list) -> pd.DataFrame:
    """Per token at stake: how many decisions, how often the policy quit, and the share of them in
    cells where quitting, playing on or neither is better."""
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


def _terms_chart(results: list) -> list[str]:
    return ["interval", "stuck decision", "chart answer", "token"] + (["win measure"] if results[0].measure == "win"
                                                                     else ["penalty_per_round"])


KIND = StepKind(run=_run_chart, tables=("cells", "summary"), conclude=_conclude_chart, display=_display_chart,
                method=_method_chart,
                answers_on=lambda results: {"win_rate" if results[0].measure == "win" else "penalty_per_round"},
                terms=_terms_chart, scale=scaled_key("games", 20))
