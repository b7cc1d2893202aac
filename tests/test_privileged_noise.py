"""GPC+ (Hernández-Lobato et al., 2014): its tilted moments and EP against
two-dimensional quadrature, and its reduction to the probit GPC."""

import numpy as np
import pytest
from scipy.stats import norm

from cvxpb.gp.ep import marginals, run_ep
from cvxpb.gp.privileged_noise import run_ep_plus, tilted_moments


def quadrature_moments(y, m_f, v_f, m_g, v_g):
    """The tilted distribution's normalizer and moments on a dense (f, g) grid of
    Phi(y f exp(-g/2)) N(f) N(g), by the trapezoid rule (spectrally accurate for these
    smooth, Gaussian-tailed integrands): no closed form and no Gauss-Hermite nodes."""
    f = np.linspace(m_f - 12 * np.sqrt(v_f), m_f + 12 * np.sqrt(v_f), 1601)
    g = np.linspace(m_g - 12 * np.sqrt(v_g), m_g + 12 * np.sqrt(v_g), 1601)
    F, G = np.meshgrid(f, g, indexing="ij")
    density = norm.cdf(y * F * np.exp(-G / 2)) * norm.pdf(F, m_f, np.sqrt(v_f))
    density *= norm.pdf(G, m_g, np.sqrt(v_g))

    def moment(h):
        return np.trapezoid(np.trapezoid(density * h, g, axis=1), f)

    z = moment(1.0)
    ef, eg = moment(F) / z, moment(G) / z
    return ef, moment(F * F) / z - ef**2, eg, moment(G * G) / z - eg**2, np.log(z)


@pytest.mark.parametrize(
    "cavity", [(1, 0.3, 0.8, -0.5, 1.2), (-1, 1.5, 2.0, 1.0, 0.3), (1, -2.0, 0.5, 0.0, 2.0)]
)
def test_tilted_moments_match_two_dimensional_quadrature(cavity):
    y, *rest = cavity
    ours = tilted_moments(np.array([y]), *(np.array([v]) for v in rest))
    assert np.concatenate(ours) == pytest.approx(quadrature_moments(y, *rest), rel=1e-7, abs=1e-9)


def test_marginal_likelihood_is_its_definition_at_any_sites():
    """log Z_EP = sum_i log Z~_i + log N(mu~_f | 0, K + S~_f) + log N(mu~_h | 0, K* + S~_h),
    with Z~_i the site normalizer that makes Z~_i int t_f t_g q_cavity = Z_i: written
    out with scipy's Gaussians (no eq. 3.65), for arbitrary positive sites."""
    from scipy.stats import multivariate_normal

    from cvxpb.gp.privileged_noise import _state

    rng = np.random.default_rng(5)
    n = 4
    X, X_star = rng.normal(size=(n, 2)), rng.normal(size=(n, 1))
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1)) + 1e-9 * np.eye(n)
    K_star = 0.7 * np.exp(-0.5 * ((X_star[:, None] - X_star[None]) ** 2).sum(-1))
    y, mean_g = np.array([1.0, -1.0, 1.0, 1.0]), -0.4
    tau_f, nu_f = rng.uniform(0.2, 1.5, n), rng.normal(size=n)
    tau_h, nu_h = rng.uniform(0.2, 1.5, n), rng.normal(size=n)
    ours = _state(K, K_star, y, mean_g, (tau_f, nu_f, tau_h, nu_h), 0, True)
    total = 0.0
    for prior, tau, nu, shift in ((K, tau_f, nu_f, 0.0), (K_star, tau_h, nu_h, mean_g)):
        Sigma = np.linalg.inv(np.linalg.inv(prior) + np.diag(tau))
        var, mean = np.diag(Sigma), Sigma @ nu
        cav_var = 1 / (1 / var - tau)
        cav_mean = cav_var * (mean / var - nu)
        site_mean, site_var = nu / tau, 1 / tau
        total += multivariate_normal(np.zeros(n), prior + np.diag(site_var)).logpdf(site_mean)
        total -= np.sum(norm.logpdf(site_mean, cav_mean, np.sqrt(cav_var + site_var)))
        if shift == 0.0:
            f_cavity = (cav_mean, cav_var)
        else:
            g_cavity = (cav_mean + shift, cav_var)
    *_, log_z = tilted_moments(y, *f_cavity, *g_cavity)
    assert ours.log_marginal_likelihood == pytest.approx(total + np.sum(log_z), abs=1e-9)


def test_evidence_is_stationary_in_the_matched_site_parameters():
    """At convergence log Z_EP does not move, to first order, with any f-site parameter
    or any g-site mean parameter: each of those matches its tilted moment."""
    from cvxpb.gp.classifier import rbf
    from cvxpb.gp.privileged_noise import _state

    train, _ = _noisy_draw()
    y = train.y.astype(float)
    K, K_star = rbf(train.X, train.X, 1.5, 2.0)[0], rbf(train.X_star, train.X_star, 0.8, 1.5)[0]
    state = run_ep_plus(K, K_star, y, 0.3, tol=1e-12, max_sweeps=5000)
    sites = [state.f.tau, state.f.nu, state.h.tau, state.h.nu]

    def evidence(which, i, step):
        moved = [a.copy() for a in sites]
        moved[which][i] += step
        return _state(K, K_star, y, 0.3, moved, 0, True).log_marginal_likelihood

    for which in (0, 1, 3):
        for i in (0, 7, 21):
            slope = (evidence(which, i, 1e-6) - evidence(which, i, -1e-6)) / 2e-6
            assert abs(slope) < 1e-6, (which, i, slope)


