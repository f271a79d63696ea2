"""Importing llama_sim changes nothing for a user's own compiled functions: a user's
``@numba.njit(cache=True)`` function caches where Numba puts it by default, compiles with the garbage
collector running as it was, and no import hook of ours is in the way (only the one for the previous
release's module names, which answers ``llama_sim.*`` names only). llama_sim's own functions still
compile with the collector paused and cache in llama_sim's folder. Each case runs in a fresh
interpreter, where the imports really happen."""
import json
import os
import subprocess
import sys
from pathlib import Path

USER_MODULE = '''
import numba


@numba.njit(cache=True)
def add_one(x):
    return x + 1
'''

SCRIPT = r'''
import gc, json, os, sys
from pathlib import Path

with_llama_sim = sys.argv[1] == "with"
hooks_before = [type(f) for f in sys.meta_path]
if with_llama_sim:
    import llama_sim
    import llama_sim.core.rng  # a module of ours that compiles: what it sets up is set up
import numba
from numba.core import event

seen = {}


class Observer(event.Listener):
    def on_start(self, ev):
        seen.setdefault(ev.data["dispatcher"].py_func.__name__, gc.isenabled())

    def on_end(self, ev):
        pass


event.register("numba:compile", Observer())
sys.path.insert(0, os.getcwd())
import user_functions

assert user_functions.add_one(1) == 2
result = {"user_gc_enabled": seen["add_one"], "gc_enabled_after": gc.isenabled(),
          "user_cache": sorted(str(p.relative_to(Path.cwd())) for p in Path.cwd().rglob("*.nb*")),
          "new_hooks": [f"{t.__module__}.{t.__qualname__}" for t in map(type, sys.meta_path) if t not in hooks_before]}
if with_llama_sim:
    import numpy as np
    from llama_sim.core import cache, moved
    from llama_sim.core.rng import splitmix64

    splitmix64(np.uint64(7))
    result["own_gc_enabled"] = seen["splitmix64"]
    result["own_cache"] = sorted(p.name for p in cache.cache_folder().rglob("rng.splitmix64*.nb*"))
    hook = next(f for f in sys.meta_path if isinstance(f, moved.MovedModules))
    result["hook_answers"] = [name for name in ("numba", "user_functions", "numpy.linalg", "llama_simple")
                              if hook.find_spec(name) is not None]
print(json.dumps(result))
'''


def run(tmp_path: Path, mode: str) -> dict:
    folder = tmp_path / mode
    folder.mkdir()
    (folder / "user_functions.py").write_text(USER_MODULE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LLAMA_SIM_CACHE"] = str(tmp_path / "llama_sim_cache")
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_users_compiled_function_is_left_as_numba_has_it(tmp_path):
    without, with_ = run(tmp_path, "without"), run(tmp_path, "with")
    assert with_["user_cache"] == without["user_cache"] != []  # Numba's default place (__pycache__ here)
    assert with_["user_gc_enabled"] is without["user_gc_enabled"] is True
    assert with_["gc_enabled_after"] is True
    assert with_["new_hooks"] == ["llama_sim.core.moved.MovedModules"]
    assert with_["hook_answers"] == []
    assert not any((tmp_path / "llama_sim_cache").rglob("user_functions.*"))


def test_llama_sims_own_functions_compile_paused_into_its_cache_folder(tmp_path):
    result = run(tmp_path, "with")
    assert result["own_gc_enabled"] is False
    assert any(name.endswith(".nbi") for name in result["own_cache"])
    assert any(name.endswith(".nbc") for name in result["own_cache"])
