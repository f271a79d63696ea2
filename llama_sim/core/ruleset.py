"""The rule-set interface, and the one map from a rule set's name to the module that defines it.

Generic code (runs, analyses, reports, the CLI) never tests a rule set's name: it asks the
``RuleSet`` it got from ``get_game``. Each rule set is one package whose ``RULE_SET`` is an instance of
``RuleSet``, found without a list to edit: every folder of ``llama_sim/rulesets/`` whose ``__init__.py``
assigns ``RULE_SET = RuleSet(...)``, then every entry point of the group ``llama_sim.rulesets`` (name:
module) of an installed package, so a rule set can ship in a package of its own (``register`` adds one
at run time).

A rule set's package should be cheap to import: its ``RuleSet`` declares what the command line shows
before anything plays (name, title, player counts, options, advise's position options), and names
its code (kernels, engines, ``config``...) as ``"module:NAME"`` strings, imported on first use. Then
``llamasim --help`` and ``llamasim games`` build every command's options without loading Numba or a
single kernel module.
"""
from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from llama_sim.core.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

ENTRY_POINT_GROUP = "llama_sim.rulesets"


def declared_order(init: Path) -> int | None:
    """The ``order`` of the ``RULE_SET = RuleSet(...)`` a package's ``__init__.py`` assigns (0 when it gives
    none), or None when it assigns none (a shared engine such as ``shedding``). Read from the syntax tree:
    importing a package to ask would load its engine."""
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "RULE_SET" for t in node.targets)
                and isinstance(node.value, ast.Call)):
            for keyword in node.value.keywords:
                if keyword.arg == "order" and isinstance(keyword.value, ast.Constant):
                    return int(keyword.value.value)
            return 0
    return None


def discover() -> dict[str, str]:
    """Every rule set's name -> the module defining its ``RULE_SET``: this package's own (by their
    ``order``), then the entry points' (by name). A name already taken keeps its first module."""
    here = Path(__file__).resolve().parent.parent / "rulesets"
    found = []
    for init in here.glob("*/__init__.py"):
        order = declared_order(init)
        if order is not None:
            found.append((order, init.parent.name))
    names = {name: f"llama_sim.rulesets.{name}" for _, name in sorted(found)}
    try:
        points = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    except Exception:  # a broken distribution's metadata: its rule sets are not offered
        points = []
    for point in points:
        names.setdefault(point.name, point.value.partition(":")[0])
    return names


# name -> module defining RULE_SET, in the order rule sets are listed.
RULE_SETS: dict[str, str] = discover()
_LOADED: dict[str, "RuleSet"] = {}

# What each option of a card game's position means (``llamasim advise --help``); a rule set adds its own.
# Here rather than with the positions' code (``core.position``) so that a rule set can declare its
# position options without importing that code.
CARD_POSITION_HELP = {
    "hand": "your hand, cards separated by spaces",
    "top": "the top card of the discard pile",
    "hand_sizes": "the other players' hand sizes in turn order after you, e.g. 3,5,1 (their count gives the "
                  "players)",
    "quit": "which of the other players have quit (1-based, same order), e.g. 2 or 1,3",
    "pile": "cards left in the draw pile",
    "discard": "cards known to lie in the discard pile besides the top card",
    "scores": "everyone's score, yours first (default all 0)",
}


# The card games' position options a position file may give as a list, and what joins its items into
# the option's text (``llamasim advise --position``).
CARD_POSITION_LISTS = {"hand_sizes": ",", "quit": ",", "scores": ","}


def card_position_help(code_names: tuple[str, ...], example_hand: str) -> dict[str, str]:
    """``CARD_POSITION_HELP`` with the hand's help naming the rule set's cards and an example hand."""
    return {**CARD_POSITION_HELP, "hand": f"your hand, e.g. \"{example_hand}\" (cards: {' '.join(code_names)})"}


# The fields that may name their value as "module:NAME" (imported when first read).
_CODE_FIELDS = frozenset({"run_blocks", "reference_blocks", "config", "action_names", "describe_config",
                          "exact_solver", "check_solve_position", "chart", "advice", "expert_search", "limit"})


@dataclass
class Solved:
    """What a rule set's exact solver answers: the ``table`` (one row per position: ``row``,
    ``quit_value``, ``roll_value``, ``best``, ``value``, and the solver's own columns), its readable
    ``text``, the ``rules`` it solved under, the ``title`` a plot of it carries, the ``subject`` (what
    was solved, for a summary across option values) and ``dealt``: (optimal value, value of quitting
    at once) averaged exactly over the deal when the table holds every dealt position, else None."""

    table: object
    text: str
    rules: dict
    title: str
    subject: str
    dealt: tuple[float, float] | None = None


