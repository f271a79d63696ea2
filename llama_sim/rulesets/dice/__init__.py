"""LAMA Dice / Don't L.L.A.M.A. Dice (rule set ``dice``): tables, reference engine, Numba kernel.

Rules as played (``shared/rules/lama-dice.txt``, the same game as ``dont-llama-dice.txt``, and
``shared/RULES.md``):

- 43 cards. The *llama row* is 7 black-backed cards, one each of 1..6 and llama, laid out anew
  every round. The other 36 (five each of 1..6, six llamas) are shuffled; each player gets 6 into
  a face-up *row*; the rest are set aside for the round.
- Three dice, each with two llama faces and four numbers, every number on exactly two dice. The
  layout is a rule-set option (``--dice-layout``, see ``llama_sim.rulesets.dice.tables``: 15 layouts,
  default ``12-34-56`` = die A 1234LL, B 1256LL, C 3456LL).
- A turn is *roll* or *quit* (quitting is always allowed; the row stays and scores). After a
  roll, in this order:

  1. three llamas: the player returns the largest token held (10, else 1, else nothing); nothing
     else happens, even with llamas in the row;
  2. some die shows a value in the row (a llama face matches a llama card): the player discards
     at least one matching card, at most one card per die showing its value; which dice to use
     is the strategy's choice. Discarding the last card ends the round (the player *went out*);
  3. otherwise, if some other player is still in the round and a rolled value is still in the
     llama row: the player takes one such card (strategy's choice) into the row; taking the last
     card of the llama row ends the round;
  4. otherwise *llama drama*: the player takes the whole llama row and the round ends. (Alone in
     the round, step 3 is skipped: no match in the own row is drama.)

- The round ends exactly when: a player discards their last card, on drama, when the llama row
  runs out, or when everybody has quit (``END_OUT``, ``END_DRAMA``, ``END_LLAMA_ROW``,
  ``END_ALL_QUIT``). Rows score as in L.A.M.A.: each distinct value once, llamas 10; a player who
  went out scores 0 and then returns the largest token held. The game ends after the round in
  which someone reaches 40; the lowest score wins, ties share. The next round is started by the
  last player to act (quitting counts; the roll and its discard/take are one turn of one player).

Readings chosen (also in RULES.md where it settles them):

- Returning a token is optional in the rulebook but never hurts, so it always happens, and the
  token is the largest held (RULES.md). The token return after three llamas happens at once and
  changes the score immediately (``OBS_SCORES`` shows current holdings).
- A quit player's row stays public in the observation: it was face up until the quit and does not
  change afterwards, so a player at the table knows it.
- *Penalty of a round* (the ``penalty`` statistic), as in every rule set: the net change of the
  player's score over the round: the points scored by the round's cards (0 for the player who
  went out) minus the tokens returned, after three llamas and for going out. Over a game the
  penalties add up to the final score. In round mode every player starts with score 0, so
  nothing can be returned and the penalty is the card points.

Encoding: card/face code ``c`` in 0..5 is the value c+1, 6 the llama. Rows, the llama row and the
discard pile are count vectors over codes. A roll is one draw ``o = randint(216)`` (``games.draws.randint``) from the dice
stream (``DICE_STREAM``): die A (first die of the canonical layout) shows face ``o // 36``, die B
face ``(o // 6) % 6``, die C face ``o % 6``. A deal takes ``6 n`` draws from the deal stream: a
partial Fisher-Yates shuffle of the 36 cards (``deal_shuffle``), seat s gets cards ``6s..6s+5``.

Actions (the policy's return value, ``N_ACTIONS = 16``):

=============  ========  ======================================================================
name           value     meaning
=============  ========  ======================================================================
ROLL           0         roll the three dice (phase TURN)
QUIT           1         quit the round (phase TURN)
DISCARD_MASK_m 1 + m     m = 1..7: discard one card per die in bitmask m (bit i = die i of
                         ``OBS_DICE``), the value that die shows (phase DISCARD)
TAKE_c         9 + c     take the card of code c from the llama row (phase TAKE)
=============  ========  ======================================================================

A turn is one or two decisions by the same player: ROLL/QUIT with ``OBS_PHASE = PHASE_TURN``,
then, if the roll asks for a choice, a DISCARD or TAKE decision with the rolled faces in
``OBS_DICE``. A discard mask is legal when it is non-empty and, for each code, the number of
selected dice showing it is at most the number of such cards in the row.

Engines. ``Round`` / ``reference_game`` / ``reference_blocks`` are the plain-Python reference;
``play_round`` (the kernel, from any position), ``play_game`` and ``run_blocks`` the Numba kernel;
both draw deals from ``DEAL_STREAM``, rolls from ``DICE_STREAM`` and policy randomness from
``POLICY_STREAM`` in the same order and call the same compiled policies, so they agree exactly.
``play_round_entry`` is ``play_round`` with one explicit signature for Python callers;
``simulate_position`` plays a typed-in position (rows, llama row, who has quit, scores) many times
(``run_positions``); ``simulate_solo`` does it for a solo position, to set ``solo_optimal`` against
the exact values of ``llamasim solve dice`` (``solve_position_table``, on ``llama_sim.rulesets.dice.solver``).

Speed notes: the block loop (``blocks_core``, issue 12; ``play_core``, the round behind
``play_round``), ``deal_round`` and ``deal_shuffle`` are compiled without Numba's reference counting
(``_nrt=False``: they allocate nothing); calls to separately compiled functions taking arrays
otherwise cost atomic reference-count updates. The block loop keeps its scratch on its own stack
(``views.stack_zeros``), so the compiler knows its arrays do not overlap: with that and the legal
discard masks as bit sets (``discard_masks``), 4 ``threshold:quit_at=10`` players went from 1.58 to
1.92 million rounds per CPU-second (generic kernel; its line-up kernel 1.80 to 2.37; ``python
benchmarks/before_after.py --baseline DIR --repeats 5 --rounds 300000``, the session before and
the final run of issue 12). ``randint`` is ``games.draws.randint``: the exact integer floor of the top
53 bits times n, which agrees with the float-based ``rng.randint`` but at rounding boundaries
(about n / 2**53 of the draws), so results for a seed are unchanged in practice. The faces of a roll
come from a table (``ROLL_DIE_FACE``). 4 ``threshold`` players: about 1.36 million rounds per
CPU-second (1.13 million before; see the branch note). Policy contract v2 (issue 12: the own row
handed over as ``hand`` instead of copied into ``obs``, the legal set as a bit mask instead of a byte
array): 1.09x (``benchmarks/before_after.py --games dice --repeats 3 --rounds 300000``, 4
``threshold:quit_at=10``: 1.48 -> 1.61 million rounds per CPU-second).

Illegal actions: ``play_core`` keeps its own bit set of the legal actions, hands it to the policy as
``legal`` (the contract's int64 mask; no byte array is written per decision since issue 12) and checks
the answer against it; ``play_round``, ``play_game``, ``run_blocks`` and ``run_positions`` raise
``ValueError("illegal action", entry, seat, action)``, and so does the reference engine (``entry``:
the line-up entry playing that seat). ``play_core`` takes one argument more than ``play_round``,
``bad`` (int64[3]), where it reports an illegal action.

Observation layout (int64, ``OBS_LEN``), everything the acting player can see:

====================  ========  =============================================================
field                 index     meaning
====================  ========  =============================================================
OBS_SEAT              0         acting seat
OBS_PLAYERS           1         number of players n
OBS_PHASE             2         PHASE_TURN 0 (roll/quit), PHASE_DISCARD 1, PHASE_TAKE 2
OBS_ACTIVE            3         players still in the round (acting player included; 1 = alone)
OBS_TURN              4         decisions taken so far this round
OBS_LAYOUT_ID         5         index of the dice layout in ``tables.LAYOUTS`` (0..14)
OBS_DICE              6..8      faces (codes) of the most recent roll, per die; -1 before any
OBS_ROLLED            9..15     that roll as counts per code
OBS_LLAMA_ROW         16..22    llama row: 1 if that card is still there
OBS_ROWS              23..64    every seat's row (seat s at 23 + 7 s), 0 for absent seats
OBS_QUIT              65..70    1 if that seat has quit this round
OBS_SCORES            71..76    each seat's score now (tokens held)
OBS_DISCARDED         77..83    cards discarded this round, per code (public)
OBS_SET_ASIDE         84        number of cards set aside this round
OBS_FACES             85..102   the layout: die d face k at 85 + 6 d + k (canonical order)
====================  ========  =============================================================

The acting seat's own row is not a field of its own: the policy gets it as ``hand`` (the contract's
``policy(obs, hand, legal, params, rng)``), the engine's own row of ``rows``, and it is also at
``OBS_ROWS + 7 * OBS_SEAT`` like every seat's. (Before issue 12 it was copied into ``OBS_ROW`` at
16..22 at every decision; the later fields moved up by 7.)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.rulesets.dice.tables import (
    DEFAULT_LAYOUT_NAME, LAYOUTS, format_layout, parse_layout, validate_layout,
)
from llama_sim.core.errors import UsageError
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import POLICIES_TYPE, line_up_ask
from llama_sim.core.engine import (
    ENDLESS, GAME_END_SCORE, ILLEGAL, MAX_ROUNDS_PER_GAME, RUN_BLOCKS_SIG, accumulate, add_seat,
    add_seats, ask_policy, distinct_penalty, largest_token, legal_bits, raise_stop, reference_block_loop,
)
from llama_sim.core.ruleset import RuleSet
from llama_sim.core.draws import NO_NRT as _NO_NRT, deal_shuffle, randint
from llama_sim.core.views import readonly_row, stack_zeros

N_CODES = 7
LLAMA = 6
CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L")
PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
DECK = np.array([c for c in range(6) for _ in range(5)] + [LLAMA] * 6, dtype=np.int8)  # 36 grey cards
TOTAL_OF_CODE = np.array([6, 6, 6, 6, 6, 6, 7], dtype=np.int64)  # 43 cards with the llama row
N_CARDS = 43
ROW_SIZE = 6
N_DICE = 3
N_FACES = 6
N_ROLLS = 216
MIN_PLAYERS, MAX_PLAYERS = 2, 6

LAYOUT_NAMES = tuple(LAYOUTS)
LAYOUT_FACES = np.array([LAYOUTS[k] for k in LAYOUT_NAMES], dtype=np.int64)  # (15, 3, 6)
DEFAULT_LAYOUT_ID = LAYOUT_NAMES.index(DEFAULT_LAYOUT_NAME)

ROLL = 0
QUIT = 1
DISCARD_BASE = 1  # DISCARD_MASK_m = DISCARD_BASE + m, m = 1..7
DISCARD_MASK_1, DISCARD_MASK_2, DISCARD_MASK_3, DISCARD_MASK_4, DISCARD_MASK_5, DISCARD_MASK_6, \
    DISCARD_MASK_7 = range(2, 9)
TAKE_BASE = 9  # TAKE_c = TAKE_BASE + c, c = 0..6
N_ACTIONS = 16
ACTION_NAMES = ("roll", "quit") + tuple(
    "discard " + "".join("ABC"[i] for i in range(3) if m >> i & 1) for m in range(1, 8)
) + tuple(f"take {c}" for c in CODE_NAMES)

PHASE_TURN, PHASE_DISCARD, PHASE_TAKE = 0, 1, 2
END_ALL_QUIT, END_OUT, END_DRAMA, END_LLAMA_ROW = 0, 1, 2, 3
END_NAMES = ("all quit", "went out", "llama drama", "llama row empty")

OBS_SEAT, OBS_PLAYERS, OBS_PHASE, OBS_ACTIVE, OBS_TURN, OBS_LAYOUT_ID = range(6)
OBS_DICE = 6
OBS_ROLLED = 9
OBS_LLAMA_ROW = 16
OBS_ROWS = 23
OBS_QUIT = 65
OBS_SCORES = 71
OBS_DISCARDED = 77
OBS_SET_ASIDE = 84
OBS_FACES = 85
OBS_LEN = 103

TURN_LEGAL = (1 << ROLL) | (1 << QUIT)  # the legal mask of a roll-or-quit decision
# Discard masks m = 1..7 (bit i: die i) as bit sets over m, for the kernel's legal set:
# DISCARD_SUBSETS[dice]: the masks using only the dice in ``dice``; DISCARD_AT_MOST[k]: those using at
# most k dice; DISCARD_WITH_AB (AC, BC): those using both of those two dice.
DISCARD_SUBSETS = np.array([sum(1 << m for m in range(1, 8) if m & ~dice == 0) for dice in range(8)], np.int64)
DISCARD_AT_MOST = np.array([sum(1 << m for m in range(1, 8) if bin(m).count("1") <= k) for k in range(4)], np.int64)
DISCARD_WITH_AB, DISCARD_WITH_AC, DISCARD_WITH_BC = (sum(1 << m for m in range(1, 8) if m & pair == pair)
                                                     for pair in (3, 5, 6))
LOG_CAPACITY = 4096  # a round has at most ~60 card-moving rolls, plus any number of three-llama rolls


# --------------------------------------------------------------------------------------------
# Shared pieces (used by both engines)
# --------------------------------------------------------------------------------------------


# The dice of roll o (0..215): die A face o // 36, die B (o // 6) % 6, die C o % 6.
ROLL_DIE_FACE = np.array([[o // 36, (o // 6) % 6, o % 6] for o in range(216)], dtype=np.int64)


@njit(cache=True, nogil=True)
def roll_faces(faces, o):
    """Face codes of roll ``o`` (0..215) on a layout given as 18 face codes (die-major)."""
    return faces[o // 36], faces[6 + (o // 6) % 6], faces[12 + o % 6]


def layout_cfg(layout) -> np.ndarray:
    """cfg for the kernels: [layout id, 18 face codes of the canonical layout] (dice in canonical
    order: die A is the first row of ``tables.LAYOUTS[name]``). ValueError if invalid."""
    arr = parse_layout(layout) if isinstance(layout, str) else validate_layout(np.asarray(layout, dtype=np.int64))
    i = next(i for i, name in enumerate(LAYOUT_NAMES) if np.array_equal(LAYOUTS[name], arr))
    return np.concatenate([[i], arr.ravel()]).astype(np.int64)


def discard_legal(row, f0, f1, f2, mask) -> bool:
    """Readable legality of a discard mask: non-empty, at most one card per die, enough cards."""
    dice = [f0, f1, f2]
    chosen = [dice[i] for i in range(3) if mask >> i & 1]
    return len(chosen) > 0 and all(chosen.count(c) <= row[c] for c in set(chosen))


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


# --------------------------------------------------------------------------------------------
# Reference engine: plain Python, reads like the rulebook. Slow on purpose; the kernel must agree.
# --------------------------------------------------------------------------------------------


@dataclass
class RoundResult:
    actions: list[tuple[int, int, int]]  # (seat, action, roll 0..215 for ROLL else -1)
    rows: np.ndarray  # final rows (n, 7), quit players' rows included
    llama_row: np.ndarray  # (7,) what is left of the llama row
    discarded: np.ndarray  # (7,) cards discarded this round
    points: np.ndarray  # points scored by the round's cards (0 for the player who went out)
    returned: np.ndarray  # tokens returned after three llamas this round
    end: int  # END_*
    last_actor: int
    quit: np.ndarray

    @property
    def out_seat(self) -> int:
        return self.last_actor if self.end == END_OUT else -1

    @property
    def penalties(self) -> np.ndarray:
        return self.points - self.returned


@dataclass
class Round:
    """One round of LAMA Dice from any position."""

    rows: np.ndarray  # (n, 7) counts, each seat's face-up row
    players: list  # per seat: (policy, params)
    scores: list[int]  # tokens held now
    layout: np.ndarray  # (3, 6) face codes, canonical
    llama_row: np.ndarray = field(default_factory=lambda: np.ones(N_CODES, np.int64))
    discarded: np.ndarray = field(default_factory=lambda: np.zeros(N_CODES, np.int64))
    start: int = 0
    quit: list[bool] = field(default_factory=list)
    set_aside: int = -1  # cards set aside (public count); -1: whatever completes the 43
    prng: np.ndarray = field(default_factory=lambda: R.new_state(0, 0, R.POLICY_STREAM))
    drng: np.ndarray = field(default_factory=lambda: R.new_state(0, 0, R.DICE_STREAM))
    rolls: list[int] = field(default_factory=list)  # scripted rolls (0..215) used before the stream

    def __post_init__(self):
        self.rows = np.array(self.rows, dtype=np.int64)
        self.rolls = list(self.rolls)
        self.llama_row = np.array(self.llama_row, dtype=np.int64)
        self.discarded = np.array(self.discarded, dtype=np.int64)
        cfg = layout_cfg(self.layout)  # canonical dice order, as the kernel uses
        self.layout = cfg[1:].reshape(N_DICE, N_FACES)
        self.layout_id = int(cfg[0])
        self.scores = list(self.scores)
        self.n = len(self.rows)
        if not self.quit:
            self.quit = [False] * self.n
        self.quit = list(self.quit)
        if self.set_aside < 0:
            self.set_aside = N_CARDS - int(self.rows.sum() + self.llama_row.sum() + self.discarded.sum())
        self.actions: list[tuple[int, int, int]] = []
        self.returned = np.zeros(self.n, np.int64)
        self.dice = (-1, -1, -1)

    def in_round(self) -> list[int]:
        return [s for s in range(self.n) if not self.quit[s]]

    def observe(self, seat: int, phase: int) -> np.ndarray:
        obs = np.zeros(OBS_LEN, dtype=np.int64)
        obs[OBS_SEAT] = seat
        obs[OBS_PLAYERS] = self.n
        obs[OBS_PHASE] = phase
        obs[OBS_ACTIVE] = len(self.in_round())
        obs[OBS_TURN] = len(self.actions)
        obs[OBS_LAYOUT_ID] = self.layout_id
        for i, f in enumerate(self.dice):
            obs[OBS_DICE + i] = f
            if f >= 0:
                obs[OBS_ROLLED + f] += 1
        obs[OBS_LLAMA_ROW:OBS_LLAMA_ROW + N_CODES] = self.llama_row
        for s in range(self.n):
            obs[OBS_ROWS + N_CODES * s:OBS_ROWS + N_CODES * (s + 1)] = self.rows[s]
            obs[OBS_QUIT + s] = self.quit[s]
            obs[OBS_SCORES + s] = self.scores[s]
        obs[OBS_DISCARDED:OBS_DISCARDED + N_CODES] = self.discarded
        obs[OBS_SET_ASIDE] = self.set_aside
        obs[OBS_FACES:OBS_FACES + 18] = self.layout.ravel()
        return obs

    def choose(self, seat: int, phase: int, legal: np.ndarray) -> int:
        """Ask the seat's policy on its observation, its row (``hand``) and ``legal`` (0/1 per action,
        handed over as the contract's bit mask); an answer outside ``legal`` raises
        ``ValueError("illegal action", entry, seat, action)``."""
        return ask_policy(self.players[seat], seat, self.observe(seat, phase), self.rows[seat], legal_bits(legal),
                          self.prng)

    def decide(self, seat: int, phase: int, legal: np.ndarray) -> int:
        """A choice after a roll (which dice / which card), logged with roll -1."""
        action = self.choose(seat, phase, legal)
        self.actions.append((seat, action, -1))
        return action

    def play(self) -> RoundResult:
        seat = self.start
        last_actor = -1
        end = END_ALL_QUIT
        while self.in_round():
            if self.quit[seat]:
                seat = (seat + 1) % self.n
                continue
            row = self.rows[seat]
            # A turn: roll or quit (both always allowed).
            legal = np.zeros(N_ACTIONS, np.uint8)
            legal[ROLL] = legal[QUIT] = 1
            last_actor = seat
            action = self.choose(seat, PHASE_TURN, legal)
            if action == QUIT:
                self.actions.append((seat, QUIT, -1))
                self.quit[seat] = True  # the row stays and will score
                seat = (seat + 1) % self.n
                continue
            o = self.rolls.pop(0) if self.rolls else randint(self.drng, N_ROLLS)
            self.actions.append((seat, ROLL, o))
            f = tuple(int(x) for x in roll_faces(self.layout.ravel(), o))
            self.dice = f
            alone = len(self.in_round()) == 1
            if f == (LLAMA, LLAMA, LLAMA):
                # Three llamas: return a token if any; nothing else happens.
                token = int(largest_token(self.scores[seat], False))
                self.scores[seat] -= token
                self.returned[seat] += token
            elif any(row[c] > 0 for c in f):
                # Discard at least one matching card, at most one per die showing its value.
                legal = np.zeros(N_ACTIONS, np.uint8)
                for m in range(1, 8):
                    legal[DISCARD_BASE + m] = discard_legal(row, *f, m)
                action = self.decide(seat, PHASE_DISCARD, legal)
                mask = action - DISCARD_BASE
                for i in range(3):
                    if mask >> i & 1:
                        row[f[i]] -= 1
                        self.discarded[f[i]] += 1
                if row.sum() == 0:
                    end = END_OUT
                    break
            elif not alone and any(self.llama_row[c] > 0 for c in f):
                # Take one of the rolled values from the llama row.
                legal = np.zeros(N_ACTIONS, np.uint8)
                for c in set(f):
                    legal[TAKE_BASE + c] = self.llama_row[c] > 0
                action = self.decide(seat, PHASE_TAKE, legal)
                c = action - TAKE_BASE
                self.llama_row[c] = 0
                row[c] += 1
                if self.llama_row.sum() == 0:
                    end = END_LLAMA_ROW
                    break
            else:
                # Llama drama: take the whole llama row; the round ends.
                row += self.llama_row
                self.llama_row[:] = 0
                end = END_DRAMA
                break
            seat = (seat + 1) % self.n
        points = np.array([0 if (end == END_OUT and s == last_actor) else int(distinct_penalty(self.rows[s], PENALTY))
                           for s in range(self.n)], dtype=np.int64)
        return RoundResult(self.actions, self.rows.copy(), self.llama_row.copy(), self.discarded.copy(), points,
                           self.returned.copy(), end, last_actor, np.array(self.quit, dtype=np.int64))


def deal(deck: np.ndarray, n: int) -> np.ndarray:
    """Rows (n, 7) from a dealt deck: seat s gets cards 6s..6s+5; the rest is set aside."""
    rows = np.zeros((n, N_CODES), np.int64)
    for s in range(n):
        for c in deck[ROW_SIZE * s: ROW_SIZE * (s + 1)]:
            rows[s, int(c)] += 1
    return rows


def reference_deal(n: int, drng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle (6 n draws) and deal; returns (rows, the set-aside cards as counts)."""
    deck = DECK.copy()
    deal_shuffle(deck, ROW_SIZE * n, drng)
    set_aside = np.bincount(deck[ROW_SIZE * n:].astype(np.int64), minlength=N_CODES)
    return deal(deck, n), set_aside


