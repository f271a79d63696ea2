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

This ``__init__`` declares the rule set (``RULE_SET``) and nothing more: the tables, the reference
engine and the kernel are in ``engine.py``, imported on first use (listing the rule sets and building
the command line's options need none of it, nor Numba); every name of ``engine`` is also reachable
here (``llama_sim.rulesets.party.DRAW``).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from llama_sim.core.ruleset import CARD_POSITION_LISTS, RuleSet, card_position_help

CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L", "+1", "+2", "+3", "+4", "+5", "+6", "P")  # card codes 0..13
MIN_PLAYERS, MAX_PLAYERS = 2, 6
ADVICE_EXAMPLE = {"hand": "+3 P 5 6", "top": "2", "hand_sizes": "4,4", "pile": 25}  # a typical position (docs, tests)
_ENGINE = f"{__name__}.engine"

RULE_SET = RuleSet(
    name="party",
    order=2,
    title="L.A.M.A. Party Edition",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=f"{_ENGINE}:run_blocks",
    kernel_loop=f"{_ENGINE}:kernel_loop",
    reference_blocks=f"{_ENGINE}:reference_blocks",
    action_names=f"{_ENGINE}:ACTION_NAMES",
    config=f"{_ENGINE}:config",
    describe_config=f"{_ENGINE}:describe_config",
    options={"pink_llama": "rulebook | plain: the pink llama plays and scores as an ordinary llama",
             "plus_cards": "rulebook | plain: the plus cards are ordinary cards (no extra turn)"},
    position_help=card_position_help(CODE_NAMES, ADVICE_EXAMPLE["hand"]),
    position_lists=CARD_POSITION_LISTS,
    chart="llama_sim.rulesets.party.chart:CHART",
    advice="llama_sim.rulesets.party.advise:ADVICE",
    strategies_module="llama_sim.strategies.party",
    expert_search="llama_sim.strategies.party:EXPERT_SEARCH",
    report_spec=Path(__file__).with_name("report.toml"),
    limit=f"{_ENGINE}:limit",
    luck_default=False,
)


def __getattr__(name: str):
    """The engine's names (``DRAW``, ``RULES``, ``Round``, ``play_round``...), imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_ENGINE), name)
