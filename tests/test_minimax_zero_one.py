"""The minimax SVM's working-set solver against the sum-largest CVXPY program of eq. (21)."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cvxpb.minimax import MinimaxClassifier
from cvxpb.minimax import zero_one as zo
from cvxpb.minimax.entropies import ZeroOneEntropy
from cvxpb.minimax.program import minimax_program
from tests.synthetic import gaussian_classes


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        float,
        st.tuples(st.integers(1, 5), st.integers(1, 8)),
        elements=st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, 1.0, -1.0, 0.5])),
    )
)
def test_threshold_is_the_sum_largest_form_of_eq_30(Z):
    """``1 + nu`` with ``sum_j (z~_j - nu)_+ = 1`` against ``max_k (sum_largest(z~, k) +
    k - 1)/k``, ties and large scores included; and ``nu`` meets its own equation."""
    Zt = np.hstack([Z, np.zeros((Z.shape[0], 1))])
    nu = zo.threshold(Zt)
    scale = 1 + np.abs(Zt).max(axis=1)
    assert 1 + nu == pytest.approx(ZeroOneEntropy().value(Z), abs=1e-12 * scale.max())
    assert np.all(np.abs(np.maximum(Zt - nu[:, None], 0).sum(axis=1) - 1) <= 1e-9 * scale)


def _reference(Xa, y, norm, eps, **options):
    """The teaching program (sum-largest form), solved tightly by Clarabel."""
    problem, _ = minimax_program(Xa, y, "zero_one", norm, eps, free=(Xa.shape[1] - 1,), **options)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return problem.value


CASES = [
    ("l2", 0.1, {}),
    ("l2", 0.3, {"squared": True}),
    ("linf", 0.05, {}),
    ("l1", 0.05, {}),
    ("l1inf", 0.1, {}),
    ("group", 0.1, {"groups": [[0, 1], [2]]}),
]


@pytest.mark.parametrize(("norm", "eps", "options"), CASES)
@pytest.mark.parametrize("classes", [2, 4])
def test_working_sets_reach_the_optimum_of_the_sum_largest_program(norm, eps, options, classes):
    """The certificate brackets the reference optimum (lower <= optimum <= upper) and
    closes to 1e-7 relative; the sub-sample start is used (n > 2 * SUBSAMPLE)."""
    Xa, y = gaussian_classes(90, classes)
    optimum = _reference(Xa, y, norm, eps, **options)
    groups, squared = options.get("groups"), options.get("squared", False)
    old = zo.SUBSAMPLE
    try:
        zo.SUBSAMPLE = 30
        A, _, upper, lower = zo.solve_zero_one(
            Xa, y, classes - 1, norm, eps, groups, "l2", squared, (Xa.shape[1] - 1,)
        )
    finally:
        zo.SUBSAMPLE = old
    tol = 1e-7 * max(1.0, abs(optimum))
    assert lower <= optimum + tol
    assert upper >= optimum - tol
    assert upper - lower <= 2 * zo.GAP * max(1.0, abs(upper))
    objective = zo.objective(Xa, y, A, norm, eps, groups, "l2", squared, (Xa.shape[1] - 1,))
    assert objective == pytest.approx(upper, rel=1e-12)


@pytest.mark.parametrize("classes", [2, 4])
def test_without_a_penalty_no_lower_bound_is_proven(classes):
    """With eps = 0 the dual bound needs M = 0 on every column, which floating point
    cannot prove: the lower bound is -inf (the solver's objective was taken for it
    before) and the status says so; the solution still reaches the optimum."""
    Xa, y = gaussian_classes(90, classes)
    optimum = _reference(Xa, y, "l2", 0.0)
    free = (Xa.shape[1] - 1,)
    A, _, upper, lower = zo.solve_zero_one(Xa, y, classes - 1, "l2", 0.0, free=free)
    assert lower == -np.inf
    assert upper == pytest.approx(optimum, abs=1e-7)
    with pytest.warns(UserWarning, match="no proven lower bound"):
        assert zo.zero_one_status(upper, lower) == cp.OPTIMAL_INACCURATE


def test_the_working_set_program_is_a_relaxation():
    """With only each sample's own class the program drops every other class's
    positive part: its value is below the optimum, and U at its A above."""
    Xa, y = gaussian_classes(60, 3, seed=1)
    optimum = _reference(Xa, y, "l2", 0.1)
    own = (np.arange(60), y)
    problem, A, _ = zo.working_set_program(Xa, y, own, "l2", 0.1, None, "l2", False, (3,), 2)
    problem.solve(solver="CLARABEL")
    assert problem.value < optimum - 1e-3
    assert zo.objective(Xa, y, A.value, "l2", 0.1, free=(3,)) > optimum + 1e-3


def test_the_estimator_uses_the_working_sets_and_states_the_gap():
    Xa, y = gaussian_classes(150, 3, seed=2)
    clf = MinimaxClassifier(loss="zero_one", eps=0.1).fit(Xa[:, :-1], y)
    assert clf.status_ == cp.OPTIMAL
    assert 0 <= clf.duality_gap_ <= zo.GAP
    assert clf.worst_case_loss_ == pytest.approx(_reference(Xa, y, "l2", 0.1), rel=1e-7)


def test_a_gap_above_the_goal_is_inaccurate_and_says_so():
    assert zo.zero_one_status(0.5, 0.5 - 1e-9) == cp.OPTIMAL
    with pytest.warns(UserWarning, match="certified within 0.001"):
        assert zo.zero_one_status(0.5, 0.499) == cp.OPTIMAL_INACCURATE
