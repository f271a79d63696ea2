"""The expert's roll-outs in Llama Kadabra (``core.expert``): what the acting player has not seen is
the other hands and the draw pile. A sample deals the unseen cards (the round's cards,
``obs[OBS_DECK:]``, minus the own hand and the discard pile, whose every card was seen when it was
played) uniformly into the other hands (their sizes are public) and the draw pile; the draws then
come from that pile in random order, the same for every action of a sample. Everything else is public
and in ``obs``: tokens of every seat, the stage, the magic token's place, a running show, the rule
variant (``obs[OBS_NO_SHOW]``).

Where a roll-out starts: a turn or a show decision is the start of that seat's turn, so the round
loop (``kernel.play_core_with``) starts there with the acting seat forced to the action at its first
decision. A give-away target is chosen in the middle of a card's play: the roll-out carries the give
out itself (``kernel.give_lowest``), ends the card's play as the kernel does (show check, the round
ends on a last card) and starts the loop at the next seat with no forced action (``row[FORCED]`` -1).

A roll-out's value is each seat's change of token total (1s + 10s) over the rest of the round, the
end-of-round scoring by ``kernel.score_round`` included: what ``compare`` counts as the round's penalty.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.expert import FORCED, RELATIVE, deal_hidden, not_asked
from llama_sim.core.views import copy_into
from llama_sim.rulesets.kadabra.kernel import WORK_LEN, give_lowest, play_core_with, score_round, show_check
from llama_sim.rulesets.kadabra.tables import (
    B_MAGIC, B_NO_SHOW, B_POS, B_SHOW, B_STAGE_ONES, B_STAGE_TENS, B_TOP, BOARD_LEN, DEFAULT_COUNTS, GIVE,
    N_CODES, OBS_DECK, OBS_DISCARD, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_MAGIC, OBS_NO_SHOW, OBS_ONES, OBS_PHASE,
    OBS_PLAYERS, OBS_QUIT, OBS_SEAT, OBS_SHOW, OBS_STAGE_ONES, OBS_STAGE_TENS, OBS_TENS, OBS_TOP, PHASE_GIVE,
)

TABLES = (DEFAULT_COUNTS.astype(np.int64),)  # the deck a hand-made observation without OBS_DECK stands for


@njit(cache=True, nogil=True, inline="always")
def world(tables, obs, hand):
    """``tables``: (the default deck's counts,), used only when ``obs[OBS_DECK:]`` is empty (an
    observation made by hand). Scratch for one decision's roll-outs: (unseen cards, sampled hands,
    hands, pile, discard, quit, ones, tens, board, points, obs, log, bad, work, entry_of_seat,
    slot_of_entry, drng, prng, draw pile)."""
    n = obs[OBS_PLAYERS]
    total = 0
    for c in range(N_CODES):
        total += obs[OBS_DECK + c]
    unseen_n = 0
    for c in range(N_CODES):
        count = obs[OBS_DECK + c] if total > 0 else tables[0][c]
        unseen_n += max(count - hand[c] - obs[OBS_DISCARD + c], 0)
    unseen = np.empty(unseen_n, np.int64)
    i = 0
    for c in range(N_CODES):
        count = obs[OBS_DECK + c] if total > 0 else tables[0][c]
        for _ in range(max(count - hand[c] - obs[OBS_DISCARD + c], 0)):
            unseen[i] = c
            i += 1
    return (unseen, np.zeros((n, N_CODES), np.int64), np.zeros((n, N_CODES), np.int64),
            np.zeros(unseen_n, np.int64), np.zeros(N_CODES, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(BOARD_LEN, np.int64), np.zeros(n, np.int64),
            np.zeros(obs.shape[0], np.int64), np.zeros((0, 2), np.int64), np.zeros(3, np.int64),
            np.zeros(WORK_LEN, np.int64), np.zeros(n, np.int64), np.zeros(1, np.int64), np.zeros(2, np.uint64),
            np.zeros(2, np.uint64), np.zeros(unseen_n, np.int64))


@njit(cache=True, nogil=True, inline="always")
def rollout(tables, w, obs, hand, actions, k, key, i, row, decide, objective, out):
    """Sample ``i`` of the hidden cards, every action on it (``core.expert``)."""
    unseen, sampled, hands, pile, discard, quit, ones, tens, board, points, obs2, log, bad, work, entry_of_seat, \
        slot_of_entry, drng, prng, rest_buf = w
    n = obs[OBS_PLAYERS]
    me = obs[OBS_SEAT]
    pile_n = obs[OBS_DRAW_PILE]
    R.seed_from_key(drng, R.block_key(key, i), R.DEAL_STREAM)
    start = deal_hidden(unseen, hand, obs[OBS_HAND_SIZES:OBS_HAND_SIZES + n], n, me, pile_n, drng, sampled, pile)
    deck = pile[start:]
    rest = rest_buf[:deck.shape[0]]  # the sample's draw pile, restored for each action
    copy_into(rest, deck)
    for_draws = R.block_key(key, i) ^ np.uint64(0x5851F42D4C957F2D)
    params = row.reshape(1, row.shape[0])
    give = obs[OBS_PHASE] == PHASE_GIVE
    for a in range(k):
        copy_into(hands, sampled)
        copy_into(deck, rest)
        for c in range(N_CODES):
            discard[c] = obs[OBS_DISCARD + c]
        for s in range(n):
            quit[s] = obs[OBS_QUIT + s]
            ones[s] = obs[OBS_ONES + s]
            tens[s] = obs[OBS_TENS + s]
        board[B_POS] = 0
        board[B_TOP] = obs[OBS_TOP]
        board[B_STAGE_ONES] = obs[OBS_STAGE_ONES]
        board[B_STAGE_TENS] = obs[OBS_STAGE_TENS]
        board[B_MAGIC] = obs[OBS_MAGIC]
        board[B_SHOW] = obs[OBS_SHOW]
        board[B_NO_SHOW] = obs[OBS_NO_SHOW]
        R.seed_from_key(drng, for_draws, R.DEAL_STREAM)
        R.seed_from_key(prng, R.block_key(key, i), R.POLICY_STREAM)
        out_seat = -1
        first = me
        row[FORCED] = actions[a]
        if give:  # the give, then the end of the card's play (the top card is the card played)
            give_lowest(me, actions[a] - GIVE, ones, tens, board, obs2)
            show_check(board, obs[OBS_TOP])
            row[FORCED] = -1
            first = me + 1 if me + 1 < n else 0
            if obs[OBS_HAND_SIZES + me] == 0:  # it was the last card: the round ends
                board[B_SHOW] = 0
                out_seat = me
        if out_seat < 0:
            out_seat, _, _ = play_core_with(decide, n, hands, deck, discard, quit, ones, tens, board, first,
                                            (not_asked,), slot_of_entry, params, entry_of_seat, prng, drng,
                                            np.bool_(True), obs2, log, bad, work)
        score_round(n, hands, out_seat, ones, tens, board, points)
        others = 0.0
        for s in range(n):
            points_s = ones[s] + 10 * tens[s] - obs[OBS_ONES + s] - 10 * obs[OBS_TENS + s]
            if s == me:
                out[a] = points_s
            else:
                others += points_s
        if objective == RELATIVE:
            out[a] -= others / (n - 1)
