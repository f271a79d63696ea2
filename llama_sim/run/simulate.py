"""Line-ups, seatings, deal blocks, chunks, backends and the ``--precision`` loop.

A run is a sequence of *deal blocks*. Block ``b`` draws its deal from ``(seed, b)`` alone and is
played once per row of a plan's ``entry_of_seat`` table, so every row meets the same deal (common
random numbers). Blocks are cut into fixed-size chunks that run on threads (the kernels release
the GIL) or on Dask workers (``llama_sim.run.backends``); each chunk returns integer sums, so the
merged result is identical for any number of threads, any backend and any chunk order.

``simulate`` plays one fixed line-up (``seat_plan``: one row, one unit per seat).

``compare`` plays a *balanced design* (``comparison_design``), because rotating one line-up is not
enough: with three or more strategies each keeps the same neighbours in every rotation, and who
sits before you matters (measured at 3 players: two copies of ``greedy`` next to ``threshold``
differ by 0.036 penalty points per round, far outside their interval). The design:

* Fill: ``k`` strategies at ``n`` seats, ``n = q k + r``: every strategy gets ``q`` seats and ``r``
  of them one more; every choice of those ``r`` is used, equally often.
* Seatings: every distinct seating of each filled line-up is played. Seatings fall into classes of
  rotations (a seating and its rotations); each class is one *stratum*, and a stratum's block is
  one deal played with every rotation of its seating, so within a block every strategy plays
  every seat of the same deal (seat rotation, common random numbers).
* Strata draw their deals from their own streams (kernel seed ``stratum_seed(seed, c)``), so
  strata are independent and a *design block* (block ``b`` of every stratum) is the unit of
  analysis: intervals are computed over design blocks (``stats.Stratified``).
* The design is closed under relabelling the strategies, so two copies of one strategy have the
  same expected result (exactly: a test checks that their paired interval covers 0 at the stated
  rate), and no strategy is favoured by its seat or its neighbours.

Plays per design block (rows): n=2: 2; n=3: 6; n=4: 6 (k=2), 36 (k=3), 24 (k=4); n=5: 20, 90,
240, 120; n=6: 20, 90, 1080, 1800, 720 (k=2..6).

``--precision X`` (``run_to_precision``): run a first batch of design blocks (at least ``MIN_DEALS``
deals over all strata, so the rule never trusts a variance from a handful of deals), then after every
batch compute every interval the rule covers (the strategies' intervals and every paired
difference of the compared metrics, or the seat values and seat-vs-mean differences of a seat
table); stop when each half-width is at most ``X``. Otherwise the next batch is sized from the
largest half-width ``h`` (half-widths shrink as ``1/sqrt(blocks)``): blocks grow to
``1.1 * B * (h / X)^2``, but at least 1.25x and at most 4x the blocks so far, and never beyond
``--max-rounds``. Batches continue from the blocks already played, so a precision run's blocks
are exactly the first ``B`` blocks of a fixed-count run with the same seed (same numbers).
"""
from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Union

import numpy as np
import pandas as pd

from llama_sim.core import aside, interrupt, registry, stats
from llama_sim.core.interrupt import played  # noqa: F401  (its home for callers)
from llama_sim.core.errors import (  # noqa: F401  (Interrupted: its home for callers)
    Interrupted, UsageError, illegal_action_error, raised_by_a_strategies_file)
from llama_sim.core.ruleset import RuleSet
from llama_sim.core.engine import GAME_METRICS, ROUND_METRICS
from llama_sim.run.lineup import line_up_kernel
from llama_sim.core.stats import Stratified, Tally

CHUNK_BLOCKS_ROUNDS = 16384
CHUNK_BLOCKS_GAMES = 256
MIN_DEALS = 200  # compare: at least this many deals behind every interval (summed over strata)
LEVEL = 0.95


