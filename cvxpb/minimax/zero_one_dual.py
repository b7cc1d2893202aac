"""A proven lower bound on the 0-1 minimax program from any dual point.

For the 0-1 loss ``F(z~) = max_{p in simplex} 1 - max_j p_j + p^T z~`` (eq. 30's LP
dual), so for any ``p_i`` in the simplex over the ``T + 1`` classes

    fit(A) >= c0 + <A, M>,   c0 = (1/n) sum_i (1 - max_j p_ij),
    M = (1/n) sum_i (p_i - e_(y_i))[:T] x_i^T,

and the minimum of eq. (21) is at least ``c0 + min_A [R(A) + <A, M>]``. The last term
has a closed form:

* for a norm penalty (rows, groups or ``l1inf``), with ``kappa`` the dual gauge of
  ``-M`` (``max_i ||M_i||_p / eps_i`` for rows penalized by the dual of the moment norm
  ``p``; per row and group for groups; ``max_j sum_i |M_ij| / eps`` for ``l1inf``), it is
  0 where ``kappa <= 1``; otherwise at least ``(1 - kappa) U``, because the optimum's
  penalty is at most its objective ``<= U`` (the fit is never negative: take
  ``p = e_(y_i)``);
* for Theorem 5's squared penalty it is ``-sum ||M_block||_p^2 / (4 eps_block)``.

A free column must be constant (an intercept), and ``M`` must vanish on it exactly: the
columns of the ``p_i`` must sum to the classes' counts (without a free column only
the rows must be exact). The solver's multipliers do so
only up to its tolerance, so :func:`exact_transport` moves them onto a dyadic grid
where rows sum to 1 and columns to the counts exactly (in integers). ``M`` is then
computed in floats and bounded entrywise with its rounding error, and every step is
rounded down: the bound holds whatever the multipliers are, and is tight when they are
the program's optimal ones.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.minimax.program import check_groups, dual_exponent
from cvxpb.numerics.tolerances import EPS, nudge


def exact_transport(p, labels, classes: int, columns: bool = True):
    """``p`` on a dyadic grid, rows summing to 1 and columns to the class counts exactly.

    Parameters
    ----------
    p : ndarray of shape (n_samples, classes)
        Non-negative weights (rows are normalized first; an all-zero row becomes its
        own class's).
    labels : ndarray of shape (n_samples,)
        The classes' indices.
    classes : int
        The number of classes (``T + 1``).
    columns : bool, default=True
        Whether the columns are moved to the counts too (needed only where a free
        column's moment must vanish); else only the rows are made exact.

    Returns
    -------
    ndarray of shape (n_samples, classes)
        The transported weights, each a multiple of ``2^-s``, exactly in the transport
        polytope (with ``columns=False``, rows exactly in the simplex).
    """
    n = p.shape[0]
    scale = 1 << min(52, 62 - max(1, n).bit_length())  # column sums stay in int64
    p = np.maximum(np.nan_to_num(np.asarray(p, dtype=float)), 0.0)
    sums = p.sum(axis=1, keepdims=True)
    p = np.where(sums > 0, p / np.where(sums > 0, sums, 1.0), 0.0)
    units = np.floor(p * scale).astype(np.int64)
    rows = np.arange(n)
    excess = units.sum(axis=1) - scale
    largest = units.argmax(axis=1)
    units[rows, largest] -= np.maximum(excess, 0)  # a few units of rounding at most
    units[rows, labels] += scale - units.sum(axis=1)  # rows exact
    if not columns:
        return units / scale
    surplus = units.sum(axis=0) - scale * np.bincount(labels, minlength=classes)
    for k in np.flatnonzero(surplus > 0):
        for l in np.flatnonzero(surplus < 0):
            amount = min(surplus[k], -surplus[l])
            if amount <= 0:
                continue
            column = units[:, k]
            before = np.cumsum(column) - column  # units taken from the rows above
            take = np.clip(amount - before, 0, column)
            units[:, k] -= take
            units[:, l] += take
            surplus[k] -= amount
            surplus[l] += amount
    return units / scale


def lower_bound(Xa, labels, T, p, norm, eps, groups, group_norm, squared, free, upper):
    """A proven lower bound on the 0-1 minimax program at the dual point ``p``.

    The module's text derives it.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    labels : ndarray of shape (n_samples,)
        The classes' indices, the last (``T``) the reference.
    T : int
        The rows of ``A``.
    p : ndarray of shape (n_samples, T + 1)
        The dual weights (the working-set program's multipliers times ``n``).
    norm : str or float
        The moment norm (:func:`cvxpb.minimax.program.penalty`).
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists or None
        The feature groups, with ``norm="group"``.
    group_norm : str or float
        Each group's moment norm.
    squared : bool
        Theorem 5's squared penalty.
    free : sequence of int
        The columns left out of the penalty (each must be constant).
    upper : float
        The objective at a feasible ``A``: at least the optimum.

    Returns
    -------
    float
        The bound, rounded down; ``-inf`` where none is proven (a free column that is
        not constant, or a zero weight on a block that ``M`` does not vanish on).
    """
    n, d = Xa.shape
    free = sorted(set(free))
    squared = squared and norm != "l1inf"  # the l1inf penalty has no squared form
    if any(np.ptp(Xa[:, j]) > 0 for j in free):
        return -math.inf
    p = exact_transport(p, labels, T + 1, columns=bool(free))
    fit = math.fsum(1.0 - p.max(axis=1)) / n
    step = p[:, :T] - np.eye(T + 1)[labels][:, :T]  # exact: multiples of 2^-s in [-1, 1]
    kept = [j for j in range(d) if j not in set(free)]
    M = np.abs(step.T @ Xa[:, kept]) / n
    M += 1.01 * (n + 2) * EPS * (np.abs(step).T @ np.abs(Xa[:, kept])) / n + 1e-300
    term = _penalty_term(M, norm, eps, groups, group_norm, squared, d, free, kept)
    if squared:
        return float(nudge(nudge(fit, -1) + term, -1))
    budget = float(nudge(max(upper, 0.0), +1)) * (1 + 1e-9)
    return float(nudge(nudge(fit, -1) - max(term - 1.0, 0.0) * budget, -1))


def _penalty_term(M, norm, eps, groups, group_norm, squared, d, free, kept):
    """The dual gauge ``kappa`` of an upper bound ``M`` on ``|M|`` (norm penalties), or
    ``-sum ||M_block||^2 / (4 eps)`` rounded down (squared ones)."""
    T = M.shape[0]
    if norm == "l1inf":
        return float(nudge(np.max(M.sum(axis=0)) / float(eps), +1) if M.size else 0.0)
    if norm == "group":
        position = {j: k for k, j in enumerate(kept)}
        blocks = [[position[j] for j in g] for g in check_groups(groups, d, free)]
        weights = np.broadcast_to(np.asarray(eps, dtype=float), (len(blocks),))
        p = _moment(group_norm)
        norms = [np.linalg.norm(M[:, block], p, axis=1) for block in blocks]
        return _combine(norms, weights, squared)
    weights = np.broadcast_to(np.asarray(eps, dtype=float), (T,))
    norms = [np.linalg.norm(M, _moment(norm), axis=1)[i : i + 1] for i in range(T)]
    return _combine(norms, weights, squared)


def _moment(norm) -> float:
    """The moment norm's exponent (the dual of the penalty's)."""
    q = dual_exponent(norm)
    return np.inf if q == 1 else (1.0 if np.isinf(q) else q / (q - 1))


def _combine(norms, weights, squared) -> float:
    """``max_block ||M_block|| / eps`` (the dual gauge), or the squared penalties'
    ``-sum ||M_block||^2 / (4 eps)``, each block's norm raised for its rounding."""
    total = [] if squared else [0.0]
    for block, weight in zip(norms, weights, strict=True):
        block = np.asarray(block, dtype=float) * (1 + 4 * block.size * EPS)
        if np.all(block == 0):
            continue
        if weight <= 0:
            return -math.inf if squared else math.inf
        total.append(np.sum(block**2) / (4 * weight) if squared else np.max(block) / weight)
    if squared:
        return float(nudge(-math.fsum(total) * (1 + 8 * EPS), -1))
    return float(nudge(max(total), +1))
