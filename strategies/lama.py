"""Strategies for L.A.M.A. (``lama``). Observation layout and actions: ``llama_sim.rulesets.lama``.

The strongest at 4 to 6 players is ``climber`` (smart's quitting, and it moves the top up when it holds
more cards above the top than at it); at 2 players ``threshold`` (its 2-player preset). Figures in
each strategy's docstring.
"""
from numba import njit

from llama_sim.rulesets.lama import DRAW, N_CODES, OBS_ACTIVE, OBS_SCORES, OBS_SEAT, OBS_TOP, PENALTY, QUIT
from llama_sim.core.registry import strategy
from llama_sim.core.scoring import distinct_penalty
from llama_sim.strategies._helpers import climbs, random_legal


@strategy("lama", "always_quit", "Quits at its first decision.")
def always_quit(obs, hand, legal, params, rng):
    return QUIT


@strategy("lama", "random", "Uniformly random legal action.")
def random(obs, hand, legal, params, rng):
    return random_legal(legal, rng)


@njit(cache=True, inline="always")
def greedy_play(obs, legal):
    """Equal card before the one-higher card (so a llama on a llama before a 1); -1 if none."""
    top = obs[OBS_TOP]
    if (legal >> top) & 1:
        return top
    nxt = (top + 1) % N_CODES
    if (legal >> nxt) & 1:
        return nxt
    return -1


@strategy("lama", "greedy", "Plays whenever it can (equal before one higher), else draws, else quits.")
def greedy(obs, hand, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> DRAW) & 1:
        return DRAW
    return QUIT


@strategy("lama", "threshold",
          "As greedy, but when it cannot play it quits if its hand's penalty is at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand penalty <= quit_at")},
          presets={2: {"quit_at": 8}, 4: {"quit_at": 2}, 6: {"quit_at": 4}})
