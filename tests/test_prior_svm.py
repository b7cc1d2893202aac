"""Parrado-Hernández et al. (2012): the prior SVM and eta-prior SVM, primal against dual, the
dedicated box-QP solver against CVXPY, the estimators."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.svm.gaussian import normalized_margins
from cvxpb.svm.prior_bounds import prior_bound
from cvxpb.svm.prior_qp import (
    box_qp,
    eta_prior_qp,
    eta_prior_svm_program,
    kernel_factor,
    prior_svm_program,
    recover_eta,
)
from cvxpb.svm.prior_svm import EtaPriorSVM, PriorSVM
from tests.synthetic import labelled_blobs


@pytest.fixture(scope="module")
def linear_problem():
    """Explicit augmented features, so the primal QPs can be written out."""
    rng = np.random.default_rng(0)
    y = np.where(rng.random(80) < 0.5, 1, -1)
    X = np.hstack([rng.normal(size=(80, 3)) + 0.8 * y[:, None], np.ones((80, 1))])
    w_r = rng.normal(size=4)
    w_r /= np.linalg.norm(w_r)
    return X, y, w_r, X @ X.T, X @ w_r


@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
def test_prior_svm_dual_gives_the_primal_solution(linear_problem, C):
    X, y, w_r, K, g = linear_problem
    eta = 2.5
    problem, a = prior_svm_program(kernel_factor(K), y, g, eta, C)
    problem.solve(solver="CLARABEL")
    w_dual = (a.value * y) @ X + eta * w_r  # eq. (27)
    w, xi = cp.Variable(4), cp.Variable(80)
    cp.Problem(
        cp.Minimize(cp.sum_squares(w - eta * w_r) / 2 + C * cp.sum(xi)),
        [cp.multiply(y, X @ w) >= 1 - xi, xi >= 0],
    ).solve(solver="CLARABEL")
    assert w_dual == pytest.approx(w.value, abs=1e-6)


def test_eta_prior_svm_recovers_the_primal_eta(linear_problem):
    X, y, w_r, K, g = linear_problem
    C = 1.0
    problem, a, balance = eta_prior_svm_program(kernel_factor(K), y, g, C)
    problem.solve(solver="CLARABEL")
    eta = recover_eta(a.value, y, K, g, C)
    v, eta_var, xi = cp.Variable(4), cp.Variable(), cp.Variable(80)
    cp.Problem(
        cp.Minimize(cp.sum_squares(v) / 2 + C * cp.sum(xi)),
        [cp.multiply(y, X @ (v + eta_var * w_r)) >= 1 - xi, xi >= 0],
    ).solve(solver="CLARABEL")
    assert eta == pytest.approx(float(eta_var.value), abs=1e-6)
    assert eta == pytest.approx(float(balance.dual_value), abs=1e-6)
    assert (a.value * y) @ X == pytest.approx(v.value, abs=1e-6)


@pytest.mark.parametrize("start", ["zero", "upper corner"])
@pytest.mark.parametrize("C", [0.1, 10.0, 1000.0])
def test_box_qp_matches_cvxpy(C, start):
    """From zero the active-set method converges alone; from the upper corner it does
    not for C >= 10 and the greedy and Newton rounds finish: both routes to Clarabel's
    point."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1, -1)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) + 1
    H = (y[:, None] * K) * y[None, :]
    g = np.tanh(X[:, 1])
    v = 1 - 3 * y * g
    a, rounds, converged = box_qp(H, v, C, a0=None if start == "zero" else np.full(60, C))
    assert (rounds == 0) == (start == "zero" or C < 1)
    problem, b = prior_svm_program(kernel_factor(K), y, g, 3.0, C)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert converged
    assert a == pytest.approx(b.value, abs=1e-6 * C)
    assert v @ a - a @ H @ a / 2 >= problem.value - 1e-9


def _rbf_problem(seed, n=120):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) + 1
    return K, y, np.tanh(X[:, 0] + 0.3 * X[:, 1])


@pytest.mark.parametrize(("seed", "C"), [(0, 0.1), (1, 1.0), (2, 100.0), (3, 1000.0)])
def test_eta_prior_qp_matches_cvxpy(seed, C):
    """The root search over eta against Clarabel on the QP with its equality: the same
    point, an objective no worse, the equality met, and eta the equality's multiplier
    (and the paper's free-support-vector recovery)."""
    K, y, g = _rbf_problem(seed)
    H = (y[:, None] * K) * y[None, :]
    a, eta, converged = eta_prior_qp(H, y, g, C)
    problem, b, balance = eta_prior_svm_program(kernel_factor(K), y, g, C)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert converged
    assert np.all((a >= 0) & (a <= C))
    assert (y * g) @ a == pytest.approx(0, abs=1e-9 * C)
    assert a.sum() - a @ H @ a / 2 >= problem.value - 1e-8 * max(1, abs(problem.value))
    assert a == pytest.approx(b.value, abs=1e-6 * C)
    assert eta == pytest.approx(float(balance.dual_value), rel=1e-6)
    assert recover_eta(a, y, K, g, C) == pytest.approx(eta, rel=1e-6)


def test_eta_prior_qp_when_the_prior_separates_alone():
    """``y_i g_i = 1/2`` for all i: ``v = 0, eta >= 2`` has zero cost, so ``a = 0`` and
    the found eta puts every margin at 1 or more."""
    K, y, _ = _rbf_problem(4)
    H = (y[:, None] * K) * y[None, :]
    a, eta, converged = eta_prior_qp(H, y, y * 0.5, 1.0)
    assert converged
    assert a == pytest.approx(0, abs=1e-12)
    assert eta >= 2


@parametrize_with_checks(
    [PriorSVM(n_priors=3, random_state=0), EtaPriorSVM(random_state=0)],
)
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def blobs():
    return labelled_blobs(240, 2, 1.5)


