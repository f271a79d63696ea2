"""Toy (rule set ``toy``): a small shedding game that exists to prove a rule set is one folder.

It ships in a package of its own, found through its entry point (group ``llama_sim.rulesets``, in its
``pyproject.toml``), then simulates, compares, advises, benches and passes
``llama_sim.testing.check_rule_set`` like the built-in rule sets, with no edit to llama_sim.

Rules: 12 cards, four each of the values 1, 2 and 3 (codes 0, 1, 2). 2 or 3 players; deal 3 each,
the next card starts the discard pile, the rest is the draw pile. On your turn play a card equal to
the top card or one higher (a 1 follows a 3), draw (while the pile has cards and someone else is
still in; drawing ends the turn), or quit. The round ends when a player plays their last card or
everyone has quit. Each distinct value left in a hand scores its value once; going out scores 0 and
returns the largest token held. A game ends after the round in which someone reaches 40; the seat
after the previous starter starts the next round.

Actions: 0..2 play that code, 3 draw, 4 quit. Observation (int64, ``OBS_LEN``): seat, players, top
code, draw-pile size, players still in, then each seat's hand size, quit flag and score (3 each),
then the decisions taken so far this round.
Random numbers: each round shuffles the whole deck with the deal stream (``rng.shuffle``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.blocks import BlockKernel, block_loop
from llama_sim.core.scoring import (
    ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, ask_policy, largest_token, reference_block_loop,
)
from llama_sim.core.ruleset import RuleSet

N_CODES = 3
CODE_NAMES = ("1", "2", "3")
ACTION_NAMES = ("play 1", "play 2", "play 3", "draw", "quit")
DRAW, QUIT = 3, 4
HAND_SIZE = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 3
DECK = np.repeat(np.arange(N_CODES, dtype=np.int64), 4)
OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_PILE, OBS_ACTIVE = range(5)
OBS_HAND_SIZES, OBS_QUIT, OBS_SCORES, OBS_TURN = 5, 8, 11, 14
OBS_LEN = 15
NOBODY = 99  # no seat went out (``ILLEGAL`` is negative)


@njit(cache=True)
def penalty_of(hand):
    return (1 if hand[0] else 0) + (2 if hand[1] else 0) + (3 if hand[2] else 0)


@njit(cache=True)
def legal_mask(hand, top, pile_left, others_in):
    """The legal actions as a bit mask."""
    mask = 1 << QUIT
    for c in (top, (top + 1) % N_CODES):
        if hand[c] > 0:
            mask |= 1 << c
    if pile_left > 0 and others_in:
        mask |= 1 << DRAW
    return mask


@njit(cache=True)
def play_state(n, hands, pile, pos, top, quit, start, scores, entry_of_seat, policies, slot_of_entry, params, prng,
               bad):
    """Play a round on from a state: ``hands`` (a count per code per seat), the draw pile ``pile[pos:]``,
    the ``top`` code, the ``quit`` flags; seat ``start`` acts first. Updates ``hands`` and ``quit``;
    returns the seat that went out, ``NOBODY`` or ``ILLEGAL`` (``bad`` = entry, seat, action)."""
    obs = np.zeros(OBS_LEN, np.int64)
    active = n - quit.sum()
    seat = start
    turn = 0
    while active > 0:
        if quit[seat] == 0:
            mask = legal_mask(hands[seat], top, pile.shape[0] - pos, active > 1)
            obs[OBS_SEAT], obs[OBS_PLAYERS], obs[OBS_TOP] = seat, n, top
            obs[OBS_PILE], obs[OBS_ACTIVE], obs[OBS_TURN] = pile.shape[0] - pos, active, turn
            for s in range(n):
                obs[OBS_HAND_SIZES + s] = hands[s].sum()
                obs[OBS_QUIT + s] = quit[s]
                obs[OBS_SCORES + s] = scores[s]
            e = entry_of_seat[seat]
            a = policies[slot_of_entry[e]](obs, hands[seat], mask, params[e], prng)
            turn += 1
            if a < 0 or a > QUIT or not (mask >> a) & 1:
                bad[0], bad[1], bad[2] = e, seat, a
                return ILLEGAL
            if a == QUIT:
                quit[seat] = 1
                active -= 1
            elif a == DRAW:
                hands[seat, pile[pos]] += 1
                pos += 1
            else:
                hands[seat, a] -= 1
                top = a
                if hands[seat].sum() == 0:
                    return seat
        seat = (seat + 1) % n
    return NOBODY


@njit(cache=True)
def copy_into(dst, src):
    """``dst[...] = src`` for contiguous arrays of one shape, element by element: an array-to-array slice
    assignment compiles Numba's shape-mismatch message, over a second of every first compile."""
    to, of = dst.reshape(dst.size), src.reshape(src.size)
    for i in range(to.size):
        to[i] = of[i]