@dataclass
class GameResult:
    rounds: list[RoundResult]
    starts: list[int]
    final: np.ndarray
    penalty: np.ndarray
    went_out: np.ndarray
    quit: np.ndarray


def reference_game(players: list, layout: np.ndarray, drng: np.ndarray, prng: np.ndarray,
                   dice_rng: np.ndarray) -> GameResult:
    """A full game to 40 points, drawing deals and dice exactly as the kernel does."""
    n = len(players)
    scores = [0] * n
    start = 0
    rounds: list[RoundResult] = []
    starts: list[int] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    while True:
        rows, _ = reference_deal(n, drng)
        rnd = Round(rows, players, scores, layout, start=start, prng=prng, drng=dice_rng)
        result = rnd.play()
        rounds.append(result)
        starts.append(start)
        scores = list(rnd.scores)  # after any three-llama returns
        for s in range(n):
            scores[s] += int(result.points[s])
        penalty += result.penalties
        if result.end == END_OUT:  # went out: return the largest token held
            returned = int(largest_token(scores[result.last_actor], False))
            scores[result.last_actor] -= returned
            penalty[result.last_actor] -= returned  # a round's penalty is the net change of the score
            went_out[result.last_actor] += 1
        quits += result.quit
        start = result.last_actor
        if max(scores) >= GAME_END_SCORE:
            return GameResult(rounds, starts, np.array(scores), penalty, went_out, quits)


