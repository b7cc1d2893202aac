"""The minimax probability machine: its SOCP against an independent smooth
minimization, and its worst-case guarantee on the distribution it was fitted to."""

import numpy as np
import pytest
from scipy.linalg import null_space, sqrtm
from scipy.optimize import minimize
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.minimax.mpm import MinimaxProbabilityMachine


def two_classes(n=120, d=4, seed=0, shift=1.0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, 1, -1)
    mix = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ mix + shift * np.outer(y, rng.normal(size=d))
    return X, y


def kappa_by_bfgs(X, y, reg):
    """1 / min ||S+^(1/2) a|| + ||S-^(1/2) a|| over a^T (mu+ - mu-) = 1, by BFGS on the
    affine set's coordinates (no conic solver)."""
    roots, means = [], []
    for label in (1, -1):
        part = X[y == label]
        cov = np.cov(part.T, bias=True) + reg * np.eye(X.shape[1])
        roots.append(np.real(sqrtm(cov)))
        means.append(part.mean(axis=0))
    direction = means[0] - means[1]
    a0, basis = direction / (direction @ direction), null_space(direction[None, :])

    def objective(u):
        a = a0 + basis @ u
        return sum(np.linalg.norm(root @ a) for root in roots)

    best = minimize(objective, np.zeros(basis.shape[1]), method="BFGS", options={"gtol": 1e-10})
    return 1 / best.fun


@pytest.mark.parametrize(("seed", "reg"), [(0, 0.0), (1, 1e-6), (2, 0.5)])
def test_kappa_matches_an_independent_minimization(seed, reg):
    X, y = two_classes(seed=seed)
    mpm = MinimaxProbabilityMachine(reg=reg).fit(X, y)
    assert mpm.kappa_ == pytest.approx(kappa_by_bfgs(X, y, reg), rel=1e-6)
    assert mpm.worst_case_error_ == pytest.approx(1 / (1 + mpm.kappa_**2))


@pytest.mark.parametrize("seed", range(4))
def test_the_guarantee_holds_on_the_fitted_sample(seed):
    """The training sample has exactly the moments the MPM used (reg = 0), so by the
    one-sided Chebyshev inequality each class's training error is at most 1/(1+kappa^2);
    and the two classes' bounds are equal, so the boundary is where the paper puts it."""
    X, y = two_classes(n=200, seed=seed, shift=0.7)
    mpm = MinimaxProbabilityMachine(reg=0.0).fit(X, y)
    predictions = mpm.predict(X)
    for label in (1, -1):
        error = np.mean(predictions[y == label] != label)
        assert error <= mpm.worst_case_error_ + 1e-9
    margins = [
        (mpm.decision_function(X[y == label].mean(0)[None])[0] * label)
        / np.sqrt(mpm.coef_ @ np.cov(X[y == label].T, bias=True) @ mpm.coef_)
        for label in (1, -1)
    ]
    assert margins == pytest.approx([mpm.kappa_, mpm.kappa_], rel=1e-6)


def test_bad_input_is_a_value_error():
    X, y = two_classes()
    with pytest.raises(ValueError, match="reg must be a finite number >= 0"):
        MinimaxProbabilityMachine(reg=-1).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        MinimaxProbabilityMachine().fit(X, np.arange(y.size) % 3)
    same = np.vstack([X, X])
    with pytest.raises(ValueError, match="same mean"):
        MinimaxProbabilityMachine().fit(same, np.repeat([1, -1], X.shape[0]))


@parametrize_with_checks([MinimaxProbabilityMachine()])
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


def test_solver_failures_fall_back_and_then_say_why(monkeypatch):
    import cvxpy as cp

    from cvxpb.minimax import MinimaxSolverError

    X, y = two_classes()
    reference = MinimaxProbabilityMachine().fit(X, y)
    assert reference.solver_ == "CLARABEL"
    solve = cp.Problem.solve

    def failing(self, *args, solver=None, **kwargs):
        if solver == "CLARABEL":
            raise cp.SolverError("Solver 'CLARABEL' failed.")
        return solve(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", failing)
    fallback = MinimaxProbabilityMachine().fit(X, y)
    assert fallback.solver_ == "ECOS"
    assert fallback.kappa_ == pytest.approx(reference.kappa_, rel=1e-6)
    with pytest.raises(MinimaxSolverError, match="CLARABEL: Solver 'CLARABEL' failed"):
        MinimaxProbabilityMachine(solver="CLARABEL").fit(X, y)
    with pytest.raises(ValueError, match="solver must be 'auto' or one of"):
        MinimaxProbabilityMachine(solver="MOSEK").fit(X, y)
