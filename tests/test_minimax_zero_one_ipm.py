"""The 0-1 minimax working-set program by the interior-point method, against Clarabel on
the same CVXPY program, and the working sets' fallbacks to Clarabel."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from cvxpb.minimax import MinimaxClassifier
from cvxpb.minimax import zero_one as zo
from cvxpb.minimax import zero_one_dual as dual
from cvxpb.minimax import zero_one_ipm as ipm
from tests.synthetic import gaussian_classes


def _working_set(y, classes, density, rng):
    """Random pairs, each sample's own class always among them."""
    mask = rng.random((y.size, classes)) < density
    mask[np.arange(y.size), y] = True
    return np.nonzero(mask)


def _clarabel(Xa, y, pairs, eps, free, T):
    """The working-set program solved tightly by Clarabel: its value."""
    problem, _, _ = zo.working_set_program(Xa, y, pairs, "l2", eps, None, "l2", False, free, T)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem.value if problem.status == cp.OPTIMAL else None


def _restricted_objective(Xa, y, A, pairs, eps, free, T):
    """The working-set program's objective at ``A`` (its least nu per sample by a fine
    bisection, independently of :func:`cvxpb.minimax.zero_one.threshold`)."""
    n = Xa.shape[0]
    Z = np.hstack([Xa @ A.T, np.zeros((n, 1))])
    mask = np.zeros_like(Z, dtype=bool)
    mask[pairs] = True
    lo = np.min(np.where(mask, Z, np.inf), axis=1) - 1
    hi = np.max(np.where(mask, Z, -np.inf), axis=1)
    for _ in range(200):
        mid = (lo + hi) / 2
        over = np.sum(np.where(mask, np.maximum(Z - mid[:, None], 0), 0), axis=1) > 1
        lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
    kept = [j for j in range(Xa.shape[1]) if j not in free]
    own = Z[np.arange(n), y]
    weights = np.broadcast_to(np.asarray(eps, dtype=float), (T,))
    return np.mean(1 + hi - own) + weights @ np.linalg.norm(A[:, kept], axis=1)


def _solve(Xa, y, pairs, eps, free, T):
    closed = zo._closes(Xa, y, pairs, ("l2", eps, None, "l2", False, free, T))
    return ipm.solve(Xa, y, pairs, eps, free, T, closed)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(5, 150),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.02, 0.1, 0.5, 3.0]),
    st.sampled_from([0.2, 0.6, 1.0]),
    st.booleans(),
    st.sampled_from([0.8, 3.0]),
)
def test_the_interior_point_method_reaches_clarabels_optimum(
    classes, n, seed, eps, density, intercept, apart
):
    """On random working sets, with and without a free intercept, with rows the penalty
    sets to zero (eps = 3) and nearly separable classes: the method returns, the
    program's value at its ``A`` (by an independent bisection) is within 1e-8 of
    Clarabel's optimum, and on every pair (where the program is eq. (21) itself) the
    proven bound at its multipliers is below that optimum and within 1e-7 of it."""
    rng = np.random.default_rng(seed)
    Xa, y = gaussian_classes(n, classes, seed=seed, intercept=intercept, apart=apart)
    T, free = classes - 1, ((Xa.shape[1] - 1,) if intercept else ())
    pairs = _working_set(y, classes, density, rng)
    assume(not intercept or _intercepts_pinned(y, pairs, classes))  # else the next test
    optimum = _clarabel(Xa, y, pairs, eps, free, T)
    assume(optimum is not None)  # the reference itself must be accurate
    solved = _solve(Xa, y, pairs, eps, free, T)
    assert solved is not None
    A, p, iterations = solved
    assert 0 < iterations <= ipm.MAX_ITER
    value = _restricted_objective(Xa, y, A, pairs, eps, free, T)
    assert value == pytest.approx(optimum, abs=1e-8 * max(1, abs(optimum)))
    assert np.all(p >= 0) and np.all(p[~_mask(pairs, n, classes)] == 0)
    if density == 1.0:
        lower = dual.lower_bound(Xa, y, T, p, "l2", eps, None, "l2", False, free, value + 1e-6)
        assert lower <= optimum + 1e-9
        assert optimum - lower <= 1e-7


