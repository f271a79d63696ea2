"""The designs of a run: who sits where in each play of a deal, and which result unit each seat feeds.

A run is a sequence of *deal blocks* (``run.chunks``). Block ``b`` draws its deal from ``(seed, b)``
alone and is played once per row of a plan's ``entry_of_seat`` table, so every row meets the same deal
(common random numbers).

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
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Union

import numpy as np

from llama_sim.core import registry
from llama_sim.core.scoring import GAME_METRICS, ROUND_METRICS
from llama_sim.core.errors import UsageError
from llama_sim.core.luck import with_luck
from llama_sim.core.ruleset import RuleSet
from llama_sim.core.stats import Stratified, Tally


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
    luck: bool = False  # the tally holds each unit's luck too, and estimates subtract it (``core.luck``)

    @property
    def rotations(self) -> int:
        return self.entry_of_seat.shape[0]

    @property
    def rows(self) -> int:
        """Plays (rounds or games) per block."""
        return self.rotations

    @property
    def metrics(self) -> tuple[str, ...]:
        return raw_metrics(self.games_mode, self.luck)

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
    luck: bool = False  # as ``Plan.luck``

    @property
    def unit_seats(self) -> list[None]:
        return [None] * len(self.unit_labels)

    @property
    def metrics(self) -> tuple[str, ...]:
        return raw_metrics(self.games_mode, self.luck)

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
                                self.unit_seats, self.games_mode, self.cfg, self.kernel, self.luck)
                           for t, u in zip(self.tables, units)]
        return self._plans


Work = Union[Plan, Design]


def raw_metrics(games_mode: bool, luck: bool) -> tuple[str, ...]:
    """The raw metrics a run's tally holds: the mode's, and the luck metric when it adjusts for luck."""
    metrics = GAME_METRICS if games_mode else ROUND_METRICS
    return with_luck(metrics) if luck else metrics


def with_luck_of(work: Work, luck: bool) -> Work:
    """``work`` with luck adjustment on or off (``core.luck``)."""
    if work.luck == luck:
        return work
    return replace(work, luck=luck) if isinstance(work, Plan) else replace(work, luck=luck, _plans=None)


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


def seat_effects_plan(game: RuleSet, player: registry.Player, n_players: int, games_mode: bool,
                      cfg: np.ndarray) -> Plan:
    """Every seat plays ``player``; one unit per seat (the seat table's experiment)."""
    return seat_plan(game, [player] * n_players, games_mode, cfg)


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


def empty_tally(plan: Work) -> Tally | Stratified:
    if isinstance(plan, Design):
        return Stratified.empty(plan.metrics, len(plan.unit_labels), [p.appearances() for p in plan.plans])
    return Tally.empty(plan.metrics, len(plan.unit_labels), plan.appearances())


def deals(work: Work, tally) -> int:
    """Deals (or first deals of games) behind a tally, over all strata."""
    return tally.blocks * (1 if isinstance(work, Plan) else len(work.tables))
