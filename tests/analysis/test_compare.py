"""compare: the balanced seating design, exact reproducibility, paired differences and their coverage,
the --precision stopping rule, seat effects, and the CLI (the stratified statistics: tests/stats)."""
import io
import itertools
import json
import sys
from collections import Counter
from math import comb, factorial, prod

import numpy as np
import pandas as pd
import pytest

from llama_sim.core import registry, stats
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import all_games, get_game
from llama_sim.core.output import RESULT_COLUMNS
from llama_sim.run.backends import next_blocks, run, run_to_precision
from llama_sim.run.chunks import min_blocks, run_chunk
from llama_sim.run.designs import Plan, comparison_design, rotation_plan, seat_effects_plan, seating_classes, strata
from llama_sim.run.tables import (
    PAIRED_COLUMNS, RANKING_COLUMNS, SEAT_COLUMNS, comparison_half_width, paired_table, ranking_table,
    seat_half_width, seat_table,
)
from llama_sim.core.stats import Stratified
from cli_helpers import call

LAMA = get_game("lama")
CFG = LAMA.config()
# always_quit quits at its first decision, which always comes before anyone can go out, so it
# scores the distinct values of its six dealt cards: 31 (1 - C(48,6)/C(56,6)) whoever plays.
ALWAYS_QUIT_PENALTY = 31 * (1 - comb(48, 6) / comb(56, 6))


def lineup(*specs, game="lama"):
    return [registry.parse_spec(game, s) for s in specs]


# ----------------------------------------------------------------------------- the design

@pytest.mark.parametrize("n,k", [(n, k) for n in range(2, 7) for k in range(2, n + 1)])
def test_seatings_are_balanced_rotated_and_closed_under_relabelling(n, k):
    classes = seating_classes(n, k)
    rows = [tuple(r) for t in classes for r in t]
    assert len(rows) == len(set(rows))  # every seating once
    q, r = divmod(n, k)
    expected = comb(k, r) * factorial(n) // (factorial(q) ** (k - r) * factorial(q + 1) ** r)
    assert len(rows) == expected
    for t in classes:  # a class is one seating's distinct rotations: every unit in every seat equally
        for s in range(n):
            assert Counter(t[:, s]) == Counter(t[:, 0])
        assert {tuple(np.roll(t[0], -i)) for i in range(n)} == {tuple(x) for x in t}
    for sigma in itertools.permutations(range(k)):  # relabelling strategies maps the design onto itself
        assert {tuple(sigma[u] for u in row) for row in rows} == set(rows)
    counts = Counter(u for row in rows for u in row)
    assert len(set(counts.values())) == 1  # every strategy plays equally often


def test_design_rows_and_errors():
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold"), False, CFG)
    assert d.rows == 6 and len(d.tables) == 2 and d.unit_labels == ["greedy", "threshold"]
    assert comparison_design(LAMA, 6, lineup("greedy", "threshold", "random", "always_quit", "smart"),
                             False, CFG).rows == 1800
    with pytest.raises(UsageError, match="at least two"):
        comparison_design(LAMA, 4, lineup("greedy"), False, CFG)
    with pytest.raises(UsageError, match="do not fit"):
        comparison_design(LAMA, 2, lineup("greedy", "threshold", "random"), False, CFG)
    with pytest.raises(UsageError, match="2 to 6 players"):
        comparison_design(LAMA, 7, lineup("greedy", "threshold"), False, CFG)


def test_strata_draw_independent_deals():
    d = comparison_design(LAMA, 3, lineup("greedy", "threshold"), False, CFG)
    seeds = [s for _, s in strata(d, 5)]
    assert len(set(seeds)) == len(seeds) == 2 and seeds == [s for _, s in strata(d, 5)]
    a, _ = run_chunk(d.plans[0], seeds[0], 0, 50)
    b, _ = run_chunk(d.plans[0], seeds[1], 0, 50)
    assert not np.array_equal(a, b)


# ----------------------------------------------------------------------------- exactness

