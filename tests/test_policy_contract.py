"""The policy contract: what the engine hands a policy is read-only to it."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from llama_sim.core.registry import POLICY_SIG


def _cheat_hand(obs, hand, legal, params, rng):
    hand[0] = 1  # give itself a card 0, then play it (``legal`` is a value: nothing to write to)
    return 0


def _cheat_obs(obs, hand, legal, params, rng):
    obs[2] = 6  # rewrite the top card that the next seats observe
    return 0


def _cheat_params(obs, hand, legal, params, rng):
    params[0] = 99.0
    return 0


@pytest.mark.parametrize("policy", [_cheat_hand, _cheat_obs, _cheat_params])
def test_a_policy_that_writes_what_the_engine_hands_it_does_not_compile(policy):
    with pytest.raises(TypingError, match="readonly"):
        njit(POLICY_SIG)(policy)


def test_a_policy_may_still_use_its_own_generator_state():
    def draws(obs, hand, legal, params, rng):
        rng[0] += np.uint64(1)
        return obs[0] + hand[1] + ((legal >> 1) & 1) + np.int64(params[0])

    compiled = njit(POLICY_SIG)(draws)
    rng = np.zeros(2, np.uint64)
    assert compiled(np.array([3, 4]), np.array([0, 0]), np.int64(0b10), np.array([2.0]), rng) == 6
    assert rng[0] == 1
