"""The contract between ``llamasim chart`` and the rule sets' chart collectors.

A rule set that has a quit chart gives its ``RuleSet.chart`` a ``ChartRules``: a collector kernel
that plays games and adds every charted decision's quit-minus-play-on sample to two accumulators,
and what the generic chart builder (``llama_sim.analysis.chart``) needs to label, bin and play it.
The pieces every collector shares live here: the accumulator layout, the measure codes, the branch
streams, the per-game sums behind the between-game intervals, and the collector's signature.

Accumulators: ``acc[stat, token class, points, feature bin]`` (int64), one for the ``pile`` chart
and one for the ``opponent`` chart. Per decision a collector calls ``add_sample`` on both; at the end
of each game ``close_game`` folds that game's per-cell sums into the ``S_SS``, ``S_SN``, ``S_NN``
statistics (the ratio estimator's variance is over games, whose decisions are correlated).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit, types

from llama_sim.core.chart_data import MAX_PILE
from llama_sim.core.scoring import GAME_END_SCORE
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import MAX_PARAMS, MAX_POLICIES, POLICIES_TYPE

# Accumulator statistics per cell: decisions, sum of samples, per-game sums of S^2, S*N, N^2,
# and how often the policy itself quit there.
N_STAT, S_SUM, S_SS, S_SN, S_NN, S_POLICY_QUIT = range(6)
N_STATS = 6

MEASURES = ("own", "relative", "win")
M_OWN, M_RELATIVE, M_WIN = range(3)  # the kernel codes of MEASURES: what a branch is valued by
# A game's branch streams: a collector drawing m streams per branched decision seeds both branches
# of its k-th from streams BRANCH_STREAM + m k .. BRANCH_STREAM + m k + m - 1 (common random numbers).
BRANCH_STREAM = 1000

# Default lower bin edges: cards left in the draw pile, the smallest opponent hand (one bin per
# value up to 13 in a bundled chart).
DEFAULT_PILE_EDGES = (0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 32, 40)
DEFAULT_OPP_EDGES = (1, 2, 3, 4, 5, 6, 7, 9, 12, 16)
BUNDLED_PILE_EDGES = tuple(range(MAX_PILE))
BUNDLED_OPP_EDGES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16)

# The words of a chart of the stuck decision (no card fits, drawing legal): quit or draw.
STUCK_WORDING = {"letter": "D", "play_on": "draw", "decision": "stuck decisions (no card fits, drawing legal)",
                 "question": "quit or draw when no card fits?", "points": "hand points when stuck (points)",
                 "pile": "cards left in the draw pile",
                 "opponent": "smallest opponent hand (cards) of those still in"}

ACC_TYPE = types.int64[:, :, :, ::1]
# collect(seed, first_game, n_games, players, policies, params, measure code, pile_bin, opp_bin,
#         acc_pile, acc_opp)
COLLECT_SIG = types.void(types.uint64, types.int64, types.int64, types.int64, POLICIES_TYPE,
                         types.float64[:, ::1], types.int64, types.int64[::1], types.int64[::1], ACC_TYPE, ACC_TYPE)


@dataclass(frozen=True)
class ChartRules:
    """What the chart builder asks a rule set (its ``RuleSet.chart``).

    ``collect``: a ``core.jit.Kernel`` with ``COLLECT_SIG``, playing games with the line-up's entry 0
    at every seat and adding each charted decision's sample (value of quitting minus value of playing
    on; lower is better) to both accumulators. ``lineup(player, force_first)`` -> (policies tuple,
    params 2-D float64) the collector is called with; ``force_first(turn_index)`` gives the player's
    policy wrapped to play, at the round's first decision (``obs[turn_index] == 0``), the action in
    the last params column (for a collector that forces a branch's first action that way).
    ``wording``: the keys of ``STUCK_WORDING`` (the answer letter for playing on, the verb, the
    decision, the plot's question, the points, and the two features). ``pile_top`` and
    ``opponent_top``: the largest value each feature takes, where a bin's printed range ends (None:
    the bin's own end)."""

    collect: Kernel
    lineup: Callable
    default_policy: str
    title: str
    wording: dict
    pile_edges: tuple[int, ...] = DEFAULT_PILE_EDGES
    opponent_edges: tuple[int, ...] = DEFAULT_OPP_EDGES
    bundled_pile_edges: tuple[int, ...] = BUNDLED_PILE_EDGES
    bundled_opponent_edges: tuple[int, ...] = BUNDLED_OPP_EDGES
    pile_top: int | None = None
    opponent_top: int | None = None


def wrapped_lineup(player, wrapper, extra_columns: int):
    """A line-up of ``player``'s policy (entry 0) and ``wrapper`` around it (entry 1), with
    ``extra_columns`` params columns after the policy's for the wrapper to read."""
    policy = player.strategy.policy
    funcs = (policy, wrapper) + (policy,) * (MAX_POLICIES - 2)
    params = np.zeros((2, MAX_PARAMS + extra_columns), np.float64)
    params[:, :MAX_PARAMS] = player.params
    return funcs, params


@njit(cache=True, nogil=True, inline="always")
def score_change_value(measure, seat, n, before, after):
    """A branch's ``M_OWN`` or ``M_RELATIVE`` value from everyone's scores before and after the rest
    of the round: the seat's change, or ``(n - 1)`` times it minus the others' changes."""
    own = after[seat] - before[seat]
    if measure != M_RELATIVE:
        return own
    total = (n - 1) * own
    for s in range(n):
        if s != seat:
            total -= after[s] - before[s]
    return total


@njit(cache=True, nogil=True, inline="always")
def game_over(scores, n):
    """Somebody has reached the end of a game (40 points)."""
    for s in range(n):
        if scores[s] >= GAME_END_SCORE:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def game_sums(acc):
    """Zeroed scratch for one game's per-cell sums of ``acc``'s cells: (S_g, N_g, the cells it touched)
    (``add_sample`` fills them, ``close_game`` folds them into ``acc`` and clears them)."""
    cells = acc.shape[1] * acc.shape[2] * acc.shape[3]
    return np.zeros(cells, np.int64), np.zeros(cells, np.int64), np.zeros(cells, np.int64)


@njit(cache=True, nogil=True, inline="always")
def add_sample(acc, game_s, game_n, touched, n_touched, t, p, b, diff, policy_quit):
    """Add one decision's sample ``diff`` to cell (token class ``t``, points ``p``, bin ``b``) of ``acc``
    and of the game's sums; returns the new number of cells the game touched."""
    cell = (t * acc.shape[2] + p) * acc.shape[3] + b
    if game_n[cell] == 0:
        touched[n_touched] = cell
        n_touched += 1
    game_n[cell] += 1
    game_s[cell] += diff
    acc[N_STAT, t, p, b] += 1
    acc[S_SUM, t, p, b] += diff
    acc[S_POLICY_QUIT, t, p, b] += policy_quit
    return n_touched


@njit(cache=True, nogil=True, inline="always")
def close_game(acc, game_s, game_n, touched, n_touched):
    """Add one game's per-cell sums to the between-game statistics and clear them."""
    per_t = acc.shape[2] * acc.shape[3]
    for k in range(n_touched):
        cell = touched[k]
        t = cell // per_t
        p = (cell % per_t) // acc.shape[3]
        b = cell % acc.shape[3]
        s = game_s[cell]
        m = game_n[cell]
        acc[S_SS, t, p, b] += s * s
        acc[S_SN, t, p, b] += s * m
        acc[S_NN, t, p, b] += m * m
        game_s[cell] = 0
        game_n[cell] = 0