def threshold(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g lama --strategy threshold -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g lama -p N
    threshold:<preset> threshold:quit_at=8 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=8 (tuning found no better value); 4p:
    quit_at=2, +0.106 [+0.100, +0.112]; 6p: quit_at=4, +0.041 [+0.037, +0.045]. 3 and 5 players take the
    4- and 6-player preset (nearest count, ties to the larger)."""
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if distinct_penalty(hand, PENALTY) <= params[0] or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW


SMART_PARAMS = {"quit_at": (4, 0, 100, "quit threshold while holding less than 10 points"),
                "ten_quit_at": (0, 0, 100, "quit threshold while holding a 10-point token")}
SMART_PRESETS = {2: {"quit_at": 97, "ten_quit_at": 9}, 4: {"quit_at": 4, "ten_quit_at": 0},
                 6: {"quit_at": 4, "ten_quit_at": 0}}
SMART_PRESET_NOTES = {2: "quit_at=97 is above any hand's points (31 at most): under 10 points it quits whenever "
                         "no card fits; from 10 points on it draws unless its hand is at most 9 points"}


@strategy("lama", "smart",
          "Plays like greedy. When stuck it weighs the token a player who goes out returns: holding a 10 "
          "it keeps drawing (quits only at penalty <= ten_quit_at); otherwise it quits at penalty <= quit_at.",
          params=SMART_PARAMS, presets=SMART_PRESETS, preset_notes=SMART_PRESET_NOTES)
def smart(obs, hand, legal, params, rng):
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
    if not (legal >> DRAW) & 1:
        return QUIT
    limit = params[1] if obs[OBS_SCORES + obs[OBS_SEAT]] >= 10 else params[0]
    return QUIT if distinct_penalty(hand, PENALTY) <= limit else DRAW


# smart's rules as an inlinable function, for climber's quitting.
_smart_rule = njit(cache=True, inline="always")(smart)


@njit(cache=True, inline="always")
def climb_card(obs, hand, legal, min_opponents, same, two_up, far_up):
    """climber's card: with at least ``min_opponents`` opponents still in and both the top's value and
    the next value up fitting, the next value when ``climbs`` (cards held 0..4 values above the top);
    -1 to keep greedy's card."""
    top = obs[OBS_TOP]
    up = (top + 1) % N_CODES
    if obs[OBS_ACTIVE] - 1 < min_opponents or not (legal >> top) & 1 or not (legal >> up) & 1:
        return -1
    if climbs(hand[top], hand[up], hand[(top + 2) % N_CODES],
              hand[(top + 3) % N_CODES] + hand[(top + 4) % N_CODES], same, two_up, far_up):
        return up
    return -1


@strategy("lama", "climber",
          "smart, but while at least min_opponents opponents are still in it moves the top up (plays the next "
          "value instead of the top's value) when it holds more cards above the top than at it: "
          "n(+1) + two_up*n(+2) + far_up*(n(+3) + n(+4)) > same*n(0).",
          params={**SMART_PARAMS,
                  "min_opponents": (3, 1, 6, "climb only while at least this many opponents are still in"),
                  "same": (2, 0, 8, "weight of the cards held of the top's value"),
                  "two_up": (1, 0, 4, "weight of the cards held two values above the top"),
                  "far_up": (0.3, 0, 2, "weight of the cards held three and four values above the top")},
          presets=SMART_PRESETS, preset_notes=SMART_PRESET_NOTES)
def climber(obs, hand, legal, params, rng):
    """Beats ``smart`` and ``chart``, the previous best, at 4, 5 and 6 players; at 2 and 3 players it
    plays exactly as smart (the climbing rule needs three opponents in the round; the presets are
    smart's). The rule was found for the Party Edition (``party`` climber, where the search and the
    ideas not kept are documented) and carried over unchanged.

    The rule: where greedy would play a card of the top's value and the next value up also fits,
    climber plays the next value when n(+1) + two_up n(+2) + far_up (n(+3) + n(+4)) > same n(0), with
    n(+k) the cards held k values above the top on the cycle 1..6, llama (``climbs``); e.g. on a 3
    holding 3 4 4 5 it plays a 4, holding 3 3 4 5 a 3. When no card fits it quits or draws as smart.

    Measured on fresh deals, paired win-rate difference climber - smart with its 95% interval,
    `llamasim compare --game lama --players N climber smart --games 100000 --seed 101 --view paired
    --threads 1`: 4p +0.0404 [+0.0373, +0.0434] (and -0.312 [-0.335, -0.289] points per round); 5p
    +0.0371 [+0.0347, +0.0395]; 6p +0.0337 [+0.0316, +0.0357]; 2p and 3p +0.0000 (the same decisions).
    Against the quit chart (`... -p 4 climber chart`, same run size and seed): +0.0351 [+0.0321,
    +0.0382]. In one four-way table (`llamasim compare -g lama -p 4 climber chart smart threshold --games
    20000 --seed 3 --threads 1`): climber - chart +0.0186 [+0.0088, +0.0284], - smart +0.0289 [+0.0192,
    +0.0386], - threshold +0.0396 [+0.0300, +0.0492].

    Each part, against climber itself (`llamasim compare -g lama -p 4 climber:<value> climber --games
    40000 --seed 5 --threads 1`): same=1 -0.078 [-0.083, -0.073], same=3 -0.019 [-0.024, -0.015],
    two_up=0 -0.011 [-0.015, -0.006], two_up=2 -0.023 [-0.027, -0.019], far_up=0 -0.022 [-0.027,
    -0.018], far_up=1 -0.012 [-0.017, -0.008], min_opponents=2 -0.0077 [-0.0105, -0.0050]; smart's quit
    values stay (quit_at=3 -0.0006 [-0.0040, +0.0029], quit_at=5 +0.0002 [-0.0035, +0.0040],
    ten_quit_at=1 -0.0042 [-0.0067, -0.0017]). A race over all six parameters (`llamasim tune -g lama
    --strategy climber -p 4 --vs smart --budget 10000000 --seed 7 --threads 1`) kept the defaults and
    dropped 65 of its 67 candidates as worse. Climbing with fewer opponents in loses (`llamasim compare
    -g lama -p N climber:min_opponents=M smart --games 40000 --seed 3 --threads 1`): at 2 players with
    one opponent -0.324 [-0.332, -0.316]; at 3 players with two -0.013 [-0.019, -0.007].
    """
    if (legal >> obs[OBS_TOP]) & 1:
        up = climb_card(obs, hand, legal, params[2], params[3], params[4], params[5])
        if up >= 0:
            return up
    return _smart_rule(obs, hand, legal, params, rng)


# --------------------------------------------------------------------------------------------
# chart: a quit chart (``llamasim chart``) as a strategy
# --------------------------------------------------------------------------------------------

from llama_sim.core.chart_data import (
    CARD_DESCRIPTION, CARD_PARAMS, NO_RULE, FEATURE_OPPONENT, MAX_HAND, bundled_document, chart_quits,
    tables_from_document, token_class,
)  # noqa: E402
from llama_sim.rulesets.lama import (
    MAX_PLAYERS, MIN_PLAYERS, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_QUIT,
)

# The bundled chart (llama_sim/rulesets/lama/chart.json), frozen into the compiled policy as constants:
# CHART_QUIT[players - MIN_PLAYERS, token class, hand points, bin] == 1 means quit when stuck; the bin
# is CHART_BIN_OF[the smallest hand of an opponent still in] (or of the cards left in the draw pile,
# for a chart of that feature: CHART_FEATURE, see chart_data).
CHART_QUIT, CHART_BIN_OF, CHART_FEATURE = tables_from_document(bundled_document("lama"), MIN_PLAYERS, MAX_PLAYERS)


@njit(cache=True, inline="always")
def quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, rule):
    """Greedy's card; when no card fits and drawing is legal, the chart's choice
    ``quit_table[token class, hand points, bin_of[value]]`` (1: quit), where the value is the cards left
    in the draw pile (``feature`` 0) or the smallest hand of an opponent still in (1)."""
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if not (legal >> DRAW) & 1:
        return QUIT
    t = token_class(obs[OBS_SCORES + obs[OBS_SEAT]], False)
    value = obs[OBS_DRAW_PILE]
    if feature == FEATURE_OPPONENT:
        value = MAX_HAND - 1
        for s in range(obs[OBS_PLAYERS]):
            if s != obs[OBS_SEAT] and obs[OBS_QUIT + s] == 0 and obs[OBS_HAND_SIZES + s] < value:
                value = obs[OBS_HAND_SIZES + s]
    if chart_quits(quit_table, bin_of, rule, t, distinct_penalty(hand, PENALTY), value):
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def chart_policy_action(obs, hand, legal, rng, quit_table, bin_of, feature):
    """``quit_chart_action`` with the chart's table deciding (what emitted chart strategies call)."""
    return quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, NO_RULE)


