"""Strategies for Llama Kadabra (``kadabra``). Observation layout, phases and actions:
``llama_sim.rulesets.kadabra``. The strongest at 4 to 6 players is ``climber`` (showman, moving the top up
when it holds more cards above the top than at it; figures in its docstring). The search player
``expert`` (roll-outs with climber continuing, at the end of this file) beats it: `llamasim compare
--game kadabra --players 4 expert climber --games 1000 --seed 3` win rate +0.072 [+0.044, +0.101],
penalty per round -1.97 [-2.24, -1.70]; `--rounds 6000`: -1.42 [-1.59, -1.24].

Every policy answers three kinds of decision, told apart by ``obs[OBS_PHASE]``: a normal turn
(play / draw / quit / return the magic token), a show (play a llama / collect / return the magic
token) and a give-away target (give to seat k). Contract: ``policy(obs, hand, legal, params,
rng)`` with ``hand`` the own cards as a count per card code and ``legal`` a bit mask (action a is legal
when ``(legal >> a) & 1``); loops over legal cards walk the set bits in increasing code order.

``showman`` measured (4 players, ``llamasim compare --game kadabra --players 4 greedy showman``,
seed 1; differences greedy - showman with 95% paired intervals): 400,000 rounds: penalty per
round +0.459 [+0.447, +0.470]; 80,000 games: penalty per round +0.242 [+0.214, +0.271], win rate
-0.0052 [-0.0080, -0.0025] (showman wins more). Against ``threshold`` (quit_at=8) it scores more
points per round (+0.63 in rounds) but wins 4.6 points of percentage more games: in Kadabra's short
games (3.5 rounds on average) quitting early lowers points but loses games. Ablations (showman minus
the variant, 80,000 games): staying in with only 10s (out_value=0 off) +1.3 points of percentage
wins; gifts to the leader rather than the next player +0.4; fleeing a loaded stage -0.17 points per
round at no change in wins; returning the magic token early (pass_at=1) -0.3 wins.

``use_magic=0`` (never return the magic token) and ``in_show=0`` (collect a show's stage at once
instead of playing a llama into it) are there to measure what using the token and the show is worth
(``llamasim run experiments/kadabra-magic-and-show.toml``, 100,000 games, paired win-rate edge of
showman over the variant, 4 players): +0.040 [+0.038, +0.043] and +0.056 [+0.054, +0.058].
"""
import numpy as np
from numba import njit

from llama_sim.rulesets.kadabra.tables import (
    CODE_VALUES, COLLECT, DRAW, GIVE, KIND_VALUES, LLAMA_CODES, MAGIC_POINTS, MAGIC_STAGE, N_CODES, N_VALUES,
    OBS_ACTIVE, OBS_HAND_SIZES, OBS_MAGIC, OBS_ONES, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_SEAT,
    OBS_STAGE_ONES, OBS_STAGE_TENS, OBS_STAGE_TOKENS, OBS_TENS, OBS_TOP, PHASE_GIVE, PHASE_SHOW, QUIT,
    LLAMA_BITS, RETURN_MAGIC, SHOW_AT,
)
from llama_sim.rulesets.kadabra.tables import hand_points as counts_points  # of a count vector over codes
from llama_sim.core.registry import strategy
from llama_sim.strategies._helpers import climbs, lowest_bit, random_legal

CARD_BITS = (1 << N_CODES) - 1  # the play actions 0..35 of a legal mask
# SAME_VALUE_BITS[top kind]: the codes sharing a value with that top (a double: either of its values)
SAME_VALUE_BITS = np.array([sum(1 << c for c in range(N_CODES) if CODE_VALUES[c] & KIND_VALUES[k])
                            for k in range(KIND_VALUES.shape[0])], dtype=np.int64)

# ----------------------------------------------------------------------------- building blocks


