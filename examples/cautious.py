"""A strategy file for ``--strategies-file`` (docs/writing-a-strategy.md): greedy's plays, and when
no card fits it quits if its hand is worth at most ``limit`` points."""
from llama_sim import strategy
from llama_sim.rulesets.lama.kit import DRAW, N_CODES, OBS_TOP, QUIT, hand_points


@strategy("lama", "cautious", "Plays equal, then one higher; when stuck quits at <= limit points, else draws.",
          params={"limit": (4, 0, 60, "quit when stuck and the hand is worth at most this")})
def cautious(obs, hand, legal, params, rng):
    top = obs[OBS_TOP]
    for card in (top, (top + 1) % N_CODES):
        if (legal >> card) & 1:
            return card
    if (legal >> DRAW) & 1 and hand_points(hand) > params[0]:
        return DRAW
    return QUIT
