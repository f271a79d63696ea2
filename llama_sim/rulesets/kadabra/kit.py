"""Everything a Llama Kadabra strategy is written with, in one stable module:

    from llama_sim import strategy
    from llama_sim.rulesets.kadabra.kit import DRAW, QUIT, OBS_PHASE, PHASE_TURN, hand_points, pick_legal

- actions: ``0..35`` play the card of that code (``CODE_NAMES``; in a show only llama codes),
  ``DRAW``, ``QUIT``, ``RETURN_MAGIC``, ``COLLECT``, ``GIVE + k`` (give a token to seat k);
  ``is_legal(legal, a)``, ``count_legal``, ``pick_legal(legal, rng)``;
- the observation's fields (``OBS_*``, ``OBSERVATION``: ``llamasim strategies --game kadabra
  --observation``), the decision's phase (``PHASE_TURN``, ``PHASE_SHOW``, ``PHASE_GIVE``); ``hand`` is a
  count per code (``N_CODES``);
- ``hand_points(hand)``: what the hand would score now (each distinct value once, doubles both);
- the rng helpers on the policy's own ``rng``: ``uniform``, ``randint``, ``below``;
- ``describe(obs, hand)``: what the player saw, in words (``llamasim trace`` prints it).
"""
from llama_sim.core.kit import Field, below, count_legal, is_legal, pick_legal, randint, uniform  # noqa: F401
from llama_sim.rulesets.kadabra.tables import (  # noqa: F401
    ACTION_NAMES, CODE_NAMES, COLLECT, DRAW, GIVE, N_ACTIONS, N_CODES, OBS_ACTIVE, OBS_DECK, OBS_DISCARD,
    OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_LEN, OBS_MAGIC, OBS_NO_SHOW, OBS_ONES, OBS_PHASE, OBS_PLAYERS, OBS_QUIT,
    OBS_SEAT, OBS_SHOW, OBS_STAGE_ONES, OBS_STAGE_TENS, OBS_STAGE_TOKENS, OBS_TENS, OBS_TOP, OBS_TURN, PHASE_GIVE,
    PHASE_SHOW, PHASE_TURN, QUIT, RETURN_MAGIC, hand_points)

OBSERVATION = (
    Field("OBS_SEAT", "acting seat (0..n-1)"),
    Field("OBS_PLAYERS", "number of players n"),
    Field("OBS_PHASE", "decision: 0 normal turn, 1 show (llama or collect), 2 give a token to a seat"),
    Field("OBS_TOP", "kind of the top discard (0..8)"),
    Field("OBS_DRAW_PILE", "cards left in the draw pile", "0: drawing is not legal"),
    Field("OBS_ACTIVE", "players still in the round, the acting player included", "1: everyone else quit"),
    Field("OBS_TURN", "decisions taken so far this round"),
    Field("OBS_MAGIC", "who holds the magic token", "a seat, -1 in the pool, -2 on the stage"),
    Field("OBS_STAGE_ONES", "1-tokens on the stage"),
    Field("OBS_STAGE_TENS", "10-tokens on the stage"),
    Field("OBS_STAGE_TOKENS", "tokens on the stage", "the magic token counts one when it is there"),
    Field("OBS_SHOW", "1 while a show is running"),
    Field("OBS_HAND_SIZES", "hand size of each seat 0..5",
          "a player who quit keeps their hand size; 0 for absent seats"),
    Field("OBS_QUIT", "1 if that seat has quit this round"),
    Field("OBS_ONES", "1-tokens held by each seat", "updated as tokens move during the round"),
    Field("OBS_TENS", "10-tokens held by each seat", "a seat's points: ones + 10 tens (+10 with the magic token)"),
    Field("OBS_DISCARD", "count of each card code in the discard pile"),
    Field("OBS_NO_SHOW", "1 in the variant without the magic show (--magic-show off)"),
    Field("OBS_DECK", "count of each card code in the round's deck",
          "the deck in use: the default, a --deck-file's or --magic-token off's"),
)


def describe(obs, hand) -> str:
    """What the acting player saw, in words (``llamasim trace``, an illegal action's one line)."""
    from llama_sim.core.kit import cards_text, quit_text, seats_text
    from llama_sim.rulesets.kadabra.tables import KIND_SHORT, PHASE_NAMES

    n, magic = int(obs[OBS_PLAYERS]), int(obs[OBS_MAGIC])
    holder = {-1: "the pool", -2: "the stage"}.get(magic, f"seat {magic}")
    return (f"seat {int(obs[OBS_SEAT])} of {n}, turn {int(obs[OBS_TURN])}, {PHASE_NAMES[int(obs[OBS_PHASE])]}: "
            f"hand {cards_text(hand, CODE_NAMES)}; top {KIND_SHORT[int(obs[OBS_TOP])]}; pile {int(obs[OBS_DRAW_PILE])}; "
            f"hand sizes {seats_text(obs, OBS_HAND_SIZES, n)}{quit_text(obs, OBS_QUIT, n)}; "
            f"ones {seats_text(obs, OBS_ONES, n)}; tens {seats_text(obs, OBS_TENS, n)}; magic token: {holder}; "
            f"stage {int(obs[OBS_STAGE_ONES])} ones, {int(obs[OBS_STAGE_TENS])} tens"
            + ("; a show is running" if obs[OBS_SHOW] else ""))
