"""LAMA Dice's engine: gathers the codes, the kernel, the reference engine and the positions, and
makes ``cfg`` from the rule-set options. The rules, the encoding and the layouts are in the package's
docstring (``llama_sim/rulesets/dice/__init__.py``), which declares the rule set.
"""
from __future__ import annotations

import numpy as np

from llama_sim.core.rng import randint  # noqa: F401  (the roll draw, for tests replaying the dice stream)
from llama_sim.rulesets.dice import RULE_SET
from llama_sim.rulesets.dice.codes import (  # noqa: F401  (the rule set's public vocabulary)
    ACTION_NAMES, CODE_NAMES, DECK, DEFAULT_LAYOUT_ID, DISCARD_BASE, DISCARD_MASK_1, DISCARD_MASK_2,
    DISCARD_MASK_3, DISCARD_MASK_4, DISCARD_MASK_5, DISCARD_MASK_6, DISCARD_MASK_7, END_ALL_QUIT, END_DRAMA,
    END_LLAMA_ROW, END_NAMES, END_OUT, LAYOUT_FACES, LAYOUT_NAMES, LLAMA, LOG_CAPACITY, MAX_PLAYERS,
    MIN_PLAYERS, N_ACTIONS, N_CARDS, N_CODES, N_DICE, N_FACES, N_ROLLS, OBS_ACTIVE, OBS_DICE, OBS_DISCARDED,
    OBS_FACES, OBS_LAYOUT_ID, OBS_LEN, OBS_LLAMA_ROW, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROLLED, OBS_ROWS,
    OBS_SCORES, OBS_SEAT, OBS_SET_ASIDE, OBS_TURN, PENALTY, PHASE_DISCARD, PHASE_TAKE, PHASE_TURN, QUIT, ROLL,
    ROLL_DIE_FACE, ROW_SIZE, TAKE_BASE, TOTAL_OF_CODE, layout_cfg, layout_config, roll_faces,
)
from llama_sim.rulesets.dice.kernel import (  # noqa: F401
    deal_round, discard_masks, kernel_loop, play_game, play_round, play_round_entry, round_points, run_blocks,
)
from llama_sim.rulesets.dice.positions import (  # noqa: F401
    check_position, exact_solver, parse_solo_position, run_positions, simulate_position, simulate_solo,
    solve_position_table,
)
from llama_sim.rulesets.dice.reference import (  # noqa: F401
    GameResult, Round, RoundResult, deal, discard_legal, reference_blocks, reference_deal, reference_game,
)
from llama_sim.rulesets.dice.tables import DEFAULT_LAYOUT_NAME, format_layout


def config(dice_layout=None, **options) -> np.ndarray:
    """``cfg`` for a run: [layout id, 18 face codes] of ``dice_layout`` (default ``12-34-56``)."""
    RULE_SET.reject_other_options(options)
    return layout_config(dice_layout)


def describe_config(cfg) -> dict:
    """Which dice layout a run used, for reports."""
    layout = np.asarray(cfg[1:19], dtype=np.int64).reshape(3, 6)
    return {"dice_layout": LAYOUT_NAMES[int(cfg[0])], "dice_faces": format_layout(layout)}
