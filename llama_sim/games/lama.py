"""L.A.M.A. (rule set ``lama``): tables, the reference engine and the Numba kernel.

Rules (``shared/rules/lama.txt``, ``shared/RULES.md``): 56 cards, eight each of 1..6 and llama;
deal 6 each, the next card starts the discard pile. On your turn play a card equal to the top card
or one higher (a llama on a 6 or a llama, a 1 on a llama), draw (only while the pile has cards and
someone else is still in), or quit (always allowed). The round ends at once when someone plays
their last card or everyone has quit. Each distinct value left scores once, llamas 10; going out
scores 0 and returns the largest token held. The game ends after the round in which someone
reaches 40; lowest score wins, ties share. The next round is started by the last player to play a
card (by the last player to act if nobody played).

Encoding: card code ``c`` in 0..5 is the value c+1, code 6 the llama, so "equal or one higher"
is ``c == top or c == (top + 1) % 7``. Hands are count vectors over codes.

Actions (the policy's return value): ``0..6`` play a card of that code, ``7`` draw, ``8`` quit.

Observation layout (int64, ``OBS_LEN``), everything the acting player can see:

====================  ======  ============================================================
field                 index   meaning
====================  ======  ============================================================
OBS_SEAT              0       acting seat
OBS_PLAYERS           1       number of players n
OBS_TOP               2       code of the top discard
OBS_DRAW_PILE         3       cards left in the draw pile
OBS_ACTIVE            4       players still in the round (acting player included)
OBS_TURN              5       actions taken so far this round
OBS_HAND              6..12   own hand: count of each code
OBS_HAND_SIZES        13..18  hand size of each seat 0..5 (0 for absent seats)
OBS_QUIT              19..24  1 if that seat has quit this round
OBS_SCORES            25..30  each seat's score (tokens) at the start of the round
OBS_DISCARD           31..37  count of each code in the discard pile (public history)
====================  ======  ============================================================
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .. import rng as R
from ..errors import UsageError
from ..jit import Kernel
from .common import (
    GAME_END_SCORE, MAX_ROUNDS_PER_GAME, RUN_BLOCKS_SIG, GameSpec, accumulate, add_seat,
    distinct_penalty, largest_token, win_units,
)

N_CODES = 7
LLAMA = 6
CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L")
PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
DECK = np.repeat(np.arange(N_CODES, dtype=np.int8), 8)  # 56 cards
HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 6

DRAW = 7
QUIT = 8
N_ACTIONS = 9
ACTION_NAMES = tuple(f"play {c}" for c in CODE_NAMES) + ("draw", "quit")

OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND = 6
OBS_HAND_SIZES = 13
OBS_QUIT = 19
OBS_SCORES = 25
OBS_DISCARD = 31
OBS_LEN = 38

LOG_CAPACITY = 256  # a round has at most 49 draws + 56 plays + 6 quits


@njit(cache=True, nogil=True)
def playable(top, code):
    """Same value or one higher; llama on 6 or llama; 1 on llama."""
    return code == top or code == (top + 1) % N_CODES


# --------------------------------------------------------------------------------------------
# Reference engine: plain Python, reads like the rulebook. Slow on purpose; the kernel must agree.
# --------------------------------------------------------------------------------------------


@dataclass
class RoundResult:
    actions: list[tuple[int, int]]
    hands: np.ndarray  # final hands, (n, 7) counts (quit players' cards included)
    penalties: np.ndarray  # points scored this round, before any token return
    out_seat: int  # seat that played its last card, -1 if everyone quit
    quit: np.ndarray
    last_card_seat: int
    last_actor: int
    draw_pile_left: int


@dataclass
class Round:
    """One round of L.A.M.A. from any position."""

    hands: list[list[int]]  # each seat's cards, as codes
    draw_pile: list[int]  # next card to draw first
    discard: list[int]  # bottom .. top
    players: list  # per seat: (policy, params)
    scores: list[int]
    start: int = 0
    quit: list[bool] = field(default_factory=list)
    prng: np.ndarray = field(default_factory=lambda: R.new_state(0, 0, R.POLICY_STREAM))

    def __post_init__(self):
        self.n = len(self.hands)
        if not self.quit:
            self.quit = [False] * self.n
        self.actions: list[tuple[int, int]] = []

    def in_round(self) -> list[int]:
        return [s for s in range(self.n) if not self.quit[s]]

    def can_draw(self, seat: int) -> bool:
        # Draw only while the pile has cards and someone else is still in the round.
        return len(self.draw_pile) > 0 and len(self.in_round()) > 1

    def legal(self, seat: int) -> np.ndarray:
        legal = np.zeros(N_ACTIONS, dtype=np.uint8)
        top = self.discard[-1]
        for card in set(self.hands[seat]):
            if playable(top, card):
                legal[card] = 1
        legal[DRAW] = self.can_draw(seat)
        legal[QUIT] = 1  # quitting is always allowed
        return legal

    def observe(self, seat: int) -> np.ndarray:
        obs = np.zeros(OBS_LEN, dtype=np.int64)
        obs[OBS_SEAT] = seat
        obs[OBS_PLAYERS] = self.n
        obs[OBS_TOP] = self.discard[-1]
        obs[OBS_DRAW_PILE] = len(self.draw_pile)
        obs[OBS_ACTIVE] = len(self.in_round())
        obs[OBS_TURN] = len(self.actions)
        for card in self.hands[seat]:
            obs[OBS_HAND + card] += 1
        for s in range(self.n):
            obs[OBS_HAND_SIZES + s] = len(self.hands[s])
            obs[OBS_QUIT + s] = self.quit[s]
            obs[OBS_SCORES + s] = self.scores[s]
        for card in self.discard:
            obs[OBS_DISCARD + card] += 1
        return obs

    def play(self) -> RoundResult:
        seat = self.start
        out_seat = last_card_seat = last_actor = -1
        while self.in_round():
            if self.quit[seat]:
                seat = (seat + 1) % self.n
                continue
            policy, params = self.players[seat]
            legal = self.legal(seat)
            action = int(policy(self.observe(seat), legal, params, self.prng))
            if not (0 <= action < N_ACTIONS and legal[action]):
                raise RuntimeError(f"policy chose illegal action {action} at seat {seat}")
            self.actions.append((seat, action))
            last_actor = seat
            if action == QUIT:
                self.quit[seat] = True  # cards stay, face down, and will score
            elif action == DRAW:
                self.hands[seat].append(self.draw_pile.pop(0))
            else:
                self.hands[seat].remove(action)
                self.discard.append(action)
                last_card_seat = seat
                if not self.hands[seat]:  # played the last card: the round ends at once
                    out_seat = seat
                    break
            seat = (seat + 1) % self.n
        hands = np.zeros((self.n, N_CODES), dtype=np.int64)
        for s in range(self.n):
            for card in self.hands[s]:
                hands[s, card] += 1
        penalties = np.array([0 if s == out_seat else int(distinct_penalty(hands[s], PENALTY)) for s in range(self.n)])
        return RoundResult(self.actions, hands, penalties, out_seat, np.array(self.quit, dtype=np.int64),
                           last_card_seat, last_actor, len(self.draw_pile))


def deal(deck: np.ndarray, n: int) -> tuple[list[list[int]], list[int], list[int]]:
    """Six cards to each seat in turn from a shuffled deck, the next card starts the discard pile."""
    cards = [int(c) for c in deck]
    hands = [cards[HAND_SIZE * s: HAND_SIZE * (s + 1)] for s in range(n)]
    return hands, cards[HAND_SIZE * n + 1:], [cards[HAND_SIZE * n]]


@dataclass
class GameResult:
    rounds: list[RoundResult]
    final: np.ndarray
    penalty: np.ndarray
    went_out: np.ndarray
    quit: np.ndarray


def reference_game(players: list, drng: np.ndarray, prng: np.ndarray) -> GameResult:
    """A full game to 40 points, drawing decks from ``drng`` exactly as the kernel does."""
    n = len(players)
    scores = [0] * n
    start = 0
    rounds: list[RoundResult] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    while True:
        deck = DECK.copy()
        R.shuffle(deck, drng)
        hands, pile, discard = deal(deck, n)
        result = Round(hands, pile, discard, players, list(scores), start=start, prng=prng).play()
        rounds.append(result)
        for s in range(n):
            scores[s] += int(result.penalties[s])
        if result.out_seat >= 0:  # went out: return the largest token held
            scores[result.out_seat] -= int(largest_token(scores[result.out_seat], False))
            went_out[result.out_seat] += 1
        penalty += result.penalties
        quits += result.quit
        start = result.last_card_seat if result.last_card_seat >= 0 else result.last_actor
        if max(scores) >= GAME_END_SCORE:
            return GameResult(rounds, np.array(scores), penalty, went_out, quits)


# --------------------------------------------------------------------------------------------
# Kernel
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def play_round(n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log):
    """Play one round in place from any position (hands, draw pile ``deck[pos:]``, top card,
    discard counts, who has quit, whose turn). Seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 2) receives (seat, action) pairs when k > 0.

    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos).
    """
    sizes = np.zeros(n, np.int64)
    n_in = 0
    for s in range(n):
        for c in range(N_CODES):
            sizes[s] += hands[s, c]
        n_in += 1 - quit[s]
    deck_len = deck.shape[0]
    obs[OBS_TOP] = top
    obs[OBS_PLAYERS] = n
    obs[OBS_DRAW_PILE] = deck_len - pos
    for s in range(6):
        obs[OBS_HAND_SIZES + s] = sizes[s] if s < n else 0
        obs[OBS_QUIT + s] = quit[s] if s < n else 0
        obs[OBS_SCORES + s] = scores[s] if s < n else 0
    for c in range(N_CODES):
        obs[OBS_DISCARD + c] = discard[c]
    out_seat = -1
    last_card = -1
    last_actor = -1
    turn = 0
    seat = start
    cap = log.shape[0]
    while n_in > 0:
        if quit[seat]:
            seat = (seat + 1) % n
            continue
        obs[OBS_SEAT] = seat
        obs[OBS_ACTIVE] = n_in
        obs[OBS_TURN] = turn
        for c in range(N_CODES):
            obs[OBS_HAND + c] = hands[seat, c]
            legal[c] = 0
        if hands[seat, top] > 0:
            legal[top] = 1
        nxt = (top + 1) % N_CODES
        if hands[seat, nxt] > 0:
            legal[nxt] = 1
        legal[DRAW] = 1 if (pos < deck_len and n_in > 1) else 0
        legal[QUIT] = 1
        e = entry_of_seat[seat]
        a = policies[slot_of_entry[e]](obs, legal, params[e], prng)
        if a < 0 or a >= N_ACTIONS or legal[a] == 0:
            raise ValueError("a policy chose an illegal action")
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = a
        turn += 1
        last_actor = seat
        if a == QUIT:
            quit[seat] = 1
            obs[OBS_QUIT + seat] = 1
            n_in -= 1
        elif a == DRAW:
            card = deck[pos]
            pos += 1
            hands[seat, card] += 1
            sizes[seat] += 1
            obs[OBS_HAND_SIZES + seat] = sizes[seat]
            obs[OBS_DRAW_PILE] = deck_len - pos
        else:
            hands[seat, a] -= 1
            sizes[seat] -= 1
            obs[OBS_HAND_SIZES + seat] = sizes[seat]
            top = a
            obs[OBS_TOP] = a
            discard[a] += 1
            obs[OBS_DISCARD + a] += 1
            last_card = seat
            if sizes[seat] == 0:
                out_seat = seat
                break
        seat = (seat + 1) % n
    return out_seat, last_card, last_actor, turn, pos


@njit(cache=True, nogil=True)
def deal_round(n, deck, hands, discard, quit):
    """Deal a shuffled deck: six cards to each seat, the next card face up.

    Returns (draw position, top code)."""
    hands[:, :] = 0
    discard[:] = 0
    for s in range(n):
        quit[s] = 0
        for k in range(HAND_SIZE):
            hands[s, deck[HAND_SIZE * s + k]] += 1
    top = deck[HAND_SIZE * n]
    discard[top] += 1
    return HAND_SIZE * n + 1, top


@njit(cache=True, nogil=True)
def play_game(n, policies, slot_of_entry, params, entry_of_seat, drng, prng,
              penalty, went_out, quits, final):
    """A full game to 40 into per-seat totals; returns the number of rounds."""
    deck = DECK.copy()
    hands = np.zeros((n, N_CODES), np.int64)
    discard = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    legal = np.zeros(N_ACTIONS, np.uint8)
    log = np.zeros((0, 2), np.int64)
    start = 0
    for r in range(MAX_ROUNDS_PER_GAME):
        for i in range(deck.shape[0]):
            deck[i] = DECK[i]
        R.shuffle(deck, drng)
        pos, top = deal_round(n, deck, hands, discard, quit)
        out_seat, last_card, last_actor, _, _ = play_round(
            n, hands, deck, pos, top, discard, quit, start, scores,
            policies, slot_of_entry, params, entry_of_seat, prng, obs, legal, log)
        top_score = 0
        for s in range(n):
            p = 0 if s == out_seat else distinct_penalty(hands[s], PENALTY)
            penalty[s] += p
            quits[s] += quit[s]
            scores[s] += p
        if out_seat >= 0:
            went_out[out_seat] += 1
            scores[out_seat] -= largest_token(scores[out_seat], False)
        for s in range(n):
            top_score = max(top_score, scores[s])
        start = last_card if last_card >= 0 else last_actor
        if top_score >= GAME_END_SCORE:
            for s in range(n):
                final[s] = scores[s]
            return r + 1
    raise ValueError("game did not end")


def _run_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, cfg, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal is played once per row of ``entry_of_seat``."""
    rotations = entry_of_seat.shape[0]
    metrics = 6 if games_mode else 3
    v = np.zeros(metrics * n_units, np.int64)
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    deck = DECK.copy()
    hands = np.zeros((n, N_CODES), np.int64)
    discard = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
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
                rounds = play_game(n, policies, slot_of_entry, params, entry_of_seat[r], drng, prng,
                                   penalty, went_out, quits, final)
                wins = win_units(final, n)
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], penalty[s], went_out[s], quits[s],
                             rounds, wins[s], final[s], True)
            else:
                for i in range(deck.shape[0]):
                    deck[i] = DECK[i]
                R.shuffle(deck, drng)
                pos, top = deal_round(n, deck, hands, discard, quit)
                out_seat, _, _, _, _ = play_round(n, hands, deck, pos, top, discard, quit, 0, scores, policies,
                                                  slot_of_entry, params, entry_of_seat[r], prng, obs, legal, log)
                for s in range(n):
                    p = 0 if s == out_seat else distinct_penalty(hands[s], PENALTY)
                    add_seat(v, n_units, unit_of_seat[r, s], p, 1 if s == out_seat else 0, quit[s],
                             0, 0, 0, False)
        accumulate(v, s1, s2)


