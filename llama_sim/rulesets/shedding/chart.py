"""The quit chart of the shedding family: the collector behind ``llamasim chart`` for every rule set
on the shared engine (``rulesets/shedding/``); each binds it to its deck and tables in its own
``chart.py`` (``collect_games``, ``lineup``).

The decision charted is the stuck one: no card of the hand fits on the top card and drawing is legal;
quit vs draw. A game is played by the shedding kernel with its action log (``_continue_round``, the
one adapter to ``shedding.play_round``); the round is then replayed from the deal, and at every stuck
decision the true state is branched twice: quit, then everyone plays the policy to the end of the
round; draw (the next card of the real pile), then the same, both on the same fresh policy stream
(common random numbers). A branch is valued by the deciding seat's net score change over the rest of
the round (``M_OWN``: its hand's points, or minus the token it returns on going out), by that change
relative to the others' (``M_RELATIVE``), or by minus its win units after the policy also plays the
rest of the game (``M_WIN``, later rounds dealt from a stream both branches share).

Features: hand points x the cards left in the draw pile (``pile``) and x the smallest hand among the
opponents still in (``opponent``), split by the token going out would return (0, 1, 10, or 20 where the rules have it).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.chart_data import MAX_HAND, token_class
from llama_sim.core.chart_kernel import (
    BRANCH_STREAM, COLLECT_SIG, M_OWN, M_RELATIVE, STUCK_WORDING, ChartRules, add_sample, close_game, game_over,
    game_sums,
)
from llama_sim.core.scoring import MAX_ROUNDS_PER_GAME, largest_token, win_units
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import MAX_PARAMS, policy_tuple
from llama_sim.core.views import copy_into
from llama_sim.rulesets import shedding


@njit(cache=True, nogil=True, inline="always")
def _continue_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                    policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """The one adapter to the shedding kernel: play the round on from a state, in place.
    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos)."""
    return shedding.play_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                               policies, slot_of_entry, params, entry_of_seat, prng, obs, log)


@njit(cache=True, nogil=True, inline="always")
def _round_change(hands, s, out, scores, code_penalty, twins, allow20):
    """Seat s's net score change over a finished round: its points, or minus the token it returns."""
    if out == s:
        return -largest_token(scores[s], allow20)
    return shedding.seat_penalty(hands, s, code_penalty, twins)


@njit(cache=True, nogil=True)
def _branch_value(full_deck, can_play_bits, extra_turn, code_penalty, twins, allow20, starter_last_card, n, seat,
                  draw_first, measure, hands, deck, pos, top, discard, quit, scores, last_play,
                  policies, slot_of_entry, params, entry_of_seat, brng, grng, bh, bd, bq, bs, bdeck, obs, nolog):
    """Value for ``seat`` (lower is better) of quitting (or drawing, ``draw_first``) now and letting the
    policy finish: ``M_OWN`` its net score change over the rest of the round; ``M_RELATIVE`` ``(n - 1)``
    times that minus the others' changes (an integer: (n - 1) x (own - the others' mean)); ``M_WIN``
    minus its win units (60 = a whole win) after the policy also plays the rest of the game, the later
    rounds dealt from ``grng``."""
    copy_into(bh, hands)
    copy_into(bd, discard)
    copy_into(bq, quit)
    p = pos
    if draw_first:
        bh[seat, deck[p]] += 1
        p += 1
    else:
        bq[seat] = 1
    nxt = seat + 1 if seat + 1 < n else 0
    out, last_card, last_actor, _, _ = _continue_round(can_play_bits, extra_turn, n, bh, deck, p, top, bd, bq, nxt,
                                                       scores, policies, slot_of_entry, params, entry_of_seat, brng,
                                                       obs, nolog)
    own = _round_change(bh, seat, out, scores, code_penalty, twins, allow20)
    if measure == M_OWN:
        return own
    if measure == M_RELATIVE:
        total = (n - 1) * own
        for s in range(n):
            if s != seat:
                total -= _round_change(bh, s, out, scores, code_penalty, twins, allow20)
        return total
    # M_WIN: score this round, then play the rest of the game as the game kernel does.
    if last_card < 0:
        last_card = last_play
    copy_into(bs, scores)
    for _r in range(MAX_ROUNDS_PER_GAME):
        for s in range(n):
            bs[s] += _round_change(bh, s, out, bs, code_penalty, twins, allow20)  # bs[s]: s's score before
        if game_over(bs, n):
            break
        start = last_card if (starter_last_card and last_card >= 0) else last_actor
        for i in range(bdeck.shape[0]):
            bdeck[i] = full_deck[i]
        R.shuffle(bdeck, grng)
        p, t = shedding.deal_round(n, bdeck, bh, bd, bq)
        out, last_card, last_actor, _, _ = _continue_round(can_play_bits, extra_turn, n, bh, bdeck, p, t, bd, bq,
                                                           start, bs, policies, slot_of_entry, params, entry_of_seat,
                                                           brng, obs, nolog)
    return -win_units(bs, n)[seat]


