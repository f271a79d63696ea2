"""Strategies for L.A.M.A. (``lama``). Observation layout and actions: ``llama_sim.games.lama``."""
from numba import njit

from ..games.lama import DRAW, N_CODES, OBS_HAND, OBS_SCORES, OBS_SEAT, OBS_TOP, PENALTY, QUIT
from ..registry import strategy
from ._helpers import count_penalty, random_legal


@strategy("lama", "always_quit", "Quits at its first decision.")
def always_quit(obs, legal, params, rng):
    return QUIT


@strategy("lama", "random", "Uniformly random legal action.")
def random(obs, legal, params, rng):
    return random_legal(legal, rng)


@njit(cache=True, inline="always")
def greedy_play(obs, legal):
    """Equal card before the one-higher card (so a llama on a llama before a 1); -1 if none."""
    top = obs[OBS_TOP]
    if legal[top]:
        return top
    nxt = (top + 1) % N_CODES
    if legal[nxt]:
        return nxt
    return -1


@strategy("lama", "greedy", "Plays whenever it can (equal before one higher), else draws, else quits.")
def greedy(obs, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if legal[DRAW]:
        return DRAW
    return QUIT


@strategy("lama", "threshold",
          "As greedy, but when it cannot play it quits if its hand's penalty is at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand penalty <= quit_at")})
def threshold(obs, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if count_penalty(obs, OBS_HAND, PENALTY) <= params[0] or not legal[DRAW]:
        return QUIT
    return DRAW


@strategy("lama", "smart",
          "Plays like greedy. When stuck it weighs the token a player who goes out returns: holding a 10 "
          "it keeps drawing (quits only at penalty <= ten_quit_at); otherwise it quits at penalty <= quit_at.",
          params={"quit_at": (4, 0, 100, "quit threshold while holding less than 10 points"),
                  "ten_quit_at": (0, 0, 100, "quit threshold while holding a 10-point token")})
def smart(obs, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if not legal[DRAW]:
        return QUIT
    limit = params[1] if obs[OBS_SCORES + obs[OBS_SEAT]] >= 10 else params[0]
    return QUIT if count_penalty(obs, OBS_HAND, PENALTY) <= limit else DRAW


# --------------------------------------------------------------------------------------------
# chart: a quit chart (``llamasim chart``) as a strategy
# --------------------------------------------------------------------------------------------

from ..chart_data import FEATURE_OPPONENT, MAX_HAND, bundled_document, tables_from_document, token_class  # noqa: E402
from ..games.lama import (  # noqa: E402
    MAX_PLAYERS, MIN_PLAYERS, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_QUIT,
)

# The bundled chart (llama_sim/data/lama_chart.json), frozen into the compiled policy as constants:
# CHART_QUIT[players - MIN_PLAYERS, token class, hand points, bin] == 1 means quit when stuck; the bin
# is CHART_BIN_OF[the smallest hand of an opponent still in] (or of the cards left in the draw pile,
# for a chart of that feature: CHART_FEATURE, see chart_data).
CHART_QUIT, CHART_BIN_OF, CHART_FEATURE = tables_from_document(bundled_document("lama"), MIN_PLAYERS, MAX_PLAYERS)


@njit(cache=True, inline="always")
def chart_policy_action(obs, legal, rng, quit_table, bin_of, feature):
    """Greedy's card; when no card fits and drawing is legal, the chart's choice
    ``quit_table[token class, hand points, bin_of[value]]`` (1: quit), where the value is the cards left
    in the draw pile (``feature`` 0) or the smallest hand of an opponent still in (1)."""
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if not legal[DRAW]:
        return QUIT
    t = token_class(obs[OBS_SCORES + obs[OBS_SEAT]], False)
    value = obs[OBS_DRAW_PILE]
    if feature == FEATURE_OPPONENT:
        value = MAX_HAND - 1
        for s in range(obs[OBS_PLAYERS]):
            if s != obs[OBS_SEAT] and obs[OBS_QUIT + s] == 0 and obs[OBS_HAND_SIZES + s] < value:
                value = obs[OBS_HAND_SIZES + s]
    if quit_table[t, count_penalty(obs, OBS_HAND, PENALTY), bin_of[value]]:
        return QUIT
    return DRAW


@strategy("lama", "chart",
          "Plays like greedy; when no card fits it quits or draws as the bundled quit chart says for its hand "
          "points, the smallest hand of an opponent still in and the token it would return (llamasim chart).")
def chart(obs, legal, params, rng):
    return chart_policy_action(obs, legal, rng, CHART_QUIT[obs[OBS_PLAYERS] - MIN_PLAYERS], CHART_BIN_OF,
                               CHART_FEATURE)
