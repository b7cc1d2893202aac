"""The minimax SVM (0-1 loss) of Farnia & Tse (2016) by the LP structure of its ``F``.

For the 0-1 loss ``F(z) = max_{p in simplex} 1 - max_j p_j + p^T z~`` (eq. 30 is the
same function written as ``max_k (sum_largest(z~, k) + k - 1)/k``). Its LP dual is

    F(z) = 1 + min {nu : sum_j (z~_j - nu)_+ <= 1},

one threshold per sample (the one of the Euclidean projection onto the simplex), and
:func:`threshold` computes it by a sort. In eq. (21) each sample then needs ``nu_i``
and one slack ``t_ij >= z~_ij - nu_i`` per class, ``K + 1`` variables instead of the
``K (K - 2)`` of the sum-largest form; and at the optimum only the classes with
``z~_ij >= nu_i`` matter (2.7 of 10 per sample on digits). :func:`solve_zero_one`
keeps a working set of (sample, class) pairs, always the sample's own class:

* on a subsample, all pairs, for a first ``A``;
* then the pairs near the threshold under the current ``A``, added to the working set
  each round (it only grows, so the rounds end).

Dropping pairs drops terms of a sum of positive parts, so the working-set program is a
relaxation, and its multipliers are a dual point of the full problem (zero on the
pairs left out). The lower bound ``L`` is the dual bound at that point, proven in
floating point (:mod:`cvxpb.minimax.zero_one_dual`; the solver's objective is never
taken for it); the objective ``U`` of eq. (21) at the program's ``A`` (recomputed with
:func:`threshold`) is at least the optimum. The rounds stop when
``U - L <= tol * max(1, U)``, a duality gap on the full problem. A penalty weight of 0
leaves no proven ``L`` (``-inf``).

With the row-wise l2 penalty the working-set programs go to the interior-point method
of :mod:`cvxpb.minimax.zero_one_ipm` (6 times faster than Clarabel on 1200 digits), and
to Clarabel where it stalls or leaves the certificate open with no pair left to add.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from cvxpb.minimax import zero_one_dual, zero_one_ipm
from cvxpb.minimax.program import penalty, solve_program
from cvxpb.warn import warn_user

SUBSAMPLE = 300  # the first A comes from this many samples, with every class pair
NEAR = 0.1  # pairs with z~_ij > nu_i - NEAR join the working set
GAP = 1e-7  # relative duality gap at which the rounds stop
IPM = "interior point"  # the name of zero_one_ipm's method in `used` and `route_`


def threshold(Zt) -> np.ndarray:
    """Per row, the least ``nu`` with ``sum_j (z~_j - nu)_+ <= 1``; ``F = 1 + nu``.

    Parameters
    ----------
    Zt : ndarray of shape (n_samples, T + 1)
        The scores ``z~`` with the reference's 0.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``nu``.
    """
    Zt = np.atleast_2d(np.asarray(Zt, dtype=float))
    ordered = -np.sort(-Zt, axis=1)
    k = np.arange(1, Zt.shape[1] + 1)
    candidates = (np.cumsum(ordered, axis=1) - 1) / k
    support = np.sum(ordered > candidates, axis=1)  # the k of the threshold, >= 1
    return candidates[np.arange(Zt.shape[0]), support - 1]


def objective(
    Xa, labels, A, norm, eps, groups=None, group_norm="l2", squared=False, free=(), working=None
):
    """Eq. (21) at ``A`` for the 0-1 loss (with ``working``, its working-set program's).

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    labels : ndarray of shape (n_samples,)
        The classes' indices, the last (``T``) the reference.
    A : ndarray of shape (T, d)
        The coefficients.
    norm : str or float
        The moment norm.
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists, optional
        The feature groups.
    group_norm : str or float, default="l2"
        Each group's moment norm.
    squared : bool, default=False
        Theorem 5's squared penalty.
    free : sequence of int, default=()
        The columns left out of the penalty.
    working : ndarray of bool, shape (n_samples, T + 1), optional
        The working set: ``F`` over its pairs only (each sample's own class among them).

    Returns
    -------
    float
        The objective.
    """
    Zt = np.hstack([Xa @ A.T, np.zeros((Xa.shape[0], 1))])
    if working is not None:  # a score 2 below the least is never in the threshold's support
        Zt = np.where(working, Zt, np.min(Zt, axis=1, keepdims=True) - 2.0)
    fit = np.mean(1 + threshold(Zt) - Zt[np.arange(Xa.shape[0]), labels])
    reg = penalty(cp.Constant(A), norm, eps, groups, group_norm, squared, free)
    return float(fit + reg.value)


def working_set_program(Xa, labels, pairs, norm, eps, groups, group_norm, squared, free, T):
    """Eq. (21) with ``F`` restricted to the (sample, class) ``pairs``.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    labels : ndarray of shape (n_samples,)
        The classes' indices, the last (``T``) the reference.
    pairs : ndarray of bool, shape (n_samples, T + 1)
        The working set.
    norm : str or float
        The moment norm.
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists or None
        The feature groups, with ``norm="group"``.
    group_norm : str or float
        Each group's moment norm.
    squared : bool
        Theorem 5's squared penalty.
    free : sequence of int
        The columns left out of the penalty.
    T : int
        The rows of ``A``.

    Returns
    -------
    problem : cvxpy.Problem
        The program.
    A : cvxpy.Variable of shape (T, d)
        The coefficients.
    nu : cvxpy.Variable of shape (n_samples,)
        The thresholds.
    """
    n, D = Xa.shape
    rows, classes = pairs
    m = rows.size
    A, nu, slack = cp.Variable((T, D), name="A"), cp.Variable(n), cp.Variable(m, nonneg=True)
    scored = np.flatnonzero(classes < T)  # the reference class scores 0
    scores = sp.csr_matrix(
        (
            Xa[rows[scored]].ravel(),
            (np.repeat(scored, D), ((classes[scored] * D)[:, None] + np.arange(D)).ravel()),
        ),
        shape=(m, T * D),
    )
    owner = sp.csr_matrix((np.ones(m), (np.arange(m), rows)), shape=(m, n))
    own = np.zeros((T, D))  # (1/n) sum_i z~_{i, y_i} = <own, A>
    np.add.at(own, labels[labels < T], Xa[labels < T] / n)
    fit = 1 + cp.sum(nu) / n - cp.sum(cp.multiply(own, A))
    constraints = [slack >= scores @ cp.vec(A, order="C") - owner @ nu, owner.T @ slack <= 1]
    reg = penalty(A, norm, eps, groups, group_norm, squared, free)
    return cp.Problem(cp.Minimize(fit + reg), constraints), A, nu


def _near_pairs(Xa, A, labels, T):
    """The pairs with ``z~_ij > nu_i - NEAR`` under ``A``, and every sample's own class."""
    Zt = np.hstack([Xa @ A.T, np.zeros((Xa.shape[0], 1))])
    near = Zt > threshold(Zt)[:, None] - NEAR
    near[np.arange(Xa.shape[0]), labels] = True
    return near


def solve_zero_one(
    Xa,
    labels,
    T,
    norm,
    eps,
    groups=None,
    group_norm="l2",
    squared=False,
    free=(),
    solver="auto",
    random_state=0,
    used=None,
):
    """Solve eq. (21) for the 0-1 loss by working sets (module's text).

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    labels : ndarray of shape (n_samples,)
        The classes' indices, the last (``T``) the reference.
    T : int
        The rows of ``A`` (classes minus one).
    norm : str or float
        The moment norm.
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists, optional
        The feature groups.
    group_norm : str or float, default="l2"
        Each group's moment norm.
    squared : bool, default=False
        Theorem 5's squared penalty.
    free : sequence of int, default=()
        The columns left out of the penalty.
    solver : {"auto", "CLARABEL", "ECOS", "SCS"}, default="auto"
        The working-set programs' solver. ``"auto"``: the interior-point method of
        :mod:`cvxpb.minimax.zero_one_ipm` where it applies (the row-wise l2 penalty,
        every weight positive), and Clarabel for the others and for a program on which
        it stalls or whose certificate it leaves open.
    random_state : int, default=0
        Seeds the first working set's subsample.
    used : list, optional
        Each program's solver is appended to it (``"interior point"`` or a conic
        solver's name).

    Returns
    -------
    A : ndarray of shape (T, d)
        The solution.
    iterations : int
        The solver's iterations over every program.
    upper : float
        The objective at ``A``.
    lower : float
        A proven lower bound on the minimum (``upper - lower`` is the certified gap).
    """
    n = Xa.shape[0]
    program = (norm, eps, groups, group_norm, squared, free, T)
    used = [] if used is None else used
    iterations = 0
    if n > 2 * SUBSAMPLE:
        sub = np.random.default_rng(random_state).choice(n, SUBSAMPLE, replace=False)
        every = np.nonzero(np.ones((SUBSAMPLE, T + 1), dtype=bool))
        A, _, count = _solve_round(Xa[sub], labels[sub], every, program, solver, used)
        iterations += count
        working = _near_pairs(Xa, A, labels, T)
    else:
        working = np.ones((n, T + 1), dtype=bool)
    while True:  # the working set grows each round, so the rounds end
        B, p, count = _solve_round(Xa, labels, np.nonzero(working), program, solver, used)
        iterations += count
        upper = objective(Xa, labels, B, *program[:-1])
        lower = _dual_bound(Xa, labels, T, p, program, upper)
        near = _near_pairs(Xa, B, labels, T)
        closed = upper - lower <= GAP * max(1.0, abs(upper))
        grows = np.any(near & ~working)
        if not closed and not grows and used[-1] == IPM:
            solver = "CLARABEL"  # the conic solver's say on this working set
            continue
        if closed or not grows:
            return B, iterations, upper, lower
        working |= near


def _solve_round(Xa, labels, pairs, program, solver, used):
    """One working-set program: ``A``, ``n`` times the multipliers of its pairs'
    constraints (``None`` where the solver gives none) and the solver's iterations."""
    norm, eps, groups, _, squared, free, T = program
    if solver == "auto" and zero_one_ipm.applicable(norm, eps, groups, squared, T, Xa.shape[1]):
        solved = zero_one_ipm.solve(
            Xa, labels, pairs, eps, free, T, _closes(Xa, labels, pairs, program)
        )
        if solved is not None:
            used.append(IPM)
            return solved
    conic = "CLARABEL" if solver == "auto" else solver
    problem, A, _ = working_set_program(Xa, labels, pairs, *program)
    solve_program(problem, conic)
    used.append(conic)
    multipliers = problem.constraints[0].dual_value
    if multipliers is None:
        return np.asarray(A.value), None, problem.solver_stats.num_iters or 0
    p = np.zeros((Xa.shape[0], T + 1))
    p[pairs] = Xa.shape[0] * np.asarray(multipliers, dtype=float).ravel()
    return np.asarray(A.value), p, problem.solver_stats.num_iters or 0


def _closes(Xa, labels, pairs, program):
    """The interior-point method's stopping rule: ``closed(A, p)``, whether the
    working-set program's proven gap at ``(A, p)`` is below a tenth of ``GAP`` (the
    rounds' certificate is the full problem's)."""
    working = np.zeros((Xa.shape[0], program[-1] + 1), dtype=bool)
    working[pairs] = True

    def closed(A, p) -> bool:
        upper = objective(Xa, labels, A, *program[:-1], working=working)
        lower = _dual_bound(Xa, labels, program[-1], p, program, upper)
        return upper - lower <= GAP / 10 * max(1.0, abs(upper))

    return closed


def _dual_bound(Xa, labels, T, p, program, upper) -> float:
    """The proven lower bound of :mod:`cvxpb.minimax.zero_one_dual` at the dual point
    ``p`` (``-inf`` without one)."""
    if p is None:
        return -np.inf
    norm, eps, groups, group_norm, squared, free, _ = program
    return zero_one_dual.lower_bound(
        Xa, labels, T, p, norm, eps, groups, group_norm, squared, free, upper
    )


def zero_one_status(upper: float, lower: float) -> str:
    """The status the certified gap earns.

    Parameters
    ----------
    upper : float
        The objective at the solution.
    lower : float
        The proven lower bound.

    Returns
    -------
    str
        ``"optimal"`` when the gap is below ``GAP`` relative, else
        ``"optimal_inaccurate"`` with a warning that states the gap (a loose solver such
        as SCS), or that no lower bound is proven (``lower = -inf``).
    """
    gap = upper - lower
    if gap <= GAP * max(1.0, abs(upper)):
        return cp.OPTIMAL
    if not np.isfinite(lower):
        warn_user(
            f"the 0-1 minimax solution (objective {upper:.10g}) has no proven lower bound: "
            "a penalty weight of 0, a free column that is not constant or a solver without "
            "multipliers leaves the dual bound open"
        )
        return cp.OPTIMAL_INACCURATE
    warn_user(
        f"the 0-1 minimax solution is certified within {gap:.3g} of the optimum "
        f"(objective {upper:.10g}), above the {GAP:g} relative the solver aims for"
    )
    return cp.OPTIMAL_INACCURATE