def test_without_privileged_noise_it_is_the_probit_gpc():
    """k* -> 0 and mean 0: the noise variance is exp(0) = 1, the probit likelihood."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=30) > 0, 1.0, -1.0)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) * 2.0
    plain = run_ep(K, y)
    plus = run_ep_plus(K, 1e-12 * np.eye(30), y, 0.0)
    var_p, mu_p, _ = marginals(K, plain.tau, plain.nu)
    var_q, mu_q, _ = marginals(K, plus.f.tau, plus.f.nu)
    assert plus.converged
    assert mu_q == pytest.approx(mu_p, abs=1e-5) and var_q == pytest.approx(var_p, abs=1e-5)
    assert plus.log_marginal_likelihood == pytest.approx(plain.log_marginal_likelihood, abs=1e-5)


def _noisy_draw(n=60, seed=3):
    from cvxpb.app import datasets

    return datasets.privileged("noise_variance", n_train=n, n_test=300, random_state=seed)


def test_f_sites_match_their_tilted_moments_and_g_sites_their_means():
    """At convergence every f-site matches the tilted mean and variance; a g-site held
    at precision 0 (its tilted variance above the cavity's) still matches the mean."""
    from cvxpb.gp.classifier import rbf

    train, _ = _noisy_draw()
    y = train.y.astype(float)
    K, K_star = rbf(train.X, train.X, 1.5, 2.0)[0], rbf(train.X_star, train.X_star, 0.8, 1.5)[0]
    state = run_ep_plus(K, K_star, y, 0.3, tol=1e-11, max_sweeps=5000)
    var_f, mu_f, _ = marginals(K, state.f.tau, state.f.nu)
    var_h, mu_h, _ = marginals(K_star, state.h.tau, state.h.nu)
    cav_f = (1 / var_f - state.f.tau, mu_f / var_f - state.f.nu)
    cav_h = (1 / var_h - state.h.tau, mu_h / var_h - state.h.nu)
    m_f, v_f, m_g, v_g, _ = tilted_moments(
        y, cav_f[1] / cav_f[0], 1 / cav_f[0], cav_h[1] / cav_h[0] + 0.3, 1 / cav_h[0]
    )
    assert state.converged
    assert m_f == pytest.approx(mu_f, abs=1e-8) and v_f == pytest.approx(var_f, abs=1e-8)
    flat = state.h.tau < 1e-9
    assert 0 < flat.sum() < y.size  # this draw has both kinds of g-sites
    assert m_g - 0.3 == pytest.approx(mu_h, abs=1e-6)
    assert v_g[~flat] == pytest.approx(var_h[~flat], abs=1e-6)
    assert np.all(v_g[flat] >= var_h[flat] - 1e-9)


def test_classifier_fits_learns_the_noise_and_rejects_bad_input():
    from cvxpb.gp import GPClassifierEP, GPCPlusClassifier

    train, test = _noisy_draw(n=120)
    plus = GPCPlusClassifier().fit(train.X, train.y, X_star=train.X_star)
    plain = GPClassifierEP().fit(train.X, train.y)
    assert plus.ep_.converged and set(plus.predict(test.X)) <= {-1, 1}
    # GPC+ holds the plain GPC (g = 0) in the limit of its search: never much worse
    assert plus.log_marginal_likelihood_ >= plain.log_marginal_likelihood_ - 1e-3
    assert np.mean(plus.predict(test.X) == test.y) > 0.7
    theta = [np.log(plus.noise_amplitude_), np.log(plus.noise_length_scale_), plus.noise_mean_]
    for k in range(3):  # the search ends at a local maximum (or on a bound)
        for sign in (-1, 1):
            moved = np.array(theta)
            moved[k] += sign * 0.05
            assert _evidence(plus, train, moved) <= plus.log_marginal_likelihood_ + 1e-4
    # without privileged features the noise is learned from X itself, as SLT-GP does
    alone, on_x = (GPCPlusClassifier(max_sweeps=50) for _ in range(2))
    alone.fit(train.X[:40], train.y[:40])
    on_x.fit(train.X[:40], train.y[:40], X_star=train.X[:40])
    assert alone.noise_mean_ == on_x.noise_mean_
    np.testing.assert_array_equal(alone.decision_function(test.X), on_x.decision_function(test.X))
    with pytest.raises(ValueError, match="one row per example"):
        GPCPlusClassifier().fit(train.X, train.y, X_star=train.X_star[:-1])
    with pytest.raises(ValueError, match="kernel must be one of"):
        GPCPlusClassifier(kernel="poly").fit(train.X, train.y, X_star=train.X_star)


def _evidence(plus, train, theta):
    from cvxpb.gp.classifier import BOUNDS, rbf
    from cvxpb.gp.privileged_noise import MEAN_BOUNDS

    low, high = zip(*BOUNDS, MEAN_BOUNDS, strict=True)  # the search's own box
    theta = np.clip(theta, low, high)
    K_star = rbf(train.X_star, train.X_star, *np.exp(theta[:2]))[0]
    signed = np.where(train.y == plus.classes_[1], 1.0, -1.0)
    return run_ep_plus(plus.K_, K_star, signed, theta[2], init=plus.ep_).log_marginal_likelihood
