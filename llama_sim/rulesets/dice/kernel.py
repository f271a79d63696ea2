"""The LAMA Dice Numba kernel: the same rules as ``reference.py``, fast.

``play_round`` plays one round in place from any position (the work is ``play_core_with``'s),
``play_game`` a game to 40, ``run_blocks`` the deal blocks of a run: ``kernel_loop`` compiled on its own;
a line-up kernel (``llama_sim.run.lineup``) compiles ``kernel_loop`` around its own ``decide``.

Speed: the block loop (``run_blocks``' own), ``play_core``, ``deal_round`` and ``deal_shuffle`` are compiled
without Numba's reference counting (``draws.NO_NRT``: they allocate nothing); calls to separately
compiled functions taking arrays otherwise cost atomic reference-count updates. The block loop keeps
its scratch on its own stack (``views.stack_zeros``), so the compiler knows its arrays do not overlap;
with that and the legal discard masks as bit sets (``discard_masks``) it plays about a fifth more rounds
per CPU-second (``benchmarks/MEASUREMENTS.md``). The faces of a roll come from a table (``ROLL_DIE_FACE``); ``randint``
is ``rng.randint`` (``randint_small``: 216 rolls), the exact integer floor of the top 53 bits times n.

Illegal actions: ``play_core`` keeps its own bit set of the legal actions, hands it to the policy as
``legal`` and checks the answer against it. It reports an illegal one through ``bad`` (int64[3]: entry,
seat, action), its one argument more than ``play_round``; ``play_round``, ``play_game``, ``run_blocks``
and ``run_positions`` raise ``ValueError("illegal action", entry, seat, action)``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.draws import COMPILED_CALLERS_ONLY, NO_NRT as _NO_NRT, deal_shuffle
from llama_sim.core.rng import randint_small
from llama_sim.core.blocks import BlockKernel, block_loop
from llama_sim.core.scoring import (
    ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, distinct_penalty, largest_token, raise_stop,
)
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import POLICIES_TYPE, line_up_ask
from llama_sim.core.views import readonly_row, stack_zeros
from llama_sim.core.luck_cards import deal_luck, no_luck
from llama_sim.rulesets.dice.luck import LUCK_WEIGHTS, roll_luck
from llama_sim.rulesets.dice.codes import (
    DECK, DISCARD_BASE, END_ALL_QUIT, END_DRAMA, END_LLAMA_ROW, END_OUT, LLAMA, MAX_PLAYERS, N_ACTIONS, N_CARDS,
    N_CODES, N_ROLLS, OBS_ACTIVE, OBS_DICE, OBS_DISCARDED, OBS_FACES, OBS_LAYOUT_ID, OBS_LEN, OBS_LLAMA_ROW,
    OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROLLED, OBS_ROWS, OBS_SCORES, OBS_SEAT, OBS_SET_ASIDE, OBS_TURN,
    PENALTY, PHASE_DISCARD, PHASE_TAKE, PHASE_TURN, QUIT, ROLL, ROLL_DIE_FACE, ROW_SIZE, TAKE_BASE,
)

TURN_LEGAL = (1 << ROLL) | (1 << QUIT)  # the legal mask of a roll-or-quit decision
# Discard masks m = 1..7 (bit i: die i) as bit sets over m, for the kernel's legal set:
# DISCARD_SUBSETS[dice]: the masks using only the dice in ``dice``; DISCARD_AT_MOST[k]: those using at
# most k dice; DISCARD_WITH_AB (AC, BC): those using both of those two dice.
DISCARD_SUBSETS = np.array([sum(1 << m for m in range(1, 8) if m & ~dice == 0) for dice in range(8)], np.int64)
DISCARD_AT_MOST = np.array([sum(1 << m for m in range(1, 8) if bin(m).count("1") <= k) for k in range(4)], np.int64)
DISCARD_WITH_AB, DISCARD_WITH_AC, DISCARD_WITH_BC = (sum(1 << m for m in range(1, 8) if m & pair == pair)
                                                     for pair in (3, 5, 6))


@njit(cache=True, nogil=True, inline="always")
def discard_masks(f0, f1, f2, r0, r1, r2):
    """The kernel's ``discard_legal``: bit m set for each legal discard mask m = 1..7 of dice showing
    f0, f1, f2 when the row holds r0, r1, r2 cards of those values. Every chosen die shows a value in
    the row, and two (three) chosen dice showing the same value need two (three) such cards. Bit sets
    over the masks (``DISCARD_SUBSETS``, ``DISCARD_AT_MOST``) instead of a loop over m with a branch per
    mask, which cost ~4% of a round (4 ``threshold`` players, line-up kernel, 467 -> 449 ns)."""
    ok_dice = np.int64(r0 > 0) | (np.int64(r1 > 0) << 1) | (np.int64(r2 > 0) << 2)
    masks = DISCARD_SUBSETS[ok_dice]
    if f0 == f1 and f1 == f2:
        masks &= DISCARD_AT_MOST[min(r0, 3)]
    elif f0 == f1:
        if r0 < 2:
            masks &= ~DISCARD_WITH_AB
    elif f0 == f2:
        if r0 < 2:
            masks &= ~DISCARD_WITH_AC
    elif f1 == f2:
        if r1 < 2:
            masks &= ~DISCARD_WITH_BC
    return masks


@njit(cache=True, nogil=True, inline="always")
def discard_dice(seat, m, f0, f1, f2, rows, discarded, obs):
    """Discard mask ``m`` of a roll showing f0, f1, f2: one card of its value per chosen die, from
    ``seat``'s row to the discard pile (``obs`` follows). Returns the cards left in the row."""
    for i in range(3):
        if (m >> i) & 1:
            fi = f0 if i == 0 else (f1 if i == 1 else f2)
            rows[seat, fi] -= 1
            discarded[fi] += 1
            obs[OBS_ROWS + N_CODES * seat + fi] -= 1
            obs[OBS_DISCARDED + fi] += 1
    left = 0
    for c in range(N_CODES):
        left += rows[seat, c]
    return left


