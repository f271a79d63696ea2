"""Quit charts: when no card fits, is quitting or drawing better? (``llamasim chart``)

A chart is the "basic strategy" of a rule set, read like a blackjack chart: for the stuck decisions
(no card of the hand fits on the top card, and drawing is legal) that a policy really meets, it says
per cell of a few public features whether quitting (``Q``) or drawing (``D``) is better, or that the
data cannot separate them (``?``), with the mean difference, its 95% interval and how often the cell
occurs. Features: the deciding player's hand points x the cards left in the draw pile (chart
``pile``), and hand points x the smallest hand among the opponents still in the round (chart
``opponent``), each split by the token the player would return on going out (0, 1, 10, or Party's
20: ``largest_token`` of their score), because that token changes the value of drawing on.

How a decision is valued: ``policy`` plays full games (to 40 points) with every seat. Each round is
played by the rule set's kernel with its action log; the round is then replayed from the deal, and
at every stuck decision the TRUE state of the simulated game is branched twice: quit, then everyone
plays ``policy`` to the end of the round; draw (the next card of the real pile), then the same. Both
branches use the same fresh policy stream (common random numbers). The value of a branch is the net
change of the deciding player's score over the rest of the round, token return included (as
``penalty_per_round`` in ``compare``): its hand's points, or minus the returned token if it goes out.
One sample is ``value(quit) - value(draw)``; negative means quitting is better.

Why the true state and not a determinization: policies never see hidden cards, so the true state of
a game the policy plays is a draw from the posterior over hidden cards given everything public and
the policy's own history. Averaged over the decisions in a cell, the samples estimate exactly
E[value(quit) - value(draw) | cell] under the distribution of hidden states the policy really meets
(opponents' hands shaped by their own play), where a uniform determinization would deal cards the
opponents' play has already made unlikely. It is also cheap: two partial rounds per decision.

Intervals: the decisions of one game share its deal and history, so they are correlated. The
variance is computed over games (a ratio estimator: per game the sum ``S_g`` and count ``N_g`` of a
cell's samples; mean ``r = sum S / sum N``, variance ``G/(G-1) sum (S_g - r N_g)^2 / (sum N)^2``).
A cell is ``Q`` when its 95% interval lies below 0, ``D`` above 0, else ``?`` (and always ``?`` with
fewer than ``MIN_GAMES`` games holding it). All sums are integers and games are seeded by (seed, game
index), so a seed gives identical tables for any thread count or chunking.

Measures (``measure``): ``own`` is the brief's value above; ``relative`` subtracts the others' mean
change over the rest of the round; ``win`` plays the rest of the GAME after each branch (the later
rounds dealt from a stream both branches share) and values a branch by minus the player's win share.
Why three: a chart valued in points per round plays worse games than ``smart`` (measured: the own-
measure chart loses 6.9 points of win rate to it), because quitting earlier saves points but forgoes
the token a player who goes out returns, and in a game to 40 that token matters more than its
average points. The bundled charts are valued by ``win``.

Rule sets: ``lama`` and ``party`` (the shared shedding engine; one adapter, ``_continue_round``,
calls its kernel) and ``dice`` (``chart_dice``: the roll-or-quit chart of the multi-player phase,
every roll-or-quit decision while another player is still in, quit vs roll; features row points x
the cards left in the llama row (``pile``) and x the smallest row of another player still in
(``opponent``); the answer letter for rolling is ``R``; the dice kernel's log holds each roll, so the
round is replayed from it; one adapter, ``chart_dice._dice_round``, calls the dice kernel) and
``kadabra`` (``chart_kadabra``: the stuck decision as in L.A.M.A., token classes 0, 1, 10 by what going
out returns; its kernel logs only the actions and a card's effects live inside it, so instead of a
hand-written replay the kernel itself is stopped at each candidate decision of a replayed round by a
stepper policy, and its arrays then hold the true state; one adapter, ``chart_kadabra._kadabra_round``).
A chart is also what the ``chart`` strategies play (``strategies/lama.py``, ``party.py``, ``dice.py``,
``kadabra.py``):
``quit_table`` turns a result into the quit table, ``chart_data`` reads the package's own charts
(``llama_sim/rulesets/<game>/chart.json``) and ``emit_strategy`` writes a strategy file.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit, types

from llama_sim.core import registry
from llama_sim.core import rng as R
from llama_sim.core.chart_data import (
    FEATURE_OPPONENT, FEATURE_PILE, MAX_HAND, MAX_PILE, MAX_POINTS, TOKENS, bins, token_class,
)
from llama_sim.core.errors import UsageError
from llama_sim.rulesets import shedding
from llama_sim.rulesets.lama import (
    CAN_PLAY as LAMA_CAN_PLAY, CODE_PENALTY as LAMA_CODE_PENALTY, DECK as LAMA_DECK,
    EXTRA_TURN as LAMA_EXTRA_TURN, FLAGS as LAMA_FLAGS, TWINS as LAMA_TWINS,
)
from llama_sim.rulesets.party import (
    CAN_PLAY as PARTY_CAN_PLAY, CODE_PENALTY as PARTY_CODE_PENALTY, DECK as PARTY_DECK,
    EXTRA_TURN as PARTY_EXTRA_TURN, FLAGS as PARTY_FLAGS, TWINS as PARTY_TWINS,
)
from llama_sim.core.engine import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, WIN_UNITS, largest_token, win_units
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import MAX_PARAMS, POLICIES_TYPE

CHART_GAMES = ("lama", "party", "dice", "kadabra")
# dice: solo_optimal quitting only at row points <= 1 before it is alone is threshold's play (maximal
# discards, lowest take) with the exact optimum alone: the play the dice ``chart`` strategy keeps besides
# its roll-or-quit choice, and close to the strongest built-ins' (threshold's 4-player preset quits at 1).
# Measured: keeping a llama (keep_llama's discards) cost the chart strategy 3.7 points of win rate.
DEFAULT_POLICY = {"lama": "smart", "party": "chain", "dice": "solo_optimal:quit_at=1", "kadabra": "showman"}
DEFAULT_GAMES = 20_000
GAMES_PER_CHUNK = 500
MIN_GAMES = 10  # a cell seen in fewer games is '?' whatever its interval
Z95 = 1.959963984540054
BRANCH_STREAM = 1000  # decision k of a game uses policy stream BRANCH_STREAM + k in both branches

# Accumulator statistics per cell: decisions, sum of samples, per-game sums of S^2, S*N, N^2,
# and how often the policy itself quit there.
N_STAT, S_SUM, S_SS, S_SN, S_NN, S_POLICY_QUIT = range(6)
N_STATS = 6

DEFAULT_PILE_EDGES = (0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 32, 40)
DEFAULT_OPP_EDGES = (1, 2, 3, 4, 5, 6, 7, 9, 12, 16)
BUNDLED_OPP_EDGES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16)
# dice: the ``pile`` feature is the cards left in the llama row (1..7), ``opponent`` the smallest row
# of another player still in (a row holds 1 to 13 cards).
DICE_PILE_EDGES = (1, 2, 3, 4, 5, 6, 7)
DICE_OPP_EDGES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)


# --------------------------------------------------------------------------------------------
# Kernel
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _continue_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                    policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """The one adapter to the shedding kernel: play the round on from a state, in place.
    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos)."""
    return shedding.play_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                               policies, slot_of_entry, params, entry_of_seat, prng, obs, log)


M_OWN, M_RELATIVE, M_WIN = range(3)  # the measure a branch is valued by (kernel codes of MEASURES)


@njit(cache=True, nogil=True, inline="always")
def _round_change(hands, s, out, scores, code_penalty, twins, allow20):
    """Seat s's net score change over a finished round: its points, or minus the token it returns."""
    if out == s:
        return -largest_token(scores[s], allow20)
    return shedding.seat_penalty(hands, s, code_penalty, twins)