@dataclass
class Plan:
    """Who sits where in each play of a deal, and which result unit each seat feeds."""

    game: RuleSet
    n_players: int
    entries: list[registry.Player]  # line-up entries (one params row each)
    entry_of_seat: np.ndarray  # (rotations, n) entry index
    unit_of_seat: np.ndarray  # (rotations, n) unit index
    unit_labels: list[str]
    unit_seats: list[int | None]  # the seat a unit stands for (simulate), None when pooled
    games_mode: bool
    cfg: np.ndarray
    kernel: str = "auto"  # "generic", "lineup" (the line-up's own kernel, same results) or "auto": ``run``
    # asks ``lineup.choose``; ``run_chunk`` plays "auto" with the generic kernel

    @property
    def rotations(self) -> int:
        return self.entry_of_seat.shape[0]

    @property
    def rows(self) -> int:
        """Plays (rounds or games) per block."""
        return self.rotations

    @property
    def metrics(self) -> tuple[str, ...]:
        return GAME_METRICS if self.games_mode else ROUND_METRICS

    def appearances(self) -> np.ndarray:
        """Observations (rounds or games) each unit contributes per block."""
        return np.bincount(self.unit_of_seat.ravel(), minlength=len(self.unit_labels)).astype(np.int64)


@dataclass
class Design:
    """``compare``'s balanced design: strata of seatings sharing one line-up (see module doc)."""

    game: RuleSet
    n_players: int
    entries: list[registry.Player]
    unit_labels: list[str]
    games_mode: bool
    cfg: np.ndarray
    tables: list[np.ndarray]  # per stratum: (rotations, n) entry (= unit) index
    _plans: list[Plan] | None = field(default=None, repr=False)
    unit_tables: list[np.ndarray] | None = None  # per stratum: unit index, when units are not entries
    kernel: str = "auto"  # as ``Plan.kernel``, for every stratum

    @property
    def unit_seats(self) -> list[None]:
        return [None] * len(self.unit_labels)

    @property
    def metrics(self) -> tuple[str, ...]:
        return GAME_METRICS if self.games_mode else ROUND_METRICS

    @property
    def rows(self) -> int:
        """Plays (rounds or games) per design block: every seating once."""
        return sum(t.shape[0] for t in self.tables)

    @property
    def plans(self) -> list[Plan]:
        """One ``Plan`` per stratum (what the kernels run)."""
        if self._plans is None:
            units = self.unit_tables or [t.copy() for t in self.tables]
            self._plans = [Plan(self.game, self.n_players, self.entries, t, u, self.unit_labels,
                                self.unit_seats, self.games_mode, self.cfg, self.kernel)
                           for t, u in zip(self.tables, units)]
        return self._plans


Work = Union[Plan, Design]


def _check_players(game: RuleSet, n: int) -> None:
    if not game.min_players <= n <= game.max_players:
        raise UsageError(f"{game.name} is played by {game.min_players} to {game.max_players} players, not {n}")


def seat_plan(game: RuleSet, players: list[registry.Player], games_mode: bool, cfg: np.ndarray) -> Plan:
    """``simulate``: seat s always plays ``players[s]``; one unit per seat."""
    n = len(players)
    _check_players(game, n)
    players = [registry.at_table(p, n) for p in players]
    seats = np.arange(n, dtype=np.int64)[None, :]
    return Plan(game, n, players, seats.copy(), seats.copy(), [p.label for p in players], list(range(n)),
                games_mode, cfg)


def unique_labels(players: list[registry.Player]) -> list[str]:
    """Labels that tell two copies of one strategy apart (``greedy``, ``greedy#2``)."""
    seen: dict[str, int] = {}
    labels = []
    for p in players:
        seen[p.label] = seen.get(p.label, 0) + 1
        labels.append(p.label if seen[p.label] == 1 else f"{p.label}#{seen[p.label]}")
    return labels


def _check_lineup(game: RuleSet, n_players: int, k: int) -> None:
    _check_players(game, n_players)
    if k < 1:
        raise UsageError("compare needs at least one strategy")
    if k > n_players:
        raise UsageError(f"{k} strategies do not fit {n_players} seats; raise --players")


