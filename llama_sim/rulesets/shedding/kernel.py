"""The shedding games' Numba kernel: the round loop, the game loop and the block loop (see the
package docstring for how a rule set binds them to its tables)."""
from __future__ import annotations


import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.draws import COMPILED_CALLERS_ONLY, NO_NRT
from llama_sim.core.registry import POLICIES_TYPE, line_up_ask
from llama_sim.core.views import readonly_row, stack_zeros
from llama_sim.core.blocks import block_loop
from llama_sim.core.luck_cards import LUCK_SIZES, card_luck, deal_luck, draw_luck, no_luck  # noqa: F401  (card_luck: the package names it)
from llama_sim.core.scoring import ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, largest_token, raise_stop
from llama_sim.rulesets.shedding.rules import play_bits, F_STARTER_LAST_CARD, F_TOKENS20, HAND_SIZE, Layout, MAX_CODES, MAX_DECK, MAX_SEATS, OBS_ACTIVE, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_SEAT, OBS_TOP, OBS_TURN


# --------------------------------------------------------------------------------------------
# Kernel: the same loop on count vectors, with the rule set's tables as arguments
# --------------------------------------------------------------------------------------------


play_bits_jit = njit(cache=True, nogil=True)(play_bits)


@njit(cache=True, nogil=True)
def hand_penalty(counts, code_penalty, twins):
    """The kernel's scoring: each held code scores its ``code_penalty`` and each held twin pair gives
    back its overlap, which is "each distinct value class once (pink: llamas 20)" in a form without
    data-dependent branches (a branchy distinct-class loop cost L.A.M.A. ~8% of its speed)."""
    total = 0
    for c in range(counts.shape[0]):
        total += code_penalty[c] * (counts[c] > 0)
    for k in range(twins.shape[0]):
        total -= twins[k, 2] * ((counts[twins[k, 0]] > 0) & (counts[twins[k, 1]] > 0))
    return total


@njit(cache=True, nogil=True)
def seat_penalty(hands, s, code_penalty, twins):
    """``hand_penalty(hands[s], ...)`` without making the row view (a view costs two atomic
    reference-count updates)."""
    total = 0
    for c in range(hands.shape[1]):
        total += code_penalty[c] * (hands[s, c] > 0)
    for k in range(twins.shape[0]):
        total -= twins[k, 2] * ((hands[s, twins[k, 0]] > 0) & (hands[s, twins[k, 1]] > 0))
    return total


@njit(cache=True, nogil=True, inline="always")
def obs_len(n_codes):
    """The observation's length for ``n_codes`` card codes (``Layout.obs_len``)."""
    return OBS_HAND_SIZES + 3 * MAX_SEATS + n_codes


# Signatures of the rule sets' ``play_round``/``play_game`` wrappers for Python callers (tests, a
# position roll-out): with them Numba turns a tuple of policies into the first-class function tuple
# the kernels are built for, as ``run_blocks``' signature does.
_I64, _I64A, _I64M = types.int64, types.int64[::1], types.int64[:, ::1]
PLAY_ROUND_SIG = types.UniTuple(_I64, 5)(
    _I64, _I64M, types.int8[::1], _I64, _I64, _I64A, _I64A, _I64, _I64A, POLICIES_TYPE,
    _I64A, types.float64[:, ::1], _I64A, types.uint64[::1], _I64A, _I64M)
PLAY_GAME_SIG = _I64(_I64, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, types.uint64[::1],
                     types.uint64[::1], _I64A, _I64A, _I64A, _I64A)


@njit(cache=True, nogil=True, inline="always")
def play_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """Play one round in place from any position (hands, draw pile ``deck[pos:]``, top card,
    discard counts, who has quit, whose turn). Seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 2) receives (seat, action) pairs when k > 0. The legal set is an int64 bit mask. An
    illegal action raises ``ValueError("illegal action", entry, seat,
    action)`` (``llama_sim.core.errors``).

    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos).
    """
    sizes = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    bad = np.zeros(3, np.int64)
    # int64 scalars and a run-time flag whatever the caller holds (a literal 0, an int8 card): the round
    # is compiled once for every caller
    out = round_loop(None, can_play_bits, extra_turn, np.int64(n), hands, deck, np.int64(pos), np.int64(top),
                     discard, quit, np.int64(start), scores, policies, slot_of_entry, params,
                     entry_of_seat.reshape(1, n), np.int64(0), prng, obs, log, sizes, held, np.bool_(False), prng,
                     bad)
    if out[3] < 0:
        raise_stop(ILLEGAL, bad)
    return out


