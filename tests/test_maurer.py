"""Maurer's xi(n) against its definition summed in mpmath, and its known bounds."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.numerics.maurer import EXACT_UP_TO, log_xi


def mp_xi(n, digits=40):
    """``sum_k C(n, k) (k/n)^k (1 - k/n)^(n-k)`` with 0^0 = 1, in ``digits`` digits."""
    with mp.workdps(digits):
        total = mp.mpf(0)
        for k in range(n + 1):
            p = mp.mpf(k) / n
            total += mp.binomial(n, k) * (p**k if k else 1) * ((1 - p) ** (n - k) if n - k else 1)
        return total


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 57, 100, 999, 1000, 2500])
def test_xi_is_the_sum_rounded_up(n):
    exact = mp_xi(n)
    ours = mp.e ** mp.mpf(log_xi(n))
    assert ours >= exact  # a valid confidence term
    assert (ours - exact) / exact <= 2e-10


def test_xi_of_small_n_by_hand():
    # xi(1) = 1 + 1; xi(2) = 1 + 2 (1/2)(1/2) + 1; xi(3) = 2 + 2 * 3 (1/3)(2/3)^2
    assert math.exp(log_xi(1)) == pytest.approx(2.0, rel=1e-9)
    assert math.exp(log_xi(2)) == pytest.approx(2.5, rel=1e-9)
    assert math.exp(log_xi(3)) == pytest.approx(2 + 6 * (1 / 3) * (2 / 3) ** 2, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, EXACT_UP_TO))
def test_xi_lies_between_its_bounds(n):
    """sqrt(n) <= xi(n) <= 2 sqrt(n) (Maurer, 2004), and xi(n) - sqrt(pi n / 2) falls
    from 0.747 at n = 1 towards 2/3."""
    xi = math.exp(log_xi(n))
    assert math.sqrt(n) <= xi <= 2 * math.sqrt(n) * (1 + 2e-10)
    assert 2 / 3 < xi - math.sqrt(math.pi * n / 2) <= 0.7467


def test_beyond_the_exact_range_the_papers_two_sqrt_n():
    n = EXACT_UP_TO + 1
    assert log_xi(n) >= math.log(2 * math.sqrt(n))
    assert log_xi(n) - math.log(2 * math.sqrt(n)) < 1e-12
    assert log_xi(EXACT_UP_TO) < math.log(2 * math.sqrt(EXACT_UP_TO)) - 0.4


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10", None, np.float64(3.0)])
def test_n_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="n must be an integer at least 1"):
        log_xi(bad)
