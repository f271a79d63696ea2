"""L.A.M.A. Party Edition (rule set ``party``): its rules as data on the shared shedding engine.

Rules (``shared/rules/lama-party.txt``, ``shared/RULES.md``), as played here:

- 56 cards: seven each of 1..6, one *plus card* of each value 1..6, seven llamas, one *pink llama*.
  Deal 6 each; the next card starts the discard pile. Seat 0 starts the first round.
- On your turn: play a card, draw (only while the pile has cards and someone else is still in the
  round) or quit (always allowed).
- A card fits on the top card if it has the same value or one higher; a llama fits on a 6 or on a
  llama; on a llama a llama or a 1. A plus card plays like its value, and on a plus card the usual
  value rules apply. The pink llama fits on any card; on the pink llama only a llama (either
  colour) or a 1. A normal llama still needs a 6 or a llama (pink included) below it: a plus
  card does not change that (no llama on a 5, whether or not a plus card was just played).
- A plus card gives its player another turn at once, with any of the three actions (play, draw
  or quit; drawing under the usual conditions). This holds also for a player alone in the round.
  A plus card that is its player's last card ends the round at once, like any last card.
- The round ends at once when someone plays their last card or everyone has quit.
- Scoring: each distinct value 1..6 left counts once (a plus card counts as its value, never a
  second time next to a normal card of that value); llamas count 10 once, or 20 once if the pink
  llama is among the cards. Going out scores 0 and returns the largest token held: tokens are 1, 10
  and 20, so that is a 20 when the score is at least 20.
- The game ends after the round in which someone reaches 40; lowest score wins, ties share.
  The next round is started by the last player to take a turn (quitting counts).

Rule variants (``RULE_SET.config(pink_llama=..., plus_cards=...)``, CLI ``--pink-llama``, ``--plus-cards``), to
measure what a rule is worth by playing the same deals without it:

- ``pink_llama="plain"``: the pink llama is an ordinary llama (the deck holds eight llamas): it
  needs a 6 or a llama below it, only a llama or a 1 goes on it, and it scores as a llama (10, not 20).
- ``plus_cards="plain"``: the plus cards are ordinary cards of their value (the deck holds eight of
  each value 1..6): no extra turn. Everything else stays as the rulebook says.

A variant is only a different deck (``variant_deck``): the pink llama's card code 13 becomes the
llama's code 6, a plus card's code ``PLUS + v - 1`` becomes the normal card's ``v - 1``. The tables
(``can_play``, ``extra_turn``, scoring) stay those of the rulebook, so the kernel is the same code on
another deck; the strategies see ordinary cards, as a player of the variant would. ``cfg`` is one
int64, the variant index ``pink plain + 2 * plus plain`` (0: the rulebook); the same deal stream
deals the same positions, so a variant plays the rulebook's deals with the changed cards in place.

Readings chosen where the rulebook is silent: the player alone who plays a plus card still gets
the extra turn (and then may play, or quit; not draw, as always when alone); the pink llama is the
only card that fits on anything, so "on top of a plus card, the usual value rules" applies to every
other card; a game's first round is started by seat 0.

Encoding (``N_CODES = 14``): codes 0..5 are the normal cards 1..6, 6 the llama (as in L.A.M.A.),
7..12 the plus cards +1..+6 (``PLUS + v - 1``), 13 the pink llama. Hands are count vectors over
codes. Everything in which Party differs from L.A.M.A. is in ``RULES`` below: the deck, ``playable``
(-> the ``can_play`` table), ``EXTRA_TURN`` (the plus cards), the value classes for scoring with the
pink bonus, 20-point tokens, and next starter = last player to act. The round loop, the reference
engine and the kernel are ``rulesets/shedding/``'s, shared with L.A.M.A.

Actions (the policy's return value): ``0..13`` play a card of that code, ``14`` draw, ``15`` quit;
the policy's ``legal`` is an int64 with bit a set for each legal action a.

Observation layout (int64, ``OBS_LEN = 38``), everything public the acting player can see; the same
layout as L.A.M.A.'s with the discard counts over Party's 14 codes. The own hand is the policy's
``hand`` argument (a count of each code), so nothing is copied per decision:

====================  ======  ============================================================
field                 index   meaning
====================  ======  ============================================================
OBS_SEAT              0       acting seat
OBS_PLAYERS           1       number of players n
OBS_TOP               2       code of the top discard (a plus card or the pink llama by code)
OBS_DRAW_PILE         3       cards left in the draw pile
OBS_ACTIVE            4       players still in the round (acting player included)
OBS_TURN              5       actions taken so far this round
OBS_HAND_SIZES        6..11   hand size of each seat 0..5 (0 for absent seats)
OBS_QUIT              12..17  1 if that seat has quit this round
OBS_SCORES            18..23  each seat's score (tokens) at the start of the round
OBS_DISCARD           24..37  count of each code in the discard pile (public history)
====================  ======  ============================================================
"""
from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from llama_sim.core.errors import UsageError
from llama_sim.core.jit import Kernel
from llama_sim.rulesets import shedding
from llama_sim.core.draws import NO_NRT
from llama_sim.core.engine import RUN_BLOCKS_SIG
from llama_sim.core.ruleset import RuleSet, option_flag
from llama_sim.rulesets.shedding import LOG_CAPACITY, GameResult, RoundResult, SheddingRules, deal, deal_round  # noqa: F401 (public names)

