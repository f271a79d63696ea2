"""The policy contract: what a strategies file written for the earlier one, policy(obs, legal, params, rng), is told."""
import subprocess
import sys

import pytest

from llama_sim.core import registry
from llama_sim.core.errors import UsageError

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
