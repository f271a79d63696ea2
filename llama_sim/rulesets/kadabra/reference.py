"""The Llama Kadabra reference engine: plain Python that reads like the rulebook.

Slow on purpose. The kernel (``kernel.py``) must agree with it exactly: same deck order, same
policy calls in the same order, same observations, same random streams.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from llama_sim.core import rng as R
from llama_sim.core.scoring import (
    GAME_END_SCORE, MAX_ROUNDS_PER_GAME, ask_policy, legal_bits, luck_on, reference_block_loop,
)
from llama_sim.core.draws import next_stream, shuffle_forward
from llama_sim.rulesets.kadabra.luck import LUCK_WEIGHTS, Luck
from llama_sim.rulesets.kadabra.tables import (
    CFG_NO_SHOW, CODE_KIND, CODE_SYMBOL, COLLECT, DRAW, GIVE, HAND_SIZE, LLAMA, MAGIC_POINTS, MAGIC_POOL,
    MAGIC_STAGE, MAX_PLAYERS, N_ACTIONS, N_CODES, OBS_ACTIVE, OBS_DECK, OBS_DISCARD, OBS_DRAW_PILE,
    OBS_HAND_SIZES, OBS_LEN, OBS_MAGIC, OBS_NO_SHOW, OBS_ONES, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_SEAT, OBS_SHOW, OBS_STAGE_ONES,
    OBS_STAGE_TENS, OBS_STAGE_TOKENS, OBS_TENS, OBS_TOP, OBS_TURN, PHASE_GIVE, PHASE_SHOW, PHASE_TURN,
    PLAYABLE, QUIT, RETURN_MAGIC, SHOW_AT, START_ONES, SYM_DRAW, SYM_GIVE, SYM_MAGIC, TOKEN_MAGIC,
    TOKEN_NONE, TOKEN_ONE, TOKEN_TEN, deck_of_counts, hand_points,
)


@dataclass
class Decision:
    """One policy call: who, in which phase, what was legal, what was chosen."""

    seat: int
    phase: int
    legal: np.ndarray
    action: int


@dataclass
class Event:
    """A state change, with the table points after it (players + stage + the magic token's 10
    unless it is in the pool) and where the magic token is. Property tests read these."""

    what: str
    seat: int
    table_points: int
    magic: int


@dataclass
class RoundResult:
    actions: list[tuple[int, int]]  # every decision: (seat, action)
    hands: np.ndarray  # final hands, (n, 36) counts (quit players' cards included)
    out_seat: int  # seat that played its last card, -1 if everyone quit
    quit: np.ndarray
    last_actor: int  # seat of the last decision: starts the next round
    draw_pile_left: int
    card_points: np.ndarray  # hand points at the end (0 for the player who went out, unless alone they drew by their last card's symbol)
    magic_points: np.ndarray  # 10 for the player holding the magic token at the end
    returned: np.ndarray  # token value the player who went out returned (10, 1 or 0)
    ones: np.ndarray  # tokens after scoring and the return
    tens: np.ndarray
    stage_ones: int  # the stage after the round (it stays for the next round)
    stage_tens: int
    magic: int  # MAGIC_POOL or MAGIC_STAGE after the round
    penalties: np.ndarray  # change of each player's token total over the round (see the package docs)
    decisions: list[Decision]
    events: list[Event]
    luck: list | None = None  # each seat's luck (``luck.Luck``) when the engine counts it


@dataclass
class Round:
    """One round of Llama Kadabra from any position.

    Tokens are objects: ``ones[s]`` white 1s and ``tens[s]`` black 10s held by seat s; the stage
    holds ``stage_ones`` and ``stage_tens``; ``magic`` is the seat holding the magic token,
    ``MAGIC_POOL`` or ``MAGIC_STAGE``; ``show`` is True while a magic show is running."""

    hands: list[list[int]]  # each seat's cards, as codes
    draw_pile: list[int]  # next card to draw first
    discard: list[int]  # bottom .. top
    players: list  # per seat: (policy, params)
    ones: list[int]
    tens: list[int]
    stage_ones: int = 0
    stage_tens: int = 0
    magic: int = MAGIC_POOL
    show: bool = False
    start: int = 0
    quit: list[bool] = field(default_factory=list)
    prng: np.ndarray = field(default_factory=lambda: R.new_state(0, 0, R.POLICY_STREAM))
    show_rule: bool = True  # False: the variant without the magic show (a llama stakes nothing)
    luck: Luck | None = None  # counts each card drawn's luck (a fresh deal's, after ``Luck.deal``)

    def __post_init__(self):
        self.n = len(self.hands)
        if not self.quit:
            self.quit = [False] * self.n
        self.ones, self.tens = list(self.ones), list(self.tens)
        self.actions: list[tuple[int, int]] = []
        self.decisions: list[Decision] = []
        self.events: list[Event] = []
        self.last_actor = -1
        # every card of the round (hands, pile, discard: the deck in use), public as obs[OBS_DECK:]
        self.deck_counts = np.bincount(np.array([c for h in self.hands for c in h] + list(self.draw_pile)
                                                + list(self.discard), dtype=np.int64), minlength=N_CODES)
        self.note("start", -1)

    # ------------------------------------------------------------------ who is where
    def in_round(self) -> list[int]:
        return [s for s in range(self.n) if not self.quit[s]]

    def alone(self, seat: int) -> bool:
        return self.in_round() == [seat]

    def next_in_round(self, seat: int) -> int:
        """The first player to the left still in the round (the player themself when alone)."""
        for step in range(1, self.n + 1):
            s = (seat + step) % self.n
            if not self.quit[s]:
                return s
        return seat

    @property
    def top(self) -> int:
        return int(CODE_KIND[self.discard[-1]])

    # ------------------------------------------------------------------ tokens
    def stage_tokens(self) -> int:
        return self.stage_ones + self.stage_tens + (self.magic == MAGIC_STAGE)

    def table_points(self) -> int:
        """Points on the table: players' tokens, the stage, the magic token unless in the pool."""
        return (sum(self.ones) + 10 * sum(self.tens) + self.stage_ones + 10 * self.stage_tens
                + (MAGIC_POINTS if self.magic != MAGIC_POOL else 0))

    def lowest_token(self, seat: int) -> int:
        """One of the player's lowest-value tokens: 1 < 10 < the magic token."""
        if self.ones[seat] > 0:
            return TOKEN_ONE
        if self.tens[seat] > 0:
            return TOKEN_TEN
        if self.magic == seat:
            return TOKEN_MAGIC
        return TOKEN_NONE

    def take_lowest(self, seat: int) -> int:
        token = self.lowest_token(seat)
        if token == TOKEN_ONE:
            self.ones[seat] -= 1
        elif token == TOKEN_TEN:
            self.tens[seat] -= 1
        elif token == TOKEN_MAGIC:
            self.magic = MAGIC_POOL  # in transit; the caller puts it where it goes
        return token

    def receive(self, seat: int, ones: int, tens: int) -> None:
        """Tokens arrive; ten 1s are exchanged for a 10 at once."""
        self.ones[seat] += ones
        self.tens[seat] += tens
        self.tens[seat] += self.ones[seat] // 10
        self.ones[seat] %= 10

    def stake(self, seat: int) -> None:
        """Playing a llama: one of the lowest tokens goes on the stage (if the player has one)."""
        token = self.take_lowest(seat)
        if token == TOKEN_ONE:
            self.stage_ones += 1
        elif token == TOKEN_TEN:
            self.stage_tens += 1
        elif token == TOKEN_MAGIC:
            self.magic = MAGIC_STAGE

    def give(self, seat: int, to: int) -> None:
        token = self.take_lowest(seat)
        if token == TOKEN_ONE:
            self.receive(to, 1, 0)
        elif token == TOKEN_TEN:
            self.receive(to, 0, 1)
        elif token == TOKEN_MAGIC:
            self.magic = to

    def collect(self, seat: int) -> None:
        """Take every token on the stage; this ends the show."""
        self.receive(seat, self.stage_ones, self.stage_tens)
        self.stage_ones = self.stage_tens = 0
        if self.magic == MAGIC_STAGE:
            self.magic = seat
        self.show = False

    # ------------------------------------------------------------------ legal actions
    def legal_show(self, seat: int) -> np.ndarray:
        """In a show: play a llama, or collect the stage; the magic token may pass the show on."""
        legal = np.zeros(N_ACTIONS, dtype=np.uint8)
        for card in set(self.hands[seat]):
            if CODE_KIND[card] == LLAMA:
                legal[card] = 1
        legal[COLLECT] = 1
        legal[RETURN_MAGIC] = self.magic == seat and not self.alone(seat)
        return legal

    def legal_turn(self, seat: int) -> np.ndarray:
        legal = np.zeros(N_ACTIONS, dtype=np.uint8)
        for card in set(self.hands[seat]):
            if PLAYABLE[self.top, card]:
                legal[card] = 1
        # Drawing needs a card in the pile and somebody else in the round.
        legal[DRAW] = len(self.draw_pile) > 0 and not self.alone(seat)
        legal[QUIT] = 1
        # Returning the magic token (and passing) is not allowed when alone.
        legal[RETURN_MAGIC] = self.magic == seat and not self.alone(seat)
        return legal

    def legal_give(self, seat: int) -> np.ndarray:
        """Give to any other player who has not dropped out."""
        legal = np.zeros(N_ACTIONS, dtype=np.uint8)
        for s in self.in_round():
            if s != seat:
                legal[GIVE + s] = 1
        return legal

    # ------------------------------------------------------------------ observation and decisions
    def observe(self, seat: int, phase: int) -> np.ndarray:
        obs = np.zeros(OBS_LEN, dtype=np.int64)
        obs[OBS_SEAT] = seat
        obs[OBS_PLAYERS] = self.n
        obs[OBS_PHASE] = phase
        obs[OBS_TOP] = self.top
        obs[OBS_DRAW_PILE] = len(self.draw_pile)
        obs[OBS_ACTIVE] = len(self.in_round())
        obs[OBS_TURN] = len(self.actions)
        obs[OBS_MAGIC] = self.magic
        obs[OBS_STAGE_ONES] = self.stage_ones
        obs[OBS_STAGE_TENS] = self.stage_tens
        obs[OBS_STAGE_TOKENS] = self.stage_tokens()
        obs[OBS_SHOW] = self.show
        for s in range(self.n):
            obs[OBS_HAND_SIZES + s] = len(self.hands[s])
            obs[OBS_QUIT + s] = self.quit[s]
            obs[OBS_ONES + s] = self.ones[s]
            obs[OBS_TENS + s] = self.tens[s]
        for card in self.discard:
            obs[OBS_DISCARD + card] += 1
        obs[OBS_NO_SHOW] = not self.show_rule
        obs[OBS_DECK:OBS_DECK + N_CODES] = self.deck_counts
        return obs

    def hand_counts(self, seat: int) -> np.ndarray:
        """The seat's own cards as a count per card code (what a policy gets as ``hand``)."""
        return np.bincount(np.asarray(self.hands[seat], dtype=np.int64), minlength=N_CODES).astype(np.int64)

    def decide(self, seat: int, phase: int, legal: np.ndarray) -> int:
        """Ask the seat's policy with the public ``observe``, the seat's ``hand_counts`` and ``legal`` (the
        engine's own 0/1 array) as the contract's bit mask; an action outside ``legal`` raises
        ``ValueError("illegal action", entry, seat, action)``."""
        action = ask_policy(self.players[seat], seat, self.observe(seat, phase), self.hand_counts(seat),
                            legal_bits(legal), self.prng)
        self.actions.append((seat, action))
        self.decisions.append(Decision(seat, phase, legal.copy(), action))
        self.last_actor = seat
        return action

    def note(self, what: str, seat: int) -> None:
        self.events.append(Event(what, seat, self.table_points(), self.magic))

    def take_card(self, seat: int) -> None:
        """The top card of the draw pile goes to ``seat`` (its luck counted first)."""
        card = self.draw_pile.pop(0)
        if self.luck is not None:
            self.luck.card(seat, self.hand_counts(seat), card)
        self.hands[seat].append(card)

    # ------------------------------------------------------------------ playing a card
    def play_card(self, seat: int, card: int) -> bool:
        """Play ``card`` and carry out what comes with it. True when it was the player's last card."""
        self.hands[seat].remove(card)
        last = not self.hands[seat]  # the round ends after this card's effects, even if a draw refills the hand
        self.discard.append(card)
        kind, symbol = int(CODE_KIND[card]), int(CODE_SYMBOL[card])
        if kind == LLAMA and self.show_rule:
            self.stake(seat)
        self.note("play", seat)
        if symbol == SYM_GIVE:
            # Give one of the lowest tokens to another player still in the round; nothing happens
            # without a token or when everyone else has dropped out.
            if self.lowest_token(seat) != TOKEN_NONE and not self.alone(seat):
                to = self.decide(seat, PHASE_GIVE, self.legal_give(seat)) - GIVE
                self.give(seat, to)
                self.note("give", seat)
        elif symbol == SYM_DRAW:
            # The next player still in draws (the player themself when alone); nothing if the pile is empty.
            if self.draw_pile:
                self.take_card(self.next_in_round(seat))
                self.note("forced draw", self.next_in_round(seat))
        elif symbol == SYM_MAGIC:
            self.magic = seat  # from wherever it is: pool, another player, the stage
            self.note("take magic", seat)
        if self.stage_tokens() < SHOW_AT:
            self.show = False
        elif kind == LLAMA:
            self.show = True  # a llama with 5 or more tokens on the stage starts (or continues) the show
        if last:
            self.show = False  # a last card ends the show (and the round); nobody collects
            return True
        return False

    # ------------------------------------------------------------------ the round
    def play(self) -> RoundResult:
        """Play until someone plays their last card or everyone has dropped out, then score."""
        totals_before = [self.ones[s] + 10 * self.tens[s] for s in range(self.n)]
        seat = self.start
        out_seat = -1
        while self.in_round():
            if self.quit[seat]:
                seat = (seat + 1) % self.n
                continue
            if self.show:
                a = self.decide(seat, PHASE_SHOW, self.legal_show(seat))
                if a == RETURN_MAGIC:  # pass: the show goes on with the next player
                    self.magic = MAGIC_POOL
                    self.note("return magic", seat)
                    seat = (seat + 1) % self.n
                    continue
                if a == COLLECT:  # then a normal turn
                    self.collect(seat)
                    self.note("collect", seat)
                else:  # a llama: that is the turn
                    if self.play_card(seat, a):
                        out_seat = seat
                        break
                    seat = (seat + 1) % self.n
                    continue
            a = self.decide(seat, PHASE_TURN, self.legal_turn(seat))
            if a == QUIT:
                self.quit[seat] = True  # cards stay, face down, and will score
                self.note("quit", seat)
            elif a == DRAW:
                self.take_card(seat)
                self.note("draw", seat)
            elif a == RETURN_MAGIC:
                self.magic = MAGIC_POOL
                self.note("return magic", seat)
            elif self.play_card(seat, a):
                out_seat = seat
                break
            seat = (seat + 1) % self.n
        hands = np.zeros((self.n, N_CODES), dtype=np.int64)
        for s in range(self.n):
            for card in self.hands[s]:
                hands[s, card] += 1
        draw_left = len(self.draw_pile)
        card_points, magic_points, returned = self.score(hands, out_seat)
        penalties = np.array([self.ones[s] + 10 * self.tens[s] - totals_before[s] for s in range(self.n)], np.int64)
        return RoundResult(self.actions, hands, out_seat, np.array(self.quit, dtype=np.int64), self.last_actor,
                           draw_left, card_points, magic_points, returned, np.array(self.ones), np.array(self.tens),
                           self.stage_ones, self.stage_tens, self.magic, penalties, self.decisions, self.events,
                           None if self.luck is None else list(self.luck.luck))

    def score(self, hands: np.ndarray, out_seat: int):
        """Each player takes their points as 10s and 1s: the hand (0 after going out, unless a
        last-card draw symbol made a lone player draw) plus 10 for the magic token, which goes back
        to the pool. Then the player who went out returns a 10 if they hold one, else a 1."""
        card_points = np.zeros(self.n, np.int64)
        magic_points = np.zeros(self.n, np.int64)
        returned = np.zeros(self.n, np.int64)
        for s in range(self.n):
            card_points[s] = hand_points(hands[s])  # the remaining cards (a card drawn by a last draw symbol too)
            if self.magic == s:
                magic_points[s] = MAGIC_POINTS
            p = int(card_points[s] + magic_points[s])
            self.receive(s, p % 10, p // 10)
            self.note("score", s)
        if self.magic >= 0:
            self.magic = MAGIC_POOL
            self.note("magic to pool", -1)
        if out_seat >= 0:
            if self.tens[out_seat] > 0:
                self.tens[out_seat] -= 1
                returned[out_seat] = 10
            elif self.ones[out_seat] > 0:
                self.ones[out_seat] -= 1
                returned[out_seat] = 1
            self.note("return", out_seat)
        return card_points, magic_points, returned


def deal(deck, n: int) -> tuple[list[list[int]], list[int], list[int]]:
    """Six cards to each seat in turn from a shuffled deck; the next card starts the discard pile
    (its symbol, if any, is not carried out)."""
    cards = [int(c) for c in deck]
    hands = [cards[HAND_SIZE * s: HAND_SIZE * (s + 1)] for s in range(n)]
    return hands, cards[HAND_SIZE * n + 1:], [cards[HAND_SIZE * n]]


@dataclass
class GameResult:
    rounds: list[RoundResult]
    final: np.ndarray  # token totals at the end
    penalty: np.ndarray  # sum of the round penalties (= final - 3 for each player)
    went_out: np.ndarray
    quit: np.ndarray
    luck: list | None = None


def reference_game(players: list, counts: np.ndarray, drng: np.ndarray, prng: np.ndarray,
                   show_rule: bool = True, weights: np.ndarray | None = None) -> GameResult:
    """A full game: tokens and the stage carry over; it ends after the round in which somebody holds
    40 points or more. Decks are drawn from ``drng`` exactly as the kernel draws them.
    ``show_rule`` False: the variant without the magic show. With ``weights`` each seat's luck over the
    game too."""
    n = len(players)
    base = deck_of_counts(counts)
    luck = None if weights is None else Luck(n, base, weights)
    ones, tens = [START_ONES] * n, [0] * n
    stage_ones = stage_tens = 0
    magic = MAGIC_POOL
    start = 0
    rounds: list[RoundResult] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    deal_rng = np.zeros(2, np.uint64)
    for _ in range(MAX_ROUNDS_PER_GAME):
        next_stream(drng, deal_rng)  # each round's deal has its own stream (as the kernel's)
        deck = base.copy()
        shuffle_forward(deck, deal_rng)
        hands, pile, discard = deal(deck, n)
        if luck is not None:
            luck.deal(deck)
        res = Round(hands, pile, discard, players, ones, tens, stage_ones, stage_tens, magic, False, start,
                    prng=prng, show_rule=show_rule, luck=luck).play()
        rounds.append(res)
        ones, tens = [int(x) for x in res.ones], [int(x) for x in res.tens]
        stage_ones, stage_tens, magic = res.stage_ones, res.stage_tens, res.magic
        penalty += res.penalties
        quits += res.quit
        if res.out_seat >= 0:
            went_out[res.out_seat] += 1
        start = res.last_actor
        totals = np.array([ones[s] + 10 * tens[s] for s in range(n)], np.int64)
        if totals.max() >= GAME_END_SCORE:
            return GameResult(rounds, totals, penalty, went_out, quits, None if luck is None else list(luck.luck))
    raise RuntimeError("game did not end")


def reference_round(players: list, counts: np.ndarray, drng: np.ndarray, prng: np.ndarray,
                    show_rule: bool = True, weights: np.ndarray | None = None) -> RoundResult:
    """A single round as round mode plays it: 3 ones each, the stage empty, the magic token in the pool;
    with ``weights`` each seat's luck too."""
    n = len(players)
    deck = deck_of_counts(counts)
    luck = None if weights is None else Luck(n, deck.copy(), weights)
    shuffle_forward(deck, drng)
    hands, pile, discard = deal(deck, n)
    if luck is not None:
        luck.deal(deck)
    return Round(hands, pile, discard, players, [START_ONES] * n, [0] * n, prng=prng, show_rule=show_rule,
                 luck=luck).play()


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2, weights=LUCK_WEIGHTS):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry; ``weights``: the value function, used
    when ``s1`` holds the luck metric (``core.scoring.luck_on``)."""
    cfg = np.asarray(cfg, dtype=np.int64)
    counts = cfg[:N_CODES]
    show_rule = not (cfg.shape[0] > CFG_NO_SHOW and cfg[CFG_NO_SHOW])
    weights = weights if luck_on(s1, n_units, games_mode) else None

    def play(players, streams):
        drng, prng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM]
        if games_mode:
            return reference_game(players, counts, drng, prng, show_rule, weights)
        return reference_round(players, counts, drng, prng, show_rule, weights)

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)


assert MAX_PLAYERS == 6
