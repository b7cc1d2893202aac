"""Mirror descent from a local search's best posterior (cvxpb.engine.declare.polish)."""

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.declare import polish as polishing
from cvxpb.engine.declare.polish import polish


def test_it_reaches_the_minimum_of_a_smooth_function_and_never_rises():
    """On ``|q - t|^2 + KL(q || uniform) / 10`` (strictly convex on the simplex, its
    minimum found by SciPy's SLSQP independently) from the uniform posterior: within 1e-4
    of the minimizer, each kept step lower than the last."""
    from scipy.optimize import minimize

    t = np.array([0.6, 0.25, 0.1, 0.05])

    def f(q):
        return float(np.sum((q - t) ** 2) + np.sum(q * np.log(q * 4)) / 10)

    def grad(q):
        return 2 * (q - t) + (np.log(q * 4) + 1) / 10

    seen = []
    q = polish(lambda q: seen.append(f(q)) or seen[-1], grad, np.full(4, 0.25), 1e-12)
    run = minimize(
        f,
        np.full(4, 0.25),
        jac=grad,
        bounds=[(1e-12, 1)] * 4,
        constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
        method="SLSQP",
        options={"ftol": 1e-15},
    )
    assert np.abs(q - run.x).max() < 1e-4
    assert f(q) <= f(np.full(4, 0.25))


def test_zero_weights_stay_zero_and_no_step_is_kept_that_raises_the_value():
    def f(q):
        return float(q @ np.array([3.0, 1.0, 2.0]))

    q = polish(f, lambda q: np.array([3.0, 1.0, 2.0]), np.array([0.5, 0.0, 0.5]), 1e-9)
    assert q[1] == 0.0 and f(q) < 2.0 + 1e-6  # the best on its support (0, 2), from 2.5
    flat = polish(f, lambda q: np.ones(3), np.full(3, 1 / 3), 1e-9)  # no direction
    assert np.array_equal(flat, np.full(3, 1 / 3))


@pytest.mark.parametrize("kind", ["weight", None])
def test_a_local_search_reports_its_polished_posterior(monkeypatch, kind):
    """PAC-Bound 2 out of bag (status local): the posterior reported is never worse than
    the one the search stopped at (polishing switched off), and its value is the bound
    there, rounded up."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=12, random_state=0)
    model = MajorityVoteClassifier(forest, validation="oob", random_state=0).fit(X, y)
    problem = pb.Minimize(model.declarations_["pac_bound_2"])
    found = problem.search(kind=kind)
    assert found.local and found.value == problem.value_at(found.q)
    monkeypatch.setattr(polishing, "STEPS", 0)
    unpolished = problem.search(kind=kind)
    assert found.value <= unpolished.value
