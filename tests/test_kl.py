"""Binary kl and its inverses against mpmath; conservativeness as a property."""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.numerics.kl import (
    kl,
    kl_inv_lower,
    kl_inv_lower_newton,
    kl_inv_upper,
    kl_inv_upper_newton,
)
from tests.mp_references import mp_kl

mp.mp.dps = 50


def mp_inverse(L, eps, upper=True):
    """Bisection in 50-digit arithmetic: the true root of kl(L, r) = eps."""
    L, eps = mp.mpf(L), mp.mpf(eps)
    lo, hi = (L, mp.mpf(1)) if upper else (mp.mpf(0), L)
    for _ in range(1200):  # until 30 digits relative, also for roots far below 1e-60
        if hi - lo <= mp.mpf(10) ** -30 * hi:
            break
        mid = (lo + hi) / 2
        inside = mp_kl(L, mid) <= eps
        if upper == inside:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


CASES = [
    (0.0, 0.1),
    (0.1, 1e-9),
    (0.3, 0.05),
    (0.5, 2.0),
    (0.97, 0.4),
    (1e-12, 5.0),
    (0.9999, 1e-6),
]


@pytest.mark.parametrize(
    ("p", "q"),
    [
        (0.3, 0.3000001),
        (0.3, 0.7),
        (1e-9, 0.5),
        (0.5, 1 - 1e-12),
        (0.0, 0.2),
        (1.0, 0.9),
        (0.2, 1e-30),
    ],
)
def test_kl_is_accurate_to_a_few_ulps(p, q):
    assert kl(p, q) == pytest.approx(float(mp_kl(p, q)), rel=1e-14)


def test_kl_limits():
    assert kl(0.3, 0.3) == 0.0
    assert kl(0.0, 0.0) == 0.0 and kl(1.0, 1.0) == 0.0
    assert np.isinf(kl(0.5, 0.0)) and np.isinf(kl(0.5, 1.0))


@pytest.mark.parametrize(("L", "eps"), CASES)
def test_upper_inverse_is_never_below_the_true_root_and_within_the_bracket(L, eps):
    root = mp_inverse(L, eps)
    ours = kl_inv_upper(L, eps)
    assert mp.mpf(ours) >= root
    assert (
        ours - float(root) <= 1e-13 * float(root) + 1e-300
    )  # relative: the bracket plus the rounding margin of kl


@pytest.mark.parametrize(("L", "eps"), CASES)
def test_lower_inverse_is_never_above_the_true_root(L, eps):
    root = mp_inverse(L, eps, upper=False)
    ours = kl_inv_lower(L, eps)
    assert mp.mpf(ours) <= root
    assert float(root) - ours <= 1e-13 * float(root) + 1e-300


def test_edge_cases():
    assert kl_inv_upper(0.4, 0.0) == 0.4
    assert kl_inv_upper(1.0, 3.0) == 1.0
    assert kl_inv_upper(0.0, 0.0) == 0.0
    assert kl_inv_upper(0.2, np.inf) == 1.0
    assert kl_inv_upper(0.0, 1e6) == 1.0  # 1 - exp(-1e6) rounds to 1
    assert kl_inv_upper(0.0, 2.0) == pytest.approx(1 - np.exp(-2.0), abs=2e-12)
    assert kl_inv_lower(0.0, 1.0) == 0.0
    assert kl_inv_lower(1.0, 5.0) == pytest.approx(np.exp(-5.0), abs=2e-12)


def test_vectorized_shapes():
    L = np.array([[0.1, 0.2], [0.3, 0.4]])
    assert kl_inv_upper(L, 0.1).shape == (2, 2)
    assert np.all(kl_inv_upper(L, 0.1) > L)
    assert isinstance(kl_inv_upper(0.1, 0.1), float)


