"""Strategies for LAMA Dice (``dice``). Observation layout and actions: ``llama_sim.rulesets.dice``.

The search player ``expert`` (roll-outs of every action with chart continuing, at the end of this file)
beats ``chart``, the strongest heuristic at 2 to 5 players: `llamasim compare --game dice --players 4
expert chart --games 4000 --seed 5` win rate +0.026 [+0.011, +0.041], penalty per round -0.26 [-0.34,
-0.17]; `--rounds 6000 --seed 3`: -0.40 [-0.51, -0.30].

Every policy is called for three kinds of decision, told apart by ``obs[OBS_PHASE]``: roll or quit
(PHASE_TURN), which dice to use for discarding (PHASE_DISCARD, legal actions DISCARD_BASE + mask),
which llama-row card to take (PHASE_TAKE, legal actions TAKE_BASE + code). ``hand`` is the player's own
row (count per code) and ``legal`` the bit mask of the legal actions.

``solo_optimal`` and the exact optimum inside Numba
----------------------------------------------------
Once every other player has quit (``obs[OBS_ACTIVE] == 1``) the llama row is frozen, the player's
row only shrinks and their score only goes down (three llamas return a token: 10s while the score
allows, then 1s), so the state is (row, score) and the optimum is the dynamic programme of
``llama_sim.rulesets.dice.solver``: what is minimised is the rest of the round's net change of the
score, the points of the row at its end less the tokens returned after three llamas and on going out
(quit value = row penalty; going out = minus the token returned; three llamas at score s > 0 = minus
the token plus the value one score level down; at score 0 the three-llama self-loop solved exactly).
So the choice depends on the score (``obs[OBS_SCORES + seat]``): a player holding a 10 rolls on more
readily, since going out returns it. In round mode every score is 0 and nothing is ever returned. A
policy has no memory between calls, so ``solo_optimal`` re-solves at each solo decision, in Numba,
over the sub-multisets of its current row, ``hand`` itself, at each score level from its score down
(``solo_values``: at most 1458 rows for the largest possible 13-card row, 64 for six different cards,
times at most 13 levels (score 39: 39, 29, 19, 9, 8, ..., 0); rolls that act alike on the row are
merged once for all levels). The roll outcomes of all 15 layouts are module-level constant tables
(``OUT_*``, grouped by the multiset of faces shown), indexed by ``obs[OBS_LAYOUT_ID]``; tests check
``solo_values`` and the policy's choices against ``llama_sim.rulesets.dice.solver``. Ties follow
``llama_sim.rulesets.dice.solver``: quit when quitting is as good as rolling (within 1e-12), and among
equally good discards the one discarding more cards (then the lowest mask). The effect of the score on
the rest of the game, after this round, is not valued.

Speed: the hot helpers are ``inline="always"`` (inlined at Numba IR level into each policy). A call
to a separately compiled function that takes arrays costs two atomic reference-count updates per
array, which measured at about half the cost of a whole ``threshold`` round.

Measured answer to the rulebook's "discard the llama or keep it?": see ``keep_llama`` and the
report of the dice work (at the table, discarding it is better; alone, ``solve dice --table``
lists the rolls after which the optimum keeps a matching card).
"""
import numpy as np
from numba import njit

from llama_sim.rulesets.dice.tables import LAYOUTS, LLAMA as _LLAMA, rolled_count_table
from llama_sim.rulesets.dice import (
    DISCARD_BASE, LAYOUT_NAMES, LLAMA, N_CODES, OBS_ACTIVE, OBS_DICE, OBS_LAYOUT_ID, OBS_LLAMA_ROW,
    OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROWS, OBS_SCORES, OBS_SEAT, PENALTY, PHASE_DISCARD, PHASE_TURN, QUIT,
    ROLL, TAKE_BASE,
)
from llama_sim.core.registry import strategy
from llama_sim.core.scoring import distinct_penalty, largest_token
from llama_sim.strategies._helpers import first_legal, lowest_bit, random_legal