@njit(cache=True, nogil=True, forceinline=True, **NO_NRT, **COMPILED_CALLERS_ONLY)
def round_loop(decide, can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, row, prng, obs, log, sizes, held, lazy, drng, bad,
               luck_state=None):
    """Compiled callers only (``draws.COMPILED_CALLERS_ONLY``).
    ``play_round`` with its scratch passed in (``sizes`` (n), ``held`` (n): each seat's codes held as
    a bit mask) and the seating as ``entry_of_seat[row]``:
    the block loop calls it without allocating or slicing per round. A policy gets its parameters as
    ``readonly_row(params, e)``: no copy and no reference counts (a buffer refilled on every change of
    entry cost 6-8% of a L.A.M.A. round, a plain ``params[e]`` view more), and its hand as
    ``readonly_row(hands, seat)`` likewise; ``legal`` = ``can_play_bits[top] & held[seat]`` with the draw
    and quit bits, no loop per decision.
    ``decide``: None in a generic kernel, a line-up kernel's own function otherwise (``registry.line_up_ask``).

    ``lazy``: the draw pile ``deck[pos:]`` is not shuffled yet; each draw picks its card uniformly
    from it with ``drng`` (a forward Fisher-Yates step, see ``deal_lazy_round``).
    ``luck_state``: omitted, or ``(luck, weights, pile)`` of the block loop (``draw_luck``): each draw's
    luck is added to the drawing seat's ``luck`` when that is not empty.

    An illegal action stops the round: ``bad`` = (entry, seat, action) and ``actions_taken`` is -1 (the
    block loop runs without reference counting, where Numba raises exceptions with constant values only;
    the caller raises)."""
    n_codes = can_play_bits.shape[0]
    o_sizes = OBS_HAND_SIZES
    o_quit = o_sizes + MAX_SEATS
    o_scores = o_quit + MAX_SEATS
    o_discard = o_scores + MAX_SEATS
    draw_action = n_codes
    quit_action = n_codes + 1
    n_in = 0
    quit_bit = np.int64(1) << quit_action
    for s in range(n):
        size = 0
        bits = 0
        for c in range(n_codes):
            h = hands[s, c]
            size += h
            bits |= np.int64(h > 0) << c
        sizes[s] = size
        held[s] = bits
        n_in += 1 - quit[s]
    deck_len = deck.shape[0]
    obs[OBS_TOP] = top
    obs[OBS_PLAYERS] = n
    obs[OBS_DRAW_PILE] = deck_len - pos
    for s in range(MAX_SEATS):
        obs[o_sizes + s] = sizes[s] if s < n else 0
        obs[o_quit + s] = quit[s] if s < n else 0
        obs[o_scores + s] = scores[s] if s < n else 0
    for c in range(n_codes):
        obs[o_discard + c] = discard[c]
    out_seat = -1
    last_card = -1
    last_actor = -1
    turn = 0
    seat = start
    cap = log.shape[0]
    while n_in > 0:
        if quit[seat]:
            seat = seat + 1 if seat + 1 < n else 0
            continue
        obs[OBS_SEAT] = seat
        obs[OBS_ACTIVE] = n_in
        obs[OBS_TURN] = turn
        # branch-free: a data-dependent branch here mispredicts and costs ~40% of the loop
        legal = ((can_play_bits[top] & held[seat]) | quit_bit
                 | (np.int64((pos < deck_len) & (n_in > 1)) << draw_action))
        e = entry_of_seat[row, seat]
        hand = readonly_row(hands, seat)  # the engine's own row: no copy, no reference counts
        if decide is None:  # a generic kernel (``registry.line_up_ask``)
            a = policies[slot_of_entry[e]](obs, hand, legal, readonly_row(params, e), prng)
        else:
            a = line_up_ask(decide, policies, slot_of_entry[e], obs, hand, legal, readonly_row(params, e), prng)
        if a < 0 or a > quit_action or (legal >> a) & 1 == 0:  # the kernel's own mask, a value to the policy
            bad[0] = e
            bad[1] = seat
            bad[2] = a
            return out_seat, last_card, last_actor, -1, pos
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = a
        turn += 1
        last_actor = seat
        if a == quit_action:
            quit[seat] = 1
            obs[o_quit + seat] = 1
            n_in -= 1
        elif a == draw_action:
            if lazy:  # the next Fisher-Yates step of the deal, taken only now that the card is used
                j = pos + R.below(drng, deck_len - pos)
                card = deck[j]
                deck[j] = deck[pos]
                deck[pos] = card
            else:
                card = deck[pos]
            if luck_state is not None:
                draw_luck(luck_state, n, seat, hands, sizes[seat], card)
            pos += 1
            hands[seat, card] += 1
            held[seat] |= np.int64(1) << card
            sizes[seat] += 1
            obs[o_sizes + seat] = sizes[seat]
            obs[OBS_DRAW_PILE] = deck_len - pos
        else:
            hands[seat, a] -= 1
            held[seat] &= ~(np.int64(hands[seat, a] == 0) << a)  # the last card of code a: not held now
            sizes[seat] -= 1
            obs[o_sizes + seat] = sizes[seat]
            top = a
            obs[OBS_TOP] = a
            discard[a] += 1
            obs[o_discard + a] += 1
            last_card = seat
            if sizes[seat] == 0:
                out_seat = seat
                break
            if extra_turn[a]:  # the same player acts again at once
                continue
        seat = seat + 1 if seat + 1 < n else 0  # (seat + 1) % n without a division
    return out_seat, last_card, last_actor, turn, pos


