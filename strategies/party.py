"""Strategies for the L.A.M.A. Party Edition (``party``). Observation layout and actions:
``llama_sim.rulesets.party`` (codes 0..5 = 1..6, 6 = llama, 7..12 = plus cards +1..+6, 13 = pink).

``always_quit``, ``random``, ``greedy`` and ``threshold`` are L.A.M.A.'s baselines read for Party:
a plus card is played like its value (after the normal card of that value), the pink llama only
when nothing else fits.

``chain`` plays the new cards with intent. Each rule was measured against the same strategy
without it, in 4-player games (``llamasim compare --game party --players 4 <variant> chain --games
20000 --seed 1``: paired win-rate difference variant - chain, with its 95% interval):

- Plus cards: a plus card's extra turn is an obligation as much as a gift (with nothing to follow
  it forces a draw or a quit), so ``chain`` plays a plus card *first* when it holds a follow-up for
  it (a card of that value or one higher, not counting the pink llama), and a whole chain (+3, +4,
  ..., then a last card) when that empties its hand; otherwise it keeps greedy's order, which
  already holds a plus card back behind the normal card of its value. Without the plus-first
  rule (``plus_first=0``; the going-out chains stay) it loses -0.038 [-0.044, -0.031].
- Pink llama: saved as the escape card that always fits, played only when nothing else does.
  Dumping it early, as soon as an opponent still in is down to two cards (``pink_danger=2``),
  looked natural (held, it makes all llamas count 20) but costs -0.011 [-0.015, -0.007] win rate
  against ``chain``; at one card (``pink_danger=1``) the data cannot tell (-0.0025 [-0.0052, +0.0002]).
- Quitting when nothing fits weighs the token a player who goes out returns: under 10 points it
  quits at hand points <= ``quit_at`` (3), from 10 points on (going out would return a 10 or a 20)
  only at <= ``quit_at_10`` (0, i.e. it draws while it can). Never quitting (``quit_at=0``) costs
  -0.014 [-0.019, -0.009]; quitting at 8 whatever the score costs -0.133 [-0.139, -0.127].

Against ``greedy``: +0.073 [+0.066, +0.079] win rate and -0.99 [-1.03, -0.95] points per round;
against ``threshold``: +0.182 [+0.176, +0.188] win rate.

``climber`` is chain with one more rule about *which* card to play: while three or more opponents
are still in, it moves the top up (plays the next value rather than the top's value) when it holds
more cards above the top than at it. It beats chain at 4 to 6 players (+0.026 [+0.023, +0.029] win
rate at 4) and plays exactly as chain at 2 and 3; figures and what else was tried in its docstring.
"""
from numba import njit

from llama_sim.rulesets.party import (
    CAN_PLAY, DRAW, LLAMA, N_CODES, OBS_ACTIVE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_QUIT, OBS_SCORES, OBS_SEAT,
    OBS_TOP, PINK, PLUS, QUIT, VALUE_CLASS,
)
from llama_sim.core.registry import strategy
from llama_sim.strategies._helpers import climbs, lowest_bit, random_legal

N_CLASSES = 7
CARD_BITS = (1 << N_CODES) - 1  # the play actions' bits of ``legal``


@njit(cache=True, inline="always")
def hand_points(hand):
    """Party scoring of a count vector over codes: each value once (plus cards as their value),
    llamas 10, or 20 with the pink llama among them."""
    total = 0
    for v in range(6):
        if hand[v] + hand[PLUS + v] > 0:
            total += v + 1
    if hand[PINK] > 0:
        total += 20
    elif hand[LLAMA] > 0:
        total += 10
    return total


@njit(cache=True, inline="always")
def greedy_play(obs, legal):
    """A card of the top's value before one higher (the normal card before the plus card),
    the pink llama only when nothing else fits; -1 if no card fits."""
    t = VALUE_CLASS[obs[OBS_TOP]]
    for k in range(2):
        cls = (t + k) % N_CLASSES
        if (legal >> cls) & 1:  # the normal card of class cls has code cls (llama: 6)
            return cls
        if cls < 6 and (legal >> (PLUS + cls)) & 1:
            return PLUS + cls
    if (legal >> PINK) & 1:
        return PINK
    return -1


