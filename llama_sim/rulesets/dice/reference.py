"""The LAMA Dice reference engine: plain Python that reads like the rulebook.

Slow on purpose. The kernel (``kernel.py``) must agree with it exactly: the same deals, rolls and
policy calls in the same order, from the same random streams.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from llama_sim.core import rng as R
from llama_sim.core.draws import deal_shuffle
from llama_sim.core.rng import randint
from llama_sim.core.scoring import (
    GAME_END_SCORE, GAME_METRICS, ROUND_METRICS, ask_policy, distinct_penalty, largest_token, legal_bits, reference_block_loop,
)
from llama_sim.rulesets.dice.luck import LUCK_WEIGHTS, reference_deal_luck, roll_luck
from llama_sim.rulesets.dice.codes import (
    DECK, DISCARD_BASE, END_ALL_QUIT, END_DRAMA, END_LLAMA_ROW, END_OUT, LLAMA, N_ACTIONS, N_CARDS, N_CODES,
    N_DICE, N_FACES, N_ROLLS, OBS_ACTIVE, OBS_DICE, OBS_DISCARDED, OBS_FACES, OBS_LAYOUT_ID, OBS_LEN,
    OBS_LLAMA_ROW, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROLLED, OBS_ROWS, OBS_SCORES, OBS_SEAT, OBS_SET_ASIDE,
    OBS_TURN, PENALTY, PHASE_DISCARD, PHASE_TAKE, PHASE_TURN, QUIT, ROLL, ROW_SIZE, TAKE_BASE, layout_cfg,
    roll_faces,
)


def discard_legal(row, f0, f1, f2, mask) -> bool:
    """Readable legality of a discard mask: non-empty, at most one card per die, enough cards."""
    dice = [f0, f1, f2]
    chosen = [dice[i] for i in range(3) if mask >> i & 1]
    return len(chosen) > 0 and all(chosen.count(c) <= row[c] for c in set(chosen))


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
    luck: np.ndarray | None = None  # each seat's luck when the engine counts it (``luck.roll_luck``)

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
    luck: np.ndarray | None = None  # each seat's luck so far, to which every roll's is added (``luck.roll_luck``)

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
            if self.luck is not None:
                roll_luck(self.luck, LUCK_WEIGHTS, self.n, self.rows, seat,
                          np.concatenate([[self.layout_id], self.layout.ravel()]), *f,
                          int(largest_token(self.scores[seat], False)), self.llama_row,
                          np.array(self.quit, dtype=np.int64), len(self.in_round()) == 1)
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
                           self.returned.copy(), end, last_actor, np.array(self.quit, dtype=np.int64),
                           None if self.luck is None else self.luck.copy())


def deal(deck: np.ndarray, n: int) -> np.ndarray:
    """Rows (n, 7) from a dealt deck: seat s gets cards 6s..6s+5; the rest is set aside."""
    rows = np.zeros((n, N_CODES), np.int64)
    for s in range(n):
        for c in deck[ROW_SIZE * s: ROW_SIZE * (s + 1)]:
            rows[s, int(c)] += 1
    return rows


def reference_deal(n: int, drng: np.ndarray, luck: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle (6 n draws) and deal; returns (rows, the set-aside cards as counts). ``luck``: each seat's
    luck, to which the deal's is added (``luck.deal_luck``)."""
    deck = DECK.copy()
    deal_shuffle(deck, ROW_SIZE * n, drng)
    if luck is not None:
        reference_deal_luck(luck, n, deck)
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
    luck: np.ndarray | None = None


def reference_game(players: list, layout: np.ndarray, drng: np.ndarray, prng: np.ndarray,
                   dice_rng: np.ndarray, luck: np.ndarray | None = None) -> GameResult:
    """A full game to 40 points, drawing deals and dice exactly as the kernel does; ``luck``: each
    seat's luck over the game is added to it."""
    n = len(players)
    scores = [0] * n
    start = 0
    rounds: list[RoundResult] = []
    starts: list[int] = []
    penalty = np.zeros(n, np.int64)
    went_out = np.zeros(n, np.int64)
    quits = np.zeros(n, np.int64)
    while True:
        rows, _ = reference_deal(n, drng, luck)
        rnd = Round(rows, players, scores, layout, start=start, prng=prng, drng=dice_rng, luck=luck)
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
            return GameResult(rounds, starts, np.array(scores), penalty, went_out, quits, luck)



def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, dice and policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    layout = np.asarray(cfg[1:19], dtype=np.int64).reshape(3, 6)
    counted = s1.shape[0] > len(GAME_METRICS if games_mode else ROUND_METRICS) * n_units  # luck on

    def play(players, streams):
        drng, prng, dice_rng = streams[R.DEAL_STREAM], streams[R.POLICY_STREAM], streams[R.DICE_STREAM]
        luck = np.zeros(n) if counted else None
        if games_mode:
            return reference_game(players, layout, drng, prng, dice_rng, luck)
        rows, _ = reference_deal(n, drng, luck)
        return Round(rows, players, [0] * n, layout, prng=prng, drng=dice_rng, luck=luck).play()

    reference_block_loop(play, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                         entries, s1, s2)

