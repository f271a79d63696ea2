"""The expert player's search, the same for every rule set: on-line policy improvement by roll-outs.

At a decision with more than one legal action the expert samples what it cannot see (the other hands
and the draw pile, or nothing but the dice) consistently with everything its player has seen, plays
every legal action on the same sample, lets every seat (itself included) continue with a base
strategy, and takes the action with the lowest mean of its own points over the round. Common
samples make the comparison paired: the differences between actions have far less noise than the
actions' values. It stops early when the leader is ``stop_z`` standard errors of the paired
difference clear of every other action (the stop rule of backgammon roll-out tools), or when no other
action can be more than ``INDIFFERENCE`` points better at that many standard errors (an indifference
zone: near-equal actions would otherwise take the whole budget to tell apart for almost nothing), and
otherwise at ``rollouts``; at each check it stops sampling the actions already that clear behind the
leader (successive elimination).

What a rule set gives (``rulesets/<name>``, bound in its strategies file):

- ``tables``: its rule tables (a tuple of arrays), handed to both functions below;
- ``world(tables, obs, hand)``: scratch for its roll-outs (a tuple of arrays, made once per decision);
- ``rollout(tables, world, obs, hand, actions, k, key, i, base_row, decide, objective, out)``: sample ``i``
  of the hidden state from the stream (``key``, ``i``), play each of the ``k`` actions on it and write
  into ``out[:k]`` the acting seat's points for the round (score change, tokens returned included),
  minus the other seats' mean when ``objective`` is ``RELATIVE``;
- ``decide``: the roll-outs' policy call (``registry.line_up_ask``): at the roll-out's first decision
  (its turn counter 0) the forced action in column ``FORCED`` of the row it is handed, afterwards the
  base strategy that column ``BASE`` names, on its parameters in the row's first columns.

Everything runs in compiled code: one Python-free call per decision. The only randomness is one
draw from the policy's ``rng`` per decision (the roll-outs' key), so a game replays exactly under the
same seed whatever the threads or backend.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.draws import NO_NRT
from llama_sim.core.registry import MAX_PARAMS, get as get_strategy

FORCED = MAX_PARAMS  # the roll-out row's column holding the acting seat's first action
BASE = MAX_PARAMS + 1  # the column holding the index of the base strategy
ROW = MAX_PARAMS + 2
MIN_ROLLOUTS = 16  # the least budget a player may set
FIRST_CHECK = 16  # the stop rule is first checked after FIRST_CHECK samples, then every CHECK_EVERY
CHECK_EVERY = 8  # (checked from 8 samples on, every 4, it lost a fifth of the expert's edge: reports/expert)
INDIFFERENCE = 0.05  # points: an action better than the leader by at most this much is as good as it
MAX_CANDIDATES = 64  # every rule set has fewer than 64 actions (the legal mask is an int64)


@njit(cache=True, nogil=True)
def not_asked(obs, hand, legal, params, rng):
    """The one policy of the roll-outs' policy tuple, ``(not_asked,)``, which is never asked. A rule set's
    round asks ``policies[slot]`` when its ``decide`` is None and ``decide`` otherwise, and Numba types
    both ways when ``decide`` is a function (it drops the branch not taken only for an argument that is
    None): the roll-outs hand the round their ``decide`` and this tuple, and the compiled round (LLVM
    puts it in) serves them. A copy of the round inlined by Numba, where a None tuple would do, cost
    seconds of every expert's first compile."""
    return np.int64(-1)


# How a rule set compiles the base strategies its ``decide`` calls: ``njit(cache=True, **BASE_OPTIONS)``.
# Numba compiles a function with the reference counting and the forced inlining of the function that
# first calls it, unless it sets them itself; called from the round (no reference counting, inlined), a
# base would not compile where it allocates, and would be put whole into every decision site of the round
# (the dice expert's first compile: 24 s). Set, they give the base the build every other caller gets.
BASE_OPTIONS = {"forceinline": False, **({"_nrt": True} if NO_NRT else {})}


