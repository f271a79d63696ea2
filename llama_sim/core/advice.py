"""What the ``advise`` command asks a rule set (``AdviceHooks``, a rule set's ``RuleSet.advice``), and
the pieces of a roll-out every rule set's advisor shares: the line-up it is handed
(``RolloutLineup``), the acting seat's forced first action (``forced_policy``) and the stream of a
game roll-out's later deals (``GAME_STREAM``).

A roll-out kernel plays every action on the same determinized deal and adds, per roll-out, the
vector (score change per action, went out per action, win units per action) into ``s1``/``s2`` with
``core.scoring.accumulate``; the generic advisor turns those sums into values, intervals and a
sentence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, NamedTuple, Protocol

import numpy as np
from numba import types

from llama_sim.core.cache import kernel_folder
from llama_sim.core.errors import UsageError
from llama_sim.core.jit import Kernel, generated_module
from llama_sim.core.position import Position
from llama_sim.core.registry import POLICY_SIG, get as get_strategy

GAME_STREAM = np.int64(3)  # deals of the later rounds of a game roll-out (DEAL/POLICY/DICE are 0/1/2);
# an int64, not a literal: the roll-outs call ``rng.seed_state`` with the types the other streams give it, so
# it is compiled once, not again for a literal 3
# Seat 0, the player asking, starts the first round of every roll-out. A NumPy integer, not 0: Numba
# types a literal 0 argument as its own type and compiles the round once more for it.
FIRST_SEAT = np.int64(0)


class RolloutLineup(NamedTuple):
    """Who plays a roll-out: entries 0..n-1 are the seats' players, entry n is seat 0's player behind
    the forced-first-action wrapper (its action in the last ``params`` column)."""

    players: list
    policies: tuple  # MAX_POLICIES compiled policies
    slot_of_entry: np.ndarray
    params: np.ndarray  # (n + 1, MAX_PARAMS + 1)
    first_entries: np.ndarray  # entry of each seat in the position's round (seat 0: the wrapper)
    rest_entries: np.ndarray  # entry of each seat in the later rounds of a game roll-out


@dataclass
class ExactAnswer:
    """A position a rule set solves exactly instead of rolling out: each action's value (lower is
    better), the action ranked first on a tie, and what to tell the user."""

    values: dict[str, float]
    preferred: str
    summary: str  # the sentence up to ", so <best>."
    strategies: list[str]
    notes: list[str] = field(default_factory=list)


RolloutRun = Callable[[int, int, np.ndarray, np.ndarray], None]  # run(first, count, s1, s2)


class AdviceHooks(Protocol):
    """A rule set's part of ``advise``. Positions are ``core.position.Position``; actions are the rule
    set's action indices, action names those of ``RuleSet.action_names``."""

    default_policy: str  # the roll-out strategy spec when none is given
    # player count -> the roll-out strategy spec at that count when none is given (the strongest there);
    # a count missing takes ``default_policy`` (optional attribute: ``default_policy_at`` reads it)
    default_policies: dict[int, str]
    turn_index: int  # the observation field counting this round's decisions (0 at the position)
    position_keys: tuple[str, ...]  # the position options the rule set takes
    position_help: dict[str, str]  # what each of them means (the advise command's help)
    position_flags: frozenset[str]  # those that are on/off flags rather than text
    example: dict  # the options of a typical position (documentation and the rule-set test battery)
    rollout_kernel: object  # the ``HorizonKernels`` its ``rollout_runner`` runs, or None: given, ``core.aside``
    # compiles cold strategies in another process while this one compiles the horizon's kernel

    def make_position(self, deck_counts=None, **options) -> Position:
        """Parse and check the position options (those of ``position_keys``; absent ones None/False)
        into a Position; UsageError names the problem. ``deck_counts``: the deck when it is not the
        rule set's own (a deck file)."""

    def deck_counts(self, cfg: np.ndarray) -> np.ndarray:
        """The cards per code of the deck ``cfg`` names (a deck file), for ``make_position``; a rule set
        whose options never change the deck returns its own."""

    def root_actions(self, pos: Position) -> list[int]:
        """The acting seat's legal actions at the position."""

    def why_illegal(self, pos: Position, name: str) -> str:
        """One line saying why the action ``name`` is not legal at the position."""

    def action_key(self, pos: Position, text: str) -> str:
        """A typed action in the spelling of ``action_names`` (lower case): a card's other names."""

    def chance_free(self, pos: Position, name: str) -> bool:
        """True when the round roll-outs of action ``name`` leave nothing to chance, so roll-outs that
        all agree give its exact value."""

    def exact_answer(self, pos: Position, names: list[str], cfg: np.ndarray, horizon: str) -> ExactAnswer | None:
        """The exact values of the actions ``names`` when the rule set solves the position, else None."""

    def rollout_runner(self, pos: Position, actions: np.ndarray, line: RolloutLineup, game_horizon: bool,
                       seed: np.uint64, cfg: np.ndarray) -> RolloutRun:
        """A function ``run(first, count, s1, s2)`` adding roll-outs first..first+count-1 (every action
        on each) to the moment sums."""

    def phrase(self, name: str) -> str:
        """The action as a gerund for sentences: 'draw' -> 'drawing', 'play 4' -> 'playing the 4'."""