def rotation_plan(game: RuleSet, n_players: int, players: list[registry.Player], games_mode: bool,
                  cfg: np.ndarray) -> Plan:
    """One line-up and its rotations in a single table: seat s gets strategy s mod k, and each deal
    is played once per rotation. A convenient multi-row table (kernel-vs-reference tests use it);
    ``compare`` uses ``comparison_design``, because with three or more strategies (or an uneven
    fill) fixed neighbours bias this table's comparisons."""
    k = len(players)
    _check_lineup(game, n_players, k)
    players = [registry.at_table(p, n_players) for p in players]
    base = np.array([s % k for s in range(n_players)], dtype=np.int64)
    table = np.array([np.roll(base, -r) for r in range(n_players)], dtype=np.int64)
    return Plan(game, n_players, players, table, table.copy(), unique_labels(players), [None] * k,
                games_mode, cfg)


def seating_classes(n: int, k: int) -> list[np.ndarray]:
    """The balanced fill's seatings, grouped into rotation classes (one table per stratum).

    Every strategy gets ``n // k`` seats and each ``r = n % k``-subset of strategies one more; all
    distinct seatings of every such line-up are listed, each class holding one seating's distinct
    rotations (``seat s`` of row ``i`` is the class's canonical seating shifted by ``i``).
    Deterministic order: classes sorted by their smallest seating.
    """
    q, r = divmod(n, k)
    seatings: set[tuple[int, ...]] = set()
    for extra in itertools.combinations(range(k), r):
        lineup = [u for u in range(k) for _ in range(q + (u in extra))]
        seatings.update(itertools.permutations(lineup))
    classes: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for s in sorted(seatings):
        rots = [s[i:] + s[:i] for i in range(n)]
        canon = min(rots)
        if canon not in classes:
            classes[canon] = list(dict.fromkeys(canon[i:] + canon[:i] for i in range(n)))
    return [np.array(rows, dtype=np.int64) for _, rows in sorted(classes.items())]


def comparison_design(game: RuleSet, n_players: int, players: list[registry.Player], games_mode: bool,
                      cfg: np.ndarray) -> Design:
    """``compare``: the balanced design of the module docstring; one unit per strategy."""
    k = len(players)
    _check_lineup(game, n_players, k)
    if k < 2:
        raise UsageError("compare needs at least two strategies (for one, use --seat-table or simulate)")
    players = [registry.at_table(p, n_players) for p in players]
    return Design(game, n_players, players, unique_labels(players), games_mode, cfg,
                  seating_classes(n_players, k))


def sweep_design(game: RuleSet, n_players: int, swept: list[registry.Player], opponents: list[registry.Player],
                 games_mode: bool, cfg: np.ndarray) -> Design:
    """``sweep``: each swept value's comparison design against the same opponents, stacked into one
    design so every value plays the same deals in the same block (the kernels seed deals and
    policies per block, never per row, so each value's numbers equal those of its own run) and
    the tally holds the block covariance *between* values: the paired difference of any two values.

    Units: ``0..V-1`` the swept values, ``V..2V-1`` the first opponent at value v's table, and one
    unit for every other opponent seat (not reported)."""
    single = comparison_design(game, n_players, [swept[0]] + list(opponents), games_mode, cfg)
    n_values, k = len(swept), 1 + len(opponents)
    entries = list(swept) + list(opponents)
    others = 2 * n_values
    tables, unit_tables = [], []
    for t in single.tables:
        tables.append(np.concatenate([np.array([v] + [n_values + j for j in range(k - 1)])[t]
                                      for v in range(n_values)]))
        unit_tables.append(np.concatenate([np.array([v, n_values + v] + [others] * (k - 2))[t]
                                           for v in range(n_values)]))
    labels = ([p.label for p in swept] + [f"{single.unit_labels[1]} (vs {p.label})" for p in swept]
              + (["other opponents"] if k > 2 else []))
    return Design(game, n_players, entries, labels, games_mode, cfg, tables, unit_tables=unit_tables)


