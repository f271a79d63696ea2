"""A league plot draws its leaders on a scale they can be told apart on: strategies far behind at
every count are named in a note instead of drawn."""
import pandas as pd

from llama_sim.analysis.plots import also_rans


def _ranking(values: dict) -> pd.DataFrame:
    return pd.DataFrame([dict(players=n, strategy=s, value=v) for s, by in values.items() for n, v in by.items()])


def test_far_behind_at_every_count_is_an_also_ran():
    wins = _ranking({"a": {2: 0.66, 4: 0.36}, "b": {2: 0.65, 4: 0.35}, "c": {2: 0.60, 4: 0.34},
                     "random": {2: 0.15, 4: 0.001}, "quit": {2: 0.11, 4: 0.0}})
    assert also_rans(wins, higher_better=True) == ["quit", "random"]
    points = _ranking({"a": {2: 7.0, 4: 5.7}, "b": {2: 7.1, 4: 5.8}, "c": {2: 7.6, 4: 6.1}, "quit": {2: 20.8, 4: 21.0}})
    assert also_rans(points, higher_better=False) == ["quit"]


def test_close_somewhere_is_drawn():
    wins = _ranking({"a": {2: 0.66, 4: 0.36}, "b": {2: 0.65, 4: 0.35}, "c": {2: 0.64, 4: 0.34},
                     "late": {2: 0.20, 4: 0.355}})
    assert also_rans(wins, higher_better=True) == []
