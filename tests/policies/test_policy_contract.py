"""The policy contract: what the engine hands a policy is read-only to it, and a policy (or a strategies
file) written for another contract is refused in one line naming the change."""
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from llama_sim.core import registry
from llama_sim.core.errors import UsageError
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


OLD_STYLE = '''from llama_sim.core.registry import strategy

@strategy("lama", "old_style", "Quits.")
def old_style(obs, legal, params, rng):
    return 8
'''


def test_a_strategies_file_for_the_old_contract_is_refused_with_one_line_naming_the_change(tmp_path):
    path = tmp_path / "old_strats.py"
    path.write_text(OLD_STYLE)
    res = subprocess.run([sys.executable, "-m", "llama_sim", "simulate", "-g", "lama", "-s", "old_style",
                          "-s", "greedy", "--rounds", "10", "--strategies-file", str(path)],
                         capture_output=True, text=True)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "old_style" in lines[0] and str(path) in lines[0]
    assert "policy(obs, hand, legal, params, rng)" in lines[0] and "bit mask" in lines[0]


@pytest.mark.parametrize("arguments", ["obs", "obs, hand, legal, params, rng, extra"])
def test_a_policy_with_another_number_of_arguments_is_refused(arguments):
    namespace = {}
    exec(f"def p({arguments}):\n    return 0\n", namespace)
    with pytest.raises(UsageError, match="arguments, not the contract's obs, hand, legal, params, rng"):
        registry.strategy("lama", "wrong_arity", "x")(namespace["p"])