@njit(cache=True, nogil=True)
def deal_round(n, deck, hands, discard, quit):
    """Deal a shuffled deck: six cards to each seat, the next card face up.

    Returns (draw position, top code)."""
    return deal_counts(n, deck, hands, discard, quit)


@njit(cache=True, nogil=True, inline="always")
def deal_counts(n, deck, hands, discard, quit):
    """``deal_round``'s body, for the block loop to compile in."""
    hands[:, :] = 0
    discard[:] = 0
    for s in range(n):
        quit[s] = 0
        for k in range(HAND_SIZE):
            hands[s, deck[HAND_SIZE * s + k]] += 1
    top = deck[HAND_SIZE * n]
    discard[top] += 1
    return HAND_SIZE * n + 1, top


@njit(cache=True, nogil=True, inline="always")
def deal_lazy_round(n, full_deck, deck, hands, discard, quit, drng):
    """Deal a fresh deck lazily: only the 6n + 1 cards dealt are drawn now, each uniformly from the
    cards not yet dealt (the first steps of a forward Fisher-Yates shuffle with ``rng.below``); the
    rest stays unshuffled until a draw needs a card (``round_loop``'s ``lazy`` draw). The cards
    come out exactly as uniformly as from a full shuffle, with a third to a half of the random
    numbers. Returns (draw position, top code) as ``deal_round``."""
    size = deck.shape[0]
    for i in range(size):
        deck[i] = full_deck[i]
    for k in range(HAND_SIZE * n + 1):
        j = k + R.below(drng, size - k)
        card = deck[j]
        deck[j] = deck[k]
        deck[k] = card
    return deal_counts(n, deck, hands, discard, quit)


