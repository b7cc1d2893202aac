"""The outer region's floors ``a_lo``, ``b_lo``: a term's least value on the simplex,
proven, from the programs already solved where it has no closed form."""

import cvxpy as cp
import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.declare.pareto import ParetoSearch
from cvxpb.ensemble import bounds as mv


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_tandem_floor_from_the_first_programs_is_a_proven_least_value(seed):
    """On held-out errors (a Gram matrix) the tandem term's floor, the Frank-Wolfe bound
    at the program with the least ``mu``, is at most the term's least value on the
    simplex by Clarabel (to 1e-9) and within 1e-6 of it; the KL floor is 0."""
    rng = np.random.default_rng(seed)
    errors = (rng.uniform(size=(200, 15)) < rng.uniform(0.1, 0.4, 15)).astype(float)
    problem = pb.Minimize(mv.tandem(pb.Posterior.uniform(15), errors, delta=0.05))
    search = ParetoSearch(problem.bound, problem.terms, problem.signs)
    search.run(1e-7, 300)
    w = cp.Variable(15, nonneg=True)
    least = cp.Problem(cp.Minimize(cp.sum_squares(errors @ w) / 200), [cp.sum(w) == 1])
    least.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12)
    assert search.a_lo <= least.value + 1e-9
    assert search.a_lo >= least.value - 1e-6
    assert search.b_lo == 0.0
    assert search.a_lo >= search._least(search.A) - 1e-6  # the term's own program's