@njit(cache=True, nogil=True, inline="always")
def take_card(seat, c, rows, llama_row, obs):
    """``seat`` takes the card of code ``c`` from the llama row into its row (``obs`` follows)."""
    llama_row[c] = 0
    obs[OBS_LLAMA_ROW + c] = 0
    rows[seat, c] += 1
    obs[OBS_ROWS + N_CODES * seat + c] += 1


@njit(cache=True, nogil=True, inline="always")
def score_dice_round(n, rows, end, last_actor, scores):
    """Add a finished round's points to ``scores``; the player who went out returns a token: with the
    three-llama returns ``play_core`` takes off in place, a seat's score change is its round's penalty."""
    for s in range(n):
        scores[s] += round_points(rows, s, end, last_actor)
    if end == END_OUT:
        scores[last_actor] -= largest_token(scores[last_actor], False)


@njit(cache=True, nogil=True, **_NO_NRT)
def play_core(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
              policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad):
    """``play_core_with`` asking the policies through the function tuple (the generic kernel's)."""
    return play_core_with(None, n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                          policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad)


@njit(cache=True, nogil=True, forceinline=True, **_NO_NRT, **COMPILED_CALLERS_ONLY)
def play_core_with(decide, n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                   policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad, luck_state=None):
    """Compiled callers only (``draws.COMPILED_CALLERS_ONLY``).
    ``play_round``'s work, compiled without reference counting (as ``play_core``, or inside the block loop
    ``kernel_loop``: the generic ``run_blocks`` or a line-up kernel's own ``core``, ``llama_sim.run.lineup``,
    with ``decide`` its ``decide``): on an illegal action it sets ``bad`` = (entry, seat, action) and returns
    decisions = -1 (the round is left where it was).

    A policy gets ``obs``, the seat's own row as ``hand`` and its params row, both as
    ``views.readonly_row`` (no copy, and no meminfo: a plain ``rows[seat]`` view would carry the
    parent's, costing the policy two atomic reference-count updates per call), and the legal actions
    as the bit set the kernel keeps anyway (``allowed``, bit a = action a; ROLL|QUIT at a turn),
    against which it checks the answer. ``luck_state``: omitted, or the block loop's ``(luck, weights,
    pile)``: each roll's luck (``luck.roll_luck``) is added to the roller's ``luck`` when that is not empty."""
    n_in = 0
    cards = 0
    llama_left = 0
    for c in range(N_CODES):
        llama_left += llama_row[c]
        cards += llama_row[c] + discarded[c]
        obs[OBS_LLAMA_ROW + c] = llama_row[c]
        obs[OBS_DISCARDED + c] = discarded[c]
        obs[OBS_ROLLED + c] = 0
    for s in range(6):
        if s < n:
            n_in += 1 - quit[s]
            for c in range(N_CODES):
                cards += rows[s, c]
                obs[OBS_ROWS + N_CODES * s + c] = rows[s, c]
            obs[OBS_QUIT + s] = quit[s]
            obs[OBS_SCORES + s] = scores[s]
        else:
            for c in range(N_CODES):
                obs[OBS_ROWS + N_CODES * s + c] = 0
            obs[OBS_QUIT + s] = 0
            obs[OBS_SCORES + s] = 0
    obs[OBS_PLAYERS] = n
    obs[OBS_LAYOUT_ID] = cfg[0]
    obs[OBS_SET_ASIDE] = N_CARDS - cards
    for k in range(18):
        obs[OBS_FACES + k] = cfg[1 + k]
    for i in range(3):
        obs[OBS_DICE + i] = -1
    cap = log.shape[0]
    turn = 0
    last_actor = -1
    end = END_ALL_QUIT
    seat = start
    while n_in > 0:
        if quit[seat]:
            seat += 1
            if seat == n:
                seat = 0
            continue
        e = entry_of_seat[seat]
        slot = slot_of_entry[e]
        if decide is None:  # (a line-up kernel's or a roll-out's ``decide`` may come with no tuple)
            policy = policies[slot]  # fetched once: a tuple element taken at each call site cost a third
        par = readonly_row(params, e)
        obs[OBS_SEAT] = seat
        obs[OBS_ACTIVE] = n_in
        obs[OBS_PHASE] = PHASE_TURN
        obs[OBS_TURN] = turn
        hand = readonly_row(rows, seat)
        if decide is None:
            a = policy(obs, hand, TURN_LEGAL, par, prng)
        else:
            a = line_up_ask(decide, policies, slot, obs, hand, TURN_LEGAL, par, prng)
        if a != ROLL and a != QUIT:
            bad[0] = e
            bad[1] = seat
            bad[2] = a
            return end, last_actor, -1
        last_actor = seat
        if a == QUIT:
            if turn < cap:
                log[turn, 0] = seat
                log[turn, 1] = QUIT
                log[turn, 2] = -1
            turn += 1
            quit[seat] = 1
            obs[OBS_QUIT + seat] = 1
            n_in -= 1
            seat += 1
            if seat == n:
                seat = 0
            continue
        o = randint_small(drng, N_ROLLS)
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = ROLL
            log[turn, 2] = o
        turn += 1
        f0 = cfg[1 + ROLL_DIE_FACE[o, 0]]
        f1 = cfg[7 + ROLL_DIE_FACE[o, 1]]
        f2 = cfg[13 + ROLL_DIE_FACE[o, 2]]
        if luck_state is not None:
            if luck_state[0].shape[0] > 0:
                roll_luck(luck_state[0], luck_state[1], n, rows, seat, cfg, f0, f1, f2,
                          largest_token(scores[seat], False), llama_row, quit, n_in == 1)
        for c in range(N_CODES):
            obs[OBS_ROLLED + c] = 0
        obs[OBS_DICE] = f0
        obs[OBS_DICE + 1] = f1
        obs[OBS_DICE + 2] = f2
        obs[OBS_ROLLED + f0] += 1
        obs[OBS_ROLLED + f1] += 1
        obs[OBS_ROLLED + f2] += 1
        r0 = rows[seat, f0]
        r1 = rows[seat, f1]
        r2 = rows[seat, f2]
        if f0 == LLAMA and f1 == LLAMA and f2 == LLAMA:
            t = largest_token(scores[seat], False)
            scores[seat] -= t
            returned[seat] += t
            obs[OBS_SCORES + seat] = scores[seat]
        elif r0 > 0 or r1 > 0 or r2 > 0:
            allowed = discard_masks(f0, f1, f2, r0, r1, r2) << DISCARD_BASE
            obs[OBS_PHASE] = PHASE_DISCARD
            obs[OBS_TURN] = turn
            if decide is None:
                a = policy(obs, hand, allowed, par, prng)
            else:
                a = line_up_ask(decide, policies, slot, obs, hand, allowed, par, prng)
            if a < 0 or a >= N_ACTIONS or (allowed >> a) & 1 == 0:
                bad[0] = e
                bad[1] = seat
                bad[2] = a
                return end, last_actor, -1
            if turn < cap:
                log[turn, 0] = seat
                log[turn, 1] = a
                log[turn, 2] = -1
            turn += 1
            if discard_dice(seat, a - DISCARD_BASE, f0, f1, f2, rows, discarded, obs) == 0:
                end = END_OUT
                break
        elif n_in > 1 and (llama_row[f0] > 0 or llama_row[f1] > 0 or llama_row[f2] > 0):
            allowed = ((llama_row[f0] << (TAKE_BASE + f0)) | (llama_row[f1] << (TAKE_BASE + f1))
                       | (llama_row[f2] << (TAKE_BASE + f2)))
            obs[OBS_PHASE] = PHASE_TAKE
            obs[OBS_TURN] = turn
            if decide is None:
                a = policy(obs, hand, allowed, par, prng)
            else:
                a = line_up_ask(decide, policies, slot, obs, hand, allowed, par, prng)
            if a < 0 or a >= N_ACTIONS or (allowed >> a) & 1 == 0:
                bad[0] = e
                bad[1] = seat
                bad[2] = a
                return end, last_actor, -1
            if turn < cap:
                log[turn, 0] = seat
                log[turn, 1] = a
                log[turn, 2] = -1
            turn += 1
            take_card(seat, a - TAKE_BASE, rows, llama_row, obs)
            llama_left -= 1
            if llama_left == 0:
                end = END_LLAMA_ROW
                break
        else:
            for c in range(N_CODES):
                if llama_row[c] > 0:
                    rows[seat, c] += llama_row[c]
                    llama_row[c] = 0
            end = END_DRAMA
            break
        seat += 1
        if seat == n:
            seat = 0
    return end, last_actor, turn


