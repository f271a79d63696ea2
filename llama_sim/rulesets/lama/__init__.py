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

This ``__init__`` declares the rule set (``RULE_SET``) and nothing more: the tables, the reference
engine and the kernel are in ``engine.py``, imported on first use (listing the rule sets and building
the command line's options need none of it, nor Numba); every name of ``engine`` is also reachable
here (``llama_sim.rulesets.lama.DRAW``).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from llama_sim.core.ruleset import CARD_POSITION_LISTS, RuleSet, card_position_help

CODE_NAMES = ("1", "2", "3", "4", "5", "6", "L")  # card codes 0..6
MIN_PLAYERS, MAX_PLAYERS = 2, 6
ADVICE_EXAMPLE = {"hand": "2 2 6 L", "top": "4", "hand_sizes": "3,5,1", "pile": 20}  # a typical position (docs, tests)
_ENGINE = f"{__name__}.engine"

RULE_SET = RuleSet(
    name="lama",
    order=1,
    title="L.A.M.A.",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=f"{_ENGINE}:run_blocks",
    kernel_loop=f"{_ENGINE}:kernel_loop",
    reference_blocks=f"{_ENGINE}:reference_blocks",
    action_names=f"{_ENGINE}:ACTION_NAMES",
    config=f"{_ENGINE}:config",
    position_help=card_position_help(CODE_NAMES, ADVICE_EXAMPLE["hand"]),
    position_lists=CARD_POSITION_LISTS,
    chart="llama_sim.rulesets.lama.chart:CHART",
    advice="llama_sim.rulesets.lama.advise:ADVICE",
    strategies_module="llama_sim.strategies.lama",
    expert_search="llama_sim.strategies.lama:EXPERT_SEARCH",
    report_spec=Path(__file__).with_name("report.toml"),
    limit=f"{_ENGINE}:limit",
    luck_default=False,
)


def __getattr__(name: str):
    """The engine's names (``DRAW``, ``RULES``, ``Round``, ``play_round``...), imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_ENGINE), name)