@njit(cache=True, inline="always")
def hand_points(hand):
    """Points the own hand would score now (the game's ``tables.hand_points`` of ``hand``'s counts)."""
    return counts_points(hand)


@njit(cache=True, inline="always")
def points_of(obs, seat):
    """A seat's points on the table: its 1s and 10s, plus 10 while it holds the magic token."""
    p = obs[OBS_ONES + seat] + 10 * obs[OBS_TENS + seat]
    if obs[OBS_MAGIC] == seat:
        p += MAGIC_POINTS
    return p


@njit(cache=True, inline="always")
def llamas_held(hand):
    k = 0
    for i in range(LLAMA_CODES.shape[0]):
        k += hand[LLAMA_CODES[i]]
    return k


@njit(cache=True, inline="always")
def first_legal_llama(legal):
    """The legal llama of the lowest code; -1 if none."""
    return lowest_bit(legal & LLAMA_BITS)


@njit(cache=True, inline="always")
def greedy_play(obs, legal):
    """A card of the top card's own value before one a value higher (so a llama on a llama before a
    1); within that, code order (plain before symbol cards). -1 if nothing is playable."""
    same = legal & SAME_VALUE_BITS[obs[OBS_TOP]]
    if same:
        return lowest_bit(same)
    return lowest_bit(legal & CARD_BITS)


@njit(cache=True, inline="always")
def next_target(obs, legal):
    """The first seat to the left that may receive a token."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_PLAYERS]
    for step in range(1, n):
        t = (seat + step) % n
        if (legal >> (GIVE + t)) & 1:
            return GIVE + t
    return -1


@njit(cache=True, inline="always")
def leader_target(obs, legal):
    """The player (still in the round) with the fewest points: the one to slow down."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_PLAYERS]
    best = -1
    best_points = 1 << 40
    for step in range(1, n):
        t = (seat + step) % n
        if (legal >> (GIVE + t)) & 1:
            p = points_of(obs, t)
            if p < best_points:
                best_points = p
                best = GIVE + t
    return best


@njit(cache=True, inline="always")
def greedy_show(obs, legal):
    """In a show: a llama if possible, else pass with the magic token, else collect."""
    a = first_legal_llama(legal)
    if a >= 0:
        return a
    if (legal >> RETURN_MAGIC) & 1:
        return RETURN_MAGIC
    return COLLECT


@njit(cache=True, inline="always")
def trailer_target(obs, legal):
    """The player (still in the round) with the most points: pushing them to 40 ends the game."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_PLAYERS]
    best = -1
    best_points = -1
    for step in range(1, n):
        t = (seat + step) % n
        if (legal >> (GIVE + t)) & 1:
            p = points_of(obs, t)
            if p > best_points:
                best_points = p
                best = GIVE + t
    return best


@njit(cache=True, inline="always")
def leading(obs):
    """True when no other player has fewer points than this one."""
    seat = obs[OBS_SEAT]
    mine = points_of(obs, seat)
    for s in range(obs[OBS_PLAYERS]):
        if s != seat and points_of(obs, s) < mine:
            return False
    return True


# ----------------------------------------------------------------------------- baselines


@strategy("kadabra", "always_quit", "Quits at its first turn; in a show collects; gives to the next player.")
def always_quit(obs, hand, legal, params, rng):
    phase = obs[OBS_PHASE]
    if phase == PHASE_SHOW:
        return COLLECT
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    return QUIT


@strategy("kadabra", "random", "Uniformly random legal action in every decision.")
def random(obs, hand, legal, params, rng):
    return random_legal(legal, rng)


@strategy("kadabra", "greedy",
          "Plays whenever it can (same value before one higher), else returns the magic token, else draws, "
          "else quits; in a show plays a llama, else passes with the magic token, else collects; gives to "
          "the next player.")
def greedy(obs, hand, legal, params, rng):
    phase = obs[OBS_PHASE]
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    if phase == PHASE_SHOW:
        return greedy_show(obs, legal)
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> RETURN_MAGIC) & 1:
        return RETURN_MAGIC
    if (legal >> DRAW) & 1:
        return DRAW
    return QUIT


@strategy("kadabra", "threshold",
          "As greedy, but when it cannot play (and cannot pass with the magic token) it quits if its hand "
          "would score at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand points (+10 magic) <= quit_at")},
          presets={2: {"quit_at": 12}, 4: {"quit_at": 0}, 6: {"quit_at": 3}})
def threshold(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g kadabra --strategy threshold -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g kadabra -p
    N threshold:<preset> threshold:quit_at=8 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=12, +0.039 [+0.029, +0.049]; 4p:
    quit_at=0, +0.046 [+0.040, +0.052]; 6p: quit_at=3, +0.020 [+0.016, +0.025]. 3 and 5 players take the
    4- and 6-player preset (nearest count, ties to the larger)."""
    phase = obs[OBS_PHASE]
    if phase == PHASE_GIVE:
        return next_target(obs, legal)
    if phase == PHASE_SHOW:
        return greedy_show(obs, legal)
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> RETURN_MAGIC) & 1:
        return RETURN_MAGIC
    cost = hand_points(hand)
    if obs[OBS_MAGIC] == obs[OBS_SEAT]:
        cost += MAGIC_POINTS
    if cost <= params[0] or (legal >> DRAW) & 1 == 0:
        return QUIT
    return DRAW


