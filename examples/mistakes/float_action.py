"""A mistake on purpose (docs/writing-a-strategy.md): an action that is not an integer."""
from llama_sim import strategy
from llama_sim.rulesets.lama.kit import QUIT


@strategy("lama", "float_action", "Quits, as a float.")
def float_action(obs, hand, legal, params, rng):
    return QUIT * 1.0
