"""The observation both card games of the shedding engine show a policy (L.A.M.A. and the Party
Edition: the same layout, the discard counts over each one's codes), declared once for their kits."""
from llama_sim.core.kit import Field

OBSERVATION = (
    Field("OBS_SEAT", "acting seat (0..n-1)"),
    Field("OBS_PLAYERS", "number of players n"),
    Field("OBS_TOP", "code of the top discard"),
    Field("OBS_DRAW_PILE", "cards left in the draw pile", "0: drawing is not legal"),
    Field("OBS_ACTIVE", "players still in the round, the acting player included",
          "1: everyone else quit; drawing is then not legal"),
    Field("OBS_TURN", "actions taken so far this round"),
    Field("OBS_HAND_SIZES", "hand size of each seat 0..5",
          "a player who quit keeps their hand size (the cards they will score); 0 for absent seats"),
    Field("OBS_QUIT", "1 if that seat has quit this round", "0 for absent seats"),
    Field("OBS_SCORES", "each seat's score (tokens) at the start of the round",
          "not updated during the round; 0 for absent seats"),
    Field("OBS_DISCARD", "count of each code in the discard pile (public history)",
          "the top card included; the opening card too"),
)


def describer(code_names):
    """The kit's ``describe(obs, hand)`` for a shedding game whose cards are ``code_names``: what the
    acting player saw, in words (``core.kit.position_words``)."""
    from llama_sim.core.kit import cards_text, quit_text, seats_text
    from llama_sim.rulesets.shedding.rules import MAX_SEATS, OBS_HAND_SIZES

    o_quit, o_scores = OBS_HAND_SIZES + MAX_SEATS, OBS_HAND_SIZES + 2 * MAX_SEATS
    o_discard = OBS_HAND_SIZES + 3 * MAX_SEATS

    def describe(obs, hand) -> str:
        n = int(obs[1])
        return (f"seat {int(obs[0])} of {n}, turn {int(obs[5])}: hand {cards_text(hand, code_names)}; "
                f"top {code_names[int(obs[2])]}; pile {int(obs[3])}; hand sizes {seats_text(obs, OBS_HAND_SIZES, n)}"
                f"{quit_text(obs, o_quit, n)}; scores {seats_text(obs, o_scores, n)}; "
                f"discards {cards_text(obs[o_discard:o_discard + len(code_names)], code_names)}")
    return describe
