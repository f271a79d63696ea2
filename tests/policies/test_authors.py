"""A strategy author's path: the stable imports (and the previous release's), several strategies files,
a name defined twice, random numbers outside the policy's rng, and compile failures in the author's words."""
import importlib
import warnings

import pytest

from llama_sim.core import registry
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import game_names
from cli_helpers import call

POLICY = "def {name}(obs, hand, legal, params, rng):\n"
NEW_HEAD = "from llama_sim import strategy\nfrom llama_sim.rulesets.lama.kit import DRAW, QUIT, is_legal\n"


def write(tmp_path, stem, text):
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    return path


def one_policy(name, *body, head=NEW_HEAD):
    return head + f"@strategy('lama', '{name}', 'test')\n" + POLICY.format(name=name) + "".join(
        f"    {line}\n" for line in body)


def one_line(code, err):
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    return err.removeprefix("llamasim: error: ").rstrip("\n")


# ---------------------------------------------------------------------------------- stable imports

def test_the_documented_imports_are_importable():
    from llama_sim import strategy
    from llama_sim.core.kit import observation_rows

    assert strategy is registry.strategy
    for game in game_names():
        kit = importlib.import_module(f"llama_sim.rulesets.{game}.kit")
        for name in ("QUIT", "N_CODES", "N_ACTIONS", "ACTION_NAMES", "OBS_LEN", "hand_points", "is_legal",
                     "count_legal", "pick_legal", "uniform", "randint", "below"):
            assert hasattr(kit, name), (game, name)
        rows = observation_rows(kit.OBSERVATION, kit, kit.OBS_LEN)
        assert rows[0]["index"] == "0" and rows[-1]["index"].endswith(str(kit.OBS_LEN - 1)), (game, rows[-1])
        assert all(getattr(kit, f.name) >= 0 for f in kit.OBSERVATION)


def test_a_file_written_for_the_previous_release_loads_with_a_notice(tmp_path):
    """``llama_sim.registry`` and ``llama_sim.games.<game>`` were ModuleNotFoundError after the re-layout."""
    src = write(tmp_path, "previous_release", (
        "from llama_sim.registry import strategy\n"
        "from llama_sim.games.lama import DRAW, QUIT\n"
        "from llama_sim.games.common import distinct_penalty\n"
        "from llama_sim.core.engine import largest_token\n"
        "import llama_sim.rng as R\n"
        "@strategy('lama', 'previous_release', 'as written for the previous release')\n"
        + POLICY.format(name="previous_release") + "    return QUIT\n"))
    for old in ("llama_sim.registry", "llama_sim.games.lama", "llama_sim.games.common", "llama_sim.core.engine",
                "llama_sim.rng"):
        import sys
        sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        registry.load_file(src)
    notices = [str(w.message) for w in seen if issubclass(w.category, FutureWarning)]
    assert any(n.startswith("llama_sim.registry moved to llama_sim.core.registry;") for n in notices), notices
    assert any(n.startswith("llama_sim.games.lama moved to llama_sim.rulesets.lama;") for n in notices), notices
    assert any(n.startswith("llama_sim.core.engine moved to llama_sim.core.scoring;") for n in notices), notices
    assert all("\n" not in n and "from llama_sim import strategy" in n for n in notices)
    assert all(w.filename == str(src.resolve()) for w in seen if issubclass(w.category, FutureWarning))
    assert registry.get("lama", "previous_release").user
    import llama_sim.games.kadabra.tables as old_tables
    import llama_sim.rulesets.kadabra.tables as tables
    assert old_tables is tables and tables.__spec__.name == "llama_sim.rulesets.kadabra.tables"


# ------------------------------------------------------------------------------ several files

def test_several_strategies_files_all_load(capsys, tmp_path):
    """Only the last --strategies-file loaded: the first file's names were 'unknown strategy'."""
    a = write(tmp_path, "first_file", one_policy("from_first", "return QUIT"))
    b = write(tmp_path, "second_file", one_policy("from_second", "return QUIT"))
    code, out, err = call(capsys, "strategies", "-g", "lama", "--strategies-file", str(a), "--strategies-file", str(b))
    assert code == 0, err
    assert "from_first" in out and "from_second" in out
    spec = tmp_path / "spec.toml"
    spec.write_text('question = "q"\ngame = "lama"\nstrategies_file = ["first_file.py", "second_file.py"]\n'
                    '[[steps]]\nkind = "compare"\nstrategies = ["from_first", "from_second"]\nrounds = 100\n')
    from llama_sim.present.experiment import load_spec

    assert [p.name for p in load_spec(spec).strategies_file] == ["first_file.py", "second_file.py"]