class HorizonKernels(NamedTuple):
    """A rule set's roll-out kernel compiled from one source for each horizon (``horizon_kernels``)."""

    round: Kernel
    game: Kernel

    def of(self, game_horizon: bool) -> Kernel:
        return self.game if game_horizon else self.round

    def compiled(self, game_horizon: bool) -> tuple:
        """The horizon's compiled kernel and the ``game_horizon`` argument it is called with (None: the round's)."""
        return self.of(game_horizon).get(), (True if game_horizon else None)


def horizon_kernels(py_func, signature: Callable, label: str) -> HorizonKernels:
    """``py_func``'s kernels for the round and the game horizon. ``signature(horizon_type)`` is its
    signature with its ``game_horizon`` argument of that type: none in the round's kernel, which is called
    with None and drops what its ``game_horizon is not None`` branches hold while compiling (the rest of
    a game: most advice never plays it, and compiled it on its first run), a boolean in the game's."""
    return HorizonKernels(Kernel(py_func, lambda: signature(types.none), label),
                          Kernel(py_func, lambda: signature(types.boolean), f"{label} to the game's end"))


def advice_of(rule_set) -> AdviceHooks:
    """The rule set's advisor (``RuleSet.advice``)."""
    advice = rule_set.hook("advice")
    if advice is None:
        raise UsageError(f"{rule_set.name} has no advisor")
    return advice


def default_policy_at(advice: AdviceHooks, players: int) -> str:
    """The roll-out strategy a table of ``players`` plays when none is given: the rule set's strongest
    at that count (``default_policies``), else its ``default_policy``."""
    return getattr(advice, "default_policies", {}).get(players, advice.default_policy)


def action_phrase(name: str, words: dict[str, str]) -> str:
    """``name`` as a gerund: a card play as 'playing the X', other actions from ``words``."""
    if name.startswith("play "):
        return f"playing the {name[5:]}"
    return words.get(name, name)


_FORCED_SOURCE = """# generated by llama_sim.advise: {game}.{name} with a forced first action (see forced_policy)
import numpy as _np

from llama_sim.core.registry import get as _get

_S = _get("{game}", "{name}").policy


def forced(obs, hand, legal, params, rng):
    if obs[{turn}] == 0:
        return _np.int64(params[params.shape[0] - 1])
    return _S(obs, hand, legal, params, rng)
"""


@lru_cache(maxsize=None)
def forced_policy(game: str, strategy_key: str, policy, turn_index: int):
    """The acting seat's policy in the roll-outs: at the round's first decision (``obs[turn_index]
    == 0``) the action in the last params column, afterwards the seat's own strategy ``policy``.

    For a built-in strategy the wrapper is a generated module in the kernel cache folder (named after
    the package's source hash), so Numba caches it on disk like every kernel (a closure is recompiled
    by every process, ~0.5 s). A user's strategy gets the closure: its file is not in that hash, so a
    disk-cached wrapper could keep calling an edited strategy's old code."""
    game_name, _, name = strategy_key.partition(".")
    builtin = get_strategy(game_name, name).source.startswith("llama_sim.strategies")
    folder = kernel_folder()
    folder = None if folder is None else folder / "advise_forced"
    if builtin and folder is not None:
        try:
            path = folder / f"forced_{game_name}_{name}.py"
            text = _FORCED_SOURCE.format(game=game_name, name=name, turn=turn_index)
            module = generated_module(f"llama_sim_forced_{game_name}_{name}", path, text)
            return Kernel(module.forced, lambda: POLICY_SIG, f"{game} forced first action", nogil=False).get()
        except OSError:
            pass

    def forced(obs, hand, legal, params, rng):
        if obs[turn_index] == 0:
            return np.int64(params[params.shape[0] - 1])
        return policy(obs, hand, legal, params, rng)

    forced.__qualname__ = f"forced_{game}_{strategy_key.replace('.', '_')}"
    return Kernel(forced, lambda: POLICY_SIG, f"{game} forced first action", nogil=False).get()
