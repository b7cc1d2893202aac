"""exact_sum against math.fsum: the same float, bit for bit, on sums built to be hard."""

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.numerics.summation import PREFIX_BLOCK, SMALL, exact_sum, prefix_sums

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=1, max_size=40), st.integers(0, 2**32 - 1))
def test_equals_fsum_on_any_floats(pieces, seed):
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array(pieces), SMALL + rng.integers(0, 3000)) * rng.uniform(0.5, 2, 1)
    assert exact_sum(x) == math.fsum(x)


def test_equals_fsum_where_float_sums_go_wrong():
    rng = np.random.default_rng(0)
    cases = [
        np.exp(-rng.uniform(0, 745, 10**5)),  # a Gibbs posterior's range, subnormals too
        np.r_[1e16, rng.normal(size=5000), -1e16],  # cancellation
        rng.choice([-1, 1], 5000) * 2.0 ** rng.integers(-1074, 1000, 5000),
        np.full(10**6, 0.1),  # np.sum is off in the last digits here
    ]
    for x in cases:
        assert exact_sum(x) == math.fsum(x)
    assert exact_sum(np.r_[np.ones(3000), np.inf]) == math.inf


def test_prefix_sums_stay_within_their_bound_where_cumsum_does_not():
    """Every checked entry against the exact rational prefix sum: within
    (PREFIX_BLOCK + 2) eps relative, whatever the length; np.cumsum of the same terms
    drifts far past that bound (the reason for the blocks)."""
    bound = (PREFIX_BLOCK + 2) * np.finfo(float).eps
    x = np.full(200_000, 0.1) * np.exp(-np.random.default_rng(1).uniform(0, 1, 200_000))
    ours, plain = prefix_sums(x), np.cumsum(x)
    exact, running = {}, Fraction(0)
    checked = {0, 255, 256, 257, 4097, 123_456, x.size - 1}
    for i, v in enumerate(x.tolist()):
        running += Fraction(v)
        if i in checked:
            exact[i] = running
    relative = [abs(Fraction(ours[i]) - e) / e for i, e in exact.items()]
    assert max(relative) <= bound
    drift = abs(Fraction(plain[-1]) - exact[x.size - 1]) / exact[x.size - 1]
    assert drift > 10 * max(relative)