@njit(cache=True)
def play_round(n, start, scores, entry_of_seat, policies, slot_of_entry, params, drng, prng, penalty, quits, bad):
    """One round from a fresh deal (the whole deck shuffled with ``drng``); per seat ``penalty`` and
    ``quits``; returns the seat that went out, ``NOBODY`` or ``ILLEGAL``."""
    deck = DECK.copy()
    R.shuffle(deck, drng)
    hands = np.zeros((n, N_CODES), np.int64)
    for s in range(n):
        for k in range(HAND_SIZE):
            hands[s, deck[s * HAND_SIZE + k]] += 1
    quit = np.zeros(n, np.int64)
    out = play_state(n, hands, deck, n * HAND_SIZE + 1, deck[n * HAND_SIZE], quit, start, scores, entry_of_seat,
                     policies, slot_of_entry, params, prng, bad)
    for s in range(n):
        penalty[s] = 0 if s == out else penalty_of(hands[s])
        quits[s] = quit[s]
    return out


@njit(cache=True)
def play_game(n, entry_of_seat, policies, slot_of_entry, params, drng, prng, penalty, went_out, quits, final, bad):
    """A game to 40: per seat totals into ``penalty``/``went_out``/``quits``, ``final`` scores; returns
    the number of rounds, ``ILLEGAL`` or ``ENDLESS``."""
    scores = np.zeros(n, np.int64)
    round_penalty = np.zeros(n, np.int64)
    round_quits = np.zeros(n, np.int64)
    start = 0
    for rounds in range(1, MAX_ROUNDS_PER_GAME + 1):
        out = play_round(n, start, scores, entry_of_seat, policies, slot_of_entry, params, drng, prng,
                         round_penalty, round_quits, bad)
        if out == ILLEGAL:
            return ILLEGAL
        if out != NOBODY:  # going out scores 0 and returns a token: the round's change of score
            went_out[out] += 1
            round_penalty[out] = -largest_token(scores[out], False)
        for s in range(n):
            penalty[s] += round_penalty[s]
            quits[s] += round_quits[s]
            scores[s] += round_penalty[s]
        if scores.max() >= GAME_END_SCORE:
            copy_into(final, scores)
            return rounds
        start = (start + 1) % n
    return ENDLESS


@njit(cache=True, inline="always")
def play_seating(play_seating, decide, state, key, r, n, entry_of_seat, policies, slot_of_entry, params, drng, prng,
                 penalty, went_out, quits, final, luck, bad, one_round):
    """One seating of a block (``core.blocks.play``): a game, or a round from 0 points."""
    if not one_round:
        return play_game(n, entry_of_seat[r], policies, slot_of_entry, params, drng, prng, penalty, went_out, quits,
                         final, bad)
    out = play_round(n, 0, np.zeros(n, np.int64), entry_of_seat[r], policies, slot_of_entry, params, drng, prng,
                     penalty, quits, bad)
    if out == ILLEGAL:
        return ILLEGAL
    if out != NOBODY:
        went_out[out] = 1
    return 0


