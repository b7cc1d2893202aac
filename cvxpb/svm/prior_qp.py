"""The quadratic programs of Parrado-Hernández et al.'s prior SVM (Section 4.1, Appendix A) and
eta-prior SVM (Section 4.2.1).

Both work in the augmented feature space ``phi~(x) = (phi(x), 1)`` of
:mod:`cvxpb.svm.gaussian` (kernel ``k(x, z) + 1``), where the SVMs are homogeneous as
the paper writes them. With ``H = Y K~ Y`` on the ``m - r`` posterior examples and
``g_i = w_r^T phi~(x_i)`` for the unit prior direction ``w_r``:

* prior SVM, dual (26): ``max v^T a - a^T H a / 2``, ``0 <= a <= C``, with
  ``v = 1 - eta y * g``; then ``w = sum_i a_i y_i phi~(x_i) + eta w_r`` (eq. 27);
* eta-prior SVM: ``max 1^T a - a^T H a / 2``, ``0 <= a <= C``, ``sum_i a_i y_i g_i = 0``;
  ``w = sum_i a_i y_i phi~(x_i) + eta w_r`` with ``eta`` from a free support vector
  (``0 < a_j < C``): ``y_j (sum_i a_i y_i k~(x_i, x_j) + eta g_j) = 1``.

The CVXPY forms use a factor ``K~ = L L^T`` (``a^T H a = ||L^T (y * a)||^2``), so no
dense ``m x m`` quadratic form is compiled. :func:`box_qp` is the dedicated solver of
the box QP: the primal-dual active-set method, with greedy coordinate ascent and
projected Newton steps where it does not converge, to a projected-gradient tolerance.
:func:`eta_prior_qp` solves the eta-prior SVM's dual through box QPs: ``eta`` is the
multiplier of its equality, and the dual function
``D(eta) = max_box (1 - eta y * g)^T a - a^T H a / 2`` (the prior SVM's dual value at
``eta``) is convex with derivative ``-(y * g)^T a(eta)``, so the optimal ``eta`` is the
root of that derivative.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from scipy.linalg import cho_factor, cho_solve

FREE = 1e-8  # a multiplier this far inside (0, C), relative to C, is free
RIDGE = 1e-13  # Newton systems get this times the largest diagonal entry added
CONIC_START_ROUNDS = 5  # rounds after which an interior-point solution restarts box_qp


def kernel_factor(K, jitter=1e-10) -> np.ndarray:
    """A factor ``L`` with ``L L^T = K``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A kernel matrix.
    jitter : float, default=1e-10
        Eigenvalues below ``jitter`` times the largest are dropped (those below zero come
        from rounding).

    Returns
    -------
    ndarray of shape (n, r)
        The factor, one column per eigenvalue kept.
    """
    values, vectors = np.linalg.eigh((K + K.T) / 2)
    keep = values > jitter * max(values.max(), 1e-300)
    return vectors[:, keep] * np.sqrt(values[keep])


def _projected_gradient(a, gradient, C):
    projected = np.where(a <= 0, np.maximum(gradient, 0), gradient)
    return np.where(a >= C, np.minimum(projected, 0), projected)


def box_qp(H, v, C, tol=1e-10, max_rounds=1000, iterations=None, a0=None):
    """Maximize ``v^T a - a^T H a / 2`` over the box ``0 <= a <= C``.

    First the primal-dual active-set method (:func:`_active_set`), which ends in a few
    linear solves on the free variables when it converges, as it does on SVM duals from
    a warm start. Where it does not (it can cycle on a matrix that is not an M-matrix),
    rounds of greedy coordinate ascent to find the active bounds, each followed by
    projected Newton steps on the free variables: each round makes ``iterations``
    exact coordinate maximizations, each on the coordinate of largest gain (the
    Gauss-Southwell-q rule of SMO-type SVM solvers), then :func:`_newton_to_the_box`.
    Either stops when the projected gradient is below ``tol`` relative to the size of its
    terms, ``max(1, |v|, |H a|)``.

    Parameters
    ----------
    H : ndarray of shape (n, n)
        Positive semidefinite.
    v : ndarray of shape (n,)
        The linear part.
    C : float
        The box's upper end.
    tol : float, default=1e-10
        The relative projected gradient at which it stops.
    max_rounds : int, default=1000
        Rounds of coordinate ascent at most.
    iterations : int, optional
        Coordinate steps a round; ``10 n`` by default.
    a0 : ndarray of shape (n,), optional
        A warm start.

    Returns
    -------
    a : ndarray of shape (n,)
        The maximizer found.
    rounds : int
        Rounds of coordinate ascent (0 when the active-set method converged).
    converged : bool
        Whether the stopping rule was met.
    """
    n = v.size
    H = np.ascontiguousarray(H)
    a = np.zeros(n) if a0 is None else np.clip(np.asarray(a0, dtype=float), 0, C)
    scale = max(1.0, float(np.abs(v).max()))
    ridge = RIDGE * max(float(np.abs(np.diag(H)).max()), 1.0)

    def optimal(x):
        Hx = H @ x
        size = max(scale, float(np.abs(Hx).max()))  # the gradient's terms, for rounding
        return np.abs(_projected_gradient(x, v - Hx, C)).max() <= tol * size

    active = _active_set(H, v, C, a, ridge)
    if optimal(active):
        return active, 0, True
    iterations = 10 * n if iterations is None else iterations
    for rounds in range(1, max_rounds + 1):
        if rounds == CONIC_START_ROUNDS + 1:
            a = _conic_start(H, v, C, a)
        a = _greedy_coordinate_ascent(H, v, C, a, iterations, tol * scale)
        a = _newton_to_the_box(H, v, C, a, ridge)
        if optimal(a):
            return a, rounds, True
    return a, max_rounds, False


def _conic_start(H, v, C, a):
    """Clarabel's solution of the box QP where it is better than ``a``, else ``a``.

    On an ill-conditioned ``H`` (a wide kernel, a large ``C``) the coordinate and Newton
    rounds may take hundreds of rounds to settle the active set (a round is a Cholesky
    factor, 0.1-0.4 s at 300 examples); an interior-point solution is near the optimum
    in a fraction of a second, and the rounds from it end at the same tolerance.
    """
    x = cp.Variable(v.size)
    factor = kernel_factor(H)
    program = cp.Problem(cp.Maximize(v @ x - cp.sum_squares(factor.T @ x) / 2), [x >= 0, x <= C])
    try:
        program.solve(solver="CLARABEL")
    except cp.error.SolverError:
        return a
    if x.value is None:
        return a
    start = np.clip(x.value, 0, C)

    def value(point):
        return float(v @ point - point @ (H @ point) / 2)

    return start if value(start) > value(a) else a


def _active_set(H, v, C, a, ridge, max_iter=50):
    """The primal-dual active-set method of Hintermüller, Ito and Kunisch (2002) for the
    box QP: guess the bounds from ``z = a + gradient / diag(H)`` (below 0: held at 0;
    above ``C``: held at ``C``), solve for the free variables with the others held,
    repeat until the guess repeats. Returns the last iterate, clipped to the box; the
    caller checks optimality (the method can cycle)."""
    diagonal = np.maximum(np.diag(H), 1e-300)
    gradient = v - H @ a
    guess = None
    for _ in range(max_iter):
        z = a + gradient / diagonal
        lower, upper = z <= 0, z >= C
        upper &= ~lower
        if (
            guess is not None
            and np.array_equal(lower, guess[0])
            and np.array_equal(upper, guess[1])
        ):
            break
        guess = (lower, upper)
        free = ~(lower | upper)
        a = np.where(upper, C, 0.0)
        if np.any(free):
            rhs = v[free] - H[np.ix_(free, upper)] @ a[upper]
            a[free] = _solve_psd(H[np.ix_(free, free)], rhs, ridge)
        gradient = v - H @ a
    return np.clip(a, 0, C)


def _newton_to_the_box(H, v, C, a, ridge, max_steps=50):
    """Projected Newton steps (Bertsekas 1982): on the variables not held at a bound by
    their gradient (within a distance that shrinks with the projected gradient), the
    Newton point, projected on the box and halved until the objective rises, so that
    many bounds can be reached or left in one step. Ends when a step no longer raises
    the objective (a full interior step ends the active-set search)."""

    def value(x):
        return float(v @ x - x @ (H @ x) / 2)

    current = value(a)
    for _ in range(max_steps):
        gradient = v - H @ a
        # Bertsekas's epsilon-active set: near a bound and pushed against it
        near = min(1e-3 * C, float(np.linalg.norm(a - np.clip(a + gradient, 0, C))))
        held = ((a <= near) & (gradient <= 0)) | ((a >= C - near) & (gradient >= 0))
        free = ~held
        if not np.any(free):
            return a
        step = np.zeros_like(a)
        step[free] = _solve_psd(H[np.ix_(free, free)], gradient[free], ridge)
        for t in np.append(0.5 ** np.arange(12), _longest_feasible(a, step, C)):
            trial = np.clip(a + t * step, 0, C)
            trial_value = value(trial)
            if trial_value > current:
                break
        else:
            trial = _projected_gradient_step(H, v, a, gradient, C)
            trial_value = value(trial)
            if not trial_value > current:
                return a
            t = 0.0  # not a Newton step
        newton_point = a[free] + step[free]
        a, current = trial, trial_value
        if t == 1.0 and np.all((newton_point > 0) & (newton_point < C)):
            return a  # the unconstrained maximizer on this free set lies in the box
    return a


def _longest_feasible(a, step, C) -> float:
    """The longest ``t <= 1`` with ``a + t step`` in the box. Along the step the objective
    rises up to ``t = 1`` at least, so this is the fallback when the projected arc does
    not rise: on a singular free block the step is long and clipping it bends it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(step > 0, (C - a) / step, np.where(step < 0, -a / step, np.inf))
    return float(min(1.0, room.min()))


