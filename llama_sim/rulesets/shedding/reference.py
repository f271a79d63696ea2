"""The shedding games' reference engine: a round and a game in plain Python that read like the
rulebook, on the same deals and policy streams as the kernel."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from llama_sim.core import rng as R
from llama_sim.core.scoring import (
    GAME_END_SCORE, GAME_METRICS, ROUND_METRICS, ask_policy, largest_token, legal_bits, reference_block_loop,
)
from llama_sim.rulesets.shedding.rules import HAND_SIZE, OBS_ACTIVE, OBS_DRAW_PILE, OBS_PLAYERS, OBS_SEAT, OBS_TOP, OBS_TURN, SheddingRules


# --------------------------------------------------------------------------------------------
# Reference engine: plain Python, reads like the rulebook. Slow on purpose; the kernel must agree.
# --------------------------------------------------------------------------------------------


@dataclass
class RoundResult:
    actions: list[tuple[int, int]]
    hands: np.ndarray  # final hands, (n, C) counts (quit players' cards included)
    penalties: np.ndarray  # points scored this round, before any token return
    out_seat: int  # seat that played its last card, -1 if everyone quit
    quit: np.ndarray
    last_card_seat: int
    last_actor: int
    draw_pile_left: int
    luck: list | None = None  # each seat's luck (``Luck``) when the engine counts it


@dataclass
class Round:
    """One round from any position. Subclasses name their ``rules`` (``lama.Round``, ``party.Round``)."""

    rules: ClassVar[SheddingRules]

    hands: list[list[int]]  # each seat's cards, as codes
    draw_pile: list[int]  # next card to draw first (a fresh deal: a LazyPile, see deal_lazy)
    discard: list[int]  # bottom .. top
    players: list  # per seat: (policy, params)
    scores: list[int]
    start: int = 0
    quit: list[bool] = field(default_factory=list)
    prng: np.ndarray = field(default_factory=lambda: R.new_state(0, 0, R.POLICY_STREAM))
    luck: "Luck | None" = None  # counts each draw's luck (a fresh deal's, after ``Luck.deal``)

    def __post_init__(self):
        self.n = len(self.hands)
        if not self.quit:
            self.quit = [False] * self.n
        self.actions: list[tuple[int, int]] = []
        layout = self.rules.layout
        self.DRAW, self.QUIT = layout.draw, layout.quit_action

    def in_round(self) -> list[int]:
        return [s for s in range(self.n) if not self.quit[s]]

    def can_draw(self, seat: int) -> bool:
        # Draw only while the pile has cards and someone else is still in the round.
        return len(self.draw_pile) > 0 and len(self.in_round()) > 1

    def legal(self, seat: int) -> np.ndarray:
        """The legal actions as a 0/1 array (readable in tests); the policy gets them as the contract's
        bit mask (``common.legal_bits``)."""
        legal = np.zeros(self.rules.layout.n_actions, dtype=np.uint8)
        top = self.discard[-1]
        for card in set(self.hands[seat]):
            if self.rules.playable(top, card):
                legal[card] = 1
        legal[self.DRAW] = self.can_draw(seat)
        legal[self.QUIT] = 1  # quitting is always allowed
        return legal

    def hand(self, seat: int) -> np.ndarray:
        """The policy's ``hand``: the count of each code in the seat's hand."""
        counts = np.zeros(self.rules.n_codes, dtype=np.int64)
        for card in self.hands[seat]:
            counts[card] += 1
        return counts

    def observe(self, seat: int) -> np.ndarray:
        lay = self.rules.layout
        obs = np.zeros(lay.obs_len, dtype=np.int64)
        obs[OBS_SEAT] = seat
        obs[OBS_PLAYERS] = self.n
        obs[OBS_TOP] = self.discard[-1]
        obs[OBS_DRAW_PILE] = len(self.draw_pile)
        obs[OBS_ACTIVE] = len(self.in_round())
        obs[OBS_TURN] = len(self.actions)
        for s in range(self.n):
            obs[lay.hand_sizes + s] = len(self.hands[s])
            obs[lay.quit + s] = self.quit[s]
            obs[lay.scores + s] = self.scores[s]
        for card in self.discard:
            obs[lay.discard + card] += 1
        return obs

    def play(self) -> RoundResult:
        rules = self.rules
        seat = self.start
        out_seat = last_card_seat = last_actor = -1
        while self.in_round():
            if self.quit[seat]:
                seat = (seat + 1) % self.n
                continue
            action = ask_policy(self.players[seat], seat, self.observe(seat), self.hand(seat),
                                legal_bits(self.legal(seat)), self.prng)
            self.actions.append((seat, action))
            last_actor = seat
            if action == self.QUIT:
                self.quit[seat] = True  # cards stay, face down, and will score
            elif action == self.DRAW:
                card = self.draw_pile.pop(0)
                if self.luck is not None:
                    self.luck.card(seat, self.hand(seat), card)
                self.hands[seat].append(card)
            else:
                self.hands[seat].remove(action)
                self.discard.append(action)
                last_card_seat = seat
                if not self.hands[seat]:  # played the last card: the round ends at once
                    out_seat = seat
                    break
                if rules.extra_turn[action]:  # a plus card: the same player takes another turn at once
                    continue
            seat = (seat + 1) % self.n
        hands = np.zeros((self.n, rules.n_codes), dtype=np.int64)
        for s in range(self.n):
            for card in self.hands[s]:
                hands[s, card] += 1
        penalties = np.array([0 if s == out_seat else rules.score(self.hands[s]) for s in range(self.n)],
                             dtype=np.int64)
        return RoundResult(self.actions, hands, penalties, out_seat, np.array(self.quit, dtype=np.int64),
                           last_card_seat, last_actor, len(self.draw_pile),
                           None if self.luck is None else list(self.luck.luck))


class Luck:
    """Each seat's luck as the kernel counts it (``kernel.card_luck``, ``deal_luck``): the same floats in the
    same order, on the value function's ``weights`` ([players, hand size, code])."""

    def __init__(self, weights: np.ndarray, n: int, full_deck: np.ndarray):
        self.weights, self.n, self.full_deck = weights, n, full_deck
        self.luck = [0.0] * n
        self.pile = [0] * weights.shape[2]

    def card(self, seat: int, hand: np.ndarray, card: int) -> None:
        """``card`` comes to ``seat``, whose counts before it are ``hand``, from the pile counted in ``pile``."""
        w, pile = self.weights, self.pile
        j = min(int(hand.sum()) + 1, w.shape[1] - 1)
        total, expected = 0, 0.0
        for c in range(len(pile)):
            total += pile[c]
            if hand[c] == 0:
                expected += pile[c] * w[self.n, j, c]
        gained = w[self.n, j, card] if hand[card] == 0 else 0.0
        self.luck[seat] += gained - expected / total
        pile[card] -= 1

    def deal(self, cards: list[int]) -> None:
        """A fresh deal, dealt card by card in the order ``cards`` (the lazy deal's) holds them."""
        self.pile = [int(np.sum(self.full_deck == c)) for c in range(len(self.pile))]
        for s in range(self.n):
            hand = np.zeros(len(self.pile), np.int64)
            for k in range(HAND_SIZE):
                card = cards[HAND_SIZE * s + k]
                self.card(s, hand, card)
                hand[card] += 1
        self.pile[cards[HAND_SIZE * self.n]] -= 1