assert _LLAMA == LLAMA
TIE_TOL = 1e-12


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline='always')
def max_discard_mask(obs, hand):
    """The mask discarding as many cards as the dice allow (for each die in order, use it while
    the row still holds an unused card of its value). Every code's discard is then maximal, so
    the highest-penalty cards are all among them."""
    m = 0
    for i in range(3):
        c = obs[OBS_DICE + i]
        used = 0
        for j in range(i):
            if (m >> j) & 1 and obs[OBS_DICE + j] == c:
                used += 1
        if hand[c] > used:
            m |= 1 << i
    return m


@njit(cache=True, inline='always')
def keep_llama_mask(obs, hand, keep, min_others):
    """The maximal discard, but keeping up to ``keep`` llama cards in the row while at least
    ``min_others`` other cards would remain after the discard. Never empty: when only llamas
    match, one llama is discarded."""
    m = max_discard_mask(obs, hand)
    others_left = 0
    for c in range(LLAMA):
        others_left += hand[c]
    llama_dice = 0
    for i in range(3):
        if (m >> i) & 1:
            if obs[OBS_DICE + i] == LLAMA:
                llama_dice += 1
            else:
                others_left -= 1
    if llama_dice == 0 or others_left < min_others:
        return m
    allowed = hand[LLAMA] - keep  # llama discards that still keep `keep` llamas
    if allowed < 0:
        allowed = 0
    for i in range(2, -1, -1):  # drop llama dice from the end until within the allowance
        if llama_dice > allowed and (m >> i) & 1 and obs[OBS_DICE + i] == LLAMA:
            if m == (1 << i):  # the last die left: a discard is compulsory
                break
            m &= ~(1 << i)
            llama_dice -= 1
    return m


@njit(cache=True, inline='always')
def lowest_take(legal):
    """Take the lowest-penalty card the roll allows from the llama row (the lowest legal take)."""
    takes = (legal >> TAKE_BASE) & ((1 << N_CODES) - 1)
    if takes == 0:
        return -1
    return TAKE_BASE + lowest_bit(takes)


@njit(cache=True, inline='always')
def row_penalty(hand):
    """Penalty of the own row ``hand``: each distinct value once, llamas 10."""
    return distinct_penalty(hand, PENALTY)


@njit(cache=True, inline='always')
def heuristic(obs, hand, legal, quit_at, keep, min_others):
    """Roll while the row's penalty exceeds ``quit_at`` (a row's penalty is at least 1, so
    quit_at < 0 never quits); discard the maximum (keeping llamas when ``keep`` > 0); take the
    lowest-penalty card."""
    phase = obs[OBS_PHASE]
    if phase == PHASE_TURN:
        if row_penalty(hand) <= quit_at:
            return QUIT
        return ROLL
    if phase == PHASE_DISCARD:
        if keep > 0:
            return DISCARD_BASE + keep_llama_mask(obs, hand, keep, min_others)
        return DISCARD_BASE + max_discard_mask(obs, hand)
    return lowest_take(legal)


# --------------------------------------------------------------------------------------------
# The exact solo phase in Numba
# --------------------------------------------------------------------------------------------


def _outcome_arrays():
    """Per layout: the non-three-llama rolls grouped by faces shown, as up to 3 (code, dice) pairs
    with integer weights out of 216, and the denominator 216 - weight(three llamas)."""
    tabs = [rolled_count_table(LAYOUTS[name]) for name in LAYOUT_NAMES]
    m_max = max(len(t) for t in tabs)
    n = len(tabs)
    count = np.zeros(n, np.int64)
    weight = np.zeros((n, m_max), np.int64)
    code = np.zeros((n, m_max, 3), np.int64)
    dice = np.zeros((n, m_max, 3), np.int64)
    denom = np.zeros(n, np.int64)
    for k, t in enumerate(tabs):
        denom[k] = t.total
        o = 0
        for rolled, w in zip(t.rolled, t.counts):
            if rolled[LLAMA] == 3:
                denom[k] -= int(w)
                continue
            weight[k, o] = w
            j = 0
            for c in range(N_CODES):
                if rolled[c] > 0:
                    code[k, o, j] = c
                    dice[k, o, j] = rolled[c]
                    j += 1
            o += 1
        count[k] = o
    return count, weight, code, dice, denom


