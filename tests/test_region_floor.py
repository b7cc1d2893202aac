"""The outer region's floors ``a_lo``, ``b_lo``: a term's least value on the simplex,
proven, from the programs already solved where it has no closed form."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.engine.declare.pareto import ParetoSearch
from cvxpb.engine.declare.quadratic import pairwise_loss
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


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1), st.floats(-2.0, 2.0))
def test_a_pairwise_loss_of_any_sign_is_never_below_its_least_entry(H, seed, shift):
    """``q @ M @ q`` averages the entries with weights ``q_i q_j``: at random posteriors
    and every vertex it is at least the floor, the least entry, which a vertex reaches
    where that entry is on the diagonal, and at most the ceiling, the largest."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(H, H)) + shift
    M = (M + M.T) / 2
    term = pairwise_loss(pb.Posterior.uniform(H), M)
    assert term.floor == M.min()
    posteriors = np.vstack([rng.dirichlet(np.full(H, a), size=50) for a in (0.1, 1.0)])
    posteriors = np.vstack([posteriors, np.eye(H)])
    values = np.einsum("ki,ij,kj->k", posteriors, M, posteriors)
    assert np.all(values >= term.floor - 1e-12 * (1 + np.abs(M).max()))
    assert term.ceiling == M.max()
    assert np.all(values <= term.ceiling + 1e-12 * (1 + np.abs(M).max()))
    j = int(np.argmin(np.diag(M)))
    if M[j, j] == M.min():
        assert values[-H + j] == pytest.approx(term.floor, abs=1e-12)
