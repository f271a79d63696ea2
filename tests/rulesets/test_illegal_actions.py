"""An illegal action ends the run with exit status 2 and one line naming the
strategy, the seat and the action; kernels and reference engines check against their own record of
what is legal and report by the same convention (``llama_sim.core.errors``)."""
import re

import numpy as np
import pytest

from llama_sim.core import registry
from llama_sim.core.errors import ILLEGAL_ACTION, UsageError, illegal_action_error
from llama_sim.core.ruleset import get_game
from llama_sim.rulesets import lama, party
from llama_sim.run.backends import run
from llama_sim.run.chunks import raise_illegal_action, run_chunk
from llama_sim.run.designs import seat_plan
from cli_helpers import call

MODULES = {"lama": lama, "party": party}

# A user's strategies file with two cheats per rule set: one plays the first code it does not hold
# (there always is one: 6 cards, at least 7 codes), one draws exactly when drawing is illegal.
CHEATS = """
from llama_sim.core.registry import strategy
from llama_sim.rulesets import {game} as G

@strategy('{game}', 'phantom_card', 'plays a card it does not hold')
def phantom_card(obs, hand, legal, params, rng):
    for c in range(G.N_CODES):
        if hand[c] == 0:
            return c
    return G.QUIT

@strategy('{game}', 'forced_draw', 'draws when drawing is illegal, quits otherwise')
def forced_draw(obs, hand, legal, params, rng):
    return G.DRAW if (legal >> G.DRAW) & 1 == 0 else G.QUIT
"""


@pytest.fixture(scope="module", params=["lama", "party"])
def cheats(request, tmp_path_factory):
    game = request.param
    path = tmp_path_factory.mktemp(game) / f"cheats_{game}.py"
    path.write_text(CHEATS.format(game=game))
    registry.load_file(path)
    return game, path


# Seat 0 quits at once, so the cheat at seat 1 makes the round's second decision alone in the round
# (drawing is then illegal) and with the hand it was dealt.
@pytest.mark.parametrize("cheat,action", [("phantom_card", r"play \S+"), ("forced_draw", "draw")])
def test_cli_illegal_action_is_one_line_exit_2(capsys, cheats, cheat, action):
    game, path = cheats
    code, out, err = call(capsys, "simulate", "-g", game, "-s", "always_quit", "-s", cheat, "--rounds", "50",
                          "--strategies-file", str(path), "-q", "--threads", "2")
    assert code == 2 and out == ""
    assert re.fullmatch(rf"llamasim: error: strategy '{cheat}' \(seat 1\) chose an illegal action: {action}, "
                        rf"having seen seat 1 of 2, turn 1: hand [^;]+; top \S+; pile \d+; hand sizes \d+,\d+; "
                        rf"quit: seat 0; scores 0,0; discards [^;]+; legal: [^;]*quit\n", err), err


def test_the_named_card_is_one_the_cheat_does_not_hold(cheats):
    """The kernel's message names the action index the policy returned: the first absent code."""
    game, _ = cheats
    players = [registry.parse_spec(game, s) for s in ("always_quit", "phantom_card")]
    plan = seat_plan(get_game(game), players, False, np.zeros(1, np.int64))
    with pytest.raises(UsageError) as info:
        run(plan, 5, 0, 3, threads=1)
    name = str(info.value).split(", having seen ")[0].rsplit("play ", 1)[1]
    code = MODULES[game].CODE_NAMES.index(name)
    assert MODULES[game].ACTION_NAMES[code] == f"play {name}"


@pytest.mark.parametrize("cheat", ["phantom_card", "forced_draw"])
def test_reference_engine_raises_the_same(cheats, cheat):
    """Same plan, same deals: the reference engine's error maps to the kernel's one line."""
    game, _ = cheats
    spec = get_game(game)
    players = [registry.parse_spec(game, s) for s in ("always_quit", "always_quit", cheat)]
    plan = seat_plan(spec, players, False, np.zeros(1, np.int64))
    with pytest.raises(UsageError) as kernel:
        run_chunk(plan, 9, 0, 4)
    entries = [(p.strategy.policy, p.params) for p in players]
    s1 = np.zeros(3 * 3, np.int64)
    s2 = np.zeros((9, 9), np.int64)
    with pytest.raises(ValueError) as ref:
        spec.reference_blocks(9, 0, 4, 3, plan.entry_of_seat, plan.unit_of_seat, 3, False, entries, plan.cfg, s1, s2)
    assert ref.value.args[:3] == (ILLEGAL_ACTION, 2, 2)
    with pytest.raises(UsageError) as mapped:
        raise_illegal_action(ref.value, plan, (9, 0, 4))
    assert str(mapped.value) == str(kernel.value) and ", having seen seat 2 of 3" in str(kernel.value)


def test_reference_round_reports_the_seat_as_its_entry():
    """``Round`` knows only its seats' players: entry = seat, as the convention says."""
    quitter = registry.parse_spec("lama", "always_quit")

    def out_of_range(obs, hand, legal, params, rng):  # a plain Python policy: action 99 does not exist
        return 99

    hands, pile, discard = lama.deal(lama.DECK.copy(), 2)
    players = [(quitter.strategy.policy, quitter.params), (out_of_range, quitter.params)]
    with pytest.raises(ValueError) as info:
        lama.Round(hands, pile, discard, players, [0, 0]).play()
    assert info.value.args == (ILLEGAL_ACTION, 1, 1, 99)


def test_message_for_unknown_indices_stays_readable():
    err = illegal_action_error(ValueError(ILLEGAL_ACTION, 7, 3, 42), ["a"], ("play 1",))
    assert str(err) == "strategy 'entry 7' (seat 3) chose an illegal action: action 42"
    assert illegal_action_error(ValueError("something else"), ["a"], ()) is None
