"""Llama Kadabra tables: card kinds, symbols, card codes, actions, observation layout, deck files.

Everything the reference engine, the kernel and the strategies share. The layout tables are
documented in the package docstring (``llama_sim.rulesets.kadabra``).
"""
from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core import compiling  # noqa: F401  (before any function here is compiled)
from llama_sim.core.errors import UsageError
from llama_sim.rulesets.kadabra import MAX_PLAYERS, MIN_PLAYERS  # noqa: F401  (declared there)

# ----------------------------------------------------------------------------- cards
# Kinds: 0..5 the values 1..6, 6 the llama, 7 the 2/3 double, 8 the 4/5 double.
N_KINDS = 9
LLAMA = 6
DOUBLE_23 = 7
DOUBLE_45 = 8
KIND_NAMES = ("1", "2", "3", "4", "5", "6", "llama", "2/3", "4/5")
KIND_SHORT = ("1", "2", "3", "4", "5", "6", "L", "2/3", "4/5")

# Values (for playing and scoring): index 0..5 = 1..6, 6 = llama. A kind holds a set of values.
N_VALUES = 7
VALUE_POINTS = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
KIND_VALUES = np.array([1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6,
                        (1 << 1) | (1 << 2), (1 << 3) | (1 << 4)], dtype=np.int64)

# Symbols: 0 none, 1 give away a token, 2 next player draws, 3 take the magic token.
N_SYMBOLS = 4
PLAIN, SYM_GIVE, SYM_DRAW, SYM_MAGIC = range(4)
SYMBOL_NAMES = ("plain", "give", "draw", "magic")
SYMBOL_MARK = ("", "+give", "+draw", "+magic")

