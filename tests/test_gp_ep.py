"""EP for GP classification: exactness where it must be, quadrature, gradients,
scikit-learn's Laplace GPC on easy data, warnings and bad input."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import multivariate_normal, norm
from sklearn.datasets import load_iris
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF
from sklearn.gaussian_process.kernels import ConstantKernel as Amplitude
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.gp.classifier import GPClassifierEP, rbf
from cvxpb.gp.ep import EPConvergenceWarning, log_marginal_gradient, run_ep


def test_one_site_is_exact():
    """With one point EP's single site matches the tilted moments exactly."""
    state = run_ep(np.array([[2.0]]), np.array([1.0]))
    assert state.converged
    assert state.log_marginal_likelihood == pytest.approx(np.log(0.5), abs=1e-12)


def test_marginal_likelihood_against_quadrature():
    K = np.array([[1.5, 0.9], [0.9, 1.2]])
    y = np.array([1.0, -1.0])
    state = run_ep(K, y, tol=1e-12)
    density = multivariate_normal(cov=K)

    def integrand(b, a):
        return norm.cdf(y[0] * a) * norm.cdf(y[1] * b) * density.pdf([a, b])

    Z, _ = integrate.dblquad(integrand, -12, 12, -12, 12, epsabs=1e-12)
    assert state.log_marginal_likelihood == pytest.approx(np.log(Z), abs=1e-3)  # EP, not exact


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=30))

    def kernel(t):
        K, D = rbf(X, X, *np.exp(t))
        return K, [2 * K, K * D / np.exp(t[1]) ** 2]

    t = np.array([0.3, 0.1])
    K, dK = kernel(t)
    gradient = log_marginal_gradient(run_ep(K, y, tol=1e-12), K, dK)
    for j in range(2):
        step = np.zeros(2)
        step[j] = 1e-5
        up = run_ep(kernel(t + step)[0], y, tol=1e-12).log_marginal_likelihood
        down = run_ep(kernel(t - step)[0], y, tol=1e-12).log_marginal_likelihood
        assert gradient[j] == pytest.approx((up - down) / 2e-5, rel=1e-5)


def test_agrees_with_scikit_learn_laplace_on_easy_data():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, (120, 2))
    y = (X[:, 0] + X[:, 1] > 10).astype(int)
    ours = GPClassifierEP().fit(X, y)
    laplace = GaussianProcessClassifier(Amplitude(1.0) * RBF(1.0), random_state=0).fit(X, y)
    X_new = rng.uniform(0, 10, (400, 2))
    assert np.mean(ours.predict(X_new) == laplace.predict(X_new)) > 0.97
    assert ours.score(X, y) > 0.95
    assert (
        ours.log_marginal_likelihood_
        >= GPClassifierEP(optimize=False).fit(X, y).log_marginal_likelihood_
    )


def test_noisy_labels_converge_and_probabilities_are_calibrated_in_range():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 1))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    clf = GPClassifierEP().fit(X, y)
    assert clf.ep_.converged
    p = clf.predict_proba(X)
    assert np.all((p > 0) & (p < 1)) and p.sum(axis=1) == pytest.approx(1)


def test_non_convergence_is_a_warning_with_the_count():
    X = np.random.default_rng(3).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(EPConvergenceWarning, match="did not converge in 1 sweeps"):
        GPClassifierEP(optimize=False, max_sweeps=1).fit(X, y)


@parametrize_with_checks([GPClassifierEP(optimize=False)])
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


def test_bad_input():
    X = np.random.default_rng(4).normal(size=(12, 2))
    with pytest.raises(ValueError, match="Only binary classification"):
        GPClassifierEP().fit(X, np.arange(12) % 3)
    with pytest.raises(ValueError, match="length_scale must be a positive number"):
        GPClassifierEP(length_scale=0.0).fit(X, np.arange(12) % 2)
    with pytest.raises(ValueError, match="optimize must be one of"):
        GPClassifierEP(optimize="amplitude").fit(X, np.arange(12) % 2)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GPClassifierEP().fit(X, np.arange(12) % 2)


@pytest.mark.parametrize(
    ("amplitude", "length_scale", "separable", "offset"),
    [
        (1.0, 1.0, False, False),
        (3.0, 0.8, False, True),
        (20.0, 3.6, True, False),
        (100.0, 3.6, True, True),
        (10.0, 0.1, False, False),
    ],
)
def test_parallel_and_sequential_schedules_reach_the_same_fixed_point(
    amplitude, length_scale, separable, offset
):
    """The accelerated parallel schedule (with its sequential finish) against Rasmussen and
    Williams' sequential one alone: the same sites and marginal likelihood, on easy,
    stiff (separable, large amplitude) and rough kernels, with a prior mean or not."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] + (0 if separable else 0.7 * rng.normal(size=120)) > 0, 1.0, -1.0)
    if separable:
        X[:, 0] += 1.5 * y
    K = rbf(X, X, amplitude, length_scale)[0]
    mean = 0.3 * np.tanh(X[:, 1]) if offset else None
    parallel = run_ep(K, y, 400, tol=1e-10, offset=mean)
    sequential = run_ep(K, y, 400, tol=1e-10, offset=mean, schedule="sequential")
    assert parallel.converged and sequential.converged
    scale = 1 + np.abs(sequential.tau).max()
    assert parallel.tau == pytest.approx(sequential.tau, abs=1e-7 * scale)
    assert parallel.nu == pytest.approx(sequential.nu, abs=1e-7 * (1 + np.abs(sequential.nu).max()))
    assert parallel.log_marginal_likelihood == pytest.approx(
        sequential.log_marginal_likelihood, abs=1e-8
    )


def test_ep_runs_blas_on_one_thread_for_small_kernels(monkeypatch):
    """Small kernel matrices: one BLAS thread inside run_ep, as many as before after it."""
    from threadpoolctl import threadpool_info

    from cvxpb.gp import ep

    seen = []
    tilted = ep._tilted_moments

    def spy(*args):
        seen.append(max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"))
        return tilted(*args)

    monkeypatch.setattr(ep, "_tilted_moments", spy)
    before = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
    run_ep(np.eye(3) + 0.5, np.array([1.0, -1.0, 1.0]))
    assert set(seen) == {1}
    assert max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas") == before


def test_anderson_acceleration_makes_a_warm_start_cheap():
    """A hyperparameter search's step: EP at iris setosa's optimum (amplitude 100,
    separable) warm-started from a nearby kernel's sites. The extrapolated schedule
    ends in 18 sweeps; full undamped steps oscillate for 91 sweeps and half steps take 73."""
    X, labels = load_iris(return_X_y=True)
    y = np.where(labels == 0, 1.0, -1.0)
    near = run_ep(rbf(X, X, 95.0, 3.67)[0], y)
    K = rbf(X, X, 100.0, 3.6)[0]
    warm = run_ep(K, y, init=near)
    assert warm.converged and warm.sweeps <= 25
    cold = run_ep(K, y, schedule="sequential")
    assert warm.log_marginal_likelihood == pytest.approx(cold.log_marginal_likelihood, abs=1e-7)