def _projected_gradient_step(H, v, a, gradient, C) -> np.ndarray:
    """A step along the projected-gradient arc ``clip(a + t d)``, from the exact maximizer
    along ``d`` halving until the objective rises: for small ``t`` it always does where
    the point is not optimal, which a Newton step on a singular free block may not."""
    d = _projected_gradient(a, gradient, C)
    if not np.any(d):
        return a
    curvature = float(d @ (H @ d))  # none: the objective rises until a bound stops it
    start = float(d @ gradient) / curvature if curvature > 0 else C / np.abs(d).max()
    current = v @ a - a @ (H @ a) / 2
    for t in start * 0.5 ** np.arange(60):
        trial = np.clip(a + t * d, 0, C)
        if v @ trial - trial @ (H @ trial) / 2 > current:
            return trial
    return a


def _solve_psd(A, b, ridge):
    """``(A + ridge I)^-1 b`` by Cholesky, with a larger ridge if ``A`` is too singular."""
    for scale in (1.0, 1e3, 1e6):
        try:
            return cho_solve(cho_factor(A + scale * ridge * np.eye(len(b))), b)
        except np.linalg.LinAlgError:
            continue
    return np.linalg.lstsq(A, b, rcond=None)[0]


def _greedy_coordinate_ascent(H, v, C, a, iterations, tol):
    """Exact coordinate maximizations, each on the coordinate whose step gains most,
    until no step gains or the projected gradient is below ``tol`` (checked every
    ``n`` steps). ``H`` is symmetric, so its rows serve as columns."""
    a = a.copy()
    diagonal = np.maximum(np.diag(H), 1e-300)
    gradient = v - H @ a
    for step_count in range(iterations):
        steps = np.clip(a + gradient / diagonal, 0, C) - a
        gains = steps * gradient - 0.5 * diagonal * steps**2
        i = int(np.argmax(gains))
        if gains[i] <= 0:
            break
        a[i] += steps[i]
        gradient -= steps[i] * H[i]
        if step_count % a.size == 0 and np.abs(_projected_gradient(a, gradient, C)).max() <= tol:
            break
    return np.clip(a, 0, C)


