"""Few points of the upper kl inverse (and of the lower one's Newton root) go through
the float path point by point (``cvxpb.numerics.kl.SMALL``): bit for bit what the
array path gives."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.numerics import kl
from tests.test_split_kl_bernstein import mp_kl_inverse  # no @given nested at import

risks = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 5e-324, 1e-300, 0.5]))
sides = st.one_of(st.floats(0.0, 50.0), st.sampled_from([0.0, 1e-300, 1e-12, 700.0]))
points = st.lists(st.tuples(risks, sides), min_size=1, max_size=kl.SMALL)


@settings(max_examples=300, deadline=None)
@given(points)
def test_point_by_point_is_the_array_paths_bits(points_and_sides):
    p, eps = (np.array(x) for x in zip(*points_and_sides, strict=True))
    by_point = kl.kl_inv_upper_newton(p, eps), kl.kl_inv_upper_bracket(p, eps)
    small, kl.SMALL = kl.SMALL, 0  # the array path itself
    try:
        as_array = kl.kl_inv_upper_newton(p, eps), kl.kl_inv_upper_bracket(p, eps)
    finally:
        kl.SMALL = small
    for ours, theirs in zip(by_point, as_array, strict=True):
        for a, b in zip(ours, theirs, strict=True):
            assert a.shape == b.shape == p.shape
            np.testing.assert_array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(points)
def test_the_lower_newton_root_point_by_point_is_the_array_paths_bits(points_and_sides):
    """The lower inverse's Newton root (the trinomial region's fast path): one point and
    few points in floats, bit for bit the array path's, roots below the least float
    included."""
    p, eps = (np.array(x) for x in zip(*points_and_sides, strict=True))
    by_point = kl.kl_inv_lower_newton(p, eps)
    one = [kl.kl_inv_lower_newton(float(a), float(b)) for a, b in zip(p, eps, strict=True)]
    small, kl.SMALL = kl.SMALL, 0
    try:
        as_array = kl.kl_inv_lower_newton(p, eps)
    finally:
        kl.SMALL = small
    for k, (ours, theirs) in enumerate(zip(by_point, as_array, strict=True)):
        assert ours.shape == theirs.shape == p.shape
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal([float(x[k]) for x in one], theirs)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(1e-6, 1.0), st.floats(1e-9, 5.0)), min_size=1, max_size=6))
def test_the_lower_newton_root_meets_the_inverse_in_40_digits(points_and_sides):
    """Independently of the array path: one point's and few points' Newton roots of the
    lower inverse are within their stated error of a 40-digit bisection (roots under
    1e-30 within 1e-30: the bisection's floor)."""
    import mpmath

    p, eps = (np.array(x) for x in zip(*points_and_sides, strict=True))
    roots, errors = kl.kl_inv_lower_newton(p, eps)
    with mpmath.workdps(40):
        for k in range(p.size):
            true = float(mp_kl_inverse(p[k], eps[k], upper=False))
            for root, error in (
                (roots[k], errors[k]),
                tuple(float(x) for x in kl.kl_inv_lower_newton(float(p[k]), float(eps[k]))),
            ):
                assert abs(root - true) <= error + 1e-13 * true + 1e-30


def test_a_point_that_is_not_plain_takes_the_array_path():
    """An infinite side (the inverse is 1) or a NaN among few points: the array path's
    own handling, not the float path's."""
    hi = kl.kl_inv_upper_bracket(np.array([0.1, 0.2]), np.array([0.01, np.inf]))[1]
    assert hi[1] == 1.0 and 0.1 < hi[0] < 1.0
    r, _ = kl.kl_inv_upper_newton(np.array([0.1, np.nan]), np.array([0.01, 0.01]))
    assert np.isnan(r[1]) and 0.1 < r[0] < 1.0
    assert kl.kl_inv_upper_newton(np.zeros((2, 3)), np.full((2, 3), 0.1))[0].shape == (2, 3)
    with pytest.raises(ValueError, match="eps"):
        kl.kl_inv_upper_bracket(np.array([0.1]), np.array([-1.0]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(1e-9, 5.0)), min_size=1, max_size=6))
def test_point_by_point_meets_the_inverse_in_40_digits(points_and_sides):
    """Independently of the array path: each point's bracket end is at least the true
    inverse (a 40-digit bisection) and within 1e-13 relative of it (the bracket and
    kl's rounding margin), and Newton's root is within its stated error of it."""
    import mpmath

    p, eps = (np.array(x) for x in zip(*points_and_sides, strict=True))
    hi = kl.kl_inv_upper_bracket(p, eps)[1]
    root, error = kl.kl_inv_upper_newton(p, eps)
    with mpmath.workdps(40):
        for k in range(p.size):
            true = mp_kl_inverse(p[k], eps[k], upper=True)
            assert true <= hi[k] <= true * (1 + 1e-13) + 1e-300
            assert abs(root[k] - true) <= error[k] + 1e-15 * true