@njit(cache=True, nogil=True, inline="always")
def play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
               policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log):
    """Play one round in place from any position: rows (n, 7), llama row, discard counts, who has
    quit, whose turn, scores (tokens held; three-llama returns are taken off in place and added to
    ``returned``). ``cfg`` = [layout id, 18 faces]. Seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 3) receives (seat, action, roll or -1) when k > 0.

    Returns (end, last_actor, decisions taken). An illegal action raises
    ``ValueError("illegal action", entry, seat, action)``. Compiled into its caller, which calls the round
    itself (``play_core_with``, put in by LLVM): each separately compiled level in between re-optimised
    the whole round. The scalars are cast to the types the block loop hands the round, so that one
    compiled round serves every caller.
    """
    bad = np.zeros(3, np.int64)
    end, last_actor, k = play_core_with(None, np.int64(n), rows, llama_row, discarded, quit, np.int64(start), scores,
                                        returned, cfg, policies, slot_of_entry, params, entry_of_seat, prng, drng, obs,
                                        log, bad)
    if k < 0:
        raise ValueError("illegal action", bad[0], bad[1], bad[2])
    return end, last_actor, k


PLAY_ROUND_SIG = types.UniTuple(types.int64, 3)(
    types.int64, types.int64[:, ::1], types.int64[::1], types.int64[::1], types.int64[::1], types.int64,
    types.int64[::1], types.int64[::1], types.int64[::1], POLICIES_TYPE, types.int64[::1],
    types.float64[:, ::1], types.int64[::1], types.uint64[::1], types.uint64[::1], types.int64[::1],
    types.int64[:, ::1],
)


