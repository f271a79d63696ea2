"""``core.aside``: a cold first run compiles its strategies in another process while this one compiles
the kernel, and leaves them in the kernel cache; it stays out of the way otherwise."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llama_sim.core import aside

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
from llama_sim.core import aside, jit, registry
from llama_sim.core.advice import advice_of, forced_policy
from llama_sim.core.ruleset import get_game

registry.load_builtin("lama")
greedy, threshold = registry.get("lama", "greedy"), registry.get("lama", "threshold")
kernel = get_game("lama").run_blocks
assert not greedy.is_compiled() and not kernel.is_cached()
other = aside.start(kernel, [greedy, greedy], forced=[greedy, greedy])
assert other.process is not None
assert other.process.args[3:] == ["lama.greedy", "forced lama.greedy"], other.process.args  # once, the cold one
other.wait()
assert greedy._kernel._dispatcher is None and greedy.is_compiled()  # on disk, compiled by the other process
assert greedy.policy is not None  # and loaded from there
compiled = []
jit.on_compile = compiled.append
forced_policy("lama", "lama.greedy", greedy.policy, advice_of(get_game("lama")).turn_index)
assert compiled == [], compiled  # advise's forced-first-action wrapper too: loaded, not compiled
jit.on_compile = None
assert aside.start(kernel, [greedy]).process is None  # nothing cold to hand over
kernel.is_cached = lambda: True
assert aside.start(kernel, [threshold]).process is None  # a cached kernel: the strategy compiles here
print("ok")
"""


@pytest.mark.skipif(aside._cores() < 2, reason="needs two cores")
def test_cold_strategies_compile_in_another_process_into_the_cache(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "LLAMA_SIM_ASIDE"}
    env.update(LLAMA_SIM_CACHE=str(tmp_path), PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr[-2000:]


def test_it_stays_out_of_the_way_when_asked_to(monkeypatch):
    class Cold:
        def is_cached(self):
            return False

    monkeypatch.setenv("LLAMA_SIM_ASIDE", "0")
    assert aside.start(Cold(), []).process is None
    monkeypatch.delenv("LLAMA_SIM_ASIDE")
    assert aside.start(Cold(), []).process is None  # no strategy to compile


def test_a_failed_compile_stops_the_other_process_at_once():
    class Slow:  # a stand-in for the other process: still compiling
        def __init__(self):
            self.killed = False

        def poll(self):
            return None if not self.killed else -9

        def kill(self):
            self.killed = True

        def wait(self, timeout=None):
            assert self.killed, "waited for the other process after the compile failed"

    process = Slow()
    with pytest.raises(KeyboardInterrupt):
        with aside.Aside(process):
            raise KeyboardInterrupt
    assert process.killed
