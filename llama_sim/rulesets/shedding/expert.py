"""The expert's roll-outs in the shedding games (``core.expert``): what the acting player has not seen
is the other hands and the draw pile, so a sample deals the unseen cards (the deck minus the own
hand and the discard pile, whose every card was seen when it was played) uniformly into the other
hands (their sizes are public) and the draw pile; the draws then come from that pile in random order.
The tables are the rule set's (``SheddingRules``), handed in by its strategies file's expert.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.scoring import largest_token
from llama_sim.core.expert import FORCED, RELATIVE, deal_hidden, not_asked
from llama_sim.core.views import copy_into
from llama_sim.rulesets.shedding.kernel import round_loop, seat_penalty
from llama_sim.rulesets.shedding.rules import (
    F_TOKENS20, MAX_SEATS, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_SEAT, OBS_TOP,
)

_O_QUIT = OBS_HAND_SIZES + MAX_SEATS
_O_SCORES = _O_QUIT + MAX_SEATS
_O_DISCARD = _O_SCORES + MAX_SEATS


@njit(cache=True, nogil=True, inline="always")
def world(tables, obs, hand):
    """``tables``: the rule set's (can_play_bits, extra_turn, code_penalty, twins, flags, deck_counts).
    Scratch for one decision's roll-outs: (unseen cards, sampled hands, hands, pile, discard, quit,
    scores, obs, sizes, held, bad, entry_of_seat, slot_of_entry, log, drng, prng, draw pile)."""
    deck_counts = tables[5]
    n = obs[OBS_PLAYERS]
    n_codes = deck_counts.shape[0]
    unseen_n = 0
    for c in range(n_codes):
        unseen_n += max(deck_counts[c] - hand[c] - obs[_O_DISCARD + c], 0)
    unseen = np.empty(unseen_n, np.int8)
    i = 0
    for c in range(n_codes):
        for _ in range(max(deck_counts[c] - hand[c] - obs[_O_DISCARD + c], 0)):
            unseen[i] = c
            i += 1
    return (unseen, np.zeros((n, n_codes), np.int64), np.zeros((n, n_codes), np.int64),
            np.zeros(unseen_n, np.int8), np.zeros(n_codes, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(obs.shape[0], np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(3, np.int64), np.zeros((1, n), np.int64),
            np.zeros(1, np.int64), np.zeros((0, 2), np.int64), np.zeros(2, np.uint64), np.zeros(2, np.uint64),
            np.zeros(unseen_n, np.int8))


@njit(cache=True, nogil=True, inline="always")
def rollout(tables, w, obs, hand, actions, k, key, i, row, decide, objective, out):
    """Sample ``i`` of the hidden cards, every action on it (``core.expert``)."""
    can_play_bits, extra_turn, code_penalty, twins, flags, _ = tables
    unseen, sampled, hands, pile, discard, quit, scores, obs2, sizes, held, bad, entry_of_seat, slot_of_entry, log, \
        drng, prng, rest_buf = w
    n = obs[OBS_PLAYERS]
    me = obs[OBS_SEAT]
    n_codes = can_play_bits.shape[0]
    pile_n = obs[OBS_DRAW_PILE]
    R.seed_from_key(drng, R.block_key(key, i), R.DEAL_STREAM)
    start = deal_hidden(unseen, hand, obs[OBS_HAND_SIZES:OBS_HAND_SIZES + n], n, me, pile_n, drng, sampled, pile)
    deck = pile[start:]
    rest = rest_buf[:deck.shape[0]]  # the sample's draw pile, restored for each action
    copy_into(rest, deck)
    for_draws = R.block_key(key, i) ^ np.uint64(0x5851F42D4C957F2D)
    allow20 = flags[F_TOKENS20] != 0
    for a in range(k):
        copy_into(hands, sampled)
        copy_into(deck, rest)
        for c in range(n_codes):
            discard[c] = obs[_O_DISCARD + c]
        for s in range(n):
            quit[s] = obs[_O_QUIT + s]
            scores[s] = obs[_O_SCORES + s]
        row[FORCED] = actions[a]
        R.seed_from_key(drng, for_draws, R.DEAL_STREAM)
        R.seed_from_key(prng, R.block_key(key, i), R.POLICY_STREAM)
        out_seat, _, _, turns, _ = round_loop(
            decide, can_play_bits, extra_turn, n, hands, deck, np.int64(0), obs[OBS_TOP], discard, quit, me, scores,
            (not_asked,), slot_of_entry, row.reshape(1, row.shape[0]), entry_of_seat, np.int64(0), prng, obs2, log,
            sizes, held, np.bool_(True), drng, bad)
        others = 0.0
        for s in range(n):
            points = -largest_token(scores[s], allow20) if s == out_seat else seat_penalty(hands, s, code_penalty, twins)
            if s == me:
                out[a] = points
            else:
                others += points
        if objective == RELATIVE:
            out[a] -= others / (n - 1)
