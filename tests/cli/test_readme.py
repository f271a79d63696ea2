"""The README's commands run as written, so the README cannot rot.

Every ``llamasim`` command of the README's bash blocks and its Python block run here, from a folder
that holds the repository's ``experiments/`` and ``examples/`` (what a fresh clone has). Only their
sizes shrink (rounds, games, budgets, roll-outs, ``--scale``, a local cluster's workers: ``small``),
so the suite stays short; everything else is the README's text. The commands run in the test's
process (``llamasim``'s own ``main``, as the console script calls it), where the kernels other tests
compiled are loaded already; the Python block runs as a script there too. A line that needs what a
test cannot have (a cluster's address) is listed in ``NEEDS`` with the reason.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from cli_helpers import call

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
NEEDS = {"--scheduler": "a running Dask scheduler at the given address"}
CAPS = {"--rounds": 20_000, "--games": 100, "--budget": 20_000, "--decisions": 100, "--rollouts": 50,
        "--max-rollouts": 2_000}
DEFAULTS = {  # sizes a command has by default, given here so the test stays small
    "chart": ["--games", "200"], "grade": ["--decisions", "100", "--rollouts", "30"],
    "bench": ["--rounds", "20000", "--reference-rounds", "300"], "advise": ["--max-rollouts", "2000"],
    "run": ["--scale", "0.002"], "report": ["--scale", "0.002"], "tune": ["--budget", "20000"],
}
# ``bench`` compiles a one-strategy line-up kernel per rule set (4-5 s each in a cold suite, kernels no
# other test needs); here it times the generic kernels only, as LLAMA_SIM_KERNEL=generic documents. Its
# line-up columns are tested in tests/analysis/test_bench.py, the line-up kernels in tests/run/test_lineup.py.
ENV = {"bench": {"LLAMA_SIM_KERNEL": "generic"}}


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def commands() -> list[str]:
    """The llamasim commands of the bash blocks, comments dropped (``cd`` and ``pip`` are the set-up)."""
    out = []
    for block in blocks("bash"):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words and words[0] == "llamasim":
                    out.append(shlex.join(words))
    return out


def small(words: list[str], tmp: Path) -> list[str]:
    """The command at test size: counts capped, default sizes given, outputs under ``tmp``."""
    out = list(words)
    for i, w in enumerate(out[:-1]):
        if w in CAPS and out[i + 1].replace("_", "").isdigit():
            out[i + 1] = str(min(int(out[i + 1]), CAPS[w]))
        if w == "--precision":
            out[i + 1] = str(max(float(out[i + 1]), 0.3))
        if w == "--scale":
            out[i + 1] = "0.002"
        if w == "--out" and out[i + 1].startswith("/"):
            out[i + 1] = str(tmp / Path(out[i + 1]).name)
    command = out[1]
    for flag, value in zip(DEFAULTS.get(command, [])[::2], DEFAULTS.get(command, [])[1::2]):
        if flag not in out:
            out += [flag, value]
    if "dask" in out and "--workers" not in out:  # a LocalCluster of one worker process, not one per core
        out += ["--workers", "1"]
    return out


@pytest.fixture
def clone(tmp_path):
    """A working folder like a fresh clone's root: experiments/ and examples/ (reports are written here)."""
    for name in ("experiments", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def test_the_readme_has_commands():
    found = commands()
    assert len(found) >= 20 and any(c.startswith("llamasim compare") for c in found)


@pytest.mark.parametrize("command", commands())
def test_readme_command_runs(command, clone, capsys, monkeypatch):
    words = shlex.split(command)
    missing = [why for flag, why in NEEDS.items() if flag in words]
    if missing:
        pytest.skip(f"needs {missing[0]}")
    args = small(words, clone)
    monkeypatch.chdir(clone)
    for name, value in ENV.get(args[1], {}).items():
        monkeypatch.setenv(name, value)
    code, out, err = call(capsys, *args[1:])
    assert code == 0, f"{shlex.join(args)}\n{err[-2000:]}"
    if "--format" not in words:
        assert out.strip(), shlex.join(args)


def test_readme_python_runs(clone, monkeypatch):
    """The Python block, its sizes shrunk the same way, run as a script in the clone's folder."""
    (code,) = [b for b in blocks("python") if "import llama_sim" in b]
    caps = {"rounds": 20_000, "games": 300, "budget": 20_000}
    shrunk = re.sub(r"\b(rounds|games|budget)=([\d_]+)",
                    lambda m: f"{m.group(1)}={min(int(m.group(2).replace('_', '')), caps[m.group(1)])}", code)
    monkeypatch.chdir(clone)
    exec(compile(shrunk, "README.md (the Python block)", "exec"), {"__name__": "__main__"})
    assert (clone / "compare.png").stat().st_size > 10_000


def test_ci_runs_the_readmes_test_command_as_a_users_machine_would(tmp_path):
    """``.ci/run`` installs the project and runs the README's test command with the environment of a
    user's machine: without the development machine's ``PYTHONUNBUFFERED`` and ``PYTHONDONTWRITEBYTECODE``
    (green there must mean green for a user). Its ``python3`` is a stand-in here that records each call."""
    log = tmp_path / "calls"
    fake = tmp_path / "python3"
    fake.write_text('#!/bin/sh\necho "$* unbuffered=${PYTHONUNBUFFERED-} nobytecode=${PYTHONDONTWRITEBYTECODE-}" '
                    f'>> "{log}"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pytest_call = next(ln for ln in log.read_text().splitlines() if ln.startswith("-m pytest"))
    readme_command = next(ln for b in blocks("bash") for ln in b.splitlines() if "pytest" in ln)
    assert pytest_call.split(" unbuffered=")[0] in readme_command
    assert pytest_call.endswith(" unbuffered= nobytecode="), pytest_call
