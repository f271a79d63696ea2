"""Quit charts: when no card fits, is quitting or drawing better? (``llamasim chart``)

A chart is the "basic strategy" of a rule set, read like a blackjack chart: for the stuck decisions
(no card of the hand fits on the top card, and drawing is legal) that a policy really meets, it says
per cell of a few public features whether quitting (``Q``) or drawing (``D``) is better, or that the
data cannot separate them (``?``), with the mean difference, its 95% interval and how often the cell
occurs. Features: the deciding player's hand points x the cards left in the draw pile (chart
``pile``), and hand points x the smallest hand among the opponents still in the round (chart
``opponent``), each split by the token the player would return on going out (0, 1, 10, or Party's
20: ``largest_token`` of their score), because that token changes the value of drawing on.

How a decision is valued: ``policy`` plays full games (to 40 points) with every seat. Each round is
played by the rule set's kernel with its action log; the round is then replayed from the deal, and
at every stuck decision the TRUE state of the simulated game is branched twice: quit, then everyone
plays ``policy`` to the end of the round; draw (the next card of the real pile), then the same. Both
branches use the same fresh policy stream (common random numbers). The value of a branch is the net
change of the deciding player's score over the rest of the round, token return included (as
``penalty_per_round`` in ``compare``): its hand's points, or minus the returned token if it goes out.
One sample is ``value(quit) - value(draw)``; negative means quitting is better.

Why the true state and not a determinization: policies never see hidden cards, so the true state of
a game the policy plays is a draw from the posterior over hidden cards given everything public and
the policy's own history. Averaged over the decisions in a cell, the samples estimate exactly
E[value(quit) - value(draw) | cell] under the distribution of hidden states the policy really meets
(opponents' hands shaped by their own play), where a uniform determinization would deal cards the
opponents' play has already made unlikely. It is also cheap: two partial rounds per decision.

Intervals: the decisions of one game share its deal and history, so they are correlated. The
variance is computed over games (a ratio estimator: per game the sum ``S_g`` and count ``N_g`` of a
cell's samples; mean ``r = sum S / sum N``, variance ``G/(G-1) sum (S_g - r N_g)^2 / (sum N)^2``), and
the interval is Student t with the cell's effective games less one as degrees of freedom.
A cell is ``Q`` when its 95% interval lies below 0, ``D`` above 0, else ``?`` (and always ``?`` with
fewer than ``MIN_GAMES`` games holding it). All sums are integers and games are seeded by (seed, game
index), so a seed gives identical tables for any thread count or chunking.

Measures (``measure``): ``own`` is the brief's value above; ``relative`` subtracts the others' mean
change over the rest of the round; ``win`` plays the rest of the GAME after each branch (the later
rounds dealt from a stream both branches share) and values a branch by minus the player's win share.
Why three: a chart valued in points per round plays worse games than ``smart`` (measured: the own-
measure chart loses 6.9 points of win rate to it), because quitting earlier saves points but forgoes
the token a player who goes out returns, and in a game to 40 that token matters more than its
average points. The bundled charts are valued by ``win``.

Rule sets: each one that has a chart gives its ``RuleSet.chart`` a ``core.chart_kernel.ChartRules``:
the collector kernel that plays games and branches the decisions (the shedding family's in
``rulesets/shedding/chart.py``, dice's roll-or-quit chart of the multi-player phase in
``rulesets/dice/chart.py``, Kadabra's in ``rulesets/kadabra/chart.py``), its line-up, default policy,
words, title and default bins. This module only aggregates, tests and draws what a collector adds up.
A chart is also what the ``chart`` strategies play (``strategies/lama.py``, ``party.py``, ``dice.py``,
``kadabra.py``):
``quit_table`` turns a result into the quit table, ``chart_data`` reads the package's own charts
(``llama_sim/rulesets/<game>/chart.json``) and ``emit_strategy`` writes a strategy file.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from llama_sim.analysis.advise import forced_policy
from llama_sim.core import interrupt, registry
from llama_sim.core.chart_data import FEATURE_OPPONENT, FEATURE_PILE, MAX_HAND, MAX_PILE, MAX_POINTS, TOKENS, bins
from llama_sim.core.chart_kernel import (
    DEFAULT_OPP_EDGES, DEFAULT_PILE_EDGES, MEASURES, N_STAT, N_STATS, S_NN, S_POLICY_QUIT, S_SN, S_SS, S_SUM,
    ChartRules,
)
from llama_sim.core.scoring import WIN_UNITS
from llama_sim.core.errors import UsageError
from llama_sim.core.files import write_text
from llama_sim.core.intervals import t_value
from llama_sim.core.ruleset import all_games, get_game
from llama_sim.run.chunks import MAX_PLAYS, default_threads, policy_error

DEFAULT_GAMES = 20_000
GAMES_PER_CHUNK = 500
MIN_GAMES = 10  # a cell seen in fewer games is '?' whatever its interval


# --------------------------------------------------------------------------------------------
# Library
# --------------------------------------------------------------------------------------------


def parse_edges(text: str | None, default: tuple[int, ...], what: str) -> tuple[int, ...]:
    if text is None:
        return default
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise UsageError(f"--{what}-bins takes comma-separated integers, got '{text}'") from None


@dataclass
class ChartResult:
    """``cells``: one row per (chart, token, hand points, feature bin) that occurred, with the
    ``answer`` (Q/D/?), ``mean_quit_minus_draw`` and its 95% interval (points; for the win measure a
    win-probability difference), ``decisions``, ``effective_games`` ((sum N)^2 / sum N^2 over games, a
    lower bound on the games that held the cell), ``share`` of all decisions, ``per_game`` and
    ``policy_quit_rate`` (how often the policy itself quit there). ``summary``: totals per token
    class. ``plot(chart)`` draws the ``pile`` or ``opponent`` heatmaps."""

    game: str
    players: int
    policy: str
    games: int
    seed: int
    cells: pd.DataFrame
    summary: pd.DataFrame
    pile_edges: tuple[int, ...] = field(default=DEFAULT_PILE_EDGES)
    opp_edges: tuple[int, ...] = field(default=DEFAULT_OPP_EDGES)
    measure: str = "own"
    policy_values: dict[str, float] = field(default_factory=dict)  # the values ``policy`` played with

    def plot(self, chart: str = "pile"):
        return chart_figure(self, chart)


CELL_COLUMNS = ["game", "players", "policy", "measure", "chart", "token", "hand_points", "feature", "bin_low", "bin_high",
                "answer", "mean_quit_minus_draw", "ci_low", "ci_high", "decisions", "effective_games", "share",
                "per_game", "policy_quit_rate", "seed"]
FEATURES = {"pile": "draw_pile", "opponent": "min_opponent_hand"}
FEATURE_CODES = {"pile": FEATURE_PILE, "opponent": FEATURE_OPPONENT}


def chart_games() -> list[str]:
    """The names of the rule sets that have a quit chart."""
    return [name for name, spec in all_games().items() if spec.chart is not None]


def chart_rules(game: str) -> ChartRules:
    """The quit-chart hooks of rule set ``game``; a rule set without a chart is refused (one line)."""
    spec = get_game(game)
    rules = spec.chart_rules()
    if rules is None:
        raise UsageError(f"chart supports {', '.join(chart_games())}, not {spec.name}")
    return rules


def wording(game: str) -> dict:
    """How ``game``'s chart is labelled: the answer letter for playing on, and the words of tables and
    plots (``ChartRules.wording``)."""
    return chart_rules(game).wording


def _spans(rules: ChartRules, chart_name: str, edges: tuple[int, ...]) -> list[tuple[int, int]]:
    """Each bin's (low, high); the last bin ends where the feature does when the rule set says where
    (``pile_top``, ``opponent_top``: dice's 7 llama-row cards and 13-card rows)."""
    spans = bins(edges, MAX_PILE if chart_name == "pile" else MAX_HAND, chart_name)[1]
    top = rules.pile_top if chart_name == "pile" else rules.opponent_top
    if top is not None:
        spans = [(lo, max(lo, min(hi, top))) for lo, hi in spans]
    return spans


def _bin_labels(spans: list[tuple[int, int]]) -> list[str]:
    """A bin's column label: its value, or its range ``low-high``."""
    return [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans]


def _cells(acc: np.ndarray, spans, chart: str, game: str, players: int, policy: str, measure: str, games: int,
           seed: int, total: int, scale: int) -> pd.DataFrame:
    play_on = wording(game)["letter"]
    rows = []
    for t, p, b in zip(*np.nonzero(acc[N_STAT])):
        n_dec = int(acc[N_STAT, t, p, b])
        s = int(acc[S_SUM, t, p, b])
        mean = s / n_dec
        ss, sn, nn = (float(acc[k, t, p, b]) for k in (S_SS, S_SN, S_NN))
        resid = ss - 2 * mean * sn + mean * mean * nn  # sum over games of (S_g - mean N_g)^2
        var = games / (games - 1) * max(resid, 0.0) / (n_dec * n_dec) if games > 1 else math.inf
        effective_games = _effective_games(acc, t, p, b)
        # t over the games that hold the cell: few of them make a wide interval, not a falsely narrow one
        half = t_value(0.95, max(effective_games - 1, 1)) * math.sqrt(var)
        lo, hi = (mean - half) / scale, (mean + half) / scale
        mean /= scale
        answer = "?"
        if effective_games >= MIN_GAMES and hi < 0:
            answer = "Q"
        elif effective_games >= MIN_GAMES and lo > 0:
            answer = play_on
        rows.append((game, players, policy, measure, chart, TOKENS[t], int(p), FEATURES[chart], spans[b][0], spans[b][1],
                     answer, mean, lo, hi, n_dec, effective_games, n_dec / total, n_dec / games,
                     acc[S_POLICY_QUIT, t, p, b] / n_dec, seed))
    df = pd.DataFrame(rows, columns=CELL_COLUMNS)
    return df.sort_values(["token", "hand_points", "bin_low"], kind="stable").reset_index(drop=True)


def _effective_games(acc, t, p, b) -> int:
    """(sum N_g)^2 / sum N_g^2: the effective number of games holding the cell, at most the number
    that did (Cauchy-Schwarz), equal when each held it equally often."""
    nn = acc[S_NN, t, p, b]
    n_dec = acc[N_STAT, t, p, b]
    return int(n_dec * n_dec // nn) if nn else 0


def _batches(items, size: int):
    """Lists of up to ``size`` items of the iterator ``items``: a window of chunks at a time."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _player(game: str, policy: str, players: int) -> registry.Player:
    """The policy as it plays at a table of ``players`` (unset parameters take that count's preset)."""
    return registry.at_table(registry.parse_spec(game, policy), players)


def _force_first(game: str, player: registry.Player):
    """What a rule set's ``lineup`` may ask for: ``turn_index`` -> the player's policy, except that at
    the round's first decision (``obs[turn_index] == 0``) it plays the action in the last params column."""
    key = player.strategy.game + "." + player.strategy.name

    def force_first(turn_index: int):
        return forced_policy(game, key, player.strategy.policy, turn_index)

    return force_first


def chart(game: str, players: int = 4, policy: str | None = None, games: int = DEFAULT_GAMES, seed: int = 1,
          threads: int | None = None, pile_edges: tuple[int, ...] | None = None,
          opp_edges: tuple[int, ...] | None = None, progress=None, measure: str = "own") -> ChartResult:
    """The quit charts of ``game`` for ``players`` players under ``policy`` (see the module docstring).

    ``measure``: ``own`` values a branch by the deciding player's net score change (as
    ``penalty_per_round``); ``relative`` by that change minus the mean change of the other players,
    which is what decides a game (quitting early also hands the others an easier round); ``win``
    by minus the win probability, the policy also playing the rest of the game after the round."""
    if measure not in MEASURES:
        raise UsageError(f"unknown --measure '{measure}' (use {', '.join(MEASURES)})")
    rules = chart_rules(game)
    spec = get_game(game)
    if not spec.min_players <= players <= spec.max_players:
        raise UsageError(f"{spec.name} is played by {spec.min_players} to {spec.max_players} players, not {players}")
    if games < 2:
        raise UsageError(f"--games must be at least 2 (intervals are over games), not {games}")
    if games > MAX_PLAYS:
        raise UsageError(f"--games must be at most {MAX_PLAYS} (1e11), not {games}")
    policy = policy or rules.default_policy
    player = _player(spec.name, policy, players)
    pile_edges = tuple(pile_edges) if pile_edges is not None else rules.pile_edges
    opp_edges = tuple(opp_edges) if opp_edges is not None else rules.opponent_edges
    pile_bin, _ = bins(pile_edges, MAX_PILE, "pile")
    opp_bin, _ = bins(opp_edges, MAX_HAND, "opponent")
    pile_spans, opp_spans = _spans(rules, "pile", pile_edges), _spans(rules, "opponent", opp_edges)
    funcs, params = rules.lineup(player, _force_first(spec.name, player))
    kernel = rules.collect
    kernel.get()
    shape_pile = (N_STATS, len(TOKENS), MAX_POINTS, len(pile_spans))
    shape_opp = (N_STATS, len(TOKENS), MAX_POINTS, len(opp_spans))
    chunks = ((g, min(GAMES_PER_CHUNK, games - g)) for g in range(0, games, GAMES_PER_CHUNK))

    def one(chunk):
        first, count = chunk
        acc_pile = np.zeros(shape_pile, np.int64)
        acc_opp = np.zeros(shape_opp, np.int64)
        try:
            with interrupt.track():
                kernel(np.uint64(seed % 2**64), first, count, players, funcs, params, MEASURES.index(measure),
                       pile_bin, opp_bin, acc_pile, acc_opp)
        except Exception as exc:  # only a strategies file's (bounds-checked) code raises here
            raise policy_error(exc, [player]) from None
        return (first, count), (acc_pile, acc_opp)

    threads = default_threads() if threads is None else threads
    if threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    acc_pile = np.zeros(shape_pile, np.int64)
    acc_opp = np.zeros(shape_opp, np.int64)
    # Chunks run on pool threads, so Ctrl-C reaches the main thread; no ``with``: on an interrupt
    # the pool is left at once (the command line then ends the process: see ``core.interrupt``).
    pool = ThreadPoolExecutor(max_workers=threads)
    try:
        for window in _batches(chunks, 4 * threads):
            for (first, count), (a, b) in pool.map(one, window):
                acc_pile += a
                acc_opp += b
                if progress is not None:
                    progress(count)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    total = int(acc_pile[N_STAT].sum())
    label = player.label
    scale = {"own": 1, "relative": players - 1, "win": WIN_UNITS}[measure]
    cells = pd.concat([
        _cells(acc_pile, pile_spans, "pile", spec.name, players, label, measure, games, seed, max(total, 1), scale),
        _cells(acc_opp, opp_spans, "opponent", spec.name, players, label, measure, games, seed, max(total, 1), scale),
    ], ignore_index=True)
    summary = _summary(acc_pile, spec.name, players, label, measure, games, seed, scale)
    return ChartResult(spec.name, players, label, games, seed, cells, summary, tuple(pile_edges), tuple(opp_edges),
                       measure, player.values())


def _summary(acc: np.ndarray, game: str, players: int, policy: str, measure: str, games: int, seed: int,
             scale: int) -> pd.DataFrame:
    """Totals per token class: decisions, how often the policy quit, how often quitting was better."""
    rows = []
    for t in range(len(TOKENS)):
        n_dec = int(acc[N_STAT, t].sum())
        if n_dec == 0:
            continue
        rows.append((game, players, policy, measure, TOKENS[t], n_dec, n_dec / games,
                     acc[S_POLICY_QUIT, t].sum() / n_dec, acc[S_SUM, t].sum() / n_dec / scale, seed))
    return pd.DataFrame(rows, columns=["game", "players", "policy", "measure", "token", "decisions", "per_game",
                                       "policy_quit_rate", "mean_quit_minus_draw", "seed"])


# --------------------------------------------------------------------------------------------
# A chart as a strategy's table
# --------------------------------------------------------------------------------------------


def _edges(result: ChartResult, feature: str) -> tuple[int, ...]:
    if feature not in FEATURES:
        raise UsageError(f"unknown chart feature '{feature}' (use {', '.join(FEATURES)})")
    return result.pile_edges if feature == "pile" else result.opp_edges


def quit_table(result: ChartResult, feature: str = "pile") -> np.ndarray:
    """``table[token class, hand points, feature bin] == 1``: quit when stuck (``feature``: the
    ``pile`` or the ``opponent`` chart). A cell is decided by the sign of its mean (a '?' cell costs
    little either way: its difference is near 0); a cell that never occurred takes the nearest
    occurring cell of the same token class and bin by hand points (ties to the lower), or drawing when
    the class has none."""
    edges = _edges(result, feature)
    table = np.zeros((len(TOKENS), MAX_POINTS, len(edges)), np.int8)
    known = np.zeros_like(table, dtype=bool)
    for row in result.cells[result.cells["chart"] == feature].itertuples():
        t = TOKENS.index(row.token)
        b = edges.index(row.bin_low)
        table[t, row.hand_points, b] = 1 if row.mean_quit_minus_draw < 0 else 0
        known[t, row.hand_points, b] = True
    for t in range(len(TOKENS)):
        for b in range(len(edges)):
            have = np.flatnonzero(known[t, :, b])
            if have.size == 0:
                continue
            for p in range(MAX_POINTS):
                if not known[t, p, b]:
                    table[t, p, b] = table[t, have[np.argmin(np.abs(have - p))], b]
    return table


def chart_document(results: list[ChartResult], feature: str = "opponent") -> dict:
    """The JSON document a ``chart`` strategy reads (``chart_data``): one quit table per player count."""
    first = results[0]
    return {
        "game": first.game, "policy": first.policy, "measure": first.measure, "games": first.games,
        "seed": first.seed, "tokens": list(TOKENS), "max_points": MAX_POINTS,
        "feature": feature, "edges": list(_edges(first, feature)),
        "tables": {str(r.players): quit_table(r, feature).tolist() for r in results},
    }


def emit_strategy(result: ChartResult, path: Path, feature: str = "opponent", force: bool = True) -> str:
    """Write a strategy file playing ``result``'s ``feature`` chart (load it with ``--strategies-file``),
    whole or not at all (without ``force``, never over a file that appeared during the run).

    The strategy is named after the file (``my_chart.py`` -> ``my_chart``); it plays the rule set's
    ``chart`` card choice and the chart's quit/draw choice. Returns the strategy's name."""
    name = Path(path).stem
    if not name.isidentifier():
        raise UsageError(f"--emit-strategy {path}: the file name must be a Python name (it names the strategy)")
    edges = _edges(result, feature)
    table = quit_table(result, feature)
    bin_of, _ = bins(edges, MAX_PILE if feature == "pile" else MAX_HAND, feature)
    code = FEATURE_CODES[feature]
    text = f'''"""A quit chart as a strategy: written by `llamasim chart --game {result.game} --players {result.players}
--policy {result.policy} --measure {result.measure} --games {result.games} --seed {result.seed}
--emit-strategy {Path(path).name}` ({feature} chart, bins from {list(edges)}).

Load it with `--strategies-file {Path(path).name}` and play it as `{name}`."""
import numpy as np

from llama_sim.core.registry import strategy
from llama_sim.strategies.{result.game} import chart_policy_action

# QUIT[token class (0, 1, 10, 20), hand points, bin] == 1: quit when no card fits.
QUIT = np.array({table.tolist()!r}, dtype=np.int8)
# The bin of every value of the feature ({FEATURES[feature]}).
BIN_OF = np.array({bin_of.tolist()!r}, dtype=np.int64)


@strategy("{result.game}", "{name}", "Plays the {result.game} {feature} chart built from {result.policy} at "
          "{result.players} players ({result.measure} measure, {result.games} games, seed {result.seed}): the "
          "chart strategy's card choice, the chart's quit/draw choice.")
def {name}(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, QUIT, BIN_OF, {code})
'''
    write_text(Path(path), text, force)
    return name


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def _unit(result: ChartResult) -> str:
    """What the printed and plotted numbers are in (the tables hold the unscaled values)."""
    return {"own": "points over the rest of the round",
            "relative": "points relative to the others' mean, over the rest of the round",
            "win": "percentage points of losing the game"}[result.measure]


def _shown(result: ChartResult, value: float) -> float:
    """A mean as printed and plotted: points, or the win measure in percentage points."""
    return value * (100 if result.measure == "win" else 1)


def readable(result: ChartResult, chart_name: str = "pile") -> str:
    """The chart as text: one line per hand points, one column per bin, per token class."""
    df = result.cells[result.cells["chart"] == chart_name]
    edges = result.pile_edges if chart_name == "pile" else result.opp_edges
    spans = _spans(chart_rules(result.game), chart_name, edges)
    words = wording(result.game)
    feature = words[chart_name]
    policy = registry.with_values(result.policy, result.policy_values)
    lines = [f"{result.game}, {result.players} players, policy {policy}, {result.games} games, seed "
             f"{result.seed}: {words['decision']}, quit - {words['play_on']} in {_unit(result)} "
             f"(Q quit better, {words['letter']} {words['play_on']} better, ? cannot separate at 95%); "
             f"columns: {feature}"]
    lines.append(which_to_use(result, chart_name))
    labels = _bin_labels(spans)
    for token, part in df.groupby("token"):
        lines.append(f"\ntoken returned on going out: {token}  ({int(part['decisions'].sum())} decisions)")
        cols = sorted(part["bin_low"].unique())
        head = ["pts"] + [labels[list(edges).index(c)] for c in cols]
        body = []
        for pts, row in part.groupby("hand_points"):
            by = {r.bin_low: r for r in row.itertuples()}
            body.append([str(pts)] + [f"{by[c].answer}{_shown(result, by[c].mean_quit_minus_draw):+.1f}" if c in by
                                      else "" for c in cols])
        widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
        lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths)))
        lines.extend("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body)
    return "\n".join(lines)


COMMON_SHARE = 0.01  # a cell holding at least this share of the decisions is one a player meets often


def which_to_use(result: ChartResult, chart_name: str = "pile") -> str:
    """One sentence: which chart to use for winning and why; for a win-valued chart, how many of its
    common cells are unresolved and about how many games would resolve them."""
    card = f"llamasim card --game {result.game} --players {result.players}"
    if result.measure != "win":
        return (f"For winning, use the win-valued chart (--measure win) or its rule card ({card}): a game is won "
                f"by ending below the others, and quitting to save points this round can hand them an easier one.")
    df = result.cells[(result.cells["chart"] == chart_name) & (result.cells["share"] >= COMMON_SHARE)]
    open_cells = df[df["answer"] == "?"]
    if open_cells.empty:
        return f"Every cell holding {100 * COMMON_SHARE:g}% or more of the decisions is resolved (Q or " \
               f"{wording(result.game)['letter']})."
    half = (open_cells["ci_high"] - open_cells["ci_low"]) / 2
    effect = open_cells["mean_quit_minus_draw"].abs()
    needed = (result.games * (half / effect) ** 2)[effect > 0]
    need = f"about {float(needed.median()):,.0f} games would resolve half of them" if len(needed) else "no size would"
    return (f"{len(open_cells)} of the {len(df)} cells holding {100 * COMMON_SHARE:g}% or more of the decisions are "
            f"unresolved (?): {need} if their effects are as estimated; for a rule to carry to the table, see the "
            f"rule card ({card}).")


# --------------------------------------------------------------------------------------------
# Plot
# --------------------------------------------------------------------------------------------

UNRESOLVED, MUTED_TEXT = "#f7f7f7", "#9a9a9a"  # a ? cell: near-white with a grey letter, quieter than any effect
NO_DATA = "#d9d9d9"  # a cell never met, or met in fewer than MIN_GAMES games: light grey, not a colour of the scale
CELL_WIDTH, CELL_HEIGHT = 0.34, 0.25  # inches: a 10-point letter per cell, readable at 100% zoom


def chart_figure(result: ChartResult, chart_name: str = "pile"):
    """Heatmaps of one chart, one panel per token class: rows hand points, columns the feature's bins;
    a resolved cell (Q or D) is coloured by its mean quit - draw (blue: quit better, red: draw better),
    a ``?`` cell (its interval covers 0) is muted (near-white, grey letter) so the eye goes to what is
    known; each cell is labelled with its answer (the means are in the text and csv tables); light grey
    where the policy never met the cell or met it in too few games to say. All text is 10 points or
    more at the saved size."""
    import matplotlib
    from matplotlib.colors import ListedColormap, TwoSlopeNorm

    from llama_sim.analysis.plots import FONT_PT, MAX_WIDTH, new_figure

    if chart_name not in FEATURES:
        raise UsageError(f"unknown chart '{chart_name}' (use {', '.join(FEATURES)})")
    rules = chart_rules(result.game)
    words = rules.wording
    df = result.cells[result.cells["chart"] == chart_name]
    edges = _edges(result, chart_name)
    labels = _bin_labels(_spans(rules, chart_name, edges))
    tokens = sorted(df["token"].unique()) or [0]
    points = sorted(df["hand_points"].unique()) or [0]
    used_bins = sorted(df["bin_low"].unique()) or [edges[0]]
    # colour scale from the resolved cells seen in enough games (a rare or unresolved cell's mean is noise)
    solid = df[(df["effective_games"] >= MIN_GAMES) & (df["answer"] != "?")]["mean_quit_minus_draw"]
    solid = solid.map(lambda v: abs(_shown(result, v)))
    bmax = max(float(solid.quantile(0.95)) if len(solid) else 1.0, 0.1)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-bmax, vmax=bmax)
    cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad=(0, 0, 0, 0))  # unresolved and unmet: the layer below
    below = ListedColormap([UNRESOLVED]).with_extremes(bad=NO_DATA)
    # cells narrow (to a letter's width and a little) before the figure passes MAX_WIDTH
    cell = max(0.24, min(CELL_WIDTH, ((MAX_WIDTH - 2.4) / len(tokens) - 0.9) / len(used_bins)))
    fig = new_figure(2.4 + len(tokens) * (0.9 + cell * len(used_bins)), 2.9 + CELL_HEIGHT * len(points))
    axes = fig.subplots(1, len(tokens), squeeze=False, sharey=True)
    image = None
    for ax, token in zip(axes[0], tokens):
        part = df[df["token"] == token]
        grid = np.full((len(points), len(used_bins)), np.nan)
        muted = np.full((len(points), len(used_bins)), np.nan)
        for r in part.itertuples():
            i, j = points.index(r.hand_points), used_bins.index(r.bin_low)
            if r.effective_games < MIN_GAMES:  # too few games to say: grey, like a cell never met
                ax.text(j, i, r.answer, ha="center", va="center", fontsize=FONT_PT, color="#777777")
                continue
            if r.answer == "?":
                muted[i, j] = 0.0
                ax.text(j, i, "?", ha="center", va="center", fontsize=FONT_PT, color=MUTED_TEXT)
                continue
            shown = _shown(result, r.mean_quit_minus_draw)
            grid[i, j] = shown
            dark = abs(norm(max(-bmax, min(bmax, shown))) - 0.5) > 0.3
            ax.text(j, i, r.answer, ha="center", va="center", fontsize=FONT_PT, color="white" if dark else "black",
                    fontweight="bold" if r.answer != "?" else "normal")
        ax.imshow(muted, cmap=below, vmin=0, vmax=1, aspect="auto", origin="lower")
        image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto", origin="lower")
        ax.set_xticks(range(len(used_bins)), [labels[list(edges).index(lo)] for lo in used_bins], rotation=90)
        ax.set_yticks(range(len(points)), [str(p) for p in points])
        ax.tick_params(length=2)
        ax.set_title(f"token returned on going out: {token}\n({int(part['decisions'].sum()):,} decisions)")
        ax.set_xlabel(words[chart_name])
    axes[0][0].set_ylabel(words["points"])
    fig.suptitle(f"{rules.title}, {result.players} players, policy {result.policy}: {words['question']}\n"
                 f"Q: quit better, {words['letter']}: {words['play_on']} better (coloured by how much), ?: 95% interval "
                 f"covers 0 (pale); grey: "
                 f"never met or in fewer than {MIN_GAMES} games; {result.games:,} games, seed {result.seed}")
    cbar = fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, pad=0.02)
    cbar.set_label(f"mean quit - {words['play_on']} ({_unit(result)})\nblue: quit better, red: {words['play_on']} "
                   f"better")
    return fig


def write_chart_file(game: str, players: list[int], path: Path, policy: str | None = None,
                     games: int = DEFAULT_GAMES, seed: int = 1, threads: int | None = None,
                     measure: str = "win", feature: str = "opponent",
                     pile_edges: tuple[int, ...] | None = None,
                     opp_edges: tuple[int, ...] | None = None) -> dict:
    """Build the charts of ``players`` player counts and write the document a ``chart`` strategy reads
    (how ``llama_sim/rulesets/<game>/chart.json`` is made: ``scripts/build_charts.py``). Default bins: one
    per value (``ChartRules.bundled_pile_edges``, ``bundled_opponent_edges``: L.A.M.A./Party pile 0..49,
    opponent hands 1..13 and 16+; dice llama row 1..7, rows 1..13)."""
    rules = chart_rules(game)
    if pile_edges is None:
        pile_edges = rules.bundled_pile_edges
    if opp_edges is None:
        opp_edges = rules.bundled_opponent_edges
    results = [chart(game, n, policy, games, seed, threads, pile_edges, opp_edges, measure=measure) for n in players]
    doc = chart_document(results, feature)
    write_text(Path(path), json.dumps(doc, separators=(",", ":")) + "\n")
    return doc
