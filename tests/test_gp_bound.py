"""Seed 002's bound constant b(sigma0^2): closed form, CVXPY, and the definition."""

import numpy as np
import pytest

from cvxpb.gp import GPClassifierEP
from cvxpb.gp.bound import b_constant, pac_bayes_bound


def b_from_definition(sigma0_sq):
    """Eq. (30) as printed, minimized over a on a fine log grid above c (eq. 31)."""
    c = (10 * sigma0_sq - 4) / (1 - 2 * sigma0_sq)
    a = c + np.geomspace(1e-9, 1e7, 400_001)
    a = a[a > -4]
    values = (
        0.5 * np.log(2 * np.pi * (a + 4))
        - a / (2 * (a + 4))
        + 4 * sigma0_sq**2 * ((a + 5) / (a + 4)) ** 2
    )
    return values.min()


@pytest.mark.parametrize("sigma0_sq", [0.0, 0.01, 0.1, 0.25, 0.4, 0.45, 0.49])
def test_closed_form_cvx_and_definition_agree(sigma0_sq):
    closed = b_constant(sigma0_sq)
    assert b_constant(sigma0_sq, method="cvx") == pytest.approx(closed, abs=1e-7)
    assert closed == pytest.approx(b_from_definition(sigma0_sq), abs=1e-7)
    assert closed <= b_from_definition(sigma0_sq) + 1e-12  # an infimum


def test_b_grows_with_sigma0():
    values = [b_constant(s) for s in np.linspace(0, 0.49, 30)]
    assert np.all(np.diff(values) > 0)


def test_bad_sigma0():
    for bad in (0.5, 0.7, -0.1, "x"):
        with pytest.raises(ValueError, match="sigma0_sq must"):
            b_constant(bad)
    with pytest.raises(ValueError, match="method must be one of"):
        b_constant(0.1, method="grid")


def test_bound_is_eq_29_and_the_classifier_reports_it():
    value = pac_bayes_bound(-30.0, 100, delta=0.05, sigma0_sq=0.1)
    expected = -(np.log(0.05) - 30.0) / 100 + b_constant(0.1)
    assert value >= expected and value == pytest.approx(expected, rel=1e-14)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = GPClassifierEP().fit(X, y)
    assert clf.pac_bayes_bound(0.05, 0.1) == pac_bayes_bound(
        clf.log_marginal_likelihood_, 60, 0.05, 0.1
    )
    with pytest.raises(ValueError, match="delta must lie in"):
        clf.pac_bayes_bound(delta=0.0)
