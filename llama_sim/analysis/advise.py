"""``advise``: what is each legal action worth in a typed-in position? (issue 9, items 1-5)

A *position* (``Position``) is what the acting seat can see: its own hand (dice: row), the top
card, the other players' hand sizes in turn order after it, who has quit, the draw-pile size, the
discard cards it remembers, everyone's score (Kadabra: tokens, the magic token, the stage, a running
show; dice: everyone's public row and the llama row). The acting seat is seat 0 of the roll-outs,
the others follow in turn order.

Determinized roll-outs (``rollouts``): for roll-out i the unseen cards (the deck minus the own hand,
the top card and the listed discard cards) are shuffled from the stream (seed, i, DEAL) and dealt
into the other players' hands (their sizes, in seat order), the draw pile (its size) and the covered
part of the discard pile (the rest). Every legal action is then played on that same deal with the
same policy stream (seed, i, POLICY) (and dice stream (seed, i, DICE)): common random numbers, so
paired differences are tight. The acting seat's first decision is forced to the action (a wrapper
policy, ``forced_policy``, plays it at the round's first decision and hands every later decision to
the seat's own strategy); after that every seat plays its strategy (``--policy``, ``--opponents``).
Dice has no hidden cards (every row is public, the set-aside cards never come back into play), so a
roll-out only draws dice.

Per action: ``penalty_per_round``, the net change of the seat's score over the rest of this round
(card points, minus the token returned on going out; Kadabra: the change of the token total, as in
``compare``), ``went_out_rate`` and, with ``horizon="game"``, ``win_rate``: the game is played on
from the scores (and Kadabra's tokens and stage) to 40 with fresh deals from the stream (seed, i,
GAME), ties shared as in ``compare``. Each roll-out is one independent block; intervals are normal
intervals over roll-outs (Wilson for rates), and each action's paired difference to the best has
its own interval. A value whose roll-outs all agree, in a position where that action leaves nothing
to chance (quitting in L.A.M.A., Party or dice; the whole rest of the round when the seat is alone,
cannot draw and, in Kadabra, holds no draw-symbol card with cards left in the pile), is exact and is
reported with ``ci_low == ci_high == value``.

Stop rule (backgammon roll-out style): roll-outs run in batches of fixed sizes (so the same seed
gives the same numbers for any thread count); by default they stop once the best action is 3
standard errors clear of the runner-up or every interval's half-width is below 0.02 (the primary
metric: penalty per round, or the win rate for ``horizon="game"``), at most ``max_rollouts``.
``precision`` replaces the rule by "every half-width below precision"; ``n_rollouts`` fixes the count.

Dice alone (every other player has quit) with ``horizon="round"``: the exact solo solver of
``llamasim solve dice`` answers (token returns not counted, as there).

Readings chosen: the covered discard cards are part of the roll-outs' public discard history (the
roll-out policies see the determinized pile, as a player who remembered it would); a Kadabra
position is at the start of a turn (or, with ``show``, of a show decision), never inside a give-away;
the roll-out kernels count decisions from 0 at the position (``OBS_TURN``).

The roll-out kernels call the game kernels only through the adapters ``_shedding_round``,
``_kadabra_round`` and ``_dice_round`` (one per rule-set family), so a change of a kernel's
arguments is fixed in one place.
"""
from __future__ import annotations

import json
import math
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.errors import UsageError
from llama_sim.rulesets import dice as D
from llama_sim.rulesets import shedding
from llama_sim.rulesets.kadabra import kernel as KK
from llama_sim.rulesets.kadabra import tables as KT
from llama_sim.rulesets.dice import round_points as _dice_round_points
from llama_sim.rulesets.kadabra.kernel import score_round as _kd_score_round
from llama_sim.core.engine import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, accumulate, largest_token, win_units
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import MAX_PARAMS, MAX_POLICIES, POLICIES_TYPE, POLICY_SIG, parse_spec
from llama_sim.core.stats import WIN_SCALE, wilson, z_value

GAMES = ("lama", "party", "kadabra", "dice")
DEFAULT_POLICY = {"lama": "smart", "party": "chain", "kadabra": "showman", "dice": "solo_optimal"}
GAME_STREAM = 3  # deals of the later rounds of a game roll-out (DEAL/POLICY/DICE are 0/1/2)
FORCED_COL = MAX_PARAMS  # params column holding the forced first action
METRICS_ROUND = ("penalty_per_round", "went_out_rate")
METRICS_GAME = ("penalty_per_round", "went_out_rate", "win_rate")
COLUMNS = ["game", "action", "metric", "value", "ci_low", "ci_high", "n", "seed", "best"]
SEPARATION_SE = 3.0
DEFAULT_PRECISION = 0.02
DEFAULT_MAX_ROLLOUTS = 200_000
FIRST_BATCH = 2048
CHUNK = 512  # roll-outs per kernel call (threads take whole chunks; results never depend on them)


# ================================================================================ positions


@dataclass
class Position:
    """What the acting seat sees. Seat 0 is the acting seat; seats 1..n-1 follow in turn order.

    Shedding games and Kadabra: ``hand``/``discard`` are count vectors over the rule set's card
    codes, ``discard`` holds the remembered discard cards *besides* the top card ``top`` (a code),
    ``hand_sizes[s]`` is seat s's hand size (``hand_sizes[0]`` the own hand's), ``quit[s]`` 0/1.
    Kadabra adds ``ones``/``tens`` per seat, ``magic`` (seat, -1 pool, -2 stage), the stage's 1s and
    10s and ``show``. Dice: ``rows`` (n, 7) every row (own first), ``llama_row`` (7,), ``discard``
    the cards discarded this round."""

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
    kadabra_counts: np.ndarray | None = None  # the Kadabra deck (cards per code)

    def canonical(self) -> tuple:
        """Everything the roll-outs start from, as plain values (equal positions, equal roll-outs)."""
        out = []
        for name in ("game", "n", "hand", "quit", "scores", "top", "hand_sizes", "pile", "discard", "ones", "tens",
                     "magic", "stage_ones", "stage_tens", "show", "rows", "llama_row", "kadabra_counts"):
            v = getattr(self, name)
            out.append((name, tuple(np.asarray(v).ravel().tolist()) if isinstance(v, np.ndarray) else v))
        return tuple(out)


