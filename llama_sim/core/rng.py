"""Counter-based seeding and a small jitted generator (xoroshiro128++).

Why our own generator: every random draw, in the kernels and in the plain-Python reference
engines alike, goes through these functions on an explicit ``uint64[2]`` state array, so the two
engines consume identical streams and a result depends only on ``(seed, block index, stream)``,
never on threads, chunking or backend.

Streams: each deal block gets independent states derived from ``(seed, block, stream)`` by
SplitMix64 hashing: ``DEAL_STREAM`` shuffles the cards, ``POLICY_STREAM`` feeds the policies'
randomness, ``DICE_STREAM`` rolls dice.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import compiling  # noqa: F401  (before any function here is compiled)

DEAL_STREAM = 0
POLICY_STREAM = 1
DICE_STREAM = 2

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_ONE_WAY_KEY = np.uint64(0xD1B54A32D192ED03)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U47 = np.uint64(47)
_U49 = np.uint64(49)
_U15 = np.uint64(15)
_U21 = np.uint64(21)
_U28 = np.uint64(28)
_U36 = np.uint64(36)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, nogil=True)
def splitmix64(x):
    """One SplitMix64 step: a strong 64-bit mixer used only for seeding."""
    z = np.uint64(x) + _GOLDEN
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=True, nogil=True)
def _one_way(x):
    """x -> sm(x) ^ sm(x ^ K): two-to-one, with no known inverse short of searching 2**64 values.

    SplitMix64 alone is a bijection: a policy could run it backwards from its own generator state
    to the block's key and from there forward to the deal stream, i.e. read the deck order."""
    return splitmix64(x) ^ splitmix64(x ^ _ONE_WAY_KEY)


@njit(cache=True, nogil=True)
def seed_state(state, seed, block, stream):
    """Fill ``state`` (uint64[2]) for (seed, block, stream); never the all-zero state.

    Each stream's state comes out of a one-way step, so no stream (the policies' in particular)
    reveals the key that the others (the deal, the dice) are derived from."""
    seed_from_key(state, block_key(seed, block), stream)


@njit(cache=True, nogil=True)
def block_key(seed, block):
    """The key all streams of ``block`` derive from: ``seed_state``'s first two steps, which a kernel
    takes once per block instead of once per stream and seating (the same states)."""
    return splitmix64(splitmix64(np.uint64(seed)) ^ np.uint64(block))


@njit(cache=True, nogil=True)
def seed_from_key(state, key, stream):
    """``seed_state`` from the block's ``block_key``."""
    h = _one_way(key + np.uint64(stream) * _GOLDEN)
    state[0] = splitmix64(h)
    state[1] = splitmix64(state[0] ^ h)
    if state[0] == 0 and state[1] == 0:
        state[1] = _GOLDEN


@njit(cache=True, nogil=True)
def next_u64(state):
    """xoroshiro128++ (Blackman & Vigna): fast, 2**128 - 1 period, passes BigCrush."""
    s0 = state[0]
    s1 = state[1]
    x = s0 + s1
    result = ((x << _U17) | (x >> _U47)) + s0
    s1 ^= s0
    state[0] = ((s0 << _U49) | (s0 >> _U15)) ^ s1 ^ (s1 << _U21)
    state[1] = (s1 << _U28) | (s1 >> _U36)
    return result


@njit(cache=True, nogil=True)
def fork_state(parent, child):
    """Fill ``child`` (uint64[2]) with a fresh state drawn from ``parent``: always exactly two draws of
    ``parent``, each through a one-way step, never the all-zero state. What is then done with
    ``child`` (any number of draws, any writes) leaves ``parent`` where it was: a user's policy gets
    such a copy of its table's policy stream (``registry.own_rng_policy``)."""
    child[0] = _one_way(next_u64(parent))
    child[1] = _one_way(next_u64(parent))
    if child[0] == 0 and child[1] == 0:
        child[1] = _GOLDEN


@njit(cache=True, nogil=True)
def uniform(state):
    """A double in [0, 1) from the top 53 bits."""
    return float(next_u64(state) >> _U11) * _INV53


next_u64_inline = njit(nogil=True, inline="always")(next_u64.py_func)  # the step put into its caller
_U53 = np.uint64(53)
MAX_EXACT = 1 << 11  # up to here (x >> 11) * n fits 64 bits


@njit(cache=True, nogil=True, inline="always")
def randint_small(state, n):
    """``randint`` for an ``n`` known to be at most ``MAX_EXACT`` (unchecked): the kernels' deals, where
    the check would be a branch at every card."""
    return np.int64(((next_u64_inline(state) >> _U11) * np.uint64(n)) >> _U53)


@njit(cache=True, nogil=True, inline="always")
def randint(state, n):
    """An integer in [0, n): floor((top 53 bits of the next output) * n / 2**53), in integers (exact) for
    n <= 2**11; above, through a double (bias at most n / 2**53, far below any Monte Carlo error)."""
    if n <= MAX_EXACT:
        return randint_small(state, n)
    return np.int64(uniform(state) * n)


_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)


@njit(cache=True, nogil=True)
def below(state, n):
    """An integer in [0, n) for 0 < n < 2**32, exactly uniform, from integer arithmetic only
    (Lemire's multiply-shift with rejection; the modulo is computed only in the rare near-reject
    case); the lazily dealt shedding decks use it."""
    un = np.uint64(n)
    m = (next_u64(state) >> _U32) * un
    low = m & _LOW32
    if low < un:
        t = (np.uint64(4294967296) - un) % un
        while low < t:
            m = (next_u64(state) >> _U32) * un
            low = m & _LOW32
    return np.int64(m >> _U32)


@njit(cache=True, nogil=True)
def shuffle(arr, state):
    """Fisher-Yates in place, exactly len(arr) - 1 draws (so deals use a fixed amount of stream)."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randint(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


def new_state(seed: int, block: int = 0, stream: int = 0) -> np.ndarray:
    """A fresh generator state for Python callers (reference engines, tests, the advisor)."""
    state = np.zeros(2, dtype=np.uint64)
    seed_state(state, np.uint64(seed % 2**64), np.uint64(block % 2**64), np.uint64(stream))
    return state
