"""SLT-GP: the conditional prior, eq. (25) against quadrature, rho = 0 as plain GPC,
the rho derivative, and the estimator."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import multivariate_normal, norm
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.gp.bound import SubGaussianWarning
from cvxpb.gp.classifier import GPClassifierEP, rbf
from cvxpb.gp.ep import log_marginal_gradient, run_ep
from cvxpb.gp.slt import SLTGPClassifier, conditional_prior


def test_conditional_prior_is_the_joint_gaussian_conditioned_on_s():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    K, _ = rbf(X, X, 1.3, 0.8)
    s, rho = rng.normal(size=6), 0.7
    # (f_T, s) with s = f_S + noise: cov [[K, rho K], [rho K, K + I]]
    joint = np.block([[K, rho * K], [rho * K, K + np.eye(6)]])
    A, B, D = joint[:6, :6], joint[:6, 6:], joint[6:, 6:]
    m, C, _ = conditional_prior(K, s, rho)
    assert m == pytest.approx(B @ np.linalg.solve(D, s))
    assert C == pytest.approx(A - B @ np.linalg.solve(D, B.T))


@pytest.mark.parametrize(
    ("y", "s", "rho"),
    [(1.0, 0.8, 0.6), (-1.0, 1.5, 0.9), pytest.param(1.0, -2.0, 0.3, marks=pytest.mark.slow)],
)  # each sign of y in the default run; the third point with the slow sweeps
def test_eq_25_for_one_point_against_quadrature(y, s, rho):
    """One target site: EP is exact, so log p(y | s) must match the double integral."""
    k = 1.7
    m, C, _ = conditional_prior(np.array([[k]]), np.array([s]), rho)
    ours = run_ep(C, np.array([y]), offset=m).log_marginal_likelihood
    prior = multivariate_normal(cov=[[k, rho * k], [rho * k, k]])

    def integrand(f_source, f_target):
        return norm.cdf(y * f_target) * norm.pdf(s - f_source) * prior.pdf([f_target, f_source])

    joint, _ = integrate.dblquad(integrand, -15, 15, -15, 15, epsabs=1e-13)
    log_p_s = norm.logpdf(s, scale=np.sqrt(k + 1))
    assert ours == pytest.approx(np.log(joint) - log_p_s, abs=1e-7)


@pytest.fixture(scope="module")
def privileged_data():
    rng = np.random.default_rng(0)
    X_star = rng.uniform(0, 10, (120, 2))
    y = (X_star[:, 0] + X_star[:, 1] > 10).astype(int)
    X = X_star + rng.normal(scale=0.5, size=(120, 2))
    X_new = rng.uniform(0, 10, (1000, 2))
    y_new = (X_new[:, 0] + X_new[:, 1] > 10).astype(int)
    return X, y, X_star, X_new + rng.normal(scale=0.5, size=(1000, 2)), y_new


def test_rho_zero_is_plain_gpc(privileged_data):
    X, y, X_star, X_new, _ = privileged_data
    options = {"amplitude": 2.0, "length_scale": 1.5, "optimize": False}
    slt = SLTGPClassifier(rho=0.0, **options).fit(X, y, X_star=X_star)
    gpc = GPClassifierEP(**options).fit(X, y)
    assert slt.log_marginal_likelihood_ == pytest.approx(gpc.log_marginal_likelihood_, abs=1e-10)
    assert slt.predict_proba(X_new) == pytest.approx(gpc.predict_proba(X_new), abs=1e-10)


def test_rho_derivative_matches_finite_differences(privileged_data):
    X, y, X_star, _, _ = privileged_data
    slt = SLTGPClassifier(rho=0.5, optimize=False).fit(X, y, X_star=X_star)
    K, _ = rbf(X, X, 1.0, 1.0)
    signed = np.where(y == 1, 1.0, -1.0)
    s = slt.soft_labels_

    def log_ml(rho):
        m, C, _ = conditional_prior(K, s, rho)
        return run_ep(C, signed, offset=m, tol=1e-12).log_marginal_likelihood

    m, C, G = conditional_prior(K, s, 0.5)
    state = run_ep(C, signed, offset=m, tol=1e-12)
    KG = K @ G
    derivative = log_marginal_gradient(state, C, [-2 * 0.5 * KG @ K], [KG @ s])[0]
    assert derivative == pytest.approx((log_ml(0.5 + 1e-6) - log_ml(0.5 - 1e-6)) / 2e-6, rel=1e-5)


def test_empirical_bayes_uses_informative_soft_labels(privileged_data):
    X, y, X_star, X_new, y_new = privileged_data
    slt = SLTGPClassifier().fit(X, y, X_star=X_star)
    gpc = GPClassifierEP().fit(X, y)
    assert 0 < slt.rho_ <= 1
    assert (
        slt.log_marginal_likelihood_ >= gpc.log_marginal_likelihood_ - 1e-9
    )  # rho = 0 is a candidate
    assert np.mean(slt.predict(X_new) != y_new) <= np.mean(gpc.predict(X_new) != y_new) + 0.01
    with pytest.warns(SubGaussianWarning):  # the informative prior mean breaks (28)
        bound = slt.pac_bayes_bound(delta=0.05, sigma0_sq=0.1)
    assert bound > -slt.log_marginal_likelihood_ / 120


def test_with_rho_rescans_the_fitted_model(privileged_data):
    """``with_rho`` keeps the kernel and the soft labels: at the fitted rho it gives the
    fitted model back, at rho = 0 the plain GPC with that kernel (fitted separately)."""
    X, y, X_star, X_new, _ = privileged_data
    slt = SLTGPClassifier(optimize="length_scale", amplitude=0.5).fit(X, y, X_star=X_star)
    assert slt.amplitude_ == 0.5 and slt.length_scale_ != 1.0
    same = slt.with_rho(slt.rho_)
    assert same.log_marginal_likelihood_ == pytest.approx(slt.log_marginal_likelihood_, abs=1e-7)
    assert same.predict_proba(X_new) == pytest.approx(slt.predict_proba(X_new), abs=1e-7)
    plain = GPClassifierEP(amplitude=0.5, length_scale=slt.length_scale_, optimize=False)
    plain.fit(X, y)
    zero = slt.with_rho(0.0)
    assert zero.log_marginal_likelihood_ == pytest.approx(plain.log_marginal_likelihood_, abs=1e-7)
    assert zero.predict_proba(X_new) == pytest.approx(plain.predict_proba(X_new), abs=1e-7)
    assert slt.rho_ != 0.0 and zero.rho_ == 0.0  # the original is untouched
    with pytest.raises(ValueError, match="rho must lie in"):
        slt.with_rho(1.5)


def test_gibbs_risk_against_quadrature(privileged_data):
    """The posterior-expected negative log likelihood on held-out data, against
    scipy's adaptive quadrature point by point."""
    from scipy.integrate import quad

    X, y, X_star, X_new, y_new = privileged_data
    slt = SLTGPClassifier(rho=0.7, optimize=False).fit(X, y, X_star=X_star)
    mean, var = slt._latent(X_new[:40])
    signed = np.where(y_new[:40] == 1, 1, -1)
    by_quad = [
        quad(
            lambda f, m=m, v=v, s=s: -norm.logcdf(s * f) * norm.pdf(f, m, np.sqrt(v)),
            -np.inf,
            np.inf,
        )[0]
        for m, v, s in zip(mean, var, signed, strict=True)
    ]
    assert slt.gibbs_risk(X_new[:40], y_new[:40]) == pytest.approx(np.mean(by_quad), rel=1e-8)


@parametrize_with_checks([SLTGPClassifier(optimize=False)])
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


def test_bad_input(privileged_data):
    X, y, X_star, _, _ = privileged_data
    with pytest.raises(ValueError, match="X_star must have one row per example"):
        SLTGPClassifier(optimize=False).fit(X, y, X_star=X_star[:10])
    with pytest.raises(ValueError, match="rho must lie in"):
        SLTGPClassifier(rho=1.5).fit(X, y, X_star=X_star)
    with pytest.raises(ValueError, match="Only binary classification"):
        SLTGPClassifier().fit(X, np.arange(120) % 3, X_star=X_star)
    bad = X_star.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SLTGPClassifier(optimize=False).fit(X, y, X_star=bad)
