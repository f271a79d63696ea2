"""Watching a strategy play (``llamasim trace``), checking a strategies file (``llamasim check``), and the
position an illegal action's one line names."""
import json

import numpy as np
import pytest

import llama_sim
from llama_sim.core import registry
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import get_game
from llama_sim.rulesets.dice import reference as dice_reference
from llama_sim.rulesets.kadabra import reference as kadabra_reference
from llama_sim.rulesets.shedding import reference as shedding_reference
from llama_sim.run.chunks import run_chunk
from llama_sim.run.designs import seat_plan
from cli_helpers import call

GAMES = ("lama", "party", "kadabra", "dice")
EXAMPLES = ["examples/cautious.py", "examples/highest.py"]


def line_up(game, n=3):
    names = [s for s in registry.builtin_strategies(game) if s not in ("always_quit", "random")]
    return [names[i % len(names)] for i in range(n)]


@pytest.mark.parametrize("game", GAMES)
def test_a_traced_round_is_the_kernels_and_the_reference_engines_round(game, monkeypatch):
    """Same actions as the reference engine's own record of the round, same scores as the kernel's."""
    played = []
    for module in (shedding_reference, kadabra_reference, dice_reference):
        original = module.Round.play

        def play(self, original=original):
            result = original(self)
            played.append([(int(a[0]), int(a[1])) for a in result.actions])
            return result
        monkeypatch.setattr(module.Round, "play", play)
    seats = line_up(game)
    t = llama_sim.trace(game, seats, seed=7, round=5)
    assert [(r.seat, r.action) for r in t.decisions.itertuples()] == played[-1]
    rule_set = get_game(game)
    plan = seat_plan(rule_set, [registry.parse_spec(game, s) for s in seats], False, rule_set.config())
    s1, _ = run_chunk(plan, 7, 5, 1)
    n = len(seats)
    assert list(t.outcome.penalty) == list(s1[:n]) and list(t.outcome.went_out) == list(s1[n:2 * n])
    assert list(t.outcome.quit) == list(s1[2 * n:3 * n])
    assert all(r.chose in r.legal.split(", ") for r in t.decisions.itertuples())


def test_a_traced_game_ends_with_the_kernels_final_scores():
    seats = line_up("lama", 2)
    t = llama_sim.trace("lama", seats, games=True, round=1, seed=3)
    rule_set = get_game("lama")
    plan = seat_plan(rule_set, [registry.parse_spec("lama", s) for s in seats], True, rule_set.config())
    s1, _ = run_chunk(plan, 3, 1, 1)
    assert list(t.outcome.final_score) == list(s1[5 * 2:6 * 2]) and t.decisions["round"].nunique() > 1


def test_trace_values_every_choice_and_what_it_lost(capsys):
    code, out, err = call(capsys, "trace", "--game", "lama", "-s", "greedy", "-s", "smart", "--values",
                          "--rollouts", "4", "--format", "json")
    records = json.loads(out)
    assert code == 0 and records and {"saw", "legal", "chose", "values", "points_lost"} <= set(records[0])
    assert all(r["points_lost"] >= 0 for r in records)
    code, out, _ = call(capsys, "trace", "--game", "lama", "-s", "greedy", "-s", "smart", "--seed", "2")
    assert code == 0 and "hand " in out and "legal: " in out and " -> " in out and "outcome:" in out


CHEAT = """from llama_sim import strategy
from llama_sim.rulesets.{game}.kit import OBS_TURN, is_legal, pick_legal


@strategy("{game}", "cheat_{game}", "fair until turn 12, then an illegal action")
def cheat_{game}(obs, hand, legal, params, rng):
    if obs[OBS_TURN] < 12:
        return pick_legal(legal, rng)
    a = 0
    while is_legal(legal, a):
        a += 1
    return a
"""
SEEN = {"lama": ["hand ", "top ", "pile ", "hand sizes ", "scores "], "party": ["hand ", "top ", "pile "],
        "kadabra": ["hand ", "top ", "ones ", "magic token"], "dice": ["row ", "llama row ", "other rows "]}


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_names_the_whole_position(game, tmp_path):
    path = tmp_path / f"cheat_{game}.py"
    path.write_text(CHEAT.format(game=game))
    for run in (lambda k: llama_sim.simulate(game, [f"cheat_{game}"] + line_up(game, 2), rounds=3000, quiet=True,
                                             strategies_file=path),
                lambda k: llama_sim.trace(game, [f"cheat_{game}"] + line_up(game, 2), round=k, strategies_file=path)):
        with pytest.raises(UsageError) as err:
            for k in range(40):  # (trace: one round at a time, until the cheat's round)
                run(k)
        text = str(err.value)
        assert "\n" not in text and f"strategy 'cheat_{game}' (seat 0) chose an illegal action: " in text, text
        assert "having seen seat 0 of 3, turn " in text and "; legal: " in text, text
        assert all(word in text for word in SEEN[game]), text


def test_check_passes_the_examples(capsys):
    code, out, err = call(capsys, "check", *EXAMPLES, "--rounds", "100", "--games", "5", "--decisions", "2")
    assert code == 0 and err == "" and out.rstrip().endswith("all well"), out + err
    assert out.count("compiles: yes") == 2 and "deterministic under --seed: yes" in out and "x greedy's" in out
    code, out, _ = call(capsys, "check", EXAMPLES[1], "--rounds", "100", "--games", "5", "--format", "json")
    assert code == 0 and json.loads(out)[0]["legal"] is True


HEAD = "from llama_sim import strategy\nfrom llama_sim.rulesets.lama.kit import DRAW, QUIT, is_legal\n"
DEFECTS = {  # file stem: (source, words of the one line)
    "np_random": (HEAD + "import numpy as np\n@strategy('lama', 'chk_np', 't')\n"
                  "def chk_np(obs, hand, legal, params, rng):\n    return np.random.randint(0, 2) * QUIT\n",
                  "do not follow --seed"),
    "float": (HEAD + "@strategy('lama', 'chk_float', 't')\ndef chk_float(obs, hand, legal, params, rng):\n"
              "    return 7.9\n", "returns a float"),
    "twice": (HEAD + "@strategy('lama', 'chk_twice', 't')\ndef a(obs, hand, legal, params, rng):\n    return QUIT\n"
              "@strategy('lama', 'chk_twice', 't')\ndef b(obs, hand, legal, params, rng):\n    return QUIT\n",
              "is defined twice"),
    "illegal": (HEAD + "@strategy('lama', 'chk_illegal', 't')\ndef chk_illegal(obs, hand, legal, params, rng):\n"
                "    return DRAW\n", "having seen seat "),
    "no_compile": (HEAD + "@strategy('lama', 'chk_compile', 't')\ndef chk_compile(obs, hand, legal, params, rng):\n"
                   "    return undefined_name\n", "does not compile"),
}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_check_fails_a_file_with_a_defect_in_one_line(capsys, tmp_path, defect):
    source, words = DEFECTS[defect]
    path = tmp_path / f"{defect}.py"
    path.write_text(source)
    code, out, err = call(capsys, "check", str(path), "--rounds", "100", "--games", "2", "--decisions", "0")
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert "problem" in out, out
