"""A rule ported from another L.A.M.A. program (docs/writing-a-strategy.md): play the highest card that
fits; when none fits, quit if the hand is worth ``quit_at`` points or less (5 in the original), else draw."""
from llama_sim import strategy
from llama_sim.rulesets.lama.kit import DRAW, LLAMA, N_CODES, OBS_TOP, QUIT, hand_points, is_legal


@strategy("lama", "highest", "Plays the highest card that fits; when stuck quits at <= quit_at points, else draws.",
          params={"quit_at": (5, 0, 60, "quit when no card fits and the hand is worth at most this")})
def highest(obs, hand, legal, params, rng):
    top = obs[OBS_TOP]
    up = (top + 1) % N_CODES
    high, low = (top, up) if top == LLAMA else (up, top)  # on a llama the 1 fits, but the llama is higher
    for card in (high, low):
        if is_legal(legal, card):
            return card
    if is_legal(legal, DRAW) and hand_points(hand) > params[0]:
        return DRAW
    return QUIT