OUT_COUNT, OUT_WEIGHT, OUT_CODE, OUT_DICE, OUT_DENOM = _outcome_arrays()
OUT_TOTAL = 216.0  # equally likely ordered rolls


@njit(cache=True, inline='always')
def _pen(sub, mask):
    p = 0
    for c in range(N_CODES):
        if sub[c] > 0 or (mask >> c) & 1:
            p += PENALTY[c]
    return p


@njit(cache=True)
def solo_values(row, lmask, layout_id, score):
    """Optimal values of every sub-multiset of ``row`` in the solo phase at ``score`` (llama row
    ``lmask``, bit c = code c present). Index of a sub-row: sum sub[c] * strides[c].

    Returns (strides, values, quit value of ``row``, roll value of ``row``: rolling once, then
    playing optimally, as ``llama_sim.rulesets.dice.solver``); values[0] is the empty row (went out):
    minus the token returned, ``-largest_token(score)``. The values of the lower score levels, which
    three llamas lead to, are solved first (from score 0 up) and dropped."""
    strides = np.empty(N_CODES, np.int64)
    acc = 1
    for c in range(N_CODES):
        strides[c] = acc
        acc *= row[c] + 1
    n = acc
    # Rolls that differ only in codes absent from the row act alike on every sub-row: merge them
    # (key: dice per present code, 2 bits each); rolls matching nothing are one drama weight.
    present = 0
    for c in range(N_CODES):
        if row[c] > 0:
            present |= 1 << c
    m_all = OUT_COUNT[layout_id]
    keys = np.zeros(m_all, np.int64)
    for o in range(m_all):
        for j in range(3):
            c = OUT_CODE[layout_id, o, j]
            if OUT_DICE[layout_id, o, j] > 0 and (present >> c) & 1:
                keys[o] += OUT_DICE[layout_id, o, j] << (2 * c)
    order = np.arange(m_all)  # sorted by key: an insertion sort (np.argsort adds seconds to the first compile)
    for i in range(1, m_all):
        o = order[i]
        j = i
        while j > 0 and keys[order[j - 1]] > keys[o]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = o
    codes = np.zeros((m_all, 3), np.int64)
    dice = np.zeros((m_all, 3), np.int64)
    weight = np.zeros(m_all, np.float64)
    drama_w = 0.0
    m = 0
    last = -1
    for i in range(m_all):
        o = order[i]
        key = keys[o]
        if key == 0:
            drama_w += OUT_WEIGHT[layout_id, o]
            continue
        if key != last:
            j = 0
            for c in range(N_CODES):
                k = (key >> (2 * c)) & 3
                if k > 0:
                    codes[m, j] = c
                    dice[m, j] = k
                    j += 1
            m += 1
            last = key
        weight[m - 1] += OUT_WEIGHT[layout_id, o]
    # The score levels three llamas lead to: score, score - token, ..., 0 (10s first, then 1s).
    levels = 1
    sc = score
    while sc > 0:
        sc -= largest_token(sc, False)
        levels += 1
    level_score = np.empty(levels, np.int64)
    sc = score
    for i in range(levels):
        level_score[i] = sc
        sc -= largest_token(sc, False)
    values = np.empty(n, np.float64)
    below = np.empty(n, np.float64)  # the level one token lower
    sub = np.zeros(N_CODES, np.int64)
    denom = float(OUT_DENOM[layout_id])
    lll_w = OUT_TOTAL - denom
    q = 0.0
    r = 0.0
    t = 0
    for level in range(levels - 1, -1, -1):
        values, below = below, values
        t = largest_token(level_score[level], False)
        values[0] = -float(t)
        for c in range(N_CODES):
            sub[c] = 0
        for s in range(1, n):
            c = 0
            while True:  # odometer: the next sub-row in index order
                sub[c] += 1
                if sub[c] > row[c]:
                    sub[c] = 0
                    c += 1
                else:
                    break
            q = float(_pen(sub, 0))
            drama = float(_pen(sub, lmask))
            total = drama_w * drama
            for o in range(m):
                c0 = codes[o, 0]
                c1 = codes[o, 1]
                c2 = codes[o, 2]
                a0 = min(dice[o, 0], sub[c0])
                a1 = min(dice[o, 1], sub[c1])
                a2 = min(dice[o, 2], sub[c2])
                if a0 + a1 + a2 == 0:
                    total += weight[o] * drama
                    continue
                best = np.inf
                for d0 in range(a0 + 1):
                    for d1 in range(a1 + 1):
                        for d2 in range(a2 + 1):
                            if d0 + d1 + d2 > 0:
                                v = values[s - d0 * strides[c0] - d1 * strides[c1] - d2 * strides[c2]]
                                if v < best:
                                    best = v
                total += weight[o] * best
            if t > 0:  # three llamas: the token returned, the same row one level down
                r = (lll_w * (below[s] - t) + total) / OUT_TOTAL
            else:
                r = total / denom
            values[s] = q if q <= r + TIE_TOL else r
    if t == 0 and q <= r + TIE_TOL:  # quitting is best: rolling once, the optimum quits after three llamas
        r = (lll_w * q + r * denom) / OUT_TOTAL
    return strides, values, q, r


