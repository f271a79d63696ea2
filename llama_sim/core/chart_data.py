"""A quit chart as data: bins, the JSON document the ``chart`` strategies read, the token classes.

Kept apart from ``chart.py`` (which builds charts with pandas) so that the strategy modules can load
their bundled chart (``llama_sim/rulesets/<game>/chart.json``) at import time with numpy alone.

Document layout: ``{"game", "policy", "measure", "games", "seed", "tokens": [0, 1, 10, 20],
"max_points", "feature": "pile" | "opponent", "edges": [lower edges of the feature's bins],
"tables": {"<players>": quit[token][points][bin]}}`` with ``quit == 1`` meaning "quit when no card
fits and drawing is legal". The feature is the cards left in the draw pile (``pile``) or the
smallest hand among the opponents still in the round (``opponent``).
"""
from __future__ import annotations

import json
from importlib import resources

import numpy as np
from numba import njit

from llama_sim.core.errors import UsageError
from llama_sim.core.scoring import largest_token
from llama_sim.core.ruleset import RULE_SETS

TOKENS = (0, 1, 10, 20)  # the token a player returns on going out: class index 0..3
MAX_POINTS = 42  # hand points 0..41 (Party: 1 + ... + 6 + 20)
MAX_PILE = 50  # draw-pile sizes 0..49
MAX_HAND = 60
FEATURE_PILE, FEATURE_OPPONENT = 0, 1


@njit(cache=True, nogil=True, inline="always")
def token_class(score, allow20):
    """Index in ``TOKENS`` of the token a player with ``score`` returns on going out."""
    t = largest_token(score, allow20)
    if t == 20:
        return 3
    if t == 10:
        return 2
    return t  # 0 or 1


def bins(edges: tuple[int, ...], size: int, what: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Lower bin edges -> (bin index of every value 0..size-1, each bin's (low, high))."""
    edges = tuple(int(e) for e in edges)
    if not edges or edges[0] < 0 or any(b <= a for a, b in zip(edges, edges[1:])) or edges[-1] >= size:
        raise UsageError(f"{what} bin edges must be increasing integers from 0 to {size - 1}, got {list(edges)}")
    index = np.zeros(size, np.int64)
    for v in range(size):
        index[v] = max(0, int(np.searchsorted(edges, v, side="right")) - 1)
    spans = [(lo, (edges[i + 1] - 1) if i + 1 < len(edges) else size - 1) for i, lo in enumerate(edges)]
    return index, spans


def tables_from_document(doc: dict, min_players: int, max_players: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(quit[players - min_players, token, points, bin], the bin of every feature value, the feature's
    code). A player count without its own table uses the nearest one (the smaller on a tie)."""
    edges = tuple(doc["edges"])
    feature = {"pile": FEATURE_PILE, "opponent": FEATURE_OPPONENT}[doc["feature"]]
    bin_of, _ = bins(edges, MAX_PILE if feature == FEATURE_PILE else MAX_HAND, doc["feature"])
    have = sorted(int(k) for k in doc["tables"])
    out = np.zeros((max_players - min_players + 1, len(TOKENS), MAX_POINTS, len(edges)), np.int8)
    for n in range(min_players, max_players + 1):
        nearest = min(have, key=lambda k: (abs(k - n), k))
        out[n - min_players] = np.array(doc["tables"][str(nearest)], np.int8)
    return out, bin_of, feature


def bundled_document(game: str) -> dict:
    """The chart shipped with a rule set: ``chart.json`` next to the module defining its ``RULE_SET``."""
    return json.loads(resources.files(RULE_SETS[game]).joinpath("chart.json").read_text())


# ------------------------------------------------------------------------------ quit rules (cards)

# A quit rule a player can remember, as the parameters of each rule set's ``card`` strategy: quit when
# stuck with at most ``quit_at`` points; when an opponent still in holds at most ``near`` cards (0:
# never), at most ``near_quit_at``; when going out would return a 10 (or a 20), at most ``ten_quit_at``,
# whatever the opponents hold. A threshold of -1 never quits.
CARD_PARAMS = {
    "quit_at": (4, -1, 45, "quit when stuck with at most this many points"),
    "ten_quit_at": (4, -1, 45, "the same when going out would return a 10 (or a 20), whatever the opponents hold"),
    "near": (0, 0, 20, "an opponent still in holds at most this many cards (0: never)..."),
    "near_quit_at": (4, -1, 45, "...then quit with at most this many points"),
}
CARD_DESCRIPTION = ("The quit chart's play, but when stuck it follows a rule of a few numbers instead of the "
                    "chart (llamasim card): quit with at most quit_at points, at most near_quit_at when an "
                    "opponent still in holds at most near cards, at most ten_quit_at when going out would "
                    "return a 10.")
NO_RULE = np.zeros(1)  # the chart's table decides (a rule has len(CARD_PARAMS) numbers)


@njit(cache=True, nogil=True, inline="always")
def chart_quits(quit_table, bin_of, rule, t, points, value):
    """Quit when stuck? The chart's ``quit_table[t, points, bin_of[value]]``, or with a rule (``rule``
    the ``CARD_PARAMS`` values; ``value`` the smallest hand of an opponent still in) the rule's choice."""
    if rule.shape[0] < 4:
        return quit_table[t, points, bin_of[value]] != 0
    limit = rule[3] if 0 < value <= rule[2] else rule[0]
    if t >= 2:
        limit = rule[1]
    return points <= limit
