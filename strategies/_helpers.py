"""Small jitted building blocks that many policies use."""
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from llama_sim.core import rng as R


@njit(cache=True, inline="always")
def random_legal(legal, rng):
    """A uniformly random legal action of the bit mask ``legal`` (one draw from ``rng``): the k-th
    legal action in increasing order, k uniform."""
    k = 0
    bits = legal
    while bits:
        bits &= bits - 1
        k += 1
    pick = R.randint(rng, k)
    bits = legal
    for _ in range(pick):
        bits &= bits - 1
    return lowest_bit(bits)


@njit(cache=True, inline="always")
def lowest_bit(bits):
    """The index of the lowest set bit of ``bits``; -1 when none is set."""
    if bits == 0:
        return -1
    return np.int64(trailing_zeros(bits))


@njit(cache=True, inline="always")
def first_legal(legal):
    """The legal action with the smallest index; -1 if none."""
    return lowest_bit(legal)


@njit(cache=True, inline="always")
def climbs(at_top, one_up, two_up_count, far_up_count, same, two_up, far_up):
    """The ``climber`` rule of L.A.M.A. and Party: play the next value up rather than the top's value
    when n(+1) + two_up * n(+2) + far_up * (n(+3) + n(+4)) > same * n(0), with n(+k) the cards held k
    values above the top on the cycle 1..6, llama (``far_up_count`` = n(+3) + n(+4))."""
    return one_up + two_up * two_up_count + far_up * far_up_count > same * at_top