@njit(cache=True, nogil=True, inline="always")
def collect_games(full_deck, can_play, extra_turn, code_penalty, twins, flags,
                  seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    """Play games ``first_game ..`` with ``policies[0]`` at every seat and add every stuck decision's
    quit-minus-draw sample to ``acc_pile[stat, token, points, pile_bin]`` and ``acc_opp[...]``."""
    n_codes = can_play.shape[0]
    allow20 = flags[shedding.F_TOKENS20] != 0
    starter_last_card = flags[shedding.F_STARTER_LAST_CARD] != 0
    deck = full_deck.copy()
    deck_len = deck.shape[0]
    hands = np.zeros((n, n_codes), np.int64)
    discard = np.zeros(n_codes, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    h = np.zeros((n, n_codes), np.int64)  # the replayed state
    d = np.zeros(n_codes, np.int64)
    q = np.zeros(n, np.int64)
    bh = np.zeros((n, n_codes), np.int64)  # a branch's state
    bd = np.zeros(n_codes, np.int64)
    bq = np.zeros(n, np.int64)
    obs = np.zeros(shedding.obs_len(n_codes), np.int64)
    can_play_bits = shedding.play_bits_jit(can_play)
    log = np.zeros((shedding.LOG_CAPACITY, 2), np.int64)
    nolog = np.zeros((0, 2), np.int64)
    slot_of_entry = np.zeros(1, np.int64)
    entry_of_seat = np.zeros(n, np.int64)
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    brng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    bs = np.zeros(n, np.int64)
    bdeck = full_deck.copy()
    gs_pile, gn_pile, touched_pile = game_sums(acc_pile)
    gs_opp, gn_opp, touched_opp = game_sums(acc_opp)
    draw_action = n_codes
    quit_action = n_codes + 1
    for g in range(first_game, first_game + n_games):
        R.seed_state(drng, seed, g, R.DEAL_STREAM)
        R.seed_state(prng, seed, g, R.POLICY_STREAM)
        scores[:] = 0
        start = 0
        k_dec = 0
        nt_pile = 0
        nt_opp = 0
        for _ in range(MAX_ROUNDS_PER_GAME):
            for i in range(deck_len):
                deck[i] = full_deck[i]
            R.shuffle(deck, drng)
            pos0, top0 = shedding.deal_round(n, deck, hands, discard, quit)
            copy_into(h, hands)
            copy_into(d, discard)
            copy_into(q, quit)
            out_seat, last_card, last_actor, turns, _ = _continue_round(
                can_play_bits, extra_turn, n, hands, deck, pos0, top0, discard, quit, start, scores,
                policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
            # Replay the round from the deal; branch at every stuck decision.
            pos = pos0
            top = np.int64(top0)  # (an int8 card; int64 once a card is played: one type for _branch_value)
            n_in = n
            last_play = np.int64(-1)  # (typed as the seats it becomes: one compile of _branch_value)
            for k in range(min(turns, log.shape[0])):
                seat = log[k, 0]
                a = log[k, 1]
                stuck = pos < deck_len and n_in > 1
                if stuck:
                    for c in range(n_codes):
                        if can_play[top, c] and h[seat, c] > 0:
                            stuck = False
                            break
                if stuck:
                    R.seed_state(brng, seed, g, BRANCH_STREAM + 2 * k_dec)
                    R.seed_state(grng, seed, g, BRANCH_STREAM + 2 * k_dec + 1)
                    vq = _branch_value(full_deck, can_play_bits, extra_turn, code_penalty, twins, allow20,
                                       starter_last_card, n, seat, np.bool_(False), measure, h, deck, pos, top, d, q,
                                       scores, last_play, policies, slot_of_entry, params, entry_of_seat, brng, grng,
                                       bh, bd, bq, bs, bdeck, obs, nolog)
                    R.seed_state(brng, seed, g, BRANCH_STREAM + 2 * k_dec)
                    R.seed_state(grng, seed, g, BRANCH_STREAM + 2 * k_dec + 1)
                    vd = _branch_value(full_deck, can_play_bits, extra_turn, code_penalty, twins, allow20,
                                       starter_last_card, n, seat, np.bool_(True), measure, h, deck, pos, top, d, q,
                                       scores, last_play, policies, slot_of_entry, params, entry_of_seat, brng, grng,
                                       bh, bd, bq, bs, bdeck, obs, nolog)
                    k_dec += 1
                    t = token_class(scores[seat], allow20)
                    pts = shedding.seat_penalty(h, seat, code_penalty, twins)
                    opp = MAX_HAND - 1
                    for s in range(n):
                        if s != seat and q[s] == 0:
                            size = 0
                            for c in range(n_codes):
                                size += h[s, c]
                            if size < opp:
                                opp = size
                    pq = 1 if a == quit_action else 0
                    nt_pile = add_sample(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile, t, pts,
                                         pile_bin[deck_len - pos], vq - vd, pq)
                    nt_opp = add_sample(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp, t, pts, opp_bin[opp],
                                        vq - vd, pq)
                if a == quit_action:
                    q[seat] = 1
                    n_in -= 1
                elif a == draw_action:
                    h[seat, deck[pos]] += 1
                    pos += 1
                else:
                    h[seat, a] -= 1
                    d[a] += 1
                    top = a
                    last_play = seat
            # Score the round as the game kernel does.
            for s in range(n):
                scores[s] += _round_change(hands, s, out_seat, scores, code_penalty, twins, allow20)
            start = last_card if (starter_last_card and last_card >= 0) else last_actor
            if game_over(scores, n):
                break
        close_game(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile)
        close_game(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp)


def lineup(player, force_first):
    """The collectors' line-up: the player's policy alone (the branches need no forced action: a
    branch's first move is applied to the state before the policy plays on)."""
    funcs, _ = policy_tuple([player])
    return funcs, player.params.reshape(1, MAX_PARAMS).copy()


def chart_rules(collect, name: str, title: str, default_policy: str) -> ChartRules:
    """A shedding rule set's chart hooks: ``collect`` is its ``collect_games`` on its own deck and tables
    (a function of its own module, so that each compiles and caches on its own)."""
    return ChartRules(collect=Kernel(collect, lambda: COLLECT_SIG, f"{name} chart kernel"), lineup=lineup,
                      default_policy=default_policy, title=title, wording=STUCK_WORDING)
