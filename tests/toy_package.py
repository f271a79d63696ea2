"""The example rule-set package (``examples/toy-rule-set``) installed for a test: its folder on the import
path and a ``dist-info`` made from its ``pyproject.toml`` (name, version, entry points), which is what
``importlib.metadata`` reads of an installed package. Nothing is written outside a temporary folder."""
from __future__ import annotations

import contextlib
import os
import sys
import tomllib
from pathlib import Path

from llama_sim.core import ruleset

PACKAGE = Path(__file__).resolve().parents[1] / "examples" / "toy-rule-set"
NAME = "toy"  # the rule set its entry point declares


def write_dist_info(site: Path) -> Path:
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, points in project.get("entry-points", {}).items():
        lines += [f"[{group}]", *(f"{name} = {value}" for name, value in points.items()), ""]
    (info / "entry_points.txt").write_text("\n".join(lines))
    return info


@contextlib.contextmanager
def installed(site: Path):
    """The toy package installed into ``site`` for this process and the processes it starts; the rule sets
    found again (``ruleset.discover``) on the way in and out."""
    write_dist_info(site)
    paths = [str(PACKAGE), str(site)]
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    sys.path[:0] = paths
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([saved_env] if saved_env else []))
    ruleset.RULE_SETS.clear()
    ruleset.RULE_SETS.update(ruleset.discover())
    try:
        yield
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_env
        ruleset.RULE_SETS.clear()
        ruleset.RULE_SETS.update(ruleset.discover())
        ruleset._LOADED.pop(NAME, None)
