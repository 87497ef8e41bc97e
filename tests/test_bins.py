"""Tests of balls into bins (partkit.balance.bins)."""

import numpy as np
import pytest

from partkit.balance.bins import max_load_theory, throw
from partkit.errors import InputError


def test_two_choices_beat_one_for_n_equal_p():
    n = 10**5
    one = throw(n, n, 1, seed=0)
    two = throw(n, n, 2, seed=0)
    assert one.loads.sum() == two.loads.sum() == n
    assert one.max_load >= two.max_load + 3
    assert two.max_load <= 4
    # measured against the leading-order theory (ln n / ln ln n, and ln ln n / ln 2 + O(1))
    assert one.max_load >= max_load_theory(n, n, 1)
    assert two.max_load <= max_load_theory(n, n, 2) + 1


def test_heavily_loaded_gap_does_not_grow_with_two_choices():
    bins = 1000
    one = throw(200 * bins, bins, 1, seed=1)
    two = throw(200 * bins, bins, 2, seed=1)
    assert one.gap > 20
    assert two.gap <= 3
    assert one.gap == pytest.approx(max_load_theory(200 * bins, bins, 1) - 200, rel=0.5)


def test_always_go_left_and_more_choices():
    n = 50_000
    assert throw(n, n, 3, seed=2).max_load <= throw(n, n, 2, seed=2).max_load
    left = throw(n, n, 2, left=True, seed=2)
    assert left.loads.sum() == n and left.max_load <= 4


def test_deterministic_and_bad_input():
    assert np.array_equal(throw(1000, 100, 2, seed=3).loads, throw(1000, 100, 2, seed=3).loads)
    with pytest.raises(InputError):
        throw(10, 0, 1)
    with pytest.raises(InputError):
        throw(10, 5, 0)
    with pytest.raises(InputError):
        throw(10, 1, 2, left=True)
