"""A mistake on purpose (docs/writing-a-strategy.md): drawing without looking whether drawing is legal."""
from llama_sim import strategy
from llama_sim.rulesets.lama.kit import DRAW


@strategy("lama", "always_draw", "Always draws, legal or not.")
def always_draw(obs, hand, legal, params, rng):
    return DRAW
