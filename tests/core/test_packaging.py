"""What ``pip install .`` ships: every package under llama_sim/ (found by setup.py, no list to edit)
and every data file a package reads (report specs, charts, symbol tables)."""
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_every_folder_of_code_is_a_package_setup_finds():
    found = set(find_packages(str(ROOT), include=["llama_sim", "llama_sim.*"]))
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "llama_sim").rglob("*.py")}
    assert {"llama_sim.rulesets.lama", "llama_sim.present.steps"} <= found
    assert folders <= found, f"folders without __init__.py are not installed: {sorted(folders - found)}"


def test_every_data_file_matches_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    data = [p for p in (ROOT / "llama_sim").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
            and "__pycache__" not in p.parts]
    assert any(p.name == "report.toml" for p in data)
    missed = [str(p.relative_to(ROOT)) for p in data if not any(fnmatch(p.name, pattern) for pattern in patterns)]
    assert not missed, f"data files not installed: {missed}"
