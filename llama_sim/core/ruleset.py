"""The rule-set interface, and the one map from a rule set's name to the module that defines it.

Generic code (runs, analyses, reports, the CLI) never tests a rule set's name: it asks the
``RuleSet`` it got from ``get_game``. Each rule set is one package (``llama_sim/rulesets/<name>/``)
whose ``RULE_SET`` is an instance of ``RuleSet``; adding one is a folder plus a line in ``RULE_SETS``
(or a call of ``register`` for a rule set that lives outside the package, as the tests' toy one).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from llama_sim.core.errors import UsageError

# name -> module defining RULE_SET, in the order rule sets are listed.
RULE_SETS: dict[str, str] = {
    "lama": "llama_sim.rulesets.lama",
    "party": "llama_sim.rulesets.party",
    "kadabra": "llama_sim.rulesets.kadabra",
    "dice": "llama_sim.rulesets.dice",
}
_LOADED: dict[str, "RuleSet"] = {}


@dataclass
class RuleSet:
    """What the simulator needs to know about a rule set: its engines, options and tables."""

    name: str
    title: str
    min_players: int
    max_players: int
    run_blocks: Callable  # a llama_sim.core.jit.Kernel with core.engine.RUN_BLOCKS_SIG
    reference_blocks: Callable  # the reference engine on the same work (entries as (policy, params))
    config: Callable[..., np.ndarray]  # options -> cfg int64 array
    action_names: tuple[str, ...]  # the readable name of every action index
    describe_config: Callable[[np.ndarray], dict] = lambda cfg: {}
    options: dict[str, str] = field(default_factory=dict)  # option name -> help
    option_values: dict[str, tuple[str, ...]] = field(default_factory=dict)  # option -> every value it names
    bench_strategy: str = "greedy"  # the strategy all seats play in ``llamasim bench``
    # The exact solver, where the game has one: (row=, llama_row=, dice_layout=, table=) options ->
    # (DataFrame, readable text, the rules it solved under); ``llamasim solve``.
    exact_solver: Callable[..., tuple] | None = None
    # The block loop a line-up kernel compiles around a line-up's own policies (``run.lineup``): a jitted
    # ``run_blocks_with`` whose module also defines ``blocks_core`` and ``blocks_core_with``; None: the
    # rule set plays with its generic kernel only.
    run_blocks_with: Callable | None = None
    strategies_module: str = ""  # where its built-in strategies register (default llama_sim.strategies.<name>)
    # The hooks of ``llamasim chart`` (a core.chart_kernel.ChartRules) and of ``advise`` (a
    # core.advice.AdviceHooks), or "module:NAME" naming them: imported on first use (``hook``), since that
    # code imports its rule set and a plain simulation never needs it. None: the rule set has none.
    chart: object = None
    advice: object = None

    def __post_init__(self):
        if not self.strategies_module:
            self.strategies_module = f"llama_sim.strategies.{self.name}"

    def hook(self, field_name: str):
        """The hooks held in ``field_name`` (``chart``, ``advice``), imported if the field names them."""
        value = getattr(self, field_name)
        if isinstance(value, str):
            module, _, name = value.partition(":")
            value = getattr(importlib.import_module(module), name)
            setattr(self, field_name, value)
        return value

    def chart_rules(self):
        """The quit-chart hooks, or None without a chart."""
        return self.hook("chart")

    def reject_other_options(self, others: dict) -> None:
        """One line naming the options this rule set takes, if ``others`` (options its ``config`` does
        not know) is not empty: e.g. ``party takes only --pink-llama and --plus-cards (got --magic-show)``."""
        if not others:
            return
        flags = [option_flag(k) for k in self.options]
        if not flags:
            takes = "no rule-set options"
        elif len(flags) == 1:
            takes = f"only the option {flags[0]}"
        else:
            takes = f"only {', '.join(flags[:-1])} and {flags[-1]}"
        raise UsageError(f"{self.name} takes {takes} (got {', '.join(option_flag(k) for k in others)})")


def option_flag(name: str) -> str:
    """The command-line flag of a rule-set option: ``dice_layout`` -> ``--dice-layout``."""
    return "--" + name.replace("_", "-")


def register(name: str, module: str) -> None:
    """Add a rule set defined outside this package (its module defines ``RULE_SET``)."""
    RULE_SETS[name] = module
    _LOADED.pop(name, None)


def game_names() -> list[str]:
    """The names of the rule sets, without importing them."""
    return list(RULE_SETS)


def get_game(name: str) -> RuleSet:
    if name not in RULE_SETS:
        raise UsageError(f"unknown game '{name}' (known: {', '.join(RULE_SETS)})")
    if name not in _LOADED:
        rule_set = importlib.import_module(RULE_SETS[name]).RULE_SET
        if not isinstance(rule_set, RuleSet) or rule_set.name != name:
            raise TypeError(f"{RULE_SETS[name]}.RULE_SET is not the RuleSet named {name!r}")
        _LOADED[name] = rule_set
    return _LOADED[name]


def solvable_names() -> list[str]:
    """The rule sets with an exact solver."""
    return [name for name in RULE_SETS if get_game(name).exact_solver is not None]


def all_games() -> dict[str, RuleSet]:
    return {name: get_game(name) for name in RULE_SETS}