# ----------------------------------------------------------------------------- a heuristic



@njit(cache=True, inline="always")
def fewest_cards_of_others(obs):
    """The smallest hand among the other players still in the round."""
    seat = obs[OBS_SEAT]
    low = 1 << 30
    for s in range(obs[OBS_PLAYERS]):
        if s != seat and obs[OBS_QUIT + s] == 0 and obs[OBS_HAND_SIZES + s] < low:
            low = obs[OBS_HAND_SIZES + s]
    return low


@njit(cache=True, inline="always")
def stage_points(obs):
    p = obs[OBS_STAGE_ONES] + 10 * obs[OBS_STAGE_TENS]
    if obs[OBS_MAGIC] == MAGIC_STAGE:
        p += MAGIC_POINTS
    return p


@strategy("kadabra", "showman",
          "Threshold play with intent about tokens, the show and the magic token: stays in to go out while "
          "holding only 10s (going out then returns a 10), quits more readily when a show is one llama "
          "away and it could not answer it (a player who quit is not part of a show), can return the magic "
          "token before an opponent goes out (pass_at), and gives its tokens to the leader (fewest points).",
          params={"quit_at": (4, 0, 100, "base limit: quit when unable to play and hand points (+10 magic) "
                                         "<= the limit"),
                  "out_value": (2, 0, 3, "lower the limit by this times the token going out would return "
                                         "(10 when only 10s are held, else 1)"),
                  "flee": (0.5, 0, 5, "with 4+ tokens on the stage and neither a llama nor the magic token, "
                                      "raise the limit by this times the stage's points"),
                  "pass_at": (0, 0, 6, "return the magic token (and pass) as soon as an opponent holds at "
                                       "most this many cards (0: only when no card can be played)"),
                  "target": (0, 0, 2, "give away to: 0 the leader (fewest points), 1 the leader unless "
                                      "leading oneself (then the player with most points, to end the game), "
                                      "2 the next player"),
                  "use_magic": (1, 0, 1, "1: return the magic token to pass (when stuck, in a show, or per "
                                         "pass_at); 0: never return it (what the token's extra action is worth)"),
                  "in_show": (1, 0, 1, "1: in a show play a llama when it can; 0: collect the stage at once "
                                       "(what playing into the show is worth)")},
          presets={2: {"quit_at": 14, "out_value": 2, "flee": 2.95, "pass_at": 5, "target": 1},
                   4: {"quit_at": 4, "out_value": 2, "flee": 0.5, "pass_at": 0, "target": 0},
                   6: {"quit_at": 4, "out_value": 2, "flee": 0.5, "pass_at": 0, "target": 0}})
