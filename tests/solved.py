"""Exact ``solve`` tables that more than one test reads, each computed once per test process."""
from functools import lru_cache

import llama_sim

TWO_LAYOUTS = ("12-34-56", "16-23-45")


@lru_cache(maxsize=None)
def full_table(layout: str):
    """``llama_sim.solve("dice", table=True)`` under ``layout``: every row of up to 6 cards (about 1.5 s).
    Shared: a test reads it and never changes it."""
    return llama_sim.solve("dice", table=True, dice_layout=layout)