# --------------------------------------------------------------------------------------------
# Kernel
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, **_NO_NRT)
def play_core(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
              policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad):
    """``play_core_with`` asking the policies through the function tuple (the generic kernel's)."""
    return play_core_with(None, n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                          policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad)


@njit(cache=True, nogil=True, inline="always")
def play_core_with(decide, n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                   policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad):
    """``play_round``'s work, compiled without reference counting (as ``play_core``, or inside the block loop
    ``blocks_core_with``: the generic ``blocks_core`` or a line-up kernel's own ``core``, ``llama_sim.run.lineup``,
    with ``decide`` its ``decide``): on an illegal action it sets ``bad`` = (entry, seat, action) and returns
    decisions = -1 (the round is left where it was).

    A policy gets ``obs``, the seat's own row as ``hand`` and its params row, both as
    ``views.readonly_row`` (no copy, and no meminfo: a plain ``rows[seat]`` view would carry the
    parent's, costing the policy two atomic reference-count updates per call), and the legal actions
    as the bit set the kernel keeps anyway (``allowed``, bit a = action a; ROLL|QUIT at a turn),
    against which it checks the answer."""
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
        o = randint(drng, N_ROLLS)
        if turn < cap:
            log[turn, 0] = seat
            log[turn, 1] = ROLL
            log[turn, 2] = o
        turn += 1
        f0 = cfg[1 + ROLL_DIE_FACE[o, 0]]
        f1 = cfg[7 + ROLL_DIE_FACE[o, 1]]
        f2 = cfg[13 + ROLL_DIE_FACE[o, 2]]
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
            m = a - DISCARD_BASE
            left = 0
            for i in range(3):
                if (m >> i) & 1:
                    fi = f0 if i == 0 else (f1 if i == 1 else f2)
                    rows[seat, fi] -= 1
                    discarded[fi] += 1
                    obs[OBS_ROWS + N_CODES * seat + fi] -= 1
                    obs[OBS_DISCARDED + fi] += 1
            for c in range(N_CODES):
                left += rows[seat, c]
            if left == 0:
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
            c = a - TAKE_BASE
            llama_row[c] = 0
            obs[OBS_LLAMA_ROW + c] = 0
            rows[seat, c] += 1
            obs[OBS_ROWS + N_CODES * seat + c] += 1
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