# The expert's parameters, in this order in its ``params`` (every rule set declares them alike;
# ``base`` indexes the rule set's ``bases``).
P_ROLLOUTS, P_STOP_Z, P_BASE, P_OBJECTIVE = 0, 1, 2, 3
OWN, RELATIVE = 0, 1  # objectives: the own points of the round; the own minus the others' mean


def expert_params(bases: tuple[str, ...], default_rollouts: int = 256) -> dict:
    """The ``@strategy`` parameter declaration of a rule set's expert. The default budget: at 4 players
    in L.A.M.A. 16 roll-outs lose to climber, 64 cannot be told apart from it, 256 win (reports/expert),
    and still play about 200 rounds per second per core (``benchmarks/expert.py``)."""
    names = ", ".join(f"{i} {name}" for i, name in enumerate(bases))
    return {
        "rollouts": (default_rollouts, MIN_ROLLOUTS, 100_000, "samples per decision at most (every action on each)"),
        "stop_z": (2.0, 0, 50, "stop early when the best action is this many standard errors clear "
                               "of every other (0: never)"),
        "base": (0, 0, len(bases) - 1, f"strategy everyone plays in the roll-outs: {names}"),
        "objective": (RELATIVE, OWN, RELATIVE, "what it minimises: 0 its own points of the round, 1 its points "
                                               "minus the others' mean (in a game the others' points count too)"),
    }


def base_rows(game: str, bases: tuple[str, ...], max_players: int) -> np.ndarray:
    """``rows[b, n]``: the roll-out params row of base ``b`` at ``n`` players: its parameters as it
    plays them at that count (its preset), ``BASE`` = b. Built from the registry, no compiling."""
    rows = np.zeros((len(bases), max_players + 1, ROW), np.float64)
    for b, name in enumerate(bases):
        s = get_strategy(game, name)
        for n in range(2, max_players + 1):
            rows[b, n, :MAX_PARAMS] = s.param_vector(s.preset_for(n))
            rows[b, n, BASE] = b
    return rows


@njit(cache=True, nogil=True, inline="always")
def deal_hidden(unseen, hand, sizes, n, me, pile_n, drng, sampled, pile):
    """One sample of the cards a player cannot see: a partial Fisher-Yates shuffle of ``unseen`` deals
    each other seat ``sizes[s]`` cards (seat ``me`` keeps ``hand``) into ``sampled``; the rest stay in
    ``pile``. Returns where the draw pile of ``pile_n`` cards starts in ``pile``."""
    m = unseen.shape[0]
    for j in range(m):
        pile[j] = unseen[j]
    sampled[:, :] = 0
    taken = 0
    for s in range(n):
        if s == me:
            for c in range(hand.shape[0]):
                sampled[s, c] = hand[c]
            continue
        for _ in range(min(sizes[s], m - taken)):
            j = taken + R.below(drng, m - taken)
            card = pile[j]
            pile[j] = pile[taken]
            pile[taken] = card
            sampled[s, card] += 1
            taken += 1
    return m - pile_n if m - pile_n >= taken else taken  # (the counts agree unless a caller lied)


@njit(cache=True, nogil=True, inline="always")
def legal_actions(legal, actions):
    """The actions of the bit mask ``legal`` into ``actions``, in order; returns how many."""
    k = 0
    for a in range(MAX_CANDIDATES):
        if (legal >> a) & 1:
            actions[k] = a
            k += 1
    return k