@njit(cache=True, nogil=True, inline="always")
def play_game(full_deck, can_play_bits, extra_turn, code_penalty, twins, flags,
              n, policies, slot_of_entry, params, entry_of_seat, drng, prng, penalty, went_out, quits, final):
    """A full game to 40 into per-seat totals; returns the number of rounds."""
    n_codes = can_play_bits.shape[0]
    bad = np.zeros(3, np.int64)
    rounds = game_loop(None, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags, n, policies,
                       slot_of_entry, params, entry_of_seat.reshape(1, n), 0, drng, prng,
                       (penalty, went_out, quits, final), full_deck.copy(), np.zeros((n, n_codes), np.int64),
                       np.zeros(n_codes, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                       np.zeros(obs_len(n_codes), np.int64),
                       np.zeros((0, 2), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), bad, False,
                       no_luck())
    raise_stop(rounds, bad)
    return rounds


@njit(cache=True, nogil=True, inline="always")
def game_loop(decide, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags, n, policies, slot_of_entry,
              params, entry_of_seat, row, drng, prng, totals,
              deck, hands, discard, quit, scores, obs, log, sizes, held, bad, one_round, luck_state):
    """``play_game`` with the seating as ``entry_of_seat[row]`` and all scratch passed in. Returns the
    number of rounds, or ``ILLEGAL`` (``bad`` says which) or ``ENDLESS``. ``totals``: the per-seat
    ``(penalty, went_out, quits, final)``; ``luck_state``: as ``round_loop``'s (``(luck, weights, pile)``,
    ``luck`` empty when off), the deal's luck too. (Thirty arguments at most: past that Python passes
    them as ``*args``, which Numba cannot inline.)

    ``one_round``: stop after the first round (round mode: a fresh deal at 0 points, seat 0 first), with
    its points in ``penalty`` (a first round from 0 points returns no token, so they are the round's own);
    the block loop plays both modes through this one call, so the round's code is compiled into it once."""
    penalty, went_out, quits, final = totals
    allow20 = flags[F_TOKENS20] != 0
    starter_last_card = flags[F_STARTER_LAST_CARD] != 0
    scores[:] = 0
    start = np.int64(0)  # (a literal 0 would compile the round a second time for its own type)
    for r in range(MAX_ROUNDS_PER_GAME):
        pos, top = deal_lazy_round(n, full_deck, deck, hands, discard, quit, drng)
        if luck_state[0].shape[0] > 0:  # the deal's luck, the top card then off the pile's counts
            deal_luck(luck_state[0], luck_state[1], luck_state[2], n, full_deck, deck, hands, HAND_SIZE)
            luck_state[2][top] -= 1
        out_seat, last_card, last_actor, turns, _ = round_loop(
            decide, can_play_bits, extra_turn, n, hands, deck, pos, np.int64(top), discard, quit, start, scores,
            policies, slot_of_entry, params, entry_of_seat, row, prng, obs, log, sizes, held,
            np.bool_(True), drng, bad, luck_state)
        if turns < 0:
            return ILLEGAL
        top_score = 0
        for s in range(n):
            p = 0 if s == out_seat else seat_penalty(hands, s, code_penalty, twins)
            penalty[s] += p
            quits[s] += quit[s]
            scores[s] += p
        if out_seat >= 0:
            went_out[out_seat] += 1
        if one_round:
            return 1
        if out_seat >= 0:
            returned = largest_token(scores[out_seat], allow20)
            scores[out_seat] -= returned
            penalty[out_seat] -= returned  # a round's penalty is the net change of the score
        for s in range(n):
            top_score = max(top_score, scores[s])
        start = last_card if (starter_last_card and last_card >= 0) else last_actor
        if top_score >= GAME_END_SCORE:
            for s in range(n):
                final[s] = scores[s]
            return r + 1
    return ENDLESS


def luck_shape(rules) -> tuple[int, int, int]:
    """The shape of a rule set's value-function weights (``card_luck``): players, hand size, code."""
    return (MAX_SEATS + 1, LUCK_SIZES, rules.n_codes)


# The block loop's scratch sizes, as literals (``stack_zeros`` takes its capacity as one).
HANDS_CAPACITY = MAX_SEATS * MAX_CODES
OBS_CAPACITY = Layout(MAX_CODES).obs_len


def own_types():
    """The types of a shedding rule set's own block-loop arguments: its full deck and its value function's
    weights (``card_luck``: ``[players, hand size, code]``)."""
    return (types.int8[::1], types.float64[:, :, ::1])


@njit(cache=True, nogil=True, inline="always")
def play_seating(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params, drng, prng,
                 penalty, went_out, quits, final, luck, bad, one_round):
    """One seating of a block (``core.blocks.play``): a game, or its first round, on the tables and
    scratch in ``state`` (``kernel_loop``)."""
    (full_deck, can_play_bits, extra_turn, code_penalty, twins, flags,
     deck, hands, discard, quit, scores, obs, log, sizes, held, weights, pile) = state
    luck_state = (luck, weights, pile)
    return game_loop(decide, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags, n, policies,
                     slot_of_entry, params, entry_of_seat, r, drng, prng, (penalty, went_out, quits, final),
                     deck, hands, discard, quit, scores, obs, log, sizes, held, bad, one_round, luck_state)


@njit(cache=True, nogil=True, inline="always")
def kernel_loop(decide, can_play_bits, extra_turn, code_penalty, twins, flags,
                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad, full_deck, weights):
    """A shedding rule set's block loop (``core.blocks.block_loop``) on its tables, ``decide`` asking the
    policies (see ``round_loop``); its round's scratch on the stack of the function it is compiled into."""
    n_codes = can_play_bits.shape[0]
    deck = stack_zeros(MAX_DECK, full_deck.shape[0], np.int8)
    hands = stack_zeros(HANDS_CAPACITY, (n, n_codes), np.int64)
    discard = stack_zeros(MAX_CODES, n_codes, np.int64)
    obs = stack_zeros(OBS_CAPACITY, obs_len(n_codes), np.int64)
    log = stack_zeros(1, (0, 2), np.int64)
    quit = stack_zeros(MAX_SEATS, n, np.int64)
    scores = stack_zeros(MAX_SEATS, n, np.int64)
    sizes = stack_zeros(MAX_SEATS, n, np.int64)
    held = stack_zeros(MAX_SEATS, n, np.int64)
    pile = stack_zeros(MAX_CODES, n_codes, np.int64)
    state = (full_deck, can_play_bits, extra_turn, code_penalty, twins, flags,
             deck, hands, discard, quit, scores, obs, log, sizes, held, weights, pile)
    return block_loop(play_seating, state, decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat,
                      n_units, games_mode, policies, slot_of_entry, params, s1, upper, v, bad)
