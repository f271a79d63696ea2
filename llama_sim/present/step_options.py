"""A step's own rule-set options: ``options`` on a step (merged over the spec's) and
``option_grid`` (one run per value), checked by the rule set, and what run.json records of them."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from llama_sim.core.errors import UsageError
from llama_sim.present.spec import Checker, Spec, Step, type_name

STEP_OPTION_KEYS = frozenset({"options", "option_grid"})


def all_option_values(game, key: str) -> Optional[list]:
    """What ``option_grid = { key = "all" }`` means: every value a rule set names for the option."""
    values = game.option_values.get(key)
    return list(values) if values is not None else None


def _option_value(check: Checker, key: str, value):
    if isinstance(value, str):
        return check.string(key, value)
    if not isinstance(value, (bool, int, float)):
        check.fail(key, f"must be a string, not {type_name(value)}")
    return value


def check_step_options(check: Checker, where: str, step: dict, spec_options: dict, folder: Path,
                  game) -> tuple[Optional[dict], dict]:
    """A step's ``options`` (merged over the spec's) and ``option_grid`` (option -> values), each
    value checked by the rule set; (None, {}) when the step has neither."""
    if not STEP_OPTION_KEYS & set(step):
        return None, {}
    own = step.get("options", {})
    if not isinstance(own, dict):
        check.fail(f"{where}options", f"must be a table, e.g. {{ dice_layout = \"13-25-46\" }}, not {type_name(own)}")
    merged = dict(spec_options)
    for key, value in own.items():
        merged[key] = _option_value(check, f"{where}options.{key}", value)
        if key in game.file_options:  # read relative to the spec, wherever it is run from
            merged[key] = folder / value
    try:
        game.config(**merged)
    except UsageError as exc:
        check.fail(f"{where}options", str(exc))
    grid_raw = step.get("option_grid", {})
    if not isinstance(grid_raw, dict) or ("option_grid" in step and not grid_raw):
        check.fail(f"{where}option_grid", f"must be a table of option values, e.g. {{ dice_layout = \"all\" }}, "
                                          f"not {type_name(grid_raw)}")
    grid = {}
    for key, values in grid_raw.items():
        k = f"{where}option_grid.{key}"
        if key in own:
            check.fail(k, "is also set in the step's options; give it in one of them")
        if values == "all":
            values = all_option_values(game, key)
            if values is None:
                known = ", ".join(game.option_values) or "none"
                check.fail(k, f"\"all\" is known only for options that name their values ({known}); list the "
                              f"values of {key}")
        elif not isinstance(values, list) or not values:
            check.fail(k, f"must be \"all\" or a non-empty list of values, not {type_name(values)}")
        else:
            values = [_option_value(check, f"{k}[{i}]", v) for i, v in enumerate(values)]
        if len(set(values)) != len(values):
            check.fail(k, "lists a value twice")
        for i, v in enumerate(values):
            try:
                game.config(**{**merged, key: folder / v if key in game.file_options else v})
            except UsageError as exc:
                check.fail(f"{k}[{i}]", str(exc))
        grid[key] = values
    return merged, grid


def step_spec(spec: Spec, step: Step) -> Spec:
    """The spec as one step sees it: its own rule set and rule-set options, if it has any."""
    from dataclasses import replace

    if step.game is not None:
        spec = replace(spec, game=step.game, options={})
    return spec if step.options is None else replace(spec, options=step.options)


def option_grid_points(step: Step) -> list[dict]:
    """Every combination of the grid's values (first key outermost)."""
    import itertools

    keys = list(step.option_grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*step.option_grid.values())]


def step_rules_json(spec: Spec, step: Step, game) -> dict:
    """run.json: the rule-set options of a step that sets its own, and its grid."""
    out = {}
    if step.options is not None:
        out["rules"] = game.describe_config(game.config(**step.options))
    if step.option_grid:
        out["option_grid"] = {k: [str(v) for v in vs] for k, vs in step.option_grid.items()}
        out["seeds"] = [spec.seed + i for i in range(len(option_grid_points(step)))]
    return out