@strategy("party", "always_quit", "Quits at its first decision.")
def always_quit(obs, hand, legal, params, rng):
    return QUIT


@strategy("party", "random", "Uniformly random legal action.")
def random(obs, hand, legal, params, rng):
    return random_legal(legal, rng)


@strategy("party", "greedy",
          "Plays whenever it can (same value before one higher, normal before plus card, pink llama last), "
          "else draws, else quits.")
def greedy(obs, hand, legal, params, rng):
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> DRAW) & 1:
        return DRAW
    return QUIT


@strategy("party", "threshold",
          "As greedy, but when it cannot play it quits if its hand's points are at most quit_at, else draws.",
          params={"quit_at": (8, 0, 100, "quit when unable to play and hand points <= quit_at")},
          presets={2: {"quit_at": 8}, 4: {"quit_at": 1}, 6: {"quit_at": 2}})
def threshold(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g party --strategy threshold -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g party -p N
    threshold:<preset> threshold:quit_at=8 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=8 (the default); 4p: quit_at=1, +0.126
    [+0.120, +0.132]; 6p: quit_at=2, +0.046 [+0.042, +0.050]. 3 and 5 players take the 4- and 6-player
    preset (nearest count, ties to the larger)."""
    a = greedy_play(obs, legal)
    if a >= 0:
        return a
    if hand_points(hand) <= params[0] or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def fits_on(hand, top):
    """How many cards of ``hand`` may be played on ``top``."""
    k = 0
    for c in range(N_CODES):
        k += hand[c] * CAN_PLAY[top, c]
    return k


@njit(cache=True, inline="always")
def chain_empties_hand(hand, top):
    """Can a run of plus cards starting on ``top`` and ending with one last card empty ``hand``?
    (Plus cards are one per value, so from a top of value v the run is +v or +(v+1), then the
    next value up each time: at most two runs to try.)"""
    size = 0
    for c in range(N_CODES):
        size += hand[c]
    for first in range(2):
        h = hand.copy()
        t = top
        left = size
        start = (VALUE_CLASS[t] + first) % N_CLASSES
        if start == 6 or h[PLUS + start] == 0 or CAN_PLAY[t, PLUS + start] == 0:
            continue
        v = start
        while v < 6 and h[PLUS + v] > 0 and CAN_PLAY[t, PLUS + v] == 1 and left > 1:
            h[PLUS + v] -= 1
            left -= 1
            t = PLUS + v
            v += 1
        if left == 1 and fits_on(h, t) == 1:
            return PLUS + start
    return -1


@njit(cache=True, inline="always")
def min_opponent_cards(obs):
    n = obs[OBS_PLAYERS]
    me = obs[OBS_SEAT]
    low = 1000
    for s in range(n):
        if s != me and obs[OBS_QUIT + s] == 0 and obs[OBS_HAND_SIZES + s] < low:
            low = obs[OBS_HAND_SIZES + s]
    return low


@njit(cache=True, inline="always")
def class_count(hand, cls):
    """Cards held of value class ``cls`` (0..5 the values 1..6 with their plus card, 6 the normal llamas;
    the pink llama, which fits anywhere, is not counted)."""
    if cls == LLAMA:
        return hand[LLAMA]
    return hand[cls] + hand[PLUS + cls]


@njit(cache=True, inline="always")
def climb_card(obs, legal, hand, min_opponents, same, two_up, far_up):
    """climber's rule: with at least ``min_opponents`` opponents still in and a card of the top's value
    fitting, the card of the next value up (the normal card before the plus card) when
    n(+1) + two_up * n(+2) + far_up * (n(+3) + n(+4)) > same * n(0), where n(+k) is ``class_count`` of
    the value k steps above the top on the cycle 1..6, llama; -1 to keep greedy's card."""
    if obs[OBS_ACTIVE] - 1 < min_opponents:
        return -1
    t = VALUE_CLASS[obs[OBS_TOP]]
    up = (t + 1) % N_CLASSES
    if not ((legal >> t) & 1 or (t < LLAMA and (legal >> (PLUS + t)) & 1)):
        return -1
    card = -1
    if (legal >> up) & 1:
        card = up
    elif up < LLAMA and (legal >> (PLUS + up)) & 1:
        card = PLUS + up
    if card < 0:
        return -1
    if climbs(class_count(hand, t), class_count(hand, up), class_count(hand, (t + 2) % N_CLASSES),
              class_count(hand, (t + 3) % N_CLASSES) + class_count(hand, (t + 4) % N_CLASSES), same, two_up, far_up):
        return card
    return -1


@njit(cache=True, inline="always")
def chain_rules(obs, hand, legal, params, climb):
    """chain's decision (params: quit_at, quit_at_10, pink_danger, plus_first); with ``climb``, also
    climber's rule (``climb_card``, its parameters in params[4:8]) before greedy's card. Reads ``hand``
    in place (the engine's read-only row)."""
    top = obs[OBS_TOP]
    size = 0
    for c in range(N_CODES):
        size += hand[c]
    legal_cards = legal & CARD_BITS
    if legal_cards != 0:
        if size == 1:  # the last card: out
            return lowest_bit(legal_cards)
        run = chain_empties_hand(hand, top)
        if run >= 0:
            return run
        if (legal >> PINK) & 1 and obs[OBS_ACTIVE] > 1 and min_opponent_cards(obs) <= params[2]:
            return PINK
        # A plus card with a follow-up other than the pink llama: the one with the most follow-ups
        # (the follow-ups in the hand without that card: fits_on(hand, p) less the card itself).
        best, best_follow = -1, 0
        for v in range(6 if params[3] > 0 else 0):
            p = PLUS + v
            if (legal >> p) & 1:
                follow = fits_on(hand, p) - CAN_PLAY[p, p] - hand[PINK]
                if follow > best_follow:
                    best, best_follow = p, follow
        if best >= 0:
            return best
        if climb:
            up = climb_card(obs, legal, hand, params[4], params[5], params[6], params[7])
            if up >= 0:
                return up
        return greedy_play(obs, legal)  # the pink llama only if nothing else fits
    limit = params[0] if obs[OBS_SCORES + obs[OBS_SEAT]] < 10 else params[1]
    if hand_points(hand) <= limit or not (legal >> DRAW) & 1:
        return QUIT
    return DRAW


CHAIN_PARAMS = {
    "quit_at": (3, 0, 100, "quit when no card fits and hand points <= this (own score < 10)"),
    "quit_at_10": (0, 0, 100, "the same from a score of 10 on (going out would return a 10 or 20)"),
    "pink_danger": (0, 0, 6, "also play the pink llama at once when an opponent still in holds <= this many "
                             "cards (0: never early)"),
    "plus_first": (1, 0, 1, "1: a plus card with a follow-up before any other card; 0: greedy's order"),
}
CHAIN_PRESETS = {2: {"quit_at": 62, "quit_at_10": 7, "pink_danger": 1, "plus_first": 0},
                 4: {"quit_at": 3, "quit_at_10": 0, "pink_danger": 0, "plus_first": 1},
                 6: {"quit_at": 3, "quit_at_10": 0, "pink_danger": 0, "plus_first": 1}}
CHAIN_PRESET_NOTES = {2: "quit_at=62 is above any hand's points (41 at most, the pink llama's 20 included): "
                         "under 10 points it quits whenever no card fits; from 10 points on it draws unless its "
                         "hand is at most 7 points"}


@strategy("party", "chain",
          "Greedy's order, but a plus card that has a follow-up in hand comes first (whole chains when they "
          "empty the hand); the pink llama is saved until nothing else fits; when stuck it quits at hand "
          "points <= quit_at while under 10 points, <= quit_at_10 from 10 points on, else draws.",
          params=CHAIN_PARAMS, presets=CHAIN_PRESETS, preset_notes=CHAIN_PRESET_NOTES)
def chain(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g party --strategy chain -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g party -p N
    chain:<preset> chain:quit_at=3,quit_at_10=0,pink_danger=0,plus_first=1 --games 20000 --seed 5
    --threads 1` (win-rate edge of the preset over the defaults, 95% paired interval): 2p:
    quit_at=62,quit_at_10=7,pink_danger=1,plus_first=0, +0.107 [+0.094, +0.119]; 4p and 6p: the defaults
    (tuning kept them). 3 and 5 players take the 4- and 6-player preset (nearest count, ties to the
    larger).

    The previous best at 4 players (`llamasim compare -g party -p 4 threshold:quit_at=1 chain greedy
    --games 20000 --seed 3 --threads 1`: chain - threshold +0.067 [+0.059, +0.074] win rate). Tried to
    beat it (`llamasim compare -g party -p 4 watcher:<values> chain --games 10000 --seed 11 --threads 1`,
    watcher in commit f4315f4: chain, but when no card fits while an opponent still in holds <= danger
    cards it draws): danger=1 -0.008 [-0.013, -0.003], danger=2 -0.008 [-0.014, -0.001].
    """
    return chain_rules(obs, hand, legal, params, False)


CLIMBER_PARAMS = {
    **CHAIN_PARAMS,
    "min_opponents": (3, 1, 6, "climb only while at least this many opponents are still in"),
    "same": (2, 0, 8, "weight of the cards held of the top's value"),
    "two_up": (1, 0, 4, "weight of the cards held two values above the top"),
    "far_up": (0.3, 0, 2, "weight of the cards held three and four values above the top"),
}


@strategy("party", "climber",
          "chain, but while at least min_opponents opponents are still in it moves the top up (plays the next "
          "value instead of the top's value) when it holds more cards above the top than at it: "
          "n(+1) + two_up*n(+2) + far_up*(n(+3) + n(+4)) > same*n(0).",
          params=CLIMBER_PARAMS, presets=CHAIN_PRESETS, preset_notes=CHAIN_PRESET_NOTES)
def climber(obs, hand, legal, params, rng):
    """Beats ``chain``, the previous best, at 4, 5 and 6 players; at 2 and 3 players it plays exactly
    as chain (the climbing rule needs three opponents in the round; the presets are chain's).

    The rule: chain's card choice (going-out chains, a plus card with a follow-up first, the pink
    llama saved), but where greedy's order would play a card of the top's value, climber plays the
    next value up instead when n(+1) + two_up n(+2) + far_up (n(+3) + n(+4)) > same n(0), where n(+k)
    counts the cards held k values above the top on the cycle 1..6, llama (a plus card as its value,
    the pink llama not at all); e.g. on a 3 holding 3 4 4 5 it plays a 4, holding 3 3 4 5 a 3. A
    reading, not measured apart: with three or more opponents in, the top can move up several values
    between two of its turns, so cards held in numbers above the top are the ones at risk of being
    passed, and a lone card of the top's value is worth less than keeping pace with them.

    Measured on fresh deals (seeds not used while searching), paired win-rate difference climber -
    chain with its 95% interval, `llamasim compare --game party --players N climber chain --games
    100000 --seed 101 --view paired --threads 1`: 4p +0.0260 [+0.0230, +0.0290] (and -0.228 [-0.253,
    -0.202] points per round); 5p +0.0229 [+0.0205, +0.0252]; 6p +0.0214 [+0.0193, +0.0234]; 2p and
    3p +0.0000 (the same decisions). Against the quit chart (`... -p 4 climber chart`, same run
    size and seed): +0.0275 [+0.0245, +0.0306]. In one four-way table (`llamasim compare -g party -p 4
    climber chain threshold greedy --games 20000 --seed 3 --threads 1`): climber - chain +0.0235
    [+0.0133, +0.0337], - threshold +0.0961 [+0.0864, +0.1057], - greedy +0.0891 [+0.0795, +0.0987].

    Each part, against climber itself (`llamasim compare -g party -p 4 climber:<value> climber --games
    40000 --seed 5 --threads 1`): same=1 -0.046 [-0.051, -0.042], same=3 -0.017 [-0.022, -0.012],
    two_up=0 -0.015 [-0.019, -0.010], two_up=2 -0.011 [-0.015, -0.007], far_up=0 -0.018 [-0.022,
    -0.013], far_up=1 -0.0035 [-0.0078, +0.0008], min_opponents=2 -0.0019 [-0.0043, +0.0005],
    plus_first=0 -0.049 [-0.053, -0.044]; chain's quit values stay best (quit_at=2 +0.0001 [-0.0034,
    +0.0036], quit_at=4 -0.0037 [-0.0072, -0.0002], quit_at_10=1 -0.0041 [-0.0065, -0.0017]) and so
    does keeping the pink llama (pink_danger=1 -0.0001 [-0.0023, +0.0022]). The weights came from
    screens against chain; a race over all eight parameters (`llamasim tune -g party --strategy
    climber -p 4 --vs chain --budget 10000000 --seed 7 --threads 1`) kept the defaults and dropped 65
    of its 67 candidates as worse. Climbing with fewer opponents in does not pay (`llamasim compare -g
    party -p N climber:min_opponents=M chain --games 40000 --seed 3 --threads 1`): at 2 players with
    one opponent, -0.279 [-0.287, -0.271]; at 3 players with two, +0.0034 [-0.0024, +0.0093].

    Other ideas tried against chain at 4 players, with the commands in
    ``benchmarks/party_climber_search.py`` (its strategies load with --strategies-file), none kept:
    choosing the card by the points it sheds (-0.112 [-0.118, -0.105]); shedding points once an
    opponent still in holds one card (+0.010 over chain where the same strategy without it gives
    +0.021); playing the pink llama early while holding 1, 2 or 3 cards that follow it (-0.022
    [-0.028, -0.016], -0.010 [-0.015, -0.006], -0.0020 [-0.0047, +0.0007]); quitting more readily
    the further the top is from the nearest held card (-0.025 [-0.032, -0.019] at every score, though
    -0.15 points per round; under 10 points only, +0.0021 [-0.0045, +0.0087] where the same strategy
    without it gives +0.0048 [-0.0009, +0.0106]); quitting at <= 3
    points from a score of 20 (-0.016 [-0.020, -0.012]).
    """
    return chain_rules(obs, hand, legal, params, True)


# --------------------------------------------------------------------------------------------
# chart: a quit chart (``llamasim chart``) as a strategy
# --------------------------------------------------------------------------------------------

import numpy as np  # noqa: E402

from llama_sim.core.chart_data import (
    CARD_DESCRIPTION, CARD_PARAMS, NO_RULE, FEATURE_OPPONENT, MAX_HAND, bundled_document, chart_quits,
    tables_from_document, token_class,
)  # noqa: E402
from llama_sim.rulesets.party import MAX_PLAYERS, MIN_PLAYERS, OBS_DRAW_PILE  # noqa: E402

# chain's rules as an inlinable function, with its default parameters, for its card choice.
_chain_rule = njit(cache=True, inline="always")(chain)
CHAIN_DEFAULTS = np.array([3.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])

# The bundled chart (llama_sim/rulesets/party/chart.json), frozen into the compiled policy as constants:
# CHART_QUIT[players - MIN_PLAYERS, token class, hand points, bin] == 1 means quit when stuck; the bin
# is CHART_BIN_OF[the smallest hand of an opponent still in] (or of the cards left in the draw pile,
# for a chart of that feature: CHART_FEATURE, see chart_data).
CHART_QUIT, CHART_BIN_OF, CHART_FEATURE = tables_from_document(bundled_document("party"), MIN_PLAYERS, MAX_PLAYERS)


@njit(cache=True, inline="always")
def quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, rule):
    """chain's card; when no card fits and drawing is legal, the chart's choice
    ``quit_table[token class, hand points, bin_of[value]]`` (1: quit), where the value is the cards left
    in the draw pile (``feature`` 0) or the smallest hand of an opponent still in (1)."""
    a = _chain_rule(obs, hand, legal, CHAIN_DEFAULTS, rng)
    if a < DRAW:
        return a
    if not (legal >> DRAW) & 1:
        return QUIT
    t = token_class(obs[OBS_SCORES + obs[OBS_SEAT]], True)
    value = obs[OBS_DRAW_PILE]
    if feature == FEATURE_OPPONENT:
        value = min(MAX_HAND - 1, min_opponent_cards(obs))
    if chart_quits(quit_table, bin_of, rule, t, hand_points(hand), value):
        return QUIT
    return DRAW


@njit(cache=True, inline="always")
def chart_policy_action(obs, hand, legal, rng, quit_table, bin_of, feature):
    """``quit_chart_action`` with the chart's table deciding (what emitted chart strategies call)."""
    return quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, NO_RULE)


@strategy("party", "chart",
          "Plays chain's cards; when no card fits it quits or draws as the bundled quit chart says for its hand "
          "points, the smallest hand of an opponent still in and the token it would return (llamasim chart).")
def chart(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, CHART_QUIT[obs[OBS_PLAYERS] - MIN_PLAYERS], CHART_BIN_OF,
                               CHART_FEATURE)


@strategy("party", "card", CARD_DESCRIPTION, params=CARD_PARAMS, family=True)
def card(obs, hand, legal, params, rng):
    """A quit card's rule (``llamasim card``): the chart's play, the rule deciding when stuck."""
    return quit_chart_action(obs, hand, legal, rng, CHART_QUIT[0], CHART_BIN_OF, FEATURE_OPPONENT, params)


# --------------------------------------------------------------------------------------------
# expert: roll-outs of every legal action with a base strategy (``llama_sim.core.expert``)
# --------------------------------------------------------------------------------------------

from llama_sim.core.expert import (  # noqa: E402
    BASE_OPTIONS, Search, rollout_values, FORCED, base_rows, expert_choose, expert_params,
)
from llama_sim.core.views import readonly  # noqa: E402 (the base gets the obs type policies are compiled for)
from llama_sim.rulesets import party as _rules  # noqa: E402
from llama_sim.rulesets.shedding import expert as _shedding_expert  # noqa: E402

EXPERT_BASES = ("climber",)  # the strongest at every count (at 2 and 3 players it plays as chain)
EXPERT_ROWS = base_rows("party", EXPERT_BASES, MAX_PLAYERS)
EXPERT_TABLES = (_rules.CAN_PLAY_BITS, _rules.EXTRA_TURN, _rules.CODE_PENALTY, _rules.TWINS, _rules.FLAGS,
                 np.bincount(_rules.DECK.astype(np.int64), minlength=_rules.N_CODES))
_climber = njit(cache=True, **BASE_OPTIONS)(climber)


@njit(nogil=True, forceinline=True)  # compiled once and inlined by LLVM at each decision site of the
# round (inlined by Numba, it was copied into every one: half a minute of Kadabra's first expert compile)
def expert_decide(decide, policies, slot, obs, hand, legal, params, rng):
    """The roll-outs' player: the forced first action, then the base strategy (``core.expert``)."""
    if obs[_rules.OBS_TURN] == 0:
        return np.int64(params[FORCED])
    return _climber(readonly(obs), hand, legal, params, rng)


@strategy("party", "expert",
          "Rolls out every legal action on the same samples of the unseen cards, everyone continuing with the "
          "base strategy, and takes the one with the fewest points for the round, relative to the others' mean (objective=1).",
          params=expert_params(EXPERT_BASES), search=True)
def expert(obs, hand, legal, params, rng):
    return expert_choose(obs, hand, legal, params, rng, EXPERT_TABLES, _shedding_expert.world,
                         _shedding_expert.rollout, expert_decide, EXPERT_ROWS[int(params[2]), obs[_rules.OBS_PLAYERS]])


@njit(cache=True, nogil=True)
def expert_values(obs, hand, legal, key, count, objective, base, out):
    """Roll-out values of every legal action (``llamasim grade``)."""
    rollout_values(obs, hand, legal, key, count, objective, EXPERT_TABLES, _shedding_expert.world,
                   _shedding_expert.rollout, expert_decide, EXPERT_ROWS[base, obs[_rules.OBS_PLAYERS]], out)


EXPERT_SEARCH = Search(expert_values, EXPERT_BASES)
