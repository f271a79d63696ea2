"""``llama_sim.core.views``: the kernels' arrays without reference counting."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from llama_sim.core.draws import NO_NRT
from llama_sim.core.views import readonly_row, stack_zeros


@njit(**NO_NRT)
def _fill_and_sum(n, k, out):
    """Two stack arrays written through each other's indices: they must not overlap, start at zero on
    every call, and have the asked shape and C strides."""
    a = stack_zeros(24, (n, k), np.int64)
    b = stack_zeros(6, n, np.uint64)
    for i in range(n):
        b[i] = np.uint64(7)
        for j in range(k):
            a[i, j] += 10 * i + j
    total = 0
    for i in range(n):
        for j in range(k):
            total += a[i, j]
    out[0] = total
    out[1] = np.int64(b.sum())
    out[2] = a.shape[0]
    out[3] = a.shape[1]
    out[4] = a.strides[0]
    out[5] = a.strides[1]


@pytest.mark.parametrize("n, k", [(4, 3), (2, 5), (6, 4), (1, 1)])
def test_stack_arrays_are_zeroed_separate_and_shaped_as_asked(n, k):
    out = np.zeros(6, np.int64)
    for _ in range(2):  # a second call starts from zeros again
        _fill_and_sum(n, k, out)
        want = sum(10 * i + j for i in range(n) for j in range(k))
        assert out.tolist() == [want, 7 * n, n, k, 8 * k, 8]


def test_stack_zeros_needs_a_literal_capacity():
    @njit
    def runtime_capacity(c):
        return stack_zeros(c, 3, np.int64)[0]

    with pytest.raises(TypingError):
        runtime_capacity(8)


def test_a_readonly_row_is_the_row_and_cannot_be_written():
    table = np.arange(12, dtype=np.int64).reshape(3, 4)

    @njit
    def row_sum(t, i):
        r = readonly_row(t, i)
        return r.sum() * 100 + r.shape[0]

    @njit
    def write(t, i):
        r = readonly_row(t, i)
        r[0] = 1

    assert row_sum(table, 2) == (8 + 9 + 10 + 11) * 100 + 4
    with pytest.raises(TypingError):
        write(table, 1)
