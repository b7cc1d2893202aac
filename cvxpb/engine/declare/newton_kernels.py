"""Newton's method on the simplex, compiled (:mod:`cvxpb.numerics.compiled`).

The one implementation of :func:`cvxpb.engine.declare.newton.minimize_quadratic_kl`,
whose module text derives each step: the Newton direction in the scaled variable (one
Cholesky factor, or the bordered system), the backtracking step that divides no
coordinate by more than ``1 / SHRINK``, the polishing full steps, and the mass transfer
towards the vertex that wants it most. Every function returns a flag ``ok`` where the
numpy code returned None.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.numerics.compiled import kernel
from cvxpb.numerics.tolerances import EPS

MAX_ITERATIONS = 200
ARMIJO = 0.25
SHRINK = 0.01  # a step divides no q_i by more than 1 / SHRINK
POLISH = 3  # full steps taken where the objective is flat to its last bits
TRANSFER_REACH = 700.0  # the log-odds of a mass transfer's step, at most (exp(-700) > 0)
TRANSFER_BISECTIONS = 80  # halvings of its range [-700, 700]: the log-odds within 1e-21
TRANSFER_VISIBLE = math.log(1e-8)  # a coordinate is moved to only where it wants this mass
TRANSFER_GROWTH = math.log(100.0)  # ... and a hundred times what it holds


@kernel
def rel_entr(x, y):
    """``x log(x / y)``, 0 at ``x = 0``, ``inf`` where ``x > 0 = y`` (scipy's)."""
    if x > 0 and y > 0:
        return x * math.log(x / y)
    if x == 0 and y >= 0:
        return 0.0
    if x != x or y != y:
        return math.nan
    return math.inf


@kernel
def expit(z):
    """``1 / (1 + exp(-z))``, without overflow."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@kernel
def objective(S, b, mu, prior, x):
    """``1/2 x @ S @ x + b @ x + mu KL(x || prior)``."""
    entropy = 0.0
    for i in range(x.size):
        entropy += rel_entr(x[i], prior[i])
    return 0.5 * (x @ (S @ x)) + b @ x + mu * entropy


@kernel
def gradient(S, b, mu, prior, q):
    """The objective's gradient at ``q`` (on its support)."""
    g = S @ q + b
    for i in range(q.size):
        if q[i] > 0:
            g[i] += mu * (math.log(q[i] / prior[i]) + 1)
    return g


@kernel
def constrained_solve(A, r, c):
    """``(y, ok)``: ``A y + lam c = r`` and ``c @ y = 0``, by one Cholesky factor of
    ``A`` where it is positive definite, else by the bordered system."""
    size = r.size
    try:
        factor = np.linalg.cholesky(A)
        both = np.empty((size, 2))
        both[:, 0] = r
        both[:, 1] = c
        solved = triangular_solves(factor, both)
        u, v = solved[:, 0].copy(), solved[:, 1].copy()
        if c @ v > 0:
            return u - (c @ u) / (c @ v) * v, True
    except Exception:  # not positive definite
        pass
    system = np.zeros((size + 1, size + 1))
    system[:size, :size] = A
    system[:size, size] = c
    system[size, :size] = c
    right = np.zeros(size + 1)
    right[:size] = r
    try:
        return np.linalg.solve(system, right)[:size].copy(), True
    except Exception:  # singular
        return np.zeros(size), False


@kernel
def triangular_solves(factor, right):
    """``L L^T x = right`` for each column, ``L`` lower triangular."""
    size, columns = right.shape
    x = right.copy()
    for k in range(columns):
        for i in range(size):
            total = x[i, k]
            for j in range(i):
                total -= factor[i, j] * x[j, k]
            x[i, k] = total / factor[i, i]
        for i in range(size - 1, -1, -1):
            total = x[i, k]
            for j in range(i + 1, size):
                total -= factor[j, i] * x[j, k]
            x[i, k] = total / factor[i, i]
    return x


@kernel
def direction(S, mu, q, g):
    """``(d, ok)``: the Newton step on the support of ``q``, in the scaled variable."""
    on = np.flatnonzero(q > 0)
    n = on.size
    root = np.sqrt(q[on])
    scaled = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            scaled[i, j] = S[on[i], on[j]] * (root[i] * root[j])
        scaled[i, i] += mu
    y, ok = constrained_solve(scaled, -root * g[on], root)
    d = np.zeros(q.size)
    if not ok:
        return d, False
    d[on] = root * y
    d -= q * d.sum()
    return d, bool(np.all(np.isfinite(d)))


@kernel
def moved(q, d):
    """``q + d``, with no ``q_i`` divided by more than ``1 / SHRINK``, renormalized."""
    trial = np.maximum(q + d, SHRINK * q)
    return trial / trial.sum()


@kernel
def newton_step(S, b, mu, prior, q, value, slope, d, polish):
    """``(q, value, polished, evaluations, ok)`` after a backtracking step along ``d``
    (``polished`` 1 where it was a polishing full step); ``ok`` False where the step
    brings nothing."""
    evaluations = 0
    if not slope < -1e-17 * (abs(value) + mu):  # the Newton decrement is spent
        return q, value, 0, evaluations, False
    step, have_full = 1.0, False
    full, full_value = q, value
    rounding = 8 * EPS * (abs(value) + mu)  # a decrease below this cannot be seen
    while step >= 1e-12 and -ARMIJO * step * slope > rounding:
        trial = moved(q, step * d)
        trial_value = objective(S, b, mu, prior, trial)
        evaluations += 1
        if not have_full:
            full, full_value, have_full = trial, trial_value, True
        if trial_value <= value + ARMIJO * step * slope:
            return trial, trial_value, 0, evaluations, bool(np.isfinite(trial_value))
        step /= 2
    if not have_full:  # no trial was taken: the full step is the one to polish with
        full = moved(q, d)
        full_value = objective(S, b, mu, prior, full)
        evaluations += 1
    if polish == 0 or not full_value <= value + 8 * EPS * abs(value):
        return q, value, 0, evaluations, False
    return full, full_value, 1, evaluations, bool(np.isfinite(full_value))


@kernel
def transfer_slope(Sq, Si, b, mu, prior, q, i, z):
    """The objective's slope along the transfer to vertex ``i`` at log-odds ``z``."""
    kept, taken = expit(-z), expit(z)
    slope = 0.0
    for k in range(q.size):
        share = kept * q[k] + (taken if k == i else 0.0)
        if share > 0:
            g = kept * Sq[k] + taken * Si[k] + b[k] + mu * (math.log(share / prior[k]) + 1)
            slope += g * ((1.0 if k == i else 0.0) - q[k])
    return slope


@kernel
def transfer(S, b, mu, prior, q, value, g):
    """``(q, value, evaluations, ok)`` after moving mass toward the vertex that wants the
    most times what it holds (among those that want a visible mass), with an exact line
    search in the log-odds of the step. The vertex that wants the most mass is
    usually one that holds it already: a voter the prior all but excludes can want a
    thousandth of the mass while it holds ``1e-78`` of it."""
    wanted = np.log(q) + (g @ q - g) / mu
    growth = wanted - np.log(q)
    for k in range(q.size):
        if prior[k] == 0 or not wanted[k] > TRANSFER_VISIBLE:
            growth[k] = -math.inf
    i = int(np.argmax(growth))
    if not growth[i] > TRANSFER_GROWTH:
        return q, value, 0, False
    Sq, Si = S @ q, np.ascontiguousarray(S[:, i])
    lo, hi = -TRANSFER_REACH, TRANSFER_REACH
    for _ in range(TRANSFER_BISECTIONS):
        mid = (lo + hi) / 2
        if transfer_slope(Sq, Si, b, mu, prior, q, i, mid) < 0:
            lo = mid
        else:
            hi = mid
    shifted = expit(-lo) * q
    shifted[i] += expit(lo)
    shifted /= shifted.sum()
    shifted_value = objective(S, b, mu, prior, shifted)
    if not shifted_value < value - 8 * EPS * (abs(value) + mu):
        return q, value, 1, False
    return shifted, shifted_value, 1, True


@kernel
def minimize(S, b, mu, prior, start):
    """``(q, ok, evaluations)``: Newton's method from ``start``; ``ok`` False where it
    fails (a non-finite value, a singular system); ``evaluations`` counts the
    objective's."""
    q = start.copy()
    for i in range(q.size):
        if prior[i] == 0:
            q[i] = 0.0
    if not np.any(q > 0):
        return q, False, 0
    q /= q.sum()
    value, polish, evaluations = objective(S, b, mu, prior, q), POLISH, 1
    for _ in range(MAX_ITERATIONS):
        g = gradient(S, b, mu, prior, q)
        d, ok = direction(S, mu, q, g)
        if not ok:
            return q, False, evaluations
        trial, trial_value, polished, count, ok = newton_step(
            S, b, mu, prior, q, value, g @ d, d, polish
        )
        evaluations += count
        if not ok:  # Newton's method is spent: a mass transfer may not be
            trial, trial_value, count, ok = transfer(S, b, mu, prior, q, value, g)
            evaluations += count
            if not ok:
                break
            polish = POLISH
        else:
            polish -= polished
        q, value = trial, trial_value
    return q, bool(np.all(np.isfinite(q))), evaluations