def eta_prior_qp(H, y, g, C, tol=1e-10, max_eta=1e8, max_steps=200):
    """Solve the eta-prior SVM's dual by a root search over ``eta``.

    ``max 1^T a - a^T H a / 2`` over ``0 <= a <= C`` with ``sum_i a_i y_i g_i = 0``, by
    minimizing the convex ``D(eta)`` (module docstring). The root of
    ``phi(eta) = (y * g)^T a(eta)``, non-increasing and piecewise linear, is bracketed by
    doubling steps from ``eta = 0`` and found by regula falsi (Illinois), each
    :func:`box_qp` warm-started from the last. ``a`` is then the mix of the bracket's two
    solutions that meets the equality exactly (``a(eta)`` may jump at the root, where both
    are optimal). ``phi`` tends to ``C`` times the sum of the negative ``y_i g_i`` as
    ``eta -> inf`` and of the positive ones as ``eta -> -inf``, and is 0 from some finite
    ``eta`` on when all ``y_i g_i`` share a sign, so a root is always bracketed in exact
    arithmetic; ``max_eta`` is a safeguard.

    Parameters
    ----------
    H : ndarray of shape (n, n)
        ``diag(y) K diag(y)``.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    g : ndarray of shape (n,)
        The prior's scores ``w_r^T phi(x_i)``.
    C : float
        The box's upper end.
    tol : float, default=1e-10
        The tolerance of each box QP and of the root.
    max_eta : float, default=1e8
        The largest ``|eta|`` searched.
    max_steps : int, default=200
        Bracketing and root-finding steps at most.

    Returns
    -------
    a : ndarray of shape (n,)
        The dual solution.
    eta : float
        The root.
    converged : bool
        False when a box QP did not converge or ``|eta|`` would pass ``max_eta``.
    """
    yg = y * g
    state = {"a": None, "ok": True}

    def solve(eta):
        a, _, ok = box_qp(H, 1 - eta * yg, C, tol, a0=state["a"])
        state["a"], state["ok"] = a, state["ok"] and ok
        return a, float(yg @ a)

    small = tol * C * max(float(np.abs(yg).sum()), 1e-300)  # |phi| that counts as zero
    a, value = solve(0.0)
    if abs(value) <= small:
        return a, 0.0, state["ok"]
    step = 1.0 if value > 0 else -1.0  # phi > 0: D decreases, so eta* > 0
    near, far = (0.0, a, value), None
    while far is None:
        eta = near[0] + step
        if abs(eta) > max_eta:
            return a, eta, False
        a, value = solve(eta)
        if abs(value) <= small:
            return a, eta, state["ok"]
        if np.sign(value) == np.sign(near[2]):
            near, step = (eta, a, value), 2 * step
        else:
            far = (eta, a, value)
    return _regula_falsi(solve, yg, near, far, small, max_steps) + (state["ok"],)


