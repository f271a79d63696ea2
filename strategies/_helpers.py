"""Small jitted building blocks that many policies use."""
from numba import njit

from llama_sim import rng as R


@njit(cache=True, inline="always")
def random_legal(legal, rng):
    """A uniformly random legal action (one draw from ``rng``)."""
    k = 0
    for a in range(legal.shape[0]):
        k += legal[a]
    pick = R.randint(rng, k)
    for a in range(legal.shape[0]):
        if legal[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True, inline="always")
def first_legal(legal):
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return -1


@njit(cache=True, inline="always")
def count_penalty(obs, start, penalty_of_code):
    """Distinct-value penalty of a count vector stored in ``obs[start:start+len(penalty_of_code)]``."""
    total = 0
    for c in range(penalty_of_code.shape[0]):
        if obs[start + c] > 0:
            total += penalty_of_code[c]
    return total


@njit(cache=True, inline="always")
def climbs(at_top, one_up, two_up_count, far_up_count, same, two_up, far_up):
    """The ``climber`` rule of L.A.M.A. and Party: play the next value up rather than the top's value
    when n(+1) + two_up * n(+2) + far_up * (n(+3) + n(+4)) > same * n(0), with n(+k) the cards held k
    values above the top on the cycle 1..6, llama (``far_up_count`` = n(+3) + n(+4))."""
    return one_up + two_up * two_up_count + far_up * far_up_count > same * at_top