def _intercepts_pinned(y, pairs, classes):
    """Whether no free intercept can move at no cost. Moving the intercepts by ``a``
    (``a_T = 0`` for the reference class) changes sample ``i``'s loss at the rate
    ``max_(j in W_i) a_j - a_(y_i) >= 0``; every rate is 0 for some ``a != 0`` exactly
    when the graph with an edge ``j -> y_i`` for each pair ``(i, j)`` is not strongly
    connected (``a`` constant on an upward- or downward-closed part without the
    reference). Then the program's minimizers run off to infinity along ``a``."""
    i, j = pairs
    wrong = j != y[i]
    edges = csr_matrix((np.ones(wrong.sum()), (j[wrong], y[i][wrong])), shape=(classes,) * 2)
    edges.sum_duplicates()  # SciPy 1.13's strong components never return on duplicates
    return connected_components(edges, directed=True, connection="strong")[0] == 1


def test_a_working_set_whose_minimizers_run_off_goes_to_clarabel():
    """The case hypothesis found: three classes, five samples, and class 1 held only by a
    sample of its own alone, so its intercept falls at no cost. The method's iterates
    follow it (``A`` grows past 1e6) and it stops with ``None``; the round goes to
    Clarabel, whose value is the program's optimum (a bisection at its ``A``)."""
    Xa, y = gaussian_classes(5, 3, seed=32542)
    pairs = _working_set(y, 3, 0.6, np.random.default_rng(32542))
    free, T, eps = (Xa.shape[1] - 1,), 2, 3.0
    assert not _intercepts_pinned(y, pairs, 3)
    assert _solve(Xa, y, pairs, eps, free, T) is None
    used = []
    program = ("l2", eps, None, "l2", False, free, T)
    A, _, _ = zo._solve_round(Xa, y, pairs, program, "auto", used)
    assert used == ["CLARABEL"]
    optimum = _clarabel(Xa, y, pairs, eps, free, T)
    value = _restricted_objective(Xa, y, A, pairs, eps, free, T)
    assert value == pytest.approx(optimum, abs=1e-7)


def test_the_reduced_newton_step_solves_the_whole_system():
    """The step through the Schur complement on ``(A, r)`` against the whole Newton
    system (every variable, the linear constraints' ``lambda / g`` and the cones' barrier
    Hessian) solved densely, at a random interior point with random multipliers."""
    rng = np.random.default_rng(0)
    Xa, y = gaussian_classes(7, 3, seed=1)
    T, d, n = 2, 4, 7
    pairs = _working_set(y, 3, 0.6, rng)
    program = ipm._Program(Xa, y, pairs, np.array([0.1, 0.3]), (3,), T)
    A = 0.3 * rng.normal(size=(T, d))
    r = np.linalg.norm(A[:, :3], axis=1) + 0.5
    start = program.start().primal
    primal = (A, r, start[2] + 3, start[3])
    slacks = program.slacks(primal)
    duals = program.on_pairs(tuple(rng.random(g.shape) + 0.1 for g in slacks))
    weight, aim = 0.05, 0.01
    newton = ipm._Newton(program, ipm._Point(primal, duals), slacks, weight)
    targets = program.on_pairs(tuple(np.full(g.shape, aim) for g in slacks))
    (dA, dr, dnu, ds), _, _ = newton.direction(targets, weight)
    rows, classes = np.nonzero(program.mask)
    m = rows.size
    size = T * d + T + n + m
    at_r, at_nu, at_s = T * d, T * d + T, T * d + T + n
    gradients, values, multipliers = [], [], []
    for k, (i, j) in enumerate(zip(rows, classes, strict=True)):  # g1
        a = np.zeros(size)
        if j < T:
            a[j * d : (j + 1) * d] = -Xa[i]
        a[at_nu + i] = a[at_s + k] = 1
        gradients.append(a), values.append(slacks[0][i, j]), multipliers.append(duals[0][i, j])
    for k, (i, j) in enumerate(zip(rows, classes, strict=True)):  # g2
        a = np.zeros(size)
        a[at_s + k] = 1
        gradients.append(a), values.append(slacks[1][i, j]), multipliers.append(duals[1][i, j])
    for i in range(n):  # g3
        a = np.zeros(size)
        a[at_s + np.flatnonzero(rows == i)] = -1
        gradients.append(a), values.append(slacks[2][i]), multipliers.append(duals[2][i])
    G, g, lam = np.array(gradients), np.array(values), np.array(multipliers)
    hessian = G.T @ np.diag(lam / g) @ G
    gradient = np.zeros(size)
    gradient[: T * d], gradient[at_r:at_nu], gradient[at_nu:at_s] = (
        -program.own.ravel(),
        [0.1, 0.3],
        1 / n,
    )
    for j in range(T):  # the cone's barrier -log q, q = r^2 - ||B||^2
        b, q = A[j, :3], r[j] ** 2 - A[j, :3] @ A[j, :3]
        dq, d2q = np.zeros(size), np.zeros((size, size))
        dq[at_r + j], dq[j * d : j * d + 3] = 2 * r[j], -2 * b
        d2q[at_r + j, at_r + j] = 2
        d2q[np.arange(j * d, j * d + 3), np.arange(j * d, j * d + 3)] = -2
        hessian += weight * (np.outer(dq, dq) / q**2 - d2q / q)
        gradient -= weight * dq / q
    step = np.linalg.solve(hessian, -gradient + G.T @ (aim / g))
    assert np.allclose(step[: T * d].reshape(T, d), dA, atol=1e-12)
    assert np.allclose(step[at_r:at_nu], dr, atol=1e-12)
    assert np.allclose(step[at_nu:at_s], dnu, atol=1e-12)
    assert np.allclose(step[at_s:], ds[rows, classes], atol=1e-12)


