"""The expert's search (``core.expert``): successive elimination and the stop rule on known values
(the property elimination rests on is tested with the shedding roll-outs, ``tests/analysis/test_expert.py``)."""
import numpy as np

from llama_sim.core.expert import keep_contenders


def contenders(values, z=2.0):
    """The columns ``keep_contenders`` keeps of ``values`` (a row per sample), its sums made here."""
    done, k = values.shape
    live = np.arange(k)
    pairs = values[:, :, None] - values[:, None, :]
    kept = keep_contenders(values.sum(0), pairs.sum(0), (pairs ** 2).sum(0), done, live, k, z)
    return live[:kept].tolist()


def test_a_column_always_worse_is_dropped_and_an_equal_one_does_not_hold_the_search():
    base = np.arange(16, dtype=np.float64) % 5
    values = np.stack([base + 1.0, base, base], axis=1)  # column 1 leads, 2 equals it, 0 is 1 point worse
    assert contenders(values) == [1]


def test_a_noisy_column_near_the_leader_stays_and_the_search_goes_on():
    base = np.arange(16, dtype=np.float64) % 5
    swing = np.where(np.arange(16) % 2 == 0, 1.0, -1.0)  # paired difference: mean 0, standard error 0.26
    values = np.stack([base, base + swing, base + 3.0], axis=1)
    assert contenders(values) == [0, 1]  # column 2 (3 points worse on every sample) dropped


def test_a_column_better_by_less_than_the_indifference_ends_the_search():
    base = np.arange(16, dtype=np.float64) % 5
    small = np.where(np.arange(16) % 2 == 0, 0.01, -0.01)  # standard error 0.0026: 2 of them under INDIFFERENCE
    values = np.stack([base, base + small], axis=1)
    assert contenders(values) == [0]