@njit(cache=True, nogil=True)
def play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
               policies, slot_of_entry, params, entry_of_seat, prng, drng, obs, log):
    """Play one round in place from any position: rows (n, 7), llama row, discard counts, who has
    quit, whose turn, scores (tokens held; three-llama returns are taken off in place and added to
    ``returned``). ``cfg`` = [layout id, 18 faces]. Seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 3) receives (seat, action, roll or -1) when k > 0.

    Returns (end, last_actor, decisions taken). An illegal action raises
    ``ValueError("illegal action", entry, seat, action)``.
    """
    bad = np.zeros(3, np.int64)
    end, last_actor, k = play_core(n, rows, llama_row, discarded, quit, start, scores, returned, cfg, policies,
                                   slot_of_entry, params, entry_of_seat, prng, drng, obs, log, bad)
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
                       np.zeros((0, 3), np.int64), bad, False)
    raise_stop(rounds, bad)
    return rounds


@njit(cache=True, nogil=True, inline="always")
def game_loop(decide, n, policies, slot_of_entry, params, entry_of_seat, drng, prng, dice_rng, cfg,
              penalty, went_out, quits, final, deck, rows, llama_row, discarded, quit, scores, returned, obs, log,
              bad, one_round):
    """A full game to 40 into per-seat totals, each round played by ``play_core_with`` asking through
    ``decide``, on the scratch passed in. Returns the number of rounds, or ``ILLEGAL`` (``bad`` says
    which) or ``ENDLESS``. ``one_round``: stop after the first round (round mode), with its points in
    ``penalty``: the block loop plays both modes through this one call (see ``shedding.game_loop``)."""
    start = 0
    scores[:] = 0
    for r in range(MAX_ROUNDS_PER_GAME):
        deal_into(n, deck, rows, llama_row, discarded, quit, drng)
        returned[:] = 0
        end, last_actor, k = play_core_with(decide, n, rows, llama_row, discarded, quit, start, scores, returned,
                                            cfg, policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                            obs, log, bad)
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


