"""LAMA Dice's vocabulary shared by the engines: card codes, the deck, actions, phases, end reasons,
the observation layout, the roll table and the kernels' ``cfg`` (layout id and faces).

What each name means is in the package docstring (``llama_sim.rulesets.dice``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import compiling  # noqa: F401  (before any function here is compiled)
from llama_sim.core.errors import UsageError
from llama_sim.rulesets.dice import LAYOUT_NAMES, MAX_PLAYERS, MIN_PLAYERS  # noqa: F401  (declared there)
from llama_sim.rulesets.dice.tables import DEFAULT_LAYOUT_NAME, LAYOUTS, parse_layout, validate_layout

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

LOG_CAPACITY = 4096  # a round has at most ~60 card-moving rolls, plus any number of three-llama rolls


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


def layout_config(dice_layout=None) -> np.ndarray:
    """``cfg`` for the ``--dice-layout`` text (default ``DEFAULT_LAYOUT_NAME``); UsageError if invalid."""
    text = DEFAULT_LAYOUT_NAME if dice_layout is None else dice_layout
    try:
        layout = parse_layout(str(text))
    except ValueError as exc:
        raise UsageError(f"invalid --dice-layout '{text}': {exc}") from None
    return layout_cfg(layout)
