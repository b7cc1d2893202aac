"""The minimax program of Farnia & Tse (2016), eq. (21), as a CVXPY problem.

``min_A (1/n) sum_i [F_theta(A x_i) - theta(y_i)^T A x_i] + R(A)``, ``A`` of shape
``(t, d)``, with ``R`` one of

* ``sum_i eps_i ||A_i||_*``: the moment-constraint norm ``norm`` of eq. (19) (``"l1"``,
  ``"l2"``, ``"linf"`` or a number ``p >= 1``) penalizes each row by its dual norm
  (``linf`` gives the lasso's l1, ``l2`` itself, ``l1`` the max-norm);
* ``norm="group"`` with ``groups``: ``sum_i sum_j eps_j ||A_{i, I_j}||_*`` over disjoint
  feature groups (eqs. 34 and 79; ``group_norm`` is the norm of each group's moment
  constraint, l2 by default, so the penalty is the l2 group lasso);
* ``norm="l1inf"``: ``eps ||A||_{1,inf} = eps sum_j max_i |A_ij|``, the robust feature
  selection penalty of eq. (43), which shares one sparsity pattern across the rows;
* ``squared=True``: the strongly convex ``sum_i eps_i ||A_i||_*^2`` of Theorem 5.

``free`` lists columns left out of every penalty: an intercept is a constant feature
whose column is free (its moment constraint is then exact).
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np

from cvxpb.engine import conic
from cvxpb.minimax.entropies import get_entropy
from cvxpb.warn import warn_user


class MinimaxSolverError(RuntimeError):
    """The solver did not return an optimal solution; the message names it and its status."""


def solve_program(problem, solver: str, second: tuple = ()) -> str:
    """Solve ``problem`` with ``solver``, and with ``second`` where it is only inaccurate.

    A solution CVXPY marks inaccurate is handed to each solver of ``second`` in turn, and
    the first that reaches "optimal" holds the solution; where none does, ``solver``'s
    inaccurate solution is kept (status "optimal_inaccurate", with one warning that says
    which solvers tried). CVXPY's own "Solution may be inaccurate" warnings are not let
    through: the status says it.

    Parameters
    ----------
    problem : cvxpy.Problem
        The program.
    solver : {"CLARABEL", "ECOS", "SCS"}
        The solver.
    second : tuple of str, optional
        The solvers that settle an inaccurate solution.

    Returns
    -------
    str
        The solver whose solution the program holds.

    Raises
    ------
    ValueError
        For another solver.
    MinimaxSolverError
        With the solver's words, when it fails or returns another status than optimal
        (or optimal_inaccurate).
    """
    if solver not in conic.SOLVERS:
        raise ValueError(f"solver must be one of {conic.SOLVERS}, got {solver!r}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Solution may be inaccurate", UserWarning)
        outcome = conic.solve_program(problem, (solver,))
        if not outcome.solved:
            raise MinimaxSolverError(outcome.message)
        if outcome.status == "optimal" or not second:
            return outcome.solver
        settled = conic.solve_program(problem, second, accept_inaccurate=False)
        if settled.solved:
            return settled.solver
        conic.solve_program(problem, (solver,))  # its inaccurate solution back
    warn_user(
        f"the minimax program's solution is inaccurate: {solver} returned "
        f"'optimal_inaccurate' and {', '.join(second)} did not reach 'optimal' "
        f"({settled.message})"
    )
    return solver


NORMS = ("l1", "l2", "linf", "group", "l1inf")
DUAL = {"l1": np.inf, "l2": 2, "linf": 1}


def dual_exponent(norm) -> float:
    """The dual exponent ``q`` of the moment norm ``l_p`` (``1/p + 1/q = 1``).

    Parameters
    ----------
    norm : {"l1", "l2", "linf"} or float p >= 1
        The moment norm.

    Returns
    -------
    float
        ``q`` (``inf`` for ``p = 1``).

    Raises
    ------
    ValueError
        For another norm.
    """
    if norm in DUAL:
        return DUAL[norm]
    try:
        p = float(norm)
    except (TypeError, ValueError):
        raise ValueError(f"norm must be one of {NORMS} or a number p >= 1, got {norm!r}") from None
    if not p >= 1:
        raise ValueError(f"norm must be one of {NORMS} or a number p >= 1, got {norm!r}")
    return np.inf if p == 1 else (1.0 if np.isinf(p) else p / (p - 1))


def _row_norms(A, q):
    if q in (1, 2, np.inf):
        return cp.norm(A, q, axis=1)
    return cp.hstack([cp.pnorm(A[i, :], q) for i in range(A.shape[0])])  # no axis for p


def check_groups(groups, d: int, free=()) -> list[np.ndarray]:
    """Check feature groups: disjoint, non-empty, covering every penalized column once.

    Parameters
    ----------
    groups : list of index lists
        The groups.
    d : int
        The columns.
    free : sequence of int, default=()
        The columns left out of the penalty.

    Returns
    -------
    list of ndarray
        The groups as integer arrays.

    Raises
    ------
    ValueError
        Naming what is wrong.
    """
    groups = [np.asarray(g, dtype=int).ravel() for g in groups]
    if not groups or any(g.size == 0 for g in groups):
        raise ValueError("groups must be a non-empty list of non-empty index lists")
    flat = np.concatenate(groups)
    if np.any((flat < 0) | (flat >= d)):
        raise ValueError(f"groups must index features 0..{d - 1}")
    if np.unique(flat).size != flat.size:
        raise ValueError("groups must not overlap")
    missing = sorted(set(range(d)) - set(flat.tolist()) - set(free))
    if missing:
        raise ValueError(f"groups must cover every feature; missing {missing[:10]}")
    return groups


def penalty(A, norm, eps, groups=None, group_norm="l2", squared=False, free=()):
    """``R(A)`` of the module's text, as a CVXPY expression.

    Parameters
    ----------
    A : cvxpy.Variable of shape (t, d)
        The coefficients.
    norm : str or float
        The moment norm.
    eps : float or array_like
        The weights.
    groups : list of index lists, optional
        The feature groups, with ``norm="group"``.
    group_norm : str or float, default="l2"
        Each group's moment norm.
    squared : bool, default=False
        Theorem 5's squared penalty.
    free : sequence of int, default=()
        The columns left out of the penalty.

    Returns
    -------
    cvxpy.Expression
        The convex penalty.
    """
    t, d = A.shape
    kept = [j for j in range(d) if j not in set(free)]
    B = A[:, kept] if len(kept) < d else A
    if norm == "l1inf":
        return float(eps) * cp.sum(cp.norm(B, np.inf, axis=0))
    if norm == "group":
        position = {j: k for k, j in enumerate(kept)}
        blocks = [[position[j] for j in g] for g in check_groups(groups, d, free)]
        q = dual_exponent(group_norm)
        eps = np.broadcast_to(np.asarray(eps, dtype=float), (len(blocks),))
        terms = [_row_norms(B[:, block], q) for block in blocks]
        power = 2 if squared else 1
        return sum(e * cp.sum(cp.power(term, power)) for e, term in zip(eps, terms, strict=True))
    eps = np.broadcast_to(np.asarray(eps, dtype=float), (t,))
    norms = _row_norms(B, dual_exponent(norm))
    return eps @ (cp.square(norms) if squared else norms)


def encode(y, classes) -> np.ndarray:
    """``theta(y)``: one-hot over all classes but the last (the reference).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        The labels.
    classes : array_like
        The classes, in order.

    Returns
    -------
    ndarray of shape (n_samples, len(classes) - 1)
        The codes.
    """
    return (np.asarray(y)[:, None] == np.asarray(classes)[None, :-1]).astype(float)


def minimax_program(
    X,
    y,
    loss="log",
    norm="l2",
    eps=0.0,
    groups=None,
    group_norm="l2",
    squared=False,
    rho=np.inf,
    free=(),
    classes=None,
):
    """The CVXPY problem of eq. (21).

    ``X`` is used as given; add a column of ones for an intercept and list it in ``free``.

    Parameters
    ----------
    X : array_like of shape (n_samples, d)
        The examples.
    y : array_like of shape (n_samples,)
        Class labels for ``loss`` in ``log``, ``zero_one``, ``brier``; real targets for
        ``quadratic``.
    loss : {"log", "zero_one", "brier", "quadratic"}, default="log"
        The loss.
    norm : str or float, default="l2"
        The moment norm.
    eps : float or array_like, default=0.0
        The penalty's weights.
    groups : list of index lists, optional
        The feature groups.
    group_norm : str or float, default="l2"
        Each group's moment norm.
    squared : bool, default=False
        Theorem 5's squared penalty.
    rho : float, default=inf
        The second-moment bound of eq. (32), for ``quadratic``.
    free : sequence of int, default=()
        The columns left out of the penalty.
    classes : array_like, optional
        The classes' order, the last one the reference; sorted by default.

    Returns
    -------
    problem : cvxpy.Problem
        The program.
    A : cvxpy.Variable of shape (t, d)
        Its variable.
    """
    X = np.asarray(X, dtype=float)
    entropy = get_entropy(loss, rho)
    if entropy.classification:
        classes = np.unique(y) if classes is None else np.asarray(classes)
        theta = encode(y, classes)
    else:
        theta = np.asarray(y, dtype=float).reshape(-1, 1)
    n, d = X.shape
    A = cp.Variable((theta.shape[1], d), name="A")
    scores = X @ A.T  # row i: A x_i
    fit = cp.sum(entropy.expression(scores)) / n - cp.sum(cp.multiply(theta, scores)) / n
    objective = fit + penalty(A, norm, eps, groups, group_norm, squared, free)
    return cp.Problem(cp.Minimize(objective)), A
