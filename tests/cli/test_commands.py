"""Every command is declared once (``core.commands``): the command line, the Python API and an
experiment spec read each parameter with that declaration, so a wrong value gets the same words
from all three; only the entry point's prefix differs (``llamasim: error:``, the spec file and step
key, the exception). The walk below gives every declared parameter a bad value through each entry
point that takes it."""
import json
import math

import pytest

import llama_sim
from llama_sim.core.commands import COMMANDS, Param
from llama_sim.core.errors import UsageError
from llama_sim.present.experiment import load_spec
from llama_sim.present.steps import STEP_KINDS

from cli_helpers import call

# A valid call of each command, by declared name: the bad parameter is the only wrong one.
VALID = {
    "simulate": {"game": "lama", "seats": ["greedy", "greedy"]},
    "compare": {"game": "lama", "strategies": ["greedy", "smart"]},
    "seat_table": {"game": "lama", "strategies": ["greedy"]},
    "league": {"game": "lama", "strategies": ["greedy", "smart"]},
    "sweep": {"game": "lama", "strategy": "threshold", "param": ["quit_at=1:2:1"]},
    "luck_gain": {"game": "dice", "strategies": ["threshold", "chart"], "rounds": 100},
    "tune": {"game": "lama", "strategy": "threshold", "players": 4},
    "solve": {"game": "dice", "row": "2 5 L"},
    "advise": {"game": "lama", "hand": "2 2 6 L", "top": "4", "hand_sizes": "3,5,1", "pile": 20},
    "chart": {"game": "lama"},
    "grade": {"game": "lama", "strategies": ["greedy"]},
    "variants": {"game": "party", "strategies": ["greedy", "chain"], "variants": {"plain": {"pink_llama": "plain"}}},
    "trace": {"game": "lama", "seats": ["greedy", "greedy"]},
    "check": {"files": ["examples/highest.py"]},
}
API = {"simulate": llama_sim.simulate, "compare": llama_sim.compare, "seat_table": llama_sim.seat_table,
       "league": llama_sim.league, "sweep": llama_sim.sweep, "luck_gain": llama_sim.luck_gain, "tune": llama_sim.tune, "solve": llama_sim.solve,
       "advise": llama_sim.advise, "chart": llama_sim.chart, "grade": llama_sim.grade,
       "variants": llama_sim.compare_variants, "trace": llama_sim.trace, "check": llama_sim.check}
CLI = {"simulate", "compare", "sweep", "tune", "solve", "advise", "chart", "grade", "trace", "check"}  # a command of that name


def bad_value(p: Param):
    """A wrong value of the parameter's own kind: below its range, empty, or not one of its choices."""
    if p.kind == "int":
        return int(p.low) - 1
    if p.kind == "float":
        return p.low / 10
    if p.kind == "counts":
        return 0
    if p.kind == "choice":
        return "nosuch"
    if p.kind == "switch":
        return "maybe"
    if p.kind in ("str", "path"):
        return ""
    if p.kind == "strings":
        return [""]
    if p.kind == "edges":
        return [3, 1]
    if p.kind == "grid":
        return "nosuch"
    return None


def cases():
    for name, command in COMMANDS.items():
        if name not in VALID:
            continue
        for p in command.params:
            if bad_value(p) is not None and p.name != "game":
                yield pytest.param(name, p, id=f"{name}.{p.name}")


def as_text(value) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return [",".join(map(str, value))]
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def cli_args(command_name: str, values: dict) -> list[str]:
    command = COMMANDS[command_name]
    args = [command_name]
    for key, value in values.items():
        p = command.param(key) if key in command.names else None
        if p is None:  # a position option
            args += [f"--{key.replace('_', '-')}", str(value)]
        elif p.cli_flag is None:
            args += as_text(value)
        elif p.kind == "bool":
            args += [p.cli_flag] if value else []
        else:
            for text in as_text(value) if p.repeated else [",".join(map(str, value)) if isinstance(value, list)
                                                            else as_text(value)[0]]:
                args += [p.cli_flag, text]
    return args


def spec_text(command_name: str, values: dict) -> str:
    kind = command_name
    command = COMMANDS[command_name]
    step = {"kind": kind}
    for key, value in values.items():
        if key == "game":
            continue
        p = command.param(key) if key in command.names else None
        step[p.key if p is not None else key] = value
    lines = [f'question = "q"', f'game = "{values["game"]}"', "[[steps]]"]
    lines += [f"{k} = {toml(v)}" for k, v in step.items()]
    return "\n".join(lines) + "\n"


def toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {toml(v)}' for k, v in value.items()) + " }"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan"
    return json.dumps(value)