def test_same_numbers_for_any_threads_chunks_and_split():
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold", "random"), False, CFG)
    one = run(d, 11, 0, 300, threads=1, chunk=7)
    two = run(d, 11, 0, 300, threads=2, chunk=64)
    split = run(d, 11, 0, 120, threads=2) + run(d, 11, 120, 180, threads=1)
    assert isinstance(one, Stratified) and one == two == split and one.blocks == 300
    g = comparison_design(LAMA, 3, lineup("greedy", "smart"), True, CFG)
    assert run(g, 3, 0, 20, threads=1, chunk=3) == run(g, 3, 0, 20, threads=2)


def test_precision_run_is_the_prefix_of_a_fixed_run():
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold"), False, CFG)
    res = run_to_precision(d, 8, 0.05, comparison_half_width(("penalty_per_round",)), min_blocks(d, True), 10**6)
    assert res.reached and res.half_width <= 0.05 and res.batches[0] == 100 and res.batches[-1] == res.tally.blocks
    assert all(b2 > b1 for b1, b2 in zip(res.batches, res.batches[1:]))
    assert res.tally == run(d, 8, 0, res.tally.blocks)
    hw = stats.max_half_width(res.tally, ("penalty_per_round",), pairs=True)
    assert hw == res.half_width
    # the cap stops a run that cannot reach the target
    capped = run_to_precision(d, 8, 1e-4, comparison_half_width(("penalty_per_round",)), 100, 500)
    assert not capped.reached and capped.tally.blocks == 500


def test_next_batch_rule():
    assert next_blocks(100, 0.2, 0.1, 10**6) == 400  # wants 440: at most 4x
    assert next_blocks(100, 0.105, 0.1, 10**6) == 125  # wants 122: at least 1.25x
    assert next_blocks(1000, 0.15, 0.1, 10**6) == 2475  # 1.1 * 1000 * 2.25
    assert next_blocks(100, float("inf"), 0.1, 10**6) == 400
    assert next_blocks(100, 0.2, 0.1, 150) == 150


# ----------------------------------------------------------------------------- acceptance

def test_two_copies_of_a_strategy_come_out_equal():
    """Over a batch of seeds the copies' paired 95% interval contains 0 at the stated rate."""
    d = comparison_design(LAMA, 3, lineup("greedy", "greedy", "threshold"), False, CFG)
    seeds = 400
    hits = 0
    for seed in range(seeds):
        row = stats.paired(run(d, seed, 0, 500, threads=2), "penalty_per_round").iloc[0]
        assert (row["unit_a"], row["unit_b"]) == (0, 1)
        hits += row["ci_low"] <= 0 <= row["ci_high"]
    print(f"copies: paired interval contains 0 in {hits}/{seeds} seeds")
    assert hits / seeds >= 0.93  # 95% nominal; 0.93 is 2 binomial sd below it at 400 seeds


def test_one_line_up_rotated_is_biased_which_is_why_compare_uses_every_seating():
    """The plain rotation of (greedy, greedy, threshold) always seats copy 1 after threshold
    (threshold with quit_at=8, its value without presets, whose neighbour effect this was measured on)."""
    cyc = rotation_plan(LAMA, 3, lineup("greedy", "greedy", "threshold:quit_at=8"), False, CFG)
    row = stats.paired(run(cyc, 1, 0, 400_000, threads=2), "penalty_per_round").iloc[0]
    assert row["ci_high"] < 0 and row["p_value"] < 1e-4  # copy 1 measurably better than its twin


