"""Replaying a line-up's work on the reference engine with every decision kept: what ``llamasim trace``
prints, and the position behind a kernel's illegal-action report.

A compiled kernel can only report (entry, seat, action) of an illegal action. The reference engine
plays the same deals from the same streams in plain Python, so the block where the kernel met it is
found by bisecting with the kernel and then replayed on the reference engine, whose recording
policies keep what the player saw: the last decision kept is the illegal one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llama_sim.core import registry
from llama_sim.core.errors import illegal_action_args
from llama_sim.core.kit import position_words


@dataclass
class Seen:
    """One decision as the engine asked it: the line-up entry, what it saw, the legal set, its answer."""

    entry: int
    obs: np.ndarray
    hand: np.ndarray
    legal: int
    action: int


def recording(players: list[registry.Player], seen: list[Seen]) -> list[tuple]:
    """Reference-engine entries playing each player's policy, every call appended to ``seen`` (before
    the engine checks the answer, so an illegal answer is kept too)."""
    def wrap(entry: int, policy):
        def ask(obs, hand, legal, params, rng):
            action = int(policy(obs, hand, legal, params, rng))
            seen.append(Seen(entry, np.array(obs), np.array(hand), int(legal), action))
            return action
        return ask
    return [(wrap(e, p.strategy.policy), p.params) for e, p in enumerate(players)]


def sums(plan) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed (s1, s2) for a plan's metrics and units."""
    d = len(plan.metrics) * len(plan.unit_labels)
    return np.zeros(d, np.int64), np.zeros((d, d), np.int64)


def replay(plan, seed: int, block: int, seen: list[Seen]) -> np.ndarray:
    """Block ``block`` of ``plan`` on the reference engine, every decision kept in ``seen``; its s1."""
    s1, s2 = sums(plan)
    plan.game.reference_blocks(seed, block, 1, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
                               len(plan.unit_labels), plan.games_mode, recording(plan.entries, seen), plan.cfg,
                               s1, s2)
    return s1


def _kernel_meets_illegal(plan, seed: int, first: int, n: int) -> bool:
    """Whether the kernel reports an illegal action in blocks [first, first + n)."""
    if plan.kernel == "lineup":
        from llama_sim.run.lineup import line_up_kernel

        kernel = line_up_kernel(plan.game.name, plan.entries).get()
    else:
        kernel = plan.game.run_blocks.get()
    policies, slots = registry.policy_tuple(plan.entries)
    params = np.ascontiguousarray(np.array([p.params for p in plan.entries], dtype=np.float64))
    s1, s2 = sums(plan)
    try:
        kernel(np.uint64(seed), first, n, plan.n_players, plan.entry_of_seat, plan.unit_of_seat,
               len(plan.unit_labels), plan.games_mode, policies, slots, params, plan.cfg, s1, s2)
    except ValueError as exc:
        return illegal_action_args(exc) is not None
    return False


def illegal_position(plan, seed: int, first: int, n: int) -> str | None:
    """The position of the first illegal action the kernel met in blocks [first, first + n), in words;
    None when the reference engine does not meet it (or anything else goes wrong: the error's one
    line is then told without it)."""
    try:
        while n > 1:
            half = n // 2
            if _kernel_meets_illegal(plan, seed, first, half):
                n = half
            else:
                first, n = first + half, n - half
        seen: list[Seen] = []
        try:
            replay(plan, seed, first, seen)
        except ValueError as exc:
            if illegal_action_args(exc) is not None and seen:
                return seen_words(plan.game.name, seen[-1])
        return None
    except Exception:  # a description is a courtesy: never hide the error it would add to
        return None


def seen_words(game: str, d: Seen) -> str:
    return position_words(game, d.obs, d.hand, d.legal)
