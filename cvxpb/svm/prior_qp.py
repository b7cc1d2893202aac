"""The quadratic programs of seed 001's prior SVM (Section 4.1, Appendix A) and
eta-prior SVM (Section 4.2.1).

Both work in the augmented feature space ``phi~(x) = (phi(x), 1)`` of
:mod:`cvxpb.svm.gaussian` (kernel ``k(x, z) + 1``), where the SVMs are homogeneous as
the seed writes them. With ``H = Y K~ Y`` on the ``m - r`` posterior examples and
``g_i = w_r^T phi~(x_i)`` for the unit prior direction ``w_r``:

* prior SVM, dual (26): ``max v^T a - a^T H a / 2``, ``0 <= a <= C``, with
  ``v = 1 - eta y * g``; then ``w = sum_i a_i y_i phi~(x_i) + eta w_r`` (eq. 27);
* eta-prior SVM: ``max 1^T a - a^T H a / 2``, ``0 <= a <= C``, ``sum_i a_i y_i g_i = 0``;
  ``w = sum_i a_i y_i phi~(x_i) + eta w_r`` with ``eta`` from a free support vector
  (``0 < a_j < C``): ``y_j (sum_i a_i y_i k~(x_i, x_j) + eta g_j) = 1``.

The CVXPY forms use a factor ``K~ = L L^T`` (``a^T H a = ||L^T (y * a)||^2``), so no
dense ``m x m`` quadratic form is compiled. :func:`box_qp` is the dedicated solver of
the box QP: coordinate sweeps to find the active bounds and a Newton step on the free
variables, to a projected-gradient tolerance.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

FREE = 1e-8  # a multiplier this far inside (0, C), relative to C, is free


def kernel_factor(K, jitter=1e-10) -> np.ndarray:
    """``L`` with ``L L^T = K`` (eigenvalues below zero, from rounding, clipped)."""
    values, vectors = np.linalg.eigh((K + K.T) / 2)
    keep = values > jitter * max(values.max(), 1e-300)
    return vectors[:, keep] * np.sqrt(values[keep])


def _projected_gradient(a, gradient, C):
    projected = np.where(a <= 0, np.maximum(gradient, 0), gradient)
    return np.where(a >= C, np.minimum(projected, 0), projected)


def box_qp(H, v, C, tol=1e-10, max_rounds=2_000, sweeps=3, a0=None):
    """``max v^T a - a^T H a / 2`` over ``0 <= a <= C``: coordinate sweeps to find the
    active bounds, then a Newton step on the free variables.

    Each round makes ``sweeps`` cyclic passes of exact coordinate maximizations (each
    raises the objective), then solves ``H_FF a_F = v_F - H_FB a_B`` on the variables
    strictly inside the box; the Newton point is taken when it stays inside the box and
    raises the objective, which ends the search once the active set is right. Stops
    when the projected gradient is below ``tol`` relative to the size of its terms,
    ``max(1, |v|, |H a|)``. Returns ``(a, rounds, converged)``.
    """
    n = v.size
    a = np.zeros(n) if a0 is None else np.clip(np.asarray(a0, dtype=float), 0, C)
    scale = max(1.0, float(np.abs(v).max()))
    ridge = 1e-13 * max(float(np.abs(np.diag(H)).max()), 1.0)

    def value(x):
        return float(v @ x - x @ (H @ x) / 2)

    for rounds in range(1, max_rounds + 1):
        for _ in range(sweeps):
            a = _coordinate_sweep(H, v, C, a)
        a = _newton_to_the_box(H, v, C, a, ridge)
        Ha = H @ a
        size = max(scale, float(np.abs(Ha).max()))  # the gradient's terms, for rounding
        if np.abs(_projected_gradient(a, v - Ha, C)).max() <= tol * size:
            return a, rounds, True
    return a, max_rounds, False


def _newton_to_the_box(H, v, C, a, ridge):
    """Newton steps on the variables strictly inside the box, each cut at the first
    bound it reaches (that variable then stays at it), until one lands inside: the
    maximizer over the current free set (a primal active-set phase)."""
    for _ in range(a.size):
        free = (a > 0) & (a < C)
        if not np.any(free):
            return a
        rhs = v[free] - H[np.ix_(free, ~free)] @ a[~free]
        target = np.linalg.solve(H[np.ix_(free, free)] + ridge * np.eye(free.sum()), rhs)
        d = target - a[free]
        with np.errstate(divide="ignore", invalid="ignore"):
            limits = np.where(d > 0, (C - a[free]) / d, np.where(d < 0, -a[free] / d, np.inf))
        t = min(1.0, float(limits.min()))
        moved = a[free] + t * d
        if t < 1.0:
            blocking = int(np.argmin(limits))
            moved[blocking] = C if d[blocking] > 0 else 0.0
        a = a.copy()
        a[free] = np.clip(moved, 0, C)
        if t >= 1.0:
            return a
    return a


def _coordinate_sweep(H, v, C, a):
    """One cyclic pass of exact coordinate maximizations."""
    Ha = H @ a
    diagonal = np.maximum(np.diag(H), 1e-300)
    for i in range(a.size):
        new = min(max(a[i] + (v[i] - Ha[i]) / diagonal[i], 0.0), C)
        if new != a[i]:
            Ha += (new - a[i]) * H[:, i]
            a[i] = new
    return a


def prior_svm_program(L, y, g, eta, C):
    """The dual (26) of the prior SVM as a CVXPY problem and its variable ``a``."""
    a = cp.Variable(y.size, name="alpha")
    v = 1 - eta * y * g
    objective = v @ a - cp.sum_squares(L.T @ cp.multiply(y, a)) / 2
    return cp.Problem(cp.Maximize(objective), [a >= 0, a <= C]), a


def eta_prior_svm_program(L, y, g, C):
    """The eta-prior SVM's dual as a CVXPY problem, its variable and the equality."""
    a = cp.Variable(y.size, name="alpha")
    balance = cp.multiply(y, g) @ a == 0
    objective = cp.sum(a) - cp.sum_squares(L.T @ cp.multiply(y, a)) / 2
    return cp.Problem(cp.Maximize(objective), [a >= 0, a <= C, balance]), a, balance


def recover_eta(a, y, K, g, C) -> float:
    """``eta`` from the free support vectors, as the seed does (the median over them,
    among those with ``|g_j|`` not negligible)."""
    free = (a > FREE * C) & (a < (1 - FREE) * C) & (np.abs(g) > 1e-8)
    if not np.any(free):
        raise ValueError("no free support vector: eta is not determined (try another C)")
    s = K[free] @ (a * y)
    return float(np.median((y[free] - s) / g[free]))