N_CODES = 14
LLAMA = 6
PLUS = 7  # code of the +1 card; +v is PLUS + v - 1
PINK = 13
CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L", "+1", "+2", "+3", "+4", "+5", "+6", "P")
# The value class a code scores and plays as: 0..5 for the values 1..6, 6 for the llamas.
VALUE_CLASS = np.array([0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6], dtype=np.int64)
CLASS_PENALTY = np.array([1, 2, 3, 4, 5, 6, 10], dtype=np.int64)
PINK_BONUS = 10  # with the pink llama among the cards, the llamas count 20 instead of 10
DECK = np.array([c for c in range(6) for _ in range(7)] + [LLAMA] * 7 + list(range(PLUS, PLUS + 6)) + [PINK],
                dtype=np.int8)  # 56 cards
HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 6

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
                              games_mode, entries, cfg, s1, s2)


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


def _run_blocks(seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, cfg, s1, s2):
    """Play ``n_blocks`` deal blocks; each deal is played once per row of ``entry_of_seat``, on the deck of
    the rule variant ``cfg[0]`` (0: the rulebook)."""
    run_blocks_with(blocks_core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                    policies, slot_of_entry, params, cfg, s1, s2)


@njit(cache=True, nogil=True, inline="always")
def run_blocks_with(core, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                    policies, slot_of_entry, params, cfg, s1, s2):
    """``run_blocks`` with its loop compiled as ``core`` (``blocks_core``, or a line-up kernel's own,
    ``llama_sim.run.lineup``; see ``shedding.run_blocks``)."""
    shedding.run_blocks(core, VARIANT_DECKS[cfg[0]], seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat,
                        n_units, games_mode, policies, slot_of_entry, params, s1, s2)


@njit(cache=True, nogil=True, **NO_NRT)
def blocks_core(full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                policies, slot_of_entry, params, s1, upper, v, bad):
    """The generic kernel's loop: ``blocks_core_with`` asking through the function tuple."""
    return blocks_core_with(None, full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                            games_mode, policies, slot_of_entry, params, s1, upper, v, bad)


@njit(cache=True, nogil=True, inline="always")
def blocks_core_with(decide, full_deck, seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units,
                     games_mode, policies, slot_of_entry, params, s1, upper, v, bad):
    """``shedding.blocks_loop`` on party's tables, asking the policies through ``decide``."""
    return shedding.blocks_loop(decide, full_deck, CAN_PLAY_BITS, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                                seed, first_block, n_blocks, n, entry_of_seat, unit_of_seat, n_units, games_mode,
                                policies, slot_of_entry, params, s1, upper, v, bad)


run_blocks = Kernel(_run_blocks, lambda: RUN_BLOCKS_SIG, "party kernel")


def _config(pink_llama: str | None = None, plus_cards: str | None = None, **options) -> np.ndarray:
    """``cfg``: the variant index (0: the rulebook; see the module docstring)."""
    RULE_SET.reject_other_options(options)
    index = 0
    for bit, (name, value) in enumerate(zip(VARIANT_OPTIONS, (pink_llama, plus_cards))):
        if value is None:
            continue
        if value not in VARIANT_VALUES:
            raise UsageError(f"{option_flag(name)} must be one of {', '.join(VARIANT_VALUES)}, not {value!r}")
        index |= (value == "plain") << bit
    return np.array([index], np.int64)


def _describe(cfg) -> dict:
    """The variant a run played, for reports: each option with its value."""
    index = int(np.asarray(cfg)[0])
    return {"pink_llama": "plain (an ordinary llama)" if index & 1 else "rulebook",
            "plus_cards": "plain (no extra turn)" if index & 2 else "rulebook"}


RULE_SET = RuleSet(
    name="party",
    title="L.A.M.A. Party Edition",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=run_blocks,
    run_blocks_with=run_blocks_with,
    reference_blocks=reference_blocks,
    action_names=ACTION_NAMES,
    config=_config,
    describe_config=_describe,
    options={"pink_llama": "rulebook | plain: the pink llama plays and scores as an ordinary llama",
             "plus_cards": "rulebook | plain: the plus cards are ordinary cards (no extra turn)"},
    chart="llama_sim.rulesets.shedding.chart:PARTY_CHART",
    advice="llama_sim.rulesets.party.advise:ADVICE",
)
