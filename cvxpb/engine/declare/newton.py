"""Newton's method for ``min 1/2 q @ S @ q + b @ q + mu KL(q || p)`` on the simplex.

This is the scalarized program of every declared bound whose terms are quadratic
(Gibbs risk, tandem risk, disagreement, or a pairwise matrix's convex minorant) and
whose divergence is KL: the tandem (TND) bound, the C-bound and DIS. The entropy keeps
the minimizer inside the simplex, so Newton's method with the constraint ``sum q = 1``
and a step that stays positive converges quadratically, in about a millisecond at
``H = 100`` where a conic solver takes tens.

The Newton step ``d`` minimizes ``g @ d + 1/2 d @ (S + mu diag(1/q)) @ d`` subject to
``sum d = 0``. In the scaled variable ``d = diag(sqrt q) y`` its matrix is
``diag(sqrt q) S diag(sqrt q) + mu I``, well conditioned however small some ``q_i``
are (a ``q_i`` that has underflowed to zero stays there). A step that would take some
``q_i`` to or below zero divides it by at most ``1 / SHRINK`` instead, and the point
is renormalized, with a backtracking (Armijo) search along that path: one step size
for all coordinates would be cut to the smallest ``q_i``'s reach, which is what stalls
a plain damped Newton method at small ``mu``, where the minimizer has coordinates
like ``exp(-1/mu)``. Near the minimum the decrease falls below the objective's
rounding while the stationarity condition, which the certificate amplifies by
``1 / mu``, is not yet met to the last bit: there ``POLISH`` full steps are taken
as long as the objective does not rise beyond its rounding.

Nothing here is trusted: the caller certifies the minimum by weak duality at
whatever ``q`` this returns (:mod:`cvxpb.engine.declare.pareto`).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.special import expit, rel_entr

from cvxpb.numerics.tolerances import EPS

MAX_ITERATIONS = 200
ARMIJO = 0.25
SHRINK = 0.01  # a step divides no q_i by more than 1 / SHRINK
POLISH = 3  # full steps taken where the objective is flat to its last bits
TRANSFER_REACH = 700.0  # the log-odds of a mass transfer's step, at most (exp(-700) > 0)
TRANSFER_BISECTIONS = 80  # halvings of its range [-700, 700]: the log-odds within 1e-21
TRANSFER_VISIBLE = np.log(1e-8)  # a coordinate is moved to only where it wants this mass
TRANSFER_GROWTH = np.log(100.0)  # ... and a hundred times what it holds


def minimize_quadratic_kl(S, b, mu, prior, start):
    """Minimize ``1/2 q @ S @ q + b @ q + mu KL(q || prior)`` over the simplex by Newton's method.

    Parameters
    ----------
    S : ndarray of shape (H, H)
        Positive semidefinite on the plane ``sum q = 0``.
    b : ndarray of shape (H,)
        The linear part.
    mu : float
        The weight of KL (positive).
    prior : ndarray of shape (H,)
        The prior of KL; its zeros stay zeros.
    start : array_like of shape (H,)
        Where the iteration starts.

    Returns
    -------
    ndarray of shape (H,) or None
        A posterior near the minimizer, or None if the iteration fails (a non-finite value
        or a singular system). The caller certifies it; nothing here is trusted.
    """
    q = np.asarray(start, dtype=float).copy()
    q[prior == 0] = 0.0
    if not np.any(q > 0):
        return None
    q /= q.sum()

    def objective(x):
        return 0.5 * x @ S @ x + b @ x + mu * float(np.sum(rel_entr(x, prior)))

    value, polish = objective(q), POLISH
    for _ in range(MAX_ITERATIONS):
        gradient = _gradient(S, b, mu, prior, q)
        d = _direction(S, mu, q, gradient)
        if d is None:
            return None
        stepped = _newton_step(objective, q, value, gradient @ d, d, mu, polish)
        if stepped is None:  # Newton's method is spent: a mass transfer may not be
            stepped = _transfer(S, b, mu, prior, q, value, gradient, objective)
            if stepped is None:
                break
            polish = POLISH
        else:
            polish -= stepped[2]
        q, value = stepped[0], stepped[1]
    return q if np.all(np.isfinite(q)) else None


def _newton_step(objective, q, value, slope, d, mu, polish):
    """``(q, value, polished)`` after a backtracking step along ``d`` (``polished`` 1
    where it was a polishing full step), or None where the step brings nothing."""
    if not slope < -1e-17 * (abs(value) + mu):  # the Newton decrement is spent
        return None
    step, full = 1.0, None
    rounding = 8 * EPS * (abs(value) + mu)  # a decrease below this cannot be seen
    while step >= 1e-12 and -ARMIJO * step * slope > rounding:
        trial = _moved(q, step * d)
        trial_value = objective(trial)
        full = (trial, trial_value) if full is None else full
        if trial_value <= value + ARMIJO * step * slope:
            return (trial, trial_value, 0) if np.isfinite(trial_value) else None
        step /= 2
    # no decrease the objective can show: a few full steps polish the point
    if full is None:  # no trial was taken: the full step is the one to polish with
        trial = _moved(q, d)
        full = (trial, objective(trial))
    trial, trial_value = full
    if polish == 0 or not trial_value <= value + 8 * EPS * abs(value):
        return None
    return (trial, trial_value, 1) if np.isfinite(trial_value) else None


def _transfer(S, b, mu, prior, q, value, gradient, objective):
    """``(q, value, 0)`` after moving mass toward the vertex that wants it most (a
    Frank-Wolfe step, with an exact line search), or None where that brings no visible
    decrease. Newton's step moves a coordinate ``q_i`` by about ``q_i g_i / mu``: one
    whose prior weight is 1e-200 and whose voter is the best would take hundreds of
    steps to grow, and the decrement, which scales with ``q_i``, says the point is
    stationary long before; this step moves it at once."""
    # the log of the mass each coordinate wants, q_i exp((g @ q - g_i) / mu) (the
    # mirror step): a transfer is worth its line search only where that mass is visible
    # and far above what the coordinate holds
    with np.errstate(divide="ignore"):
        wanted = np.log(q) + (gradient @ q - gradient) / mu
    wanted[prior == 0] = -np.inf
    i = int(np.argmax(wanted))
    if not (wanted[i] > TRANSFER_VISIBLE and wanted[i] - np.log(q[i]) > TRANSFER_GROWTH):
        return None
    Sq, Si = S @ q, S[:, i]
    direction = -q.copy()
    direction[i] += 1.0

    def at(z):  # (1 - t) q + t e_i with t = expit(z), accurate for t near 0 and 1
        moved = expit(-z) * q
        moved[i] += expit(z)
        return moved

    def slope(z):
        moved, kept = at(z), expit(-z)
        g = kept * Sq + expit(z) * Si + b
        on = moved > 0
        g[on] += mu * (np.log(moved[on] / prior[on]) + 1)
        return g[on] @ direction[on]

    lo, hi = -TRANSFER_REACH, TRANSFER_REACH  # the log-odds of t
    for _ in range(TRANSFER_BISECTIONS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    moved = at(lo)
    moved /= moved.sum()
    moved_value = objective(moved)
    if not moved_value < value - 8 * EPS * (abs(value) + mu):
        return None
    return moved, moved_value, 0


def _moved(q, d):
    """``q + d``, with no ``q_i`` divided by more than ``1 / SHRINK``, renormalized."""
    trial = np.maximum(q + d, SHRINK * q)
    return trial / trial.sum()


def _gradient(S, b, mu, prior, q):
    on = q > 0
    g = S @ q + b
    g[on] += mu * (np.log(q[on] / prior[on]) + 1)
    return g


def _direction(S, mu, q, gradient):
    """The Newton step on the support of ``q``, in the scaled variable, from the
    objective's ``gradient`` at ``q``."""
    on = np.flatnonzero(q > 0)
    root = np.sqrt(q[on])
    g = gradient[on]
    part = S if on.size == q.size else S[np.ix_(on, on)]  # no copy on a full support
    scaled = part * (root[:, None] * root)  # the outer product, as np.outer forms it
    scaled.flat[:: on.size + 1] += mu  # the diagonal
    y = _constrained_solve(scaled, -root * g, root)
    if y is None:
        return None
    d = np.zeros_like(q)
    d[on] = root * y
    d -= q * d.sum()  # keep sum d = 0, moving each q_i in proportion to its size
    return d if np.all(np.isfinite(d)) else None


def _constrained_solve(A, r, c):
    """``y`` with ``A y + lam c = r`` and ``c @ y = 0``: by one Cholesky factor of ``A``
    (``y = u - (c @ u / c @ v) v`` with ``A u = r``, ``A v = c``) where ``A`` is positive
    definite, else by the bordered system; ``None`` if that is singular."""
    factor, info = dpotrf(A, lower=1, clean=0)  # LAPACK itself: a third less overhead
    if info == 0:
        solved, info = dpotrs(factor, np.column_stack([r, c]), lower=1)
        u, v = solved.T
        if info == 0 and c @ v > 0:
            return u - (c @ u) / (c @ v) * v
    size = A.shape[0]
    system = np.zeros((size + 1, size + 1))
    system[:size, :size] = A
    system[:size, size] = system[size, :size] = c
    try:
        return np.linalg.solve(system, np.append(r, 0.0))[:size]
    except np.linalg.LinAlgError:
        return None