def _play_round_entry(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                      policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log):
    return play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                      policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log)


# ``play_round`` for Python callers (tests, an advisor): one explicit signature, so any line-up of
# registered policies (passed as ``registry.policy_tuple``) uses the same cached machine code.
play_round_entry = Kernel(_play_round_entry, lambda: PLAY_ROUND_SIG, "dice round entry")


@njit(cache=True, nogil=True, **_NO_NRT)
def deal_round(n, deck, rows, llama_row, discarded, quit, drng):
    """Reset the deck, deal 6 cards to each seat (6 n draws), lay out the full llama row."""
    deal_into(n, deck, rows, llama_row, discarded, quit, drng)


@njit(cache=True, nogil=True, inline="always")
def deal_into(n, deck, rows, llama_row, discarded, quit, drng):
    """``deal_round``'s body, for the block loop to compile in."""
    for i in range(deck.shape[0]):
        deck[i] = DECK[i]
    deal_shuffle(deck, ROW_SIZE * n, drng)
    rows[:, :] = 0
    for s in range(n):
        quit[s] = 0
        for k in range(ROW_SIZE):
            rows[s, deck[ROW_SIZE * s + k]] += 1
    for c in range(N_CODES):
        llama_row[c] = 1
        discarded[c] = 0


@njit(cache=True, nogil=True, inline='always')
def round_points(rows, s, end, last_actor):
    """Points scored by seat s's cards at the end of a round (0 for the player who went out)."""
    if end == END_OUT and s == last_actor:
        return 0
    return distinct_penalty(rows[s], PENALTY)


