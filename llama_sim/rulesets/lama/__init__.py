"""L.A.M.A. (rule set ``lama``): tables, the reference engine and the Numba kernel.

Rules (``shared/rules/lama.txt``, ``shared/RULES.md``): 56 cards, eight each of 1..6 and llama;
deal 6 each, the next card starts the discard pile. On your turn play a card equal to the top card
or one higher (a llama on a 6 or a llama, a 1 on a llama), draw (only while the pile has cards and
someone else is still in), or quit (always allowed). The round ends at once when someone plays
their last card or everyone has quit. Each distinct value left scores once, llamas 10; going out
scores 0 and returns the largest token held. The game ends after the round in which someone
reaches 40; lowest score wins, ties share. The next round is started by the last player to play a
card (by the last player to act if nobody played).

Encoding: card code ``c`` in 0..5 is the value c+1, code 6 the llama, so "equal or one higher"
is ``c == top or c == (top + 1) % 7``. Hands are count vectors over codes.

The round loop, the reference engine and the kernel are shared with the Party Edition in
``rulesets/shedding/``; this module holds L.A.M.A.'s rules as data (``RULES``: the deck, ``playable``
and its ``can_play`` table, scoring, no plus cards, no pink llama, no 20s, next starter = last
player to play a card) and binds the shared engine to them under the names used elsewhere
(``Round``, ``reference_game``, ``reference_blocks``, ``play_round``, ``play_game``,
``run_blocks``, ``deal``, ``deal_round``).

Actions (the policy's return value): ``0..6`` play a card of that code, ``7`` draw, ``8`` quit;
the policy's ``legal`` is an int64 with bit a set for each legal action a.

Observation layout (int64, ``OBS_LEN``), everything public the acting player can see; its own hand
is the policy's ``hand`` argument (a count of each code), so nothing is copied per decision:

====================  ======  ============================================================
field                 index   meaning
====================  ======  ============================================================
OBS_SEAT              0       acting seat
OBS_PLAYERS           1       number of players n
OBS_TOP               2       code of the top discard
OBS_DRAW_PILE         3       cards left in the draw pile
OBS_ACTIVE            4       players still in the round (acting player included)
OBS_TURN              5       actions taken so far this round
OBS_HAND_SIZES        6..11   hand size of each seat 0..5 (0 for absent seats)
OBS_QUIT              12..17  1 if that seat has quit this round
OBS_SCORES            18..23  each seat's score (tokens) at the start of the round
OBS_DISCARD           24..30  count of each code in the discard pile (public history)
====================  ======  ============================================================
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core.jit import Kernel
from llama_sim.rulesets import shedding
from llama_sim.core.draws import NO_NRT
from llama_sim.core.engine import RUN_BLOCKS_SIG
from llama_sim.core.ruleset import RuleSet
from llama_sim.rulesets.shedding import LOG_CAPACITY, GameResult, RoundResult, SheddingRules, deal, deal_round  # noqa: F401 (public names)

N_CODES = 7
LLAMA = 6
CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L")
PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
DECK = np.repeat(np.arange(N_CODES, dtype=np.int8), 8)  # 56 cards
HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 6

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
                              games_mode, entries, cfg, s1, s2)


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


def _run_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, cfg, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal is played once per row of ``entry_of_seat``."""
    run_blocks_with(blocks_core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                    policies, slot_of_entry, params, cfg, s1, s2)


@njit(cache=True, nogil=True, inline="always")
def run_blocks_with(core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                    policies, slot_of_entry, params, cfg, s1, s2):
    """``run_blocks`` with its loop compiled as ``core`` (``blocks_core``, or a line-up kernel's own,
    ``llama_sim.run.lineup``; see ``shedding.run_blocks``)."""
    shedding.run_blocks(core, DECK, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                        games_mode, policies, slot_of_entry, params, s1, s2)


@njit(cache=True, nogil=True, **NO_NRT)
def blocks_core(full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad):
    """The generic kernel's loop: ``blocks_core_with`` asking through the function tuple."""
    return blocks_core_with(None, full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                            games_mode, policies, slot_of_entry, params, s1, upper, v, bad)


@njit(cache=True, nogil=True, inline="always")
def blocks_core_with(decide, full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                     games_mode, policies, slot_of_entry, params, s1, upper, v, bad):
    """``shedding.blocks_loop`` on lama's tables, asking the policies through ``decide``."""
    return shedding.blocks_loop(decide, full_deck, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                                policies, slot_of_entry, params, s1, upper, v, bad)


run_blocks = Kernel(_run_blocks, lambda: RUN_BLOCKS_SIG, "lama kernel")


def _config(**options) -> np.ndarray:
    RULE_SET.reject_other_options(options)
    return np.zeros(1, np.int64)


RULE_SET = RuleSet(
    name="lama",
    title="L.A.M.A.",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=run_blocks,
    run_blocks_with=run_blocks_with,
    reference_blocks=reference_blocks,
    action_names=ACTION_NAMES,
    config=_config,
    chart="llama_sim.rulesets.shedding.chart:LAMA_CHART",
    advice="llama_sim.rulesets.lama.advise:ADVICE",
)