def stratum_seed(seed: int, stratum: int) -> int:
    """The kernel seed of stratum ``c``: a SplitMix64 hash of (seed, c), independent streams."""
    mask = (1 << 64) - 1

    def mix(x: int) -> int:
        x = (x + 0x9E3779B97F4A7C15) & mask
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    return mix(mix(seed & mask) ^ mix(0x5EA7_0000 + stratum))


def with_kernel(work: Work, kernel: str) -> Work:
    """``work`` played by the ``kernel`` kind (``Plan.kernel``)."""
    if work.kernel == kernel:
        return work
    if isinstance(work, Plan):
        return replace(work, kernel=kernel)
    return replace(work, kernel=kernel, _plans=None)


def strata(work: Work, seed: int) -> list[tuple[Plan, int]]:
    """(plan, kernel seed) per stratum: a ``Plan`` is one stratum played on ``seed`` itself."""
    if isinstance(work, Plan):
        return [(work, seed)]
    return [(p, stratum_seed(seed, c)) for c, p in enumerate(work.plans)]


# The most rounds (or games) one table may ask for. Why a limit: the tallies are exact int64 sums
# of per-block values and their products, which stay far from overflow below it (a round's
# penalty is under 100 points, a block under 1800 plays); and at 10^7 rounds/s per core it is
# already about three core-hours. Below it memory is flat (chunks are generated lazily).
MAX_PLAYS = 10**11


def check_plays(work: Work, n_blocks: int) -> None:
    if n_blocks * work.rows > MAX_PLAYS:
        what = "games" if work.games_mode else "rounds"
        raise UsageError(f"{n_blocks * work.rows} {what} is more than one run can schedule: at most "
                         f"{MAX_PLAYS} (1e11) {what} per table")


def blocks_for(plan: Work, count: int) -> int:
    """Blocks needed for at least ``count`` rounds (or games): whole blocks only."""
    if count <= 0:
        raise UsageError(f"the number of rounds or games must be positive, not {count}")
    blocks = -(-count // plan.rows)
    check_plays(plan, blocks)
    return blocks


def min_blocks(work: Work, precision: bool = False) -> int:
    """Fewest (design) blocks ``compare`` reports on: 2 (an interval needs a variance), and for
    ``--precision`` enough for ``MIN_DEALS`` deals over all strata, so the stopping rule never
    trusts a variance estimated from a handful of deals."""
    if not precision:
        return 2
    n_strata = 1 if isinstance(work, Plan) else len(work.tables)
    return max(2, math.ceil(MIN_DEALS / n_strata))


def empty_tally(plan: Work) -> Tally | Stratified:
    if isinstance(plan, Design):
        return Stratified.empty(plan.metrics, len(plan.unit_labels), [p.appearances() for p in plan.plans])
    return Tally.empty(plan.metrics, len(plan.unit_labels), plan.appearances())


MAX_SEED = 2**64 - 1


def check_seed(seed: int) -> int:
    """A seed is a 64-bit unsigned number; anything else would be folded silently onto another."""
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed must be a whole number from 0 to 2**64-1 ({MAX_SEED}), not {seed}")
    return seed


def _endless_game(plan: Plan) -> UsageError:
    """The kernels give up on a game after ``MAX_ROUNDS_PER_GAME`` rounds without a winner. Which
    games can end depends on the strategies as much as on the cards (with any deck that can be
    dealt, players who quit at once end a game in a few rounds; two greedy players with an
    all-llama Kadabra deck stake every token on the stage and never collect), so it is reported
    as a property of this line-up and these rules, in one line."""
    from llama_sim.core.engine import GAME_END_SCORE, MAX_ROUNDS_PER_GAME

    rules = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in plan.game.describe_config(plan.cfg).items())
    return UsageError(f"a {plan.game.name} game of {', '.join(plan.unit_labels)} did not end within "
                      f"{MAX_ROUNDS_PER_GAME} rounds (nobody reached {GAME_END_SCORE} points)"
                      + (f" with {rules}" if rules else "") + ": these strategies cannot finish a game "
                      "under these rules; play single rounds (--rounds) instead")


