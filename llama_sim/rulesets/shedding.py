"""The shedding-game engine shared by L.A.M.A. (``lama``) and the Party Edition (``party``).

Both rule sets are the same round loop: on your turn play a card that fits on the top of the
discard pile, draw (while the pile has cards and someone else is still in) or quit; the round ends
at once when someone plays their last card or everyone has quit; what is left in a hand scores,
each distinct value once; the game runs to 40. Everything in which the two rule sets differ is
*data*, held in one ``SheddingRules`` per rule set (see ``lama.RULES`` and ``party.RULES``):

=====================  =======================================================================
table / flag           meaning
=====================  =======================================================================
``deck``               the 56 card codes (int8)
``playable``           a readable rule ``playable(top, card) -> bool`` (the reference engine uses it)
``can_play``           ``can_play[top, card]``: the same rule as a C x C uint8 table
``can_play_bits``      ``can_play_bits[top]``: row ``top`` of ``can_play`` as a bit mask (the kernel's)
``extra_turn``         ``extra_turn[card] == 1``: playing it gives its player another turn at once
``value_group``        ``value_group[card]``: the distinct-value class a card scores as (1..6, llama)
``group_penalty``      points of each class, counted once per hand
``pink_code``          a card that adds ``pink_bonus`` to its class when held (-1: none)
``score``              a readable ``score(cards) -> int`` (the reference engine uses it)
``tokens20``           whether 20-point tokens exist (a player who goes out may return one)
``starter_last_card``  next round's starter: True = last player to play a card (the last to act
                       if nobody played), False = the last player to act
=====================  =======================================================================

Statistics: a round's ``penalty`` is the net change of the player's score over the round: the
card points, minus the token returned by the player who went out. Over a game the penalties add up
to the final score (round mode starts everyone at 0, where the penalty is just the card points).

The reference engine (``Round``, ``reference_game``, ``reference_blocks``) is plain Python that
reads like the rulebooks and uses the readable ``playable`` and ``score``. The Numba kernel
(``play_round``, ``play_game``, ``run_blocks``) takes the tables as array arguments: ``can_play_bits``,
``extra_turn``, the scoring tables derived from the classes (``code_penalty``, ``twins``, see
``SheddingRules``) and ``flags`` (``tokens20``, ``starter_last_card``). A rule set's module binds them to
its own tables, held as module globals, in thin wrappers (``lama.play_round``, ``lama.play_game``,
``lama._run_blocks``, ``lama.blocks_core``). The shared functions are ``inline="always"``: Numba copies them into each
wrapper, where the tables are frozen constants, so every rule set gets its own specialised kernel
from one source. Measured on the 2-core machine (4 greedy players, interleaved runs, CPU time per
thread): inlined, L.A.M.A. ran 5-7% faster than its former hand-written loop; called out-of-line
with the tables as runtime arguments, 3-5% slower. So: inlined.

What the loop avoids, each measured:

- data-dependent branches where "is this code held?" is a coin flip: the legal-move mask is
  ``can_play_bits[top] & held[seat]`` (a branch there cost ~40%), and scoring is branch-free
  (``hand_penalty``, ~8%);
- (policy contract v2, issue 12) any per-decision copy: the policy gets the seat's own row of
  ``hands`` as ``hand`` (``views.readonly_row``) and the legal set as one int64 built from two bit
  masks, ``can_play_bits[top] & held[seat]`` (``held``: the codes each seat holds, kept up to date on
  every draw and play), with the draw and quit bits; until then the hand was copied into ``obs`` and
  the legal set written as C + 2 bytes at every decision;
- a fresh ``params[e]`` view per policy call: a view costs two atomic reference-count updates
  (+10% rounds/s without it); the policy gets ``views.readonly_row(params, e)``, a view without a
  meminfo (no copy, no reference counts; the reused buffer it replaced, refilled on every change of
  entry, cost 6-8%);
- an integer division per turn for the next seat (~5%);
- per round (issue 12): allocations and row views (``round_loop``/``game_loop`` take their scratch
  from the block loop; the seating is ``entry_of_seat[row]`` read in place), a full 56-card shuffle
  (see *Dealing*), and half of the squares of the block statistics (``accumulate_upper``);
- reference counting and aliasing (issue 12): the whole block loop (``blocks_loop``) is compiled on its
  own without Numba's reference counting (``lama.blocks_core``, or a line-up kernel's ``core``), and
  keeps its scratch on its own stack (``views.stack_zeros``). Inlined into a function with reference
  counting, each array handed to an inlined helper cost atomic count updates at every round (the
  L.A.M.A. line-up kernel: 653 -> 574 ns a round without them); scratch handed in as arguments may
  alias, as far as the compiler knows, so each write reloaded the rest (574 -> 500 ns on the stack).
  ``run_blocks`` allocates what outlives the loop and raises what it reports (``ILLEGAL``, ``ENDLESS``:
  without reference counting Numba raises exceptions with constant values only).

Measured (timing variants, one thread, CPU time; 4 ``always_quit`` players make 4
decisions a round, 4 ``greedy`` 37-39): the per-round framework was ~440 ns (seeding 10, deal 86
+ shuffle, round set-up and 4 decisions ~170, squares ~55) and fell to ~360 ns; a ``greedy``
decision costs ~18-20 ns, of which the indirect policy call with four array arguments is ~4.4 ns
(2.0 ns inlined, 3.0 ns with the legal set as one integer argument). Selecting a per-seat array (a
view or a tuple element) per decision costs ~25 ns (atomic reference counts), so the observation
stays one array updated in place; a per-seat observation kept up to date (no hand copy, public
changes written into every seat's row) measured slower for L.A.M.A. (1146 ns a round against 1027).
Since contract v2 the own hand is not part of ``obs`` at all (it is the ``hand`` argument), so the
one shared observation holds only public fields.

The policy call: the generic kernel (``decide`` None) asks through the first-class function tuple,
which is opaque to the optimiser; a line-up kernel (``llama_sim.run.lineup``, same source, ``decide`` its
own) has the policies compiled in. ``benchmarks/ceiling.py`` plays this kernel's work in loops that
differ only in that call and in the contract (``python benchmarks/ceiling.py --game lama``, 4 greedy:
this kernel 680 ns a round, its line-up kernel 500, the same work stripped to the loop with the policy
compiled in 514, a loop specialised for greedy 386; before the block loop ran without reference
counting on stack scratch: 834 and 653).

Dealing (changed in issue 12; the deal streams differ from earlier versions, the results'
distribution does not): ``deal_lazy_round`` draws only the 6n + 1 dealt cards, each uniformly from
the cards not yet dealt (forward Fisher-Yates steps with the integer ``rng.below``), and each draw
takes the next such step (``round_loop``'s ``lazy`` draw). The reference engine does the same
(``deal_lazy``, ``LazyPile``), consuming the deal stream identically, so kernel = reference still
holds on every seed. ``play_round`` (positions typed by callers, fixed-deck tests) keeps its
arguments and plays the draw pile ``deck[pos:]`` in the given order.

Numba's disk cache only checks the file of the cached function, so the kernel cache folder is keyed
by a hash of the package's source (``llama_sim/__init__.py``): an edit here recompiles the rule sets'
kernels.

Observation layout for C card codes (L.A.M.A.: C = 7, Party: C = 14), all int64:

====================  ===============  ======================================================
field                 index            meaning
====================  ===============  ======================================================
OBS_SEAT              0                acting seat
OBS_PLAYERS           1                number of players n
OBS_TOP               2                code of the top discard
OBS_DRAW_PILE         3                cards left in the draw pile
OBS_ACTIVE            4                players still in the round (acting player included)
OBS_TURN              5                actions taken so far this round
hand sizes            6 .. 11          hand size of each seat 0..5 (0 for absent seats)
quit                  12 .. 17         1 if that seat has quit this round
scores                18 .. 23         each seat's score (tokens) at the start of the round
discard               24 .. 23+C       count of each code in the discard pile (public history)
====================  ===============  ======================================================

The own hand is not in ``obs`` (policy contract v2, issue 12): it is the policy's ``hand`` argument,
a count of each code (before, it sat at 6 .. 5+C and the later fields followed it).

Actions: ``0..C-1`` play a card of that code, ``C`` draw, ``C+1`` quit; ``legal`` has bit a set for
each legal action a.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.registry import POLICIES_TYPE, line_up_ask
from llama_sim.core.views import readonly_row, stack_zeros
from llama_sim.core.engine import (
    ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, accumulate_upper, add_seats, ask_policy,
    largest_token, legal_bits, raise_stop, reference_block_loop,
)

HAND_SIZE = 6
MAX_SEATS = 6
# Every rule set's card codes and deck fit the kernels' block loop, whose scratch is on its stack
# (``blocks_loop``): checked when a ``SheddingRules`` is made.
MAX_CODES = 14  # (Party: 14)
MAX_DECK = 64
OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND_SIZES = 6  # the first field after the six scalars (the own hand left obs in contract v2)
LOG_CAPACITY = 256  # a round has at most 49 draws + 56 plays + 6 quits

# Indices into a rule set's ``flags`` array (the kernel's scalar rules).
F_TOKENS20, F_STARTER_LAST_CARD = range(2)


@dataclass(frozen=True)
class Layout:
    """Observation and action indices for a rule set with ``n_codes`` card codes."""

    n_codes: int

    @property
    def hand_sizes(self) -> int:
        return OBS_HAND_SIZES

    @property
    def quit(self) -> int:
        return self.hand_sizes + MAX_SEATS

    @property
    def scores(self) -> int:
        return self.quit + MAX_SEATS

    @property
    def discard(self) -> int:
        return self.scores + MAX_SEATS

    @property
    def obs_len(self) -> int:
        return self.discard + self.n_codes

    @property
    def draw(self) -> int:
        return self.n_codes

    @property
    def quit_action(self) -> int:
        return self.n_codes + 1

    @property
    def n_actions(self) -> int:
        return self.n_codes + 2


@dataclass(frozen=True, eq=False)
class SheddingRules:
    """Everything in which one shedding rule set differs from another (see the module docstring)."""

    name: str
    code_names: tuple[str, ...]
    deck: np.ndarray
    playable: Callable[[int, int], bool]
    score: Callable[[list[int]], int]
    extra_turn: np.ndarray
    value_group: np.ndarray
    group_penalty: np.ndarray
    pink_code: int
    pink_bonus: int
    tokens20: bool
    starter_last_card: bool
    can_play: np.ndarray = field(init=False)
    can_play_bits: np.ndarray = field(init=False)
    code_penalty: np.ndarray = field(init=False)
    twins: np.ndarray = field(init=False)
    flags: np.ndarray = field(init=False)
    layout: Layout = field(init=False)

    def __post_init__(self):
        c = len(self.code_names)
        if c > MAX_CODES or len(self.deck) > MAX_DECK:
            raise ValueError(f"{self.name}: the kernels hold at most {MAX_CODES} card codes and {MAX_DECK} cards")
        table = np.array([[1 if self.playable(top, card) else 0 for card in range(c)] for top in range(c)],
                         dtype=np.uint8)
        # Scoring in the kernel's branch-free form: every held code scores its class's points (the
        # pink card its class's points plus the bonus) and every pair of codes of one class held
        # together gives back the smaller of the two, so each class counts once, at its highest.
        pen = self.group_penalty[self.value_group].astype(np.int64)
        if self.pink_code >= 0:
            pen[self.pink_code] += self.pink_bonus
        twins = []
        for g in range(len(self.group_penalty)):
            codes = [k for k in range(c) if self.value_group[k] == g]
            if len(codes) > 2:
                raise ValueError(f"{self.name}: the kernel's scoring allows at most two codes per value class")
            if len(codes) == 2:
                twins.append((codes[0], codes[1], min(pen[codes[0]], pen[codes[1]])))
        object.__setattr__(self, "can_play", table)
        object.__setattr__(self, "can_play_bits", play_bits(table))
        object.__setattr__(self, "code_penalty", pen)
        object.__setattr__(self, "twins", np.array(twins, dtype=np.int64).reshape(-1, 3))
        object.__setattr__(self, "flags", np.array([int(self.tokens20), int(self.starter_last_card)], dtype=np.int64))
        object.__setattr__(self, "layout", Layout(c))

    @property
    def n_codes(self) -> int:
        return len(self.code_names)

    def next_starter(self, last_card_seat: int, last_actor: int) -> int:
        if self.starter_last_card and last_card_seat >= 0:
            return last_card_seat
        return last_actor


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
                self.hands[seat].append(self.draw_pile.pop(0))
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
                           last_card_seat, last_actor, len(self.draw_pile))


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


def reference_game(round_cls: type[Round], players: list, drng: np.ndarray, prng: np.ndarray) -> GameResult:
    """A full game to 40 points, drawing decks from ``drng`` exactly as the kernel does."""
    rules = round_cls.rules
    n = len(players)
    scores = [0] * n
    start = 0
    rounds: list[RoundResult] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    while True:
        hands, pile, discard = deal_lazy(rules.deck, n, drng)
        result = round_cls(hands, pile, discard, players, list(scores), start=start, prng=prng).play()
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
            return GameResult(rounds, np.array(scores), penalty, went_out, quits)


def reference_blocks(round_cls: type[Round], seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                     games_mode, entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    def play(players, streams):
        drng, prng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM]
        if games_mode:
            return reference_game(round_cls, players, drng, prng)
        hands, pile, discard = deal_lazy(round_cls.rules.deck, n, drng)
        return round_cls(hands, pile, discard, players, [0] * n, prng=prng).play()

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)


# --------------------------------------------------------------------------------------------
# Kernel: the same loop on count vectors, with the rule set's tables as arguments
# --------------------------------------------------------------------------------------------


def play_bits(can_play: np.ndarray) -> np.ndarray:
    """``can_play`` (C x C, 0/1) as one bit mask per top card: bit c of ``[top]`` is ``can_play[top, c]``."""
    bits = np.zeros(can_play.shape[0], np.int64)
    for top in range(can_play.shape[0]):
        for c in range(can_play.shape[1]):
            bits[top] |= np.int64(can_play[top, c] != 0) << c
    return bits


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
    ``log`` (k, 2) receives (seat, action) pairs when k > 0. (No legal-set buffer since contract v2:
    the legal set is an int64.) An illegal action raises ``ValueError("illegal action", entry, seat,
    action)`` (``llama_sim.core.errors``).

    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos).
    """
    sizes = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    bad = np.zeros(3, np.int64)
    out = round_loop(None, can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                     policies, slot_of_entry, params, entry_of_seat.reshape(1, n), 0,
                     prng, obs, log, sizes, held, False, prng, bad)
    if out[3] < 0:
        raise_stop(ILLEGAL, bad)
    return out