@njit(cache=True, nogil=True)
def play_game(n, policies, slot_of_entry, params, entry_of_seat, drng, prng, dice_rng, cfg,
              penalty, went_out, quits, final):
    """A full game to 40 into per-seat totals; returns the number of rounds (``game_loop`` on its own
    scratch, asking through the function tuple)."""
    bad = np.zeros(3, np.int64)
    rounds = game_loop(None, n, policies, slot_of_entry, params, entry_of_seat, drng, prng, dice_rng, cfg,
                       penalty, went_out, quits, final, DECK.copy(), np.zeros((n, N_CODES), np.int64),
                       np.zeros(N_CODES, np.int64), np.zeros(N_CODES, np.int64), np.zeros(n, np.int64),
                       np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(OBS_LEN, np.int64),
                       np.zeros((0, 3), np.int64), bad, False,
                       no_luck())
    raise_stop(rounds, bad)
    return rounds


@njit(cache=True, nogil=True, inline="always")
def game_loop(decide, n, policies, slot_of_entry, params, entry_of_seat, drng, prng, dice_rng, cfg,
              penalty, went_out, quits, final, deck, rows, llama_row, discarded, quit, scores, returned, obs, log,
              bad, one_round, luck_state):
    """A full game to 40 into per-seat totals, each round played by ``play_core_with`` asking through
    ``decide``, on the scratch passed in. Returns the number of rounds, or ``ILLEGAL`` (``bad`` says
    which) or ``ENDLESS``. ``one_round``: stop after the first round (round mode), with its points in
    ``penalty``: the block loop plays both modes through this one call (see ``shedding.game_loop``).
    ``luck_state``: ``(luck, weights, pile)`` (``luck`` empty when off): the deal's and the rolls' luck."""
    start = np.int64(0)  # (a literal 0 would compile the round a second time for its own type)
    scores[:] = 0
    for r in range(MAX_ROUNDS_PER_GAME):
        deal_into(n, deck, rows, llama_row, discarded, quit, drng)
        if luck_state[0].shape[0] > 0:
            deal_luck(luck_state[0], luck_state[1], luck_state[2], n, DECK, deck, rows, ROW_SIZE)
        returned[:] = 0
        end, last_actor, k = play_core_with(decide, n, rows, llama_row, discarded, quit, start, scores, returned,
                                            cfg, policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                            obs, log, bad, luck_state)
        if k < 0:
            return ILLEGAL
        top = 0
        for s in range(n):
            p = round_points(rows, s, end, last_actor)
            penalty[s] += p - returned[s]
            quits[s] += quit[s]
            scores[s] += p
        if end == END_OUT:
            went_out[last_actor] += 1
        if one_round:
            return 1
        if end == END_OUT:
            returned_out = largest_token(scores[last_actor], False)
            scores[last_actor] -= returned_out
            penalty[last_actor] -= returned_out  # a round's penalty is the net change of the score
        for s in range(n):
            top = max(top, scores[s])
        start = last_actor
        if top >= GAME_END_SCORE:
            for s in range(n):
                final[s] = scores[s]
            return r + 1
    return ENDLESS


