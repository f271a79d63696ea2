"""The dice game's roll-or-quit chart: the collector behind ``llamasim chart --game dice``.

Dice has no hidden cards: every row, the llama row, the discard pile and the scores are public, so
the state at a decision is the whole state. A game is played by the dice engine's own round
function (``_dice_round``, the one adapter to ``dice.play_round``) with its action log, which
holds each roll's outcome; the round is then replayed from the deal (a roll's three llamas, the
chosen discard or take, as the log says) and at every roll-or-quit decision of the multi-player
phase (at least one other player still in; alone, ``solo_optimal`` plays the exact optimum, so
there is nothing to chart) the true state is copied twice: quit, then everyone plays the policy to
the end of the round; roll, then the same. The deciding seat's first action is forced by the
line-up's entry 1 (``lineup``: the policy wrapped to play the action held in the last params column
at the round's first decision, then the policy). Both branches use the same fresh policy, dice and
(win measure) later-deal streams: common random numbers. A branch is valued as every chart's
(``own``: the seat's net score change over the rest of the round, three-llama and going-out token
returns included; ``relative``; ``win``: minus the win share after the policy plays the rest of the
game).

Features (public, and what the roll-or-quit choice turns on): the deciding player's row points
(each distinct value once, llamas 10: what quitting costs) x the cards left in the llama row (chart
``pile``: when it runs low a roll that matches nothing in the own row ends the round in drama at
small cost, and the round is about to end anyway), and x the smallest row among the other players
still in (chart ``opponent``: how close the round is to ending by someone going out), each split
by the token the player would return on going out (0, 1 or 10). The chart is built for the default
dice layout.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.chart_data import MAX_HAND, token_class
from llama_sim.core.chart_kernel import (
    BRANCH_STREAM, COLLECT_SIG, M_WIN, ChartRules, add_sample, close_game, game_over, game_sums, score_change_value,
    wrapped_lineup,
)
from llama_sim.core.scoring import MAX_ROUNDS_PER_GAME, distinct_penalty, largest_token, win_units
from llama_sim.core.jit import Kernel
from llama_sim.core.views import copy_into
from llama_sim.rulesets import dice as D
from llama_sim.rulesets.dice import DECK as DICE_DECK, PENALTY as DICE_PENALTY
from llama_sim.rulesets.dice.kernel import score_dice_round

DEFAULT_CFG = D.RULE_SET.config()  # the default dice layout (a chart is built for it)
FORCED_ENTRY = 1  # line-up entry 1: the policy with its first decision forced (see ``lineup``)


@njit(cache=True, nogil=True)
def _dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                policies, slot_of_entry, params, entry_of_seat, prng, dice_rng, obs, log):
    """The one adapter to the dice kernel: play the round on from a state, in place.
    Returns (end, last_actor, decisions taken)."""
    return D.play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                        policies, slot_of_entry, params, entry_of_seat, prng, dice_rng, obs, log)


@njit(cache=True, nogil=True)
def _branch_value(cfg, n, seat, action, measure, rows, llama_row, discarded, quit, scores,
                  policies, slot_of_entry, params, entry_of_seat, prng, dice_rng, grng,
                  br, bl, bd, bq, bs, bret, deck, obs, nolog):
    """Value for ``seat`` (lower is better) of ``action`` (ROLL or QUIT) now, the policy playing on."""
    copy_into(br, rows)
    copy_into(bl, llama_row)
    copy_into(bd, discarded)
    copy_into(bq, quit)
    copy_into(bs, scores)
    bret[:] = 0
    params[FORCED_ENTRY, params.shape[1] - 1] = action
    entry_of_seat[seat] = FORCED_ENTRY
    end, last_actor, _ = _dice_round(n, br, bl, bd, bq, seat, bs, bret, cfg, policies, slot_of_entry, params,
                                     entry_of_seat, prng, dice_rng, obs, nolog)
    entry_of_seat[seat] = 0
    score_dice_round(n, br, end, last_actor, bs)
    if measure != M_WIN:
        return score_change_value(measure, seat, n, scores, bs)
    start = last_actor
    for _r in range(MAX_ROUNDS_PER_GAME):
        if game_over(bs, n):
            break
        D.deal_round(n, deck, br, bl, bd, bq, grng)
        bret[:] = 0
        end, last_actor, _ = _dice_round(n, br, bl, bd, bq, start, bs, bret, cfg, policies, slot_of_entry, params,
                                         entry_of_seat, prng, dice_rng, obs, nolog)
        score_dice_round(n, br, end, last_actor, bs)
        start = last_actor
    return -win_units(bs, n)[seat]


def _collect(seed, first_game, n_games, n, policies, params0, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    """Play games ``first_game ..`` with the policy (line-up entry 0) at every seat and add each
    multi-player roll-or-quit decision's quit-minus-roll sample to ``acc_pile[stat, token, row points,
    llama-row bin]`` and ``acc_opp[..., smallest-other-row bin]``."""
    cfg = DEFAULT_CFG
    params = params0.copy()
    slot_of_entry = np.array([0, 1], np.int64)
    entry_of_seat = np.zeros(n, np.int64)
    deck = DICE_DECK.copy()
    rows = np.zeros((n, D.N_CODES), np.int64)
    llama_row = np.zeros(D.N_CODES, np.int64)
    discarded = np.zeros(D.N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    returned = np.zeros(n, np.int64)
    h = np.zeros((n, D.N_CODES), np.int64)  # the replayed state
    lr = np.zeros(D.N_CODES, np.int64)
    dd = np.zeros(D.N_CODES, np.int64)
    q = np.zeros(n, np.int64)
    sc = np.zeros(n, np.int64)
    br = np.zeros((n, D.N_CODES), np.int64)  # a branch's state
    bl = np.zeros(D.N_CODES, np.int64)
    bd = np.zeros(D.N_CODES, np.int64)
    bq = np.zeros(n, np.int64)
    bs = np.zeros(n, np.int64)
    bret = np.zeros(n, np.int64)
    bdeck = DICE_DECK.copy()
    obs = np.zeros(D.OBS_LEN, np.int64)
    log = np.zeros((D.LOG_CAPACITY, 3), np.int64)
    nolog = np.zeros((0, 3), np.int64)
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    dice_rng = np.zeros(2, np.uint64)
    bp = np.zeros(2, np.uint64)
    bdice = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    gs_pile, gn_pile, touched_pile = game_sums(acc_pile)
    gs_opp, gn_opp, touched_opp = game_sums(acc_opp)
    for g in range(first_game, first_game + n_games):
        R.seed_state(drng, seed, g, R.DEAL_STREAM)
        R.seed_state(prng, seed, g, R.POLICY_STREAM)
        R.seed_state(dice_rng, seed, g, R.DICE_STREAM)
        scores[:] = 0
        start = np.int64(0)  # (a literal 0: the round compiled once more for its type)
        k_dec = 0
        nt_pile = 0
        nt_opp = 0
        for _ in range(MAX_ROUNDS_PER_GAME):
            D.deal_round(n, deck, rows, llama_row, discarded, quit, drng)
            copy_into(h, rows)
            copy_into(lr, llama_row)
            copy_into(dd, discarded)
            copy_into(q, quit)
            copy_into(sc, scores)
            returned[:] = 0
            end, last_actor, turns = _dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                                 policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                                 obs, log)
            # Replay the round from the deal; branch at every roll-or-quit decision with others still in.
            n_in = n
            turns = min(turns, log.shape[0])
            k = 0
            while k < turns:
                seat = log[k, 0]
                a = log[k, 1]
                if n_in > 1:
                    R.seed_state(bp, seed, g, BRANCH_STREAM + 3 * k_dec)
                    R.seed_state(bdice, seed, g, BRANCH_STREAM + 3 * k_dec + 1)
                    R.seed_state(grng, seed, g, BRANCH_STREAM + 3 * k_dec + 2)
                    vq = _branch_value(cfg, n, seat, D.QUIT, measure, h, lr, dd, q, sc, policies, slot_of_entry,
                                       params, entry_of_seat, bp, bdice, grng, br, bl, bd, bq, bs, bret, bdeck,
                                       obs, nolog)
                    R.seed_state(bp, seed, g, BRANCH_STREAM + 3 * k_dec)
                    R.seed_state(bdice, seed, g, BRANCH_STREAM + 3 * k_dec + 1)
                    R.seed_state(grng, seed, g, BRANCH_STREAM + 3 * k_dec + 2)
                    vr = _branch_value(cfg, n, seat, D.ROLL, measure, h, lr, dd, q, sc, policies, slot_of_entry,
                                       params, entry_of_seat, bp, bdice, grng, br, bl, bd, bq, bs, bret, bdeck,
                                       obs, nolog)
                    k_dec += 1
                    t = token_class(sc[seat], False)
                    pts = distinct_penalty(h[seat], DICE_PENALTY)
                    left = 0
                    for c in range(D.N_CODES):
                        left += lr[c]
                    opp = MAX_HAND - 1
                    for s in range(n):
                        if s != seat and q[s] == 0:
                            size = 0
                            for c in range(D.N_CODES):
                                size += h[s, c]
                            opp = min(opp, size)
                    pq = 1 if a == D.QUIT else 0
                    nt_pile = add_sample(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile, t, pts, pile_bin[left],
                                         vq - vr, pq)
                    nt_opp = add_sample(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp, t, pts, opp_bin[opp],
                                        vq - vr, pq)
                if a == D.QUIT:
                    q[seat] = 1
                    n_in -= 1
                    k += 1
                    continue
                # A roll: three llamas return a token; else the logged discard or take follows (by the
                # same seat, action >= 2); else llama drama, which ended the round.
                o = log[k, 2]
                f0 = cfg[1 + o // 36]
                f1 = cfg[7 + (o // 6) % 6]
                f2 = cfg[13 + o % 6]
                if f0 == D.LLAMA and f1 == D.LLAMA and f2 == D.LLAMA:
                    sc[seat] -= largest_token(sc[seat], False)
                elif k + 1 < turns and log[k + 1, 0] == seat and log[k + 1, 1] > D.QUIT:
                    k += 1
                    choice = log[k, 1]
                    if choice < D.TAKE_BASE:
                        m = choice - D.DISCARD_BASE
                        for i in range(3):
                            if (m >> i) & 1:
                                fi = f0 if i == 0 else (f1 if i == 1 else f2)
                                h[seat, fi] -= 1
                                dd[fi] += 1
                    else:
                        c = choice - D.TAKE_BASE
                        lr[c] = 0
                        h[seat, c] += 1
                k += 1
            score_dice_round(n, rows, end, last_actor, scores)
            start = last_actor
            if game_over(scores, n):
                break
        close_game(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile)
        close_game(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp)



def lineup(player, force_first):
    """Entry 0 the player's policy, entry 1 the same with its first decision forced (one params
    column after the policy's holds the action)."""
    return wrapped_lineup(player, force_first(D.OBS_TURN), 1)


