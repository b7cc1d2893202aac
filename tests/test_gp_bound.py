"""Kamesawa et al.'s bound constant b(sigma0^2): closed form, CVXPY, and the definition."""

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

from cvxpb.gp import GPClassifierEP, SLTGPClassifier
from cvxpb.gp.bound import (
    SubGaussianWarning,
    b_constant,
    pac_bayes_bound,
    sub_gaussian_evidence,
)


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
    clf = GPClassifierEP(amplitude=0.3, optimize=False).fit(X, y)  # meets condition (28)
    assert clf.pac_bayes_bound(0.05, 0.1) == pac_bayes_bound(
        clf.log_marginal_likelihood_, 60, 0.05, 0.1
    )
    with pytest.raises(ValueError, match="delta must lie in"):
        clf.pac_bayes_bound(delta=0.0)


def _condition_28_holds(mean, var, y, sigma0_sq):
    """Condition (28) on the empirical distribution, checked on a wide grid of lambda
    with the Gaussian moment generating function written out."""
    lam = np.concatenate([-np.logspace(-4, 2, 200), np.logspace(-4, 2, 200)])
    exponent = lam[:, None] * y[None, :] * mean[None, :] + lam[:, None] ** 2 * var[None, :] / 2
    left = logsumexp(exponent, axis=1) - np.log(len(y))
    return bool(np.all(left <= lam**2 * sigma0_sq / 2 + 1e-12))


@pytest.mark.parametrize(
    ("mean", "var", "sigma0_sq"),
    [
        ([0.0, 0.0, 0.0], [0.05, 0.08, 0.09], 0.1),  # holds
        ([0.0, 0.0, 0.0], [0.05, 0.08, 0.2], 0.1),  # one variance too large
        ([0.3, 0.1, 0.2], [0.01, 0.01, 0.01], 0.4),  # a mean that agrees with y
        ([0.3, -0.3, 0.0], [0.01, 0.01, 0.01], 0.4),  # a mean orthogonal to y
    ],
)
def test_sub_gaussian_evidence_flags_exactly_the_broken_cases(mean, var, sigma0_sq):
    mean, var, y = np.array(mean), np.array(var), np.array([1.0, 1.0, -1.0])
    largest_var, correlation = sub_gaussian_evidence(mean, var, y)
    flagged = largest_var > sigma0_sq or abs(correlation) > 1e-12
    holds = _condition_28_holds(mean, var, y, sigma0_sq)
    assert flagged == (not holds)


def test_bound_warns_when_the_prior_breaks_condition_28():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    small = GPClassifierEP(amplitude=0.3, optimize=False).fit(X, y)  # k(x, x) = 0.09
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert small.pac_bayes_bound(sigma0_sq=0.1) > 0
    with pytest.warns(SubGaussianWarning, match="largest prior variance 0.09"):
        small.pac_bayes_bound(sigma0_sq=0.05)
    slt = SLTGPClassifier(rho=0.5, amplitude=0.3, optimize=False).fit(X, y, X_star=X)
    with pytest.warns(SubGaussianWarning, match="mean of y \\* prior mean"):
        slt.pac_bayes_bound(sigma0_sq=0.1)