def _run_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, cfg, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal (and dice stream) is played once per rotation."""
    run_blocks_with(blocks_core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                    games_mode, policies, slot_of_entry, params, cfg, s1, s2)


@njit(cache=True, nogil=True, inline="always")
def run_blocks_with(core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                    policies, slot_of_entry, params, cfg, s1, s2):
    """``run_blocks`` with its loop compiled as ``core`` (``blocks_core``, or a line-up kernel's own, see
    ``llama_sim.run.lineup``). As in the shedding kernels (``shedding.run_blocks``), the loop runs without
    reference counting on scratch on its own stack; this function allocates what it returns and raises
    what the loop reports."""
    if n > MAX_PLAYERS:
        raise ValueError("dice kernel: more seats than its scratch holds")
    metrics = 6 if games_mode else 3
    bad = np.zeros(3, np.int64)
    code = core(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode, policies,
                slot_of_entry, params, cfg, s1, s2, np.zeros(metrics * n_units, np.int64), bad)
    raise_stop(code, bad)


@njit(cache=True, nogil=True, **_NO_NRT)
def blocks_core(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode, policies,
                slot_of_entry, params, cfg, s1, s2, v, bad):
    """The generic kernel's loop: ``blocks_core_with`` asking through the function tuple."""
    return blocks_core_with(None, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                            policies, slot_of_entry, params, cfg, s1, s2, v, bad)


