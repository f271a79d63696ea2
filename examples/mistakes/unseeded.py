"""A mistake on purpose (docs/writing-a-strategy.md): NumPy's own random numbers, which --seed does not reach."""
import numpy as np
from llama_sim import strategy


@strategy("lama", "unseeded", "Draws or quits at random, unseeded.")
def unseeded(obs, hand, legal, params, rng):
    if np.random.random() < 0.5 and (legal >> 7) & 1:
        return 7
    return 8