def test_precision_rule_covers_known_answers():
    """--precision stops on the data, and its intervals still cover: always_quit's exact penalty
    and the zero difference between two copies, over a batch of seeds."""
    d = comparison_design(LAMA, 3, lineup("always_quit", "greedy", "greedy"), False, CFG)
    rule = comparison_half_width(("penalty_per_round",))
    seeds, quit_hits, copy_hits = 400, 0, 0
    for seed in range(seeds):
        res = run_to_precision(d, 1000 + seed, 0.3, rule, min_blocks(d, True), 10**6, threads=2)
        assert res.reached and res.half_width <= 0.3
        e = stats.estimate(res.tally, "penalty_per_round", 0)
        quit_hits += e.ci_low <= ALWAYS_QUIT_PENALTY <= e.ci_high
        pair = stats.paired(res.tally, "penalty_per_round").iloc[2]
        assert (pair["unit_a"], pair["unit_b"]) == (1, 2)
        copy_hits += pair["ci_low"] <= 0 <= pair["ci_high"]
    print(f"precision runs: always_quit covered {quit_hits}/{seeds}, copies {copy_hits}/{seeds}")
    assert quit_hits / seeds >= 0.93 and copy_hits / seeds >= 0.93


def test_paired_interval_is_narrower_than_unpaired_for_greedy_vs_threshold():
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold"), False, CFG)
    row = paired_table(d, run(d, 1, 0, 50_000, threads=2), 1, ("penalty_per_round",)).iloc[0]
    ratio = (row.ci_high - row.ci_low) / (row.unpaired_ci_high - row.unpaired_ci_low)
    print(f"paired / unpaired width: {ratio:.3f}")
    assert ratio < 0.85 and row.better == "threshold"


# ----------------------------------------------------------------------------- tables

def test_paired_and_ranking_tables():
    d = comparison_design(LAMA, 4, lineup("greedy", "greedy", "threshold"), False, CFG)
    tally = run(d, 2, 0, 2000, threads=2)
    p = paired_table(d, tally, 2, ("penalty_per_round",))
    assert list(p.columns) == PAIRED_COLUMNS and len(p) == 3
    assert list(zip(p.strategy_a, p.strategy_b)) == [("greedy", "greedy#2"), ("greedy", "threshold"),
                                                     ("greedy#2", "threshold")]
    np.testing.assert_allclose(p.p_holm, stats.holm(p.p_value))
    # 'better' names the lower-penalty side exactly when the Holm-adjusted p is below 0.05 (the two
    # greedy copies are separated only by chance, about one seed in forty: check the rule, not luck)
    for row in p.itertuples():
        lower = row.strategy_a if row.diff < 0 else row.strategy_b
        assert row.better == (lower if row.p_holm < 0.05 else "")
    assert p.better.tolist()[1:] == ["threshold", "threshold"]
    r = ranking_table(d, tally, 2, ("penalty_per_round",))
    assert list(r.columns) == RANKING_COLUMNS and r.strategy.iloc[0] == "threshold"
    assert r.indistinguishable_from.iloc[0] == ""
    copies_apart = p.p_holm.iloc[0] < 0.05
    assert r.indistinguishable_from.tolist()[1:] in ([["", ""]] if copies_apart else
                                                     [["greedy#2", "greedy"], ["greedy", "greedy#2"]])
    g = comparison_design(LAMA, 4, lineup("greedy", "smart"), True, CFG)
    gt = run(g, 2, 0, 30, threads=2)
    assert set(paired_table(g, gt, 2, ("penalty_per_round", "win_rate")).metric) == {"penalty_per_round",
                                                                                      "win_rate"}


def test_seat_effects_known_zero_and_first_player_advantage():
    plan = seat_effects_plan(LAMA, lineup("always_quit")[0], 5, False, CFG)
    t = seat_table(plan, run(plan, 4, 0, 20_000, threads=2), 4, ("penalty_per_round",))
    assert list(t.columns) == SEAT_COLUMNS and t.seat.tolist() == [0, 1, 2, 3, 4]
    assert abs(t.vs_mean.sum()) < 1e-9 and (t.p_holm > 0.05).all()  # dealt hands are exchangeable
    assert ((t.ci_low <= ALWAYS_QUIT_PENALTY) & (ALWAYS_QUIT_PENALTY <= t.ci_high)).sum() >= 4
    plan = seat_effects_plan(LAMA, lineup("greedy")[0], 6, False, CFG)
    t = seat_table(plan, run(plan, 4, 0, 200_000, threads=2), 4, ("penalty_per_round",))
    first, last = t.iloc[0], t.iloc[5]
    assert first.vs_mean_ci_high < 0 and first.p_holm < 0.05  # seat 0 starts: an advantage
    assert last.vs_mean_ci_low > 0 and last.p_holm < 0.05
    res = run_to_precision(plan, 4, 0.05, seat_half_width(("penalty_per_round",)), 200, 10**6)
    assert res.reached and stats.max_half_width(res.tally, ("penalty_per_round",), vs_mean=True) <= 0.05