ROWS_CAPACITY = MAX_PLAYERS * N_CODES  # (literals: ``views.stack_zeros`` takes its capacity as one)
DECK_CAPACITY = DECK.shape[0]


@njit(cache=True, nogil=True, inline="always")
def blocks_core_with(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     policies, slot_of_entry, params, cfg, s1, s2, v, bad):
    """The block loop (allocates nothing): each block's deal and dice played once per rotation, ``decide``
    asking the policies (see ``play_core_with``). Its scratch is on the stack of the function it is compiled
    into (``views.stack_zeros``), one without reference counting (``blocks_core``): arrays of its own are
    known not to alias one another. Returns 0, or ``ILLEGAL`` (``bad`` says which) or ``ENDLESS``."""
    rotations = entry_of_seat.shape[0]
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
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
    penalty = stack_zeros(MAX_PLAYERS, n, np.int64)
    went_out = stack_zeros(MAX_PLAYERS, n, np.int64)
    quits = stack_zeros(MAX_PLAYERS, n, np.int64)
    final = stack_zeros(MAX_PLAYERS, n, np.int64)
    wins = stack_zeros(MAX_PLAYERS, n, np.int64)
    for b in range(first_block, first_block + n_blocks):
        v[:] = 0
        key = R.block_key(seed, b)  # once per block: each seating replays its streams
        for r in range(rotations):
            R.seed_from_key(drng, key, R.DEAL_STREAM)
            R.seed_from_key(prng, key, R.POLICY_STREAM)
            R.seed_from_key(dice_rng, key, R.DICE_STREAM)
            penalty[:] = 0
            went_out[:] = 0
            quits[:] = 0
            rounds = game_loop(decide, n, policies, slot_of_entry, params, entry_of_seat[r], drng, prng, dice_rng,
                               cfg, penalty, went_out, quits, final, deck, rows, llama_row, discarded, quit, scores,
                               returned, obs, log, bad, not games_mode)
            if rounds < 0:
                return rounds
            add_seats(v, n_units, unit_of_seat, r, n, penalty, went_out, quits, rounds, final, wins, games_mode)
        accumulate(v, s1, s2)
    return 0


run_blocks = Kernel(_run_blocks, lambda: RUN_BLOCKS_SIG, "dice kernel")


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, dice and policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    layout = np.asarray(cfg[1:19], dtype=np.int64).reshape(3, 6)

    def play(players, streams):
        drng, prng, dice_rng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM], streams[R.DICE_STREAM]
        if games_mode:
            return reference_game(players, layout, drng, prng, dice_rng)
        rows, _ = reference_deal(n, drng)
        return Round(rows, players, [0] * n, layout, prng=prng, drng=dice_rng).play()

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)


# --------------------------------------------------------------------------------------------
# Playing from a given position (advisor roll-outs, checks against the exact solver)
# --------------------------------------------------------------------------------------------

RUN_POSITIONS_SIG = types.void(
    types.uint64, types.int64, types.int64, types.int64,
    types.int64[:, ::1], types.int64[::1], types.int64[::1], types.int64[::1], types.int64, types.int64[::1],
    POLICIES_TYPE, types.int64[::1], types.float64[:, ::1], types.int64[::1],
    types.int64[::1], types.int64[:, ::1], types.int64[::1],
)


def _run_positions(seed, first, count, n, rows0, llama0, discarded0, quit0, start, scores0,
                   policies, slot_of_entry, params, cfg, s1, s2, ends):
    """Play the position ``count`` times (samples first..first+count-1, each with its own policy
    and dice streams from (seed, sample)); one unit per seat, round metrics (penalty, went out,
    quit) accumulated as one block per sample; ``ends`` counts END_* reasons."""
    rows = np.zeros((n, N_CODES), np.int64)
    llama_row = np.zeros(N_CODES, np.int64)
    discarded = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    returned = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    log = np.zeros((0, 3), np.int64)
    prng = np.zeros(2, np.uint64)
    dice_rng = np.zeros(2, np.uint64)
    entry_of_seat = np.arange(n)
    bad = np.zeros(3, np.int64)
    v = np.zeros(3 * n, np.int64)
    for b in range(first, first + count):
        R.seed_state(prng, seed, b, R.POLICY_STREAM)
        R.seed_state(dice_rng, seed, b, R.DICE_STREAM)
        rows[:, :] = rows0
        llama_row[:] = llama0
        discarded[:] = discarded0
        quit[:] = quit0
        scores[:] = scores0
        returned[:] = 0
        end, last_actor, k = play_core(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                       policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                       obs, log, bad)
        if k < 0:
            raise ValueError("illegal action", bad[0], bad[1], bad[2])
        ends[end] += 1
        v[:] = 0
        for s in range(n):
            p = round_points(rows, s, end, last_actor) - returned[s]
            out = 1 if (end == END_OUT and s == last_actor) else 0
            add_seat(v, n, s, p, out, quit[s], 0, 0, 0, False)
        accumulate(v, s1, s2)


run_positions = Kernel(_run_positions, lambda: RUN_POSITIONS_SIG, "dice position kernel")


