"""Tune all of a strategy's parameters at once, under noise: a race on common deals.

Search space: every parameter of the strategy within its registry bounds. A parameter whose
default and bounds are whole numbers (thresholds, counts, 0/1 switches) is searched on the
integer grid; the others are continuous. The candidates are the starting parameters plus a
Latin-hypercube sample of the box (seeded by ``seed``); when the whole grid is no larger than
``candidates`` (all-integer parameters), every grid point is a candidate.

The race (``race``) runs in stages. In a stage every surviving candidate plays the same new deal
blocks: one block is one deal (a full game with the win rate, a single round with
``penalty_per_round``) played once per candidate and seat, the candidate in that seat and the
field in the other seats in a fixed cyclic order (so every candidate meets the same cards, dice
and policy streams: common random numbers, see ``simulate``). After a stage the leader is the
candidate with the best value; each other candidate's paired difference to the leader
(``stats.paired``, over blocks) gets an interval at level ``1 - 0.05 / (survivors - 1)``
(Bonferroni over the stage's comparisons); a candidate whose whole interval is worse than the
leader is dropped (``worse``). Then successive halving keeps at most half of the stage's
candidates (the best by value; the others are dropped as ``halved``), so the race ends within
``ceil(log2(candidates))`` stages. Each stage gets the budget left divided by the stages that can
still follow (``ceil(log2(survivors))``), so when racing drops many candidates early the few left
get more deals.

Two rounds when the sample cannot list the whole grid: a global race over the sample with half
the search budget, then a local race (on its own seed stream) over a grid or sample of the box
one sample cell around the global pick (``local_points``), with the other half.

Against a fixed field (``vs="greedy,greedy,greedy"``: one spec for every other seat, or exactly
``players - 1`` specs) the data of all stages is pooled. In self-play (``vs="self"``) the other
seats play the incumbent: the starting parameters at first, and as soon as the race drops the
incumbent, the best survivor. Only data played against the current field is pooled (the pool
starts again after a change); keeping the incumbent while it survives keeps the field (and the
pooled data) stable instead of following the noise of which candidate leads.

Budget: counted in rounds played (a full game counts its rounds; every seat's play of a deal is
one play). Every stage plays at least 2 blocks (an interval needs a variance), so a budget too
small for that is exceeded by those blocks. The race spends about ``1 - FINAL_SHARE`` of it; the final check the rest: the pick
and the starting parameters are re-measured on fresh deals (a different seed stream) and
reported with the paired interval of their difference. Against a fixed field both play every seat
against that field; in self-play they meet in ``compare``'s balanced design (head to head).

Same seed, same result, for any thread count (``backends.run`` merges exact integer sums).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from llama_sim.core import registry, stats
from llama_sim.core.errors import UsageError
from llama_sim.analysis.runs import game_options
from llama_sim.core.luck import resolve
from llama_sim.core.ruleset import RuleSet, get_game
from llama_sim.run.backends import run
from llama_sim.run.designs import Plan, comparison_design, stratum_seed, with_luck_of
from llama_sim.core.stats import Tally

METRICS = ("win_rate", "penalty_per_round")
LEVEL = 0.95
FINAL_SHARE = 0.25  # of the budget: the final re-measurement on fresh deals
MAX_CANDIDATES = 32
FRESH_STREAM = 0xF1_4A1  # stratum_seed(seed, FRESH_STREAM): the final check's deals
MIN_BUDGET = 1000


# ------------------------------------------------------------------------------------ search space

@dataclass(frozen=True)
class Space:
    """The box searched: per parameter its bounds and whether it lives on the integer grid."""

    names: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    integer: np.ndarray  # bool per parameter

    @property
    def dims(self) -> int:
        return len(self.names)

    def grid_size(self) -> float:
        """Points of the integer grid, or inf when a parameter is continuous."""
        if not self.integer.all():
            return math.inf
        return float(np.prod(self.high - self.low + 1))

    def snap(self, points: np.ndarray) -> np.ndarray:
        """Round integer parameters to the grid and clip everything into the box."""
        out = np.clip(points, self.low, self.high)
        out[:, self.integer] = np.round(out[:, self.integer])
        return out


def _whole(x: float) -> bool:
    return float(x).is_integer()


def search_space(strategy: registry.Strategy) -> Space:
    """Every parameter of ``strategy`` within its registry bounds (see the module docstring)."""
    ps = strategy.params
    if not ps:
        raise UsageError(f"{strategy.game} strategy '{strategy.name}' has no parameters to tune")
    for p in ps:  # candidates are drawn across [low, high]: an infinite side would give inf and NaN
        if not (math.isfinite(p.low) and math.isfinite(p.high)):
            raise UsageError(f"cannot tune {strategy.game} strategy '{strategy.name}': parameter {p.name} has "
                             f"bounds [{p.low:g}, {p.high:g}]; tune searches between finite bounds")
    return Space(tuple(p.name for p in ps), np.array([p.low for p in ps]), np.array([p.high for p in ps]),
                 np.array([_whole(p.low) and _whole(p.high) and _whole(p.default) for p in ps]))


def candidate_points(space: Space, start: np.ndarray, count: int, seed: int) -> np.ndarray:
    """``start`` first, then the whole grid (when it has at most ``count`` points) or a Latin
    hypercube sample of the box; snapped to the grid, duplicates removed, order fixed by ``seed``."""
    start = np.asarray(start, dtype=float)[: space.dims]
    if space.grid_size() <= count:
        axes = [np.arange(lo, hi + 1) for lo, hi in zip(space.low, space.high)]
        sample = np.array(np.meshgrid(*axes, indexing="ij")).reshape(space.dims, -1).T.astype(float)
    else:
        gen = np.random.default_rng([seed & 0xFFFFFFFF, 0x7E5E])
        strata_ = (np.array([gen.permutation(count) for _ in range(space.dims)]).T + gen.random((count, space.dims)))
        sample = space.low + strata_ / count * (space.high - space.low)
    points = space.snap(np.vstack([start[None, :], sample]))
    _, first = np.unique(points, axis=0, return_index=True)
    return points[np.sort(first)]


# ------------------------------------------------------------------------------------ evaluators

class Evaluator(Protocol):
    """What the race needs: play candidates against a field on blocks of one seed stream.

    ``measure`` returns a tally whose units ``0..K-1`` are the candidates (more units may follow,
    e.g. the field; the race ignores them) and the rounds the blocks cost. ``final`` plays the
    pick against the starting point and returns (tally, rounds) with units 0 = pick, 1 = start.
    """

    metric: str

    def measure(self, points: np.ndarray, field: np.ndarray | None, seed: int, first_block: int,
                n_blocks: int) -> tuple[Tally, int]: ...

    def final(self, pick: np.ndarray, start: np.ndarray, field: np.ndarray | None, seed: int,
              n_blocks: int) -> tuple[Tally, int]: ...

    def rounds_per_block(self, candidates: int, final: bool) -> float | None:
        """Rounds one block costs, or None while unknown (full games: known after a first stage)."""


def _rounds_played(tally: Tally, candidates: int, plays_per_block: int) -> int:
    if tally.mode == "round":
        return tally.blocks * plays_per_block
    return int(sum(tally.s1[tally.index("rounds", c)] for c in range(candidates)))


class GameEvaluator:
    """Candidates of one strategy in a real game: one ``Plan`` whose rows put each candidate in
    each seat with the field around it (module docstring); units: the candidates, then the field."""

    def __init__(self, game: RuleSet, strategy: registry.Strategy, players: int, field: list[registry.Player] | None,
                 metric: str, cfg: np.ndarray, threads: int | None = None, luck: bool = False):
        self.game, self.strategy, self.players, self.fixed_field = game, strategy, players, field
        self.metric, self.cfg, self.threads, self.luck = metric, cfg, threads, luck  # (``core.luck``)
        self.games_mode = metric == "win_rate"
        self._rounds_per_play: float | None = None if self.games_mode else 1.0

    def player(self, point: np.ndarray, label: str) -> registry.Player:
        vec = np.zeros(registry.MAX_PARAMS)
        vec[: len(point)] = point
        return registry.Player(self.strategy, vec, label)

    def field_players(self, field: np.ndarray | None) -> list[registry.Player]:
        if self.fixed_field is not None:
            return self.fixed_field
        return [self.player(field, "leader")] * (self.players - 1)

    def plan(self, points: np.ndarray, field: np.ndarray | None) -> Plan:
        n, k = self.players, len(points)
        others = self.field_players(field)
        entries = [self.player(p, f"c{i}") for i, p in enumerate(points)] + list(others)
        rows, units = [], []
        for c in range(k):
            for seat in range(n):
                row, unit = np.empty(n, np.int64), np.full(n, k, np.int64)
                row[seat], unit[seat] = c, c
                for j in range(n - 1):
                    row[(seat + 1 + j) % n] = k + j
                rows.append(row)
                units.append(unit)
        return Plan(self.game, n, entries, np.array(rows), np.array(units), [f"c{i}" for i in range(k)] + ["field"],
                    [None] * (k + 1), self.games_mode, self.cfg, luck=self.luck)

    def measure(self, points, field, seed, first_block, n_blocks):
        tally = run(self.plan(points, field), seed, first_block, n_blocks, self.threads)
        rounds = _rounds_played(tally, len(points), len(points) * self.players)
        if self.games_mode:
            plays = tally.blocks * len(points) * self.players
            self._rounds_per_play = rounds / plays if plays else None
        return tally, rounds

    def final(self, pick, start, field, seed, n_blocks):
        if self.fixed_field is not None:
            return self.measure(np.vstack([pick, start]), None, seed, 0, n_blocks)
        pair = [self.player(pick, "pick"), self.player(start, "start")]
        design = with_luck_of(comparison_design(self.game, self.players, pair, self.games_mode, self.cfg), self.luck)
        tally = run(design, seed, 0, n_blocks, self.threads)
        plays = design.rows * n_blocks
        if self.games_mode:  # every seat of a game counts the game's rounds: divide by the seats
            rounds = int(sum(tally.s1[tally.index("rounds", u)] for u in (0, 1))) // self.players
        else:
            rounds = plays
        return tally, rounds

    def rounds_per_block(self, candidates, final):
        if self._rounds_per_play is None:
            return None
        if final and self.fixed_field is None:
            plays = comparison_design(self.game, self.players, [self.player(np.zeros(0), "a")] * 2,
                                      self.games_mode, self.cfg).rows
        else:
            plays = candidates * self.players
        return plays * self._rounds_per_play


# ------------------------------------------------------------------------------------ the race

RACE_COLUMNS = ["round", "stage", "candidate", "field", "blocks", "value", "ci_low", "ci_high", "diff_vs_leader",
                "diff_ci_low", "diff_ci_high", "level", "leader", "status"]


@dataclass
class RaceOutcome:
    pick: int  # candidate index
    race: pd.DataFrame
    rounds: int
    stages: int


def _subset(tally: Tally, keep: list[int]) -> Tally:
    """The tally of units ``keep`` only (exact: a sub-vector of s1 and a sub-matrix of s2)."""
    idx = [m * tally.units + u for m in range(len(tally.metrics)) for u in keep]
    return Tally(tally.metrics, len(keep), tally.appearances[keep], tally.blocks, tally.s1[idx],
                 tally.s2[np.ix_(idx, idx)])


def _sign(metric: str) -> float:
    return 1.0 if metric in stats.HIGHER_IS_BETTER else -1.0


def race(points: np.ndarray, evaluator: Evaluator, budget: int, seed: int, self_play: bool,
         start_index: int = 0, level: float = LEVEL) -> RaceOutcome:
    """Race ``points`` (module docstring) within ``budget`` rounds; returns the pick and a tidy
    table: one row per stage and candidate still in it (``status``: alive, worse, halved)."""
    metric, sign = evaluator.metric, _sign(evaluator.metric)
    alive = list(range(len(points)))
    spent, next_block, stage = 0, 0, 0
    leader = start_index
    pool: Tally | None = None
    pool_members: list[int] = []
    rows = []
    while True:
        field = points[leader] if self_play else None
        stages_left = max(1, math.ceil(math.log2(len(alive))))  # halving: at most this many stages remain
        stage_budget = (budget - spent) / stages_left
        cost = evaluator.rounds_per_block(len(alive), final=False)
        if cost is None:  # full games: a pilot of 2 blocks measures the rounds per game
            tally, r = evaluator.measure(points[alive], field, seed, next_block, 2)
            next_block, spent = next_block + 2, spent + r
            stage_budget -= r
            cost = evaluator.rounds_per_block(len(alive), final=False)
            new = tally
            extra = max(0, int(stage_budget // cost))
        else:
            new = None
            extra = max(2, int(stage_budget // cost))
        if extra:
            tally, r = evaluator.measure(points[alive], field, seed, next_block, extra)
            next_block, spent = next_block + extra, spent + r
            new = tally if new is None else new.merge(tally)
        new = _subset(new, list(range(len(alive))))
        if pool is not None:
            pool = _subset(pool, [pool_members.index(c) for c in alive]).merge(new)
        else:
            pool = new
        pool_members = list(alive)
        summary = stats.summarise(pool, level, metrics=(metric,))
        values = summary["value"].to_numpy()
        best = int(np.argmax(sign * values))
        stage_level = 1 - (1 - level) / max(1, len(alive) - 1)
        diffs = {}
        if len(alive) > 1:
            pairs = stats.paired(pool, metric, stage_level)
            for p in pairs.itertuples():
                if p.unit_a == best:
                    diffs[p.unit_b] = (-p.diff, -p.ci_high, -p.ci_low)
                elif p.unit_b == best:
                    diffs[p.unit_a] = (p.diff, p.ci_low, p.ci_high)
        status = {}
        for i in range(len(alive)):
            d = diffs.get(i)
            worse = d is not None and max(sign * d[1], sign * d[2]) < 0  # the whole interval is worse
            status[i] = "worse" if worse else "alive"
        survivors = [i for i in range(len(alive)) if status[i] == "alive"]
        keep = max(1, math.ceil(len(alive) / 2))
        if len(survivors) > keep:
            ranked = sorted(survivors, key=lambda i: (-sign * values[i], alive[i]))
            for i in ranked[keep:]:
                status[i] = "halved"
            survivors = sorted(ranked[:keep])
        for i, c in enumerate(alive):
            d = diffs.get(i, (0.0, 0.0, 0.0))
            s = summary.iloc[i]
            rows.append({"round": "", "stage": stage, "candidate": c, "field": "fixed" if not self_play else f"c{leader}",
                         "blocks": pool.blocks, "value": s.value, "ci_low": s.ci_low, "ci_high": s.ci_high,
                         "diff_vs_leader": d[0], "diff_ci_low": d[1], "diff_ci_high": d[2], "level": stage_level,
                         "leader": c == alive[best], "status": status[i]})
        alive = [alive[i] for i in survivors]
        stage += 1
        if len(alive) == 1 or spent >= budget:
            pick = alive[int(np.argmax([sign * values[pool_members.index(c)] for c in alive]))]
            return RaceOutcome(pick, pd.DataFrame(rows, columns=RACE_COLUMNS), spent, stage)
        if self_play and leader not in alive:
            # the field's leader was dropped: the best survivor takes over the other seats; data
            # played against the old field is not pooled with data against the new one
            leader = alive[int(np.argmax([sign * values[pool_members.index(c)] for c in alive]))]
            pool = None


# ------------------------------------------------------------------------------------ tune

CANDIDATE_COLUMNS = ["game", "players", "strategy", "candidate", "round", "params", "start", "stages_run", "status",
                     "blocks", "value", "ci_low", "ci_high", "pick"]
FINAL_COLUMNS = ["game", "players", "strategy", "vs", "metric", "which", "params", "value", "ci_low", "ci_high",
                 "diff_vs_start", "diff_ci_low", "diff_ci_high", "p_value", "deals", "rounds", "seed"]


def params_text(names, point) -> str:
    return ",".join(f"{k}={v:g}" for k, v in zip(names, point))


@dataclass
class TuneResult:
    """``candidates``: one row per candidate (its parameters in columns named after them, where the
    race left it); ``race``: one row per stage and candidate in it; ``final``: the pick and the
    starting parameters re-measured on fresh deals, the pick's row with the paired difference."""

    game: str
    strategy: str
    players: int
    vs: str
    metric: str
    seed: int
    budget: int
    names: tuple[str, ...]
    pick: dict
    start: dict
    candidates: pd.DataFrame
    race: pd.DataFrame
    final: pd.DataFrame
    rounds: int
    vs_values: str = ""  # the field with the values it plays at the table (presets resolved), for headers
    luck: bool = False  # its penalties were luck-adjusted (``core.luck``)

    @property
    def pick_spec(self) -> str:
        return f"{self.strategy}:{params_text(self.names, self.pick.values())}"

    def summary(self) -> dict:
        row = self.final.iloc[0]
        return {"game": self.game, "players": self.players, "strategy": self.strategy, "vs": self.vs,
                "metric": self.metric, "pick": self.pick_spec, "start": params_text(self.names, self.start.values()),
                "value": row.value, "edge": row.diff_vs_start, "edge_ci_low": row.diff_ci_low,
                "edge_ci_high": row.diff_ci_high, "verdict": self.verdict, "rounds": self.rounds,
                "seed": self.seed, **({"luck": "on"} if self.luck else {})}

    @property
    def verdict(self) -> str:
        """What the fresh deals say about the pick against the start: ``better`` or ``worse`` when
        the edge's 95% interval excludes 0, ``same parameters``, or ``no difference shown``."""
        row = self.final.iloc[0]
        if self.pick == self.start:
            return "same parameters"
        sign = _sign(self.metric)
        if min(sign * row.diff_ci_low, sign * row.diff_ci_high) > 0:
            return "better"
        if max(sign * row.diff_ci_low, sign * row.diff_ci_high) < 0:
            return "worse"
        return "no difference shown"

    def plot(self):
        """The race: each stage's candidates' paired difference to the stage leader with its
        (Bonferroni) interval, dropped ones marked, the pick starred where the race picked it (ringed in
        its earlier stages); and the final check, pick vs start. The legend names only what is drawn."""
        from llama_sim.analysis.plots import new_figure

        fig = new_figure(11, 5.6)
        ax, ax2 = fig.subplots(1, 2, width_ratios=[3, 1])
        colours = {"alive": "tab:blue", "worse": "tab:red", "halved": "tab:orange"}
        names = {"alive": "kept", "worse": "dropped: worse", "halved": "dropped: halving"}
        race_df = self.race
        pick = self.candidates.loc[self.candidates.pick, "candidate"].iloc[0]
        last_stage = race_df.loc[race_df["candidate"] == pick, "stage"].max()
        for stage, group in race_df.groupby("stage"):
            order = group.sort_values("diff_vs_leader", ascending=self.metric not in stats.HIGHER_IS_BETTER)
            xs = stage + np.linspace(-0.35, 0.35, len(order)) if len(order) > 1 else np.array([stage], float)
            for x, r in zip(xs, order.itertuples()):
                ax.errorbar(x, r.diff_vs_leader, yerr=[[r.diff_vs_leader - r.diff_ci_low],
                                                      [r.diff_ci_high - r.diff_vs_leader]],
                            fmt="o", ms=4, color=colours[r.status], capsize=2)
                if r.candidate == pick:
                    if stage == last_stage:
                        ax.plot(x, r.diff_vs_leader, "*", ms=14, color="gold", mec="k", zorder=5)
                    else:
                        ax.plot(x, r.diff_vs_leader, "o", ms=9, mfc="none", mec="goldenrod", mew=1.5, zorder=5)
        ax.axhline(0, color="grey", lw=0.8)
        # symlog: the far-off candidates of the first stage and the close calls of the last both show
        spread = float((self.final["ci_high"] - self.final["ci_low"]).iloc[0])
        ax.set_yscale("symlog", linthresh=10.0 ** math.ceil(math.log10(max(spread, 1e-4))))  # a whole decade
        if (race_df["round"] == "local").any():
            edge = race_df.loc[race_df["round"] == "local", "stage"].min() - 0.5
            ax.axvline(edge, color="grey", ls="--", lw=0.8)
            ax.text(edge - 0.05, 0.98, "global ", ha="right", va="top", transform=ax.get_xaxis_transform())
            ax.text(edge + 0.05, 0.98, " local", ha="left", va="top", transform=ax.get_xaxis_transform())
        ax.set_xticks(sorted(race_df["stage"].unique()))
        ax.set_xlabel("stage (deals pooled so far: " + ", ".join(
            str(b) for b in race_df.groupby("stage")["blocks"].first()) + ")")
        ax.set_ylabel(f"{self.metric}: candidate - stage leader")
        for status in [s for s in colours if (race_df["status"] == s).any()]:  # no entry for what is not drawn
            ax.plot([], [], "o", color=colours[status], label=names[status])
        ax.plot([], [], "*", color="gold", mec="k", ms=12, label="the pick")
        if (race_df.loc[race_df["candidate"] == pick, "stage"] < last_stage).any():
            ax.plot([], [], "o", ms=9, mfc="none", mec="goldenrod", mew=1.5, label="the pick, earlier stages")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), framealpha=0.9, ncols=3)
        ax.set_title(f"{self.game} {self.strategy}, {self.players} players vs {self.vs}: race\n"
                     f"(intervals: Bonferroni per stage)")
        fin = self.final
        ax2.errorbar([0, 1], fin["value"], yerr=[fin["value"] - fin["ci_low"], fin["ci_high"] - fin["value"]],
                     fmt="o", capsize=4, color="k")
        ax2.set_xticks([0, 1], ["pick", "start"])
        ax2.set_xlim(-0.5, 1.5)
        ax2.set_ylabel(self.metric)
        row = fin.iloc[0]
        ax2.set_title(f"fresh deals: edge {row.diff_vs_start:+.4f}\n[{row.diff_ci_low:+.4f}, {row.diff_ci_high:+.4f}]")
        return fig