@pytest.mark.parametrize("name", list(all_games()))
def test_every_rule_set_compares_without_extra_work(name):
    game = all_games()[name]
    # built-in strategies only: other tests register deliberately broken ones in the same registry
    names = [s.name for s in registry.strategies_for(name) if s.source.startswith("llama_sim.strategies")][:2]
    players = lineup(*names, game=name)
    cfg = game.config()
    for games_mode, blocks in ((False, 40), (True, 3)):
        d = comparison_design(game, max(2, game.min_players), players, games_mode, cfg)
        tally = run(d, 5, 0, blocks, threads=2)
        assert tally == run(d, 5, 0, blocks, threads=1, chunk=1)
        assert len(paired_table(d, tally, 5, ("penalty_per_round",))) == 1
    plan = seat_effects_plan(game, players[0], game.min_players, False, cfg)
    assert len(seat_table(plan, run(plan, 5, 0, 50), 5, ("penalty_per_round",))) == game.min_players


# ----------------------------------------------------------------------------- CLI

BASE = ["compare", "-g", "lama", "greedy", "threshold", "--rounds", "3000", "-q"]


def test_cli_default_table_shows_results_paired_and_ranking(capsys):
    code, out, err = call(capsys, *BASE)
    assert code == 0 and err == ""
    for heading in ("Results", "Paired differences", "Ranking", "threshold better", "rounds in", "seed 1"):
        assert heading in out


def test_cli_json_views(capsys):
    code, out, _ = call(capsys, *BASE, "--format", "json")
    rows = json.loads(out)
    assert code == 0 and list(rows[0]) == RESULT_COLUMNS and {r["n"] for r in rows} == {6000}
    code, out, _ = call(capsys, *BASE, "--format", "json", "--view", "paired")
    assert list(json.loads(out)[0]) == PAIRED_COLUMNS
    code, out, _ = call(capsys, *BASE, "--format", "json", "--view", "all")
    doc = json.loads(out)
    assert set(doc) == {"run", "results", "paired", "ranking"}
    assert doc["run"]["tables"][0]["rounds"] == 3000 and doc["run"]["tables"][0]["deal_blocks"] == 500


def test_cli_csv_view_and_out_siblings(capsys, tmp_path):
    code, out, _ = call(capsys, *BASE, "--format", "csv", "--view", "ranking")
    assert code == 0 and list(pd.read_csv(io.StringIO(out)).columns) == RANKING_COLUMNS
    target = tmp_path / "cmp.csv"
    assert call(capsys, *BASE, "--out", str(target))[0] == 0
    assert list(pd.read_csv(target).columns) == RESULT_COLUMNS
    assert list(pd.read_csv(tmp_path / "cmp.paired.csv").columns) == PAIRED_COLUMNS
    assert list(pd.read_csv(tmp_path / "cmp.ranking.csv").columns) == RANKING_COLUMNS
    (tmp_path / "x.paired.parquet").write_text("keep")
    code, _, err = call(capsys, *BASE, "--out", str(tmp_path / "x.parquet"))
    assert code == 2 and "x.paired.parquet exists" in err and not (tmp_path / "x.parquet").exists()
    assert call(capsys, *BASE, "--out", str(tmp_path / "x.parquet"), "--force")[0] == 0
    assert list(pd.read_parquet(tmp_path / "x.paired.parquet").columns) == PAIRED_COLUMNS