@njit(cache=True, nogil=True, inline="always")
def expert_choose(obs, hand, legal, params, rng, tables, world, rollout, decide, base_row):
    """The action the expert takes (see the module docstring); ``base_row``: ``base_rows``' row for
    the base and player count it plays with."""
    actions = np.empty(MAX_CANDIDATES, np.int64)
    k = legal_actions(legal, actions)
    if k == 1:
        return actions[0]
    cap = max(int(params[P_ROLLOUTS]), MIN_ROLLOUTS)
    stop_z = params[P_STOP_Z]
    objective = int(params[P_OBJECTIVE])
    key = R.next_u64(rng)
    sums = np.zeros(k, np.float64)  # per column, over the samples so far: the values' sum
    diffs = np.zeros((k, k), np.float64)  # per pair of columns: the paired differences' sum,
    squares = np.zeros((k, k), np.float64)  # and their squares' sum (the stop rule's, kept as it goes)
    live = np.arange(k)  # the columns still sampled, in action order
    live_actions = actions[:k].copy()
    out = np.zeros(k, np.float64)
    row = base_row.copy()
    scratch = world(tables, obs, hand)
    n_live = k
    for i in range(cap):
        rollout(tables, scratch, obs, hand, live_actions, n_live, key, i, row, decide, objective, out)
        add_sample(out, live, n_live, sums, diffs, squares)
        done = i + 1
        if stop_z > 0 and done >= FIRST_CHECK and done % CHECK_EVERY == 0:
            n_live = keep_contenders(sums, diffs, squares, done, live, n_live, stop_z)
            if n_live == 1:
                return actions[live[0]]
            for j in range(n_live):
                live_actions[j] = actions[live[j]]
    return actions[live[leader(sums, live, n_live)]]


@njit(cache=True, nogil=True, inline="always")
def add_sample(out, live, n_live, sums, diffs, squares):
    """One sample's values of the live columns (``out[j]`` column ``live[j]``'s) into the running sums."""
    for a in range(n_live):
        c = live[a]
        sums[c] += out[a]
        for b in range(n_live):
            if b != a:
                d = out[a] - out[b]
                diffs[c, live[b]] += d
                squares[c, live[b]] += d * d


@njit(cache=True, nogil=True, inline="always")
def rollout_values(obs, hand, legal, key, count, objective, tables, world, rollout, decide, base_row, values):
    """``count`` samples from the stream ``key`` of every legal action (in action order) into
    ``values[:count, :k]``: what ``grade`` weighs a strategy's decisions with."""
    actions = np.empty(MAX_CANDIDATES, np.int64)
    k = legal_actions(legal, actions)
    scratch = world(tables, obs, hand)
    row = base_row.copy()
    for i in range(count):
        rollout(tables, scratch, obs, hand, actions, k, key, i, row, decide, objective, values[i])


class Search:
    """What ``grade`` needs of a rule set's expert (its strategies file's ``EXPERT_SEARCH``):
    ``values(obs, hand, legal, key, count, objective, base, out)``, ``rollout_values`` compiled for the
    rule set, and the names of the bases ``base`` indexes."""

    def __init__(self, values, bases: tuple[str, ...]):
        self.values = values
        self.bases = bases


@njit(cache=True, nogil=True, inline="always")
def leader(sums, live, n_live):
    """The place in ``live`` of the column with the lowest sum (the first on a tie)."""
    best = 0
    best_sum = np.inf
    for j in range(n_live):
        if sums[live[j]] < best_sum - 1e-9:
            best_sum = sums[live[j]]
            best = j
    return best


@njit(cache=True, nogil=True, inline="always")
def keep_contenders(sums, diffs, squares, done, live, n_live, z):
    """Successive elimination and the stop rule, on ``add_sample``'s sums over ``done`` samples: drops from
    ``live`` (in place, order kept) every column whose paired difference to the leader's is ``z``
    standard errors clear of 0, and returns how many columns are left; returns 1 with the leader in
    ``live[0]`` when no column left can be better than the leader by more than ``INDIFFERENCE`` at ``z``
    standard errors (the search stops). A column's value on a sample does not depend on the other
    columns played on it, so the columns left get the values a search of every column would, with no
    roll-outs spent on actions already clearly worse. A column equal to the leader on every sample is
    within the indifference: it does not hold the search up."""
    best = live[leader(sums, live, n_live)]
    kept = 0
    settled = True
    for j in range(n_live):
        c = live[j]
        if c != best:
            s = diffs[c, best]
            mean = s / done
            var = (squares[c, best] - s * mean) / (done - 1)
            se = np.sqrt(var / done) if var > 0.0 else 0.0
            if mean > z * se:
                continue
            if mean + INDIFFERENCE <= z * se:
                settled = False
        live[kept] = c
        kept += 1
    if settled:
        live[0] = best
        return 1
    return kept
