"""``llamasim check FILE.py``: a strategies file checked before a long run.

Every strategy the files define is compiled, then played at every player count of its rule set
against the rule set's built-in strategies (the strategy and the built-ins rotated through the
seats), single rounds and full games, each run twice with one seed: it must choose only legal
actions (the first illegal one is told with the position, ``run.replay``) and give the same sums both
times. Its speed is decisions per second with it in every seat, next to the rule set's
``bench_strategy``'s (kernel rounds per second, times decisions per round counted on the reference
engine), and its first decisions are shown as ``llamasim trace`` prints them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from llama_sim.analysis.trace import trace
from llama_sim.core import registry
from llama_sim.core.errors import Interrupted, UsageError
from llama_sim.core.ruleset import get_game
from llama_sim.run.replay import Seen, replay
from llama_sim.run.chunks import run_chunk
from llama_sim.run.designs import rotation_plan, seat_plan

SPEED_SECONDS = 0.15  # each speed measurement plays at least this long
COUNTED_ROUNDS = 20  # reference-engine rounds whose decisions are counted (decisions per round)


@dataclass
class CheckResult:
    """``table``: one row per strategy (or per file that does not load); ``problems``: each problem's
    one line, in order (empty: all is well)."""

    table: pd.DataFrame
    problems: list[str]
    traces: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = []
        for r in self.table.to_dict("records"):
            if not r["strategy"]:
                lines.append(f"{r['file']}: does not load: {r['problem']}")
                continue
            lines.append(f"{r['file']}: {r['game']} strategy '{r['strategy']}'")
            lines.append(f"  compiles: {'yes' if r['compiles'] else 'no'}")
            if r["compiles"] and r["legal"]:
                lines.append(f"  legal actions only: yes ({r['played']})")
                lines.append(f"  deterministic under --seed: {'yes' if r['deterministic'] else 'no'}")
            elif r["compiles"]:
                lines.append("  plays: no (deterministic under --seed: not checked)")
            if r["problem"]:
                lines.append(f"  problem: {r['problem']}")
            if r["decisions_per_second"]:
                lines.append(f"  speed: {r['decisions_per_second'] / 1e6:.2f}M decisions/s, "
                             f"{r['speed_ratio']:.2f}x {r['bench']}'s ({r['bench_decisions_per_second'] / 1e6:.2f}M)")
            shown = self.traces.get(f"{r['game']}.{r['strategy']}", [])
            if shown:
                lines.append("  first decisions:")
                lines += [f"    {t}" for t in shown]
        lines += ["", "all well" if self.ok else f"{len(self.problems)} problem{'s' * (len(self.problems) > 1)}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"CheckResult({'ok' if self.ok else self.problems[0]})"


def check(files, *, rounds: int = 2000, games: int = 100, seed: int = 1, decisions: int = 6) -> CheckResult:
    """Check every strategy of ``files`` (one path or several): see the module docstring."""
    paths = [files] if isinstance(files, (str, Path)) else list(files)
    try:
        registry.load_files(paths)
    except UsageError as exc:
        row = dict(file=", ".join(map(str, paths)), game="", strategy="", problem=str(exc))
        return CheckResult(pd.DataFrame([row]), [str(exc)])
    rows, problems, traces = [], [], {}
    shown = {str(Path(p).resolve()): str(p) for p in paths}
    for s in registry.loaded_from_files():
        if s.file not in shown:
            continue
        row, shown_trace = _check_one(s, rounds, games, seed, decisions)
        rows.append(dict(file=shown[s.file], **row, first_decisions=shown_trace))
        traces[f"{s.game}.{s.name}"] = shown_trace
        if row["problem"]:
            problems.append(row["problem"])
    if not rows:
        problems.append(f"{', '.join(map(str, paths))}: defines no strategy (register one with @strategy)")
        rows.append(dict(file=", ".join(map(str, paths)), game="", strategy="", problem=problems[-1]))
    return CheckResult(pd.DataFrame(rows), problems, traces)


def _check_one(s: registry.Strategy, rounds: int, games: int, seed: int, decisions: int) -> tuple[dict, list[str]]:
    row = dict(game=s.game, strategy=s.name, compiles=False, legal=False, deterministic=None, played="",
               decisions_per_second=0.0, bench="", bench_decisions_per_second=0.0, speed_ratio=0.0, problem="")
    try:
        s.policy  # noqa: B018  (compiles it, or says why not)
    except UsageError as exc:
        row["problem"] = str(exc)
        return row, []
    row["compiles"] = True
    rule_set = get_game(s.game)
    cfg = rule_set.config()
    builtins = registry.builtin_strategies(s.game)
    counts = range(rule_set.min_players, rule_set.max_players + 1)
    try:
        same = True
        for n in counts:
            players = [registry.parse_spec(s.game, s.name)] + [registry.parse_spec(s.game, builtins[i % len(builtins)])
                                                                for i in range(n - 1)]
            for games_mode, count in ((False, rounds), (True, games)):
                plan = rotation_plan(rule_set, n, players, games_mode, cfg)
                blocks = max(1, count // n)
                first, again = run_chunk(plan, seed, 0, blocks), run_chunk(plan, seed, 0, blocks)
                same = same and all(np.array_equal(a, b) for a, b in zip(first, again))
        row["legal"] = True
        row["played"] = (f"{counts.start}..{counts.stop - 1} players against {', '.join(builtins)}: "
                         f"{rounds:,} rounds and {games:,} games each")
        row["deterministic"] = same
        if not same:
            row["problem"] = (f"{s.game} strategy '{s.name}' is not deterministic: two runs with one seed differ "
                              f"(draw random numbers only from the policy's rng, with the kit's uniform, randint, below)")
        n = min(max(4, rule_set.min_players), rule_set.max_players)
        mine = _decisions_per_second(s.game, s.name, n, seed, cfg)
        bench = _decisions_per_second(s.game, rule_set.bench_strategy, n, seed, cfg)
        row.update(decisions_per_second=mine, bench=rule_set.bench_strategy, bench_decisions_per_second=bench,
                   speed_ratio=mine / bench if bench else 0.0)
        seats = [s.name] + [builtins[i % len(builtins)] for i in range(n - 1)]
        steps = trace(s.game, seats, seed=seed).decisions
        steps = steps[steps.seat == 0].head(decisions)
        shown = [f"{r.saw}; legal: {r.legal} -> {r.chose}" for r in steps.itertuples()]
    except (Interrupted, KeyboardInterrupt):
        raise
    except UsageError as exc:
        row["problem"] = row["problem"] or str(exc)
        return row, []
    return row, shown


def _decisions_per_second(game: str, name: str, n: int, seed: int, cfg) -> float:
    """Decisions per second, one thread, with ``name`` in every seat: kernel rounds per second (timed
    for ``SPEED_SECONDS`` at least, after a warm-up) times decisions per round on the reference engine."""
    plan = seat_plan(get_game(game), [registry.parse_spec(game, name)] * n, False, cfg)
    run_chunk(plan, seed, 0, 1)
    blocks, elapsed = 256, 0.0
    while elapsed < SPEED_SECONDS:
        blocks *= 2
        start = time.perf_counter()
        run_chunk(plan, seed, 0, blocks)
        elapsed = time.perf_counter() - start
    seen: list[Seen] = []
    for b in range(COUNTED_ROUNDS):
        replay(plan, seed, b, seen)
    return blocks / elapsed * len(seen) / COUNTED_ROUNDS