@njit(cache=True, inline='always')
def _llama_mask(obs):
    """The llama row as a bit set (bit c: code c still there)."""
    lmask = 0
    for c in range(N_CODES):
        if obs[OBS_LLAMA_ROW + c] > 0:
            lmask |= 1 << c
    return lmask


@njit(cache=True, inline='always')
def _own_score(obs):
    """The deciding player's score now (three-llama returns already taken off)."""
    return obs[OBS_SCORES + obs[OBS_SEAT]]


@njit(cache=True, inline="always")
def solo_turn(obs, hand):
    """ROLL or QUIT, whichever is optimal alone at the player's score (QUIT on ties)."""
    _, _, q, r = solo_values(hand, np.int64(_llama_mask(obs)), obs[OBS_LAYOUT_ID], _own_score(obs))
    return ROLL if r < q - TIE_TOL else QUIT


@njit(cache=True, inline="always")
def solo_discard(obs, hand, legal):
    """The legal discard reaching the best sub-row at the player's score (ties: more cards, then the
    lowest mask; a discard leaves the score unchanged)."""
    strides, values, _, _ = solo_values(hand, np.int64(_llama_mask(obs)), obs[OBS_LAYOUT_ID], _own_score(obs))
    full = values.shape[0] - 1
    best_a = -1
    best_v = np.inf
    best_k = 0
    for m in range(1, 8):
        a = DISCARD_BASE + m
        if (legal >> a) & 1 == 0:
            continue
        idx = full
        k = 0
        for i in range(3):
            if (m >> i) & 1:
                idx -= strides[obs[OBS_DICE + i]]
                k += 1
        v = values[idx]
        if best_a < 0 or v < best_v - TIE_TOL:
            best_a = a
            best_v = v
            best_k = k
        elif v <= best_v + TIE_TOL:
            if k > best_k:
                best_a = a
                best_k = k
            if v < best_v:
                best_v = v
    return best_a


@njit(cache=True)
def solo_action(obs, hand, legal):
    """The exact optimum once everybody else has quit: roll or quit (``solo_turn``), the discard
    (``solo_discard``); a take step never comes alone (the rules skip it), the lowest take for form.
    Compiled once and called, with the two put in: one compiled function fewer in every first compile
    of a strategy that plays it."""
    phase = obs[OBS_PHASE]
    if phase == PHASE_TURN:
        return solo_turn(obs, hand)
    if phase == PHASE_DISCARD:
        return solo_discard(obs, hand, legal)
    return lowest_take(legal)


# --------------------------------------------------------------------------------------------
# Registered strategies
# --------------------------------------------------------------------------------------------


