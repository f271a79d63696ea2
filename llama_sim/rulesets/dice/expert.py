"""The expert's roll-outs in LAMA Dice (``core.expert``): nothing is hidden (every row, the llama row,
who has quit, the scores and the layout are in ``obs``), only the dice are to come. A sample is a
dice stream (and a policy stream), the same for every action of the sample, so the actions are
compared on the same rolls as far as they roll alike.

Where a roll-out starts: a roll-or-quit decision is the start of the seat's turn, so the round loop
(``kernel.play_core_with``) starts there with the acting seat forced to the action at its first
decision. A discard or a take is chosen after the roll, in the middle of the turn, where the loop
cannot start: the roll-out carries the chosen discard or take out itself (``kernel.discard_dice``,
``kernel.take_card``, the rolled faces in ``obs[OBS_DICE:]``), ends the round as the kernel would
(the row emptied: went out; the llama row emptied) and otherwise starts the loop at the next seat,
with no forced action (``row[FORCED]`` -1): the turn is over, and the next turn is a turn boundary.

A roll-out's value is each seat's score change over the rest of the round: the three-llama returns
the loop takes off the scores, then ``kernel.score_dice_round`` (the round's points, the token
returned for going out), as the kernel scores a round.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.expert import FORCED, RELATIVE, not_asked
from llama_sim.rulesets.dice.codes import (
    DISCARD_BASE, END_LLAMA_ROW, END_OUT, N_CODES, OBS_DICE, OBS_FACES, OBS_LAYOUT_ID, OBS_LLAMA_ROW,
    OBS_DISCARDED, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROWS, OBS_SCORES, OBS_SEAT, PHASE_DISCARD, PHASE_TAKE,
    TAKE_BASE,
)
from llama_sim.rulesets.dice.kernel import discard_dice, play_core_with, score_dice_round, take_card

TABLES = (np.zeros(0, np.int64),)  # (nothing: the layout is in the observation)
CFG_LEN = 19  # the kernel's cfg: layout id, 18 faces


@njit(cache=True, nogil=True, inline="always")
def distinct_actions(obs, legal):
    """``legal`` without the discards that discard the same cards as a lower mask (two dice showing the
    same value, one card of it in the row: either die): they lead to the same state, so the search
    would only split its samples between equals, and equal columns never let its stop rule stop."""
    if obs[OBS_PHASE] != PHASE_DISCARD:
        return legal
    seen = np.zeros(8, np.int64)
    n_seen = 0
    out = legal
    for m in range(1, 8):
        if (legal >> (DISCARD_BASE + m)) & 1 == 0:
            continue
        key = 0  # the cards discarded, as counts per code (2 bits each)
        for d in range(3):
            if (m >> d) & 1:
                key += 1 << (2 * obs[OBS_DICE + d])
        dup = False
        for j in range(n_seen):
            if seen[j] == key:
                dup = True
        if dup:
            out &= ~(1 << (DISCARD_BASE + m))
        else:
            seen[n_seen] = key
            n_seen += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def world(tables, obs, hand):
    """Scratch for one decision's roll-outs: (rows, llama row, discarded, quit, scores, returned, cfg,
    obs, log, bad, entry_of_seat, slot_of_entry, dice rng, policy rng); ``cfg`` is the layout read from
    ``obs``."""
    n = obs[OBS_PLAYERS]
    cfg = np.zeros(CFG_LEN, np.int64)
    cfg[0] = obs[OBS_LAYOUT_ID]
    for j in range(CFG_LEN - 1):
        cfg[1 + j] = obs[OBS_FACES + j]
    return (np.zeros((n, N_CODES), np.int64), np.zeros(N_CODES, np.int64), np.zeros(N_CODES, np.int64),
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), cfg,
            np.zeros(obs.shape[0], np.int64), np.zeros((0, 3), np.int64), np.zeros(3, np.int64),
            np.zeros(n, np.int64), np.zeros(1, np.int64), np.zeros(2, np.uint64), np.zeros(2, np.uint64))


@njit(cache=True, nogil=True, inline="always")
def rollout(tables, w, obs, hand, actions, k, key, i, row, decide, objective, out):
    """Sample ``i`` of the dice, every action on it (``core.expert``)."""
    rows, llama_row, discarded, quit, scores, returned, cfg, obs2, log, bad, entry_of_seat, slot_of_entry, \
        drng, prng = w
    n = obs[OBS_PLAYERS]
    me = obs[OBS_SEAT]
    phase = obs[OBS_PHASE]
    params = row.reshape(1, row.shape[0])
    after_me = me + 1 if me + 1 < n else 0
    for a in range(k):
        for s in range(n):
            for c in range(N_CODES):
                rows[s, c] = obs[OBS_ROWS + N_CODES * s + c]
            quit[s] = obs[OBS_QUIT + s]
            scores[s] = obs[OBS_SCORES + s]
            returned[s] = 0
        llama_left = 0
        for c in range(N_CODES):
            llama_row[c] = obs[OBS_LLAMA_ROW + c]
            discarded[c] = obs[OBS_DISCARDED + c]
            llama_left += llama_row[c]
        R.seed_from_key(drng, R.block_key(key, i), R.DICE_STREAM)
        R.seed_from_key(prng, R.block_key(key, i), R.POLICY_STREAM)
        end = -1
        last_actor = me
        first = me
        row[FORCED] = actions[a]
        if phase == PHASE_DISCARD:
            row[FORCED] = -1
            first = after_me
            if discard_dice(me, actions[a] - DISCARD_BASE, obs[OBS_DICE], obs[OBS_DICE + 1], obs[OBS_DICE + 2],
                            rows, discarded, obs2) == 0:
                end = END_OUT
        elif phase == PHASE_TAKE:
            row[FORCED] = -1
            first = after_me
            take_card(me, actions[a] - TAKE_BASE, rows, llama_row, obs2)
            if llama_left == 1:
                end = END_LLAMA_ROW
        if end < 0:
            end, last_actor, _ = play_core_with(decide, n, rows, llama_row, discarded, quit, first, scores,
                                                returned, cfg, (not_asked,), slot_of_entry, params, entry_of_seat,
                                                prng, drng, obs2, log, bad)
        score_dice_round(n, rows, end, last_actor, scores)
        others = 0.0
        for s in range(n):
            points = scores[s] - obs[OBS_SCORES + s]
            if s == me:
                out[a] = points
            else:
                others += points
        if objective == RELATIVE:
            out[a] -= others / (n - 1)
