"""Benchmarks report decisions per round counted on the reference engine; nothing here is timed."""
import subprocess
import sys
from pathlib import Path

from llama_sim.core import registry, rng
from llama_sim.analysis.bench import bench_game
from llama_sim.core.ruleset import get_game
from llama_sim.rulesets import lama
from llama_sim.run import chunks

ROOT = Path(__file__).resolve().parents[2]


def test_decisions_per_round_are_the_reference_rounds_actions():
    row = bench_game(get_game("lama"), rounds=2000, reference_rounds=40, threads=1)
    assert row["reference_agrees"]  # both kernels' sums, the line-up kernel's too
    assert row["lineup_rounds_per_s_1_thread"] > 0 and row["lineup_decisions_per_s_1_thread"] > 0
    players = [registry.parse_spec("lama", "greedy") for _ in range(4)]
    pairs = [(p.strategy.policy, p.params) for p in players]
    actions = 0
    for b in range(40):  # the bench's blocks: seed 7, one deal per block
        drng, prng = rng.new_state(7, b, rng.DEAL_STREAM), rng.new_state(7, b, rng.POLICY_STREAM)
        hands, pile, discard = lama.shedding.deal_lazy(lama.DECK, 4, drng)
        actions += len(lama.Round(hands, pile, discard, pairs, [0] * 4, prng=prng).play().actions)
    assert row["decisions_per_round"] == round(actions / 40, 2)
    per_s = row["kernel_rounds_per_s_1_thread"] * actions / 40  # the row's rounds/s is rounded to 1
    assert abs(row["kernel_decisions_per_s_1_thread"] - per_s) <= actions / 40


def test_a_generic_only_bench_compiles_no_line_up_kernel(monkeypatch):
    """``LLAMA_SIM_KERNEL=generic`` means no line-up kernel, in ``bench`` too: its columns stay empty."""
    def refuse(*args):
        raise AssertionError("a line-up kernel was built")

    monkeypatch.setenv("LLAMA_SIM_KERNEL", "generic")
    monkeypatch.setattr(chunks, "line_up_kernel", refuse)
    row = bench_game(get_game("lama"), rounds=2000, reference_rounds=10, threads=1)
    assert row["reference_agrees"] and row["kernel_rounds_per_s_1_thread"] > 0
    assert row["lineup_rounds_per_s_1_thread"] is None and row["lineup_decisions_per_s_1_thread"] is None


def test_before_after_script_runs_against_a_tree():
    """The comparison script with this tree as its own baseline: one table row per rule set."""
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "before_after.py"), "--baseline", str(ROOT),
                          "--games", "lama", "--repeats", "1", "--rounds", "2000", "--reference-rounds", "20"],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert "baseline_rounds/s" in lines[1] and "decisions/round" in lines[1]
    assert lines[2].split()[0] == "lama" and len(lines) == 3
