"""The Party Edition's tables, reference engine and Numba kernel; the rules, the variants, the encoding
and the layouts are in the package's docstring (``llama_sim/rulesets/party/__init__.py``), which
declares the rule set.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core.errors import UsageError
from llama_sim.core.blocks import BlockKernel
from llama_sim.core.luck import load_weights
from llama_sim.core.jit import Kernel
from llama_sim.core.draws import NO_NRT
from llama_sim.rulesets import shedding
from llama_sim.rulesets.shedding.limit import limit_loop, run as run_limit
from llama_sim.rulesets.party import CODE_NAMES, MAX_PLAYERS, MIN_PLAYERS, RULE_SET  # noqa: F401  (declared there)
from llama_sim.core.ruleset import option_flag
from llama_sim.rulesets.shedding import LOG_CAPACITY, GameResult, RoundResult, SheddingRules, deal, deal_round  # noqa: F401 (public names)

N_CODES = 14
LLAMA = 6
PLUS = 7  # code of the +1 card; +v is PLUS + v - 1
PINK = 13
# The value class a code scores and plays as: 0..5 for the values 1..6, 6 for the llamas.
VALUE_CLASS = np.array([0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6], dtype=np.int64)
CLASS_PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
PINK_BONUS = 10  # with the pink llama among the cards, the llamas count 20 instead of 10
DECK = np.array([c for c in range(6) for _ in range(7)] + [LLAMA] * 7 + list(range(PLUS, PLUS + 6)) + [PINK],
                dtype=np.int8)  # 56 cards
HAND_SIZE = 6

DRAW = 14
QUIT = 15
N_ACTIONS = 16
ACTION_NAMES = tuple(f"play {c}" for c in CODE_NAMES) + ("draw", "quit")

OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND_SIZES = 6
OBS_QUIT = 12
OBS_SCORES = 18
OBS_DISCARD = 24
OBS_LEN = 38


def is_llama(code: int) -> bool:
    return code == LLAMA or code == PINK


def is_plus(code: int) -> bool:
    return PLUS <= code < PLUS + 6


def value(code: int) -> int:
    """The face value 1..6 of a normal or plus card."""
    return code + 1 if code < LLAMA else code - PLUS + 1


def playable(top: int, card: int) -> bool:
    """May ``card`` be played on ``top``? (The rulebook's rules, one line each.)"""
    if card == PINK:  # the pink llama goes on any card
        return True
    if is_llama(top):  # on a llama, pink or not: another llama or a 1
        return is_llama(card) or value(card) == 1
    if is_llama(card):  # a normal llama goes on a 6 (or a llama, above)
        return value(top) == 6
    return value(card) in (value(top), value(top) + 1)  # same value or one higher; plus cards alike


def score(cards) -> int:
    """Each distinct value once (a plus card counts as its value); llamas 10 once, 20 with the pink one."""
    total = sum({value(c) for c in cards if not is_llama(c)})
    if any(is_llama(c) for c in cards):
        total += 20 if PINK in cards else 10
    return int(total)


EXTRA_TURN = np.array([1 if is_plus(c) else 0 for c in range(N_CODES)], dtype=np.uint8)

# ---- rule variants (see the module docstring): each is the rulebook on another deck
VARIANT_VALUES = ("rulebook", "plain")  # the values of the options pink_llama and plus_cards
VARIANT_OPTIONS = ("pink_llama", "plus_cards")  # bit 0 and bit 1 of the variant index


def variant_deck(pink_llama: str = "rulebook", plus_cards: str = "rulebook") -> np.ndarray:
    """The deck of a rule variant: the pink llama played as an ordinary llama and/or the plus
    cards as ordinary cards of their value (no extra turn)."""
    deck = DECK.copy()
    if pink_llama == "plain":
        deck[deck == PINK] = LLAMA
    if plus_cards == "plain":
        plus = (deck >= PLUS) & (deck < PLUS + 6)
        deck[plus] -= PLUS
    return deck


# VARIANT_DECKS[index]: index = (pink llama plain) + 2 * (plus cards plain); row 0 is DECK.
VARIANT_DECKS = np.array([variant_deck(VARIANT_VALUES[i & 1], VARIANT_VALUES[i >> 1 & 1]) for i in range(4)],
                         dtype=np.int8)

# Everything the shared engine needs to know about the Party Edition (``shedding.SheddingRules``).
RULES = SheddingRules(
    name="party", code_names=CODE_NAMES, deck=DECK, playable=playable, score=score,
    extra_turn=EXTRA_TURN,
    value_group=VALUE_CLASS, group_penalty=CLASS_PENALTY,
    pink_code=PINK, pink_bonus=PINK_BONUS, tokens20=True, starter_last_card=False,
)
assert RULES.layout.obs_len == OBS_LEN and RULES.layout.draw == DRAW and RULES.layout.quit_action == QUIT
assert RULES.layout.discard == OBS_DISCARD and RULES.layout.scores == OBS_SCORES

# The tables as module globals: Numba freezes them into the wrappers below at compile time.
CAN_PLAY = RULES.can_play
CAN_PLAY_BITS = RULES.can_play_bits
CODE_PENALTY = RULES.code_penalty
TWINS = RULES.twins
FLAGS = RULES.flags
# The value function of luck-adjusted runs (``shedding.card_luck``), fitted by ``scripts/fit_luck.py``.
LUCK_WEIGHTS = load_weights(Path(__file__).with_name("luck.json"), shedding.luck_shape(RULES))


# --------------------------------------------------------------------------------------------
# Reference engine (shared, ``shedding.Round``): plain Python, reads like the rulebook.
# --------------------------------------------------------------------------------------------


class Round(shedding.Round):
    """One Party round from any position:
    ``Round(hands, draw_pile, discard, players, scores, start=0, quit=[], prng=...)``."""

    rules = RULES


def variant_round(cfg) -> type[Round]:
    """The reference ``Round`` of the variant ``cfg`` names: the rulebook's rules on the variant's deck."""
    return _VARIANT_ROUNDS[int(np.asarray(cfg)[0])]


_VARIANT_ROUNDS = [Round] + [
    type("VariantRound", (Round,), {"rules": dataclasses.replace(RULES, name=f"party-{i}", deck=VARIANT_DECKS[i])})
    for i in range(1, 4)]


def reference_game(players: list, drng: np.ndarray, prng: np.ndarray) -> GameResult:
    """A full game to 40 points, drawing decks from ``drng`` exactly as the kernel does."""
    return shedding.reference_game(Round, players, drng, prng)


def reference_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                     entries, cfg, s1, s2):
    """The reference engine on the same work as ``run_blocks`` (same deals, same policy streams).

    ``entries`` are (policy, params) pairs, one per line-up entry."""
    shedding.reference_blocks(variant_round(cfg), seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                              games_mode, entries, cfg, s1, s2, LUCK_WEIGHTS)


