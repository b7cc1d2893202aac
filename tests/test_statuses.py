"""Every status a method of ours returns is stated as data (its module's ``STATUSES``)
and explained (:data:`cvxpb.engine.result.STATUSES` and ``STOPPED``), and the statuses
the methods return on problems that stop them early are among those they state."""

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.methods import METHODS
from cvxpb.engine.result import STATUSES, STOPPED

OURS = ("exact", "cvx", "closed_form", "ccp", "fixed_point", "nlp", "declared")


@pytest.mark.parametrize("name", OURS)
def test_each_method_states_explained_statuses(name):
    stated = METHODS[name].statuses
    assert stated and set(stated) <= set(STATUSES) | set(STOPPED)
    assert not set(STATUSES) & set(STOPPED)  # a claim or a stop, never both


def test_cvx_states_every_status_cvxpy_may_give():
    import cvxpy.settings as s

    cvxpy = {
        s.OPTIMAL,
        s.OPTIMAL_INACCURATE,
        s.INFEASIBLE,
        s.INFEASIBLE_INACCURATE,
        s.UNBOUNDED,
        s.UNBOUNDED_INACCURATE,
        s.INFEASIBLE_OR_UNBOUNDED,
        s.USER_LIMIT,
        s.SOLVER_ERROR,
    }
    assert cvxpy <= set(METHODS["cvx"].statuses)


RISKS = np.linspace(0.05, 0.45, 12)


@pytest.mark.parametrize(
    ("distance", "divergence", "method", "options"),
    [
        ("kl", "kl", "exact", {}),
        ("kl", "kl", "exact", {"max_rounds": 0}),
        ("linear", "chi2", "cvx", {}),
        ("linear", "chi2", "closed_form", {}),
        ("linear", "chi2", "closed_form", {"rule": "theorem11"}),
        ("kl", "chi2", "fixed_point", {}),
        ("kl", "chi2", "fixed_point", {"max_iter": 1}),
        ("kl", "kl", "nlp", {}),
        ("kl", "kl", "nlp", {"max_iter": 1}),
        ("kl", "kl", "ccp", {}),
        ("kl", "kl", "ccp", {"max_iter": 1}),
        ("kl", "kl", "declared", {}),
        ("kl", "kl", "declared", {"max_solves": 21, "tol": 1e-300, "rtol": 1e-300}),
    ],
)
def test_the_statuses_returned_are_stated(distance, divergence, method, options):
    problem = pb.BoundProblem(RISKS, m=50, distance=distance, divergence=divergence)
    result = problem.solve(method, **options)
    assert result.status in METHODS[method].statuses, result.status
    assert result.status in STATUSES or result.status in STOPPED