def check_position(rows, llama_row, discarded=None, quit=None, start=0, scores=None):
    """Validate a typed-in position; returns it as arrays. Raises UsageError on impossible input."""
    rows = np.array(rows, dtype=np.int64)
    if rows.ndim != 2 or rows.shape[1] != N_CODES or not MIN_PLAYERS <= rows.shape[0] <= MAX_PLAYERS:
        raise UsageError(f"rows must be {MIN_PLAYERS}..{MAX_PLAYERS} count vectors of length {N_CODES}")
    n = rows.shape[0]
    llama_row = np.array(llama_row, dtype=np.int64)
    discarded = np.zeros(N_CODES, np.int64) if discarded is None else np.array(discarded, dtype=np.int64)
    quit = np.zeros(n, np.int64) if quit is None else np.array(quit, dtype=np.int64)
    scores = np.zeros(n, np.int64) if scores is None else np.array(scores, dtype=np.int64)
    if llama_row.shape != (N_CODES,) or llama_row.min() < 0 or llama_row.max() > 1:
        raise UsageError("the llama row holds at most one card of each value")
    if llama_row.sum() == 0:
        raise UsageError("the llama row is empty: the round is over")
    if (rows < 0).any() or (discarded < 0).any() or (scores < 0).any():
        raise UsageError("counts and scores must be non-negative")
    if quit.shape != (n,) or scores.shape != (n,) or discarded.shape != (N_CODES,):
        raise UsageError("quit and scores need one entry per seat, discarded one per value")
    used = rows.sum(axis=0) + llama_row + discarded
    for c in range(N_CODES):
        if used[c] > TOTAL_OF_CODE[c]:
            raise UsageError(f"impossible position: {used[c]} cards of value {CODE_NAMES[c]} "
                             f"(the game has {TOTAL_OF_CODE[c]})")
    if (rows.sum(axis=1) == 0).any():
        raise UsageError("every row needs at least one card (an empty row has gone out)")
    if quit.min() < 0 or quit.max() > 1 or quit.sum() == n:
        raise UsageError("quit flags are 0/1 and someone must still be in the round")
    if not 0 <= start < n or quit[start]:
        raise UsageError(f"seat {start} cannot start: it is not a seat still in the round")
    return rows, llama_row, discarded, quit, int(start), scores


def simulate_position(rows, llama_row, players, n_rounds: int, seed: int = 1, layout=None, *,
                      discarded=None, quit=None, start: int = 0, scores=None, threads: int = 1):
    """Play a typed-in position ``n_rounds`` times with the kernel.

    ``players`` are ``registry.Player`` objects (one per seat; quit seats' strategies never act).
    Returns ``(tally, ends)``: a round-mode ``stats.Tally`` with one unit per seat (each sample is
    an independent block; use ``stats.estimate(tally, "penalty_per_round", seat)``) and the count
    of each END_* reason.
    """
    from llama_sim.core.registry import policy_tuple
    from llama_sim.core.stats import ROUND_METRICS, Tally

    rows, llama_row, discarded, quit, start, scores = check_position(rows, llama_row, discarded, quit, start, scores)
    n = rows.shape[0]
    if len(players) != n:
        raise UsageError(f"{n} rows but {len(players)} players")
    if n_rounds <= 0:
        raise UsageError("the number of rounds must be positive")
    cfg = _config(**({} if layout is None else {"dice_layout": layout}))
    policies, slots = policy_tuple(players)
    params = np.ascontiguousarray(np.array([p.params for p in players], dtype=np.float64))
    d = 3 * n
    threads = max(1, int(threads))
    cuts = np.linspace(0, n_rounds, threads + 1).astype(np.int64)
    results = []

    def work(k):
        s1 = np.zeros(d, np.int64)
        s2 = np.zeros((d, d), np.int64)
        ends = np.zeros(4, np.int64)
        run_positions(np.uint64(seed % 2**64), int(cuts[k]), int(cuts[k + 1] - cuts[k]), n, rows, llama_row,
                      discarded, quit, start, scores, policies, slots, params, cfg, s1, s2, ends)
        return s1, s2, ends

    if threads == 1:
        results = [work(0)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        run_positions.get()
        with ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(work, range(threads)))
    s1 = sum(r[0] for r in results)
    s2 = sum(r[1] for r in results)
    ends = sum(r[2] for r in results)
    return Tally(ROUND_METRICS, n, np.ones(n, np.int64), n_rounds, s1, s2), ends


def simulate_solo(row, llama_row, strategy: str = "solo_optimal", n_rounds: int = 100_000, seed: int = 1,
                  layout=None, threads: int = 1):
    """Play a solo position (everybody else has quit) ``n_rounds`` times with the kernel.

    ``row``/``llama_row``: card text ("2 5 L") or count vectors; ``strategy``: a spec such as
    ``"solo_optimal"``. Returns ``(estimate, ends)``: the ``stats.Estimate`` of the round's penalty
    for the solo player (comparable with ``llamasim solve dice``) and the count of each END_*."""
    from llama_sim.core.registry import parse_spec
    from llama_sim.rulesets.dice.solver import parse_cards
    from llama_sim.core.stats import estimate

    row = parse_cards(row) if isinstance(row, str) else np.asarray(row, np.int64)
    lrow = parse_cards(llama_row) if isinstance(llama_row, str) else np.asarray(llama_row, np.int64)
    other = np.zeros(N_CODES, np.int64)
    other[int(np.argmax(TOTAL_OF_CODE - row - lrow))] = 1  # a quit opponent's card, never played
    players = [parse_spec("dice", strategy), parse_spec("dice", "always_quit")]
    tally, ends = simulate_position(np.array([row, other]), lrow, players, n_rounds, seed=seed, layout=layout,
                                    quit=[0, 1], threads=threads)
    return estimate(tally, "penalty_per_round", 0), ends


# --------------------------------------------------------------------------------------------
# The solo phase, solved exactly (``llamasim solve dice``; the solver is ``llama_sim.rulesets.dice.solver``)
# --------------------------------------------------------------------------------------------


def parse_solo_position(row: str | None, llama_row: str) -> tuple[np.ndarray | None, np.ndarray]:
    """Parse and check ``--row`` / ``--llama-row`` card lists; UsageError on impossible input.

    A row starts with 6 cards and grows only by taking llama-row cards, so it holds at most
    6 + (7 - cards left in the llama row) cards; no value can exceed its 6 (llamas: 7) copies."""
    from llama_sim.rulesets.dice.solver import parse_cards

    try:
        lrow = parse_cards(llama_row)
        own = None if row is None else parse_cards(row)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if lrow.max() > 1:
        raise UsageError(f"the llama row holds at most one card of each value, got '{llama_row}'")
    if lrow.sum() == 0:
        raise UsageError("the llama row is empty: the round is already over")
    if own is not None:
        if own.sum() == 0:
            raise UsageError("the row is empty: that player has gone out, there is nothing to decide")
        for c in range(N_CODES):
            if own[c] + lrow[c] > TOTAL_OF_CODE[c]:
                raise UsageError(f"impossible position: {own[c] + lrow[c]} cards of value {CODE_NAMES[c]} in the row "
                                 f"and the llama row (the game has {TOTAL_OF_CODE[c]})")
        most = ROW_SIZE + N_CODES - int(lrow.sum())
        if own.sum() > most:
            raise UsageError(f"impossible position: a row holds at most {most} cards when {int(lrow.sum())} "
                             f"are left in the llama row (6 dealt + 1 per card taken), got {int(own.sum())}")
    return own, lrow


