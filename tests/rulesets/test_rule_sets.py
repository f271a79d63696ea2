"""Every rule set passes ``llama_sim.testing``'s battery: the built-in ones, found by package, and the
example package ``examples/toy-rule-set``, found through its entry point once installed (``toy_package``).
The example plays through the command line too, with no edit outside its package."""
import subprocess
import sys

import pytest

import toy_package
from cli_helpers import call
from llama_sim import testing
from llama_sim.core.ruleset import RULE_SETS, get_game

NAMES = [*RULE_SETS, toy_package.NAME]


@pytest.fixture(scope="module", autouse=True)
def toy_installed(tmp_path_factory):
    with toy_package.installed(tmp_path_factory.mktemp("site")):
        yield


# The built-in rule sets' kernels are checked against their reference engines at length in their own
# tests (fixed decks, every variant, hypothesis); here one drawn example each keeps the battery's path tested.
BUILT_IN_SIZES = {testing.kernel_plays_what_the_reference_plays: {"examples": 1}}


@pytest.mark.parametrize("check", testing.CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("game", NAMES)
def test_the_rule_set_passes_the_battery(game, check):
    check(get_game(game), **(BUILT_IN_SIZES.get(check, {}) if game != toy_package.NAME else {}))


def test_the_installed_example_is_listed_after_the_built_in_rule_sets():
    assert list(RULE_SETS) == NAMES
    assert RULE_SETS[toy_package.NAME] == "toy_ruleset"


def test_the_installed_example_plays_on_the_command_line(capsys):
    code, out, _ = call(capsys, "games")
    assert code == 0 and "toy" in out.split()
    code, out, err = call(capsys, "compare", "--game", "toy", "greedy", "cautious", "--rounds", "2000", "--seed", "1")
    assert code == 0 and "greedy" in out and "cautious" in out, err
    code, out, err = call(capsys, "advise", "--game", "toy", *testing.example_position_argv(get_game("toy")),
                          "--rollouts", "100", "--seed", "1", "--quiet")
    assert code == 0 and "quit" in out, err
    code, out, err = call(capsys, "bench", "--game", "toy", "--rounds", "2000", "--reference-rounds", "20")
    assert code == 0 and "toy" in out, err


def test_a_new_process_finds_the_installed_example():
    """Discovery needs nothing but the installed package: a fresh interpreter lists it."""
    out = subprocess.run([sys.executable, "-c", "from llama_sim.core.ruleset import RULE_SETS; print(*RULE_SETS)"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == NAMES


@pytest.mark.parametrize("game", NAMES)
def test_advise_on_the_command_line_exits_2_on_a_bad_position(game, capsys):
    """The rule set's example position typed as options, with one more score than players: one line,
    exit status 2 (the options themselves come from the rule set's advisor)."""
    argv = ["advise", "--game", game, "--rollouts", "10", "--quiet", *testing.example_position_argv(get_game(game))]
    code, _, err = call(capsys, *argv, "--scores", "1,2,3,4,5,6,7,8")
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llamasim: error:")