@njit(cache=True, nogil=True, inline="always")
def round_loop(decide, can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, row, prng, obs, log, sizes, held, lazy, drng, bad):
    """``play_round`` with its scratch passed in (``sizes`` (n), ``held`` (n): each seat's codes held as
    a bit mask) and the seating as ``entry_of_seat[row]``:
    the block loop calls it without allocating or slicing per round. A policy gets its parameters as
    ``readonly_row(params, e)``: no copy and no reference counts (a buffer refilled on every change of
    entry cost 6-8% of a L.A.M.A. round, a plain ``params[e]`` view more), and its hand as
    ``readonly_row(hands, seat)`` likewise; ``legal`` = ``can_play_bits[top] & held[seat]`` with the draw
    and quit bits, no loop per decision.
    ``decide``: None in a generic kernel, a line-up kernel's own function otherwise (``registry.line_up_ask``).

    ``lazy``: the draw pile ``deck[pos:]`` is not shuffled yet; each draw picks its card uniformly
    from it with ``drng`` (a forward Fisher-Yates step, see ``deal_lazy_round``).

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
                       penalty, went_out, quits, final, full_deck.copy(), np.zeros((n, n_codes), np.int64),
                       np.zeros(n_codes, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                       np.zeros(obs_len(n_codes), np.int64),
                       np.zeros((0, 2), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), bad, False)
    raise_stop(rounds, bad)
    return rounds


@njit(cache=True, nogil=True, inline="always")
def game_loop(decide, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags, n, policies, slot_of_entry,
              params, entry_of_seat, row, drng, prng, penalty, went_out, quits, final,
              deck, hands, discard, quit, scores, obs, log, sizes, held, bad, one_round):
    """``play_game`` with the seating as ``entry_of_seat[row]`` and all scratch passed in. Returns the
    number of rounds, or ``ILLEGAL`` (``bad`` says which) or ``ENDLESS``.

    ``one_round``: stop after the first round (round mode: a fresh deal at 0 points, seat 0 first), with
    its points in ``penalty`` (a first round from 0 points returns no token, so they are the round's own);
    the block loop plays both modes through this one call, so the round's code is compiled into it once."""
    allow20 = flags[F_TOKENS20] != 0
    starter_last_card = flags[F_STARTER_LAST_CARD] != 0
    scores[:] = 0
    start = 0
    for r in range(MAX_ROUNDS_PER_GAME):
        pos, top = deal_lazy_round(n, full_deck, deck, hands, discard, quit, drng)
        out_seat, last_card, last_actor, turns, _ = round_loop(
            decide, can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
            policies, slot_of_entry, params, entry_of_seat, row, prng, obs, log, sizes, held,
            True, drng, bad)
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


# The block loop's scratch sizes, as literals (``stack_zeros`` takes its capacity as one).
HANDS_CAPACITY = MAX_SEATS * MAX_CODES
OBS_CAPACITY = Layout(MAX_CODES).obs_len


@njit(cache=True, nogil=True, inline="always")
def run_blocks(core, full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
               games_mode, policies, slot_of_entry, params, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal is played once per row of ``entry_of_seat``. ``core`` is
    the rule set's ``blocks_loop`` compiled without reference counting (its generic ``blocks_core``, or a
    line-up kernel's own, ``llama_sim.run.lineup``).

    Why the split: inlined into a function with reference counting, every array handed to an inlined
    helper (the deal, the round, the game) costs atomic reference-count updates at each round. ``core``
    has none, and keeps its per-round scratch on its own stack (``views.stack_zeros``), where the
    compiler knows the arrays do not overlap (the L.A.M.A. line-up kernel, 4 ``greedy``: 653 ns a round
    before, 574 without reference counting, 500 with the scratch on the stack). The squares are summed
    in one triangle (``upper``) and mirrored into ``s2`` at the end."""
    if n > MAX_SEATS:  # (the rule sets' decks fit: ``SheddingRules``)
        raise ValueError("shedding kernel: more seats than its scratch holds")
    metrics = 6 if games_mode else 3
    d = metrics * n_units
    upper = np.zeros((d, d), np.int64)
    bad = np.zeros(3, np.int64)
    code = core(full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, np.zeros(d, np.int64), bad)
    raise_stop(code, bad)
    for i in range(d):
        for j in range(i, d):
            s2[i, j] += upper[i, j]
            if j > i:
                s2[j, i] += upper[i, j]


@njit(cache=True, nogil=True, inline="always")
def blocks_loop(decide, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags,
                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad):
    """``run_blocks``' loop (allocates nothing): each block's deal played once per row of ``entry_of_seat``,
    ``decide`` asking the policies (see ``round_loop``). Its scratch is on the stack of the function it is
    compiled into (``views.stack_zeros``), which must be one without reference counting that calls it
    once (``blocks_core``). Returns 0, or ``ILLEGAL`` (``bad`` says which) or ``ENDLESS``."""
    n_codes = can_play_bits.shape[0]
    rotations = entry_of_seat.shape[0]
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
    deck = stack_zeros(MAX_DECK, full_deck.shape[0], np.int8)
    hands = stack_zeros(HANDS_CAPACITY, (n, n_codes), np.int64)
    discard = stack_zeros(MAX_CODES, n_codes, np.int64)
    obs = stack_zeros(OBS_CAPACITY, obs_len(n_codes), np.int64)
    log = stack_zeros(1, (0, 2), np.int64)
    quit = stack_zeros(MAX_SEATS, n, np.int64)
    scores = stack_zeros(MAX_SEATS, n, np.int64)
    sizes = stack_zeros(MAX_SEATS, n, np.int64)
    held = stack_zeros(MAX_SEATS, n, np.int64)
    penalty = stack_zeros(MAX_SEATS, n, np.int64)
    went_out = stack_zeros(MAX_SEATS, n, np.int64)
    quits = stack_zeros(MAX_SEATS, n, np.int64)
    final = stack_zeros(MAX_SEATS, n, np.int64)
    wins = stack_zeros(MAX_SEATS, n, np.int64)
    for b in range(first_block, first_block + n_blocks):
        v[:] = 0
        key = R.block_key(seed, b)  # once per block: each seating replays its streams
        for r in range(rotations):
            R.seed_from_key(drng, key, R.DEAL_STREAM)
            R.seed_from_key(prng, key, R.POLICY_STREAM)
            penalty[:] = 0
            went_out[:] = 0
            quits[:] = 0
            rounds = game_loop(decide, full_deck, can_play_bits, extra_turn, code_penalty, twins, flags, n, policies,
                               slot_of_entry, params, entry_of_seat, r, drng, prng,
                               penalty, went_out, quits, final,
                               deck, hands, discard, quit, scores, obs, log, sizes, held, bad, not games_mode)
            if rounds < 0:
                return rounds
            add_seats(v, n_units, unit_of_seat, r, n, penalty, went_out, quits, rounds, final, wins, games_mode)
        accumulate_upper(v, s1, upper)
    return 0
