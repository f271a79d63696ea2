"""The Llama Kadabra Numba kernel: the same rules as ``reference.py``, fast.

State of a round, all explicit arrays (a kernel plays from any position, a deal is one of them):
``hands`` (n, 36) counts, ``deck`` (the draw pile is ``deck[board[B_POS]:]``), ``discard`` (36)
counts, ``quit`` (n), ``ones``/``tens`` (n) tokens held, ``board`` (``BOARD_LEN``): draw position,
top card kind, stage 1s, stage 10s, the magic token's place, show flag. The observation is kept up
to date incrementally; the policy is called with the same arrays the reference engine builds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import rng as R
from ..common import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, RUN_BLOCKS_SIG, accumulate, add_seat, win_units
from ...jit import Kernel
from .tables import (
    B_MAGIC, B_POS, B_SHOW, B_STAGE_ONES, B_STAGE_TENS, B_TOP, BOARD_LEN, CODE_KIND, CODE_SYMBOL, CODE_VALUES,
    COLLECT, DRAW,
    GIVE, HAND_SIZE, LLAMA, LLAMA_CODES, MAGIC_POINTS, MAGIC_POOL, MAGIC_STAGE, MAX_PLAYERS, N_ACTIONS, N_CODES,
    OBS_ACTIVE, OBS_DISCARD, OBS_DRAW_PILE, OBS_HAND, OBS_HAND_SIZES, OBS_LEN, OBS_MAGIC, OBS_ONES, OBS_PHASE,
    OBS_PLAYERS, OBS_QUIT, OBS_SEAT, OBS_SHOW, OBS_STAGE_ONES, OBS_STAGE_TENS, OBS_STAGE_TOKENS, OBS_TENS,
    OBS_TOP, OBS_TURN, PHASE_GIVE, PHASE_SHOW, PHASE_TURN, PLAYABLE, QUIT, RETURN_MAGIC, SHOW_AT, START_ONES,
    SYM_DRAW, SYM_GIVE, SYM_MAGIC, VALUESET_POINTS,
)


P_NEXT = -1  # kernel-internal: pass the turn to the next player still in the round


@njit(cache=True, nogil=True, inline='always')
def _play_round(n, hands, deck, discard, quit, ones, tens, board, start,
                policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log):
    """Play one round in place from any position; seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 2) receives the (seat, action) of every decision when k > 0.

    Returns (out_seat, last_actor, decisions). Scoring is ``score_round``'s job.

    One loop iteration is one decision (turn, show or give phase), with a single policy call site.
    Everything is written out in this one function on purpose: helper calls that take arrays cost
    atomic reference-count updates, which dominated the run time when the helpers were separate.
    Hand sizes live in ``obs[OBS_HAND_SIZES + s]`` and the number of players still in the round in
    ``obs[OBS_ACTIVE]``."""
    deck_len = deck.shape[0]
    n_in = 0
    for s in range(MAX_PLAYERS):
        size = 0
        if s < n:
            for c in range(N_CODES):
                size += hands[s, c]
            n_in += 1 - quit[s]
            obs[OBS_QUIT + s] = quit[s]
            obs[OBS_ONES + s] = ones[s]
            obs[OBS_TENS + s] = tens[s]
        else:
            obs[OBS_QUIT + s] = 0
            obs[OBS_ONES + s] = 0
            obs[OBS_TENS + s] = 0
        obs[OBS_HAND_SIZES + s] = size
    for c in range(N_CODES):
        obs[OBS_DISCARD + c] = discard[c]
    obs[OBS_PLAYERS] = n
    obs[OBS_TOP] = board[B_TOP]
    obs[OBS_DRAW_PILE] = deck_len - board[B_POS]
    obs[OBS_ACTIVE] = n_in
    cap = log.shape[0]
    # The acting entry's parameters are copied into one buffer: a fresh view per decision would
    # cost two atomic reference-count updates each time.
    pbuf = np.empty(params.shape[1], np.float64)
    out_seat = -1
    last_actor = -1
    turn = 0
    kind = 0
    last = False  # the card just played was the player's last (a draw symbol may refill the hand after it)
    seat = (start + n - 1) % n
    phase = P_NEXT
    while True:
        if phase == P_NEXT:
            if n_in == 0:
                break
            seat = (seat + 1) % n
            while quit[seat]:
                seat = (seat + 1) % n
            if board[B_SHOW]:
                # The show: play a llama or collect the stage; the magic token may pass it on.
                phase = PHASE_SHOW
                legal[:] = 0
                for k in range(LLAMA_CODES.shape[0]):
                    if hands[seat, LLAMA_CODES[k]] > 0:
                        legal[LLAMA_CODES[k]] = 1
                legal[COLLECT] = 1
                if board[B_MAGIC] == seat and n_in > 1:
                    legal[RETURN_MAGIC] = 1
            else:
                phase = PHASE_TURN
        if phase == PHASE_TURN:
            top = board[B_TOP]
            legal[:] = 0
            for c in range(N_CODES):
                if hands[seat, c] > 0 and PLAYABLE[top, c]:
                    legal[c] = 1
            if board[B_POS] < deck_len and n_in > 1:
                legal[DRAW] = 1
            legal[QUIT] = 1
            if board[B_MAGIC] == seat and n_in > 1:
                legal[RETURN_MAGIC] = 1
        # ---- the decision (legal was set for the phase above, or by the card that asks for a give)
        obs[OBS_SEAT] = seat
        obs[OBS_PHASE] = phase
        obs[OBS_TURN] = turn
        obs[OBS_MAGIC] = board[B_MAGIC]
        obs[OBS_STAGE_ONES] = board[B_STAGE_ONES]
        obs[OBS_STAGE_TENS] = board[B_STAGE_TENS]
        obs[OBS_STAGE_TOKENS] = (board[B_STAGE_ONES] + board[B_STAGE_TENS]
                                 + (1 if board[B_MAGIC] == MAGIC_STAGE else 0))
        obs[OBS_SHOW] = board[B_SHOW]
        for c in range(N_CODES):
            obs[OBS_HAND + c] = hands[seat, c]
        e = entry_of_seat[seat]
        for i in range(pbuf.shape[0]):
            pbuf[i] = params[e, i]
        a = policies[slot_of_entry[e]](obs, legal, pbuf, prng)
        if a < 0 or a >= N_ACTIONS or legal[a] == 0:
            raise ValueError("a policy chose an illegal action")
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = a
        turn += 1
        last_actor = seat
        # ---- carry it out
        if phase == PHASE_GIVE:
            # One of the lowest tokens (1 < 10 < magic) goes to seat g; then the card's play ends.
            g = a - GIVE
            if ones[seat] > 0:
                ones[seat] -= 1
                obs[OBS_ONES + seat] = ones[seat]
                ones[g] += 1
                tens[g] += ones[g] // 10  # ten 1s become a 10 at once
                ones[g] %= 10
                obs[OBS_ONES + g] = ones[g]
                obs[OBS_TENS + g] = tens[g]
            elif tens[seat] > 0:
                tens[seat] -= 1
                obs[OBS_TENS + seat] = tens[seat]
                tens[g] += 1
                obs[OBS_TENS + g] = tens[g]
            else:
                board[B_MAGIC] = g
        else:
            if a == RETURN_MAGIC:  # pass (in a show: the show goes on with the next player)
                board[B_MAGIC] = MAGIC_POOL
                phase = P_NEXT
                continue
            if a == COLLECT:  # take the whole stage, the show ends, then a normal turn
                ones[seat] += board[B_STAGE_ONES]
                tens[seat] += board[B_STAGE_TENS] + ones[seat] // 10
                ones[seat] %= 10
                obs[OBS_ONES + seat] = ones[seat]
                obs[OBS_TENS + seat] = tens[seat]
                board[B_STAGE_ONES] = 0
                board[B_STAGE_TENS] = 0
                if board[B_MAGIC] == MAGIC_STAGE:
                    board[B_MAGIC] = seat
                board[B_SHOW] = 0
                phase = PHASE_TURN
                continue
            if a == QUIT:
                quit[seat] = 1
                obs[OBS_QUIT + seat] = 1
                n_in -= 1
                obs[OBS_ACTIVE] = n_in
                phase = P_NEXT
                continue
            if a == DRAW:
                card = deck[board[B_POS]]
                board[B_POS] += 1
                obs[OBS_DRAW_PILE] = deck_len - board[B_POS]
                hands[seat, card] += 1
                obs[OBS_HAND_SIZES + seat] += 1
                phase = P_NEXT
                continue
            # ---- play card a (a normal play, or a llama in a show)
            hands[seat, a] -= 1
            obs[OBS_HAND_SIZES + seat] -= 1
            last = obs[OBS_HAND_SIZES + seat] == 0
            kind = CODE_KIND[a]
            symbol = CODE_SYMBOL[a]
            board[B_TOP] = kind
            obs[OBS_TOP] = kind
            discard[a] += 1
            obs[OBS_DISCARD + a] += 1
            if kind == LLAMA:  # stake one of the lowest tokens on the stage
                if ones[seat] > 0:
                    ones[seat] -= 1
                    obs[OBS_ONES + seat] = ones[seat]
                    board[B_STAGE_ONES] += 1
                elif tens[seat] > 0:
                    tens[seat] -= 1
                    obs[OBS_TENS + seat] = tens[seat]
                    board[B_STAGE_TENS] += 1
                elif board[B_MAGIC] == seat:
                    board[B_MAGIC] = MAGIC_STAGE
            if symbol == SYM_GIVE:
                if n_in > 1 and (ones[seat] > 0 or tens[seat] > 0 or board[B_MAGIC] == seat):
                    legal[:] = 0
                    for s in range(n):
                        if s != seat and quit[s] == 0:
                            legal[GIVE + s] = 1
                    phase = PHASE_GIVE  # the same player decides whom to give to
                    continue
            elif symbol == SYM_DRAW:
                if board[B_POS] < deck_len:  # the next player still in draws (oneself when alone)
                    j = seat
                    for step in range(1, n):
                        t = (seat + step) % n
                        if quit[t] == 0:
                            j = t
                            break
                    card = deck[board[B_POS]]
                    board[B_POS] += 1
                    obs[OBS_DRAW_PILE] = deck_len - board[B_POS]
                    hands[j, card] += 1
                    obs[OBS_HAND_SIZES + j] += 1
            elif symbol == SYM_MAGIC:
                board[B_MAGIC] = seat  # from wherever it is
        # ---- the end of a play: show check, last card
        staged = board[B_STAGE_ONES] + board[B_STAGE_TENS] + (1 if board[B_MAGIC] == MAGIC_STAGE else 0)
        if staged < SHOW_AT:
            board[B_SHOW] = 0
        elif kind == LLAMA:
            board[B_SHOW] = 1
        if last:  # last card: the round (and any show) ends now
            board[B_SHOW] = 0
            out_seat = seat
            break
        phase = P_NEXT
    obs[OBS_MAGIC] = board[B_MAGIC]
    obs[OBS_STAGE_ONES] = board[B_STAGE_ONES]
    obs[OBS_STAGE_TENS] = board[B_STAGE_TENS]
    obs[OBS_SHOW] = board[B_SHOW]
    return out_seat, last_actor, turn

@njit(cache=True, nogil=True)
def play_round(n, hands, deck, discard, quit, ones, tens, board, start,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log):
    """``_play_round`` as a function of its own (for callers outside this module)."""
    return _play_round(n, hands, deck, discard, quit, ones, tens, board, start,
                       policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log)


@njit(cache=True, nogil=True, inline='always')
def score_round(n, hands, out_seat, ones, tens, board, points):
    """End of round: each player takes the hand's points (0 after going out, but for a card drawn by
    a last-card draw symbol when alone) plus 10 for a held
    magic token (which goes back to the pool), as 10s and 1s; then the player who went out returns
    a 10 if held, else a 1. ``points`` receives the points scored."""
    for s in range(n):
        values = 0  # the remaining cards (a card drawn by a last draw symbol too)
        for c in range(N_CODES):  # branch-free: which values a hand holds is unpredictable
            values |= CODE_VALUES[c] * (hands[s, c] > 0)
        p = VALUESET_POINTS[values]
        if board[B_MAGIC] == s:
            p += MAGIC_POINTS
        points[s] = p
        ones[s] += p % 10
        tens[s] += p // 10 + ones[s] // 10
        ones[s] %= 10
    if board[B_MAGIC] >= 0:
        board[B_MAGIC] = MAGIC_POOL
    if out_seat >= 0:
        if tens[out_seat] > 0:
            tens[out_seat] -= 1
        elif ones[out_seat] > 0:
            ones[out_seat] -= 1


@njit(cache=True, nogil=True)
def deal_round(n, deck, hands, discard, quit, board):
    """Deal a shuffled deck: six cards to each seat, the next card face up (no symbol action).
    The stage and the magic token stay where they are; no show is running at the start."""
    hands[:, :] = 0
    discard[:] = 0
    for s in range(n):
        quit[s] = 0
        for k in range(HAND_SIZE):
            hands[s, deck[HAND_SIZE * s + k]] += 1
    first = deck[HAND_SIZE * n]
    discard[first] += 1
    board[B_POS] = HAND_SIZE * n + 1
    board[B_TOP] = CODE_KIND[first]
    board[B_SHOW] = 0


@njit(cache=True, nogil=True)
def deck_from_counts(counts):
    """The unshuffled deck (codes in code order) from the per-code counts in ``cfg``."""
    total = 0
    for c in range(N_CODES):
        total += counts[c]
    deck = np.empty(total, np.int64)
    k = 0
    for c in range(N_CODES):
        for _ in range(counts[c]):
            deck[k] = c
            k += 1
    return deck


@njit(cache=True, nogil=True)
def new_table(n, ones, tens, board):
    """Start of a game (and of every round in round mode): three 1s each, the stage empty, the
    magic token in the pool."""
    for s in range(n):
        ones[s] = START_ONES
        tens[s] = 0
    board[:] = 0
    board[B_MAGIC] = MAGIC_POOL


@njit(cache=True, nogil=True)
def play_game(n, base, policies, slot_of_entry, params, entry_of_seat, drng, prng, penalty, went_out, quits, final):
    """A full game into per-seat totals; returns the number of rounds. Tokens and the stage carry
    over between rounds; the game ends after a round in which somebody holds 40 or more."""
    deck = base.copy()
    hands = np.zeros((n, N_CODES), np.int64)
    discard = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    ones = np.zeros(n, np.int64)
    tens = np.zeros(n, np.int64)
    board = np.zeros(BOARD_LEN, np.int64)
    points = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    legal = np.zeros(N_ACTIONS, np.uint8)
    log = np.zeros((0, 2), np.int64)
    new_table(n, ones, tens, board)
    start = 0
    for r in range(MAX_ROUNDS_PER_GAME):
        for i in range(deck.shape[0]):
            deck[i] = base[i]
        R.shuffle(deck, drng)
        deal_round(n, deck, hands, discard, quit, board)
        for s in range(n):
            penalty[s] -= ones[s] + 10 * tens[s]
        out_seat, last_actor, _ = _play_round(n, hands, deck, discard, quit, ones, tens, board, start,
                                             policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log)
        score_round(n, hands, out_seat, ones, tens, board, points)
        top_score = 0
        for s in range(n):
            total = ones[s] + 10 * tens[s]
            penalty[s] += total
            quits[s] += quit[s]
            top_score = max(top_score, total)
        if out_seat >= 0:
            went_out[out_seat] += 1
        start = last_actor
        if top_score >= GAME_END_SCORE:
            for s in range(n):
                final[s] = ones[s] + 10 * tens[s]
            return r + 1
    raise ValueError("game did not end")


def _run_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, cfg, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal is played once per row of ``entry_of_seat``.
    ``cfg`` holds the count of each of the 36 card codes (the deck and its symbol table)."""
    # Private copies: the caller's arrays may be shared by other threads, and every view taken of
    # a shared array bumps its (atomic) reference count, which makes threads fight over one cache line.
    entry_of_seat = entry_of_seat.copy()
    unit_of_seat = unit_of_seat.copy()
    slot_of_entry = slot_of_entry.copy()
    params = params.copy()
    rotations = entry_of_seat.shape[0]
    metrics = 6 if games_mode else 3
    v = np.zeros(metrics * n_units, np.int64)
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    base = deck_from_counts(cfg)
    deck = base.copy()
    hands = np.zeros((n, N_CODES), np.int64)
    discard = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    ones = np.zeros(n, np.int64)
    tens = np.zeros(n, np.int64)
    board = np.zeros(BOARD_LEN, np.int64)
    points = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    legal = np.zeros(N_ACTIONS, np.uint8)
    log = np.zeros((0, 2), np.int64)
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    final = np.zeros(n, np.int64)
    for b in range(first_block, first_block + n_blocks):
        v[:] = 0
        for r in range(rotations):
            R.seed_state(drng, seed, b, R.DEAL_STREAM)
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            if games_mode:
                penalty[:] = 0
                went_out[:] = 0
                quits[:] = 0
                rounds = play_game(n, base, policies, slot_of_entry, params, entry_of_seat[r], drng, prng,
                                   penalty, went_out, quits, final)
                wins = win_units(final, n)
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], penalty[s], went_out[s], quits[s],
                             rounds, wins[s], final[s], True)
            else:
                for i in range(deck.shape[0]):
                    deck[i] = base[i]
                R.shuffle(deck, drng)
                new_table(n, ones, tens, board)
                deal_round(n, deck, hands, discard, quit, board)
                out_seat, _, _ = _play_round(n, hands, deck, discard, quit, ones, tens, board, 0, policies,
                                            slot_of_entry, params, entry_of_seat[r], prng, obs, legal, log)
                score_round(n, hands, out_seat, ones, tens, board, points)
                for s in range(n):
                    p = ones[s] + 10 * tens[s] - START_ONES
                    add_seat(v, n_units, unit_of_seat[r, s], p, 1 if s == out_seat else 0, quit[s],
                             0, 0, 0, False)
        accumulate(v, s1, s2)


run_blocks = Kernel(_run_blocks, lambda: RUN_BLOCKS_SIG, "kadabra kernel")

assert MAX_PLAYERS == 6 and PHASE_TURN == 0
