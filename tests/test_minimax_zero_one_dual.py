"""The 0-1 minimax program's proven lower bound: the exact transport of the dual
weights, and the bound below the optimum at any dual point, for every penalty."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.minimax import zero_one as zo
from cvxpb.minimax import zero_one_dual as dual
from cvxpb.minimax.program import minimax_program
from tests.synthetic import gaussian_classes

PENALTIES = [
    ("l2", 0.1, {}),
    ("l2", 0.3, {"squared": True}),
    ("linf", 0.05, {}),
    ("l1", 0.05, {}),
    (3.0, 0.1, {}),
    ("l1inf", 0.1, {}),
    ("group", [0.1, 0.2], {"groups": [[0, 1], [2]]}),
    ("group", 0.1, {"groups": [[0, 1], [2]], "squared": True}),
    ("l2", [0.1, 0.0], {}),  # a zero weight on one row
]


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(2, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 1e-9, 0.3, 1.0]),
)
def test_transported_weights_are_exactly_in_the_transport_polytope(n, classes, seed, noise):
    """Rows sum to 1 and columns to the classes' counts in exact integer arithmetic,
    from the own-class weights perturbed by ``noise`` (the solver's case is about 1e-9),
    an all-zero row included."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    p = np.eye(classes)[labels] + noise * rng.random((n, classes))
    p[0] = 0.0
    moved = dual.exact_transport(p, labels, classes)
    assert np.all(moved >= 0)
    scale = 2.0 ** min(52, 62 - n.bit_length())
    units = moved * scale
    assert np.array_equal(units, np.round(units))
    units = units.astype(np.int64)
    assert np.all(units.sum(axis=1) == int(scale))
    counts = np.bincount(labels, minlength=classes).astype(np.int64)
    assert np.array_equal(units.sum(axis=0), counts * int(scale))
    if noise <= 1e-9:
        assert np.abs(moved - np.eye(classes)[labels]).max() < 1e-6


def _optimum(Xa, y, norm, eps, options):
    problem, _ = minimax_program(Xa, y, "zero_one", norm, eps, free=(Xa.shape[1] - 1,), **options)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return problem.value


def _multipliers(Xa, y, spec):
    """The optimal dual weights: the all-pairs working-set program's multipliers."""
    n = Xa.shape[0]
    pairs = np.nonzero(np.ones((n, 3), dtype=bool))
    problem, _, _ = zo.working_set_program(Xa, y, pairs, *spec, 2)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    p = np.zeros((n, 3))
    p[pairs] = n * problem.constraints[0].dual_value
    return p


@pytest.mark.parametrize("apart", [0.8, 3.0])
@pytest.mark.parametrize(("norm", "eps", "options"), PENALTIES)
def test_the_bound_is_below_the_optimum_at_any_dual_point(norm, eps, options, apart):
    """The bound is below the sum-largest program's optimum (solved independently by
    Clarabel) at the uniform weights, the own-class ones, random ones, and the optimal
    multipliers mixed with random weights (1e-4 to 0.3 of them); at the optimal
    multipliers it is within 1e-8 of the optimum (a zero weight: -inf or below), and so
    is the working sets' certificate within 1e-7."""
    Xa, y = gaussian_classes(60, 3, seed=4, apart=apart)
    free = (Xa.shape[1] - 1,)
    groups, squared = options.get("groups"), options.get("squared", False)
    optimum = _optimum(Xa, y, norm, eps, options)
    spec = (norm, eps, groups, "l2", squared, free)
    upper = optimum + 1e-6
    best = _multipliers(Xa, y, spec[:-1] + (free,))
    rng = np.random.default_rng(0)
    points = [np.full((60, 3), 1 / 3), np.eye(3)[y], best]
    points += [rng.dirichlet(np.ones(3), size=60) for _ in range(5)]
    for mix in (1e-4, 1e-3, 1e-2, 0.1, 0.3):
        points += [(1 - mix) * best + mix * rng.dirichlet(np.ones(3), size=60) for _ in range(4)]
    bounds = [dual.lower_bound(Xa, y, 2, p, *spec, upper) for p in points]
    assert max(bounds) <= optimum + 1e-9
    proven = np.all(np.asarray(eps) > 0)
    if proven:
        assert optimum - bounds[2] <= 1e-8
    _, _, upper, lower = zo.solve_zero_one(Xa, y, 2, *spec)
    assert lower <= optimum + 1e-9
    if proven:
        assert optimum - lower <= 1e-7


def test_the_own_class_weights_prove_zero_and_a_moving_free_column_nothing():
    """``p = e_(y_i)`` makes ``M = 0``: the bound is the fit's floor, 0. A free column
    that is not constant cannot have its moment matched exactly: no bound."""
    Xa, y = gaussian_classes(30, 3, seed=1)
    p = np.eye(3)[y]
    spec = ("l2", 0.1, None, "l2", False)
    assert dual.lower_bound(Xa, y, 2, p, *spec, (3,), 1.0) == pytest.approx(0.0, abs=1e-300)
    assert dual.lower_bound(Xa, y, 2, p, *spec, (0,), 1.0) == -np.inf


@pytest.mark.parametrize("classes", [2, 3])
def test_without_a_free_column_only_the_rows_are_made_exact(classes):
    """With no intercept nothing asks the columns to sum to the counts, and moving them
    there left the certificate 0.086 open (21 samples, 3 classes): now it closes to 1e-7
    and stays below the reference optimum; the weights' rows are still exactly in the
    simplex."""
    rng = np.random.default_rng(920588852)
    y = rng.integers(0, classes, 21)
    X = rng.normal(size=(21, 3)) + 3.0 * np.eye(classes, 3)[y]
    problem, _ = minimax_program(X, y, "zero_one", "l2", 0.02)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    _, _, upper, lower = zo.solve_zero_one(X, y, classes - 1, "l2", 0.02, solver="CLARABEL")
    assert lower <= problem.value + 1e-9
    assert upper - lower <= zo.GAP * max(1.0, abs(upper))
    p = rng.dirichlet(np.ones(classes), size=21)
    rows = dual.exact_transport(p, y, classes, columns=False)
    scale = 2.0 ** min(52, 62 - (21).bit_length())
    assert np.all((rows * scale).sum(axis=1) == scale)
    assert np.abs(rows - p).max() < 1e-12
