"""A typed-in position (``Position``: what the acting seat sees) and the helpers every rule set's
advisor uses to read one and to deal the cards it cannot see.

Card games (a hand, a top card, a draw pile) share ``card_position`` for the checks that hold in all
of them; a rule set adds its own fields on top (scores, tokens, rows). ``deal_unseen`` is the
determinization of the roll-outs: one random deal of the unseen cards consistent with the position.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import CARD_POSITION_HELP  # noqa: F401  (the advisors take it from here)


@dataclass
class Position:
    """What the acting seat sees. Seat 0 is the acting seat; seats 1..n-1 follow in turn order.

    Card games: ``hand``/``discard`` are count vectors over the rule set's card codes, ``discard``
    holds the remembered discard cards *besides* the top card ``top`` (a code), ``hand_sizes[s]`` is
    seat s's hand size (``hand_sizes[0]`` the own hand's), ``quit[s]`` 0/1. Token games add
    ``ones``/``tens`` per seat, ``magic`` (seat, -1 pool, -2 stage), the stage's 1s and 10s and
    ``show``; ``deck_counts`` is the deck (cards per code) when a deck file can change it. Row
    games: ``rows`` (n, codes) every row (own first), ``llama_row``, ``discard`` the cards discarded
    this round."""

    game: str
    n: int
    hand: np.ndarray
    quit: np.ndarray
    scores: np.ndarray
    top: int = -1
    hand_sizes: np.ndarray | None = None
    pile: int = 0
    discard: np.ndarray | None = None
    ones: np.ndarray | None = None
    tens: np.ndarray | None = None
    magic: int = -1
    stage_ones: int = 0
    stage_tens: int = 0
    show: bool = False
    rows: np.ndarray | None = None
    llama_row: np.ndarray | None = None
    deck_counts: np.ndarray | None = None

    def canonical(self) -> tuple:
        """Everything the roll-outs start from, as plain values (equal positions, equal roll-outs)."""
        out = []
        for name in ("game", "n", "hand", "quit", "scores", "top", "hand_sizes", "pile", "discard", "ones", "tens",
                     "magic", "stage_ones", "stage_tens", "show", "rows", "llama_row", "deck_counts"):
            v = getattr(self, name)
            out.append((name, tuple(np.asarray(v).ravel().tolist()) if isinstance(v, np.ndarray) else v))
        return tuple(out)

    @property
    def players_in(self) -> int:
        """Seats still in the round, the acting one included."""
        return int(self.n - self.quit.sum())


MAX_COUNT = 10_000  # the largest count or size a position option takes: far above any real table,
# far below where int64 arithmetic in the roll-out kernels could wrap
LAST_SCORE = 39  # a game ends when a score reaches 40: a position's scores are 0..39


def int_list(text, what: str, length: int | None = None, low: int = 0, high: int = MAX_COUNT) -> list[int]:
    """Whole numbers from ``"3,5,1"``, ``"3 5 1"`` or a list, each in ``low..high`` (checked here, so
    no number can wrap in a kernel); UsageError names the option ``what``."""
    if text is None:
        return []
    items = text if isinstance(text, list) else [x for x in str(text).replace(" ", ",").split(",") if x.strip()]
    try:
        values = [whole(x) for x in items]
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"{what}: expected whole numbers separated by commas, got '{_short(text)}'") from None
    if length is not None and len(values) != length:
        raise UsageError(f"{what}: expected {length} numbers, got {len(values)}")
    if any(not low <= v <= high for v in values):
        why = " (a game is over once a score reaches 40)" if what == "--scores" else ""
        raise UsageError(f"{what}: numbers must be from {low} to {high}{why}, got '{_short(text)}'")
    return values


def whole(x) -> int:
    """``x`` as an int: an int, a float with no fraction, or decimal text; never a bool."""
    if isinstance(x, bool):
        raise TypeError("a bool is not a number")
    if isinstance(x, float):
        if not x.is_integer():
            raise ValueError(f"{x} is not a whole number")
    return int(x)


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= 60 else text[:57] + "..."


def quit_flags(text, n: int) -> np.ndarray:
    """``--quit``: the other players (1..n-1, in turn order after the acting seat) who have quit, as 0/1
    per seat."""
    flags = np.zeros(n, np.int64)
    for q in int_list(text, "--quit"):
        if not 1 <= q <= n - 1:
            raise UsageError(f"--quit {q}: the other players are numbered 1..{n - 1} in turn order after you")
        flags[q] = 1
    return flags


def count_cards(parse_card: Callable[[str], int], text: str | list | None, n_codes: int) -> np.ndarray:
    """A count per card code of the cards named in ``text`` (space- or comma-separated, or a list)."""
    counts = np.zeros(n_codes, np.int64)
    if text is None:
        return counts
    tokens = text if isinstance(text, list) else str(text).replace(",", " ").split()
    for tok in tokens:
        counts[parse_card(str(tok))] += 1
    return counts


def card_position(game: str, deck: np.ndarray, parse_card: Callable[[str], int], names: tuple[str, ...], *,
                  hand, top, hand_sizes, quit, pile, discard) -> Position:
    """The part of a card game's position every such game checks alike: the own hand, the top card,
    the other hands' sizes, who has quit, the draw pile and the remembered discard cards, all within
    ``deck`` (cards per code). Scores are zero: the rule set fills in its own."""
    if hand is None or top is None or hand_sizes is None or pile is None:
        raise UsageError(f"a {game} position needs --hand, --top, --hand-sizes and --pile")
    own = count_cards(parse_card, hand, len(deck))
    if own.sum() == 0:
        raise UsageError("the hand is empty: that player has gone out, there is nothing to decide")
    tops = str(top).split()
    if len(tops) != 1:
        raise UsageError(f"--top takes one card, got '{top}'")
    top_code = parse_card(tops[0])
    known = count_cards(parse_card, discard, len(deck))
    sizes = int_list(hand_sizes, "--hand-sizes")
    if not sizes:
        raise UsageError("--hand-sizes needs the other players' hand sizes (e.g. 3,5,1)")
    n = len(sizes) + 1
    if not 2 <= n <= 6:
        raise UsageError(f"{n} players: the games take 2 to 6 (--hand-sizes lists the others)")
    if min(sizes) < 1:
        raise UsageError("every other player holds at least one card (a player with none has gone out)")
    flags = quit_flags(quit, n)
    try:
        pile_n = whole(pile)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"--pile: expected a number of cards, got '{_short(pile)}'") from None
    if not 0 <= pile_n <= MAX_COUNT:
        raise UsageError(f"--pile must be from 0 to {MAX_COUNT}, got {_short(pile_n)}")
    used = own + known
    used[top_code] += 1
    for c in range(len(deck)):
        if used[c] > deck[c]:
            raise UsageError(f"impossible position: {used[c]} cards {names[c]} in the hand, on top and in the discard "
                             f"list, but the deck has {deck[c]}")
    unseen = int(deck.sum() - used.sum())
    if pile_n > unseen:
        raise UsageError(f"impossible position: a draw pile of {pile_n} is larger than the {unseen} unseen cards")
    if sum(sizes) + pile_n > unseen:
        raise UsageError(f"impossible position: hand sizes {sum(sizes)} and pile {pile_n} need "
                         f"{sum(sizes) + pile_n} cards but only {unseen} are unseen (deck {deck.sum()}, hand "
                         f"{own.sum()}, top 1, discard list {known.sum()})")
    all_sizes = np.array([own.sum()] + sizes, np.int64)
    return Position(game=game, n=n, hand=own, quit=flags, scores=np.zeros(n, np.int64), top=top_code,
                    hand_sizes=all_sizes, pile=pile_n, discard=known)


def position_from_state(game: str, hands, top: int, pile_size: int, known_discard=None, quit=None, scores=None,
                        seat: int = 0) -> Position:
    """The position ``seat`` sees in a full card-game state (``hands``: one count vector per seat):
    its own hand, the top card, the other hands' *sizes* in turn order after it, who has quit, the pile
    size, the discard cards it remembers and the scores, rotated so the seat is seat 0. What the other
    hands hold and the pile's order are not part of it."""
    hands = np.asarray(hands, np.int64)
    n = hands.shape[0]
    order = [(seat + k) % n for k in range(n)]
    quit = np.zeros(n, np.int64) if quit is None else np.asarray(quit, np.int64)
    scores = np.zeros(n, np.int64) if scores is None else np.asarray(scores, np.int64)
    known = np.zeros(hands.shape[1], np.int64) if known_discard is None else np.asarray(known_discard, np.int64)
    return Position(game=game, n=n, hand=hands[seat].copy(), quit=quit[order].copy(), scores=scores[order].copy(),
                    top=int(top), hand_sizes=hands.sum(axis=1)[order].astype(np.int64), pile=int(pile_size),
                    discard=known.copy())