def _game_module(game: str):
    if game == "lama":
        from llama_sim.rulesets import lama as m
    elif game == "party":
        from llama_sim.rulesets import party as m
    elif game == "kadabra":
        from llama_sim.rulesets import kadabra as m
    elif game == "dice":
        from llama_sim.rulesets import dice as m
    else:
        raise UsageError(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    return m


def _card_names(game: str) -> tuple[str, ...]:
    return _game_module(game).CODE_NAMES


def _deck_counts(game: str, kadabra_counts=None) -> np.ndarray:
    m = _game_module(game)
    if game == "kadabra":
        return np.asarray(kadabra_counts if kadabra_counts is not None else m.DEFAULT_COUNTS, np.int64)
    if game == "dice":
        return m.TOTAL_OF_CODE.copy()
    return np.bincount(m.DECK.astype(np.int64), minlength=m.N_CODES)


_SYMBOL_SUFFIX = {"": 0, "g": 1, "give": 1, "d": 2, "draw": 2, "m": 3, "magic": 3}


def parse_card(game: str, token: str, deck_counts: np.ndarray) -> int:
    """One card name to its code. L.A.M.A./dice: 1-6, L; Party adds +1..+6 and P (pink llama);
    Kadabra: 1-6, L, 2/3, 4/5 with an optional symbol (``1+give``, ``2d``, ``3m``): a bare name is the
    plain card, or the deck's only version of it when it has no plain one (the 1s carry give)."""
    t = token.strip().lower()
    if game != "kadabra":
        names = {n.lower(): c for c, n in enumerate(_card_names(game))}
        names.update({"llama": names["l"]})
        if game == "party":
            names.update({"pink": names["p"], "+l": -1})
        code = names.get(t, -1)
        if code < 0:
            raise UsageError(f"card '{token}' is in no {game} deck (cards: {' '.join(_card_names(game))})")
        return code
    from llama_sim.rulesets.kadabra import tables as T

    kinds = {k.lower(): i for i, k in enumerate(T.KIND_SHORT)} | {"llama": T.LLAMA}
    base, sym = t, None
    for name in sorted(kinds, key=len, reverse=True):
        if t.startswith(name):
            base, rest = name, t[len(name):].lstrip("+")
            if rest not in _SYMBOL_SUFFIX:
                raise UsageError(f"card '{token}': unknown symbol '{rest}' (use +give, +draw, +magic or g, d, m)")
            sym = _SYMBOL_SUFFIX[rest] if rest else None
            break
    else:
        raise UsageError(f"card '{token}' is in no kadabra deck (cards: 1-6, L, 2/3, 4/5, e.g. 1+give, 2d, 3m)")
    kind = kinds[base]
    if sym is None:
        have = [s for s in range(T.N_SYMBOLS) if deck_counts[T.code(kind, s)] > 0]
        sym = 0 if (0 in have or not have) else have[0]
    return T.code(kind, sym)


def parse_cards(game: str, text: str | list | None, deck_counts: np.ndarray, what: str) -> np.ndarray:
    counts = np.zeros(len(deck_counts), np.int64)
    if text is None:
        return counts
    tokens = text if isinstance(text, list) else str(text).replace(",", " ").split()
    for tok in tokens:
        counts[parse_card(game, str(tok), deck_counts)] += 1
    return counts


def _int_list(text, what: str, length: int | None = None, low: int = 0) -> list[int]:
    if text is None:
        return []
    items = text if isinstance(text, list) else [x for x in str(text).replace(" ", ",").split(",") if x.strip()]
    try:
        values = [int(x) for x in items]
    except (TypeError, ValueError):
        raise UsageError(f"{what}: expected whole numbers separated by commas, got '{text}'") from None
    if length is not None and len(values) != length:
        raise UsageError(f"{what}: expected {length} numbers, got {len(values)}")
    if any(v < low for v in values):
        raise UsageError(f"{what}: numbers must be at least {low}, got '{text}'")
    return values


POSITION_KEYS = {"hand", "top", "hand_sizes", "quit", "pile", "discard", "scores", "ones", "tens", "magic",
                 "stage", "show", "row", "llama_row", "rows"}


def load_position_file(path: str | Path) -> dict:
    """A position as a TOML or JSON file with the command's option names (``hand_sizes`` or
    ``hand-sizes``)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"position file not found: {path}")
    try:
        text = path.read_text()
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"could not read position file {path}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise UsageError(f"position file {path}: expected a table of options")
    out = {}
    for key, value in data.items():
        k = key.replace("-", "_")
        if k not in POSITION_KEYS:
            raise UsageError(f"position file {path}: unknown key '{key}' (known: {', '.join(sorted(POSITION_KEYS))})")
        if isinstance(value, list) and k in ("hand_sizes", "quit", "scores", "ones", "tens", "stage"):
            value = ",".join(str(v) for v in value)
        if isinstance(value, list) and k == "rows":
            value = ";".join(" ".join(map(str, r)) if isinstance(r, list) else str(r) for r in value)
        out[k] = value
    return out


def make_position(game: str, *, hand=None, top=None, hand_sizes=None, quit=None, pile=None, discard=None,
                  scores=None, ones=None, tens=None, magic=None, stage=None, show=False, row=None, llama_row=None,
                  rows=None, kadabra_counts=None) -> Position:
    """Parse and check a typed-in position (the ``advise`` options); UsageError names the problem."""
    if game not in GAMES:
        raise UsageError(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    if game == "dice":
        return _dice_position(row, llama_row, rows, quit, scores, discard, hand, top, hand_sizes, pile)
    for name, value in (("--row", row), ("--llama-row", llama_row), ("--rows", rows)):
        if value is not None:
            raise UsageError(f"{name} is a dice option; {game} positions use --hand, --top, --hand-sizes")
    if game != "kadabra":
        for name, value in (("--ones", ones), ("--tens", tens), ("--magic", magic), ("--stage", stage)):
            if value is not None:
                raise UsageError(f"{name} is a kadabra option")
        if show:
            raise UsageError("--show is a kadabra option")
    deck = _deck_counts(game, kadabra_counts)
    if hand is None or top is None or hand_sizes is None or pile is None:
        raise UsageError(f"a {game} position needs --hand, --top, --hand-sizes and --pile")
    own = parse_cards(game, hand, deck, "--hand")
    if own.sum() == 0:
        raise UsageError("the hand is empty: that player has gone out, there is nothing to decide")
    tops = str(top).split()
    if len(tops) != 1:
        raise UsageError(f"--top takes one card, got '{top}'")
    top_code = parse_card(game, tops[0], deck)
    known = parse_cards(game, discard, deck, "--discard")
    sizes = _int_list(hand_sizes, "--hand-sizes")
    if not sizes:
        raise UsageError("--hand-sizes needs the other players' hand sizes (e.g. 3,5,1)")
    n = len(sizes) + 1
    if not 2 <= n <= 6:
        raise UsageError(f"{n} players: the games take 2 to 6 (--hand-sizes lists the others)")
    if min(sizes) < 1:
        raise UsageError("every other player holds at least one card (a player with none has gone out)")
    quit_flags = np.zeros(n, np.int64)
    for q in _int_list(quit, "--quit"):
        if not 1 <= q <= n - 1:
            raise UsageError(f"--quit {q}: the other players are numbered 1..{n - 1} in turn order after you")
        quit_flags[q] = 1
    try:
        pile_n = int(pile)
    except (TypeError, ValueError):
        raise UsageError(f"--pile: expected a number of cards, got '{pile}'") from None
    if pile_n < 0:
        raise UsageError("--pile cannot be negative")
    used = own + known
    used[top_code] += 1
    names = _card_names(game)
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
    pos = Position(game=game, n=n, hand=own, quit=quit_flags, scores=np.zeros(n, np.int64), top=top_code,
                   hand_sizes=all_sizes, pile=pile_n, discard=known)
    if game == "kadabra":
        from llama_sim.rulesets.kadabra import tables as T

        if scores is not None:
            raise UsageError("kadabra scores are tokens: give --ones and --tens (yours first)")
        pos.kadabra_counts = deck
        pos.ones = np.array(_int_list(ones, "--ones", n) if ones is not None else [T.START_ONES] * n, np.int64)
        pos.tens = np.array(_int_list(tens, "--tens", n) if tens is not None else [0] * n, np.int64)
        pos.magic = _parse_magic(magic, n)
        st = _int_list(stage, "--stage", 2) if stage is not None else [0, 0]
        pos.stage_ones, pos.stage_tens = st
        pos.show = bool(show)
        staged = pos.stage_ones + pos.stage_tens + (pos.magic == T.MAGIC_STAGE)
        if pos.show and staged < T.SHOW_AT:
            raise UsageError(f"a show runs only while the stage holds {T.SHOW_AT} or more tokens (it holds {staged})")
        pos.scores = pos.ones + 10 * pos.tens
    else:
        pos.scores = np.array(_int_list(scores, "--scores", n) if scores is not None else [0] * n, np.int64)
    return pos


def position_from_state(game: str, hands, top: int, pile_size: int, known_discard=None, quit=None, scores=None,
                        seat: int = 0) -> Position:
    """The position ``seat`` sees in a full L.A.M.A./Party state (``hands``: one count vector per seat):
    its own hand, the top card, the other hands' *sizes* in turn order after it, who has quit, the pile
    size, the discard cards it remembers and the scores, rotated so the seat is seat 0. What the other
    hands hold and the pile's order are not part of it (the quit charts build positions this way)."""
    hands = np.asarray(hands, np.int64)
    n = hands.shape[0]
    order = [(seat + k) % n for k in range(n)]
    quit = np.zeros(n, np.int64) if quit is None else np.asarray(quit, np.int64)
    scores = np.zeros(n, np.int64) if scores is None else np.asarray(scores, np.int64)
    known = np.zeros(hands.shape[1], np.int64) if known_discard is None else np.asarray(known_discard, np.int64)
    return Position(game=game, n=n, hand=hands[seat].copy(), quit=quit[order].copy(), scores=scores[order].copy(),
                    top=int(top), hand_sizes=hands.sum(axis=1)[order].astype(np.int64), pile=int(pile_size),
                    discard=known.copy())


def _parse_magic(magic, n: int) -> int:
    from llama_sim.rulesets.kadabra import tables as T

    if magic is None or str(magic).lower() == "pool":
        return T.MAGIC_POOL
    m = str(magic).lower()
    if m == "stage":
        return T.MAGIC_STAGE
    if m in ("me", "0"):
        return 0
    try:
        k = int(m)
    except ValueError:
        raise UsageError(f"--magic: pool, stage, me or another player's number 1..{n - 1}, got '{magic}'") from None
    if not 1 <= k <= n - 1:
        raise UsageError(f"--magic {k}: the other players are numbered 1..{n - 1}")
    return k


def _dice_position(row, llama_row, rows, quit, scores, discard, hand, top, hand_sizes, pile) -> Position:
    from llama_sim.rulesets import dice as D
    from llama_sim.rulesets.dice.solver import parse_cards as dice_cards

    for name, value in (("--hand", hand), ("--top", top), ("--hand-sizes", hand_sizes), ("--pile", pile)):
        if value is not None:
            raise UsageError(f"{name} is not a dice option; dice positions use --row, --llama-row, --rows")
    if row is None:
        raise UsageError('a dice position needs --row (your row, e.g. "2 5 L")')
    try:
        own = dice_cards(str(row))
        lrow = dice_cards(str(llama_row if llama_row is not None else "1 2 3 4 5 6 L"))
        others = [dice_cards(r) for r in str(rows).split(";")] if rows else []
        disc = dice_cards(str(discard)) if discard is not None else np.zeros(D.N_CODES, np.int64)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not others:
        raise UsageError('--rows: the other players\' rows in turn order after you, ";"-separated (e.g. "1 2;L 4")')
    all_rows = np.array([own] + others, np.int64)
    n = len(all_rows)
    quit_flags = np.zeros(n, np.int64)
    for q in _int_list(quit, "--quit"):
        if not 1 <= q <= n - 1:
            raise UsageError(f"--quit {q}: the other players are numbered 1..{n - 1} in turn order after you")
        quit_flags[q] = 1
    sc = np.array(_int_list(scores, "--scores", n) if scores is not None else [0] * n, np.int64)
    if own.sum() == 0:
        raise UsageError("the row is empty: that player has gone out, there is nothing to decide")
    if not 2 <= n <= 6:
        raise UsageError(f"{n} players: dice takes 2 to 6 (--rows lists the others)")
    rows_, lrow_, disc_, quit_, _, sc_ = D.check_position(all_rows, lrow, disc, quit_flags, 0, sc)
    return Position(game="dice", n=n, hand=own, quit=quit_, scores=sc_, rows=rows_, llama_row=lrow_, discard=disc_)


# ================================================================================ legal actions


def root_actions(pos: Position) -> list[int]:
    """The acting seat's legal actions at the position (the rule set's action enum)."""
    n_in = int(pos.n - pos.quit.sum())
    if pos.game in ("lama", "party"):
        m = _game_module(pos.game)
        acts = [c for c in range(m.N_CODES) if pos.hand[c] > 0 and m.RULES.can_play[pos.top, c]]
        if pos.pile > 0 and n_in > 1:
            acts.append(m.DRAW)
        acts.append(m.QUIT)
        return acts
    if pos.game == "kadabra":
        from llama_sim.rulesets.kadabra import tables as T

        top_kind = int(T.CODE_KIND[pos.top])
        if pos.show:
            acts = [c for c in T.LLAMA_CODES if pos.hand[c] > 0] + [T.COLLECT]
        else:
            acts = [c for c in range(T.N_CODES) if pos.hand[c] > 0 and T.PLAYABLE[top_kind, c]]
            if pos.pile > 0 and n_in > 1:
                acts.append(T.DRAW)
            acts.append(T.QUIT)
        if pos.magic == 0 and n_in > 1:
            acts.append(T.RETURN_MAGIC)
        return sorted(int(a) for a in acts)
    from llama_sim.rulesets import dice as D

    return [D.ROLL, D.QUIT]


def action_names(game: str) -> tuple[str, ...]:
    return _game_module(game).ACTION_NAMES


def _why_illegal(pos: Position, name: str) -> str:
    n_in = int(pos.n - pos.quit.sum())
    if name == "draw":
        if pos.pile == 0:
            return "draw is not allowed: the draw pile is empty"
        if n_in == 1:
            return "draw is not allowed: nobody else is still in the round"
        if pos.show:
            return "draw is not allowed during a show (play a llama or collect)"
    if name.startswith("play "):
        return f"{name} is not allowed here (no such card in the hand, or it does not fit on the top card)"
    return f"{name} is not allowed in this position"


def select_actions(pos: Position, wanted: list[str] | None) -> list[int]:
    legal = root_actions(pos)
    if not wanted:
        return legal
    names = action_names(pos.game)
    lookup = {n.lower(): a for a, n in enumerate(names)}
    chosen = []
    for w in wanted:
        key = " ".join(w.lower().split())
        if key.startswith("play ") and pos.game != "dice":
            try:
                key = "play " + names[parse_card(pos.game, key[5:], _deck_counts(pos.game, pos.kadabra_counts))][5:].lower()
            except UsageError:
                pass
        if key not in lookup:
            raise UsageError(f"unknown action '{w}' (actions: {', '.join(names[a] for a in legal)})")
        a = lookup[key]
        if a not in legal:
            raise UsageError(_why_illegal(pos, names[a]))
        if a not in chosen:
            chosen.append(a)
    return chosen


# ================================================================================ policies


_FORCED_SOURCE = """# generated by llama_sim.advise: {game}.{name} with a forced first action (see forced_policy)
import numpy as _np

from llama_sim.core.registry import get as _get

_S = _get("{game}", "{name}").policy


def forced(obs, hand, legal, params, rng):
    if obs[{turn}] == 0:
        return _np.int64(params[params.shape[0] - 1])
    return _S(obs, hand, legal, params, rng)
"""


@lru_cache(maxsize=None)
def forced_policy(game: str, strategy_key: str, policy, turn_index: int):
    """The acting seat's policy in the roll-outs: at the round's first decision (``obs[turn_index]
    == 0``) the action in the last params column, afterwards the seat's own strategy ``policy``.

    For a built-in strategy the wrapper is a generated module in the kernel cache folder (named after
    the package's source hash), so Numba caches it on disk like every kernel (a closure is recompiled
    by every process, ~0.5 s). A user's strategy gets the closure: its file is not in that hash, so a
    disk-cached wrapper could keep calling an edited strategy's old code."""
    import importlib.util

    import numba

    game_name, _, name = strategy_key.partition(".")
    from llama_sim.core.registry import get as get_strategy

    builtin = get_strategy(game_name, name).source.startswith("llama_sim.strategies")
    folder = Path(numba.config.CACHE_DIR or "") / "advise_forced" if numba.config.CACHE_DIR else None
    if builtin and folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"forced_{game_name}_{name}.py"
            text = _FORCED_SOURCE.format(game=game_name, name=name, turn=turn_index)
            if not path.exists() or path.read_text() != text:
                tmp = path.with_suffix(".tmp")
                tmp.write_text(text)
                tmp.replace(path)
            spec = importlib.util.spec_from_file_location(f"llama_sim_forced_{game_name}_{name}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # Numba's cache finds the wrapper's globals through it
            spec.loader.exec_module(module)
            return Kernel(module.forced, lambda: POLICY_SIG, f"{game} forced first action", nogil=False).get()
        except OSError:
            pass

    def forced(obs, hand, legal, params, rng):
        if obs[turn_index] == 0:
            return np.int64(params[params.shape[0] - 1])
        return policy(obs, hand, legal, params, rng)

    forced.__qualname__ = f"forced_{game}_{strategy_key.replace('.', '_')}"
    return Kernel(forced, lambda: POLICY_SIG, f"{game} forced first action", nogil=False).get()


def _turn_index(game: str) -> int:
    return _game_module(game).OBS_TURN


def lineup(game: str, n: int, policy: str | None, opponents: list[str] | None):
    """(players per seat, policies tuple, slot_of_entry, params, first_entries, rest_entries).

    Entries 0..n-1 are the seats' players; entry n is seat 0's forced-first-action wrapper."""
    own = parse_spec(game, policy or DEFAULT_POLICY[game])
    if opponents:
        if len(opponents) != n - 1:
            raise UsageError(f"--opponents: {n - 1} strategies needed (one per other player), got {len(opponents)}")
        players = [own] + [parse_spec(game, s) for s in opponents]
    else:
        players = [own] * n
    funcs, keys, slots = [], [], []
    for p in players:
        key = p.strategy.game + "." + p.strategy.name
        if key not in keys:
            keys.append(key)
            funcs.append(p.strategy.policy)
        slots.append(keys.index(key))
    funcs.append(forced_policy(game, keys[0], funcs[0], _turn_index(game)))
    slots.append(len(funcs) - 1)
    if len(funcs) > MAX_POLICIES:
        raise UsageError(f"at most {MAX_POLICIES - 1} different strategies in one advise line-up")
    funcs_t = tuple(funcs) + (funcs[0],) * (MAX_POLICIES - len(funcs))
    params = np.zeros((n + 1, MAX_PARAMS + 1), np.float64)
    for s, p in enumerate(players):
        params[s, :MAX_PARAMS] = p.params
    params[n, :MAX_PARAMS] = players[0].params
    first = np.arange(n, dtype=np.int64)
    first[0] = n
    return players, funcs_t, np.array(slots, np.int64), params, first, np.arange(n, dtype=np.int64)


# ================================================================================ kernels
# Each adapter is the one call of its game kernel; the roll-out kernels call nothing else of it.


@njit(cache=True, nogil=True)
def _shedding_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                    policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """The draw pile is ``deck[pos:]``. -> (out_seat, last_card_seat, last_actor)"""
    out, last_card, last_actor, _, _ = shedding.play_round(
        can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
        policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
    return out, last_card, last_actor


@njit(cache=True, nogil=True)
def _deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands, pile, discard):
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


@njit(cache=True, nogil=True, inline="always")
def _score_shedding_round(n, hands, out, scores, code_penalty, twins, allow20):
    """Add a finished L.A.M.A./Party round's points to ``scores``; the player who went out (``out``)
    returns a token instead."""
    for s in range(n):
        scores[s] += 0 if s == out else shedding.seat_penalty(hands, s, code_penalty, twins)
    if out >= 0:
        scores[out] -= largest_token(scores[out], allow20)


def _shedding_rollouts(can_play, extra_turn, code_penalty, twins, flags, full_deck,
                       seed, first, count, n, hand0, top0, discard0, unseen0, sizes, pile_n, quit0, scores0,
                       actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon,
                       s1, s2):
    """Roll-outs ``first .. first+count-1`` of a L.A.M.A./Party position, every action on each."""
    n_codes = can_play.shape[0]
    k_actions = actions.shape[0]
    params = params0.copy()
    unseen = unseen0.copy()
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    hands_d = np.zeros((n, n_codes), np.int64)
    discard_d = np.zeros(n_codes, np.int64)
    pile_d = np.zeros(pile_n, np.int8)
    hands = np.zeros((n, n_codes), np.int64)
    discard = np.zeros(n_codes, np.int64)
    pile = np.zeros(pile_n, np.int8)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    deck = full_deck.copy()
    obs = np.zeros(shedding.obs_len(n_codes), np.int64)
    can_play_bits = shedding.play_bits_jit(can_play)
    log = np.zeros((0, 2), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    allow20 = flags[shedding.F_TOKENS20] != 0
    starter_last_card = flags[shedding.F_STARTER_LAST_CARD] != 0
    forced_entry = first_entries[0]
    for b in range(first, first + count):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        _deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands_d, pile_d, discard_d)
        v[:] = 0
        for k in range(k_actions):
            hands[:, :] = hands_d
            discard[:] = discard_d
            pile[:] = pile_d
            quit[:] = quit0
            scores[:] = scores0
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            out, last_card, last_actor = _shedding_round(can_play_bits, extra_turn, n, hands, pile, 0, top0, discard,
                                                         quit, 0, scores, policies, slot_of_entry, params,
                                                         first_entries, prng, obs, log)
            _score_shedding_round(n, hands, out, scores, code_penalty, twins, allow20)
            v[k] = scores[0] - scores0[0]
            v[k_actions + k] = 1 if out == 0 else 0
            if game_horizon:
                R.seed_state(grng, seed, b, GAME_STREAM)
                start = last_card if (starter_last_card and last_card >= 0) else last_actor
                for r in range(MAX_ROUNDS_PER_GAME):
                    top_score = 0
                    for s in range(n):
                        top_score = max(top_score, scores[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    for i in range(deck.shape[0]):
                        deck[i] = full_deck[i]
                    R.shuffle(deck, grng)
                    dpos, top = shedding.deal_round(n, deck, hands, discard, quit)
                    out, last_card, last_actor = _shedding_round(can_play_bits, extra_turn, n, hands, deck, dpos, top,
                                                                 discard, quit, start, scores, policies,
                                                                 slot_of_entry, params, rest_entries, prng, obs,
                                                                 log)
                    _score_shedding_round(n, hands, out, scores, code_penalty, twins, allow20)
                    start = last_card if (starter_last_card and last_card >= 0) else last_actor
                v[2 * k_actions + k] = win_units(scores, n)[0]
        accumulate(v, s1, s2)


_I64, _I64A, _I64M, _U8A, _I8A = types.int64, types.int64[::1], types.int64[:, ::1], types.uint8[::1], types.int8[::1]
_SHEDDING_SIG = types.void(
    _U8A.copy(ndim=2, layout="C"), _U8A, _I64A, _I64M, _I64A, _I8A,
    types.uint64, _I64, _I64, _I64, _I64A, _I64, _I64A, _I8A, _I64A, _I64, _I64A, _I64A,
    _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, types.boolean, _I64A, _I64M)
shedding_rollouts = Kernel(_shedding_rollouts, lambda: _SHEDDING_SIG, "advise lama/party roll-outs")


@njit(cache=True, nogil=True)
def _kadabra_round(n, hands, deck, discard, quit, ones, tens, board, start,
                   policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """-> (out_seat, last_actor)"""
    out, last_actor, _ = KK.play_round(n, hands, deck, discard, quit, ones, tens, board, start,
                                       policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
    return out, last_actor


def _kadabra_rollouts(base_deck, seed, first, count, n, hand0, discard0, unseen0, sizes, quit0, ones0, tens0,
                      board0, actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon,
                      s1, s2):
    """Roll-outs of a Llama Kadabra position (``board0``: pile size at B_POS, top kind, stage, magic,
    show), every action on each."""
    k_actions = actions.shape[0]
    pile_n = board0[KT.B_POS]
    params = params0.copy()
    unseen = unseen0.copy()
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    hands_d = np.zeros((n, KT.N_CODES), np.int64)
    discard_d = np.zeros(KT.N_CODES, np.int64)
    pile_d = np.zeros(pile_n, np.int64)
    hands = np.zeros((n, KT.N_CODES), np.int64)
    discard = np.zeros(KT.N_CODES, np.int64)
    pile = np.zeros(pile_n, np.int64)
    quit = np.zeros(n, np.int64)
    ones = np.zeros(n, np.int64)
    tens = np.zeros(n, np.int64)
    board = np.zeros(KT.BOARD_LEN, np.int64)
    points = np.zeros(n, np.int64)
    deck = base_deck.copy()
    obs = np.zeros(KT.OBS_LEN, np.int64)
    log = np.zeros((0, 2), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    totals = np.zeros(n, np.int64)
    forced_entry = first_entries[0]
    before = ones0[0] + 10 * tens0[0]
    for b in range(first, first + count):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        _deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands_d, pile_d, discard_d)
        v[:] = 0
        for k in range(k_actions):
            hands[:, :] = hands_d
            discard[:] = discard_d
            pile[:] = pile_d
            quit[:] = quit0
            ones[:] = ones0
            tens[:] = tens0
            board[:] = board0
            board[KT.B_POS] = 0
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            out, last_actor = _kadabra_round(n, hands, pile, discard, quit, ones, tens, board, 0,
                                             policies, slot_of_entry, params, first_entries, prng, obs, log)
            _kd_score_round(n, hands, out, ones, tens, board, points)
            v[k] = ones[0] + 10 * tens[0] - before
            v[k_actions + k] = 1 if out == 0 else 0
            if game_horizon:
                R.seed_state(grng, seed, b, GAME_STREAM)
                start = last_actor
                for r in range(MAX_ROUNDS_PER_GAME):
                    top_score = 0
                    for s in range(n):
                        totals[s] = ones[s] + 10 * tens[s]
                        top_score = max(top_score, totals[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    for i in range(deck.shape[0]):
                        deck[i] = base_deck[i]
                    R.shuffle(deck, grng)
                    KK.deal_round(n, deck, hands, discard, quit, board)
                    out, last_actor = _kadabra_round(n, hands, deck, discard, quit, ones, tens, board, start,
                                                     policies, slot_of_entry, params, rest_entries, prng, obs,
                                                     log)
                    _kd_score_round(n, hands, out, ones, tens, board, points)
                    start = last_actor
                v[2 * k_actions + k] = win_units(totals, n)[0]
        accumulate(v, s1, s2)


_KADABRA_SIG = types.void(
    _I64A, types.uint64, _I64, _I64, _I64, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A,
    _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, types.boolean, _I64A, _I64M)
kadabra_rollouts = Kernel(_kadabra_rollouts, lambda: _KADABRA_SIG, "advise kadabra roll-outs")


@njit(cache=True, nogil=True)
def _dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                policies, slot_of_entry, params, entry_of_seat, prng, dice_rng, obs, log):
    """-> (end, last_actor)"""
    end, last_actor, _ = D.play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                         policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                         obs, log)
    return end, last_actor


@njit(cache=True, nogil=True, inline="always")
def score_dice_round(n, rows, end, last_actor, scores):
    """Add a finished dice round's points to ``scores``; the player who went out returns a token."""
    for s in range(n):
        scores[s] += _dice_round_points(rows, s, end, last_actor)
    if end == D.END_OUT:
        scores[last_actor] -= largest_token(scores[last_actor], False)


_DICE_DECK = D.DECK  # a plain global: Numba cannot inline through module.ARRAY.method


def _dice_rollouts(cfg, seed, first, count, n, rows0, llama0, discarded0, quit0, scores0,
                   actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon, s1, s2):
    """Roll-outs of a dice position (all public: only the dice are random), every action on each."""
    k_actions = actions.shape[0]
    params = params0.copy()
    prng = np.zeros(2, np.uint64)
    dice_rng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    rows = np.zeros((n, D.N_CODES), np.int64)
    llama_row = np.zeros(D.N_CODES, np.int64)
    discarded = np.zeros(D.N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    returned = np.zeros(n, np.int64)
    deck = _DICE_DECK.copy()
    obs = np.zeros(D.OBS_LEN, np.int64)
    log = np.zeros((0, 3), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    forced_entry = first_entries[0]
    for b in range(first, first + count):
        v[:] = 0
        for k in range(k_actions):
            rows[:, :] = rows0
            llama_row[:] = llama0
            discarded[:] = discarded0
            quit[:] = quit0
            scores[:] = scores0
            returned[:] = 0
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            R.seed_state(dice_rng, seed, b, R.DICE_STREAM)
            end, last_actor = _dice_round(n, rows, llama_row, discarded, quit, 0, scores, returned, cfg,
                                          policies, slot_of_entry, params, first_entries, prng, dice_rng,
                                          obs, log)
            score_dice_round(n, rows, end, last_actor, scores)
            v[k] = scores[0] - scores0[0]
            v[k_actions + k] = 1 if (end == D.END_OUT and last_actor == 0) else 0
            if game_horizon:
                R.seed_state(grng, seed, b, GAME_STREAM)
                start = last_actor
                for r in range(MAX_ROUNDS_PER_GAME):
                    top_score = 0
                    for s in range(n):
                        top_score = max(top_score, scores[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    D.deal_round(n, deck, rows, llama_row, discarded, quit, grng)
                    end, last_actor = _dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                                  policies, slot_of_entry, params, rest_entries, prng, dice_rng,
                                                  obs, log)
                    score_dice_round(n, rows, end, last_actor, scores)
                    start = last_actor
                v[2 * k_actions + k] = win_units(scores, n)[0]
        accumulate(v, s1, s2)


_DICE_SIG = types.void(
    _I64A, types.uint64, _I64, _I64, _I64, _I64M, _I64A, _I64A, _I64A, _I64A,
    _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, types.boolean, _I64A, _I64M)
dice_rollouts = Kernel(_dice_rollouts, lambda: _DICE_SIG, "advise dice roll-outs")


# ================================================================================ orchestration


def _chance_free(pos: Position, action_name: str, horizon: str) -> bool:
    """True when the roll-outs of this action leave nothing to chance (so all-equal roll-outs are the
    exact value): see the module docstring."""
    if horizon != "round":
        return False
    if action_name == "quit" and pos.game in ("lama", "party", "dice"):
        return True  # the own cards are final; nobody can change them
    alone = int(pos.n - pos.quit.sum()) == 1
    if pos.game in ("lama", "party"):
        return alone  # alone nobody draws: the rest of the round is the own strategy on the own hand
    if pos.game == "kadabra":
        # alone nobody draws, gifts have no effect; only a draw symbol draws (for the player alone)
        draw_cards = sum(int(pos.hand[c]) for c in range(KT.N_CODES) if KT.CODE_SYMBOL[c] == KT.SYM_DRAW)
        return alone and (pos.pile == 0 or draw_cards == 0)
    return False


def _runner(pos: Position, actions: list[int], line, horizon: str, seed: int, cfg):
    """A function ``run(first, count, s1, s2)`` playing roll-outs first..first+count-1."""
    _, funcs, slots, params, first_e, rest_e = line
    acts = np.array(actions, np.int64)
    game_h = horizon == "game"
    seed64 = np.uint64(seed % 2**64)
    n = pos.n
    if pos.game in ("lama", "party"):
        m = _game_module(pos.game)
        rules = m.RULES
        deck_counts = _deck_counts(pos.game)
        used = pos.hand + pos.discard
        used[pos.top] += 1
        unseen = np.repeat(np.arange(len(deck_counts), dtype=np.int8), deck_counts - used)
        discard0 = pos.discard.copy()
        discard0[pos.top] += 1
        kernel = shedding_rollouts.get()
        full = np.ascontiguousarray(m.DECK, dtype=np.int8)

        def run(first, count, s1, s2):
            kernel(rules.can_play, rules.extra_turn, rules.code_penalty, rules.twins, rules.flags, full,
                   seed64, first, count, n, pos.hand, pos.top, discard0, unseen, pos.hand_sizes, pos.pile,
                   pos.quit, pos.scores, acts, funcs, slots, params, first_e, rest_e, game_h, s1, s2)
        return run
    if pos.game == "kadabra":
        counts = np.asarray(pos.kadabra_counts, np.int64)
        used = pos.hand + pos.discard
        used[pos.top] += 1
        unseen = np.repeat(np.arange(KT.N_CODES, dtype=np.int64), counts - used)
        discard0 = pos.discard.copy()
        discard0[pos.top] += 1
        board = np.zeros(KT.BOARD_LEN, np.int64)
        board[KT.B_POS] = pos.pile
        board[KT.B_TOP] = KT.CODE_KIND[pos.top]
        board[KT.B_STAGE_ONES] = pos.stage_ones
        board[KT.B_STAGE_TENS] = pos.stage_tens
        board[KT.B_MAGIC] = pos.magic
        board[KT.B_SHOW] = int(pos.show)
        base = KK.deck_from_counts(counts)
        kernel = kadabra_rollouts.get()

        def run(first, count, s1, s2):
            kernel(base, seed64, first, count, n, pos.hand, discard0, unseen, pos.hand_sizes, pos.quit, pos.ones,
                   pos.tens, board, acts, funcs, slots, params, first_e, rest_e, game_h, s1, s2)
        return run
    kernel = dice_rollouts.get()

    def run(first, count, s1, s2):
        kernel(cfg, seed64, first, count, n, pos.rows, pos.llama_row, pos.discard, pos.quit, pos.scores,
               acts, funcs, slots, params, first_e, rest_e, game_h, s1, s2)
    return run


@dataclass
class _Moments:
    """Per-roll-out sums of the vector (penalty_k.., went_out_k.., win60_k..) and of its outer product."""

    k: int
    n: int = 0
    s1: np.ndarray = None
    s2: np.ndarray = None

    def __post_init__(self):
        d = 3 * self.k
        self.s1 = np.zeros(d, np.int64)
        self.s2 = np.zeros((d, d), np.int64)

    def mean(self) -> np.ndarray:
        return self.s1 / self.n

    def cov(self) -> np.ndarray:
        if self.n < 2:
            return np.zeros_like(self.s2, dtype=np.float64)
        m = self.mean()
        c = (self.s2 - self.n * np.outer(m, m)) / (self.n - 1)
        c[np.abs(c) < 1e-12] = 0.0
        return c


def _primary(horizon: str) -> int:
    return 2 if horizon == "game" else 0


def _order(mom: _Moments, horizon: str) -> list[int]:
    """Action indices best first (lowest penalty; highest win rate for the game horizon)."""
    p = _primary(horizon)
    m = mom.mean()[p * mom.k:(p + 1) * mom.k]
    keys = -m if horizon == "game" else m
    return sorted(range(mom.k), key=lambda i: (keys[i], i))


def _stop(mom: _Moments, horizon: str, precision: float | None, z: float) -> bool:
    k, p = mom.k, _primary(horizon)
    cov = mom.cov()
    scale = WIN_SCALE if p == 2 else 1
    idx = [p * k + i for i in range(k)]
    half = [z * math.sqrt(cov[j, j] / mom.n) / scale for j in idx]
    if precision is not None:
        return max(half) < precision
    if max(half) < DEFAULT_PRECISION or k == 1:
        return True
    order = _order(mom, horizon)
    a, b = idx[order[0]], idx[order[1]]
    d = abs(mom.mean()[a] - mom.mean()[b])
    var = cov[a, a] + cov[b, b] - 2 * cov[a, b]
    if var <= 0:
        return d > 0
    return d / math.sqrt(var / mom.n) >= SEPARATION_SE


def run_rollouts(pos: Position, actions: list[int], *, policy=None, opponents=None, horizon="round",
                 n_rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1, threads=1,
                 cfg=None, level=0.95) -> _Moments:
    """Play roll-outs in fixed batches until the stop rule holds; the batches and chunks do not
    depend on ``threads``, so the result is the same for any thread count."""
    if horizon not in ("round", "game"):
        raise UsageError(f"--horizon must be round or game, got '{horizon}'")
    if n_rollouts is not None and n_rollouts < 2:
        raise UsageError("--rollouts must be at least 2")
    if max_rollouts < 2:
        raise UsageError("--max-rollouts must be at least 2")
    if precision is not None and precision <= 0:
        raise UsageError("--precision must be positive")
    line = lineup(pos.game, pos.n, policy, opponents)
    run = _runner(pos, actions, line, horizon, seed, cfg)
    mom = _Moments(len(actions))
    z = z_value(level)
    cap = n_rollouts if n_rollouts is not None else max_rollouts
    if threads is None:
        threads = 1
    if int(threads) < 1:
        raise UsageError(f"--threads must be at least 1, got {threads}")
    threads = int(threads)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        while mom.n < cap:
            size = min(max(FIRST_BATCH, mom.n), cap - mom.n) if n_rollouts is None else cap - mom.n
            starts = list(range(mom.n, mom.n + size, CHUNK))

            def work(first, end=mom.n + size):
                s1 = np.zeros_like(mom.s1)
                s2 = np.zeros_like(mom.s2)
                run(first, min(CHUNK, end - first), s1, s2)
                return s1, s2

            parts = list(pool.map(work, starts)) if pool else [work(f) for f in starts]
            for s1, s2 in parts:
                mom.s1 += s1
                mom.s2 += s2
            mom.n += size
            if n_rollouts is None and _stop(mom, horizon, precision, z):
                break
    finally:
        if pool:
            pool.shutdown()
    return mom


@dataclass
class AdviceResult:
    """What ``advise`` found. ``table``: one row per (action, metric) with columns ``COLUMNS``;
    metrics ``penalty_per_round``, ``went_out_rate`` (and ``win_rate``) plus ``<metric>_vs_best``,
    each action's paired difference to the best action. Rows are ordered best action first."""

    game: str
    position: Position
    table: pd.DataFrame
    ranking: list[str]
    method: str  # "roll-outs" or "exact solver"
    horizon: str
    rollouts: int
    seed: int
    strategies: list[str]
    sentence: str
    notes: list[str] = field(default_factory=list)

    @property
    def best(self) -> str:
        return self.ranking[0]

    def value(self, action: str, metric: str = "penalty_per_round") -> float:
        row = self.table[(self.table.action == action) & (self.table.metric == metric)]
        return float(row.value.iloc[0])

    def text(self) -> str:
        t = self.table
        metrics = [m for m in (METRICS_GAME if self.horizon == "game" else METRICS_ROUND) if m in set(t.metric)]
        lines = [f"{'action':<18}" + "".join(f"{m:>32}" for m in metrics)]
        for a in self.ranking:
            cells = []
            for m in metrics:
                r = t[(t.action == a) & (t.metric == m)]
                if r.empty:
                    cells.append(f"{'-':>32}")
                    continue
                r = r.iloc[0]
                cells.append(f"{_fmt_interval(r.value, r.ci_low, r.ci_high):>32}")
            lines.append(f"{a:<18}" + "".join(cells))
        primary = metrics[-1] if self.horizon == "game" else "penalty_per_round"
        diffs = t[t.metric == primary + "_vs_best"]
        if len(diffs):
            lines.append(f"\n{primary}, difference to {self.best} (paired):")
            for a in self.ranking[1:]:
                r = diffs[diffs.action == a].iloc[0]
                lines.append(f"  {a:<16} {_fmt_interval(r.value, r.ci_low, r.ci_high, sign=True)}")
        return "\n".join(lines)

    def plot(self):
        """Each action's value with its interval (left) and its paired difference to the best (right)."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        primary = "win_rate" if self.horizon == "game" else "penalty_per_round"
        t = self.table
        rows = [t[(t.action == a) & (t.metric == primary)].iloc[0] for a in self.ranking]
        diffs = [t[(t.action == a) & (t.metric == primary + "_vs_best")] for a in self.ranking]
        fig, axes = plt.subplots(1, 2 if any(len(d) for d in diffs) else 1, figsize=(10, 1.2 + 0.55 * len(rows)),
                                 squeeze=False, sharey=True)
        y = np.arange(len(rows))[::-1]
        ax = axes[0, 0]
        vals = np.array([r.value for r in rows])
        lo = vals - np.array([r.ci_low for r in rows])
        hi = np.array([r.ci_high for r in rows]) - vals
        colours = ["tab:green" if i == 0 else "tab:blue" for i in range(len(rows))]
        ax.barh(y, vals, color=colours, alpha=0.35)
        ax.errorbar(vals, y, xerr=[lo, hi], fmt="o", color="black", capsize=4)
        for yi, r in zip(y, rows):
            ax.annotate(_fmt_interval(r.value, r.ci_low, r.ci_high), (r.value, yi), xytext=(6, 6),
                        textcoords="offset points", fontsize=8)
        ax.set_xlim(min(0.0, float(min(r.ci_low for r in rows))), float(max(r.ci_high for r in rows)) * 1.3 + 1e-9)
        ax.set_yticks(y, self.ranking)
        ax.set_xlabel(primary.replace("_", " ") + (" (lower is better)" if primary == "penalty_per_round"
                                                    else " (higher is better)"))
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title("value of each action (95% interval)", fontsize=10)
        if axes.shape[1] == 2:
            ax2 = axes[0, 1]
            for yi, d in zip(y, diffs):
                if len(d):
                    r = d.iloc[0]
                    ax2.errorbar([r.value], [yi], xerr=[[r.value - r.ci_low], [r.ci_high - r.value]], fmt="o",
                                 color="tab:red" if yi != y[0] else "tab:green", capsize=4)
            ax2.axvline(0, color="grey", lw=0.8)
            ax2.set_xlabel(f"difference to {self.best} (paired)")
            ax2.set_title("paired difference to the best", fontsize=10)
        who = f"{self.method}, n={self.rollouts:,}" if self.method == "roll-outs" else self.method
        fig.suptitle(f"{self.game}: {self.sentence}\n({who}, seed {self.seed}, horizon {self.horizon})", fontsize=9)
        fig.tight_layout()
        return fig


def _fmt_interval(v, lo, hi, sign=False) -> str:
    f = "{:+.3f}" if sign else "{:.3f}"
    if lo == hi == v:
        return f.format(v) + " (exact)"
    return f.format(v) + f" [{f.format(lo)}, {f.format(hi)}]"


def _phrase(game: str, action: str) -> str:
    """'draw' -> 'drawing', 'play 4' -> 'playing the 4', 'quit' -> 'quitting'."""
    if action.startswith("play "):
        return f"playing the {action[5:]}"
    return {"draw": "drawing", "quit": "quitting", "roll": "rolling", "collect": "collecting",
            "return magic": "returning the magic token"}.get(action, action)


def _sentence(res_rows: dict, ranking: list[str], horizon: str, exact: dict) -> str:
    """A plain sentence: 'Quit: 18.0 points now; drawing costs 12.15 ± 0.04 on average, so draw.'"""
    if horizon == "game":
        best = ranking[0]
        v, lo, hi = res_rows[(best, "win_rate")]
        s = f"{best[0].upper() + best[1:]} wins the game {100 * v:.1f}% of the time ± {50 * (hi - lo):.1f}%"
        if len(ranking) > 1:
            d, dlo, dhi = res_rows[(ranking[1], "win_rate_vs_best")]
            sep = dhi < 0
            s += (f"; {_phrase('', ranking[1])} wins {100 * -d:.1f} ± {50 * (dhi - dlo):.1f} percentage points less, "
                  + (f"so {best}." if sep else "which the roll-outs cannot separate: either will do."))
        return s + ("" if s.endswith(".") else ".")

    def cost(a):
        v, lo, hi = res_rows[(a, "penalty_per_round")]
        if exact[a]:
            return f"{v:.2f} points exactly"
        if lo == hi:
            return f"{v:.2f} points in every roll-out"
        return f"{v:.2f} ± {(hi - lo) / 2:.2f} on average"

    best = ranking[0]
    parts = []
    if "quit" in ranking:
        v = res_rows[("quit", "penalty_per_round")][0]
        parts.append(f"Quit: {v:.1f} points now" if exact["quit"] else f"Quit: {cost('quit')}")
    if best != "quit":
        parts.append(f"{_phrase('', best)} costs {cost(best)}")
    elif len(ranking) > 1:
        parts.append(f"the best alternative, {_phrase('', ranking[1])}, costs {cost(ranking[1])}")
    if len(ranking) > 1:
        d, dlo, dhi = res_rows[(ranking[1], "penalty_per_round_vs_best")]
        separated = dlo > 0 or (dlo == dhi == d and d > 0)
    else:
        separated = True
    s = "; ".join(parts)
    s = s[0].upper() + s[1:]
    if separated:
        return s + f", so {best}."
    return s + f"; {best} and {ranking[1]} cannot be told apart at this precision (either will do)."


def advise_position(pos: Position, *, actions: list[str] | None = None, policy=None, opponents=None,
                    horizon="round", n_rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1,
                    threads=1, dice_layout=None, level=0.95) -> AdviceResult:
    """Value every legal action (or ``actions``) of a position: roll-outs, or the exact solver for a
    lone dice player (round horizon). The reusable core of ``llamasim advise`` and the quit charts."""
    chosen = select_actions(pos, actions)
    names = action_names(pos.game)
    cfg = None
    if pos.game == "dice":
        cfg = D._config(**({} if dice_layout is None else {"dice_layout": dice_layout}))
        if horizon == "round" and int(pos.n - pos.quit.sum()) == 1:
            return _dice_exact(pos, chosen, cfg, seed)
    elif dice_layout is not None:
        raise UsageError("--dice-layout is a dice option")
    mom = run_rollouts(pos, chosen, policy=policy, opponents=opponents, horizon=horizon, n_rollouts=n_rollouts,
                       precision=precision, max_rollouts=max_rollouts, seed=seed, threads=threads, cfg=cfg,
                       level=level)
    players = lineup(pos.game, pos.n, policy, opponents)[0]
    z = z_value(level)
    k = len(chosen)
    mean, cov, n = mom.mean(), mom.cov(), mom.n
    order = _order(mom, horizon)
    ranking = [names[chosen[i]] for i in order]
    best_i = order[0]
    metrics = METRICS_GAME if horizon == "game" else METRICS_ROUND
    raw = {"penalty_per_round": 0, "went_out_rate": 1, "win_rate": 2}
    exact = {names[chosen[i]]: _chance_free(pos, names[chosen[i]], horizon) and
             all(cov[raw[m] * k + i, raw[m] * k + i] == 0 for m in metrics) for i in range(k)}
    rows, values = [], {}
    for i in order:
        a = names[chosen[i]]
        for m in metrics:
            j = raw[m] * k + i
            scale = WIN_SCALE if m == "win_rate" else 1
            v = mean[j] / scale
            se = math.sqrt(cov[j, j] / n) / scale
            if exact[a]:
                lo = hi = v
            elif m == "penalty_per_round":
                lo, hi = v - z * se, v + z * se
            else:
                lo, hi = wilson(v, n, z)
                if cov[j, j] == 0 and v not in (0.0, 1.0):
                    lo = hi = v
            values[(a, m)] = (v, lo, hi)
            rows.append(dict(game=pos.game, action=a, metric=m, value=v, ci_low=lo, ci_high=hi, n=n, seed=seed,
                             best=i == best_i))
    for i in order:
        a = names[chosen[i]]
        for m in metrics:
            j, jb = raw[m] * k + i, raw[m] * k + best_i
            scale = WIN_SCALE if m == "win_rate" else 1
            d = (mean[j] - mean[jb]) / scale
            var = max(cov[j, j] + cov[jb, jb] - 2 * cov[j, jb], 0.0)
            se = math.sqrt(var / n) / scale
            lo, hi = d - z * se, d + z * se
            values[(a, m + "_vs_best")] = (d, lo, hi)
            rows.append(dict(game=pos.game, action=a, metric=m + "_vs_best", value=d, ci_low=lo, ci_high=hi, n=n,
                             seed=seed, best=i == best_i))
    table = pd.DataFrame(rows, columns=COLUMNS)
    return AdviceResult(pos.game, pos, table, ranking, "roll-outs", horizon, n, seed, [p.label for p in players],
                        _sentence(values, ranking, horizon, exact))


def _dice_exact(pos: Position, chosen: list[int], cfg, seed: int) -> AdviceResult:
    """A lone dice player: ``solve dice``'s exact values (token returns not counted, as there)."""
    from llama_sim.rulesets.dice.solver import solve_solo

    layout = D.LAYOUT_NAMES[int(cfg[0])]
    v = solve_solo(pos.hand, pos.llama_row, layout)
    names = action_names("dice")
    val = {"roll": float(v.roll_value), "quit": float(v.quit_value)}
    acts = [names[a] for a in chosen]
    ranking = sorted(acts, key=lambda a: (val[a], a != v.best_action))
    rows = [dict(game="dice", action=a, metric="penalty_per_round", value=val[a], ci_low=val[a], ci_high=val[a],
                 n=0, seed=seed, best=a == ranking[0]) for a in ranking]
    rows += [dict(game="dice", action=a, metric="penalty_per_round_vs_best", value=val[a] - val[ranking[0]],
                  ci_low=val[a] - val[ranking[0]], ci_high=val[a] - val[ranking[0]], n=0, seed=seed,
                  best=a == ranking[0]) for a in ranking]
    table = pd.DataFrame(rows, columns=COLUMNS)
    best = ranking[0]
    s = f"Alone, solved exactly (as `llamasim solve dice`, token returns not counted): quit {val['quit']:.4f}, " \
        f"roll on {val['roll']:.4f}, so {best if len(acts) > 1 else acts[0]}."
    return AdviceResult("dice", pos, table, ranking, "exact solver", "round", 0, seed, ["optimal"], s,
                        notes=[f"dice layout {layout}"])


def advise(game: str, *, position_file=None, actions=None, policy=None, opponents=None, horizon="round",
           n_rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1, threads=1,
           dice_layout=None, deck_file=None, **position) -> AdviceResult:
    """``llamasim advise`` as a library call: the position as keyword options (``hand``, ``top``,
    ``hand_sizes``, ``quit``, ``pile``, ``discard``, ``scores``; Kadabra ``ones``, ``tens``, ``magic``,
    ``stage``, ``show``; dice ``row``, ``llama_row``, ``rows``) or a TOML/JSON ``position_file``.
    Returns an ``AdviceResult`` (``table``, ``ranking``, ``best``, ``sentence``, ``plot()``)."""
    if position_file is not None:
        given = {k: v for k, v in position.items() if v not in (None, False)}
        if given:
            raise UsageError(f"give the position either in --position or as options, not both ({', '.join(given)})")
        position = load_position_file(position_file)
    counts = None
    if game == "kadabra":
        from llama_sim.rulesets import kadabra

        counts = kadabra.config(deck_file)[:kadabra.N_CODES]
    elif deck_file is not None:
        raise UsageError("--deck-file is a kadabra option")
    pos = make_position(game, kadabra_counts=counts, **position)
    return advise_position(pos, actions=actions, policy=policy, opponents=opponents, horizon=horizon,
                           n_rollouts=n_rollouts, precision=precision, max_rollouts=max_rollouts, seed=seed,
                           threads=threads, dice_layout=dice_layout)
