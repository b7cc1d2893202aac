"""cvxpb.numerics.derivatives against derivatives known in closed form."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cvxpb.numerics.derivatives import central_difference


@given(st.floats(-3.0, 3.0), st.floats(1e-6, 1e-3))
def test_the_slope_of_exp_within_the_truncation_error(x, step):
    # (e^(x+h) - e^(x-h)) / 2h = e^x sinh(h)/h; its truncation error is e^x h^2/6
    slope = central_difference(math.exp, x, step)
    assert slope == pytest.approx(math.exp(x), rel=step**2 + 1e-8)


def test_a_side_past_the_domain_stops_at_its_end():
    # sqrt is defined at 0 and above: the left side stops at 0, the width is halved
    assert central_difference(math.sqrt, 0.0, 1e-6, lower=0.0) == pytest.approx(1e3)
    assert central_difference(math.log, 1.0, 0.5, upper=1.25) == pytest.approx(
        math.log(1.25 / 0.5) / 0.75
    )


def test_quadratics_are_exact_in_the_interior():
    rng = np.random.default_rng(0)
    for a, b, x in rng.normal(size=(20, 3)):
        slope = central_difference(lambda t, a=a, b=b: a * t * t + b * t, x, 1e-3)
        assert slope == pytest.approx(2 * a * x + b, abs=1e-9)