def unseen_cards(pos: Position, deck: np.ndarray, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(the unseen cards as codes, the discard pile the roll-outs start from): the deck minus the own
    hand, the top card and the remembered discard cards; the pile holds those and the top card."""
    used = pos.hand + pos.discard
    used[pos.top] += 1
    unseen = np.repeat(np.arange(len(deck), dtype=dtype), deck - used)
    discard0 = pos.discard.copy()
    discard0[pos.top] += 1
    return unseen, discard0


def why_card_action_illegal(pos: Position, name: str) -> str:
    """Why the action ``name`` is not legal in a card game's position, in one line."""
    if name == "draw":
        if pos.pile == 0:
            return "draw is not allowed: the draw pile is empty"
        if pos.players_in == 1:
            return "draw is not allowed: nobody else is still in the round"
        if pos.show:
            return "draw is not allowed during a show (play a llama or collect)"
    if name.startswith("play "):
        return f"{name} is not allowed here (no such card in the hand, or it does not fit on the top card)"
    return f"{name} is not allowed in this position"


@njit(cache=True, nogil=True)
def deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands, pile, discard):
    """One determinized deal: seat 0 holds ``hand0``; the unseen cards ``unseen0`` are shuffled (in
    ``unseen``), seats 1..n-1 get ``sizes[s]`` cards each, the draw pile the next ``pile_n``, the
    covered discard the rest (``discard`` is ``discard0`` plus those)."""
    for i in range(unseen.shape[0]):
        unseen[i] = unseen0[i]
    hands[:, :] = 0
    for c in range(hand0.shape[0]):
        hands[0, c] = hand0[c]
        discard[c] = discard0[c]
    R.shuffle(unseen, drng)
    k = 0
    for s in range(1, n):
        for _ in range(sizes[s]):
            hands[s, unseen[k]] += 1
            k += 1
    for i in range(pile_n):
        pile[i] = unseen[k]
        k += 1
    for i in range(k, unseen.shape[0]):
        discard[unseen[i]] += 1