DICE_WORDING = {"letter": "R", "play_on": "roll", "decision": "roll-or-quit decisions with another player still in",
                "question": "roll or quit while others are still in?", "points": "own row points (points)",
                "pile": "cards left in the llama row", "opponent": "smallest row of another player still in (cards)"}

CHART = ChartRules(
    collect=Kernel(_collect, lambda: COLLECT_SIG, "dice chart kernel"),
    lineup=lineup,
    # solo_optimal quitting only at row points <= 1 before it is alone is threshold's play (maximal
    # discards, lowest take) with the exact optimum alone: the play the dice ``chart`` strategy keeps
    # besides its roll-or-quit choice, and close to the strongest built-ins' (threshold's 4-player
    # preset quits at 1). Measured: keeping a llama (keep_llama's discards) cost the chart strategy 3.7
    # points of win rate.
    default_policy="solo_optimal:quit_at=1",
    title="LAMA Dice",
    wording=DICE_WORDING,
    # ``pile``: the cards left in the llama row (1..7); ``opponent``: the smallest row of another
    # player still in (a row holds 1 to 13 cards).
    pile_edges=(1, 2, 3, 4, 5, 6, 7),
    opponent_edges=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    bundled_pile_edges=(1, 2, 3, 4, 5, 6, 7),
    bundled_opponent_edges=tuple(range(1, 14)),
    pile_top=7,
    opponent_top=13,
)