def parse_field(game: str, vs: str, players: int) -> list[registry.Player] | None:
    """``self`` -> None (self-play); one spec -> every other seat; else exactly ``players - 1`` specs."""
    text = vs.strip()
    if text == "self":
        return None
    specs = _split_specs(text)
    if not specs:
        raise UsageError("--vs: give strategy specs (comma-separated) or 'self'")
    field = [registry.at_table(registry.parse_spec(game, s), players) for s in specs]
    if len(field) == 1:
        return field * (players - 1)
    if len(field) != players - 1:
        raise UsageError(f"--vs: give one strategy or exactly {players - 1} (one per other seat), not {len(field)}")
    return field


def _split_specs(text: str) -> list[str]:
    """Comma-separated specs, where a spec's own ``k=v`` list also uses commas:
    ``greedy,threshold:quit_at=5,ten_quit_at=2`` -> [greedy, threshold:quit_at=5,ten_quit_at=2]."""
    specs: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if specs and "=" in item and ":" not in item:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def tune(game, strategy: str, players: int, vs: str = "self", budget: int = 200_000, metric: str = "win_rate",
         seed: int = 1, threads: int | None = None, candidates: int | None = None,
         cfg: np.ndarray | None = None, luck: bool | None = None, **rule_options) -> TuneResult:
    """Tune every parameter of ``strategy`` at once under noise (``llamasim tune``): a race on common
    deals against ``vs`` (strategy specs, comma-separated, or ``"self"``), the pick re-measured on
    fresh deals against the start; see the module docstring. ``strategy`` is a name, or ``name:k=v``
    for another starting point; the rules are ``cfg``, or else the rule-set options given. Returns a
    ``TuneResult`` (``final``, ``candidates``, ``race``, ``summary()``, ``verdict``, ``pick_spec``,
    ``plot()``)."""
    spec = game if isinstance(game, RuleSet) else get_game(game)
    if not isinstance(vs, str):  # a list of specs, as the command line and a spec give them
        vs = ",".join(vs)
    if cfg is None:
        cfg = spec.config(**game_options(**rule_options))
    if metric not in METRICS:
        raise UsageError(f"--metric {metric}: choose win_rate or penalty_per_round")
    if not spec.min_players <= players <= spec.max_players:
        raise UsageError(f"{spec.name} is played by {spec.min_players} to {spec.max_players} players, not {players}")
    if budget < MIN_BUDGET:
        raise UsageError(f"--budget {budget}: at least {MIN_BUDGET} rounds")
    if candidates is not None and candidates < 2:
        raise UsageError(f"candidates must be at least 2, not {candidates}")
    start_player = registry.at_table(registry.parse_spec(spec.name, strategy), players)
    strat = start_player.strategy
    space = search_space(strat)
    field = parse_field(spec.name, vs, players)
    count = candidates or min(MAX_CANDIDATES, 8 + 8 * space.dims)
    points = candidate_points(space, start_player.params, count, seed)
    evaluator = GameEvaluator(spec, strat, players, field, metric, cfg, threads,
                              resolve(spec, luck) and metric == "penalty_per_round")  # (win rates: no luck)
    vs_text = "self" if field is None else ",".join(p.label for p in field)
    result = tune_points(evaluator, space, points, budget, seed, field is None, spec.name, strat.name, players, vs_text)
    if field is not None:
        result.vs_values = "; ".join(dict.fromkeys(registry.with_values(p.label, p.values()) for p in field))
    result.luck = evaluator.luck
    return result