def showman(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g kadabra --strategy showman -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g kadabra -p
    N showman:<preset> showman:quit_at=4,out_value=2,flee=0.5,pass_at=0,target=0 --games 20000 --seed 5
    --threads 1` (win-rate edge of the preset over the defaults, 95% paired interval): 2p:
    quit_at=14,out_value=2,flee=2.95,pass_at=5,target=1, +0.137 [+0.125, +0.149]; 4p: the defaults (tuning
    kept them); 6p: the defaults (tuning's pick was worse on fresh deals). 3 and 5 players take the 4- and
    6-player preset (nearest count, ties to the larger).

    At 4 players the data cannot rank the built-ins (`llamasim compare -g kadabra -p 4 threshold:quit_at=0
    showman greedy --games 20000 --seed 3 --threads 1`: showman - threshold +0.0075 [+0.0013, +0.0136], p
    Holm 0.052). Tried (`llamasim compare -g kadabra -p 4 watcher:<values> showman --games 10000 --seed 11
    --threads 1`, watcher in commit f4315f4: showman, but when stuck while an opponent still in holds <=
    danger cards it draws): danger=1 +0.001 [-0.004, +0.006], danger=2 -0.000 [-0.006, +0.006],
    danger=1,quit_at=6 -0.008 [-0.016, -0.001].
    """
    phase = obs[OBS_PHASE]
    seat = obs[OBS_SEAT]
    if phase == PHASE_GIVE:
        if params[4] == 2:
            return next_target(obs, legal)
        if params[4] == 1 and leading(obs):
            return trailer_target(obs, legal)
        return leader_target(obs, legal)
    if phase == PHASE_SHOW:  # a llama, else pass with the magic token, else collect
        if params[6] > 0:
            a = first_legal_llama(legal)
            if a >= 0:
                return a
        if (legal >> RETURN_MAGIC) & 1 and params[5] > 0:
            return RETURN_MAGIC
        return COLLECT
    if (legal >> RETURN_MAGIC) & 1 and params[5] > 0 and fewest_cards_of_others(obs) <= params[3]:
        return RETURN_MAGIC  # the round may end before the next turn: shed the magic token's 10 now
    own_magic = obs[OBS_MAGIC] == seat
    limit = params[0]
    # Going out returns a token: a 10 when no 1s are held, worth staying in for.
    limit -= params[1] * (10 if obs[OBS_ONES + seat] == 0 and obs[OBS_TENS + seat] > 0 else 1)
    if (obs[OBS_STAGE_TOKENS] >= SHOW_AT - 1 and obs[OBS_ACTIVE] > 1 and not own_magic
            and llamas_held(hand) == 0):
        # A show is one llama away and this hand could not answer it: out of the round is out of the show.
        limit += params[2] * stage_points(obs)
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> RETURN_MAGIC) & 1 and params[5] > 0:
        return RETURN_MAGIC
    cost = hand_points(hand) + (MAGIC_POINTS if own_magic else 0)
    if cost <= limit or (legal >> DRAW) & 1 == 0:
        return QUIT
    return DRAW


# ----------------------------------------------------------------------------- chart: a quit chart as a strategy

import numpy as _np  # noqa: E402

from llama_sim.core.chart_data import (  # noqa: E402
    CARD_DESCRIPTION, CARD_PARAMS, NO_RULE, FEATURE_OPPONENT, MAX_HAND, bundled_document, chart_quits,
    tables_from_document,
)
from llama_sim.rulesets.kadabra.tables import MAX_PLAYERS, MIN_PLAYERS, OBS_DRAW_PILE, PHASE_TURN
from llama_sim.core.registry import MAX_PARAMS, get as _get_strategy  # noqa: E402

# showman with its default parameters, callable from compiled code: the chart strategy's play
# everywhere but the stuck decision.
# Inlined by LLVM where it is called, not by Numba, which copies a function's whole code at each use.
showman_play = njit(cache=True, forceinline=True)(showman)
SHOWMAN_PARAMS = _np.zeros(MAX_PARAMS)
SHOWMAN_PARAMS[:len(_get_strategy("kadabra", "showman").params)] = [
    p.default for p in _get_strategy("kadabra", "showman").params]

# The bundled chart (llama_sim/rulesets/kadabra/chart.json), frozen into the compiled policy as constants:
# CHART_QUIT[players - MIN_PLAYERS, token class, hand points, bin] == 1 means quit when stuck; the bin
# is CHART_BIN_OF[the smallest hand of an opponent still in] (or of the cards left in the draw pile,
# for a chart of that feature: CHART_FEATURE, see chart_data).
CHART_QUIT, CHART_BIN_OF, CHART_FEATURE = tables_from_document(bundled_document("kadabra"), MIN_PLAYERS, MAX_PLAYERS)


@njit(cache=True, inline="always")
def quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, rule):
    """showman's play; when stuck (a normal turn, no card fits, drawing legal) and the magic token
    cannot pass the turn, the chart's choice ``quit_table[token class, hand points, bin_of[value]]``
    (1: quit), where the token class is what going out returns (a 10 if held, else a 1, else nothing)
    and the value the cards left in the draw pile (``feature`` 0) or the smallest hand of an opponent
    still in (1)."""
    if obs[OBS_PHASE] != PHASE_TURN or (legal >> DRAW) & 1 == 0 or (legal >> RETURN_MAGIC) & 1:
        return showman_play(obs, hand, legal, SHOWMAN_PARAMS, rng)
    if legal & CARD_BITS:
        return showman_play(obs, hand, legal, SHOWMAN_PARAMS, rng)
    seat = obs[OBS_SEAT]
    t = 2 if obs[OBS_TENS + seat] > 0 else (1 if obs[OBS_ONES + seat] > 0 else 0)  # chart_data.TOKENS
    value = obs[OBS_DRAW_PILE]
    if feature == FEATURE_OPPONENT:
        value = min(MAX_HAND - 1, fewest_cards_of_others(obs))
    if chart_quits(quit_table, bin_of, rule, t, hand_points(hand), value):
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def chart_policy_action(obs, hand, legal, rng, quit_table, bin_of, feature):
    """``quit_chart_action`` with the chart's table deciding (what emitted chart strategies call)."""
    return quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, NO_RULE)


@strategy("kadabra", "chart",
          "Plays like showman; when no card fits (and the magic token cannot pass) it quits or draws as the "
          "bundled quit chart says for its hand points, the smallest hand of an opponent still in and the "
          "token going out would return (llamasim chart --game kadabra).")
def chart(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, CHART_QUIT[obs[OBS_PLAYERS] - MIN_PLAYERS], CHART_BIN_OF,
                               CHART_FEATURE)


@strategy("kadabra", "card", CARD_DESCRIPTION, params=CARD_PARAMS, family=True)
def card(obs, hand, legal, params, rng):
    """A quit card's rule (``llamasim card``): the chart's play, the rule deciding when stuck."""
    return quit_chart_action(obs, hand, legal, rng, CHART_QUIT[0], CHART_BIN_OF, FEATURE_OPPONENT, params)


# ----------------------------------------------------------------------------- climber: showman, moving the top up

CLIMB_MIN_OPPONENTS = 3  # as L.A.M.A.'s and Party's climber (min_opponents): climb only at a full-ish table


@njit(cache=True, inline="always")
def held_with_value(hand, v):
    """Cards held that carry value ``v`` (0..5 the values 1..6, 6 the llama; a double counts for both)."""
    k = 0
    for c in range(N_CODES):
        if CODE_VALUES[c] >> v & 1:
            k += hand[c]
    return k


@njit(cache=True, inline="always")
def climb_card(obs, hand, legal, card, same, two_up, far_up):
    """climber's card instead of greedy's ``card``: on a single-valued top, with at least
    CLIMB_MIN_OPPONENTS opponents still in and ``card`` of the top's value, a legal single-valued card of
    the next value up (the first by code) when ``climbs`` (cards held 0..4 values above the top); else
    ``card``."""
    if obs[OBS_ACTIVE] - 1 < CLIMB_MIN_OPPONENTS:
        return card
    top_values = KIND_VALUES[obs[OBS_TOP]]
    t = -1
    for v in range(N_VALUES):
        if top_values == 1 << v:
            t = v
    if t < 0 or CODE_VALUES[card] & top_values == 0:
        return card
    up = (t + 1) % N_VALUES
    bits = legal & CARD_BITS
    while bits:
        c = lowest_bit(bits)
        bits &= bits - 1
        if CODE_VALUES[c] == 1 << up:
            if climbs(held_with_value(hand, t), held_with_value(hand, up), held_with_value(hand, (t + 2) % N_VALUES),
                      held_with_value(hand, (t + 3) % N_VALUES) + held_with_value(hand, (t + 4) % N_VALUES),
                      same, two_up, far_up):
                return c
            return card
    return card


CLIMB_TWO_UP, CLIMB_FAR_UP = 1.0, 0.3  # climber's weights of n(+2) and n(+3) + n(+4): Party's values


@strategy("kadabra", "climber",
          "showman, but while at least 3 opponents are still in it moves the top up (plays a card of the next "
          "value instead of the top's value) when it holds more cards above the top than at it: "
          "n(+1) + n(+2) + 0.3*(n(+3) + n(+4)) > same*n(0).",
          params={**{p.name: (p.default, p.low, p.high, p.description)
                     for p in _get_strategy("kadabra", "showman").params},
                  "same": (2, 0, 8, "weight of the cards held of the top's value")},
          presets=_get_strategy("kadabra", "showman").presets)
def climber(obs, hand, legal, params, rng):
    """Beats ``showman`` and ``chart``, the previous best, at 4 to 6 players; at 2 and 3 players it plays
    exactly as showman (climbing needs three opponents in the round; parameters and presets of the first
    seven are showman's). Showman's seven parameters leave one of the eight for the climbing rule:
    ``same``, the one screened below; the other two weights are fixed at the Party values
    (``CLIMB_TWO_UP``, ``CLIMB_FAR_UP``). The rule is L.A.M.A.'s and Party's ``climber`` (found for Party, where the search
    is documented), read for Kadabra: only on a single-valued top, and only a single-valued card climbs;
    a double counts for both its values in n(+k). Everything else (quitting, the magic token, the show,
    gifts) is showman's.

    Measured on fresh deals, paired win-rate difference with its 95% interval, `llamasim compare --game
    kadabra --players N climber showman --games 100000 --seed 101 --view paired --threads 1`: 4p +0.0163
    [+0.0134, +0.0193]; 5p +0.0185 [+0.0162, +0.0208]; 6p +0.0187 [+0.0167, +0.0207]; 2p and 3p +0.0000
    (the same decisions). Against the quit chart (`... -p 4 climber chart`, same run size and seed):
    +0.0068 [+0.0038, +0.0097], although chart scores 0.114 [0.082, 0.146] fewer points per round. In one
    four-way table at 20,000 games (`llamasim compare -g kadabra -p 4 climber chart showman threshold
    --games 20000 --seed 3 --threads 1`) the data cannot separate climber from chart (+0.0023 [-0.0068,
    +0.0115]) or showman (+0.0059 [-0.0031, +0.0148]). Weights: the Party values; a screen (`llamasim
    compare -g kadabra -p 4 climber:same=<v> showman --games 20000 --seed 3 --threads 1`) gave same=2
    (the default) +0.0203 [+0.0138, +0.0268], same=3 +0.0117 [+0.0056, +0.0177], same=1.5
    -0.0074 [-0.0140, -0.0008]. Tuning all eight parameters at once kept the defaults at 4 and 6 players
    (`llamasim tune -g kadabra --strategy climber -p N --vs self --budget 1000000 --seed 1 --threads 1`:
    67 candidates, 65 dropped as worse, the pick = the start).
    """
    a = showman_play(obs, hand, legal, params, rng)
    if obs[OBS_PHASE] != PHASE_TURN or a >= N_CODES or a != greedy_play(obs, legal):
        return a
    return climb_card(obs, hand, legal, a, params[7], CLIMB_TWO_UP, CLIMB_FAR_UP)


# --------------------------------------------------------------------------------------------
# expert: roll-outs of every legal action with a base strategy (``llama_sim.core.expert``)
# --------------------------------------------------------------------------------------------

from llama_sim.core.expert import (  # noqa: E402
    BASE_OPTIONS, Search, rollout_values, FORCED, base_rows, expert_choose, expert_params,
)
from llama_sim.rulesets.kadabra import expert as _kadabra_expert  # noqa: E402
from llama_sim.rulesets.kadabra.tables import OBS_TURN  # noqa: E402
from llama_sim.core.views import readonly  # noqa: E402 (the base gets the obs type policies are compiled for)

EXPERT_BASES = ("climber",)  # the strongest at 4-6 players; at 2 and 3 it plays as showman, the strongest there
EXPERT_ROWS = base_rows("kadabra", EXPERT_BASES, MAX_PLAYERS)
EXPERT_TABLES = _kadabra_expert.TABLES
_climber = njit(cache=True, **BASE_OPTIONS)(climber)


@njit(nogil=True, forceinline=True)  # compiled once and inlined by LLVM at each decision site of the
# round (inlined by Numba, it was copied into every one: half a minute of Kadabra's first expert compile)
def expert_decide(decide, policies, slot, obs, hand, legal, params, rng):
    """The roll-outs' player: the forced first action (none after a give the roll-out carried out
    itself: ``params[FORCED]`` -1), then the base strategy (``core.expert``)."""
    if obs[OBS_TURN] == 0 and params[FORCED] >= 0:
        return np.int64(params[FORCED])
    return _climber(readonly(obs), hand, legal, params, rng)


@strategy("kadabra", "expert",
          "Rolls out every legal action on the same samples of the unseen cards, everyone continuing with the "
          "base strategy, and takes the one with the fewest points for the round (its own minus the others' "
          "mean by default); whom to give a token to it leaves to the base strategy.",
          params=expert_params(EXPERT_BASES), search=True)
def expert(obs, hand, legal, params, rng):
    """A give-away target is the base strategy's choice (climber: the leader): every target costs the
    giver the same token and adds the same to the others' total, so the round's points cannot tell the
    targets apart and the roll-outs would choose by noise; the choice matters for the game."""
    row = EXPERT_ROWS[int(params[2]), obs[OBS_PLAYERS]]
    if obs[OBS_PHASE] == PHASE_GIVE:
        return _climber(obs, hand, legal, readonly(row), rng)
    return expert_choose(obs, hand, legal, params, rng, EXPERT_TABLES, _kadabra_expert.world,
                         _kadabra_expert.rollout, expert_decide, row)


@njit(cache=True, nogil=True)
def expert_values(obs, hand, legal, key, count, objective, base, out):
    """Roll-out values of every legal action (``llamasim grade``)."""
    rollout_values(obs, hand, legal, key, count, objective, EXPERT_TABLES, _kadabra_expert.world,
                   _kadabra_expert.rollout, expert_decide, EXPERT_ROWS[base, obs[OBS_PLAYERS]], out)


EXPERT_SEARCH = Search(expert_values, EXPERT_BASES)