@njit(cache=True, nogil=True, inline="always")
def score_change_value(measure, seat, n, before, after):
    """A branch's ``M_OWN`` or ``M_RELATIVE`` value from everyone's scores before and after the rest
    of the round (the dice and Kadabra collectors; L.A.M.A./Party score hands in ``_branch_value``)."""
    own = after[seat] - before[seat]
    if measure != M_RELATIVE:
        return own
    total = (n - 1) * own
    for s in range(n):
        if s != seat:
            total -= after[s] - before[s]
    return total


@njit(cache=True, nogil=True, inline="always")
def game_over(scores, n):
    """Somebody has reached the end of a game (40 points)."""
    for s in range(n):
        if scores[s] >= GAME_END_SCORE:
            return True
    return False


@njit(cache=True, nogil=True)
def _branch_value(full_deck, can_play_bits, extra_turn, code_penalty, twins, allow20, starter_last_card, n, seat,
                  draw_first, measure, hands, deck, pos, top, discard, quit, scores, last_play,
                  policies, slot_of_entry, params, entry_of_seat, brng, grng, bh, bd, bq, bs, bdeck, obs, nolog):
    """Value for ``seat`` (lower is better) of quitting (or drawing, ``draw_first``) now and letting the
    policy finish: ``M_OWN`` its net score change over the rest of the round; ``M_RELATIVE`` ``(n - 1)``
    times that minus the others' changes (an integer: (n - 1) x (own - the others' mean)); ``M_WIN``
    minus its win units (60 = a whole win) after the policy also plays the rest of the game, the later
    rounds dealt from ``grng``."""
    bh[:, :] = hands
    bd[:] = discard
    bq[:] = quit
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
    bs[:] = scores
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
def _game_sums(acc):
    """Zeroed scratch for one game's per-cell sums of ``acc``'s cells: (S_g, N_g, the cells it touched)
    (``_add`` fills them, ``_close_game`` folds them into ``acc`` and clears them)."""
    cells = acc.shape[1] * acc.shape[2] * acc.shape[3]
    return np.zeros(cells, np.int64), np.zeros(cells, np.int64), np.zeros(cells, np.int64)