def _mask(pairs, n, classes):
    mask = np.zeros((n, classes), dtype=bool)
    mask[pairs] = True
    return mask


@pytest.mark.parametrize("eps", [[0.05, 0.2, 1.0], 5.0])
def test_weights_per_row_and_rows_penalized_to_zero(eps):
    """Different weights per row, and a weight so large the optimal rows vanish, where
    the smoothed penalty is least smooth: the working sets still close their certificate
    and match the reference optimum."""
    Xa, y = gaussian_classes(70, 4, seed=3)
    free = (Xa.shape[1] - 1,)
    optimum = _clarabel(Xa, y, np.nonzero(np.ones((70, 4), dtype=bool)), eps, free, 3)
    assert optimum is not None  # the reference reached "optimal"
    used = []
    _, _, upper, lower = zo.solve_zero_one(Xa, y, 3, "l2", eps, free=free, used=used)
    assert lower <= optimum + 1e-9 <= upper + 2e-9
    assert upper - lower <= zo.GAP * max(1.0, abs(upper))


def test_the_estimator_names_the_interior_point_route():
    Xa, y = gaussian_classes(150, 3, seed=2)
    clf = MinimaxClassifier(loss="zero_one", eps=0.1).fit(Xa[:, :-1], y)
    assert clf.route_ == "working sets, interior point"
    assert clf.status_ == cp.OPTIMAL
    assert 0 <= clf.duality_gap_ <= zo.GAP


def test_a_program_the_method_does_not_take_goes_to_clarabel():
    """The squared penalty, a zero weight and too few iterations all take Clarabel."""
    Xa, y = gaussian_classes(60, 3, seed=5)
    free = (Xa.shape[1] - 1,)
    for norm, eps, squared in (("l2", 0.1, True), ("l2", [0.1, 0.0], False), ("linf", 0.1, False)):
        used = []
        zo.solve_zero_one(Xa, y, 2, norm, eps, squared=squared, free=free, used=used)
        assert set(used) == {"CLARABEL"}
    assert ipm.applicable("l2", [0.1, 0.2], None, False, 2, 4)
    assert not ipm.applicable("l2", [0.1, 0.0], None, False, 2, 4)
    assert ipm.applicable("l2", 0.1, None, False, 9, ipm.LARGEST // 9 - 1)
    assert not ipm.applicable("l2", 0.1, None, False, 9, ipm.LARGEST // 9)


def test_a_stalled_method_hands_its_working_set_to_clarabel(monkeypatch):
    monkeypatch.setattr(ipm, "MAX_ITER", 2)
    Xa, y = gaussian_classes(60, 3, seed=6)
    free = (Xa.shape[1] - 1,)
    assert _solve(Xa, y, np.nonzero(np.ones((60, 3), dtype=bool)), 0.1, free, 2) is None
    used = []
    _, _, upper, lower = zo.solve_zero_one(Xa, y, 2, "l2", 0.1, free=free, used=used)
    assert set(used) == {"CLARABEL"}
    assert upper - lower <= zo.GAP * max(1.0, abs(upper))


def test_an_open_certificate_is_settled_by_clarabel(monkeypatch):
    """Where the method's answer leaves the certificate open and no pair is left to add,
    the same working set is solved by Clarabel, and that closes it."""

    def poor(Xa, labels, pairs, eps, free, T, closed):
        return np.zeros((T, Xa.shape[1])), np.eye(T + 1)[labels], 1

    monkeypatch.setattr(ipm, "solve", poor)
    Xa, y = gaussian_classes(60, 3, seed=7)
    free = (Xa.shape[1] - 1,)
    used = []
    _, _, upper, lower = zo.solve_zero_one(Xa, y, 2, "l2", 0.1, free=free, used=used)
    assert used == ["interior point", "CLARABEL"]
    assert upper - lower <= zo.GAP * max(1.0, abs(upper))
