"""Binary minimax log loss with the l1 or l2 group-lasso penalty by skglm's solvers.

With two classes eq. (21) for the log loss is l1- or group-regularized logistic
regression: ``theta = 1`` for the first class and ``log(1 + e^z) - theta z`` is
``log(1 + exp(-y z))`` with ``y = 2 theta - 1``. skglm (Bertrand et al., 2022) solves
exactly this objective, ``(1/n) sum_i log(1 + exp(-y_i x_i^T w)) + penalty(w)`` with an
unpenalized intercept, by a working-set proximal Newton method (``ProxNewton``,
``GroupProxNewton``) to a tolerance on the optimality conditions, and returns exact
zeros. It is as fast as liblinear, which penalizes the intercept and so solves a
different problem, and 300x faster than an interior-point solve of the conic program
here (n = 200, d = 10000). The conic program stays the reference route; the two are
tested against each other.
"""

from __future__ import annotations

import warnings

import numpy as np

TOL = 1e-10  # skglm's stopping criterion: the largest violation of the optimality conditions


def applicable(loss, T, norm, eps, groups, group_norm, squared, free, d) -> bool:
    """Say whether skglm solves the problem.

    Binary log loss, the lasso's l1 (``norm="linf"``) or the l2 group lasso, not
    squared, and no free column but an intercept in the last one.

    Parameters
    ----------
    loss : str
        The loss.
    T : int
        The rows of ``A`` (classes minus one).
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
    d : int
        The columns.

    Returns
    -------
    bool
        Whether :func:`solve` applies.
    """
    if loss != "log" or T != 1 or squared or tuple(free) not in ((), (d - 1,)):
        return False
    if norm == "linf":
        return np.ndim(eps) == 0 or np.size(eps) == 1
    return norm == "group" and group_norm == "l2"


def _group_pointers(groups):
    indices = np.concatenate([np.asarray(g, dtype=np.int32) for g in groups])
    sizes = [len(g) for g in groups]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32), indices.astype(np.int32)


def solve(Xa, theta, norm, eps, groups, free):
    """Solve the binary log-loss problem with skglm's proximal Newton.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    theta : ndarray of shape (n_samples, 1)
        The encoded labels.
    norm : {"linf", "group"}
        The moment norm (the lasso's or the group lasso's).
    eps : float or array_like
        The penalty's weights.
    groups : list of index lists or None
        The feature groups.
    free : sequence of int
        The intercept's column, if any.

    Returns
    -------
    ndarray of shape (1, d) or None
        ``A``, or None where skglm did not converge.
    """
    from skglm.datafits import Logistic, LogisticGroup
    from skglm.penalties import L1, WeightedGroupL2
    from skglm.solvers import GroupProxNewton, ProxNewton

    intercept = len(free) == 1
    X = np.ascontiguousarray(Xa[:, :-1] if intercept else Xa)
    y = 2 * np.asarray(theta, dtype=float).ravel() - 1
    if norm == "linf":
        datafit, penalty = Logistic(), L1(float(np.ravel(eps)[0]))
        solver = ProxNewton(fit_intercept=intercept, tol=TOL, max_iter=100)
    else:
        pointers, indices = _group_pointers(groups)
        weights = np.broadcast_to(np.asarray(eps, dtype=float), (len(groups),)).copy()
        datafit = LogisticGroup(pointers, indices)
        penalty = WeightedGroupL2(1.0, weights, pointers, indices)
        solver = GroupProxNewton(fit_intercept=intercept, tol=TOL, max_iter=100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w, _, stop = solver.solve(X, y, datafit, penalty)
    if stop > TOL or any("converge" in str(w.message).lower() for w in caught):
        return None
    return np.asarray(w, dtype=float).reshape(1, -1)
