"""Lazy (forward) dealing for the Kadabra and dice kernels.

A *forward* Fisher-Yates shuffle fixes position 0 first, then 1, ... (``deal_shuffle``). Its first k
positions depend on its first k draws only, so a kernel can deal lazily (``draw_at``: fix a position
when its card is needed) and get exactly the cards a reference engine gets by shuffling the whole deck
first (``shuffle_forward``) with the same generator state; ``rng.shuffle`` (backward) would shuffle a
whole deck before a round although a round deals only the cards it uses. Draws are ``rng.randint``'s
(``randint_small``: decks are small).

These functions allocate nothing and are compiled without Numba's reference counting (``NO_NRT``):
a call to a separately compiled function that takes arrays otherwise costs atomic reference-count
updates.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import compiling  # noqa: F401  (before any function here is compiled)
from llama_sim.core import rng as R

# ``_nrt`` is a Numba CPU-target option (numba.core.cpu); should a Numba release drop it, these
# functions compile with reference counting: slower, identical results.
try:
    from numba.core.cpu import CPUTargetOptions as _CPUTargetOptions

    NO_NRT = {"_nrt": False} if hasattr(_CPUTargetOptions, "_nrt") else {}
except ImportError:  # pragma: no cover - numba internals moved
    NO_NRT = {}

# A function only compiled code calls (a round, put into its callers by LLVM) needs neither of the entry
# points Numba adds for Python and C callers: each is another function as long as the argument list,
# built and optimised at every first compile. Called from Python, such a function crashes the
# interpreter: only jitted code may call one.
COMPILED_CALLERS_ONLY = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}

@njit(cache=True, nogil=True, inline="always")
def draw_at(deck, pos, state):
    """Fix position ``pos`` of a forward Fisher-Yates shuffle and return its card: a uniform choice
    among ``deck[pos:]`` swapped into ``pos`` (one draw)."""
    j = pos + R.randint_small(state, deck.shape[0] - pos)  # (a deck holds at most MAX_EXACT cards)
    card = deck[j]
    deck[j] = deck[pos]
    deck[pos] = card
    return card


@njit(cache=True, nogil=True, **NO_NRT)
def deal_shuffle(deck, k, state):
    """Forward Fisher-Yates on the first k positions: ``deck[:k]`` becomes a uniform random ordered
    k-sample of the deck (k draws)."""
    for i in range(k):
        draw_at(deck, i, state)


@njit(cache=True, nogil=True, **NO_NRT)
def shuffle_forward(deck, state):
    """A whole forward Fisher-Yates shuffle (len - 1 draws): the order lazy dealing produces."""
    deal_shuffle(deck, deck.shape[0] - 1, state)


@njit(cache=True, nogil=True, **NO_NRT)
def next_stream(state, out):
    """A fresh generator state in ``out`` from the next output of ``state`` (SplitMix64 seeding):
    the deal of each round of a game, so the deal stream moves one step per round however many
    cards the round used."""
    x = R.next_u64_inline(state)
    out[0] = R.splitmix64(x)
    out[1] = R.splitmix64(out[0] ^ x)
    if out[0] == 0 and out[1] == 0:
        out[1] = np.uint64(0x9E3779B97F4A7C15)

