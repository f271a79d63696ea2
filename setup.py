"""The package list, found rather than written out: every package under llama_sim/ (a new rule set's
folder needs no line anywhere), plus the strategy library, which lives at the top level (strategies/,
where users read and extend it) and is installed as llama_sim.strategies. Everything else is in
pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["llama_sim", "llama_sim.*"]) + ["llama_sim.strategies"])