@pytest.mark.parametrize("where", ["one file", "two files", "a built-in"])
def test_a_name_defined_twice_is_one_line_naming_both_places(capsys, tmp_path, where):
    name = "greedy" if where == "a built-in" else f"twice_{where.replace(' ', '_')}"  # (one per case: a file
    # loaded by an earlier command stays loaded)
    first = one_policy(name, "return QUIT")
    if where == "one file":
        files = [write(tmp_path, "twice", first + "\n\n" + one_policy(name, "return DRAW", head=""))]
        expected = "twice.py, line 3 and twice.py, line 8"
    elif where == "two files":
        files = [write(tmp_path, "twice_a", first), write(tmp_path, "twice_b", first)]
        expected = "twice_a.py, line 3 and twice_b.py, line 3"
    else:
        files = [write(tmp_path, "twice_greedy", first)]
        expected = "(built in) and twice_greedy.py, line 3"
    args = [arg for f in files for arg in ("--strategies-file", str(f))]
    text = one_line(*call(capsys, "strategies", "-g", "lama", *args)[::2])
    assert f"lama strategy '{name}' is defined twice: " in text and expected in text, text


# ------------------------------------------------------------------------------ reproducible

@pytest.mark.parametrize("head,body,line", [
    ("import numpy as np\n", "return np.random.randint(0, 2) * QUIT", 6),
    ("from numpy import random\n", "return QUIT", 3),
    ("import random\n", "return QUIT", 3),
    ("import numpy.random\n", "return QUIT", 3),
])
def test_random_numbers_outside_the_policys_rng_are_refused_at_load(tmp_path, head, body, line):
    """np.random compiled and broke --seed: two runs with one seed differed."""
    src = write(tmp_path, "unseeded", one_policy("unseeded", body, head=NEW_HEAD + head))
    with pytest.raises(UsageError) as err:
        registry.load_file(src)
    text = str(err.value)
    assert "\n" not in text and f"line {line} uses " in text and "do not follow --seed" in text, text
    assert "rng helpers" in text and "llama_sim.rulesets.<game>.kit" in text, text


# ------------------------------------------------------------------------------ author's words

HELPER = "from numba import njit\n@njit\ndef helper(a, b):\n    return a + b\n"
CASES = {  # name: (extra head, body, the words, the line)
    "float_action": ("", ["return 7.9"], "returns a float (x.py, line 5), not an action", 5),
    "no_return": ("", ["for a in range(9):", "    if is_legal(legal, a):", "        return a"],
                  "a path through the policy ends without returning an action (x.py, line 5)", 5),
    "max_key": ("", ["xs = [1, 2, 3]", "return max(xs, key=lambda x: -x)"],
                "max(..., key=...) is not supported in compiled code (x.py, line 6)", 6),
    "wrong_count": (HELPER, ["return helper(1)"],
                    "helper(a, b) is called with the wrong arguments: missing a required argument: 'b' (x.py, line 9)",
                    9),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_compile_failures_are_in_the_authors_words_with_file_and_line(tmp_path, case):
    """7.9 was played as action 7; a path without return was "No conversion from none to int64 for
    '$132return_value.1'"; max(key=) a page of typing errors."""
    head, body, words, _ = CASES[case]
    name = f"words_{case}"
    src = write(tmp_path, "x", one_policy(name, *body, head=NEW_HEAD + head))
    registry.load_file(src)
    with pytest.raises(UsageError) as err:
        registry.get("lama", name).policy
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"lama strategy '{name}' (llamasim_user_x) does not compile: ")
    assert words in text, text


def test_a_policy_with_the_wrong_argument_count_names_its_line(tmp_path):
    src = write(tmp_path, "three_args", NEW_HEAD + "\n@strategy('lama', 'three_args', 'test')\n"
                "def three_args(obs, legal, rng):\n    return QUIT\n")
    with pytest.raises(UsageError, match=r"strategies file .*three_args.py: lama strategy 'three_args' \(line 4\) "
                                         r"takes 3 arguments, not the contract's obs, hand, legal, params, rng$"):
        registry.load_file(src)


# ------------------------------------------------------------------------------ the observation

@pytest.mark.parametrize("game", ["lama", "kadabra", "dice"])
def test_the_observation_is_listed_from_the_kits_declaration(capsys, game):
    import json

    code, out, err = call(capsys, "strategies", "-g", game, "--observation", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    rows = rows if isinstance(rows, list) else next(v for v in rows.values() if isinstance(v, list))
    fields = [r for r in rows if r["part"] == "observation"]
    assert fields[0]["field"] == "OBS_SEAT" and fields[0]["index"] == "0"
    assert any("quit keeps their" in (r["corner case"] or "") for r in fields)
    assert [r["action"] for r in rows if r["part"] == "action"][:2] == [0, 1]
    code, out, _ = call(capsys, "strategies", "-g", game, "--observation")
    assert code == 0 and ("OBS_HAND_SIZES" in out or "OBS_ROWS" in out)
    assert one_line(*call(capsys, "strategies", "--observation")[::2]) == "--observation: give the rule set with --game"