@strategy("lama", "chart",
          "Plays like greedy; when no card fits it quits or draws as the bundled quit chart says for its hand "
          "points, the smallest hand of an opponent still in and the token it would return (llamasim chart).")
def chart(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, CHART_QUIT[obs[OBS_PLAYERS] - MIN_PLAYERS], CHART_BIN_OF,
                               CHART_FEATURE)


@strategy("lama", "card", CARD_DESCRIPTION, params=CARD_PARAMS, family=True)
def card(obs, hand, legal, params, rng):
    """A quit card's rule (``llamasim card``): the chart's play, the rule deciding when stuck."""
    return quit_chart_action(obs, hand, legal, rng, CHART_QUIT[0], CHART_BIN_OF, FEATURE_OPPONENT, params)


# --------------------------------------------------------------------------------------------
# expert: roll-outs of every legal action with a base strategy (``llama_sim.core.expert``)
# --------------------------------------------------------------------------------------------

import numpy as np  # noqa: E402

from llama_sim.core.expert import (  # noqa: E402
    BASE_OPTIONS, Search, rollout_values, BASE, FORCED, base_rows, expert_choose, expert_params,
)
from llama_sim.core.views import readonly  # noqa: E402 (the base gets the obs type policies are compiled for)
from llama_sim.rulesets import lama as _rules  # noqa: E402
from llama_sim.rulesets.lama import OBS_TURN  # noqa: E402
from llama_sim.rulesets.shedding import expert as _shedding_expert  # noqa: E402

EXPERT_BASES = ("climber", "threshold")  # the strongest at 3-6 players, and at 2
EXPERT_ROWS = base_rows("lama", EXPERT_BASES, MAX_PLAYERS)
EXPERT_TABLES = (_rules.CAN_PLAY_BITS, _rules.EXTRA_TURN, _rules.CODE_PENALTY, _rules.TWINS, _rules.FLAGS,
                 np.bincount(_rules.DECK.astype(np.int64), minlength=N_CODES))
_climber = njit(cache=True, **BASE_OPTIONS)(climber)
_threshold = njit(cache=True, **BASE_OPTIONS)(threshold)


@njit(nogil=True, forceinline=True)  # compiled once and inlined by LLVM at each decision site of the
# round (inlined by Numba, it was copied into every one: half a minute of Kadabra's first expert compile)
def expert_decide(decide, policies, slot, obs, hand, legal, params, rng):
    """The roll-outs' player: the forced first action, then the base strategy (``core.expert``)."""
    if obs[OBS_TURN] == 0:
        return np.int64(params[FORCED])
    if params[BASE] == 1:
        return _threshold(readonly(obs), hand, legal, params, rng)
    return _climber(readonly(obs), hand, legal, params, rng)


@strategy("lama", "expert",
          "Rolls out every legal action on the same samples of the unseen cards, everyone continuing with the "
          "base strategy, and takes the one with the fewest points for the round, relative to the others' mean (objective=1).",
          params=expert_params(EXPERT_BASES), presets={2: {"base": 1}, 4: {"base": 0}}, search=True)
def expert(obs, hand, legal, params, rng):
    return expert_choose(obs, hand, legal, params, rng, EXPERT_TABLES, _shedding_expert.world,
                         _shedding_expert.rollout, expert_decide, EXPERT_ROWS[int(params[2]), obs[OBS_PLAYERS]])


@njit(cache=True, nogil=True)
def expert_values(obs, hand, legal, key, count, objective, base, out):
    """Roll-out values of every legal action (``llamasim grade``)."""
    rollout_values(obs, hand, legal, key, count, objective, EXPERT_TABLES, _shedding_expert.world,
                   _shedding_expert.rollout, expert_decide, EXPERT_ROWS[base, obs[OBS_PLAYERS]], out)


EXPERT_SEARCH = Search(expert_values, EXPERT_BASES)
