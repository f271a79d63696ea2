"""What every rule set's strategy kit (``llama_sim.rulesets.<game>.kit``) shares: the rng helpers a
policy draws with, the legal-set helpers, and the observation's declaration (``Field``), from which
``llamasim strategies --observation`` and the authors' guide print one table.

The rng helpers take the policy's own ``rng`` argument: every number a policy draws comes from it, so
one ``--seed`` gives one result (Python's ``random`` and ``np.random`` are refused when a strategies
file loads, ``core.strategies_file``).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from llama_sim.core.rng import below, randint, uniform  # noqa: F401  (the rng helpers, re-exported)
from llama_sim.core.ruleset import RULE_SETS, get_game


@dataclass(frozen=True)
class Field:
    """One field of an observation: its constant's name, its meaning, and what it holds where a
    reader could guess wrong (``corner``)."""

    name: str
    meaning: str
    corner: str = ""


def observation_rows(fields: tuple[Field, ...], engine, length: int) -> list[dict]:
    """The observation's table: each field's name, indices (from the rule set's ``OBS_*`` constants),
    meaning and corner case; a field runs to the next one's index (the last to ``length``)."""
    starts = [int(getattr(engine, f.name)) for f in fields] + [length]
    rows = []
    for f, start, end in zip(fields, starts, starts[1:]):
        index = str(start) if end - start == 1 else f"{start}..{end - 1}"
        rows.append({"field": f.name, "index": index, "meaning": f.meaning, "corner case": f.corner})
    return rows


@njit(cache=True, inline="always")
def is_legal(legal, action):
    """Whether ``action`` is in the legal set (the bit mask ``legal``)."""
    return (legal >> action) & 1 == 1


@njit(cache=True, inline="always")
def count_legal(legal):
    """How many actions are legal."""
    k = 0
    bits = legal
    while bits:
        bits &= bits - 1
        k += 1
    return k


@njit(cache=True, inline="always")
def pick_legal(legal, rng):
    """A uniformly random legal action, drawn from the policy's ``rng`` (one draw): the k-th legal
    action in increasing order, k uniform."""
    bits = legal
    for _ in range(below(rng, count_legal(legal))):
        bits &= bits - 1
    a = np.int64(0)
    while bits and not bits & 1:
        bits >>= 1
        a += 1
    return a


def kit_of(game: str):
    """The strategy kit of rule set ``game`` (``<its package>.kit``)."""
    get_game(game)  # (an unknown name: one line naming the known ones)
    return importlib.import_module(f"{RULE_SETS[game]}.kit")


def observation_table(game: str) -> tuple[list[dict], list[dict]]:
    """What a policy of ``game`` sees, from its kit's declaration: the observation's fields (name,
    indices, meaning, corner case) and the actions (code, what it does)."""
    kit = kit_of(game)
    actions = [{"action": a, "meaning": name} for a, name in enumerate(kit.ACTION_NAMES)]
    return observation_rows(kit.OBSERVATION, kit, kit.OBS_LEN), actions


# ------------------------------------------------------------------------------------ in words
# What a player saw, for ``llamasim trace`` and the one line of an illegal action: each kit's
# ``describe(obs, hand)`` reads its declared fields with these helpers.

def cards_text(counts, names) -> str:
    """Counts per code as cards, e.g. ``2 2 6 L`` (``none`` for no card)."""
    return " ".join(names[c] for c in range(len(names)) for _ in range(int(counts[c]))) or "none"


def seats_text(obs, start: int, n: int) -> str:
    """One number per seat 0..n-1 from ``obs[start:]``, e.g. ``5,3,6``."""
    return ",".join(str(int(obs[start + s])) for s in range(n))


def quit_text(obs, start: int, n: int) -> str:
    """``; quit: seats 1,3`` for the seats that quit ("" when nobody has)."""
    gone = [str(s) for s in range(n) if obs[start + s]]
    return f"; quit: seat{'s' if len(gone) > 1 else ''} {','.join(gone)}" if gone else ""


def legal_text(legal: int, action_names) -> str:
    """The legal actions' names, in action order."""
    return ", ".join(name for a, name in enumerate(action_names) if (int(legal) >> a) & 1)


def position_words(game: str, obs, hand, legal: int) -> str:
    """What the acting player saw, one line: the kit's ``describe`` and the legal actions."""
    kit = kit_of(game)
    return f"{kit.describe(obs, hand)}; legal: {legal_text(legal, kit.ACTION_NAMES)}"