@pytest.mark.parametrize("command_name,p", list(cases()))
def test_a_bad_value_gets_the_same_words_from_every_entry_point(command_name, p, capsys, tmp_path):
    bad = bad_value(p)
    values = {**VALID[command_name], p.name: bad}
    words = {}
    if p.api:
        with pytest.raises(UsageError) as err:
            API[command_name](**values)
        words["api"] = str(err.value)
    if command_name in CLI and p.cli_flag != "" and p.kind != "bool":
        code, out, err_text = call(capsys, *cli_args(command_name, values))
        assert code == 2 and out == "" and err_text.count("\n") == 1, err_text
        words["cli"] = err_text.removeprefix("llamasim: error: ").rstrip("\n")
    if p.key is not None:
        path = tmp_path / "spec.toml"
        path.write_text(spec_text(command_name, values))
        with pytest.raises(UsageError) as err:
            load_spec(path)
        text = str(err.value)
        prefix = f"{path}: steps[0].{p.key}: "
        assert text.startswith(prefix), text
        words["spec"] = f"{p.name}: " + text.removeprefix(prefix)
    assert len(words) >= 2 or (p.api and len(words) == 1), words
    assert len(set(words.values())) == 1, words
    assert next(iter(words.values())).startswith(f"{p.name}: "), words


def test_every_step_kind_is_a_declared_command():
    assert set(STEP_KINDS) <= set(COMMANDS)


def test_false_as_a_string_is_refused_naming_the_key(tmp_path, capsys):
    """``show = "false"`` was read as true: a boolean is a TOML boolean, in a spec, a position file and the API."""
    with pytest.raises(UsageError, match=r"^show: must be true or false, not 'false'$"):
        llama_sim.advise("kadabra", hand="1 2", top="3", hand_sizes="4", show="false")
    with pytest.raises(UsageError, match=r"^alone: must be true or false, not 'false'$"):
        llama_sim.advise("dice", row="2 5 L", alone="false")
    path = tmp_path / "spec.toml"
    path.write_text('question = "q"\ngame = "dice"\n[[steps]]\nkind = "advise"\nrow = "2 5 L"\nalone = "false"\n')
    with pytest.raises(UsageError, match=r"steps\[0\]\.alone: must be true or false, not 'false'$"):
        load_spec(path)
    position = tmp_path / "position.toml"
    position.write_text('hand = "1 2"\ntop = "3"\nhand_sizes = "4"\npile = 20\nshow = "false"\n')
    with pytest.raises(UsageError, match=r"^show: must be true or false, not 'false'$"):
        llama_sim.advise("kadabra", position_file=position)
    path.write_text('question = "q"\ngame = "dice"\n[[steps]]\nkind = "solve"\nrow = "2 5 L"\ntable = "false"\n')
    with pytest.raises(UsageError, match=r"steps\[0\]\.table: must be true or false, not 'false'$"):
        load_spec(path)
    # an on/off switch takes on, off, true or false, never the string "false"
    path.write_text('question = "q"\ngame = "dice"\n[[steps]]\nkind = "compare"\nstrategies = ["threshold", "chart"]\n'
                    'luck = "false"\n')
    with pytest.raises(UsageError, match=r"steps\[0\]\.luck: must be on or off \(true or false\), not 'false'$"):
        load_spec(path)
    code, out, err = call(capsys, "simulate", "--game", "lama", "-s", "greedy", "-s", "greedy", "--luck", "maybe")
    assert code == 2 and err == "llamasim: error: luck: must be on or off (true or false), not 'maybe'\n"


def test_a_chart_step_refuses_rule_set_options_it_would_ignore(tmp_path):
    """A dice chart with another dice layout gave the default layout's cells while the report named the
    layout: the chart plays the rule set's own rules, so a spec that sets options is refused."""
    path = tmp_path / "spec.toml"
    path.write_text('question = "q"\ngame = "dice"\noptions = { dice_layout = "16-25-34" }\n'
                    '[[steps]]\nkind = "chart"\ngames = 20\n')
    with pytest.raises(UsageError, match="takes no rule-set options"):
        load_spec(path)


def test_repeated_player_counts_are_refused_before_any_play(tmp_path):
    with pytest.raises(UsageError, match=r"^players: lists 2 twice$"):
        llama_sim.league("lama", ["greedy", "smart"], players=[2, 2], rounds=100, quiet=True)
    path = tmp_path / "spec.toml"
    for kind in ("compare", "seat_table", "league"):
        path.write_text(f'question = "q"\ngame = "lama"\n[[steps]]\nkind = "{kind}"\n'
                        f'strategies = ["greedy", "smart"]\nplayers = [2, 2]\nrounds = 100\n')
        with pytest.raises(UsageError, match=r"steps\[0\]\.players: lists 2 twice$"):
            load_spec(path)