def _partial_discards(row_text: str, lrow: np.ndarray, layout: str) -> str:
    """The rolls after which the optimum does NOT discard every card it could: "roll: discard"
    items (e.g. "1 3 L: 3" keeps the llama), '; '-separated, "-" if none. With ``best`` this
    column completes the policy: after every other roll, discard all matching cards."""
    from llama_sim.rulesets.dice.tables import rolled_count_table
    from llama_sim.rulesets.dice.solver import best_discard, format_cards, parse_cards

    row = parse_cards(row_text)
    items = []
    tab = rolled_count_table(layout)
    for faces, rolled in zip(tab.faces, tab.rolled):
        if rolled[LLAMA] == N_DICE:
            continue
        allow = np.minimum(rolled, row)
        if allow.sum() == 0:
            continue
        d = best_discard(row, lrow, layout, faces)
        if not np.array_equal(d, allow):
            items.append(f"{format_cards(rolled)}: {format_cards(d)}")
    return "; ".join(items) or "-"


def exact_solver(row: str | None, llama_row: str, table: bool, dice_layout: str | None = None):
    """``llamasim solve``: (DataFrame, readable text, the rules solved under) of ``solve_position_table``."""
    if row is None and not table:
        raise UsageError('give --row (e.g. --row "2 5 L"), or --table for every row')
    df, text = solve_position_table(row, llama_row, dice_layout, table)
    return df, text, {"dice_layout": str(df["dice_layout"].iloc[0])}


def solve_position_table(row: str | None, llama_row: str, layout: str | None, table: bool):
    """The ``solve`` command's result: (DataFrame, readable text).

    Without ``table``: one line (dice_layout, llama_row, row, quit_value, roll_value, best, value)
    for the given row. With ``table``: the optimal policy for every sub-row of ``row`` (every row of
    up to 6 cards when ``row`` is None), same columns plus ``keeps``: the rolls after which the
    optimal discard leaves a matching card in the row (see ``_partial_discards``)."""
    import pandas as pd

    from llama_sim.rulesets.dice.solver import format_cards, policy_table, solo_table, solve_solo

    cfg = _config(**({} if layout is None else {"dice_layout": layout}))
    name = LAYOUT_NAMES[int(cfg[0])]
    own, lrow = parse_solo_position(row, llama_row)
    lr_text = format_cards(lrow)
    head = (f"LAMA Dice, solo phase (everybody else has quit), dice {name} "
            f"({format_layout(LAYOUTS[name])}), llama row {lr_text}")
    note = ("Values are expected final penalties of the round's cards under optimal play; three llamas "
            "leave the state unchanged (solved exactly); token returns are not counted.")
    if table:
        df = policy_table(own, lrow, name) if own is not None else solo_table(lrow, name)
        df["keeps"] = [_partial_discards(r, lrow, name) for r in df["row"]]
        df.insert(0, "llama_row", lr_text)
        df.insert(0, "dice_layout", name)
        scope = f"every sub-row of {format_cards(own)}" if own is not None else "every row of up to 6 cards"
        shown = df.drop(columns=["dice_layout", "llama_row", "keeps"]).assign(
            partial_discards=[0 if k == "-" else k.count(";") + 1 for k in df["keeps"]])
        text = (f"{head}\nOptimal policy for {scope} ({len(df)} rows). After a roll the optimum discards every "
                f"matching card it may, except after the partial_discards rolls listed in column keeps "
                f"(--format csv/json or --out)\n{shown.to_string(index=False)}\n{note}")
        return df, text
    v = solve_solo(own, lrow, name)
    df = pd.DataFrame([{"dice_layout": name, "llama_row": lr_text, "row": format_cards(own),
                        "quit_value": float(v.quit_value), "roll_value": float(v.roll_value),
                        "best": v.best_action, "value": float(v.value)}])
    text = (f"{head}\nrow {format_cards(own)}\n"
            f"  quit now:                        {float(v.quit_value):.4f}\n"
            f"  roll on (then play optimally):   {float(v.roll_value):.4f}\n"
            f"  optimal choice:                  {v.best_action}\n{note}")
    return df, text


# --------------------------------------------------------------------------------------------
# Rule-set descriptor
# --------------------------------------------------------------------------------------------


def _config(dice_layout=None, **options) -> np.ndarray:
    RULE_SET.reject_other_options(options)
    text = DEFAULT_LAYOUT_NAME if dice_layout is None else dice_layout
    try:
        layout = parse_layout(str(text))
    except ValueError as exc:
        raise UsageError(f"invalid --dice-layout '{text}': {exc}") from None
    return layout_cfg(layout)


def _describe(cfg) -> dict:
    layout = np.asarray(cfg[1:19], dtype=np.int64).reshape(3, 6)
    return {"dice_layout": LAYOUT_NAMES[int(cfg[0])], "dice_faces": format_layout(layout)}


RULE_SET = RuleSet(
    name="dice",
    title="LAMA Dice",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=run_blocks,
    run_blocks_with=run_blocks_with,
    reference_blocks=reference_blocks,
    action_names=ACTION_NAMES,
    option_values={"dice_layout": tuple(LAYOUT_NAMES)},
    bench_strategy="threshold",
    exact_solver=exact_solver,
    config=_config,
    describe_config=_describe,
    options={"dice_layout": (f"dice face layout: one of the 15 names ({', '.join(LAYOUT_NAMES)}; default "
                             f"{DEFAULT_LAYOUT_NAME} = 1234LL/1256LL/3456LL) or a spec like 1234LL/1256LL/3456LL")},
    chart="llama_sim.rulesets.dice.chart:CHART",
    advice="llama_sim.rulesets.dice.advise:ADVICE",
)
