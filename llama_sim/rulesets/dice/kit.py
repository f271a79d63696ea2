"""Everything a L.A.M.A. Dice strategy is written with, in one stable module:

    from llama_sim import strategy
    from llama_sim.rulesets.dice.kit import ROLL, QUIT, OBS_PHASE, PHASE_TURN, hand_points, pick_legal

- actions: ``ROLL``, ``QUIT`` (phase ``PHASE_TURN``), ``DISCARD_BASE + m`` discard one card per die in
  the bit mask m = 1..7 (phase ``PHASE_DISCARD``), ``TAKE_BASE + c`` take the card of code c from the
  llama row (phase ``PHASE_TAKE``); ``is_legal(legal, a)``, ``count_legal``, ``pick_legal(legal, rng)``;
- the observation's fields (``OBS_*``, ``OBSERVATION``: ``llamasim strategies --game dice
  --observation``); ``hand`` is the player's own row, a count per code (``N_CODES``);
- ``hand_points(hand)``: what the row would score now (each distinct value once, the llama 10);
- the rng helpers on the policy's own ``rng``: ``uniform``, ``randint``, ``below``;
- ``describe(obs, hand)``: what the player saw, in words (``llamasim trace`` prints it).
"""
from numba import njit

from llama_sim.core.scoring import distinct_penalty
from llama_sim.core.kit import Field, below, count_legal, is_legal, pick_legal, randint, uniform  # noqa: F401
from llama_sim.rulesets.dice.codes import (  # noqa: F401
    ACTION_NAMES, CODE_NAMES, DISCARD_BASE, LLAMA, N_ACTIONS, N_CODES, OBS_ACTIVE, OBS_DICE, OBS_DISCARDED,
    OBS_FACES, OBS_LAYOUT_ID, OBS_LEN, OBS_LLAMA_ROW, OBS_PHASE, OBS_PLAYERS, OBS_QUIT, OBS_ROLLED, OBS_ROWS,
    OBS_SCORES, OBS_SEAT, OBS_SET_ASIDE, OBS_TURN, PENALTY, PHASE_DISCARD, PHASE_TAKE, PHASE_TURN, QUIT, ROLL,
    TAKE_BASE)

OBSERVATION = (
    Field("OBS_SEAT", "acting seat (0..n-1)"),
    Field("OBS_PLAYERS", "number of players n"),
    Field("OBS_PHASE", "decision: 0 roll or quit, 1 discard, 2 take"),
    Field("OBS_ACTIVE", "players still in the round, the acting player included", "1: playing alone"),
    Field("OBS_TURN", "decisions taken so far this round"),
    Field("OBS_LAYOUT_ID", "the dice layout (0..14)"),
    Field("OBS_DICE", "faces (codes) of the latest roll, per die", "-1 before any roll"),
    Field("OBS_ROLLED", "that roll as a count per code"),
    Field("OBS_LLAMA_ROW", "1 if that card is still in the llama row"),
    Field("OBS_ROWS", "every seat's row, seat s at the field's start + 7 s",
          "a player who quit keeps their row; 0 for absent seats"),
    Field("OBS_QUIT", "1 if that seat has quit this round"),
    Field("OBS_SCORES", "each seat's score now (tokens held)"),
    Field("OBS_DISCARDED", "cards discarded this round, per code"),
    Field("OBS_SET_ASIDE", "cards set aside this round"),
    Field("OBS_FACES", "the layout: die d face k at the field's start + 6 d + k"),
)


@njit(cache=True, inline="always")
def hand_points(hand):
    """The points ``hand`` (the row, a count per code) would score if the round ended now."""
    return distinct_penalty(hand, PENALTY)


def describe(obs, hand) -> str:
    """What the acting player saw, in words (``llamasim trace``, an illegal action's one line)."""
    from llama_sim.core.kit import cards_text, quit_text, seats_text

    n, me = int(obs[OBS_PLAYERS]), int(obs[OBS_SEAT])
    phase = ("roll or quit", "discard", "take")[int(obs[OBS_PHASE])]
    dice = [int(obs[OBS_DICE + d]) for d in range(3)]
    rolled = " ".join(CODE_NAMES[c] for c in dice) if min(dice) >= 0 else "not rolled"
    others = ", ".join(f"seat {s}: {cards_text(obs[OBS_ROWS + N_CODES * s:OBS_ROWS + N_CODES * (s + 1)], CODE_NAMES)}"
                       for s in range(n) if s != me)
    return (f"seat {me} of {n}, turn {int(obs[OBS_TURN])}, {phase}: row {cards_text(hand, CODE_NAMES)}; "
            f"dice {rolled}; llama row {cards_text(obs[OBS_LLAMA_ROW:OBS_LLAMA_ROW + N_CODES], CODE_NAMES)}; "
            f"other rows {others}{quit_text(obs, OBS_QUIT, n)}; scores {seats_text(obs, OBS_SCORES, n)}; "
            f"discarded {cards_text(obs[OBS_DISCARDED:OBS_DISCARDED + N_CODES], CODE_NAMES)}")