class LazyPile:
    """The draw pile of a lazily dealt deck (``deal_lazy_round``), list-like for ``Round``: each ``pop(0)``
    takes the next forward Fisher-Yates step, consuming the deal stream exactly as the kernel does."""

    def __init__(self, cards: list[int], pos: int, drng: np.ndarray):
        self.cards, self.pos, self.drng = cards, pos, drng

    def __len__(self) -> int:
        return len(self.cards) - self.pos

    def pop(self, index: int = 0) -> int:
        if index != 0 or not len(self):
            raise IndexError("a draw takes the top card of a non-empty pile")
        j = self.pos + int(R.below(self.drng, len(self)))
        c = self.cards
        c[self.pos], c[j] = c[j], c[self.pos]
        self.pos += 1
        return c[self.pos - 1]


def deal_lazy(full_deck: np.ndarray, n: int, drng: np.ndarray) -> tuple[list[list[int]], LazyPile, list[int]]:
    """The kernel's ``deal_lazy_round`` in plain Python: 6n + 1 forward Fisher-Yates steps deal the hands
    and the top card; the draw pile shuffles itself card by card as it is drawn (``LazyPile``)."""
    cards = [int(c) for c in full_deck]
    for k in range(HAND_SIZE * n + 1):
        j = k + int(R.below(drng, len(cards) - k))
        cards[k], cards[j] = cards[j], cards[k]
    hands = [cards[HAND_SIZE * s: HAND_SIZE * (s + 1)] for s in range(n)]
    return hands, LazyPile(cards, HAND_SIZE * n + 1, drng), [cards[HAND_SIZE * n]]


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
    luck: list | None = None


def reference_game(round_cls: type[Round], players: list, drng: np.ndarray, prng: np.ndarray,
                   weights: np.ndarray | None = None) -> GameResult:
    """A full game to 40 points, drawing decks from ``drng`` exactly as the kernel does; with ``weights``
    each seat's luck over the game too."""
    rules = round_cls.rules
    n = len(players)
    luck = None if weights is None else Luck(weights, n, rules.deck)
    scores = [0] * n
    start = 0
    rounds: list[RoundResult] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    while True:
        hands, pile, discard = deal_lazy(rules.deck, n, drng)
        if luck is not None:
            luck.deal(pile.cards)
        result = round_cls(hands, pile, discard, players, list(scores), start=start, prng=prng, luck=luck).play()
        rounds.append(result)
        for s in range(n):
            scores[s] += int(result.penalties[s])
        penalty += result.penalties
        if result.out_seat >= 0:  # went out: return the largest token held
            returned = int(largest_token(scores[result.out_seat], rules.tokens20))
            scores[result.out_seat] -= returned
            penalty[result.out_seat] -= returned  # a round's penalty is the net change of the score
            went_out[result.out_seat] += 1
        quits += result.quit
        start = rules.next_starter(result.last_card_seat, result.last_actor)
        if max(scores) >= GAME_END_SCORE:
            return GameResult(rounds, np.array(scores), penalty, went_out, quits,
                              None if luck is None else luck.luck)


def reference_blocks(round_cls: type[Round], seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                     games_mode, entries, cfg, s1, s2, weights=None):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry; ``weights``: the value function, used
    when ``s1`` holds the luck metric (``core.scoring.luck_on``)."""
    counted = s1.shape[0] > len(GAME_METRICS if games_mode else ROUND_METRICS) * n_units
    weights = weights if counted else None

    def play(players, streams):
        drng, prng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM]
        if games_mode:
            return reference_game(round_cls, players, drng, prng, weights)
        hands, pile, discard = deal_lazy(round_cls.rules.deck, n, drng)
        luck = None if weights is None else Luck(weights, n, round_cls.rules.deck)
        if luck is not None:
            luck.deal(pile.cards)
        return round_cls(hands, pile, discard, players, [0] * n, prng=prng, luck=luck).play()

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)