# --------------------------------------------------------------------------------------------
# Kernel: the shared loop bound to the Party Edition's tables
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def hand_penalty(counts):
    """The kernel's scoring of a count vector (equal to ``score`` of the same cards)."""
    return shedding.hand_penalty(counts, CODE_PENALTY, TWINS)


@njit(cache=True, nogil=True)
def play_round(n, hands, deck, pos, top, discard, quit, start, scores,
               policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """Play one round in place from any position (hands, draw pile ``deck[pos:]``, top card,
    discard counts, who has quit, whose turn; a pending plus-card extra turn is just ``start``).
    Seat s plays line-up entry ``entry_of_seat[s]``. ``log`` (k, 2) receives (seat, action) pairs
    when k > 0.

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
play_round_entry = Kernel(play_round.py_func, lambda: shedding.PLAY_ROUND_SIG, "party round entry")
play_game_entry = Kernel(play_game.py_func, lambda: shedding.PLAY_GAME_SIG, "party game entry")


def own_args(cfg):
    """The block loop's own arguments for a run's ``cfg``: the full deck, on the deck of the rule variant ``cfg[0]``."""
    return (VARIANT_DECKS[cfg[0]], LUCK_WEIGHTS)


@njit(cache=True, nogil=True, inline="always")
def kernel_loop(decide, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad, full_deck, weights):
    """``shedding.kernel_loop`` on party's tables, asking the policies through ``decide``: compiled on its
    own (``decide`` None) as the generic kernel, and into a line-up kernel around its own ``decide``."""
    return shedding.kernel_loop(decide, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                                policies, slot_of_entry, params, s1, upper, v, bad, full_deck, weights)


run_blocks = BlockKernel(kernel_loop.py_func, shedding.own_types, own_args, "party kernel", shedding.MAX_SEATS)


def config(pink_llama: str | None = None, plus_cards: str | None = None, **options) -> np.ndarray:
    """``cfg``: the variant index (0: the rulebook; see the package's docstring)."""
    RULE_SET.reject_other_options(options)
    index = 0
    for bit, (name, value) in enumerate(zip(VARIANT_OPTIONS, (pink_llama, plus_cards))):
        if value is None:
            continue
        if value not in VARIANT_VALUES:
            raise UsageError(f"{option_flag(name)} must be one of {', '.join(VARIANT_VALUES)}, not {value!r}")
        index |= (value == "plain") << bit
    return np.array([index], np.int64)


def describe_config(cfg) -> dict:
    """The variant a run played, for reports: each option with its value."""
    index = int(np.asarray(cfg)[0])
    return {"pink_llama": "plain (an ordinary llama)" if index & 1 else "rulebook",
            "plus_cards": "plain (no extra turn)" if index & 2 else "rulebook"}


@njit(cache=True, nogil=True, **NO_NRT)
def limit_blocks(full_deck, order, seed, n_blocks, n, unit_of_seat, n_units, s1, upper):
    """``shedding.limit.limit_loop`` on the Party Edition's tables (their constants compiled in, as the kernel's)."""
    return limit_loop(full_deck, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, order, seed, n_blocks, n,
                      unit_of_seat, n_units, s1, upper)


def limit(plan, seed, n_blocks, s1, s2):
    """The limit of this rule set's kernel design (``RuleSet.limit``)."""
    run_limit(limit_blocks, own_args(plan.cfg)[0], RULES, plan, seed, n_blocks, s1, s2)