def run_chunk(plan: Plan, seed: int, first_block: int, n_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Play blocks [first_block, first_block + n_blocks) and return their (s1, s2) sums."""
    d = len(plan.metrics) * len(plan.unit_labels)
    s1 = np.zeros(d, np.int64)
    s2 = np.zeros((d, d), np.int64)
    params = np.ascontiguousarray(np.array([p.params for p in plan.entries], dtype=np.float64))
    if plan.kernel == "lineup":  # (checked first: its module compiles the policies it calls)
        policies, slots = registry.policy_tuple(plan.entries)
        kernel, other = line_up_kernel(plan.game.name, plan.entries), aside.Aside()
    else:  # a cold kernel compiles here while cold policies compile in another process (``core.aside``)
        policies, kernel = None, plan.game.run_blocks
        other = aside.start(kernel, [p.strategy for p in plan.entries])
    try:
        with other:
            compiled = kernel.get()
        if policies is None:
            policies, slots = registry.policy_tuple(plan.entries)
        interrupt.call(compiled, np.uint64(check_seed(seed)), first_block, n_blocks, plan.n_players,
                       plan.entry_of_seat, plan.unit_of_seat, len(plan.unit_labels), plan.games_mode,
                       policies, slots, params, plan.cfg, s1, s2)
    except (Interrupted, UsageError):  # Ctrl-C while waiting for the kernel's thread; a policy that does not
        raise  # compile (``policy_tuple``)
    except ValueError as exc:
        raise_illegal_action(exc, plan, (seed, first_block, n_blocks))
        if exc.args == ("game did not end",) and not raised_by_a_strategies_file(exc):  # core.engine's report
            raise _endless_game(plan) from None
        raise policy_error(exc, plan.entries) from None
    except Exception as exc:  # IndexError of a bounds check, ZeroDivisionError, ...: a policy's code
        if interrupt.REQUESTED.is_set():  # Ctrl-C while compiling: Numba may wrap it in its own error
            raise Interrupted() from None
        raise policy_error(exc, plan.entries) from None
    return s1, s2


def policy_error(exc: BaseException, entries) -> UsageError:
    """The one line for an exception a kernel raised that is not the engine's own report (a strategies
    file's code raised it: ``registry.failed_while_playing``)."""
    return registry.failed_while_playing(exc, [p.strategy for p in entries])


def raise_illegal_action(exc: BaseException, plan: Plan, blocks: tuple[int, int, int] | None = None) -> None:
    """Re-raise an engine's illegal-action error (``errors.ILLEGAL_ACTION``) as the ``UsageError``
    naming the strategy, the seat, the action and, given the (seed, first block, blocks) it played,
    the position (``replay.illegal_position``); return for any other exception. Used for the kernels
    (``run_chunk``, on threads and Dask workers) and the reference engines alike."""
    from llama_sim.run.replay import illegal_position

    position = (lambda: illegal_position(plan, *blocks)) if blocks is not None else None
    error = illegal_action_error(exc, [p.label for p in plan.entries], plan.game.action_names, position)
    if error is not None:
        raise error from None


def chunk_ranges(first_block: int, n_blocks: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(first block, blocks) of each chunk, generated as needed: a run of 10^9 rounds never holds
    its chunk list in memory."""
    for b in range(first_block, first_block + n_blocks, chunk):
        yield b, min(chunk, first_block + n_blocks - b)


def default_threads() -> int:
    return max(1, os.cpu_count() or 1)


def warm_up(plan: Plan) -> None:
    """Compile (or load from the disk cache) everything a run needs, once, before timing."""
    run_chunk(plan, 0, 0, 1)


@dataclass(frozen=True)
class Task:
    """One chunk: blocks [first_block, first_block + n_blocks) of stratum ``stratum``."""

    stratum: int
    seed: int
    first_block: int
    n_blocks: int


def auto_chunk(games_mode: bool, n_blocks: int, n_strata: int) -> int:
    """Blocks per chunk: large enough that a kernel call's fixed cost (about 0.2 ms, most of it
    unboxing the policy tuple) stays around 1%, small enough for at least ~8 chunks to balance the
    workers."""
    lo, hi = (16, CHUNK_BLOCKS_GAMES) if games_mode else (1024, CHUNK_BLOCKS_ROUNDS)
    return max(lo, min(hi, math.ceil(n_blocks * n_strata / 8)))


def iter_tasks(work: Work, seed: int, first_block: int, n_blocks: int, chunk: int | None = None) -> Iterator[Task]:
    """The chunks of a run, generated lazily (backends keep only a window of them in flight)."""
    chunk = chunk or auto_chunk(work.games_mode, n_blocks, len(strata(work, seed)))
    if chunk < 1:
        raise UsageError(f"chunk size must be positive, not {chunk}")
    for c, (_, s) in enumerate(strata(work, seed)):
        for b, nb in chunk_ranges(first_block, n_blocks, chunk):
            yield Task(c, s, b, nb)


def tasks_for(work: Work, seed: int, first_block: int, n_blocks: int, chunk: int | None = None) -> list[Task]:
    return list(iter_tasks(work, seed, first_block, n_blocks, chunk))


# ------------------------------------------------------------------------------------ tables

def compared_metrics(games_mode: bool, chosen: list[str] | None = None) -> tuple[str, ...]:
    """The metrics that get paired differences and a ranking (and that ``--precision`` covers):
    ``penalty_per_round``, plus ``win_rate`` in game mode, unless ``chosen``."""
    mode = "game" if games_mode else "round"
    if not chosen:
        return ("penalty_per_round", "win_rate") if games_mode else ("penalty_per_round",)
    for m in chosen:
        if m not in stats.REPORTED[mode]:
            raise UsageError(f"--metric {m}: choose from {', '.join(stats.REPORTED[mode])}"
                             + ("" if games_mode else " (win_rate, final_score, rounds_per_game need --games)"))
    return tuple(dict.fromkeys(chosen))


def comparison_half_width(metrics) -> Callable[[Tally | Stratified], float]:
    """Largest half-width over the strategies' intervals and every paired difference."""
    return lambda tally: stats.max_half_width(tally, metrics, LEVEL, pairs=True)


def seat_half_width(metrics) -> Callable[[Tally | Stratified], float]:
    """Largest half-width over the seats' intervals and every seat-vs-mean difference."""
    return lambda tally: stats.max_half_width(tally, metrics, LEVEL, vs_mean=True)


PAIRED_COLUMNS = ["game", "players", "metric", "strategy_a", "strategy_b", "diff", "ci_low", "ci_high",
                  "p_value", "p_holm", "better", "unpaired_ci_low", "unpaired_ci_high", "deals", "seed"]
RANKING_COLUMNS = ["game", "players", "metric", "rank", "strategy", "value", "ci_low", "ci_high", "n",
                   "indistinguishable_from", "seed"]
SEAT_COLUMNS = ["game", "players", "strategy", "seat", "metric", "value", "ci_low", "ci_high", "vs_mean",
                "vs_mean_ci_low", "vs_mean_ci_high", "p_value", "p_holm", "deals", "seed"]


def better(metric: str, diff: float, p_holm: float, a: str, b: str) -> str:
    """Who is better when the Holm-adjusted test separates them, else ''."""
    if not p_holm < 1 - LEVEL or diff == 0:
        return ""
    if metric in stats.LOWER_IS_BETTER:
        return a if diff < 0 else b
    if metric in stats.HIGHER_IS_BETTER:
        return a if diff > 0 else b
    return ""


def deals(work: Work, tally) -> int:
    """Deals (or first deals of games) behind a tally, over all strata."""
    return tally.blocks * (1 if isinstance(work, Plan) else len(work.tables))


def paired_table(work: Work, tally, seed: int, metrics) -> pd.DataFrame:
    """Every pair of strategies, per compared metric: ``diff = a - b`` with its paired 95% interval,
    p-value, Holm-adjusted p-value (over the pairs of that metric), and the interval the same data
    would give without pairing."""
    frames = []
    labels = work.unit_labels
    for m in metrics:
        df = stats.paired(tally, m, LEVEL)
        a = [labels[u] for u in df["unit_a"]]
        b = [labels[u] for u in df["unit_b"]]
        frames.append(pd.DataFrame({
            "game": work.game.name, "players": work.n_players, "metric": m, "strategy_a": a, "strategy_b": b,
            "diff": df["diff"], "ci_low": df["ci_low"], "ci_high": df["ci_high"], "p_value": df["p_value"],
            "p_holm": df["p_holm"],
            "better": [better(m, d, p, x, y) for d, p, x, y in zip(df["diff"], df["p_holm"], a, b)],
            "unpaired_ci_low": df["unpaired_ci_low"], "unpaired_ci_high": df["unpaired_ci_high"],
            "deals": deals(work, tally), "seed": seed}, columns=PAIRED_COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PAIRED_COLUMNS)


def ranking_table(work: Work, tally, seed: int, metrics) -> pd.DataFrame:
    """Best first per ranked metric; ``indistinguishable_from`` lists the strategies the data cannot
    separate from this one (Holm-adjusted paired p >= 0.05)."""
    frames = []
    labels = work.unit_labels
    for m in metrics:
        if m not in stats.LOWER_IS_BETTER | stats.HIGHER_IS_BETTER:
            continue
        df = stats.ranking(tally, m, LEVEL)
        frames.append(pd.DataFrame({
            "game": work.game.name, "players": work.n_players, "metric": m, "rank": df["rank"],
            "strategy": [labels[u] for u in df["unit"]], "value": df["value"], "ci_low": df["ci_low"],
            "ci_high": df["ci_high"], "n": df["n"].astype(np.int64),
            "indistinguishable_from": [", ".join(labels[v] for v in close) for close in df["indistinguishable_from"]],
            "seed": seed}, columns=RANKING_COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RANKING_COLUMNS)


def seat_table(plan: Plan, tally: Tally, seed: int, metrics) -> pd.DataFrame:
    """Seat effects of an all-same-strategy table: each seat's value with its interval, and its
    difference from the mean of all seats (``vs_mean``; a negative penalty difference is an
    advantage) with a paired 95% interval and Holm-adjusted p-values over the seats."""
    frames = []
    for m in metrics:
        vm = stats.versus_mean(tally, m, LEVEL)
        own = stats.summarise(tally, LEVEL, metrics=(m,))
        frames.append(pd.DataFrame({
            "game": plan.game.name, "players": plan.n_players, "strategy": plan.entries[0].label,
            "seat": vm["unit"].astype(np.int64), "metric": m, "value": own["value"], "ci_low": own["ci_low"],
            "ci_high": own["ci_high"], "vs_mean": vm["vs_mean"], "vs_mean_ci_low": vm["ci_low"],
            "vs_mean_ci_high": vm["ci_high"], "p_value": vm["p_value"], "p_holm": vm["p_holm"],
            "deals": tally.blocks, "seed": seed}, columns=SEAT_COLUMNS))
    return pd.concat(frames, ignore_index=True)


def seat_effects_plan(game: RuleSet, player: registry.Player, n_players: int, games_mode: bool,
                      cfg: np.ndarray) -> Plan:
    """Every seat plays ``player``; one unit per seat (the seat table's experiment)."""
    return seat_plan(game, [player] * n_players, games_mode, cfg)