def _regula_falsi(solve, yg, left, right, small, max_steps):
    """Shrink the bracket, two ``(eta, a, phi)`` of opposite signs, to the root of
    ``phi``; returns ``(a, eta)``. The Illinois rule halves a stale end's ``phi`` (a
    weight only: the final mix uses the true ``phi = yg^T a``)."""
    side = 0
    for _ in range(max_steps):
        (e0, a0, f0), (e1, a1, f1) = left, right
        eta = (e0 * f1 - e1 * f0) / (f1 - f0)
        if abs(e1 - e0) <= 1e-14 * max(1.0, abs(eta)) or not min(e0, e1) < eta < max(e0, e1):
            break
        a, value = solve(eta)
        if abs(value) <= small:
            return a, eta
        if np.sign(value) == np.sign(f0):
            left = (eta, a, value)
            right = (e1, a1, f1 / 2) if side == -1 else right  # Illinois: no stagnation
            side = -1
        else:
            right = (eta, a, value)
            left = (e0, a0, f0 / 2) if side == 1 else left
            side = 1
    (e0, a0, _), (e1, a1, _) = left, right
    f0, f1 = float(yg @ a0), float(yg @ a1)
    theta = f1 / (f1 - f0)  # theta phi(a0) + (1 - theta) phi(a1) = 0
    return theta * a0 + (1 - theta) * a1, theta * e0 + (1 - theta) * e1


def prior_svm_program(L, y, g, eta, C):
    """The dual (26) of the prior SVM as a CVXPY problem.

    Parameters
    ----------
    L : ndarray of shape (n, r)
        A factor of the kernel matrix (:func:`kernel_factor`).
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    g : ndarray of shape (n,)
        The prior's scores.
    eta : float
        The prior's scaling.
    C : float
        The box's upper end.

    Returns
    -------
    problem : cvxpy.Problem
        The dual.
    a : cvxpy.Variable
        Its variable.
    """
    a = cp.Variable(y.size, name="alpha")
    v = 1 - eta * y * g
    objective = v @ a - cp.sum_squares(L.T @ cp.multiply(y, a)) / 2
    return cp.Problem(cp.Maximize(objective), [a >= 0, a <= C]), a


def eta_prior_svm_program(L, y, g, C):
    """The eta-prior SVM's dual as a CVXPY problem.

    Parameters
    ----------
    L : ndarray of shape (n, r)
        A factor of the kernel matrix.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    g : ndarray of shape (n,)
        The prior's scores.
    C : float
        The box's upper end.

    Returns
    -------
    problem : cvxpy.Problem
        The dual.
    a : cvxpy.Variable
        Its variable.
    balance : cvxpy.Constraint
        The equality ``sum_i a_i y_i g_i = 0``, whose dual value is ``eta``.
    """
    a = cp.Variable(y.size, name="alpha")
    balance = cp.multiply(y, g) @ a == 0
    objective = cp.sum(a) - cp.sum_squares(L.T @ cp.multiply(y, a)) / 2
    return cp.Problem(cp.Maximize(objective), [a >= 0, a <= C, balance]), a, balance


def recover_eta(a, y, K, g, C) -> float:
    """Recover ``eta`` from the free support vectors, as Parrado-Hernandez et al. do.

    The median over the free support vectors with ``|g_j|`` not negligible.

    Parameters
    ----------
    a : ndarray of shape (n,)
        The dual solution.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    K : ndarray of shape (n, n)
        The kernel matrix.
    g : ndarray of shape (n,)
        The prior's scores.
    C : float
        The box's upper end.

    Returns
    -------
    float
        ``eta``.

    Raises
    ------
    ValueError
        When no support vector is free.
    """
    free = (a > FREE * C) & (a < (1 - FREE) * C) & (np.abs(g) > 1e-8)
    if not np.any(free):
        raise ValueError("no free support vector: eta is not determined (try another C)")
    s = K[free] @ (a * y)
    return float(np.median((y[free] - s) / g[free]))