def local_points(space: Space, centre: np.ndarray, count: int, seed: int, cells: int) -> np.ndarray:
    """The refinement round's candidates: ``centre`` first, then the grid (or a Latin hypercube)
    of the box ``centre +- one cell`` of the first round's sample (a cell: the box's width divided
    by ``cells ** (1 / dims)``), clipped to the bounds."""
    width = (space.high - space.low) / max(1.0, cells ** (1 / space.dims))
    width = np.where(space.integer, np.maximum(np.ceil(width), 1), width)
    low, high = np.maximum(space.low, centre - width), np.minimum(space.high, centre + width)
    low = np.where(space.integer, np.ceil(low), low)
    high = np.where(space.integer, np.floor(high), high)
    return candidate_points(Space(space.names, low, high, space.integer), centre, count, seed ^ 0x10CA1)


def tune_points(evaluator: Evaluator, space: Space, points: np.ndarray, budget: int, seed: int, self_play: bool,
                game: str = "", strategy: str = "", players: int = 0, vs: str = "",
                refine: bool | None = None) -> TuneResult:
    """The race(s) and the final check for any evaluator (real games, or a synthetic objective in
    tests); ``points[0]`` is the starting point.

    Two rounds when the first cannot list the whole grid (``refine``, default: exactly then): a
    global race over ``points`` with half the search budget, then a local race around its pick
    (``local_points``) on a separate seed stream with the other half."""
    metric = evaluator.metric
    search_budget = int(budget * (1 - FINAL_SHARE))
    if refine is None:
        refine = space.grid_size() > len(points) - 1
    outcome = race(points, evaluator, search_budget // 2 if refine else search_budget, seed, self_play)
    race_df = outcome.race.assign(round="global")
    spent, stages = outcome.rounds, outcome.stages
    pick_point = points[outcome.pick]
    all_points = points
    if refine:
        near = local_points(space, pick_point, len(points), seed, len(points) - 1)
        second = race(near, evaluator, search_budget - spent, stratum_seed(seed, FRESH_STREAM + 1), self_play)
        offset = len(points)
        race_df = pd.concat([race_df, second.race.assign(round="local", stage=second.race["stage"] + stages,
                                                         candidate=second.race["candidate"] + offset)],
                            ignore_index=True)
        spent += second.rounds
        pick_point = near[second.pick]
        all_points = np.vstack([points, near])
        pick_index = offset + second.pick
    else:
        pick_index = outcome.pick
    outcome = RaceOutcome(pick_index, race_df, spent, int(race_df["stage"].max()) + 1)
    pick, start = pick_point, points[0]
    final_seed = stratum_seed(seed, FRESH_STREAM)
    cost = evaluator.rounds_per_block(2, final=True) or 1.0
    final_blocks = max(2, int((budget - outcome.rounds) // cost))
    tally, final_rounds = evaluator.final(pick, start, pick if self_play else None, final_seed, final_blocks)
    est = stats.summarise(tally, LEVEL, metrics=(metric,)).set_index("unit")
    diff = stats.contrast(tally, metric, [1, -1] + [0] * (tally.units - 2), LEVEL)
    p_value = stats.p_value(diff)
    deals = tally.blocks * (len(tally.strata) if isinstance(tally, stats.Stratified) else 1)
    final_rows = []
    for which, unit, point in (("pick", 0, pick), ("start", 1, start)):
        e = est.loc[unit]
        own = which == "pick"
        final_rows.append({"game": game, "players": players, "strategy": strategy, "vs": vs, "metric": metric,
                           "which": which, "params": params_text(space.names, point), "value": e.value,
                           "ci_low": e.ci_low, "ci_high": e.ci_high,
                           "diff_vs_start": diff.value if own else 0.0,
                           "diff_ci_low": diff.ci_low if own else 0.0, "diff_ci_high": diff.ci_high if own else 0.0,
                           "p_value": p_value if own else 1.0, "deals": deals,
                           "rounds": final_rounds, "seed": seed})
    points = all_points
    race_df = outcome.race
    last = race_df.groupby("candidate").tail(1).set_index("candidate")
    cand_rows = []
    for c, point in enumerate(points):
        r = last.loc[c]
        row = {"game": game, "players": players, "strategy": strategy, "candidate": c,
               "round": r["round"], "params": params_text(space.names, point), "start": c == 0,
               "stages_run": int((race_df["candidate"] == c).sum()),
               "status": "pick" if c == outcome.pick else ("finalist" if r.status == "alive" else r.status),
               "blocks": int(r.blocks), "value": r.value, "ci_low": r.ci_low, "ci_high": r.ci_high,
               "pick": c == outcome.pick}
        cand_rows.append(row)
    cand_df = pd.DataFrame(cand_rows, columns=CANDIDATE_COLUMNS)
    for j, name in enumerate(space.names):
        cand_df.insert(6 + j, name, points[:, j])
    return TuneResult(game, strategy, players, vs, metric, seed, budget, space.names,
                      dict(zip(space.names, (float(x) for x in pick))),
                      dict(zip(space.names, (float(x) for x in start))), cand_df, race_df,
                      pd.DataFrame(final_rows, columns=FINAL_COLUMNS), outcome.rounds + final_rounds)
