"""A mistake on purpose (docs/writing-a-strategy.md): a strategy named like a built-in one."""
from llama_sim import strategy


@strategy("lama", "greedy", "My own greedy.")
def my_greedy(obs, hand, legal, params, rng):
    return 7
