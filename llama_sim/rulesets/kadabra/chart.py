"""Llama Kadabra's quit chart: the collector behind ``llamasim chart --game kadabra``.

The decision charted is the stuck one, as in L.A.M.A.: a normal turn in which no card fits and
drawing is legal; quit vs draw. Kadabra's kernel logs only (seat, action), and a card's effects
(stakes, give-aways, the draw and magic symbols, the show) live inside it, so a round is not
replayed by hand: the kernel itself is stopped at the decision. Every seat plays a stepper
(``stepper_policy``: at the round's decision number ``params[-2]`` it returns ``params[-1]``, else
the policy's own choice). A game is played with the action log; each logged DRAW, QUIT or
RETURN_MAGIC (what a stuck player can do) is a candidate: the round is played again from its deal
with the same policy stream, the stepper returning an illegal action at that decision, so the
kernel raises before changing anything and its arrays and ``obs`` hold the TRUE state of the decision
(hands, pile, tokens, stage, magic token), from which ``_stuck`` tells whether it is stuck. From
there, as in every chart: quit, then everyone plays the policy to the end of the round; draw, then
the same, both with the same fresh policy stream (common random numbers). The deciding seat's first
action is forced by the same stepper at decision 0. One adapter, ``_kadabra_round``, calls the kernel.

Value of a branch (lower is better), as the ``penalty`` of Kadabra: ``own`` the change of the seat's
token total (1s + 10s) over the rest of the round, end-of-round scoring (hand points, the magic
token's 10) and the token returned on going out included; ``relative`` that minus the others' mean;
``win`` minus the win share after the policy plays the rest of the game (later deals from a stream
both branches share).

Features: hand points (the cards' points: distinct values once, doubles both, llamas 10) x the
cards left in the draw pile (``pile``) and x the smallest hand of another player still in
(``opponent``), split by what going out returns: a 10 if the player holds one, else a 1, else
nothing (token classes 10, 1, 0). The chart is built for the default deck and symbol table.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.chart_data import MAX_HAND
from llama_sim.core.chart_kernel import (
    BRANCH_STREAM, COLLECT_SIG, M_WIN, STUCK_WORDING, ChartRules, add_sample, close_game, game_over, game_sums,
    score_change_value, wrapped_lineup,
)
from llama_sim.core.scoring import MAX_ROUNDS_PER_GAME, win_units
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import POLICY_SIG
from llama_sim.core.views import copy_into
from llama_sim.rulesets.kadabra import RULE_SET
from llama_sim.rulesets.kadabra import kernel as KK
from llama_sim.rulesets.kadabra import tables as KT
from llama_sim.rulesets.kadabra.kernel import deal_round as kd_deal_round, score_round as kd_score_round

STEP_ENTRY = 1  # line-up entry 1: the policy behind the stepper
STOP = -1  # the stepper's illegal action: the kernel stops at that decision, its state untouched
KD_BASE = KK.deck_from_counts(RULE_SET.config())  # the unshuffled default deck (a chart is built for it)


def stepper_policy(policy):
    """The policy with one decision of a round set from outside: at decision number ``params[-2]``
    (``OBS_TURN``) return ``params[-1]`` (``STOP``: illegal, the kernel stops there)."""
    turn_index = KT.OBS_TURN

    def step(obs, hand, legal, params, rng):
        if obs[turn_index] == params[params.shape[0] - 2]:
            return np.int64(params[params.shape[0] - 1])
        return policy(obs, hand, legal, params, rng)

    step.__qualname__ = "kadabra_chart_stepper"
    return Kernel(step, lambda: POLICY_SIG, "kadabra chart stepper", nogil=False).get()


@njit(cache=True, nogil=True)
def _kadabra_round(n, hands, deck, discard, quit, ones, tens, board, start,
                   policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """The one adapter to the Kadabra kernel: play the round on from a state, in place. Returns
    (out_seat, last_actor, decisions taken), or (-2, -1, -1) when a stepper stopped it (the round reports
    the illegal action and stops)."""
    out_seat, last_actor, k = KK.play_round_reporting(n, hands, deck, discard, quit, ones, tens, board, start,
                                                      policies, slot_of_entry, params, entry_of_seat, prng, obs,
                                                      log, np.zeros(3, np.int64))
    if k < 0:
        return -2, -1, -1
    return out_seat, last_actor, k


@njit(cache=True, nogil=True, inline="always")
def _totals(n, ones, tens, out):
    for s in range(n):
        out[s] = ones[s] + 10 * tens[s]


@njit(cache=True, nogil=True, inline="always")
def _stuck(obs, hands):
    """At a decision where a stepper stopped the kernel (its arrays and ``obs`` hold that decision's
    state): a normal turn in which drawing is legal and no card fits. (The kernel's legal set, a bit
    mask, is not written anywhere; this is its rule for the turn: draw while the pile has
    cards and somebody else is in the round, a card when ``PLAYABLE`` on the top's kind.)"""
    if obs[KT.OBS_PHASE] != KT.PHASE_TURN or obs[KT.OBS_DRAW_PILE] <= 0 or obs[KT.OBS_ACTIVE] <= 1:
        return False
    seat = obs[KT.OBS_SEAT]
    top = obs[KT.OBS_TOP]
    for c in range(KT.N_CODES):
        if hands[seat, c] > 0 and KT.PLAYABLE[top, c]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _hand_points(hands, s):
    values = 0
    for c in range(KT.N_CODES):
        if hands[s, c] > 0:
            values |= KT.CODE_VALUES[c]
    return KT.VALUESET_POINTS[values]


@njit(cache=True, nogil=True)
def _branch_value(n, seat, action, measure, hands, deck, discard, quit, ones, tens, board, before,
                  policies, slot_of_entry, params, entry_of_seat, prng, grng,
                  bh, bdeck, bd, bq, bo, bt, bb, after, points, obs, nolog):
    """Value for ``seat`` (lower is better) of ``action`` (QUIT or DRAW) now, the policy playing on."""
    copy_into(bh, hands)
    copy_into(bd, discard)
    copy_into(bq, quit)
    copy_into(bo, ones)
    copy_into(bt, tens)
    copy_into(bb, board)
    copy_into(bdeck, deck)
    params[STEP_ENTRY, params.shape[1] - 2] = 0
    params[STEP_ENTRY, params.shape[1] - 1] = action
    entry_of_seat[:] = 0
    entry_of_seat[seat] = STEP_ENTRY
    out, last_actor, _ = _kadabra_round(n, bh, bdeck, bd, bq, bo, bt, bb, seat, policies, slot_of_entry, params,
                                        entry_of_seat, prng, obs, nolog)
    entry_of_seat[seat] = 0
    kd_score_round(n, bh, out, bo, bt, bb, points)
    _totals(n, bo, bt, after)
    if measure != M_WIN:
        return score_change_value(measure, seat, n, before, after)
    start = last_actor
    for _r in range(MAX_ROUNDS_PER_GAME):
        if game_over(after, n):
            break
        for i in range(bdeck.shape[0]):
            bdeck[i] = KD_BASE[i]
        R.shuffle(bdeck, grng)
        kd_deal_round(n, bdeck, bh, bd, bq, bb)
        out, last_actor, _ = _kadabra_round(n, bh, bdeck, bd, bq, bo, bt, bb, start, policies, slot_of_entry,
                                            params, entry_of_seat, prng, obs, nolog)
        kd_score_round(n, bh, out, bo, bt, bb, points)
        _totals(n, bo, bt, after)
        start = last_actor
    return -win_units(after, n)[seat]


def _collect(seed, first_game, n_games, n, policies, params0, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    """Play games ``first_game ..`` with the policy at every seat (through the stepper) and add each
    stuck decision's quit-minus-draw sample to ``acc_pile[stat, token, hand points, pile bin]`` and
    ``acc_opp[..., smallest-opponent-hand bin]``."""
    params = params0.copy()
    slot_of_entry = np.array([0, 1], np.int64)
    entry_of_seat = np.zeros(n, np.int64)
    deck = KD_BASE.copy()
    hands = np.zeros((n, KT.N_CODES), np.int64)
    discard = np.zeros(KT.N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    ones = np.zeros(n, np.int64)
    tens = np.zeros(n, np.int64)
    board = np.zeros(KT.BOARD_LEN, np.int64)
    h0 = np.zeros((n, KT.N_CODES), np.int64)  # the round's deal
    d0 = np.zeros(KT.N_CODES, np.int64)
    q0 = np.zeros(n, np.int64)
    o0 = np.zeros(n, np.int64)
    t0 = np.zeros(n, np.int64)
    b0 = np.zeros(KT.BOARD_LEN, np.int64)
    p0 = np.zeros(2, np.uint64)
    h = np.zeros((n, KT.N_CODES), np.int64)  # the state at a decision (the kernel stopped there)
    d = np.zeros(KT.N_CODES, np.int64)
    q = np.zeros(n, np.int64)
    o = np.zeros(n, np.int64)
    t = np.zeros(n, np.int64)
    b = np.zeros(KT.BOARD_LEN, np.int64)
    sp = np.zeros(2, np.uint64)
    bh = np.zeros((n, KT.N_CODES), np.int64)  # a branch's state
    bdeck = KD_BASE.copy()
    bd = np.zeros(KT.N_CODES, np.int64)
    bq = np.zeros(n, np.int64)
    bo = np.zeros(n, np.int64)
    bt = np.zeros(n, np.int64)
    bb = np.zeros(KT.BOARD_LEN, np.int64)
    before = np.zeros(n, np.int64)
    after = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    totals = np.zeros(n, np.int64)  # the game's scores after a round
    obs = np.zeros(KT.OBS_LEN, np.int64)
    log = np.zeros((4096, 2), np.int64)
    nolog = np.zeros((0, 2), np.int64)
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    bp = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    gs_pile, gn_pile, touched_pile = game_sums(acc_pile)
    gs_opp, gn_opp, touched_opp = game_sums(acc_opp)
    last_col = params.shape[1] - 1
    for g in range(first_game, first_game + n_games):
        R.seed_state(drng, seed, g, R.DEAL_STREAM)
        R.seed_state(prng, seed, g, R.POLICY_STREAM)
        KK.new_table(n, ones, tens, board)
        start = np.int64(0)  # (a literal 0: the round compiled once more for its type)
        k_dec = 0
        nt_pile = 0
        nt_opp = 0
        for _ in range(MAX_ROUNDS_PER_GAME):
            for i in range(deck.shape[0]):
                deck[i] = KD_BASE[i]
            R.shuffle(deck, drng)
            kd_deal_round(n, deck, hands, discard, quit, board)
            copy_into(h0, hands)
            copy_into(d0, discard)
            copy_into(q0, quit)
            copy_into(o0, ones)
            copy_into(t0, tens)
            copy_into(b0, board)
            copy_into(p0, prng)
            entry_of_seat[:] = 0
            out, last_actor, turns = _kadabra_round(n, hands, deck, discard, quit, ones, tens, board, start,
                                                    policies, slot_of_entry, params, entry_of_seat, prng, obs,
                                                    log)
            for k in range(min(turns, log.shape[0])):
                a = log[k, 1]
                if a != KT.DRAW and a != KT.QUIT and a != KT.RETURN_MAGIC:
                    continue
                # Stop the kernel at decision k of a replay of the round: the true state there.
                copy_into(h, h0)
                copy_into(d, d0)
                copy_into(q, q0)
                copy_into(o, o0)
                copy_into(t, t0)
                copy_into(b, b0)
                copy_into(sp, p0)
                entry_of_seat[:] = STEP_ENTRY
                params[STEP_ENTRY, last_col - 1] = k
                params[STEP_ENTRY, last_col] = STOP
                stopped, _, _ = _kadabra_round(n, h, deck, d, q, o, t, b, start, policies, slot_of_entry, params,
                                               entry_of_seat, sp, obs, nolog)
                entry_of_seat[:] = 0
                if stopped != -2 or not _stuck(obs, h):
                    continue
                seat = obs[KT.OBS_SEAT]
                pile = obs[KT.OBS_DRAW_PILE]
                opp = MAX_HAND - 1
                for s in range(n):
                    if s != seat and q[s] == 0:
                        opp = min(opp, obs[KT.OBS_HAND_SIZES + s])
                tc = 2 if t[seat] > 0 else (1 if o[seat] > 0 else 0)  # chart_data.TOKENS: 10, 1, 0
                pts = _hand_points(h, seat)
                _totals(n, o, t, before)
                R.seed_state(bp, seed, g, BRANCH_STREAM + 2 * k_dec)
                R.seed_state(grng, seed, g, BRANCH_STREAM + 2 * k_dec + 1)
                vq = _branch_value(n, seat, KT.QUIT, measure, h, deck, d, q, o, t, b, before, policies, slot_of_entry,
                                   params, entry_of_seat, bp, grng, bh, bdeck, bd, bq, bo, bt, bb, after, points,
                                   obs, nolog)
                R.seed_state(bp, seed, g, BRANCH_STREAM + 2 * k_dec)
                R.seed_state(grng, seed, g, BRANCH_STREAM + 2 * k_dec + 1)
                vd = _branch_value(n, seat, KT.DRAW, measure, h, deck, d, q, o, t, b, before, policies, slot_of_entry,
                                   params, entry_of_seat, bp, grng, bh, bdeck, bd, bq, bo, bt, bb, after, points,
                                   obs, nolog)
                k_dec += 1
                pq = 1 if a == KT.QUIT else 0
                nt_pile = add_sample(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile, tc, pts, pile_bin[pile],
                                     vq - vd, pq)
                nt_opp = add_sample(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp, tc, pts, opp_bin[opp], vq - vd, pq)
            kd_score_round(n, hands, out, ones, tens, board, points)
            _totals(n, ones, tens, totals)
            start = last_actor
            if game_over(totals, n):
                break
        close_game(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile)
        close_game(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp)



def lineup(player, force_first):
    """Entry 0 the player's policy, entry 1 its stepper (two params columns after the policy's: the
    decision number and the action)."""
    return wrapped_lineup(player, stepper_policy(player.strategy.policy), 2)


CHART = ChartRules(
    collect=Kernel(_collect, lambda: COLLECT_SIG, "kadabra chart kernel"),
    lineup=lineup,
    default_policy="showman",
    title="Llama Kadabra",
    wording=STUCK_WORDING,
)