@pytest.mark.parametrize(
    ("p", "eps"), [(-0.1, 0.1), (1.1, 0.1), (np.nan, 0.1), (0.1, -1.0), (0.1, np.nan)]
)
def test_bad_input_is_a_value_error(p, eps):
    with pytest.raises(ValueError, match="must"):
        kl_inv_upper(p, eps)


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1), st.floats(0, 60))
def test_upper_inverse_is_conservative(L, eps):
    r = kl_inv_upper(L, eps)
    assert L <= r <= 1
    assert r == 1.0 or float(mp_kl(L, r)) >= eps * (1 - 1e-15)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.floats(1e-12, 60))
def test_newton_agrees_with_the_verified_bracket(L, eps):
    r, error = kl_inv_upper_newton(L, eps)
    assert r == pytest.approx(kl_inv_upper(L, eps), abs=2e-12)
    assert error < 1e-12


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.floats(-0.5, 1.5), st.just(float("nan"))),
    st.one_of(st.floats(-0.5, 1.5), st.just(float("nan"))),
)
def test_kl_at_one_point_is_the_array_paths_value_bit_for_bit(p, q):
    """The scalar path (one point) and the array path compute the same formulas; NaN and
    values outside [0, 1] (which searches may pass) included."""
    from cvxpb.numerics.kl import kl_unchecked

    with np.errstate(all="ignore"):
        one = kl_unchecked(p, q)
        many = kl_unchecked(np.array([p, 0.3]), np.array([q, 0.2]))[0]
    assert (np.isnan(one) and np.isnan(many)) or one == many


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-9, 1), st.floats(1e-12, 60))
def test_lower_newton_agrees_with_the_verified_bracket(L, eps):
    r, error = kl_inv_lower_newton(L, eps)
    # kl's own rounding allowance, 64 ulps of eps, is ~ 64 eps ulps / L relative in r
    rel = 1e-12 + 512 * np.finfo(float).eps * eps / L
    assert r == pytest.approx(kl_inv_lower(L, eps), rel=rel, abs=1e-300)
    assert error <= 1e-12 * max(r, 1e-300) + 1e-300


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1), st.floats(1e-9, 5))
def test_the_lower_bisection_starts_from_newtons_narrow_bracket(L, eps):
    """Where the root is a normal number, Newton's bracket passes the bisection's own
    tests (so it halves a few times, not fifty): its ends are within 1e-12 of each other,
    relative, plus kl's own rounding allowance carried into r. A margin that missed that
    allowance left all of [0, L] here."""
    from hypothesis import assume

    from cvxpb.numerics.kl import KERNELS

    assume(eps / L < 600)  # the root, above L exp(-1 - eps / L), is a normal number
    lo, hi = KERNELS.lower_start(L, eps)
    assert lo > 0 and hi - lo <= (1e-12 + 1024 * np.finfo(float).eps * eps / L) * hi


@pytest.mark.parametrize("eps", [1e-12, 1e-8, 1e-6])
def test_small_inverses_are_tight_relative_to_their_size(eps):
    # issue 12, item 7: an absolute bracket of 1e-12 left small bounds 6e-7 loose
    for L in (0.0, 1e-9, 1e-6):
        root = mp_inverse(L, eps)
        ours = kl_inv_upper(L, eps)
        assert mp.mpf(ours) >= root and ours <= float(root) * (1 + 1e-13)


@settings(max_examples=500, deadline=None)
@given(
    x=st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.0, -1.0]),
    ),
    rounding=st.sampled_from([1, -1]),
)
def test_nudge_moves_outward_by_at_least_15_ulps(x, rounding):
    """Outward rounding: strictly past ``x`` in the direction asked, by 15 ulps or more
    for normal numbers (where the result is finite) and by one subnormal step at least."""
    import math

    from cvxpb.numerics.tolerances import nudge

    y = float(nudge(x, rounding))
    if math.isinf(y):
        assert abs(x) > 1e307 and y * rounding > 0
        return
    moved = (y - x) * rounding
    assert moved > 0
    if abs(x) >= 2.2250738585072014e-308:
        assert moved >= 15 * math.ulp(x)
    assert float(nudge(x, 0)) == x


