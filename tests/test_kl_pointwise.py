"""The kl inverses point by point: one compiled kernel at each point, whatever the
shape it is called with, and each within its stated error of a 40-digit reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.numerics import kl
from tests.test_split_kl_bernstein import mp_kl_inverse  # no @given nested at import

risks = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 5e-324, 1e-300, 0.5]))
sides = st.one_of(st.floats(0.0, 50.0), st.sampled_from([0.0, 1e-300, 1e-12, 700.0]))
points = st.lists(st.tuples(risks, sides), min_size=1, max_size=32)


@settings(max_examples=300, deadline=None)
@given(points)
def test_one_point_and_an_array_give_the_same_bits(points_and_sides):
    """Each inverse is one compiled kernel at one point: a float, a few points and the
    same points inside a larger array give the same bits (the wrapper's broadcasting
    and loops add nothing), and a 2-d array keeps its shape."""
    p, eps = (np.array(x) for x in zip(*points_and_sides, strict=True))
    for inverse in (
        kl.kl_inv_upper_newton,
        kl.kl_inv_lower_newton,
        kl.kl_inv_upper_bracket,
        kl.kl_inv_lower_bracket,
    ):
        few = inverse(p, eps)
        padded = inverse(np.append(p, np.full(40, 0.3)), np.append(eps, np.full(40, 0.1)))
        grid = inverse(np.stack([p, p]), np.stack([eps, eps]))
        for k, part in enumerate(few):
            assert part.shape == p.shape and grid[k].shape == (2, p.size)
            np.testing.assert_array_equal(part, padded[k][: p.size])
            np.testing.assert_array_equal(grid[k], np.stack([part, part]))
            one = [float(inverse(float(a), float(b))[k]) for a, b in zip(p, eps, strict=True)]
            np.testing.assert_array_equal(one, part)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(1e-6, 1.0), st.floats(1e-9, 5.0)), min_size=1, max_size=6))
def test_the_lower_newton_root_meets_the_inverse_in_40_digits(points_and_sides):
    """One point's and few points' Newton roots of the lower inverse are within their
    stated error of a 40-digit bisection (roots under 1e-30 within 1e-30: the
    bisection's floor)."""
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


def test_a_point_that_is_not_plain_is_handled_on_its_own():
    """An infinite side (the inverse is 1) or a NaN among few points: that point's
    result alone (1, NaN), its neighbours' untouched."""
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
    """Each point's bracket end is at least the true
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