def test_prior_svm_solvers_agree_and_the_bound_is_valid(blobs):
    X, y = blobs
    newton = PriorSVM(C=1.0, gamma=0.5, random_state=0).fit(X, y)
    conic = PriorSVM(C=1.0, gamma=0.5, solver="CLARABEL", random_state=0).fit(X, y)
    assert newton.bound_ == pytest.approx(conic.bound_, abs=1e-6)
    assert newton.eta_ == conic.eta_ and newton.fallbacks_ == 0
    assert 0 < newton.result_.empirical <= newton.bound_ < 0.5
    assert newton.score(X, y) > 0.85
    assert newton.deterministic_bound_ == min(1.0, 2 * newton.bound_)


@pytest.mark.parametrize("kind", [PriorSVM, EtaPriorSVM])
def test_bound_from_the_dual_equals_the_bound_of_the_weight_vector(blobs, kind):
    """The estimators bound ``w`` from ``K`` and ``g`` alone; recompute it from the
    fitted ``w_`` and ``prior_`` by kernel evaluations at the posterior part."""
    X, y = blobs
    clf = kind(C=1.0, gamma=0.5, random_state=0).fit(X, y)
    _, X_post, _, y_post = clf._split(X, np.where(y == clf.classes_[1], 1, -1))
    margins = normalized_margins(clf.w_, X_post, y_post)
    cosine = clf.w_.dot(clf.prior_) / clf.w_.norm()
    etas = np.linspace(*clf.eta_range, clf.n_priors) if kind is PriorSVM else [clf.bound_eta]
    tau = None if kind is PriorSVM else clf.tau
    assert prior_bound(margins, cosine, etas, clf.delta, tau).bound == pytest.approx(
        clf.bound_, rel=1e-9
    )


def test_eta_prior_svm(blobs):
    X, y = blobs
    clf = EtaPriorSVM(C=1.0, gamma=0.5, random_state=0).fit(X, y)
    conic = EtaPriorSVM(C=1.0, gamma=0.5, solver="CLARABEL", random_state=0).fit(X, y)
    assert clf.fallbacks_ == 0
    assert clf.eta_ == pytest.approx(conic.eta_, rel=1e-5)
    assert clf.bound_ == pytest.approx(conic.bound_, abs=1e-6)
    assert clf.eta_ > 0  # the prior direction helps, so it enters with a positive weight
    assert 0 < clf.bound_ <= 1 and 0 < clf.mixture_bound_ <= 1
    assert clf.score(X, y) > 0.85


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (PriorSVM(C=0.0), "C must be a positive number"),
        (PriorSVM(C_prior=-1.0), "C_prior must be a positive number"),
        (PriorSVM(prior_fraction=1.0), "prior_fraction must lie in"),
        (EtaPriorSVM(delta=0.0), "delta must lie in"),
        (PriorSVM(n_priors=0), "n_priors must be a positive integer"),
        (PriorSVM(kernel="poly"), "kernel must be 'rbf' or 'linear'"),
    ],
)
def test_bad_input(blobs, estimator, message):
    X, y = blobs
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, y)


def test_labels_must_be_binary(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        PriorSVM().fit(X, np.arange(240) % 3)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rank=st.integers(1, 15),
    C=st.sampled_from([1e-2, 1.0, 1e3]),
)
@example(seed=14240, rank=11, C=1000.0)  # needs 110 rounds of coordinate ascent
def test_box_qp_reaches_the_optimum_on_any_gram_matrix(seed, rank, C):
    """Rank-deficient Gram matrices and linear terms of both signs, where the active-set
    method may cycle: box_qp converges, and its objective is not below Clarabel's."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(15, rank)) * rng.lognormal(size=rank)
    H, v = F @ F.T, rng.normal(size=15) * 3
    a, _, converged = box_qp(H, v, C, a0=rng.uniform(0, C, 15))
    x = cp.Variable(15)
    problem = cp.Problem(cp.Maximize(v @ x - cp.sum_squares(F.T @ x) / 2), [x >= 0, x <= C])
    problem.solve(solver="CLARABEL")
    assert converged
    assert np.all((a >= 0) & (a <= C))
    assert v @ a - a @ H @ a / 2 >= problem.value - 1e-7 * max(1.0, abs(problem.value))


def test_box_qp_on_an_ill_conditioned_kernel_restarts_from_an_interior_point(monkeypatch):
    """A wide RBF kernel with a large C: the coordinate and Newton rounds alone take many
    rounds to settle the active set (Pima's widest kernel at C = 1e4: 1000 rounds, 6
    minutes, unconverged); restarted from Clarabel's solution after a few, they end at
    the same tolerance within a few more, at an objective not below Clarabel's."""
    import cvxpb.svm.prior_qp as prior_qp

    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 8))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=150) > 0, 1, -1)
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * 64.0)) + 1
    H, v, C = (y[:, None] * K) * y[None, :], 1 - 0.5 * y * np.tanh(X[:, 1]), 1e4
    a, rounds, converged = box_qp(H, v, C)
    assert converged and rounds <= prior_qp.CONIC_START_ROUNDS + 5
    x = cp.Variable(150)
    factor = kernel_factor(H)
    program = cp.Problem(cp.Maximize(v @ x - cp.sum_squares(factor.T @ x) / 2), [x >= 0, x <= C])
    program.solve(solver="CLARABEL")
    assert v @ a - a @ H @ a / 2 >= program.value - 1e-7 * abs(program.value)
    monkeypatch.setattr(prior_qp, "CONIC_START_ROUNDS", 10**6)  # the rounds alone
    _, alone, _ = box_qp(H, v, C, max_rounds=40)
    assert alone > rounds + 10