@njit(cache=True, nogil=True, inline="always")
def _add(acc, game_s, game_n, touched, n_touched, t, p, b, diff, policy_quit):
    cell = (t * acc.shape[2] + p) * acc.shape[3] + b
    if game_n[cell] == 0:
        touched[n_touched] = cell
        n_touched += 1
    game_n[cell] += 1
    game_s[cell] += diff
    acc[N_STAT, t, p, b] += 1
    acc[S_SUM, t, p, b] += diff
    acc[S_POLICY_QUIT, t, p, b] += policy_quit
    return n_touched


@njit(cache=True, nogil=True, inline="always")
def _close_game(acc, game_s, game_n, touched, n_touched):
    """Add one game's per-cell sums to the between-game statistics and clear them."""
    per_t = acc.shape[2] * acc.shape[3]
    for k in range(n_touched):
        cell = touched[k]
        t = cell // per_t
        p = (cell % per_t) // acc.shape[3]
        b = cell % acc.shape[3]
        s = game_s[cell]
        m = game_n[cell]
        acc[S_SS, t, p, b] += s * s
        acc[S_SN, t, p, b] += s * m
        acc[S_NN, t, p, b] += m * m
        game_s[cell] = 0
        game_n[cell] = 0


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
    gs_pile, gn_pile, touched_pile = _game_sums(acc_pile)
    gs_opp, gn_opp, touched_opp = _game_sums(acc_opp)
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
            h[:, :] = hands
            d[:] = discard
            q[:] = quit
            out_seat, last_card, last_actor, turns, _ = _continue_round(
                can_play_bits, extra_turn, n, hands, deck, pos0, top0, discard, quit, start, scores,
                policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
            # Replay the round from the deal; branch at every stuck decision.
            pos = pos0
            top = top0
            n_in = n
            last_play = -1
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
                                       starter_last_card, n, seat, False, measure, h, deck, pos, top, d, q, scores,
                                       last_play, policies, slot_of_entry, params, entry_of_seat, brng, grng,
                                       bh, bd, bq, bs, bdeck, obs, nolog)
                    R.seed_state(brng, seed, g, BRANCH_STREAM + 2 * k_dec)
                    R.seed_state(grng, seed, g, BRANCH_STREAM + 2 * k_dec + 1)
                    vd = _branch_value(full_deck, can_play_bits, extra_turn, code_penalty, twins, allow20,
                                       starter_last_card, n, seat, True, measure, h, deck, pos, top, d, q, scores,
                                       last_play, policies, slot_of_entry, params, entry_of_seat, brng, grng,
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
                    nt_pile = _add(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile, t, pts,
                                   pile_bin[deck_len - pos], vq - vd, pq)
                    nt_opp = _add(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp, t, pts, opp_bin[opp], vq - vd, pq)
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
        _close_game(acc_pile, gs_pile, gn_pile, touched_pile, nt_pile)
        _close_game(acc_opp, gs_opp, gn_opp, touched_opp, nt_opp)


_ACC = types.int64[:, :, :, ::1]
COLLECT_SIG = types.void(types.uint64, types.int64, types.int64, types.int64, POLICIES_TYPE,
                         types.float64[:, ::1], types.int64, types.int64[::1], types.int64[::1], _ACC, _ACC)


def _lama_collect(seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    collect_games(LAMA_DECK, LAMA_CAN_PLAY, LAMA_EXTRA_TURN, LAMA_CODE_PENALTY,
                  LAMA_TWINS, LAMA_FLAGS,
                  seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp)


def _party_collect(seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    collect_games(PARTY_DECK, PARTY_CAN_PLAY, PARTY_EXTRA_TURN, PARTY_CODE_PENALTY,
                  PARTY_TWINS, PARTY_FLAGS,
                  seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp)


COLLECTORS = {
    "lama": Kernel(_lama_collect, lambda: COLLECT_SIG, "lama chart kernel"),
    "party": Kernel(_party_collect, lambda: COLLECT_SIG, "party chart kernel"),
}


# --------------------------------------------------------------------------------------------
# Library
# --------------------------------------------------------------------------------------------


def parse_edges(text: str | None, default: tuple[int, ...], what: str) -> tuple[int, ...]:
    if text is None:
        return default
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise UsageError(f"--{what}-bins takes comma-separated integers, got '{text}'") from None


@dataclass
class ChartResult:
    """``cells``: one row per (chart, token, hand points, feature bin) that occurred, with the
    ``answer`` (Q/D/?), ``mean_quit_minus_draw`` and its 95% interval (points; for the win measure a
    win-probability difference), ``decisions``, ``effective_games`` ((sum N)^2 / sum N^2 over games, a
    lower bound on the games that held the cell), ``share`` of all decisions, ``per_game`` and
    ``policy_quit_rate`` (how often the policy itself quit there). ``summary``: totals per token
    class. ``plot(chart)`` draws the ``pile`` or ``opponent`` heatmaps."""

    game: str
    players: int
    policy: str
    games: int
    seed: int
    cells: pd.DataFrame
    summary: pd.DataFrame
    pile_edges: tuple[int, ...] = field(default=DEFAULT_PILE_EDGES)
    opp_edges: tuple[int, ...] = field(default=DEFAULT_OPP_EDGES)
    measure: str = "own"

    def plot(self, chart: str = "pile"):
        return chart_figure(self, chart)


MEASURES = ("own", "relative", "win")  # M_OWN, M_RELATIVE, M_WIN
_SHEDDING_WORDS = {"letter": "D", "play_on": "draw", "decision": "stuck decisions (no card fits, drawing legal)",
                   "question": "quit or draw when no card fits?", "points": "hand points when stuck (points)",
                   "pile": "cards left in the draw pile", "opponent": "smallest opponent hand (cards) of those still in"}
# How a chart is labelled: the answer letter for playing on, and the words of tables and plots.
WORDING = {"lama": _SHEDDING_WORDS, "party": _SHEDDING_WORDS, "kadabra": _SHEDDING_WORDS,
           "dice": {"letter": "R", "play_on": "roll",
                    "decision": "roll-or-quit decisions with another player still in",
                    "question": "roll or quit while others are still in?", "points": "own row points (points)",
                    "pile": "cards left in the llama row", "opponent": "smallest row of another player still in (cards)"}}
CELL_COLUMNS = ["game", "players", "policy", "measure", "chart", "token", "hand_points", "feature", "bin_low", "bin_high",
                "answer", "mean_quit_minus_draw", "ci_low", "ci_high", "decisions", "effective_games", "share",
                "per_game", "policy_quit_rate", "seed"]
FEATURES = {"pile": "draw_pile", "opponent": "min_opponent_hand"}
FEATURE_CODES = {"pile": FEATURE_PILE, "opponent": FEATURE_OPPONENT}


def _spans(game: str, chart_name: str, edges: tuple[int, ...]) -> list[tuple[int, int]]:
    """Each bin's (low, high); a dice bin ends where the feature does (7 llama-row cards, 13-card rows)."""
    spans = bins(edges, MAX_PILE if chart_name == "pile" else MAX_HAND, chart_name)[1]
    if game == "dice":
        top = 7 if chart_name == "pile" else 13
        spans = [(lo, max(lo, min(hi, top))) for lo, hi in spans]
    return spans


def _bin_labels(spans: list[tuple[int, int]]) -> list[str]:
    """A bin's column label: its value, or its range ``low-high``."""
    return [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans]


def _cells(acc: np.ndarray, spans, chart: str, game: str, players: int, policy: str, measure: str, games: int,
           seed: int, total: int, scale: int) -> pd.DataFrame:
    play_on = WORDING[game]["letter"]
    rows = []
    for t, p, b in zip(*np.nonzero(acc[N_STAT])):
        n_dec = int(acc[N_STAT, t, p, b])
        s = int(acc[S_SUM, t, p, b])
        mean = s / n_dec
        ss, sn, nn = (float(acc[k, t, p, b]) for k in (S_SS, S_SN, S_NN))
        resid = ss - 2 * mean * sn + mean * mean * nn  # sum over games of (S_g - mean N_g)^2
        var = games / (games - 1) * max(resid, 0.0) / (n_dec * n_dec) if games > 1 else math.inf
        half = Z95 * math.sqrt(var)
        lo, hi = (mean - half) / scale, (mean + half) / scale
        mean /= scale
        effective_games = _effective_games(acc, t, p, b)
        answer = "?"
        if effective_games >= MIN_GAMES and hi < 0:
            answer = "Q"
        elif effective_games >= MIN_GAMES and lo > 0:
            answer = play_on
        rows.append((game, players, policy, measure, chart, TOKENS[t], int(p), FEATURES[chart], spans[b][0], spans[b][1],
                     answer, mean, lo, hi, n_dec, effective_games, n_dec / total, n_dec / games,
                     acc[S_POLICY_QUIT, t, p, b] / n_dec, seed))
    df = pd.DataFrame(rows, columns=CELL_COLUMNS)
    return df.sort_values(["token", "hand_points", "bin_low"], kind="stable").reset_index(drop=True)


def _effective_games(acc, t, p, b) -> int:
    """(sum N_g)^2 / sum N_g^2: the effective number of games holding the cell, at most the number
    that did (Cauchy-Schwarz), equal when each held it equally often."""
    nn = acc[S_NN, t, p, b]
    n_dec = acc[N_STAT, t, p, b]
    return int(n_dec * n_dec // nn) if nn else 0


def _player(game: str, policy: str) -> registry.Player:
    return registry.parse_spec(game, policy)


def chart(game: str, players: int = 4, policy: str | None = None, games: int = DEFAULT_GAMES, seed: int = 1,
          threads: int | None = None, pile_edges: tuple[int, ...] | None = None,
          opp_edges: tuple[int, ...] | None = None, progress=None, measure: str = "own") -> ChartResult:
    """The quit charts of ``game`` for ``players`` players under ``policy`` (see the module docstring).

    ``measure``: ``own`` values a branch by the deciding player's net score change (as
    ``penalty_per_round``); ``relative`` by that change minus the mean change of the other players,
    which is what decides a game (quitting early also hands the others an easier round); ``win``
    by minus the win probability, the policy also playing the rest of the game after the round."""
    if measure not in MEASURES:
        raise UsageError(f"unknown --measure '{measure}' (use {', '.join(MEASURES)})")
    from llama_sim.core.ruleset import get_game
    spec = get_game(game)
    if spec.name not in CHART_GAMES:
        raise UsageError(f"chart supports {', '.join(CHART_GAMES)}, not {spec.name}")
    if not spec.min_players <= players <= spec.max_players:
        raise UsageError(f"{spec.name} is played by {spec.min_players} to {spec.max_players} players, not {players}")
    if games < 2:
        raise UsageError(f"--games must be at least 2 (intervals are over games), not {games}")
    policy = policy or DEFAULT_POLICY[spec.name]
    player = _player(spec.name, policy)
    dice = spec.name == "dice"
    pile_edges = tuple(pile_edges) if pile_edges is not None else (DICE_PILE_EDGES if dice else DEFAULT_PILE_EDGES)
    opp_edges = tuple(opp_edges) if opp_edges is not None else (DICE_OPP_EDGES if dice else DEFAULT_OPP_EDGES)
    pile_bin, _ = bins(pile_edges, MAX_PILE, "pile")
    opp_bin, _ = bins(opp_edges, MAX_HAND, "opponent")
    pile_spans, opp_spans = _spans(spec.name, "pile", pile_edges), _spans(spec.name, "opponent", opp_edges)
    if dice or spec.name == "kadabra":
        # entry 0 the policy, entry 1 the same behind a wrapper reading the params columns added after
        # the policy's: dice forces its first decision (one column), Kadabra steps it (two; chart_kadabra)
        if dice:
            from llama_sim.analysis import chart_dice as collector
            from llama_sim.analysis.advise import forced_policy, turn_index
            key = player.strategy.game + "." + player.strategy.name
            wrapper, extra = forced_policy("dice", key, player.strategy.policy, turn_index("dice")), 1
        else:
            from llama_sim.analysis import chart_kadabra as collector
            wrapper, extra = collector.stepper_policy(player.strategy.policy), 2
        funcs = (player.strategy.policy, wrapper) + (player.strategy.policy,) * (registry.MAX_POLICIES - 2)
        params = np.zeros((2, MAX_PARAMS + extra), np.float64)
        params[:, :MAX_PARAMS] = player.params
        kernel = collector.collect
    else:
        funcs, _ = registry.policy_tuple([player])
        params = player.params.reshape(1, MAX_PARAMS).copy()
        kernel = COLLECTORS[spec.name]
    kernel.get()
    shape_pile = (N_STATS, len(TOKENS), MAX_POINTS, len(pile_spans))
    shape_opp = (N_STATS, len(TOKENS), MAX_POINTS, len(opp_spans))
    chunks = [(g, min(GAMES_PER_CHUNK, games - g)) for g in range(0, games, GAMES_PER_CHUNK)]

    def one(chunk):
        first, count = chunk
        acc_pile = np.zeros(shape_pile, np.int64)
        acc_opp = np.zeros(shape_opp, np.int64)
        kernel(np.uint64(seed % 2**64), first, count, players, funcs, params, MEASURES.index(measure),
               pile_bin, opp_bin, acc_pile, acc_opp)
        return acc_pile, acc_opp

    from llama_sim.run.simulate import default_threads
    threads = default_threads() if threads is None else threads
    if threads < 1:
        raise UsageError(f"--threads must be at least 1, not {threads}")
    acc_pile = np.zeros(shape_pile, np.int64)
    acc_opp = np.zeros(shape_opp, np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for (first, count), (a, b) in zip(chunks, pool.map(one, chunks)):
            acc_pile += a
            acc_opp += b
            if progress is not None:
                progress(count)
    total = int(acc_pile[N_STAT].sum())
    label = player.label
    scale = {"own": 1, "relative": players - 1, "win": WIN_UNITS}[measure]
    cells = pd.concat([
        _cells(acc_pile, pile_spans, "pile", spec.name, players, label, measure, games, seed, max(total, 1), scale),
        _cells(acc_opp, opp_spans, "opponent", spec.name, players, label, measure, games, seed, max(total, 1), scale),
    ], ignore_index=True)
    summary = _summary(acc_pile, spec.name, players, label, measure, games, seed, scale)
    return ChartResult(spec.name, players, label, games, seed, cells, summary, tuple(pile_edges), tuple(opp_edges),
                       measure)


def _summary(acc: np.ndarray, game: str, players: int, policy: str, measure: str, games: int, seed: int,
             scale: int) -> pd.DataFrame:
    """Totals per token class: decisions, how often the policy quit, how often quitting was better."""
    rows = []
    for t in range(len(TOKENS)):
        n_dec = int(acc[N_STAT, t].sum())
        if n_dec == 0:
            continue
        rows.append((game, players, policy, measure, TOKENS[t], n_dec, n_dec / games,
                     acc[S_POLICY_QUIT, t].sum() / n_dec, acc[S_SUM, t].sum() / n_dec / scale, seed))
    return pd.DataFrame(rows, columns=["game", "players", "policy", "measure", "token", "decisions", "per_game",
                                       "policy_quit_rate", "mean_quit_minus_draw", "seed"])


# --------------------------------------------------------------------------------------------
# A chart as a strategy's table
# --------------------------------------------------------------------------------------------


def _edges(result: ChartResult, feature: str) -> tuple[int, ...]:
    if feature not in FEATURES:
        raise UsageError(f"unknown chart feature '{feature}' (use {', '.join(FEATURES)})")
    return result.pile_edges if feature == "pile" else result.opp_edges


def quit_table(result: ChartResult, feature: str = "pile") -> np.ndarray:
    """``table[token class, hand points, feature bin] == 1``: quit when stuck (``feature``: the
    ``pile`` or the ``opponent`` chart). A cell is decided by the sign of its mean (a '?' cell costs
    little either way: its difference is near 0); a cell that never occurred takes the nearest
    occurring cell of the same token class and bin by hand points (ties to the lower), or drawing when
    the class has none."""
    edges = _edges(result, feature)
    table = np.zeros((len(TOKENS), MAX_POINTS, len(edges)), np.int8)
    known = np.zeros_like(table, dtype=bool)
    for row in result.cells[result.cells["chart"] == feature].itertuples():
        t = TOKENS.index(row.token)
        b = edges.index(row.bin_low)
        table[t, row.hand_points, b] = 1 if row.mean_quit_minus_draw < 0 else 0
        known[t, row.hand_points, b] = True
    for t in range(len(TOKENS)):
        for b in range(len(edges)):
            have = np.flatnonzero(known[t, :, b])
            if have.size == 0:
                continue
            for p in range(MAX_POINTS):
                if not known[t, p, b]:
                    table[t, p, b] = table[t, have[np.argmin(np.abs(have - p))], b]
    return table


def chart_document(results: list[ChartResult], feature: str = "opponent") -> dict:
    """The JSON document a ``chart`` strategy reads (``chart_data``): one quit table per player count."""
    first = results[0]
    return {
        "game": first.game, "policy": first.policy, "measure": first.measure, "games": first.games,
        "seed": first.seed, "tokens": list(TOKENS), "max_points": MAX_POINTS,
        "feature": feature, "edges": list(_edges(first, feature)),
        "tables": {str(r.players): quit_table(r, feature).tolist() for r in results},
    }


def emit_strategy(result: ChartResult, path: Path, feature: str = "opponent") -> str:
    """Write a strategy file playing ``result``'s ``feature`` chart (load it with ``--strategies-file``).

    The strategy is named after the file (``my_chart.py`` -> ``my_chart``); it plays the rule set's
    ``chart`` card choice and the chart's quit/draw choice. Returns the strategy's name."""
    name = Path(path).stem
    if not name.isidentifier():
        raise UsageError(f"--emit-strategy {path}: the file name must be a Python name (it names the strategy)")
    edges = _edges(result, feature)
    table = quit_table(result, feature)
    bin_of, _ = bins(edges, MAX_PILE if feature == "pile" else MAX_HAND, feature)
    code = FEATURE_CODES[feature]
    text = f'''"""A quit chart as a strategy: written by `llamasim chart --game {result.game} --players {result.players}
--policy {result.policy} --measure {result.measure} --games {result.games} --seed {result.seed}
--emit-strategy {Path(path).name}` ({feature} chart, bins from {list(edges)}).

Load it with `--strategies-file {Path(path).name}` and play it as `{name}`."""
import numpy as np

from llama_sim.core.registry import strategy
from llama_sim.strategies.{result.game} import chart_policy_action

# QUIT[token class (0, 1, 10, 20), hand points, bin] == 1: quit when no card fits.
QUIT = np.array({table.tolist()!r}, dtype=np.int8)
# The bin of every value of the feature ({FEATURES[feature]}).
BIN_OF = np.array({bin_of.tolist()!r}, dtype=np.int64)


@strategy("{result.game}", "{name}", "Plays the {result.game} {feature} chart built from {result.policy} at "
          "{result.players} players ({result.measure} measure, {result.games} games, seed {result.seed}): the "
          "chart strategy's card choice, the chart's quit/draw choice.")
def {name}(obs, hand, legal, params, rng):
    return chart_policy_action(obs, hand, legal, rng, QUIT, BIN_OF, {code})
'''
    Path(path).write_text(text)
    return name


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def _unit(result: ChartResult) -> str:
    """What the printed and plotted numbers are in (the tables hold the unscaled values)."""
    return {"own": "points over the rest of the round",
            "relative": "points relative to the others' mean, over the rest of the round",
            "win": "percentage points of losing the game"}[result.measure]


def _shown(result: ChartResult, value: float) -> float:
    """A mean as printed and plotted: points, or the win measure in percentage points."""
    return value * (100 if result.measure == "win" else 1)


def readable(result: ChartResult, chart_name: str = "pile") -> str:
    """The chart as text: one line per hand points, one column per bin, per token class."""
    df = result.cells[result.cells["chart"] == chart_name]
    edges = result.pile_edges if chart_name == "pile" else result.opp_edges
    spans = _spans(result.game, chart_name, edges)
    words = WORDING[result.game]
    feature = words[chart_name]
    lines = [f"{result.game}, {result.players} players, policy {result.policy}, {result.games} games, seed "
             f"{result.seed}: {words['decision']}, quit - {words['play_on']} in {_unit(result)} "
             f"(Q quit better, {words['letter']} {words['play_on']} better, ? cannot separate at 95%); "
             f"columns: {feature}"]
    labels = _bin_labels(spans)
    for token, part in df.groupby("token"):
        lines.append(f"\ntoken returned on going out: {token}  ({int(part['decisions'].sum())} decisions)")
        cols = sorted(part["bin_low"].unique())
        head = ["pts"] + [labels[list(edges).index(c)] for c in cols]
        body = []
        for pts, row in part.groupby("hand_points"):
            by = {r.bin_low: r for r in row.itertuples()}
            body.append([str(pts)] + [f"{by[c].answer}{_shown(result, by[c].mean_quit_minus_draw):+.1f}" if c in by
                                      else "" for c in cols])
        widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
        lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths)))
        lines.extend("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Plot
# --------------------------------------------------------------------------------------------

GAME_TITLES = {"lama": "L.A.M.A.", "party": "L.A.M.A. Party", "dice": "LAMA Dice", "kadabra": "Llama Kadabra"}


def chart_figure(result: ChartResult, chart_name: str = "pile"):
    """Heatmaps of one chart, one panel per token class: rows hand points, columns the feature's
    bins; colour the mean quit - draw (blue: quit better, red: draw better), each cell labelled with
    its answer and mean; blank where the policy never met the cell."""
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    if chart_name not in FEATURES:
        raise UsageError(f"unknown chart '{chart_name}' (use {', '.join(FEATURES)})")
    words = WORDING[result.game]
    df = result.cells[result.cells["chart"] == chart_name]
    edges = _edges(result, chart_name)
    labels = _bin_labels(_spans(result.game, chart_name, edges))
    tokens = sorted(df["token"].unique()) or [0]
    points = sorted(df["hand_points"].unique()) or [0]
    used_bins = sorted(df["bin_low"].unique()) or [edges[0]]
    # colour scale from the cells seen in enough games (a rare cell's mean is noise)
    solid = df[df["effective_games"] >= MIN_GAMES]["mean_quit_minus_draw"].map(lambda v: abs(_shown(result, v)))
    bmax = max(float(solid.quantile(0.95)) if len(solid) else 1.0, 0.1)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-bmax, vmax=bmax)
    fig = Figure(figsize=(1.2 + 0.62 * len(used_bins) * len(tokens) + 1.5, 1.8 + 0.27 * len(points)))
    axes = fig.subplots(1, len(tokens), squeeze=False, sharey=True)
    image = None
    for ax, token in zip(axes[0], tokens):
        part = df[df["token"] == token]
        grid = np.full((len(points), len(used_bins)), np.nan)
        for r in part.itertuples():
            i, j = points.index(r.hand_points), used_bins.index(r.bin_low)
            shown = _shown(result, r.mean_quit_minus_draw)
            grid[i, j] = shown
            dark = abs(norm(max(-bmax, min(bmax, shown))) - 0.5) > 0.3
            ax.text(j, i, f"{r.answer}\n{shown:+.1f}", ha="center", va="center", fontsize=6.5,
                    linespacing=0.9, color="white" if dark else "black",
                    fontweight="bold" if r.answer != "?" else "normal")
        image = ax.imshow(grid, cmap="RdBu_r", norm=norm, aspect="auto", origin="lower")
        ax.set_xticks(range(len(used_bins)), [labels[list(edges).index(lo)] for lo in used_bins], rotation=60,
                      fontsize=7)
        ax.set_yticks(range(len(points)), [str(p) for p in points], fontsize=7)
        ax.set_title(f"token returned on going out: {token}\n({int(part['decisions'].sum()):,} decisions)", fontsize=8)
        ax.set_xlabel(words[chart_name], fontsize=8)
    axes[0][0].set_ylabel(words["points"], fontsize=8)
    fig.suptitle(f"{GAME_TITLES.get(result.game, result.game)}, {result.players} players, policy {result.policy}: "
                 f"{words['question']}\nQ: quit better, {words['letter']}: {words['play_on']} better, ?: 95% "
                 f"interval covers 0; number: mean of quit - {words['play_on']} ({_unit(result)}); "
                 f"{result.games:,} games, seed {result.seed}", fontsize=9)
    cbar = fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, pad=0.02)
    cbar.set_label(f"quit - {words['play_on']} ({_unit(result)}); blue: quit better, red: {words['play_on']} better",
                   fontsize=8)
    return fig


def write_chart_file(game: str, players: list[int], path: Path, policy: str | None = None,
                     games: int = DEFAULT_GAMES, seed: int = 1, threads: int | None = None,
                     measure: str = "win", feature: str = "opponent",
                     pile_edges: tuple[int, ...] | None = None,
                     opp_edges: tuple[int, ...] | None = None) -> dict:
    """Build the charts of ``players`` player counts and write the document a ``chart`` strategy reads
    (how ``llama_sim/rulesets/<game>/chart.json`` is made: ``scripts/build_charts.py``). Default bins: one
    per value (L.A.M.A./Party pile 0..49, opponent hands 1..13 and 16+; dice llama row 1..7, rows 1..13)."""
    dice = game == "dice"
    if pile_edges is None:
        pile_edges = DICE_PILE_EDGES if dice else tuple(range(MAX_PILE))
    if opp_edges is None:
        opp_edges = tuple(range(1, 14)) if dice else BUNDLED_OPP_EDGES
    results = [chart(game, n, policy, games, seed, threads, pile_edges, opp_edges, measure=measure) for n in players]
    doc = chart_document(results, feature)
    Path(path).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    return doc