@strategy("dice", "always_quit", "Quits at its first decision.")
def always_quit(obs, hand, legal, params, rng):
    if (legal >> QUIT) & 1:
        return QUIT
    return first_legal(legal)


@strategy("dice", "random", "Uniformly random legal action (roll/quit, which dice, which card).")
def random(obs, hand, legal, params, rng):
    return random_legal(legal, rng)


@strategy("dice", "always_roll",
          "Never quits; discards as many cards as the dice allow, highest penalty first; takes the "
          "lowest-penalty card from the llama row.")
def always_roll(obs, hand, legal, params, rng):
    return heuristic(obs, hand, legal, -1.0, 0, 0)


@strategy("dice", "threshold",
          "As always_roll, but quits before rolling when its row's penalty is at most quit_at.",
          params={"quit_at": (10, 0, 100, "quit before rolling when the row's penalty <= quit_at")},
          presets={2: {"quit_at": 10}, 4: {"quit_at": 1}, 6: {"quit_at": 1}})
def threshold(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g dice --strategy threshold -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g dice -p N
    threshold:<preset> threshold:quit_at=10 --games 20000 --seed 5 --threads 1` (win-rate edge of the
    preset over the defaults, 95% paired interval): 2p: quit_at=10 (the default is best there); 4p:
    quit_at=1, +0.349 [+0.344, +0.354]; 6p: quit_at=1, +0.232 [+0.228, +0.235]. 3 and 5 players take the
    4- and 6-player preset (nearest count, ties to the larger)."""
    return heuristic(obs, hand, legal, params[0], 0, 0)


@strategy("dice", "keep_llama",
          "As threshold, but keeps `keep` llama cards in its row (a llama face shows on 6 of the 18 "
          "faces) whenever it can discard other cards instead and at least min_others other cards "
          "stay; goes out when it can. alone_only=1: keeps them only once everybody else has quit.",
          params={"quit_at": (10, 0, 100, "quit before rolling when the row's penalty <= quit_at"),
                  "keep": (1, 1, 7, "llama cards to keep in the row"),
                  "min_others": (1, 1, 13, "keep llamas only while at least this many other cards stay"),
                  "alone_only": (0, 0, 1, "1 = keep llamas only when alone in the round")})
def keep_llama(obs, hand, legal, params, rng):
    """No presets: tuning switches keeping off. `llamasim tune -g dice --strategy keep_llama -p N --vs self
    --budget 1000000 --seed 1 --threads 2` picked keep=4,min_others=8 at 2 players and
    keep=3,min_others=7,alone_only=1 at 4, which play exactly like `threshold` at the same quit_at
    (paired difference 0.000 [0.000, 0.000], experiments/dice-keep-llamas.toml); as presets they made a
    strategy named keep_llama that never keeps. What keeping one llama costs against discarding it, at
    the same quit threshold (reports/dice-keep-llamas, `llamasim run experiments/dice-keep-llamas.toml`,
    40000 games, win rate, paired 95% intervals): 2 players 0.075 [0.066, 0.084], 3: 0.020 [0.015,
    0.026], 4: 0.037 [0.033, 0.042], 5: 0.047 [0.043, 0.050], 6: 0.051 [0.047, 0.054]."""
    keep = int(params[1])
    if params[3] > 0 and obs[OBS_ACTIVE] > 1:
        keep = 0
    return heuristic(obs, hand, legal, params[0], keep, int(params[2]))


@strategy("dice", "solo_optimal",
          "Plays the exact optimum (solve dice) once everybody else has quit; before that, threshold "
          "with quit_at (keeping one llama as keep_llama does when keep_llama=1).",
          params={"quit_at": (10, 0, 100, "before being alone: quit when the row's penalty <= quit_at"),
                  "keep_llama": (0, 0, 1, "before being alone: 1 = keep one llama card (min_others=1)")},
          presets={2: {"quit_at": 8, "keep_llama": 1}, 4: {"quit_at": 2, "keep_llama": 0},
                   6: {"quit_at": 2, "keep_llama": 0}})
def solo_optimal(obs, hand, legal, params, rng):
    """Presets by player count, tuned with `llamasim tune -g dice --strategy solo_optimal -p N --vs self
    --budget 1000000 --seed 1 --threads 2` and checked on fresh deals with `llamasim compare -g dice -p N
    solo_optimal:<preset> solo_optimal:quit_at=10,keep_llama=0 --games 20000 --seed 5 --threads 1`
    (win-rate edge of the preset over the defaults, 95% paired interval): 2p: quit_at=8,keep_llama=1,
    +0.108 [+0.095, +0.121]; 4p: quit_at=2,keep_llama=0, +0.401 [+0.396, +0.405]; 6p:
    quit_at=2,keep_llama=0, +0.243 [+0.239, +0.246]. 3 and 5 players take the 4- and 6-player preset
    (nearest count, ties to the larger). These were measured while the solo phase still ignored token
    returns (alone it played the card-penalty optimum at every score); they were not re-measured since."""
    if obs[OBS_ACTIVE] == 1:
        return solo_action(obs, hand, legal)
    return heuristic(obs, hand, legal, params[0], int(params[1]), 1)


@njit(cache=True, inline='always')
def fewest_cards_of_others(obs):
    """The shortest row among the other players still in the round (99 when nobody else is in):
    a player whose row empties goes out, which ends the round with every row scored."""
    seat = obs[OBS_SEAT]
    fewest = 99
    for s in range(obs[OBS_PLAYERS]):
        if s != seat and obs[OBS_QUIT + s] == 0:
            size = 0
            for c in range(N_CODES):
                size += obs[OBS_ROWS + s * N_CODES + c]
            fewest = min(fewest, size)
    return fewest


@strategy("dice", "watcher",
          "threshold with an eye on the other rows: before rolling it quits at row penalty <= quit_at, but "
          "at <= danger_quit_at while another player still in has at most danger cards in their row (the "
          "round is about to end anyway); with solo=1 it plays the exact optimum once alone.",
          params={"quit_at": (1, 0, 100, "quit before rolling when the row's penalty <= quit_at"),
                  "danger": (2, 0, 13, "another player still in with at most this many row cards is about "
                                       "to go out"),
                  "danger_quit_at": (0, 0, 100, "quit threshold while another player is about to go out"),
                  "solo": (1, 0, 1, "1: once everybody else has quit, play the exact optimum (solo_optimal)")})
def watcher(obs, hand, legal, params, rng):
    """Stronger than the previous best at 4 players. The previous best, threshold with its 4-player preset
    (quit_at=1): `llamasim compare -g dice -p 4 threshold:quit_at=1
    keep_llama:quit_at=3,keep=3,min_others=7,alone_only=1 solo_optimal:quit_at=2,keep_llama=0 --games
    20000 --seed 3 --threads 1` gives threshold - solo_optimal +0.0105 [+0.0034, +0.0176] and threshold -
    keep_llama +0.030 [+0.023, +0.038] win rate. watcher against it: `llamasim compare -g dice -p 4
    watcher threshold --games 20000 --seed 31 --threads 1` +0.0084 [+0.0033, +0.0134]; in the four-way
    `llamasim compare -g dice -p 4 watcher threshold solo_optimal keep_llama --games 20000 --seed 31
    --threads 1` +0.0070 [-0.0015, +0.0155] over threshold (not separable there), +0.018 [+0.009, +0.027]
    over solo_optimal, +0.033 [+0.024, +0.041] over keep_llama.

    Why the danger rule reads 'keep rolling': while another row is down to two cards the round is about to
    end anyway, so quitting saves little and rolling may still empty the row. The first version (commit
    da2c19a) quit *more* readily then (at <= 10) and lost badly (`llamasim tune -g dice --strategy watcher
    -p 4 --vs threshold --budget 500000 --seed 1 --threads 1` at that commit: 0.091 win share against
    three thresholds).

    The defaults are the tuned values: `llamasim tune -g dice --strategy watcher -p 4 --vs threshold
    --budget 500000 --seed 1 --threads 1` found nothing better (its pick
    quit_at=0,danger=3,danger_quit_at=2,solo=1 was worse on fresh deals, -0.011 [-0.018, -0.004]);
    `llamasim compare -g dice -p 4 watcher:<values> threshold --games 10000 --seed 11 --threads 1`:
    danger=1 +0.004 [-0.002, +0.010], danger=2 (default) +0.0105 [+0.003, +0.018], danger=2,quit_at=3
    +0.003 [-0.005, +0.012], danger=3,quit_at=5 +0.009 [+0.001, +0.018].

    At 2 players (same defaults, no presets): against threshold +0.181 [+0.168, +0.194], against
    solo_optimal (its 2-player preset) +0.010 [-0.003, +0.024], not separable (`llamasim compare -g dice
    -p 2 watcher threshold|solo_optimal --games 20000 --seed 31 --threads 1`). At 6 players: against
    threshold +0.0024 [-0.0009, +0.0058], against solo_optimal +0.004 [-0.001, +0.009] and keep_llama
    +0.002 [-0.003, +0.006] (`llamasim compare -g dice -p 6 watcher solo_optimal keep_llama --games 20000
    --seed 31 --threads 1`), not separable.

    All of these were measured while the solo phase (solo=1) still ignored token returns; not re-measured since.
    """
    if obs[OBS_ACTIVE] == 1 and params[3] > 0:
        return solo_action(obs, hand, legal)
    limit = params[0]
    if obs[OBS_PHASE] == PHASE_TURN and fewest_cards_of_others(obs) <= params[1]:
        limit = params[2]
    return heuristic(obs, hand, legal, limit, 0, 1)


# --------------------------------------------------------------------------------------------
# chart: the roll-or-quit chart of the multi-player phase (``llamasim chart --game dice``)
# --------------------------------------------------------------------------------------------

from llama_sim.core.chart_data import (
    CARD_DESCRIPTION, CARD_PARAMS, NO_RULE, FEATURE_OPPONENT, MAX_HAND, bundled_document, chart_quits,
    tables_from_document, token_class,
)  # noqa: E402
from llama_sim.rulesets.dice import MAX_PLAYERS, MIN_PLAYERS

# The bundled chart (llama_sim/rulesets/dice/chart.json), frozen into the compiled policy as constants:
# CHART_QUIT[players - MIN_PLAYERS, token class, row points, bin] == 1 means quit (with another player
# still in); the bin is CHART_BIN_OF[the smallest row of another player still in] (or of the cards left
# in the llama row, for a chart of that feature: CHART_FEATURE, see chart_data).
CHART_QUIT, CHART_BIN_OF, CHART_FEATURE = tables_from_document(bundled_document("dice"), MIN_PLAYERS, MAX_PLAYERS)


@njit(cache=True, inline="always")
def quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, rule):
    """Alone: ``solo_optimal`` (the exact optimum). With others in: roll or quit as
    ``quit_table[token class, row points, bin_of[value]]`` says (1: quit), where the value is the cards
    left in the llama row (``feature`` 0) or the smallest row of another player still in (1); the
    discards and takes of ``threshold`` (as many cards as the dice allow; the lowest take)."""
    if obs[OBS_ACTIVE] == 1:
        return solo_action(obs, hand, legal)
    if obs[OBS_PHASE] != PHASE_TURN:
        return heuristic(obs, hand, legal, -1.0, 0, 0)
    seat = obs[OBS_SEAT]
    value = 0
    if feature == FEATURE_OPPONENT:
        value = min(MAX_HAND - 1, fewest_cards_of_others(obs))
    else:
        for c in range(N_CODES):
            value += obs[OBS_LLAMA_ROW + c]
    if chart_quits(quit_table, bin_of, rule, token_class(obs[OBS_SCORES + seat], False), row_penalty(hand), value):
        return QUIT
    return ROLL


@njit(cache=True, inline="always")
def chart_policy_action(obs, hand, legal, rng, quit_table, bin_of, feature):
    """``quit_chart_action`` with the chart's table deciding (what emitted chart strategies call)."""
    return quit_chart_action(obs, hand, legal, rng, quit_table, bin_of, feature, NO_RULE)


@strategy("dice", "chart",
          "Alone, solo_optimal; with others still in, rolls or quits as the bundled roll-or-quit chart says "
          "for its row points, the smallest row of another player still in and the token it would return "
          "(llamasim chart --game dice); discards and takes as threshold.")
def chart(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, CHART_QUIT[obs[OBS_PLAYERS] - MIN_PLAYERS], CHART_BIN_OF,
                               CHART_FEATURE)


@strategy("dice", "card", CARD_DESCRIPTION, params=CARD_PARAMS, family=True)
def card(obs, hand, legal, params, rng):
    """A quit card's rule (``llamasim card``): the chart's play, the rule deciding when stuck."""
    return quit_chart_action(obs, hand, legal, rng, CHART_QUIT[0], CHART_BIN_OF, FEATURE_OPPONENT, params)


# --------------------------------------------------------------------------------------------
# expert: roll-outs of every legal action with a base strategy (``llama_sim.core.expert``)
# --------------------------------------------------------------------------------------------

from llama_sim.core.expert import (  # noqa: E402
    BASE_OPTIONS, Search, rollout_values, BASE, FORCED, base_rows, expert_choose, expert_params,
)
from llama_sim.core.views import readonly  # noqa: E402 (the base gets the obs type policies are compiled for)
from llama_sim.rulesets.dice import expert as _dice_expert  # noqa: E402
from llama_sim.rulesets.dice import OBS_TURN  # noqa: E402

EXPERT_BASES = ("chart", "watcher")  # the strongest at 2-5 players, and at 6 (both play the exact optimum alone)
EXPERT_ROWS = base_rows("dice", EXPERT_BASES, MAX_PLAYERS)
EXPERT_TABLES = _dice_expert.TABLES
_chart = njit(cache=True, **BASE_OPTIONS)(chart)
_watcher = njit(cache=True, **BASE_OPTIONS)(watcher)


@njit(nogil=True, forceinline=True)  # compiled once and inlined by LLVM at each decision site of the
# round (inlined by Numba, it was copied into every one: half a minute of Kadabra's first expert compile)
def expert_decide(decide, policies, slot, obs, hand, legal, params, rng):
    """The roll-outs' player: the forced first action (none after a discard or take the roll-out
    carried out itself: ``params[FORCED]`` -1), then the base strategy (``core.expert``)."""
    if obs[OBS_TURN] == 0 and params[FORCED] >= 0:
        return np.int64(params[FORCED])
    if params[BASE] == 1:
        return _watcher(readonly(obs), hand, legal, params, rng)
    return _chart(readonly(obs), hand, legal, params, rng)


@strategy("dice", "expert",
          "Rolls out every legal action (roll or quit, which dice to discard, which card to take) on the same "
          "dice, everyone continuing with the base strategy, and takes the one with the fewest points for the "
          "round (its own minus the others' mean by default).",
          params=expert_params(EXPERT_BASES), presets={5: {"base": 0}, 6: {"base": 1}}, search=True)
def expert(obs, hand, legal, params, rng):
    """Of discards that discard the same cards (either of two dice showing the value) it considers the
    lowest mask only (``rulesets.dice.expert.distinct_actions``)."""
    return expert_choose(obs, hand, _dice_expert.distinct_actions(obs, legal), params, rng, EXPERT_TABLES, _dice_expert.world, _dice_expert.rollout,
                         expert_decide, EXPERT_ROWS[int(params[2]), obs[OBS_PLAYERS]])


@njit(cache=True, nogil=True)
def expert_values(obs, hand, legal, key, count, objective, base, out):
    """Roll-out values of every legal action (``llamasim grade``)."""
    rollout_values(obs, hand, legal, key, count, objective, EXPERT_TABLES, _dice_expert.world, _dice_expert.rollout,
                   expert_decide, EXPERT_ROWS[base, obs[OBS_PLAYERS]], out)


EXPERT_SEARCH = Search(expert_values, EXPERT_BASES)
