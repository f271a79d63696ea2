"""L.A.M.A.'s tables, reference engine and Numba kernel; the rules, the encoding and the layouts are
in the package's docstring (``llama_sim/rulesets/lama/__init__.py``), which declares the rule set.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core.blocks import BlockKernel
from llama_sim.core.luck import load_weights
from llama_sim.core.jit import Kernel
from llama_sim.core.draws import NO_NRT
from llama_sim.rulesets import shedding
from llama_sim.rulesets.shedding.limit import limit_loop, run as run_limit
from llama_sim.rulesets.lama import CODE_NAMES, MAX_PLAYERS, MIN_PLAYERS, RULE_SET  # noqa: F401  (declared there)
from llama_sim.rulesets.shedding import LOG_CAPACITY, GameResult, RoundResult, SheddingRules, deal, deal_round  # noqa: F401 (public names)

N_CODES = 7
LLAMA = 6
PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
DECK = np.repeat(np.arange(N_CODES, dtype=np.int8), 8)  # 56 cards
HAND_SIZE = 6

DRAW = 7
QUIT = 8
N_ACTIONS = 9
ACTION_NAMES = tuple(f"play {c}" for c in CODE_NAMES) + ("draw", "quit")

OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND_SIZES = 6
OBS_QUIT = 12
OBS_SCORES = 18
OBS_DISCARD = 24
OBS_LEN = 31


@njit(cache=True, nogil=True)
def playable(top, code):
    """Same value or one higher; llama on 6 or llama; 1 on llama."""
    return code == top or code == (top + 1) % N_CODES


def score(cards) -> int:
    """Each distinct value left scores once (its value; a llama 10)."""
    return int(sum(PENALTY[c] for c in set(cards)))


# Everything the shared engine needs to know about L.A.M.A. (``shedding.SheddingRules``): no plus cards,
# no pink llama, no 20-point tokens; the next round starts with the last player to play a card.
RULES = SheddingRules(
    name="lama", code_names=CODE_NAMES, deck=DECK, playable=playable, score=score,
    extra_turn=np.zeros(N_CODES, np.uint8),
    value_group=np.arange(N_CODES, dtype=np.int64), group_penalty=PENALTY,
    pink_code=-1, pink_bonus=0, tokens20=False, starter_last_card=True,
)
assert RULES.layout.obs_len == OBS_LEN and RULES.layout.draw == DRAW and RULES.layout.quit_action == QUIT

# The tables as module globals: Numba freezes them into the wrappers below at compile time.
CAN_PLAY = RULES.can_play
CAN_PLAY_BITS = RULES.can_play_bits
EXTRA_TURN = RULES.extra_turn
CODE_PENALTY = RULES.code_penalty
TWINS = RULES.twins
FLAGS = RULES.flags
# The value function of luck-adjusted runs (``shedding.card_luck``), fitted by ``scripts/fit_luck.py``.
LUCK_WEIGHTS = load_weights(Path(__file__).with_name("luck.json"), shedding.luck_shape(RULES))


# --------------------------------------------------------------------------------------------
# Reference engine (shared, ``shedding.Round``): plain Python, reads like the rulebook.
# --------------------------------------------------------------------------------------------


class Round(shedding.Round):
    """One round of L.A.M.A. from any position:
    ``Round(hands, draw_pile, discard, players, scores, start=0, quit=[], prng=...)``."""

    rules = RULES


def reference_game(players: list, drng: np.ndarray, prng: np.ndarray) -> GameResult:
    """A full game to 40 points, drawing decks from ``drng`` exactly as the kernel does."""
    return shedding.reference_game(Round, players, drng, prng)


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    shedding.reference_blocks(Round, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                              games_mode, entries, cfg, s1, s2, LUCK_WEIGHTS)


# --------------------------------------------------------------------------------------------
# Kernel: the shared loop bound to L.A.M.A.'s tables
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def play_round(n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """Play one round in place from any position (hands, draw pile ``deck[pos:]``, top card,
    discard counts, who has quit, whose turn). Seat s plays line-up entry ``entry_of_seat[s]``.
    ``log`` (k, 2) receives (seat, action) pairs when k > 0.

    Returns (out_seat, last_card_seat, last_actor, actions_taken, pos).
    """
    return shedding.play_round(CAN_PLAY_BITS, EXTRA_TURN, n, hands, deck, pos, top, discard, quit, start, scores,
                               policies, slot_of_entry, params, entry_of_seat, prng, obs, log)


@njit(cache=True, nogil=True)
def play_game(n, policies, slot_of_entry, params, entry_of_seat, drng, prng,
              penalty, went_out, quits, final):
    """A full game to 40 into per-seat totals; returns the number of rounds."""
    return shedding.play_game(DECK, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                              n, policies, slot_of_entry, params, entry_of_seat, drng, prng,
                              penalty, went_out, quits, final)



# ``play_round``/``play_game`` typed for Python callers (see ``shedding.PLAY_ROUND_SIG``).
play_round_entry = Kernel(play_round.py_func, lambda: shedding.PLAY_ROUND_SIG, "lama round entry")
play_game_entry = Kernel(play_game.py_func, lambda: shedding.PLAY_GAME_SIG, "lama game entry")


def own_args(cfg):
    """The block loop's own arguments for a run's ``cfg``: the full deck and the value function's weights."""
    return (DECK, LUCK_WEIGHTS)


@njit(cache=True, nogil=True, inline="always")
def kernel_loop(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad, full_deck, weights):
    """``shedding.kernel_loop`` on lama's tables, asking the policies through ``decide``: compiled on its
    own (``decide`` None) as the generic kernel, and into a line-up kernel around its own ``decide``."""
    return shedding.kernel_loop(decide, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                                policies, slot_of_entry, params, s1, upper, v, bad, full_deck, weights)


run_blocks = BlockKernel(kernel_loop.py_func, shedding.own_types, own_args, "lama kernel", shedding.MAX_SEATS)


def config(**options) -> np.ndarray:
    RULE_SET.reject_other_options(options)
    return np.zeros(1, np.int64)


@njit(cache=True, nogil=True, **NO_NRT)
def limit_blocks(full_deck, order, seed, n_blocks, n, unit_of_seat, n_units, s1, upper):
    """``shedding.limit.limit_loop`` on L.A.M.A.'s tables (their constants compiled in, as the kernel's)."""
    return limit_loop(full_deck, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, order, seed, n_blocks, n,
                      unit_of_seat, n_units, s1, upper)


def limit(plan, seed, n_blocks, s1, s2):
    """The limit of this rule set's kernel design (``RuleSet.limit``)."""
    run_limit(limit_blocks, own_args(plan.cfg)[0], RULES, plan, seed, n_blocks, s1, s2)