def kernel_loop(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode, policies,
                slot_of_entry, params, s1, upper, v, bad):
    """The paired block loop (``core.blocks.block_loop``) around this rule set's seating; no scratch of its own."""
    return block_loop(play_seating, (), decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                      games_mode, policies, slot_of_entry, params, s1, upper, v, bad)


# Its rounds allocate, so its loop keeps reference counting.
run_blocks = BlockKernel(kernel_loop, lambda: (), lambda cfg: (), "toy kernel", MAX_PLAYERS, reference_counted=True)


# ------------------------------------------------------------------------- the reference engine

class RoundResult:
    def __init__(self, penalties, out_seat, quit):
        self.penalties, self.out_seat, self.quit = penalties, out_seat, quit


class GameResult:
    def __init__(self, final, penalty, went_out, quit, rounds):
        self.final, self.penalty, self.went_out, self.quit, self.rounds = final, penalty, went_out, quit, rounds


def reference_round(players, start, scores, drng, prng) -> RoundResult:
    """One round as the rules read: the same deal and policy streams as ``play_round``."""
    n = len(players)
    deck = DECK.copy()
    R.shuffle(deck, drng)
    hands = [np.bincount(deck[s * HAND_SIZE:(s + 1) * HAND_SIZE], minlength=N_CODES) for s in range(n)]
    pile = list(deck[n * HAND_SIZE:])
    top = int(pile.pop(0))
    quit = [0] * n
    seat, out, turn = start, -1, 0
    while sum(1 for q in quit if not q) > 0:
        if not quit[seat]:
            still_in = sum(1 for q in quit if not q)
            legal = 1 << QUIT
            for c in {top, (top + 1) % N_CODES}:
                if hands[seat][c]:
                    legal |= 1 << c
            if pile and still_in > 1:
                legal |= 1 << DRAW
            obs = np.array([seat, n, top, len(pile), still_in] + [int(h.sum()) for h in hands] + [0] * (3 - n)
                           + quit + [0] * (3 - n) + list(scores) + [0] * (3 - n) + [turn], dtype=np.int64)
            action = ask_policy(players[seat], seat, obs, hands[seat], legal, prng)
            turn += 1
            if action == QUIT:
                quit[seat] = 1
            elif action == DRAW:
                hands[seat][pile.pop(0)] += 1
            else:
                hands[seat][action] -= 1
                top = action
                if hands[seat].sum() == 0:
                    out = seat
                    break
        seat = (seat + 1) % n
    penalties = [0 if s == out else int(sum(c + 1 for c in range(N_CODES) if hands[s][c])) for s in range(n)]
    return RoundResult(penalties, out, quit)


def reference_game(players, drng, prng) -> GameResult:
    n = len(players)
    scores, penalty, went_out, quits, rounds = [0] * n, [0] * n, [0] * n, [0] * n, []
    start = 0
    while True:
        res = reference_round(players, start, scores, drng, prng)
        rounds.append(res)
        if res.out_seat >= 0:  # going out scores 0 and returns a token: the round's change of score
            went_out[res.out_seat] += 1
            res.penalties[res.out_seat] = -int(largest_token(scores[res.out_seat], False))
        for s in range(n):
            penalty[s] += res.penalties[s]
            quits[s] += res.quit[s]
            scores[s] += res.penalties[s]
        if max(scores) >= GAME_END_SCORE:
            return GameResult(np.array(scores), penalty, went_out, quits, rounds)
        start = (start + 1) % n


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode, entries,
                     cfg, s1, s2):
    def play(players, streams):
        drng, prng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM]
        if games_mode:
            return reference_game(players, drng, prng)
        return reference_round(players, 0, [0] * n, drng, prng)

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)


def config(**options) -> np.ndarray:
    RULE_SET.reject_other_options(options)
    return np.zeros(1, np.int64)


RULE_SET = RuleSet(
    name="toy",
    title="Toy",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=run_blocks,
    reference_blocks=reference_blocks,
    action_names=ACTION_NAMES,
    config=config,
    strategies_module="toy_ruleset.strategies",
    advice="toy_ruleset.advise:ADVICE",
)