@settings(max_examples=500, deadline=None)
@given(
    x=st.one_of(
        st.floats(),
        st.sampled_from([0.0, -0.0, 5e-324, 1.7976931348623157e308, float("inf"), -1e308]),
    ),
    rounding=st.sampled_from([1, -1, 0]),
)
def test_nudge_of_one_float_is_the_array_path_bit_for_bit(x, rounding):
    """One float takes a scalar path; its result is the array path's, bit for bit,
    infinities, signed zeros and NaN included."""
    from cvxpb.numerics.tolerances import nudge

    one, array = nudge(x, rounding), nudge(np.array([x]), rounding)[0]
    assert np.array([one]).view(np.int64)[0] == np.array([array]).view(np.int64)[0]
    assert nudge(np.float64(x), rounding).tobytes() == one.tobytes()


def test_the_lower_bracket_is_verified_on_its_lower_side_and_narrow():
    """The public bracket of the lower inverse: ``kl(p, lo) >= eps`` in mpmath (``lo``
    is at or below the inverse) and ``hi - lo`` at most ``4 eps hi``, down to roots near
    1e-221."""
    from cvxpb.numerics.kl import kl_inv_lower_bracket

    for p, eps in [(0.3, 0.01), (0.9, 0.5), (1e-3, 1e-6), (0.5, 2.0), (1e-3, 0.5), (0.01, 5)]:
        lo, hi = (float(v) for v in kl_inv_lower_bracket(p, eps))
        P, r = mp.mpf(p), mp.mpf(lo)
        assert P * mp.log(P / r) + (1 - P) * mp.log((1 - P) / (1 - r)) >= eps
        assert 0 < hi - lo <= 4 * np.finfo(float).eps * hi


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 5e-324, 1 - 1e-16])),
    st.one_of(st.floats(0, 60), st.sampled_from([0.0, 1e-300, 1e-17, 745.0, 1e300])),
)
def test_the_upper_inverse_at_one_point_is_the_array_paths_bit_for_bit(L, eps):
    """One point and an array holding it run the same compiled kernel: its bracket and
    Newton root are the same to the last bit, edges included."""
    from cvxpb.numerics.kl import kl_inv_upper_bracket

    for inverse in (kl_inv_upper_bracket, kl_inv_upper_newton):
        one = inverse(L, eps)
        many = inverse(np.array([L, 0.3]), np.array([eps, 0.1]))
        assert [float(x) for x in one] == [float(x[0]) for x in many]


@pytest.mark.parametrize(
    ("p", "eps"), [(7.71285762e-06, 0.01382095), (1e-3, 1.0), (0.02, 20.0), (0.3, 300.0)]
)
def test_a_lower_root_below_1e_300_is_bracketed_at_once(p, eps):
    """Where the lower root is below the bisection's absolute width (CTD's tandem risk
    out of bag, near 1e-5 with a KL term near 0.01, puts it near 1e-780), the bracket
    is ``[0, 1e-300]`` from Newton's start and one kl evaluation, not a thousand
    halvings down from ``p``; 1e-300 is above the root (its kl in mpmath is below
    ``eps``), and the bracket is the one the halvings end at to the reported ``lo``."""
    from cvxpb.numerics import kl as module

    with mp.workdps(60):
        assert mp_kl(p, mp.mpf("1e-300")) < eps
    lo, hi = (float(v) for v in module.kl_inv_lower_bracket(p, eps))
    assert lo == 0.0 and hi == module.BRACKET_WIDTH
    assert module.KERNELS.lower_start(p, eps) == (0.0, module.BRACKET_WIDTH)  # no halving
    halved = module.KERNELS.halve(p, eps, 0.0, p, False)
    assert halved[0] == lo and halved[1] <= hi