def test_every_step_is_checked_whole_before_step_one(tmp_path):
    """Problems found only when a step ran cost the steps before it: each is refused at load."""
    path = tmp_path / "spec.toml"
    head = 'question = "q"\ngame = "lama"\n[[steps]]\nkind = "simulate"\nseats = ["greedy", "greedy"]\nrounds = 10\n'
    for step, needle in [
        ('kind = "tune"\nstrategy = "greedy"\n', "greedy has no parameters to tune"),
        ('kind = "tune"\nstrategy = "threshold"\nvs = "greedy,smart"\n', "give one strategy or exactly 3"),
        (f'kind = "simulate"\nname = "{"x" * 200}"\nseats = ["greedy", "greedy"]\n', "at most 100"),
    ]:
        path.write_text(head + "[[steps]]\n" + step)
        with pytest.raises(UsageError, match=needle):
            load_spec(path)


def test_scale_past_a_cap_is_refused_before_any_work(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('question = "q"\ngame = "lama"\n[[steps]]\nkind = "simulate"\nseats = ["greedy", "greedy"]\n'
                    'rounds = 100\n[[steps]]\nkind = "simulate"\nseats = ["greedy", "greedy"]\n'
                    'rounds = 100_000_000_000\n')
    with pytest.raises(UsageError, match=r"steps\[1\]\.rounds: must be at most .* \(after --scale 10\)"):
        llama_sim.run_experiment(path, scale=10, quiet=True, write=False)


def test_a_file_option_is_read_relative_to_the_spec(tmp_path, monkeypatch):
    """A deck file next to the spec passes from any folder, as the run reads it from the spec's folder."""
    from pathlib import Path

    import llama_sim.rulesets.kadabra as kadabra

    deck = Path(kadabra.__file__).parent / "symbols.toml"
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "deck.toml").write_text(deck.read_text())
    spec = folder / "spec.toml"
    spec.write_text('question = "q"\ngame = "kadabra"\noptions = { deck_file = "deck.toml" }\n[[steps]]\n'
                    'kind = "advise"\nhand = "1 2"\ntop = "3"\nhand_sizes = "4"\npile = 20\n')
    monkeypatch.chdir(tmp_path)
    assert load_spec(spec).steps[0].kind == "advise"


def test_a_parameter_the_command_does_not_take_gets_the_same_words_everywhere(capsys, tmp_path):
    """sweep took precision in a spec, had no --precision, and the API called it a rule-set option."""
    words = "precision: sweep has no such parameter"
    with pytest.raises(UsageError, match=f"^{words}"):
        llama_sim.sweep("lama", "threshold", "quit_at=1:2:1", rounds=100, precision=0.1)
    code, _, err = call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=1:2:1",
                        "--precision", "0.1")
    assert code == 2 and err.startswith(f"llamasim: error: {words}"), err
    path = tmp_path / "spec.toml"
    path.write_text('question = "q"\ngame = "lama"\n[[steps]]\nkind = "sweep"\nstrategy = "threshold"\n'
                    'grid = { quit_at = "1:2:1" }\nprecision = 0.1\n')
    with pytest.raises(UsageError, match=rf"steps\[0\]\.{words}"):
        load_spec(path)


def test_a_missing_pyarrow_is_found_before_any_work(tmp_path, monkeypatch):
    import importlib.util

    import llama_sim.run.chunks as chunks

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    monkeypatch.setattr(chunks, "run_chunk", lambda *a: pytest.fail("played before checking pyarrow"))
    path = tmp_path / "spec.toml"
    path.write_text('question = "q"\ngame = "lama"\n[[steps]]\nkind = "simulate"\nseats = ["greedy", "greedy"]\n'
                    'rounds = 10\n')
    with pytest.raises(UsageError, match="needs pyarrow"):
        llama_sim.run_experiment(path, out=tmp_path / "out", quiet=True)


def test_a_spec_name_holding_a_nul_is_named_as_the_name(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('name = "a\\u0000b"\nquestion = "q"\ngame = "lama"\n[[steps]]\nkind = "simulate"\n'
                    'seats = ["greedy", "greedy"]\n')
    with pytest.raises(UsageError, match=r"spec.toml: name: must not hold a NUL character$"):
        load_spec(path)


@pytest.mark.parametrize("param", [5, {"quit_at": 3}, {"quit_at": [1, float("nan")]}, ["quit_at=1:2:1"] * 2])
def test_a_bad_sweep_grid_is_one_usage_error(param):
    with pytest.raises(UsageError, match="^param: "):
        llama_sim.sweep("lama", "threshold", param, rounds=100, quiet=True)