# Card code = 4 * kind + symbol: 36 codes, of which the default deck uses 12.
N_CODES = N_KINDS * N_SYMBOLS
CODE_KIND = np.array([c // N_SYMBOLS for c in range(N_CODES)], dtype=np.int64)
CODE_SYMBOL = np.array([c % N_SYMBOLS for c in range(N_CODES)], dtype=np.int64)
CODE_VALUES = KIND_VALUES[CODE_KIND]
CODE_NAMES = tuple(KIND_SHORT[c // N_SYMBOLS] + SYMBOL_MARK[c % N_SYMBOLS] for c in range(N_CODES))


def code(kind: int, symbol: int = PLAIN) -> int:
    return N_SYMBOLS * kind + symbol


def _follow_values(kind: int) -> int:
    """Values that may be played on a card of this kind: each of its values and the one above."""
    m = 0
    for v in range(N_VALUES):
        if KIND_VALUES[kind] >> v & 1:
            m |= 1 << v
            m |= 1 << ((v + 1) % N_VALUES)
    return m


# PLAYABLE[top kind, code] = 1 when a card of that code may be played on that top card.
PLAYABLE = np.zeros((N_KINDS, N_CODES), dtype=np.uint8)
for _t in range(N_KINDS):
    for _c in range(N_CODES):
        PLAYABLE[_t, _c] = 1 if (_follow_values(_t) & KIND_VALUES[_c // N_SYMBOLS]) else 0
LLAMA_CODES = np.array([code(LLAMA, s) for s in range(N_SYMBOLS)], dtype=np.int64)
# The same as bit sets over codes (bit c = code c), for the kernel's own record of what is legal.
PLAYABLE_BITS = np.array([sum(1 << c for c in range(N_CODES) if PLAYABLE[t, c]) for t in range(N_KINDS)],
                         dtype=np.int64)
LLAMA_BITS = sum(1 << int(c) for c in LLAMA_CODES)

HAND_SIZE = 6
START_ONES = 3
SHOW_AT = 5  # tokens on the stage that make a show
MAGIC_POINTS = 10

# ----------------------------------------------------------------------------- tokens
MAGIC_POOL = -1  # where the magic token is: a seat 0..5, the pool or the stage
MAGIC_STAGE = -2
TOKEN_NONE, TOKEN_ONE, TOKEN_TEN, TOKEN_MAGIC = range(4)  # "lowest-value token": 1 < 10 < magic

# Board: the public table state of a round besides hands, discard and tokens held by players.
# B_NO_SHOW is a rule, not a state: 1 in the variant without the magic show (``magic_show="off"``: a
# llama stakes nothing, so the stage stays empty and no show starts); fixed for a game.
B_POS, B_TOP, B_STAGE_ONES, B_STAGE_TENS, B_MAGIC, B_SHOW, B_NO_SHOW = range(7)
BOARD_LEN = 7

# ``cfg`` (the rule-set option array): the count of each of the 36 card codes, then CFG_NO_SHOW.
CFG_NO_SHOW = 36
CFG_LEN = 37

# ----------------------------------------------------------------------------- actions
DRAW = N_CODES  # 36
QUIT = N_CODES + 1  # 37
RETURN_MAGIC = N_CODES + 2  # 38: put the magic token back in the pool and pass
COLLECT = N_CODES + 3  # 39: take every token on the stage (ends the show)
GIVE = N_CODES + 4  # 40 + k: give the token to seat k
N_ACTIONS = GIVE + MAX_PLAYERS  # 46
ACTION_NAMES = (tuple(f"play {n}" for n in CODE_NAMES) + ("draw", "quit", "return magic", "collect")
                + tuple(f"give to seat {k}" for k in range(MAX_PLAYERS)))

PHASE_TURN, PHASE_SHOW, PHASE_GIVE = range(3)
PHASE_NAMES = ("turn", "show", "give")

# ----------------------------------------------------------------------------- observation
OBS_SEAT = 0
OBS_PLAYERS = 1
OBS_PHASE = 2
OBS_TOP = 3
OBS_DRAW_PILE = 4
OBS_ACTIVE = 5
OBS_TURN = 6
OBS_MAGIC = 7
OBS_STAGE_ONES = 8
OBS_STAGE_TENS = 9
OBS_STAGE_TOKENS = 10
OBS_SHOW = 11
# (the own hand is not in obs: a policy gets it as ``hand``, a count per card code)
OBS_HAND_SIZES = 12  # 6
OBS_QUIT = OBS_HAND_SIZES + MAX_PLAYERS  # 18, 6
OBS_ONES = OBS_QUIT + MAX_PLAYERS  # 24, 6
OBS_TENS = OBS_ONES + MAX_PLAYERS  # 30, 6
OBS_DISCARD = OBS_TENS + MAX_PLAYERS  # 36, 36
# Appended after the first layout (existing policies keep their indices): the rules in play, public at
# the table, which a player rebuilding the round (the expert's roll-outs) needs.
OBS_NO_SHOW = OBS_DISCARD + N_CODES  # 72: 1 in the variant without the magic show
OBS_DECK = OBS_NO_SHOW + 1  # 73, 36: the round's cards per code (the deck in use)
OBS_LEN = OBS_DECK + N_CODES  # 109

LOG_CAPACITY = 1024  # plays, gives, draws, returns, collects and quits of one round fit with room


# VALUESET_POINTS[m]: points of a hand holding the values in bit set m (each value once).
VALUESET_POINTS = np.array([sum(int(VALUE_POINTS[v]) for v in range(N_VALUES) if m >> v & 1)
                            for m in range(1 << N_VALUES)], dtype=np.int64)


@njit(cache=True, nogil=True, inline='always')
def hand_points(counts):
    """Points of a hand (count per code): each distinct value once, doubles count both values."""
    values = 0
    for c in range(N_CODES):
        if counts[c] > 0:
            values |= CODE_VALUES[c]
    total = 0
    for v in range(N_VALUES):
        if values >> v & 1:
            total += VALUE_POINTS[v]
    return total


def playable(top_kind: int, card_code: int) -> bool:
    return bool(PLAYABLE[top_kind, card_code])


# ----------------------------------------------------------------------------- deck tables (data)

_CARD_KEYS = {name: k for k, name in enumerate(KIND_NAMES)} | {"L": LLAMA, "l": LLAMA, "Llama": LLAMA}
_SYMBOL_KEYS = {"give": SYM_GIVE, "draw": SYM_DRAW, "magic": SYM_MAGIC}
MAX_DECK = 200


def default_deck_path():
    return resources.files("llama_sim") / "rulesets" / "kadabra" / "symbols.toml"


def _int(value, where: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DECK:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise UsageError(f"{source}: {where} must be a whole number from 0 to {MAX_DECK}, not {shown}")
    return value


def parse_deck_table(data: dict, source: str, base_cards: np.ndarray | None = None) -> tuple[np.ndarray, str, str]:
    """A parsed TOML table -> (count of each card code, name, description). Raises UsageError."""
    unknown = set(data) - {"name", "description", "cards", "symbols"}
    if unknown:
        raise UsageError(f"{source}: unknown key '{sorted(unknown)[0]}' (expected name, description, cards, symbols)")
    kinds = np.zeros(N_KINDS, np.int64)
    if "cards" in data:
        if not isinstance(data["cards"], dict):
            raise UsageError(f"{source}: [cards] must be a table of card name = count")
        for key, value in data["cards"].items():
            if key not in _CARD_KEYS:
                raise UsageError(f"{source}: unknown card '{key}' in [cards] (known: {', '.join(KIND_NAMES)})")
            kinds[_CARD_KEYS[key]] = _int(value, f"[cards] {key}", source)
    elif base_cards is not None:
        kinds[:] = base_cards
    else:
        raise UsageError(f"{source}: missing [cards]")
    counts = np.zeros(N_CODES, np.int64)
    marked = np.zeros(N_KINDS, np.int64)
    symbols = data.get("symbols", {})
    if not isinstance(symbols, dict):
        raise UsageError(f"{source}: [symbols] must hold tables give, draw, magic")
    for sname, table in symbols.items():
        if sname not in _SYMBOL_KEYS:
            raise UsageError(f"{source}: unknown symbol '{sname}' (known: give, draw, magic)")
        if not isinstance(table, dict):
            raise UsageError(f"{source}: [symbols.{sname}] must be a table of card name = count")
        for key, value in table.items():
            if key not in _CARD_KEYS:
                raise UsageError(f"{source}: unknown card '{key}' in [symbols.{sname}] (known: {', '.join(KIND_NAMES)})")
            k = _CARD_KEYS[key]
            n = _int(value, f"[symbols.{sname}] {key}", source)
            counts[code(k, _SYMBOL_KEYS[sname])] += n
            marked[k] += n
    for k in range(N_KINDS):
        if marked[k] > kinds[k]:
            raise UsageError(f"{source}: {marked[k]} symbols on the {KIND_NAMES[k]} cards but only {kinds[k]} such cards")
        counts[code(k, PLAIN)] = kinds[k] - marked[k]
    # What a deck can do to a game: with too few cards no round can be dealt (6 per hand plus the
    # first discard, at the largest table). Any deck that can be dealt gives rounds that end: every
    # turn plays or draws a card or quits, and the magic token's pass needs a fresh magic card to
    # repeat. Whether whole games reach 40 depends on the strategies too (players who quit at once
    # always finish), so that is checked where games are played (chunks.run_chunk), not here.
    total = int(counts.sum())
    need = HAND_SIZE * MAX_PLAYERS + 1
    if not need <= total <= MAX_DECK:
        raise UsageError(f"{source}: the deck has {total} cards; it needs {need} to {MAX_DECK} (6 players x 6 cards + 1)")
    name = data.get("name", Path(source).stem)
    description = data.get("description", "")
    if not isinstance(name, str) or not isinstance(description, str):
        raise UsageError(f"{source}: name and description must be strings")
    return counts, name, description


def load_deck_table(path=None) -> tuple[np.ndarray, str, str]:
    """Read a deck/symbol table TOML (the packaged default when ``path`` is None)."""
    if path is None:
        with resources.as_file(default_deck_path()) as p:
            data = tomllib.loads(Path(p).read_text(encoding="utf-8"))
        return parse_deck_table(data, "kadabra_symbols.toml")
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"--deck-file {path}: no such file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"--deck-file {path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise UsageError(f"--deck-file {path}: not valid TOML (nested too deeply)") from None
    return parse_deck_table(data, str(path), base_cards=DEFAULT_KINDS)


def deck_of_counts(counts: np.ndarray) -> np.ndarray:
    """The unshuffled deck: every card as its code, in code order."""
    return np.repeat(np.arange(N_CODES, dtype=np.int64), counts)


def kind_counts(counts: np.ndarray) -> np.ndarray:
    return counts.reshape(N_KINDS, N_SYMBOLS).sum(axis=1)


def describe_counts(counts: np.ndarray) -> tuple[str, str]:
    """Readable one-liners: the deck (cards per kind) and the symbol table."""
    kinds = kind_counts(counts)
    deck = f"{int(counts.sum())} cards: " + ", ".join(f"{int(kinds[k])}x {KIND_SHORT[k]}" for k in range(N_KINDS) if kinds[k])
    parts = []
    for s in (SYM_GIVE, SYM_DRAW, SYM_MAGIC):
        on = [f"{int(counts[code(k, s)])} of {int(kinds[k])} {KIND_SHORT[k]}s" for k in range(N_KINDS) if counts[code(k, s)]]
        parts.append(f"{SYMBOL_NAMES[s]} on " + (" and ".join(on) if on else "no card"))
    return deck, "; ".join(parts)


DEFAULT_COUNTS, DEFAULT_NAME, DEFAULT_DESCRIPTION = load_deck_table()
DEFAULT_KINDS = kind_counts(DEFAULT_COUNTS)
DEFAULT_DECK = deck_of_counts(DEFAULT_COUNTS)

__all__ = [name for name in list(globals()) if not name.startswith("_")
           and name not in ("annotations", "tomllib", "resources", "Path", "np", "njit", "UsageError")]
