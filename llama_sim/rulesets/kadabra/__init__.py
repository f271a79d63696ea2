"""Llama Kadabra (rule set ``kadabra``): tables, the reference engine and the Numba kernel.

Rules as played (``shared/rules/llama-kadabra.txt``, ``shared/RULES.md``)
-------------------------------------------------------------------------
- Deck: 60 cards, 8 each of 1 and 6, 7 each of 2..5, two 2/3 and two 4/5 doubles, 12 llamas. The
  action symbols are data (``llama_sim/rulesets/kadabra/symbols.toml``, replaceable with
  ``--deck-file``): by default all eight 1s give away a token, three of the seven 2s make the next
  player draw, three of the seven 3s take the magic token. A deck file may also change the card
  counts ([cards]) and put any symbol on any card (at most one symbol per card). Reports name the
  table (``RULE_SET.describe_config(cfg)``).
- Deal 6 each; the next card starts the discard pile and its symbol is not carried out. Seat 0
  starts a game; the next round is started by the last player to take a decision (quitting, a
  give-away choice and returning the magic token count).
- Play on the top card a card of the same value or one higher, a llama on a 6 or a llama, a 1 on a
  llama. A double is played on anything either of its values could be played on, and the next card
  may follow either value (on a 2/3: a 2, 3 or 4). Draw: only while the pile has cards and somebody
  else is in the round. Quit: always allowed in a normal turn.
- Tokens are objects: white 1s, black 10s and the single magic token (10 at scoring). A player
  holding ten 1s exchanges them for a 10 at once (and never breaks a 10). "One of the lowest
  tokens" orders 1 < 10 < magic. Every player starts a game with three 1s; the stage starts empty
  and the magic token in the pool.
- Give-away symbol: the player gives one of their lowest tokens to another player still in the
  round, chosen by the policy (a second decision, ``PHASE_GIVE``, asked even when only one target
  exists); nothing happens without a token or when nobody else is in the round (alone: no effect).
- Draw symbol: the next player still in the round draws a card (the player themself when alone),
  nothing when the pile is empty; then play goes on as usual with that next player. On a lone
  player's last card the round still ends ("Only then does the round end") and the drawn card scores.
- Magic symbol: the player takes the magic token from wherever it is (pool, a player, the stage).
- The magic token gives an extra action: return it to the pool and pass (in a turn or in a show,
  where it passes the show on). Not allowed when alone in the round.
- Playing a llama puts one of the player's lowest tokens on the stage (nothing if they hold none).
  If after that the stage holds 5 or more tokens (the magic token counts as one), a show starts
  (or goes on). In a show, a player still in the round, on their turn, first plays a llama (that
  is the turn; the llama stakes as above) or collects every token on the stage (the show ends,
  received 1s are exchanged) and then takes a normal turn; holding the magic token they may
  instead return it and pass. If the stage drops below 5 tokens (only a magic-symbol llama of a
  custom table can take the magic token off it during a show) the show ends. A show never
  carries over to the next round: it restarts only after the next llama; the stage's tokens stay.
- A card's own effects happen in this order: stake (llama), symbol, show check, then the round
  ends if it was the player's last card: the symbol is carried out even on a last card, and a
  last-card llama in a show ends the show and the round with nobody collecting.
- Scoring: each distinct value left in a hand once (doubles count both values, llamas 10); 0 for
  the player who went out (but for a card a lone player drew by their last card's symbol); plus
  10 for the player holding the magic token (the player who went out included), which goes back
  to the pool. Points arrive as 10s and 1s (then exchanged). Then
  the player who went out returns a 10 if they hold one, else a 1 (scoring first, then the
  return). A game ends after a round in which somebody holds 40 or more points; lowest wins,
  ties share.

Statistics: a round's ``penalty`` is the change of the player's token total (1s + 10s) over the
round, the end-of-round scoring and return included: points scored + tokens received (gifts,
collected stages) - tokens given away, staked and returned. The magic token is in nobody's hand at
the start and at the end of a round, so its 10 counts exactly when it is held at the end. It can
be negative. In a game the penalties sum to final score - 3. Round mode (single rounds): every
player starts with three 1s, the stage empty and the magic token in the pool.

Engines
-------
``tables.py``: the codes, tables, layouts and the deck-file reader. ``reference.py``: ``Round``
(one round from any position, plain Python, also scores it), ``reference_game``,
``reference_round``, ``reference_blocks``. ``kernel.py``: ``play_round(n, hands, deck, discard,
quit, ones, tens, board, start, policies, slot_of_entry, params, entry_of_seat, prng, obs, log) ->
(out_seat, last_actor, decisions)`` plays from any position with the draw pile in ``deck``'s order
(``board``: draw position, top kind, stage 1s, stage 10s, magic token, show flag; the policy gets
the legal set as a bit mask), ``score_round``
scores it, ``play_game``, ``run_blocks``; the work is
done by ``play_core_with`` (``decide`` first, then the same arguments plus ``drng``, ``lazy``, ``bad``,
``work``). Both engines
take the same deck order and call the same policies in the same order, so on fixed decks they agree
decision by decision (``tests/rulesets/test_kadabra.py``). ``expert.py``: the ``expert`` strategy's roll-outs
(``llama_sim.core.expert``), on the kernel's round loop. ``luck.py``: the value function of luck-adjusted
runs (``--luck on``) and the luck of each card dealt or drawn, which both engines count alike.

Illegal actions: both engines check every answer against their own record of what is legal and
raise ``ValueError("illegal action", entry, seat, action)`` (entry: the line-up entry of that seat).

Random streams: a deal is a forward Fisher-Yates shuffle with integer draws (``core/draws.py``);
the kernels deal lazily (a card is chosen when it is dealt or drawn), the reference engine shuffles
the whole deck with the same stream: the same cards. In a game, each round deals from its own stream
derived from the deal stream (``draws.next_stream``).

Encoding
--------
Card kinds: 0..5 = values 1..6, 6 = llama, 7 = 2/3, 8 = 4/5. Symbols: 0 none, 1 give, 2 draw,
3 magic. Card code ``c = 4 * kind + symbol`` (36 codes; hands and the discard pile are count
vectors over codes). ``PLAYABLE[top kind, code]`` says what may be played on what.

Actions (one enum for all three decisions; ``legal``, a bit mask, has bit a set for those allowed now):

==========  =======================================================================
0..35       play a card of code c (in a show only llama codes)
36 DRAW     draw a card
37 QUIT     drop out of the round
38 RETURN_MAGIC  return the magic token to the pool and pass (turn or show)
39 COLLECT  take every token on the stage (show only), then take a normal turn
40..45      GIVE + k: give the token to seat k (give phase only)
==========  =======================================================================

Observation layout (int64, ``OBS_LEN`` = 109), all public. The player's own hand is not in it (that
would be 36 fields copied at every decision); a policy gets it as ``hand``, the count of each card
code, a read-only view of the engine's own row:

====================  ========  ==================================================================
field                 index     meaning
====================  ========  ==================================================================
OBS_SEAT              0         acting seat
OBS_PLAYERS           1         number of players n
OBS_PHASE             2         decision: 0 normal turn, 1 show (llama / collect), 2 give target
OBS_TOP               3         kind of the top discard (0..8)
OBS_DRAW_PILE         4         cards left in the draw pile
OBS_ACTIVE            5         players still in the round (acting player included)
OBS_TURN              6         decisions taken so far this round
OBS_MAGIC             7         magic token: holding seat, -1 pool, -2 stage
OBS_STAGE_ONES        8         1s on the stage
OBS_STAGE_TENS        9         10s on the stage
OBS_STAGE_TOKENS      10        tokens on the stage (1s + 10s + the magic token if there)
OBS_SHOW              11        1 while a show is running
OBS_HAND_SIZES        12..17    hand size of each seat 0..5 (0 for absent seats)
OBS_QUIT              18..23    1 if that seat has quit this round
OBS_ONES              24..29    1-tokens held by each seat
OBS_TENS              30..35    10-tokens held by each seat
OBS_DISCARD           36..71    count of each card code in the discard pile (public history)
OBS_NO_SHOW           72        1 in the variant without the magic show (``--magic-show off``)
OBS_DECK              73..108   count of each card code in the round (the deck in use: the default,
                                a ``--deck-file``'s or ``--magic-token off``'s)
====================  ========  ==================================================================

The last two were appended (existing policies keep their indices): they are rules, public at the
table, and a player who rebuilds the round from what it saw (the ``expert``'s roll-outs,
``rulesets/kadabra/expert.py``) needs them.

A seat's points are ``ones + 10 * tens`` (+ 10 while it holds the magic token). In the give
phase the token given is the player's lowest one (a 1 if ``ones > 0``, else a 10, else the magic
token). ``cfg`` (the rule-set option array, ``CFG_LEN`` = 37) is the count of each of the 36 card
codes, then ``cfg[CFG_NO_SHOW]``.

Rule variants (``config(magic_token=..., magic_show=...)``, CLI ``--magic-token``, ``--magic-show``),
to measure what a rule is worth by playing the same deals without it:

- ``magic_token="off"``: no card carries the magic symbol (each magic-symbol card is the plain card of
  its kind, on whatever symbol table is in use). Nobody can take the magic token, so it stays in the
  pool: it never scores 10 and its extra action (return it and pass) never arises. Data only: the
  deck's counts change, and the deal stream deals the same positions, so the variant plays the same
  deals with the symbols taken off.
- ``magic_show="off"``: playing a llama stakes nothing (``board[B_NO_SHOW]`` = 1, one test in the
  kernel's and the reference's llama play). The stage stays empty, so no show ever starts; llamas
  are plain cards (on a 6 or a llama, a llama or a 1 on them, 10 points). The magic token then
  never reaches the stage either.

Everything else stays as the rulebook says.

This ``__init__`` declares the rule set (``RULE_SET``) and nothing more: the tables, the reference
engine and the kernel are in ``engine.py`` and the modules it gathers, imported on first use (listing
the rule sets and building the command line's options need none of it, nor Numba); every name of
``engine`` is also reachable here (``llama_sim.rulesets.kadabra.QUIT``).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from llama_sim.core.ruleset import CARD_POSITION_HELP, CARD_POSITION_LISTS, RuleSet

MIN_PLAYERS, MAX_PLAYERS = 2, 6
# advise's position options (the advisor, ``advise.py``, takes them from here)
POSITION_HELP = {
    **{k: v for k, v in CARD_POSITION_HELP.items() if k != "scores"},
    "hand": 'your hand, e.g. "L L 2/3" (2/3 and 4/5 doubles; a symbol after its value: 1+give or 1g, 2d, 3m)',
    "ones": "1-tokens held, yours first (default 3 each)",
    "tens": "10-tokens held, yours first (default 0)",
    "magic": "the magic token: pool, stage, me, or a player 1..n-1",
    "stage": "1s and 10s on the stage, e.g. 3,1",
    "show": "a show is running (your decision: a llama or collect)",
}
POSITION_FLAGS = frozenset({"show"})
POSITION_LISTS = {**{k: v for k, v in CARD_POSITION_LISTS.items() if k != "scores"},
                  "ones": ",", "tens": ",", "stage": ","}
_ENGINE = f"{__name__}.engine"

RULE_SET = RuleSet(
    name="kadabra",
    order=3,
    title="Llama Kadabra",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    run_blocks=f"{_ENGINE}:run_blocks",
    kernel_loop=f"{_ENGINE}:kernel_loop",
    reference_blocks=f"{_ENGINE}:reference_blocks",
    action_names=f"{_ENGINE}:ACTION_NAMES",
    config=f"{_ENGINE}:config",
    describe_config=f"{_ENGINE}:describe_config",
    file_options=frozenset({"deck_file"}),
    option_metavars={"deck_file": "FILE.toml"},
    options={"deck_file": "a TOML file replacing the deck and action-symbol table "
                          "(layout: llama_sim/rulesets/kadabra/symbols.toml)",
             "magic_token": "on | off: no card carries the magic symbol, so the magic token stays in the pool",
             "magic_show": "on | off: a llama stakes nothing, so no token goes on the stage and no show starts"},
    position_help=POSITION_HELP,
    position_flags=POSITION_FLAGS,
    position_lists=POSITION_LISTS,
    chart="llama_sim.rulesets.kadabra.chart:CHART",
    advice="llama_sim.rulesets.kadabra.advise:ADVICE",
    strategies_module="llama_sim.strategies.kadabra",
    expert_search="llama_sim.strategies.kadabra:EXPERT_SEARCH",
    report_spec=Path(__file__).with_name("report.toml"),
    limit="llama_sim.rulesets.kadabra.limit:limit",
    # available, off by default: unbiased, but a linear value of the own hand explains ~5% of a round's
    # penalty, so intervals narrow by ~1% (reports/luck/)
    luck_default=False,
)


def __getattr__(name: str):
    """The engine's names (tables, ``Round``, ``play_round``, ``run_blocks``...), imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_ENGINE), name)
