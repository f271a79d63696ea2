"""Strategies for L.A.M.A. (``lama``). Observation layout and actions: ``llama_sim.games.lama``."""
from numba import njit

from llama_sim.games.lama import DRAW, N_CODES, OBS_HAND, OBS_SCORES, OBS_SEAT, OBS_TOP, PENALTY, QUIT
from llama_sim.registry import strategy
from llama_sim.strategies._helpers import count_penalty, random_legal


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
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand penalty <= quit_at")},
          presets={2: {"quit_at": 8}, 4: {"quit_at": 2}, 6: {"quit_at": 4}})
def threshold(obs, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g lama --strategy threshold -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g lama -p N
    threshold:<preset> threshold:quit_at=8 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=8 (tuning found no better value); 4p:
    quit_at=2, +0.106 [+0.100, +0.112]; 6p: quit_at=4, +0.041 [+0.037, +0.045]. 3 and 5 players take the
    4- and 6-player preset (nearest count, ties to the larger)."""
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
                  "ten_quit_at": (0, 0, 100, "quit threshold while holding a 10-point token")},
          presets={2: {"quit_at": 97, "ten_quit_at": 9}, 4: {"quit_at": 4, "ten_quit_at": 0},
                   6: {"quit_at": 4, "ten_quit_at": 0}})
def smart(obs, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g lama --strategy smart -p N --vs self --budget
    1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g lama -p N
    smart:<preset> smart:quit_at=4,ten_quit_at=0 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=97,ten_quit_at=9 (quit when stuck unless
    holding a 10), +0.061 [+0.050, +0.072]; 4p and 6p: the defaults (tuning kept them). 3 and 5 players
    take the 4- and 6-player preset (nearest count, ties to the larger).

    The previous best at 4 players (`llamasim compare -g lama -p 4 threshold:quit_at=2 smart greedy
    --games 20000 --seed 3 --threads 1`: smart - threshold +0.016 [+0.010, +0.023] win rate). Tried to
    beat it at 4 players, all worse or not separable (`llamasim compare -g lama -p 4 <variant> smart
    --games 10000 --seed 11 --threads 1`; the variants are in commit f4315f4): keep drawing while an
    opponent still in holds <= 1 card (watcher:danger=1) -0.005 [-0.011, +0.000], <= 2 cards -0.015
    [-0.022, -0.008]; quitting at <= 6 then instead (watcher as in commit da2c19a) -0.005 [-0.013,
    +0.002]; near the game's end, the leader quits at <= 10 and the others at <= 4 (endgame, --games
    20000) -0.038 [-0.042, -0.034]. At 2 players the 2-player preset, tuned in self-play, still loses
    to threshold (`llamasim compare -g lama -p 2 smart threshold --games 20000 --seed 21 --threads 1`:
    -0.059 [-0.069, -0.050]).
    """
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

from llama_sim.chart_data import FEATURE_OPPONENT, MAX_HAND, bundled_document, tables_from_document, token_class  # noqa: E402
from llama_sim.games.lama import (  # noqa: E402
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