@dataclass
class RuleSet:
    """What the simulator needs to know about a rule set: its engines, options and tables."""

    name: str
    title: str
    min_players: int
    max_players: int
    # Each code field (``_CODE_FIELDS``) takes the value itself or "module:NAME" naming it.
    run_blocks: Callable  # ``get()``: a callable with core.scoring.RUN_BLOCKS_SIG (core.blocks.BlockKernel or jit.Kernel)
    reference_blocks: Callable  # the reference engine on the same work (entries as (policy, params))
    config: Callable[..., np.ndarray]  # options -> cfg int64 array
    action_names: tuple[str, ...]  # the readable name of every action index
    order: int = 0  # where it is listed among this package's rule sets (a literal: read without importing)
    describe_config: Callable[[np.ndarray], dict] = lambda cfg: {}
    options: dict[str, str] = field(default_factory=dict)  # option name -> help
    # advise's position options (name -> help) and which of them are on/off flags: the advisor's own
    # (``AdviceHooks.position_help``/``position_flags``), declared here too so that the command line
    # offers them without importing the advisor. None: the command line asks the advisor.
    position_help: dict[str, str] | None = None
    position_flags: frozenset[str] = frozenset()
    # the position options a position file may give as a list -> what joins its items into the option's
    # text (an item that is a list itself is joined with spaces: a row of cards)
    position_lists: dict[str, str] = field(default_factory=dict)
    option_values: dict[str, tuple[str, ...]] = field(default_factory=dict)  # option -> every value it names
    option_metavars: dict[str, str] = field(default_factory=dict)  # option -> what ``--help`` shows for its value
    # options whose value is a file: a spec's path is read relative to the spec file, not the current folder
    file_options: frozenset[str] = frozenset()
    bench_strategy: str = "greedy"  # the strategy all seats play in ``llamasim bench``
    # The exact solver, where the game has one: (row=, llama_row=, table=, score=, rule options) ->
    # ``Solved``; ``llamasim solve``.
    exact_solver: Callable[..., "Solved"] | None = None
    # (row, llama_row) -> anything, or UsageError/ValueError naming what is wrong: a ``solve`` step's
    # position checked before any work. None: ``exact_solver`` checks its own position when it runs.
    check_solve_position: Callable[[str | None, str], object] | None = None
    # "module:NAME" of the rule set's block loop, which a line-up kernel (``run.lineup``) compiles around a
    # line-up's own policies and runs as ``run_blocks`` (then a ``core.blocks.BlockKernel``) runs its own;
    # kept as the text, which the generated module imports. None: the rule set plays with its generic
    # kernel only.
    kernel_loop: str | None = None
    strategies_module: str = ""  # the module where its built-in strategies register (required)
    # The expert's search (a ``core.expert.Search``), which ``grade`` and ``trace --values`` value
    # decisions with; None: the rule set has no expert.
    expert_search: object = None
    report_spec: Path | None = None  # the experiment file of its built-in report (``llamasim report``)
    # The hooks of ``llamasim chart`` (a core.chart_kernel.ChartRules) and of ``advise`` (a
    # core.advice.AdviceHooks), or "module:NAME" naming them: imported on first use (``hook``), since that
    # code imports its rule set and a plain simulation never needs it. None: the rule set has none.
    chart: object = None
    advice: object = None
    # The limit of its kernel's design (``llamasim bench``): ``limit(plan, seed, n_blocks, s1, s2)`` plays
    # ``plan`` (the bench line-up, round mode) in a loop specialised for it, adding exactly the kernel's
    # sums into ``s1``, ``s2``; or "module:NAME" naming it. None: none measured.
    limit: Callable | None = None
    # Luck adjustment (``core.luck``): None, its kernels count no luck (``luck`` on is refused); False,
    # they count it with the value function shipped with the rule set and runs adjust only when asked;
    # True, runs adjust by default (where it was measured unbiased and narrower).
    luck_default: bool | None = None

    def __post_init__(self):
        if not self.strategies_module:
            raise TypeError(f"RuleSet {self.name!r}: strategies_module (where its strategies register) is required")

    def __getattribute__(self, name: str):
        """A code field given as "module:NAME" is imported when first read, and kept."""
        value = object.__getattribute__(self, name)
        if isinstance(value, str) and name in _CODE_FIELDS:
            module, _, attr = value.partition(":")
            value = getattr(importlib.import_module(module), attr)
            object.__setattr__(self, name, value)
        return value

    def hook(self, field_name: str):
        """The hooks held in ``field_name`` (``chart``, ``advice``), imported if the field names them."""
        return getattr(self, field_name)

    def advice_position_help(self) -> tuple[dict[str, str], frozenset[str]]:
        """advise's position options with their help, and the flags among them; ({}, frozenset()) for a
        rule set without an advisor. Read from the declaration when it has them (nothing imported)."""
        if self.position_help is not None:
            return self.position_help, self.position_flags
        advice = self.hook("advice")
        if advice is None:
            return {}, frozenset()
        return advice.position_help, frozenset(advice.position_flags)

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