def test_cli_same_tables_with_one_or_two_threads(capsys):
    outs = []
    for threads in ("1", "2"):
        code, out, _ = call(capsys, *BASE, "--format", "json", "--view", "all", "--threads", threads)
        doc = json.loads(out)
        outs.append({k: doc[k] for k in ("results", "paired", "ranking")})
    assert outs[0] == outs[1]


def test_cli_precision_reports_what_it_took(capsys):
    code, out, _ = call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--precision", "0.05", "-q",
                        "--view", "paired")
    assert code == 0 and "--precision 0.05 reached" in out
    code, out, err = call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--precision", "0.05",
                          "--format", "json", "--view", "all")
    doc = json.loads(out)
    info = doc["run"]["tables"][0]
    assert info["precision_reached"] and info["max_half_width"] <= 0.05 and info["rounds"] % 6 == 0
    assert all((r["ci_high"] - r["ci_low"]) / 2 <= 0.05 for r in doc["paired"])
    assert "reached" in err  # the summary goes to stderr when stdout holds the document
    code, out, err = call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--precision", "0.001",
                          "--max-rounds", "3000", "--format", "csv")
    assert code == 0 and "not reached" in err


def test_cli_seat_table(capsys):
    code, out, _ = call(capsys, "compare", "-g", "lama", "--seat-table", "greedy", "--rounds", "2000", "-q")
    assert code == 0 and all(f"{n} players, every seat greedy" in out for n in range(2, 7))
    code, out, _ = call(capsys, "compare", "-g", "lama", "--seat-table", "greedy", "-p", "3", "--games", "60",
                        "--format", "csv", "--view", "seats", "-q")
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == SEAT_COLUMNS and set(df.metric) == {"penalty_per_round", "win_rate"}
    assert sorted(df.seat.unique()) == [0, 1, 2] and (df.players == 3).all()
    code, out, _ = call(capsys, "compare", "-g", "lama", "--seat-table", "greedy", "-p", "3", "--rounds", "600",
                        "--format", "json", "-q")
    rows = json.loads(out)
    assert list(rows[0]) == RESULT_COLUMNS and [r["seat"] for r in rows[::3]] == [0, 1, 2]


@pytest.mark.parametrize("args,needle", [
    (["greedy"], "at least two strategies"),
    (["greedy", "threshold", "--format", "csv", "--view", "all"], "csv prints one table"),
    (["greedy", "threshold", "--view", "seats"], "needs --seat-table"),
    (["greedy", "threshold", "--view", "nope"], "unknown --view"),
    (["greedy", "threshold", "--max-rounds", "100"], "max_rounds: applies only with precision"),
    (["greedy", "threshold", "--precision", "0"], "precision: must be at least 1e-06, not 0"),
    (["greedy", "threshold", "--precision", "-1"], "precision: must be at least 1e-06, not -1"),
    (["greedy", "threshold", "--metric", "win_rate"], "need --games"),
    (["greedy", "threshold", "--metric", "speed"], "choose from"),
    (["greedy", "threshold", "--backend", "spark"], "backend: must be one of local, dask, not 'spark'"),
    (["greedy", "threshold", "--scheduler", "tcp://127.0.0.1:1"], "needs --backend dask"),
    (["greedy", "threshold", "--workers", "2"], "needs --backend dask"),
    (["--seat-table", "greedy", "-p", "9"], "2 to 6 players"),
])
def test_cli_bad_input_is_one_line(capsys, args, needle):
    code, out, err = call(capsys, "compare", "-g", "lama", "--rounds", "100", *args)
    assert code == 2 and needle in err and err.count("\n") == 1 and out == ""


def test_dask_backend_without_dask_is_one_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, out, err = call(capsys, *BASE, "--backend", "dask")
    assert code == 2 and 'pip install -e ".[dask]"' in err and err.count("\n") == 1 and out == ""
