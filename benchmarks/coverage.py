"""Coverage of every tool's 95% intervals, from the smallest size each accepts to large ones, on
cases whose truth is known exactly.

    PYTHONPATH=. python benchmarks/coverage.py [--reps 2000] [--seed 1] [--only simulate,compare,...]

Cases (truth in brackets):
* simulate: four always_quit at L.A.M.A., each seat's penalty per round [31 (1 - C(48,6)/C(56,6)) = 19.2835];
* compare, rounds: greedy, greedy, threshold at 3 players, greedy minus its copy [0];
* compare, games: greedy, greedy, threshold at 3 players, the paired win-rate difference of the copies [0]
  (at 2 players two copies of a deterministic strategy mirror each other exactly: no test);
* league: threshold:quit_at=2, threshold:quit_at=2.5 (the same play: penalties are whole numbers),
  greedy and smart at 3 players, the league difference and head-to-head of the two copies [0];
* grade: its error-rate interval on clustered decisions with a known rate (the function grade uses);
* advise: its stop rule and printed intervals on roll-outs with a known mean (the functions advise uses),
  and on a real position against a 400,000-roll-out value ("position").

For each size: the miss rate of the interval as the tool now prints it ("t"), the normal interval it
printed before ("normal", same standard error with 1.96), and how many replications printed no
interval ("n/a": fewer blocks than ``intervals.MIN_BLOCKS``). A miss rate significantly above 0.05
(one-sided binomial test at 0.001) is flagged "HIGH". The simulate and compare cases regroup one long
stream of blocks (``analysis.coverage``), so their replications are exactly runs of that size; league
runs the API once per seed. Times are CPU seconds on a shared machine.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from llama_sim.analysis import advise as advise_mod
from llama_sim.analysis import grade as grade_mod
from llama_sim.analysis.coverage import block_values, rate_text, replications, too_often
from llama_sim.core import registry, stats
from llama_sim.core.intervals import MIN_BLOCKS
from llama_sim.core.ruleset import get_game
from llama_sim.run.designs import comparison_design, seat_plan

Z = 1.959963984540054
EXACT_QUIT = 31 * (1 - math.comb(48, 6) / math.comb(56, 6))


class Count:
    def __init__(self):
        self.t = self.normal = self.total = self.na = self.normal_total = 0

    def add(self, value, lo, hi, se, truth):
        self.total += 1
        if not math.isnan(se):
            self.normal_total += 1
            self.normal += not (value - Z * se <= truth <= value + Z * se)
        if math.isnan(lo):
            self.na += 1
        else:
            self.t += not (lo <= truth <= hi)

    def row(self, case, size):
        given = self.total - self.na
        flag = "HIGH" if too_often(self.t, given) else ""
        return f"{case:<34} {size:<16} t {rate_text(self.t, given):<28} normal {rate_text(self.normal, self.normal_total):<28} n/a {self.na:<5} {flag}"


def lama(players, specs, games=False):
    g = get_game("lama")
    return g, [registry.parse_spec("lama", s) for s in specs], games, g.config()


def case_simulate(reps, seed):
    g, ps, games, cfg = lama(4, ["always_quit"] * 4)
    plan = seat_plan(g, ps, games, cfg)
    sizes = (2, 3, 5, 10, 50, 200)
    values = block_values(plan, seed, reps * 10)
    for b in sizes:  # seat 0 only: the seats of one run share its deals, so only one is independent
        c = Count()
        for t in list(replications(plan, values, b))[:reps]:
            e = stats.estimate(t, "penalty_per_round", 0)
            c.add(e.value, e.ci_low, e.ci_high, e.se, EXACT_QUIT)
        print(c.row("simulate 4x always_quit, seat 0", f"{b} blocks"), flush=True)


def case_compare_rounds(reps, seed):
    g, ps, games, cfg = lama(3, ["greedy", "greedy", "threshold"])
    work = comparison_design(g, 3, ps, games, cfg)
    values = block_values(work, seed, reps * 10)
    for b in (2, 5, 10, 50):
        c = Count()
        for t in list(replications(work, values, b))[:reps]:
            e = stats.contrast(t, "penalty_per_round", [1, -1, 0])
            c.add(e.value, e.ci_low, e.ci_high, e.se, 0.0)
        print(c.row("compare 3p greedy - greedy#2", f"{b} blocks ({6 * b} rounds)"), flush=True)


def case_compare_games(reps, seed):
    g, ps, games, cfg = lama(3, ["greedy", "greedy", "threshold"], games=True)
    work = comparison_design(g, 3, ps, games, cfg)
    values = block_values(work, seed, reps * 5)
    for b in (2, 3, 5, 10, 50):
        diff = Count()
        for t in list(replications(work, values, b))[:reps]:
            e = stats.contrast(t, "win_rate", [1, -1, 0])
            diff.add(e.value, e.ci_low, e.ci_high, e.se, 0.0)
        print(diff.row("compare 3p games, win-rate diff", f"{b} blocks ({6 * b} games)"), flush=True)


def case_league(reps, seed):
    import llama_sim

    for rounds in (48, 120, 480, 2400):
        diff, h2h = Count(), Count()
        for s in range(seed, seed + reps):
            r = llama_sim.league("lama", ["threshold:quit_at=2", "threshold:quit_at=2.5", "greedy", "smart"],
                                 players=3, rounds=rounds, seed=s, quiet=True, threads=1)
            p = r.paired[(r.paired.strategy_b == "threshold:quit_at=2.5")
                         & (r.paired.strategy_a == "threshold:quit_at=2")].iloc[0]
            diff.add(p["diff"], p.ci_low, p.ci_high, p.se, 0.0)
            h2h.add(p.head_to_head, p.h2h_ci_low, p.h2h_ci_high, math.nan, 0.0)
        print(diff.row("league 3p copy - copy", f"{rounds} rounds"), flush=True)
        print(h2h.row("league 3p head-to-head of copies", f"{rounds} rounds"), flush=True)


def clustered(rng, rounds, rate):
    """Decisions per round (0..3) and errors, error probability varying by round around ``rate``."""
    count = rng.integers(0, 4, rounds).astype(float)
    p = rng.beta(2 * rate / (1 - rate) + 1e-9, 2, rounds) if rate > 0 else np.zeros(rounds)
    p = np.clip(p * rate / max(p.mean(), 1e-12), 0, 1) if rate > 0 else p
    errors = rng.binomial(count.astype(int), p).astype(float)
    return errors, count


def case_grade(reps, seed):
    rng = np.random.default_rng(seed)
    # the truth of a rate drawn per round is E[p]: estimated once from a huge sample
    for rate in (0.02, 0.2):
        big_e, big_c = clustered(np.random.default_rng(0), 2_000_000, rate)
        truth = big_e.sum() / big_c.sum()
        for rounds in (2, 5, 20, 200):
            c = Count()
            zero = 0
            for _ in range(reps):
                e, d = clustered(rng, rounds, rate)
                v, lo, hi = grade_mod._ratio(e, d, rate=True)
                if math.isnan(v):
                    continue
                zero += (hi - lo) == 0 or lo < 0 or hi > 1
                # the interval grade printed before: v +- 1.96 se over rounds (zero-width when no round erred)
                se = np.std((e - v * d) / d.mean(), ddof=1) / math.sqrt(rounds)
                c.add(v, lo, hi, se, truth)
            print(c.row(f"grade error rate {rate:g}", f"{rounds} rounds") + f" zero-width/outside [0,1]: {zero}",
                  flush=True)


def case_advise(reps, seed):
    rng = np.random.default_rng(seed)
    for gap, cap in ((0.0, advise_mod.DEFAULT_MAX_ROLLOUTS), (0.02, advise_mod.DEFAULT_MAX_ROLLOUTS), (0.0, 20_000)):
        looks = advise_mod.looks(cap, advise_mod.FIRST_BATCH)
        z = stats.z_value(1 - 0.05 / looks)
        c_diff, c_val, stops = Count(), Count(), []
        for _ in range(reps):
            mom = advise_mod._Moments(2, z=z)
            while mom.n < cap:
                size = min(max(advise_mod.FIRST_BATCH, mom.n), cap - mom.n)
                base = rng.poisson(6.0, size)
                a = base + rng.integers(-1, 2, size)  # mean 6
                b = base + rng.integers(-1, 2, size) + (rng.random(size) < gap)  # mean 6 + gap
                v = np.zeros((size, 6), np.int64)
                v[:, 0], v[:, 1] = a, b
                mom.s1 += v.sum(axis=0)
                mom.s2 += v.T @ v
                mom.n += size
                if advise_mod._stop(mom, "round", None, z):
                    break
            stops.append(mom.n)
            cov, mean, n = mom.cov(), mom.mean(), mom.n
            d = mean[0] - mean[1]
            se = math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0) / n)
            c_diff.add(d, d - z * se, d + z * se, se, -gap)
            se0 = math.sqrt(cov[0, 0] / n)
            c_val.add(mean[0], mean[0] - z * se0, mean[0] + z * se0, se0, 6.0)
        size = f"cap {cap}, gap {gap:g}"
        print(c_diff.row(f"advise diff ({looks} looks, z {z:.2f})", size)
              + f" median stop {int(np.median(stops))}", flush=True)
        print(c_val.row("advise value", size), flush=True)


def case_advise_position(reps, seed):
    """A real position (the L.A.M.A. example: draw or quit): the drawing value's printed interval at
    the default stop, against the value from 400,000 roll-outs (its own standard error ~0.01)."""
    import llama_sim

    where = dict(hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20)
    truth_run = llama_sim.advise("lama", **where, rollouts=400_000, seed=10**6)
    pick = lambda r: r.table[(r.table.action == "draw") & (r.table.metric == "penalty_per_round")].iloc[0]  # noqa: E731
    truth = pick(truth_run).value
    z = stats.z_value(1 - 0.05 / advise_mod.looks(advise_mod.DEFAULT_MAX_ROLLOUTS, advise_mod.FIRST_BATCH))
    c = Count()
    for s in range(seed, seed + reps):
        row = pick(llama_sim.advise("lama", **where, seed=s))
        c.add(row.value, row.ci_low, row.ci_high, (row.ci_high - row.ci_low) / (2 * z), truth)
    print(c.row("advise lama example, draw value", f"default stop ({int(row.n)})"), flush=True)


CASES = {"simulate": case_simulate, "compare": case_compare_rounds, "games": case_compare_games,
         "league": case_league, "grade": case_grade, "advise": case_advise, "position": case_advise_position}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=",".join(CASES))
    args = ap.parse_args()
    print(f"replications per size: {args.reps} (league: {max(args.reps // 10, 20)} seeds); "
          f"no interval below {MIN_BLOCKS} deal blocks")
    for name in args.only.split(","):
        start = time.process_time()
        reps = max(args.reps // 10, 20) if name in ("league", "position") else args.reps
        CASES[name](reps, args.seed)
        print(f"  ({name}: {time.process_time() - start:.0f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