ROWS_CAPACITY = MAX_PLAYERS * N_CODES  # (literals: ``views.stack_zeros`` takes its capacity as one)
DECK_CAPACITY = DECK.shape[0]


@njit(cache=True, nogil=True, inline="always")
def play_seating(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params, drng, prng,
                 penalty, went_out, quits, final, luck, bad, one_round):
    """One seating of a block (``core.blocks.play``): a game, or its first round, with the block's dice
    stream besides its deal and policy streams, on the scratch in ``state`` (``kernel_loop``)."""
    cfg, dice_rng, deck, rows, llama_row, discarded, quit, scores, returned, obs, log, weights, pile = state
    R.seed_from_key(dice_rng, key, R.DICE_STREAM)
    luck_state = (luck, weights, pile)
    return game_loop(decide, n, policies, slot_of_entry, params, entry_of_seat[r], drng, prng, dice_rng, cfg,
                     penalty, went_out, quits, final, deck, rows, llama_row, discarded, quit, scores, returned, obs,
                     log, bad, one_round, luck_state)


@njit(cache=True, nogil=True, inline="always")
def kernel_loop(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad, cfg, weights):
    """The dice block loop (``core.blocks.block_loop``), ``decide`` asking the policies (see
    ``play_core_with``), its round's scratch on the stack of the function it is compiled into: on its own
    (``decide`` None) the generic kernel, ``run_blocks``; in a line-up kernel, around its own ``decide``."""
    dice_rng = stack_zeros(2, 2, np.uint64)
    deck = stack_zeros(DECK_CAPACITY, DECK_CAPACITY, np.int8)
    rows = stack_zeros(ROWS_CAPACITY, (n, N_CODES), np.int64)
    llama_row = stack_zeros(N_CODES, N_CODES, np.int64)
    discarded = stack_zeros(N_CODES, N_CODES, np.int64)
    quit = stack_zeros(MAX_PLAYERS, n, np.int64)
    scores = stack_zeros(MAX_PLAYERS, n, np.int64)
    returned = stack_zeros(MAX_PLAYERS, n, np.int64)
    obs = stack_zeros(OBS_LEN, OBS_LEN, np.int64)
    log = stack_zeros(1, (0, 3), np.int64)
    pile = stack_zeros(N_CODES, N_CODES, np.int64)
    state = (cfg, dice_rng, deck, rows, llama_row, discarded, quit, scores, returned, obs, log, weights, pile)
    return block_loop(play_seating, state, decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat,
                      n_units, games_mode, policies, slot_of_entry, params, s1, upper, v, bad)


run_blocks = BlockKernel(kernel_loop.py_func, lambda: (types.int64[::1], types.float64[:, :, ::1]),
                         lambda cfg: (cfg, LUCK_WEIGHTS), "dice kernel", MAX_PLAYERS)
