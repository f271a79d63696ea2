"""The Llama Kadabra Numba kernel: the same rules as ``reference.py``, fast.

State of a round, all explicit arrays (a kernel plays from any position, a deal is one of them):
``hands`` (n, 36) counts, ``deck`` (the draw pile is ``deck[board[B_POS]:]``), ``discard`` (36)
counts, ``quit`` (n), ``ones``/``tens`` (n) tokens held, ``board`` (``BOARD_LEN``): draw position,
top card kind, stage 1s, stage 10s, the magic token's place, show flag, and one rule: ``B_NO_SHOW``
(1 in the variant without the magic show: a llama stakes nothing).

``play_core_with`` does the work and is compiled without Numba's reference counting (``draws.NO_NRT``):
it allocates nothing, and every array it touches would otherwise cost atomic reference-count updates
at each use (they were a tenth of the run time when the round loop was inlined into ``run_blocks``).
``run_blocks`` runs its whole block loop that way (``kernel_loop``, a ``blocks.BlockKernel``), with the round's scratch
on the loop's own stack (``views.stack_zeros``: arrays the compiler knows do not alias one another),
as the other rule sets do; ``play_round`` (compiled into its callers) allocates the rest and calls it.
It keeps the public observation up to date incrementally and its own record of the legal actions (a
bit set, ``allowed``), which the policy gets as ``legal`` and against which it checks the answer; the
policy's ``hand`` is the seat's row of ``hands`` itself (``views.readonly_row``), so a decision copies
nothing. An illegal action
stops the round and is reported through ``bad`` (Numba raises exceptions with run-time values only
where reference counting is on), and the callers raise
``ValueError("illegal action", entry, seat, action)``.

Dealing: ``run_blocks`` and ``play_game`` deal lazily (``lazy=True``): the card at draw position p is
chosen when it is drawn, one step of a forward Fisher-Yates shuffle (``draws.draw_at``), so a
round uses one random draw per card it deals or draws instead of shuffling all 60. The reference
engine shuffles the whole deck forward with the same stream and deals from the top: the same cards.
In a game, each round's deal stream is derived from the game's deal stream (``draws.next_stream``).
``play_round`` (a fixed draw pile: ``deck`` is the order of the cards) is the entry for positions.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.blocks import BlockKernel, block_loop
from llama_sim.core.scoring import ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, raise_stop
from llama_sim.core.draws import COMPILED_CALLERS_ONLY, NO_NRT, draw_at, next_stream
from llama_sim.core.registry import line_up_ask
from llama_sim.core.luck_cards import draw_luck, no_luck
from llama_sim.core.views import readonly_row, stack_zeros
from llama_sim.rulesets.kadabra.luck import LUCK_WEIGHTS, round_deal_luck
from llama_sim.rulesets.kadabra.tables import (
    B_MAGIC, B_NO_SHOW, B_POS, B_SHOW, B_STAGE_ONES, B_STAGE_TENS, B_TOP, BOARD_LEN, CFG_NO_SHOW, CODE_KIND,
    CODE_SYMBOL, CODE_VALUES, COLLECT, DRAW, GIVE, HAND_SIZE, LLAMA, LLAMA_BITS, MAGIC_POINTS, MAGIC_POOL,
    MAGIC_STAGE, MAX_PLAYERS, N_ACTIONS, N_CODES, OBS_ACTIVE, OBS_DECK, OBS_DISCARD, OBS_DRAW_PILE, OBS_HAND_SIZES,
    OBS_LEN, OBS_MAGIC, OBS_NO_SHOW, OBS_ONES, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_SEAT, OBS_SHOW, OBS_STAGE_ONES,
    OBS_STAGE_TENS, OBS_STAGE_TOKENS, OBS_TENS, OBS_TOP, OBS_TURN, PHASE_GIVE, PHASE_SHOW, PHASE_TURN,
    PLAYABLE_BITS, QUIT, RETURN_MAGIC, SHOW_AT, START_ONES, SYM_DRAW, SYM_GIVE, SYM_MAGIC, VALUESET_POINTS,
)


P_NEXT = -1  # kernel-internal: pass the turn to the next player still in the round
DRAW_BIT = 1 << DRAW
QUIT_BIT = 1 << QUIT
RETURN_BIT = 1 << RETURN_MAGIC
COLLECT_BIT = 1 << COLLECT
AFTER = MAX_PLAYERS  # work[AFTER + s]: the next seat still in the round after seat s
WORK_LEN = 2 * MAX_PLAYERS


@njit(cache=True, nogil=True, inline='always')
def _next_seats(n, quit, work):
    """work[AFTER + s] = the first seat after s (to the left) still in the round, s itself when alone."""
    for s in range(n):
        t = s + 1 if s + 1 < n else 0
        while quit[t] and t != s:
            t = t + 1 if t + 1 < n else 0
        work[AFTER + s] = t


@njit(cache=True, nogil=True, inline="always")
def give_lowest(seat, g, ones, tens, board, obs):
    """The give-away: one of ``seat``'s lowest tokens (1 < 10 < magic) goes to seat ``g`` (ten 1s become
    a 10 at once); ``obs`` follows the tokens."""
    if ones[seat] > 0:
        ones[seat] -= 1
        obs[OBS_ONES + seat] = ones[seat]
        ones[g] += 1
        tens[g] += ones[g] // 10
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


@njit(cache=True, nogil=True, inline="always")
def show_check(board, kind):
    """At the end of a card's play (card kind ``kind``): fewer than ``SHOW_AT`` tokens on the stage end
    a show; a llama with enough starts (or continues) one."""
    staged = board[B_STAGE_ONES] + board[B_STAGE_TENS] + (1 if board[B_MAGIC] == MAGIC_STAGE else 0)
    if staged < SHOW_AT:
        board[B_SHOW] = 0
    elif kind == LLAMA:
        board[B_SHOW] = 1


@njit(cache=True, nogil=True, forceinline=True, **NO_NRT, **COMPILED_CALLERS_ONLY)
def play_core_with(decide, n, hands, deck, discard, quit, ones, tens, board, start, policies, slot_of_entry, params,
                   entry_of_seat, prng, drng, lazy, obs, log, bad, work, luck_state=None):
    """Play one round in place from any position; seat s plays line-up entry ``entry_of_seat[s]``.
    Compiled callers only (``draws.COMPILED_CALLERS_ONLY``).
    ``decide``: None (the function tuple) or a line-up kernel's own (``registry.line_up_ask``); the block
    loop (``kernel_loop``, in ``run_blocks`` or a line-up kernel's own ``core``, ``llama_sim.run.lineup``)
    and ``play_round`` call it, and LLVM puts it into each.
    With ``lazy`` each card drawn is first chosen uniformly from the rest of the pile with ``drng``
    (else ``drng`` is not used and the pile is ``deck``'s order). ``log`` (k, 2) receives the
    (seat, action) of every decision when k > 0.

    Returns (out_seat, last_actor, decisions). On an illegal action: ``bad`` = (entry, seat,
    action), returns decisions = -1 and the round is left where it was. Scoring is ``score_round``'s job.
    ``work`` (int64, ``WORK_LEN``) is scratch: ``work[s]`` the codes seat s holds as a bit set,
    ``work[AFTER + s]`` the first seat after s still in the round (s itself when alone).
    ``luck_state``: omitted, or the block loop's ``(luck, weights, pile)``: each card drawn adds its luck to
    the seat it comes to when ``luck`` is not empty (``luck_cards.draw_luck``).

    One loop iteration is one decision (turn, show or give phase), with a single policy call site.
    Hand sizes live in ``obs[OBS_HAND_SIZES + s]`` and the number of players still in the round in
    ``obs[OBS_ACTIVE]``."""
    deck_len = deck.shape[0]
    for c in range(N_CODES):
        obs[OBS_DISCARD + c] = discard[c]
        obs[OBS_DECK + c] = discard[c]  # + the hands and the pile below: every card of the round
    for i in range(board[B_POS], deck_len):
        obs[OBS_DECK + deck[i]] += 1
    obs[OBS_NO_SHOW] = board[B_NO_SHOW]
    n_in = 0
    for s in range(MAX_PLAYERS):
        size = 0
        if s < n:
            bits = 0
            for c in range(N_CODES):
                size += hands[s, c]
                obs[OBS_DECK + c] += hands[s, c]
                if hands[s, c] > 0:
                    bits |= 1 << c
            work[s] = bits
            n_in += 1 - quit[s]
            obs[OBS_QUIT + s] = quit[s]
            obs[OBS_ONES + s] = ones[s]
            obs[OBS_TENS + s] = tens[s]
        else:
            obs[OBS_QUIT + s] = 0
            obs[OBS_ONES + s] = 0
            obs[OBS_TENS + s] = 0
        obs[OBS_HAND_SIZES + s] = size
    obs[OBS_PLAYERS] = n
    obs[OBS_TOP] = board[B_TOP]
    obs[OBS_DRAW_PILE] = deck_len - board[B_POS]
    obs[OBS_ACTIVE] = n_in
    _next_seats(n, quit, work)
    seats_in = 0  # bit s: seat s is still in the round
    for s in range(n):
        if quit[s] == 0:
            seats_in |= 1 << s
    cap = log.shape[0]
    out_seat = -1
    last_actor = -1
    turn = 0
    kind = 0
    last = False  # the card just played was the player's last (a draw symbol may refill the hand after it)
    seat = start - 1 if start > 0 else n - 1
    phase = P_NEXT
    allowed = 0  # the engine's own record of the legal actions: bit a = action a
    while True:
        if phase == P_NEXT:
            if n_in == 0:
                break
            seat = work[AFTER + seat]
            phase = PHASE_SHOW if board[B_SHOW] else PHASE_TURN
        # ---- the decision
        if phase == PHASE_TURN:
            allowed = (work[seat] & PLAYABLE_BITS[board[B_TOP]]) | QUIT_BIT
            if n_in > 1:
                if board[B_POS] < deck_len:
                    allowed |= DRAW_BIT
                if board[B_MAGIC] == seat:
                    allowed |= RETURN_BIT
        elif phase == PHASE_SHOW:  # a llama or collect the stage; the magic token may pass the show on
            allowed = (work[seat] & LLAMA_BITS) | COLLECT_BIT
            if n_in > 1 and board[B_MAGIC] == seat:
                allowed |= RETURN_BIT
        # (PHASE_GIVE: ``allowed`` was set by the card that asks for a give)
        obs[OBS_SEAT] = seat
        obs[OBS_PHASE] = phase
        obs[OBS_TURN] = turn
        obs[OBS_MAGIC] = board[B_MAGIC]
        obs[OBS_STAGE_ONES] = board[B_STAGE_ONES]
        obs[OBS_STAGE_TENS] = board[B_STAGE_TENS]
        obs[OBS_STAGE_TOKENS] = (board[B_STAGE_ONES] + board[B_STAGE_TENS]
                                 + (1 if board[B_MAGIC] == MAGIC_STAGE else 0))
        obs[OBS_SHOW] = board[B_SHOW]
        e = entry_of_seat[seat]
        if decide is None:
            a = policies[slot_of_entry[e]](obs, readonly_row(hands, seat), allowed, readonly_row(params, e), prng)
        else:
            a = line_up_ask(decide, policies, slot_of_entry[e], obs, readonly_row(hands, seat), allowed,
                            readonly_row(params, e), prng)
        if a < 0 or a >= N_ACTIONS or (allowed >> a) & 1 == 0:
            bad[0] = e
            bad[1] = seat
            bad[2] = a
            return out_seat, last_actor, -1
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = a
        turn += 1
        last_actor = seat
        # ---- carry it out
        if phase == PHASE_GIVE:  # then the card's play ends
            give_lowest(seat, a - GIVE, ones, tens, board, obs)
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
                _next_seats(n, quit, work)
                seats_in &= ~(1 << seat)
                phase = P_NEXT
                continue
            if a == DRAW:
                pos = board[B_POS]
                card = draw_at(deck, pos, drng) if lazy else deck[pos]
                if luck_state is not None:
                    draw_luck(luck_state, n, seat, hands, obs[OBS_HAND_SIZES + seat], card)
                board[B_POS] = pos + 1
                obs[OBS_DRAW_PILE] = deck_len - pos - 1
                hands[seat, card] += 1
                work[seat] |= 1 << card
                obs[OBS_HAND_SIZES + seat] += 1
                phase = P_NEXT
                continue
            # ---- play card a (a normal play, or a llama in a show)
            hands[seat, a] -= 1
            if hands[seat, a] == 0:
                work[seat] &= ~(1 << a)
            obs[OBS_HAND_SIZES + seat] -= 1
            last = obs[OBS_HAND_SIZES + seat] == 0
            kind = CODE_KIND[a]
            symbol = CODE_SYMBOL[a]
            board[B_TOP] = kind
            obs[OBS_TOP] = kind
            discard[a] += 1
            obs[OBS_DISCARD + a] += 1
            if kind == LLAMA and board[B_NO_SHOW] == 0:  # stake one of the lowest tokens on the stage
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
                    allowed = (seats_in & ~(1 << seat)) << GIVE
                    phase = PHASE_GIVE  # the same player decides whom to give to
                    continue
            elif symbol == SYM_DRAW:
                pos = board[B_POS]
                if pos < deck_len:  # the next player still in draws (oneself when alone)
                    j = work[AFTER + seat]
                    card = draw_at(deck, pos, drng) if lazy else deck[pos]
                    if luck_state is not None:
                        draw_luck(luck_state, n, j, hands, obs[OBS_HAND_SIZES + j], card)
                    board[B_POS] = pos + 1
                    obs[OBS_DRAW_PILE] = deck_len - pos - 1
                    hands[j, card] += 1
                    work[j] |= 1 << card
                    obs[OBS_HAND_SIZES + j] += 1
            elif symbol == SYM_MAGIC:
                board[B_MAGIC] = seat  # from wherever it is
        # ---- the end of a play: show check, last card
        show_check(board, kind)
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


@njit(cache=True, nogil=True, inline="always")
def play_round(n, hands, deck, discard, quit, ones, tens, board, start,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """One round from any position with a fixed draw pile (``deck[board[B_POS]:]`` in order), for
    callers outside this module; returns (out_seat, last_actor, decisions). An illegal action raises
    ``ValueError("illegal action", entry, seat, action)``. Compiled into its caller, which calls the
    round itself (``play_core_with``, put in by LLVM): each separately compiled level in between
    re-optimised the whole round (0.4 s of a first ``advise`` each). The scalars are cast to the types
    the block loop hands the round, so that one compiled round serves every caller."""
    bad = np.zeros(3, np.int64)
    out_seat, last_actor, k = play_round_reporting(n, hands, deck, discard, quit, ones, tens, board, start,
                                                   policies, slot_of_entry, params, entry_of_seat, prng, obs, log, bad)
    if k < 0:
        raise ValueError("illegal action", bad[0], bad[1], bad[2])
    return out_seat, last_actor, k


@njit(cache=True, nogil=True, inline="always")
def play_round_reporting(n, hands, deck, discard, quit, ones, tens, board, start,
                         policies, slot_of_entry, params, entry_of_seat, prng, obs, log, bad):
    """``play_round`` that reports an illegal action instead of raising it (decisions -1, ``bad`` = entry,
    seat, action), for callers that stop a round with one (the chart's stepper)."""
    work = np.zeros(WORK_LEN, np.int64)
    return play_core_with(None, np.int64(n), hands, deck, discard, quit, ones, tens, board, np.int64(start),
                          policies, slot_of_entry, params, entry_of_seat, prng, prng, np.bool_(False), obs, log,
                          bad, work)


@njit(cache=True, nogil=True, **NO_NRT)
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


@njit(cache=True, nogil=True, **NO_NRT)
def _start_round(n, hands, discard, quit, board, first):
    """The round's table once the hands are dealt: ``first`` starts the discard pile (no symbol
    action), the draw pile starts after the 6 n + 1 dealt cards; the stage and the magic token stay
    where they are; no show is running at the start."""
    discard[:] = 0
    discard[first] += 1
    for s in range(n):
        quit[s] = 0
    board[B_POS] = HAND_SIZE * n + 1
    board[B_TOP] = CODE_KIND[first]
    board[B_SHOW] = 0


@njit(cache=True, nogil=True, **NO_NRT)
def deal_round(n, deck, hands, discard, quit, board):
    """Deal a shuffled deck: six cards to each seat, the next card face up (no symbol action)."""
    hands[:, :] = 0
    for s in range(n):
        for k in range(HAND_SIZE):
            hands[s, deck[HAND_SIZE * s + k]] += 1
    _start_round(n, hands, discard, quit, board, deck[HAND_SIZE * n])


@njit(cache=True, nogil=True, **NO_NRT)
def deal_lazy(n, base, deck, hands, discard, quit, board, drng):
    """``deal_round`` on ``base`` shuffled forward lazily with ``drng``: only the 6 n + 1 dealt
    positions are fixed now (the reference's ``shuffle_forward`` of the whole deck deals the same)."""
    for i in range(deck.shape[0]):
        deck[i] = base[i]
    hands[:, :] = 0
    k = 0
    for s in range(n):
        for _ in range(HAND_SIZE):
            hands[s, draw_at(deck, k, drng)] += 1
            k += 1
    _start_round(n, hands, discard, quit, board, draw_at(deck, k, drng))


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


@njit(cache=True, nogil=True, **NO_NRT)
def new_table(n, ones, tens, board):
    """Start of a game (and of every round in round mode): three 1s each, the stage empty, the
    magic token in the pool (``board[B_NO_SHOW]``, a rule, is kept)."""
    for s in range(n):
        ones[s] = START_ONES
        tens[s] = 0
    no_show = board[B_NO_SHOW]
    board[:] = 0
    board[B_MAGIC] = MAGIC_POOL
    board[B_NO_SHOW] = no_show


@njit(cache=True, nogil=True)
def play_game(n, base, policies, slot_of_entry, params, entry_of_seat, drng, prng, penalty, went_out, quits, final,
              no_show=0):
    """A full game into per-seat totals; returns the number of rounds (``game_loop`` on its own scratch,
    asking through the function tuple). ``no_show`` 1: the variant without the magic show."""
    bad = np.zeros(3, np.int64)
    rounds = game_loop(None, n, base, policies, slot_of_entry, params, entry_of_seat, drng, prng, penalty, went_out,
                       quits, final, no_show, base.copy(), np.zeros((n, N_CODES), np.int64),
                       np.zeros(N_CODES, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                       np.zeros(n, np.int64), np.zeros(BOARD_LEN, np.int64), np.zeros(n, np.int64),
                       np.zeros(OBS_LEN, np.int64), np.zeros((0, 2), np.int64), bad,
                       np.zeros(WORK_LEN, np.int64), np.zeros(2, np.uint64), False,
                       no_luck())
    raise_stop(rounds, bad)
    return rounds


@njit(cache=True, nogil=True, inline="always")
def game_loop(decide, n, base, policies, slot_of_entry, params, entry_of_seat, drng, prng, penalty, went_out,
              quits, final, no_show, deck, hands, discard, quit, ones, tens, board, points, obs, log, bad, work,
              round_rng, one_round, luck_state):
    """A full game into per-seat totals, each round played by ``play_core_with`` asking through ``decide``,
    on the scratch passed in. Tokens and the stage carry over between rounds; the game ends after a
    round in which somebody holds 40 or more. Each round deals lazily from its own stream, derived from
    ``drng`` (``draws.next_stream``). ``no_show`` 1: the variant without the magic show
    (``board[B_NO_SHOW]``). Returns the number of rounds, or ``ILLEGAL`` (``bad`` says which) or
    ``ENDLESS``.

    ``one_round``: round mode, one round from a fresh table dealt from ``drng`` itself (not from a
    stream derived from it), with its points in ``penalty``: the block loop plays both modes through this
    one call, so the round's code is compiled into it once (see ``shedding.game_loop``). ``luck_state``:
    ``(luck, weights, pile)``, ``luck`` empty when off: the deal's luck and each draw's (``play_core_with``)."""
    board[B_NO_SHOW] = no_show
    new_table(n, ones, tens, board)
    start = np.int64(0)  # (a literal 0 would compile the round a second time for its own type)
    for r in range(MAX_ROUNDS_PER_GAME):
        if one_round:
            round_rng[0] = drng[0]
            round_rng[1] = drng[1]
        else:
            next_stream(drng, round_rng)
        deal_lazy(n, base, deck, hands, discard, quit, board, round_rng)
        round_deal_luck(luck_state, n, base, deck, hands)
        for s in range(n):
            penalty[s] -= ones[s] + 10 * tens[s]
        out_seat, last_actor, k = play_core_with(decide, n, hands, deck, discard, quit, ones, tens, board, start,
                                                 policies, slot_of_entry, params, entry_of_seat, prng, round_rng,
                                                 np.bool_(True), obs, log, bad, work, luck_state)
        if k < 0:
            return ILLEGAL
        score_round(n, hands, out_seat, ones, tens, board, points)
        top_score = 0
        for s in range(n):
            total = ones[s] + 10 * tens[s]
            penalty[s] += total
            quits[s] += quit[s]
            top_score = max(top_score, total)
        if out_seat >= 0:
            went_out[out_seat] += 1
        if one_round:
            return 1
        start = last_actor
        if top_score >= GAME_END_SCORE:
            for s in range(n):
                final[s] = ones[s] + 10 * tens[s]
            return r + 1
    return ENDLESS


def own_args(cfg):
    """The block loop's own arguments for a run's ``cfg`` (the count of each of the 36 card codes, then
    ``cfg[CFG_NO_SHOW]``, 1: the variant without the magic show): the base deck (its size is the table's),
    a deck to deal into, the variant, and the value function of luck-adjusted runs (``luck.py``)."""
    base = np.repeat(np.arange(N_CODES, dtype=np.int64), cfg[:N_CODES])  # (``deck_from_counts``)
    return base, base.copy(), int(cfg[CFG_NO_SHOW]), LUCK_WEIGHTS


HANDS_CAPACITY = MAX_PLAYERS * N_CODES  # (literals: ``views.stack_zeros`` takes its capacity as one)


@njit(cache=True, nogil=True, inline="always")
def play_seating(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params, drng, prng,
                 penalty, went_out, quits, final, luck, bad, one_round):
    """One seating of a block (``core.blocks.play``): a game, or its first round, on the deck and scratch
    in ``state`` (``kernel_loop``)."""
    (base, deck, no_show, round_rng, hands, discard, quit, ones, tens, board, points, obs, log, work, weights,
     pile) = state
    return game_loop(decide, n, base, policies, slot_of_entry, params, entry_of_seat[r], drng, prng, penalty,
                     went_out, quits, final, no_show, deck, hands, discard, quit, ones, tens, board,
                     points, obs, log, bad, work, round_rng, one_round, (luck, weights, pile))


@njit(cache=True, nogil=True, inline="always")
def kernel_loop(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad, base, deck, no_show, weights):
    """The Kadabra block loop (``core.blocks.block_loop``), ``decide`` asking the policies (see
    ``play_core_with``), its round's scratch on the stack of the function it is compiled into: on its own
    (``decide`` None) the generic kernel, ``run_blocks``; in a line-up kernel, around its own ``decide``.
    One body, not a wrapper around an inlined copy: each level of Numba's inlining copies the whole
    loop's code again."""
    round_rng = stack_zeros(2, 2, np.uint64)
    hands = stack_zeros(HANDS_CAPACITY, (n, N_CODES), np.int64)
    discard = stack_zeros(N_CODES, N_CODES, np.int64)
    quit = stack_zeros(MAX_PLAYERS, n, np.int64)
    ones = stack_zeros(MAX_PLAYERS, n, np.int64)
    tens = stack_zeros(MAX_PLAYERS, n, np.int64)
    board = stack_zeros(BOARD_LEN, BOARD_LEN, np.int64)
    points = stack_zeros(MAX_PLAYERS, n, np.int64)
    obs = stack_zeros(OBS_LEN, OBS_LEN, np.int64)
    log = stack_zeros(1, (0, 2), np.int64)
    work = stack_zeros(WORK_LEN, WORK_LEN, np.int64)
    pile = stack_zeros(N_CODES, N_CODES, np.int64)
    board[B_NO_SHOW] = no_show
    state = (base, deck, no_show, round_rng, hands, discard, quit, ones, tens, board, points, obs, log, work, weights,
             pile)
    return block_loop(play_seating, state, decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat,
                      n_units, games_mode, policies, slot_of_entry, params, s1, upper, v, bad)


run_blocks = BlockKernel(kernel_loop.py_func,
                         lambda: (types.int64[::1], types.int64[::1], types.int64, types.float64[:, :, ::1]), own_args,
                         "kadabra kernel", MAX_PLAYERS)

assert MAX_PLAYERS == 6 and PHASE_TURN == 0