run_blocks = Kernel(_run_blocks, lambda: RUN_BLOCKS_SIG, "lama kernel")


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    metrics = 6 if games_mode else 3
    for b in range(first_block, first_block + n_blocks):
        v = np.zeros(metrics * n_units, np.int64)
        for r in range(entry_of_seat.shape[0]):
            drng = R.new_state(seed, b, R.DEAL_STREAM)
            prng = R.new_state(seed, b, R.POLICY_STREAM)
            players = [entries[e] for e in entry_of_seat[r]]
            if games_mode:
                g = reference_game(players, drng, prng)
                wins = win_units(g.final, n)
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], g.penalty[s], g.went_out[s], g.quit[s],
                             len(g.rounds), wins[s], g.final[s], True)
            else:
                deck = DECK.copy()
                R.shuffle(deck, drng)
                hands, pile, discard = deal(deck, n)
                res = Round(hands, pile, discard, players, [0] * n, prng=prng).play()
                for s in range(n):
                    add_seat(v, n_units, unit_of_seat[r, s], res.penalties[s], int(s == res.out_seat),
                             res.quit[s], 0, 0, 0, False)
        s1 += v
        s2 += np.outer(v, v)


def _config(**options) -> np.ndarray:
    if options:
        raise UsageError(f"lama takes no rule-set options (got {', '.join(options)})")
    return np.zeros(1, np.int64)


GAME = GameSpec(
    name="lama",
    title="L.A.M.A.",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=run_blocks,
    reference_blocks=reference_blocks,
    config=_config,
)
