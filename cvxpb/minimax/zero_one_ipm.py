"""The working-set program of the minimax SVM by an interior-point method.

:mod:`cvxpb.minimax.zero_one` states eq. (21) for the 0-1 loss on a working set ``W`` of
(sample, class) pairs. With ``B_j`` the penalized columns of row ``A_j``,
``z~_ij = x_i . A_j`` (0 for the reference class) and an epigraph ``r_j >= ||B_j||``::

    min  (1/n) sum_i nu_i - <own, A> + sum_j eps_j r_j
    s.t. g1_ij = s_ij - z~_ij + nu_i >= 0,  g2_ij = s_ij >= 0  ((i, j) in W),
         g3_i = 1 - sum_j s_ij >= 0,  (r_j, B_j) in the second-order cone.

The linear constraints are taken primal-dual, by Mehrotra's predictor-corrector. The
cones are taken by their barrier ``-log(r_j^2 - ||B_j||^2)``, weighted by the current
complementarity ``mu`` (never below ``FLOOR``); after each step every ``r_j`` is set to
the barrier's minimizer given ``B_j``, which keeps the cones' slacks where the barrier
puts them. Each step stops short of the boundary and is backtracked on the barrier merit
function.

A conic solver spends its time on a sparse factorization whose fill is a dense block
over ``A`` and each sample's threshold; here the Newton system is reduced by hand. Per
sample, ``nu_i`` and the ``s_ij`` form a ``(T + 2)``-square block ``H_i``, and
eliminating them leaves the ``(T d + T)``-square Schur complement::

    S = sum_i (diag(w_i) - E_i^T H_i^-1 E_i) (x) x_i x_i^T + mu (the cones' Hessians),

built from one ``d``-square product per pair of classes over the samples holding both,
and one Cholesky factorization shared by the predictor and the corrector.

Nothing here is a certificate. The caller's ``closed(A, p)`` decides when to stop, and
:mod:`cvxpb.minimax.zero_one` proves its lower bound from ``p``, ``n`` times the
multipliers of ``g1`` (:mod:`cvxpb.minimax.zero_one_dual`), and recomputes the objective
at ``A`` exactly, whatever this method returned. Where it stalls (``None``) the working
set goes to a conic solver.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from cvxpb.threads import one_blas_thread

MAX_ITER = 80
LARGEST = 2500  # rows of the dense Schur complement, T (d + 1), beyond which Clarabel
# takes the program: not measured beyond (a factor of 2500 rows is 5 Gflop an iteration);
# at 2259 rows (1200 samples, 10 classes, 250 features) a fit took 41 s, Clarabel's 565 s
CHECK = 1e-9  # complementarity, relative to max(1, |f|), from which `closed` is asked
FLOOR = 1e-11  # least barrier weight on the cones, relative to max(1, |f|): their slacks
# r^2 - ||B||^2 (differences, rounded relative to r^2) stay far above rounding
STEP = 0.99  # fraction of the way to the linear constraints' boundary
SHRINK = 0.1  # least fraction of a cone's slack a step keeps
ARMIJO = 1e-4  # sufficient decrease of the merit function along a step
RIDGE = 1e-13  # relative shift of the Schur complement where rounding makes it indefinite


def applicable(norm, eps, groups, squared, T, d) -> bool:
    """Whether the method takes the program (l2 rows, positive weights, a small Schur).

    Parameters
    ----------
    norm : str or float
        The moment norm.
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists or None
        The feature groups.
    squared : bool
        Theorem 5's squared penalty.
    T : int
        The rows of ``A``.
    d : int
        The columns of ``A``.

    Returns
    -------
    bool
        True for the row-wise ``"l2"`` norm, not squared, without groups, with every
        weight positive (a zero weight leaves a row's cone without a price) and
        ``T (d + 1) <= LARGEST`` (the Schur complement is dense).
    """
    weights = np.broadcast_to(np.asarray(eps, dtype=float), (T,))
    penalty = norm == "l2" and groups is None and not squared and bool(np.all(weights > 0))
    return penalty and T * (d + 1) <= LARGEST


@one_blas_thread
def solve(Xa, labels, pairs, eps, free, T, closed):
    """The working-set program's ``A`` and the multipliers of ``g1``, or ``None``.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    labels : ndarray of shape (n_samples,)
        The classes' indices, the last (``T``) the reference.
    pairs : tuple of two ndarrays
        The working set's (sample, class) indices; each sample's own class among them.
    eps : float or array_like of shape (T,)
        The rows' penalty weights, all positive.
    free : sequence of int
        The columns left out of the penalty.
    T : int
        The rows of ``A``.
    closed : callable
        ``closed(A, p)``: whether the caller's certificate at ``A`` and the dual point
        ``p`` closes; asked once the complementarity is below ``CHECK``.

    Returns
    -------
    tuple or None
        ``(A, p, iterations)`` with ``p`` of shape (n_samples, T + 1), ``n`` times the
        multipliers of ``g1`` (0 off the working set); ``None`` where a factorization
        fails, a step finds no decrease, or ``MAX_ITER`` iterations do not close the
        certificate.
    """
    program = _Program(np.asarray(Xa, dtype=float), labels, pairs, eps, free, T)
    point = program.start()
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        try:
            for iteration in range(1, MAX_ITER + 1):
                point, gap = _step(program, point)
                A, p = point.primal[0], program.n * point.duals[0]
                small = gap <= CHECK * program.scale(point)
                if small and closed(A, p):
                    return A, p, iteration
        except (np.linalg.LinAlgError, FloatingPointError, _NoDecrease):
            return None
    return None


class _Program:
    """The data of one working-set program, its constraints and its objective."""

    def __init__(self, Xa, labels, pairs, eps, free, T):
        n, d = Xa.shape
        self.Xa, self.T, self.n, self.d = Xa, T, n, d
        self.mask = np.zeros((n, T + 1), dtype=bool)
        self.mask[pairs] = True
        self.eps = np.broadcast_to(np.asarray(eps, dtype=float), (T,)).copy()
        self.kept = np.array([j for j in range(d) if j not in set(free)], dtype=int)
        self.own = np.zeros((T, d))
        np.add.at(self.own, labels[labels < T], Xa[labels < T] / n)
        self.degree = 2 * int(self.mask.sum()) + n  # the linear constraints' count
        self.blocks = [
            (j, l, rows, Xa[rows])
            for j in range(T)
            for l in range(j, T)
            if (rows := np.flatnonzero(self.mask[:, j] & self.mask[:, l])).size
        ]

    def on_pairs(self, values):
        """Each array zeroed off the working set (the per-sample ones as they are)."""
        return tuple(np.where(self.mask, v, 0.0) if v.ndim == 2 else v for v in values)

    def slacks(self, primal):
        """``(g1, g2, g3)``, with 1 where a pair is not in the working set."""
        A, _, nu, s = primal
        Z = np.zeros((self.n, self.T + 1))
        Z[:, : self.T] = self.Xa @ A.T
        g1 = np.where(self.mask, s - Z + nu[:, None], 1.0)
        g2 = np.where(self.mask, s, 1.0)
        return g1, g2, 1.0 - s.sum(axis=1)

    def cones(self, primal):
        """``r_j^2 - ||B_j||^2``, positive inside the cones."""
        A, r = primal[:2]
        B = A[:, self.kept]
        return r * r - np.sum(B * B, axis=1)

    def cones_along(self, primal, step):
        """``(a, b)`` with ``cones(primal + t step) = a t^2 + b t + cones(primal)``."""
        A, r = primal[:2]
        B, dB, dr = A[:, self.kept], step[0][:, self.kept], step[1]
        return dr * dr - np.sum(dB * dB, axis=1), 2 * (r * dr - np.sum(B * dB, axis=1))

    def objective(self, primal) -> float:
        """The objective (linear: at a step, its change along the step)."""
        A, r, nu, _ = primal
        return float(nu.sum() / self.n - np.sum(self.own * A) + self.eps @ r)

    def scale(self, point) -> float:
        return max(1.0, abs(self.objective(point.primal)))

    def start(self):
        """A strictly feasible point, every multiplier ``1 / g``."""
        mask = self.mask
        s = mask / (2.0 * mask.sum(axis=1, keepdims=True))
        nu = np.max(np.where(mask, -s, -np.inf), axis=1) + 1.0
        primal = (np.zeros((self.T, self.d)), np.ones(self.T), nu, s)
        slacks = self.slacks(primal)
        return _Point(primal, self.on_pairs(tuple(1.0 / g for g in slacks)))

    def centered(self, point, weight):
        """``point`` with each ``r_j`` the minimizer of ``eps_j r - weight log(r^2 -
        ||B_j||^2)``, ``(weight + sqrt(weight^2 + eps_j^2 ||B_j||^2)) / eps_j``: ``r``
        enters nothing else, so this lowers the merit function and leaves each cone's
        slack at ``2 weight r / eps_j``, not where a linearized step took it."""
        A, _, nu, s = point.primal
        B = A[:, self.kept]
        r = (weight + np.sqrt(weight**2 + self.eps**2 * np.sum(B * B, axis=1))) / self.eps
        return _Point((A, r, nu, s), point.duals)


class _Point:
    """The primal ``(A, r, nu, s)`` and the multipliers of ``(g1, g2, g3)``."""

    def __init__(self, primal, duals):
        self.primal, self.duals = primal, duals

    def moved(self, alpha, step, dual_step):
        primal = tuple(x + alpha * dx for x, dx in zip(self.primal, step, strict=True))
        duals = tuple(lam + alpha * dl for lam, dl in zip(self.duals, dual_step, strict=True))
        return _Point(primal, duals)


def _step(program, point):
    """One predictor-corrector step: the new point and ``sum g * lambda`` before it."""
    slacks = program.slacks(point.primal)
    products = sum(np.sum(g * lam) for g, lam in zip(slacks, point.duals, strict=True))
    mu = products / program.degree
    weight = max(mu, FLOOR * program.scale(point))  # the cones' barrier weight
    newton = _Newton(program, point, slacks, weight)
    zero = tuple(np.zeros_like(g) for g in slacks)
    _, change, dual_step = newton.direction(zero, 0.0)  # the predictor
    reach = min(1.0, _to_boundary(program, point, slacks, *newton.last))
    after = [
        np.sum((g + reach * dg) * (lam + reach * dl))
        for g, dg, lam, dl in zip(slacks, change, point.duals, dual_step, strict=True)
    ]
    target = min(1.0, (sum(after) / products) ** 3) * mu
    aims = (target - dg * dl for dg, dl in zip(change, dual_step, strict=True))
    targets = program.on_pairs(tuple(aims))
    step, change, dual_step = newton.direction(targets, weight)  # the corrector
    reach = min(1.0, STEP * _to_boundary(program, point, slacks, *newton.last))
    alpha = _backtrack(program, point, slacks, step, change, (target, weight), reach)
    return program.centered(point.moved(alpha, step, dual_step), weight), products


def _to_boundary(program, point, slacks, step, change, dual_step) -> float:
    """The largest step keeping every constraint and multiplier positive and each cone's
    slack above ``SHRINK`` of its value."""
    reach = np.inf
    for value, rate in zip(slacks + point.duals, change + dual_step, strict=True):
        falling = rate < 0
        if np.any(falling):
            reach = min(reach, float(np.min(-value[falling] / rate[falling])))
    a, b = program.cones_along(point.primal, step)
    c = (1 - SHRINK) * program.cones(point.primal)  # where the slack is SHRINK of itself
    return min(reach, float(np.min(_first_root(a, b, c))), _to_zero(point.primal[1], step[1]))


def _first_root(a, b, c):
    """The least positive root of ``a t^2 + b t + c`` (``c > 0``) per entry, inf where
    there is none (the quadratic formula in its stable form)."""
    disc = b * b - 4 * a * c
    real = disc >= 0
    half = -(b + np.copysign(np.sqrt(np.where(real, disc, 0.0)), b)) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        roots = np.stack([half / a, c / half])
    return np.where(real & np.isfinite(roots) & (roots > 0), roots, np.inf).min(axis=0)


def _to_zero(r, dr) -> float:
    """The step at which the first ``r_j`` reaches 0 (inf if none falls)."""
    falling = dr < 0
    return float(np.min(-r[falling] / dr[falling])) if np.any(falling) else np.inf


class _NoDecrease(ArithmeticError):
    """No step along the direction decreases the merit function."""


def _backtrack(program, point, slacks, step, change, weights, alpha) -> float:
    """The first of ``alpha, alpha/2, ...`` with sufficient decrease of the merit
    ``f - mu sum log g - weight sum log cone``, ``weights = (mu, weight)`` (``alpha``
    where the direction does not descend)."""
    mu, weight = weights
    ratios = program.on_pairs(tuple(dg / g for dg, g in zip(change, slacks, strict=True)))
    cones = program.cones(point.primal)
    slope = program.objective(step) - mu * sum(np.sum(q) for q in ratios)
    slope -= weight * np.sum(program.cones_along(point.primal, step)[1] / cones)
    if slope >= 0:
        return alpha
    before = program.objective(point.primal)
    for _ in range(40):
        moved = tuple(x + alpha * dx for x, dx in zip(point.primal, step, strict=True))
        barrier = mu * sum(np.sum(np.log1p(alpha * q)) for q in ratios)
        barrier += weight * np.sum(np.log(program.cones(moved) / cones))
        if program.objective(moved) - before - barrier <= ARMIJO * alpha * slope:
            return alpha
        alpha /= 2
    raise _NoDecrease


class _Newton:
    """The Newton system at one point, the cones' barrier weighted by ``weight``: reduced
    to the Schur complement on ``(A, r)`` and factored once."""

    def __init__(self, program, point, slacks, weight):
        self.program, self.point, self.slacks = program, point, slacks
        (g1, g2, g3), (l1, l2, l3) = slacks, point.duals
        T, n, mask = program.T, program.n, program.mask
        self.w = np.where(mask, l1 / g1, 0.0)  # lambda / g of g1
        size = T + 2  # nu_i and the s_ij of one sample
        H = np.zeros((n, size, size))
        H[:, 0, 0] = self.w.sum(axis=1)
        H[:, 0, 1:] = H[:, 1:, 0] = self.w
        H[:, 1:, 1:] = (l3 / g3)[:, None, None] * (mask[:, :, None] & mask[:, None, :])
        diagonal = np.arange(1, size)
        H[:, diagonal, diagonal] += self.w + np.where(mask, l2 / g2, 0.0) + ~mask
        E = np.zeros((n, size, T))  # each sample's coupling to its scores z~_ij = x_i . A_j
        E[:, 0, :] = -self.w[:, :T]
        E[:, 1 + np.arange(T), np.arange(T)] = -self.w[:, :T]
        self.H, self.Hinv_E = H, np.linalg.solve(H, E)
        A, r = point.primal[:2]
        self.B, self.r, self.cones = A[:, program.kept], r, program.cones(point.primal)
        self.factor = _cholesky(self._schur(weight))
        self.last = None

    def _schur(self, weight):
        """``sum_i (diag(w_i) - E_i^T H_i^-1 E_i) (x) x_i x_i^T`` and the cones' Hessians."""
        program, w, Hinv_E = self.program, self.w, self.Hinv_E
        T, d, kept = program.T, program.d, program.kept
        coupling = w[:, :T, None] * (Hinv_E[:, 0, None, :] + Hinv_E[:, 1 : T + 1, :])
        coupling[:, np.arange(T), np.arange(T)] += w[:, :T]
        data = np.zeros((T, d, T, d))
        for j, l, rows, X in program.blocks:
            data[j, :, l, :] = X.T @ (coupling[rows, j, l, None] * X)
            if j != l:
                data[l, :, j, :] = data[j, :, l, :].T
        S = np.zeros((T * d + T, T * d + T))
        S[: T * d, : T * d] = data.reshape(T * d, T * d)
        for j in range(T):  # weight times the Hessian of -log(r^2 - ||B||^2) in (r_j, B_j)
            q, b, rj = self.cones[j], self.B[j], self.r[j]
            at, corner = j * d + kept, T * d + j
            S[np.ix_(at, at)] += weight * (4 * np.outer(b, b) / q**2 + 2 * np.eye(kept.size) / q)
            S[corner, corner] += weight * (4 * rj * rj / q**2 - 2 / q)
            S[corner, at] = S[at, corner] = -weight * 4 * rj * b / q**2
        return S

    def direction(self, targets, pull):
        """The step toward ``g * lambda = targets`` with the cones' barrier gradient
        weighted by ``pull``: ``(dA, dr, dnu, ds)``, the linear constraints' changes and
        the multipliers'' (also kept as ``last``)."""
        program, w, (g1, g2, g3) = self.program, self.w, self.slacks
        T, n, mask, Xa, kept = program.T, program.n, program.mask, program.Xa, program.kept
        c1, c2 = (np.where(mask, t / g, 0.0) for t, g in zip(targets[:2], (g1, g2), strict=True))
        in_nu = c1.sum(axis=1) - 1.0 / n
        in_s = np.where(mask, c1 + c2 - (targets[2] / g3)[:, None], 0.0)
        rhs_y = np.concatenate([in_nu[:, None], in_s], axis=1)
        solved_y = np.linalg.solve(self.H, rhs_y[:, :, None])[:, :, 0]
        rhs_A = program.own - c1[:, :T].T @ Xa
        rhs_A[:, kept] -= pull * 2 * self.B / self.cones[:, None]
        rhs_A += (w[:, :T] * (solved_y[:, :1] + solved_y[:, 1 : T + 1])).T @ Xa
        rhs_r = -program.eps + pull * 2 * self.r / self.cones
        x = sla.cho_solve(self.factor, np.concatenate([rhs_A.ravel(), rhs_r]), check_finite=False)
        dA, dr = x[:-T].reshape(T, -1), x[-T:]
        dZ = np.zeros((n, T + 1))
        dZ[:, :T] = Xa @ dA.T
        dy = solved_y - np.einsum("nkj,nj->nk", self.Hinv_E, dZ[:, :T])
        dnu, ds = dy[:, 0], np.where(mask, dy[:, 1:], 0.0)
        change = (np.where(mask, ds - dZ + dnu[:, None], 0.0), ds, -ds.sum(axis=1))
        duals = self.point.duals
        dual_step = program.on_pairs(
            tuple(
                (t - lam * g - lam * dg) / g
                for t, lam, g, dg in zip(targets, duals, self.slacks, change, strict=True)
            )
        )
        self.last = ((dA, dr, dnu, ds), change, dual_step)
        return self.last


def _cholesky(S):
    """The Cholesky factor of ``S``, shifted by ``RIDGE``, then a thousand and a million
    times it, of its largest diagonal entry where rounding left it indefinite (a class
    with no sample leaves its row only the cone's curvature)."""
    shift = RIDGE * max(float(np.max(np.diag(S))), 1e-300)
    for scale in (0.0, 1.0, 1e3, 1e6):
        try:
            return sla.cho_factor(S + scale * shift * np.eye(S.shape[0]), lower=True)
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("the Schur complement is not positive definite")
