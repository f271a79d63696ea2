"""LAMA Dice / Don't L.L.A.M.A. Dice (rule set ``dice``): tables, reference engine, Numba kernel.

Rules as played (``shared/rules/lama-dice.txt``, the same game as ``dont-llama-dice.txt``, and
``shared/RULES.md``):

- 43 cards. The *llama row* is 7 black-backed cards, one each of 1..6 and llama, laid out anew
  every round. The other 36 (five each of 1..6, six llamas) are shuffled; each player gets 6 into
  a face-up *row*; the rest are set aside for the round.
- Three dice, each with two llama faces and four numbers, every number on exactly two dice. The
  layout is a rule-set option (``--dice-layout``, see ``llama_sim.rulesets.dice.tables``: 15 layouts,
  default ``12-34-56`` = die A 1234LL, B 1256LL, C 3456LL).
- A turn is *roll* or *quit* (quitting is always allowed; the row stays and scores). After a
  roll, in this order:

  1. three llamas: the player returns the largest token held (10, else 1, else nothing); nothing
     else happens, even with llamas in the row;
  2. some die shows a value in the row (a llama face matches a llama card): the player discards
     at least one matching card, at most one card per die showing its value; which dice to use
     is the strategy's choice. Discarding the last card ends the round (the player *went out*);
  3. otherwise, if some other player is still in the round and a rolled value is still in the
     llama row: the player takes one such card (strategy's choice) into the row; taking the last
     card of the llama row ends the round;
  4. otherwise *llama drama*: the player takes the whole llama row and the round ends. (Alone in
     the round, step 3 is skipped: no match in the own row is drama.)

- The round ends exactly when: a player discards their last card, on drama, when the llama row
  runs out, or when everybody has quit (``END_OUT``, ``END_DRAMA``, ``END_LLAMA_ROW``,
  ``END_ALL_QUIT``). Rows score as in L.A.M.A.: each distinct value once, llamas 10; a player who
  went out scores 0 and then returns the largest token held. The game ends after the round in
  which someone reaches 40; the lowest score wins, ties share. The next round is started by the
  last player to act (quitting counts; the roll and its discard/take are one turn of one player).

Readings chosen (also in RULES.md where it settles them):

- Returning a token is optional in the rulebook but never hurts, so it always happens, and the
  token is the largest held (RULES.md). The token return after three llamas happens at once and
  changes the score immediately (``OBS_SCORES`` shows current holdings).
- A quit player's row stays public in the observation: it was face up until the quit and does not
  change afterwards, so a player at the table knows it.
- *Penalty of a round* (the ``penalty`` statistic), as in every rule set: the net change of the
  player's score over the round: the points scored by the round's cards (0 for the player who
  went out) minus the tokens returned, after three llamas and for going out. Over a game the
  penalties add up to the final score. In round mode every player starts with score 0, so
  nothing can be returned and the penalty is the card points.

Encoding: card/face code ``c`` in 0..5 is the value c+1, 6 the llama. Rows, the llama row and the
discard pile are count vectors over codes. A roll is one draw ``o = randint(216)`` (``core.rng.randint``) from the dice
stream (``DICE_STREAM``): die A (first die of the canonical layout) shows face ``o // 36``, die B
face ``(o // 6) % 6``, die C face ``o % 6``. A deal takes ``6 n`` draws from the deal stream: a
partial Fisher-Yates shuffle of the 36 cards (``deal_shuffle``), seat s gets cards ``6s..6s+5``.

Actions (the policy's return value, ``N_ACTIONS = 16``):

=============  ========  ======================================================================
name           value     meaning
=============  ========  ======================================================================
ROLL           0         roll the three dice (phase TURN)
QUIT           1         quit the round (phase TURN)
DISCARD_MASK_m 1 + m     m = 1..7: discard one card per die in bitmask m (bit i = die i of
                         ``OBS_DICE``), the value that die shows (phase DISCARD)
TAKE_c         9 + c     take the card of code c from the llama row (phase TAKE)
=============  ========  ======================================================================

A turn is one or two decisions by the same player: ROLL/QUIT with ``OBS_PHASE = PHASE_TURN``,
then, if the roll asks for a choice, a DISCARD or TAKE decision with the rolled faces in
``OBS_DICE``. A discard mask is legal when it is non-empty and, for each code, the number of
selected dice showing it is at most the number of such cards in the row.

Engines. ``reference.py``: ``Round`` / ``reference_game`` / ``reference_blocks``, the plain-Python
reference; ``kernel.py``: ``play_round`` (from any position), ``play_game`` and ``run_blocks``, the Numba
kernel (its speed notes are there). Both draw deals from ``DEAL_STREAM``, rolls from ``DICE_STREAM`` and
policy randomness from ``POLICY_STREAM`` in the same order and call the same compiled policies, so they
agree exactly; both raise ``ValueError("illegal action", entry, seat, action)`` on an answer outside the
legal set (``entry``: the line-up entry playing that seat). ``play_round_entry`` is ``play_round`` with
one explicit signature for Python callers. ``positions.py``: ``simulate_position`` plays a typed-in
position (rows, llama row, who has quit, scores) many times (``run_positions``); ``simulate_solo`` does
it for a solo position, to set ``solo_optimal`` against the exact values of ``llamasim solve dice``
(``solve_position_table``, on ``llama_sim.rulesets.dice.solver``). ``codes.py``: the codes, actions and
observation indices below; ``tables.py``: the dice layouts and roll tables; ``expert.py``: the ``expert``
strategy's roll-outs (``llama_sim.core.expert``), on the kernel's round loop.

Observation layout (int64, ``OBS_LEN``), everything the acting player can see:

====================  ========  =============================================================
field                 index     meaning
====================  ========  =============================================================
OBS_SEAT              0         acting seat
OBS_PLAYERS           1         number of players n
OBS_PHASE             2         PHASE_TURN 0 (roll/quit), PHASE_DISCARD 1, PHASE_TAKE 2
OBS_ACTIVE            3         players still in the round (acting player included; 1 = alone)
OBS_TURN              4         decisions taken so far this round
OBS_LAYOUT_ID         5         index of the dice layout in ``tables.LAYOUTS`` (0..14)
OBS_DICE              6..8      faces (codes) of the most recent roll, per die; -1 before any
OBS_ROLLED            9..15     that roll as counts per code
OBS_LLAMA_ROW         16..22    llama row: 1 if that card is still there
OBS_ROWS              23..64    every seat's row (seat s at 23 + 7 s), 0 for absent seats
OBS_QUIT              65..70    1 if that seat has quit this round
OBS_SCORES            71..76    each seat's score now (tokens held)
OBS_DISCARDED         77..83    cards discarded this round, per code (public)
OBS_SET_ASIDE         84        number of cards set aside this round
OBS_FACES             85..102   the layout: die d face k at 85 + 6 d + k (canonical order)
====================  ========  =============================================================

The acting seat's own row is not a field of its own: the policy gets it as ``hand`` (the contract's
``policy(obs, hand, legal, params, rng)``), the engine's own row of ``rows``, and it is also at
``OBS_ROWS + 7 * OBS_SEAT`` like every seat's, so nothing is copied per decision.

This ``__init__`` declares the rule set (``RULE_SET``) and nothing more: the tables, the reference
engine and the kernel are in ``engine.py`` and the modules it gathers, imported on first use (listing
the rule sets and building the command line's options need none of it, nor Numba); every name of
``engine`` is also reachable here (``llama_sim.rulesets.dice.QUIT``).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from llama_sim.core.ruleset import RuleSet

MIN_PLAYERS, MAX_PLAYERS = 2, 6
# The 15 dice layouts by name, in layout-id order (a name is the three pairs of numbers the dice share),
# written out so that declaring the option loads nothing; ``tables.py`` builds the layouts from them and
# the tests check them against a brute-force enumeration over the faces.
LAYOUT_NAMES = ("12-34-56", "12-35-46", "12-36-45", "13-24-56", "13-25-46", "13-26-45", "14-23-56", "14-25-36",
                "14-26-35", "15-23-46", "15-24-36", "15-26-34", "16-23-45", "16-24-35", "16-25-34")
DEFAULT_LAYOUT_NAME = "12-34-56"
# advise's position options (the advisor, ``advise.py``, takes them from here)
POSITION_HELP = {
    "row": 'your row, e.g. "2 5 L"',
    "llama_row": "cards still in the llama row (default all 7)",
    "rows": 'the other players\' rows in turn order after you, ";"-separated, e.g. "1 2 3;4 L" (with '
            "--alone they may be left out)",
    "quit": "which of the other players have quit (1-based, same order), e.g. 2 or 1,3",
    "scores": "everyone's score, yours first (default all 0)",
    "discard": "the cards discarded this round",
    "alone": "everyone else has quit (the solo phase; without --rows the player count is --scores' length, "
             "else 2)",
}
POSITION_FLAGS = frozenset({"alone"})
POSITION_LISTS = {"quit": ",", "scores": ",", "rows": ";"}
_ENGINE = f"{__name__}.engine"

RULE_SET = RuleSet(
    name="dice",
    order=4,
    title="LAMA Dice",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=f"{_ENGINE}:run_blocks",
    kernel_loop=f"{_ENGINE}:kernel_loop",
    reference_blocks=f"{_ENGINE}:reference_blocks",
    action_names=f"{_ENGINE}:ACTION_NAMES",
    option_values={"dice_layout": LAYOUT_NAMES},
    option_metavars={"dice_layout": "LAYOUT"},
    bench_strategy="threshold",
    exact_solver=f"{_ENGINE}:exact_solver",
    check_solve_position=f"{_ENGINE}:parse_solo_position",
    config=f"{_ENGINE}:config",
    describe_config=f"{_ENGINE}:describe_config",
    options={"dice_layout": (f"dice face layout: one of the 15 names ({', '.join(LAYOUT_NAMES)}; default "
                             f"{DEFAULT_LAYOUT_NAME} = 1234LL/1256LL/3456LL) or a spec like 1234LL/1256LL/3456LL")},
    position_help=POSITION_HELP,
    position_flags=POSITION_FLAGS,
    position_lists=POSITION_LISTS,
    chart="llama_sim.rulesets.dice.chart:CHART",
    advice="llama_sim.rulesets.dice.advise:ADVICE",
    strategies_module="llama_sim.strategies.dice",
    expert_search="llama_sim.strategies.dice:EXPERT_SEARCH",
    report_spec=Path(__file__).with_name("report.toml"),
    limit="llama_sim.rulesets.dice.limit:limit",
    # on by default: unbiased (every roll's and card's luck has mean 0) and 1.5-2.4x narrower at equal games
    # (reports/luck/); it costs 1.2-3x CPU per round, a fraction of a second at the sizes people run
    luck_default=True,
)


def __getattr__(name: str):
    """The engine's names (tables, ``Round``, ``play_round``, ``run_blocks``...), imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_ENGINE), name)
