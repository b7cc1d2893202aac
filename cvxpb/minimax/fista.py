"""``solver="fista"``: accelerated proximal gradient for eq. (21) with a smooth ``F``.

``f(A) = (1/n) sum_i [F(A x_i) - theta_i^T A x_i]`` has gradient
``(1/n) (grad F(X A^T) - Theta)^T X``; for the log, Brier and quadratic losses ``grad F``
is 1/2-Lipschitz (a softmax, a projection onto the simplex, a clipped ``z/2``), so
``L = ||X||_2^2 / (2n)`` is a step bound, refined by backtracking. The penalties enter
through their proximal maps:

* dual l1 (moment norm l_inf, the lasso): soft thresholding;
* dual l2 (and the l2 group lasso): block soft thresholding, per row (and group);
* dual l_inf (moment norm l_1): ``v - proj_{eps B_1}(v)`` (Moreau);
* l_{1,inf} (eq. 43): the same, column by column;
* squared dual l2 (Theorem 5): scaling by ``1 / (1 + 2 eps step)``.

The 0-1 loss's ``F`` is piecewise linear, so it stays with the conic solvers. FISTA
restarts its momentum when the objective rises (O'Donoghue and Candes). It stops when
the gradient mapping, zero exactly at a minimizer, has fallen by the factor ``tol``,
or when a plain proximal gradient step (momentum just restarted) no longer lowers the
objective as computed: in exact arithmetic that step lowers it by ``L/2 ||step||^2``,
so the point is then optimal to the resolution of the objective's floating point,
and no further iteration can tell better points apart. Both are always reached.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SMOOTH = ("log", "brier", "quadratic")
MAX_LIPSCHITZ = 1e300  # backtracking beyond this means the objective is not finite


def project_l1_ball(v, radius):
    """Project each column of ``v`` onto the l1 ball ``{||x||_1 <= radius}``.

    The Euclidean projection of Duchi et al. (2008).

    Parameters
    ----------
    v : array_like of shape (k, m)
        The columns.
    radius : float or array_like of shape (m,)
        The radii, broadcast over the columns.

    Returns
    -------
    ndarray of shape (k, m)
        The projections.
    """
    v = np.atleast_2d(v)
    radius = np.broadcast_to(np.asarray(radius, dtype=float), (v.shape[1],))
    a = np.abs(v)
    inside = a.sum(axis=0) <= radius
    u = -np.sort(-a, axis=0)
    cumulative = np.cumsum(u, axis=0) - radius
    index = np.arange(1, v.shape[0] + 1)[:, None]
    rho = np.sum(u - cumulative / index > 0, axis=0)
    theta = cumulative[np.maximum(rho - 1, 0), np.arange(v.shape[1])] / np.maximum(rho, 1)
    projected = np.sign(v) * np.maximum(a - np.maximum(theta, 0), 0)
    return np.where(inside, v, projected)


def _block_shrink(V, threshold, axis):
    norms = np.linalg.norm(V, axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(norms > threshold, 1 - threshold / norms, 0.0)
    return V * scale


@dataclass(frozen=True)
class Prox:
    """The proximal map of a penalty ``R`` with step ``s``, and ``R`` itself.

    Parameters
    ----------
    norm : str or float
        The moment norm (the penalty is its dual).
    eps : ndarray
        The weights, per row (t,), or per group.
    groups : list or None
        The feature groups, with ``norm="group"``.
    squared : bool
        Theorem 5's squared penalty.
    penalized : ndarray
        The column indices under the penalty.
    """

    norm: object
    eps: np.ndarray  # per row (t,), or per group
    groups: list | None
    squared: bool
    penalized: np.ndarray  # column indices under the penalty

    def __call__(self, V, step):
        out = V.copy()
        B = V[:, self.penalized]
        rows = self.eps[:, None] * step if self.eps.ndim else self.eps * step
        if self.squared:
            B = B / (1 + 2 * rows)
        elif self.norm == "linf":
            B = np.sign(B) * np.maximum(np.abs(B) - rows, 0)
        elif self.norm == "l2":
            B = _block_shrink(B, rows, axis=1)
        elif self.norm == "l1":
            B = B - project_l1_ball(B.T, np.ravel(rows) * np.ones(B.shape[0])).T
        elif self.norm == "l1inf":
            B = B - project_l1_ball(B, rows)
        else:  # group
            B = B.copy()
            for e, group in zip(self.eps, self.groups, strict=True):
                B[:, group] = _block_shrink(B[:, group], e * step, axis=1)
        out[:, self.penalized] = B
        return out

    def value(self, A) -> float:
        """The penalty ``R(A)``.

        Parameters
        ----------
        A : ndarray of shape (t, d)
            The coefficients.

        Returns
        -------
        float
            The penalty.
        """
        B = A[:, self.penalized]
        if self.norm == "l1inf":
            return float(self.eps * np.abs(B).max(axis=0).sum())
        if self.norm == "group":
            return float(
                sum(
                    e * np.linalg.norm(B[:, g], axis=1).sum()
                    for e, g in zip(self.eps, self.groups, strict=True)
                )
            )
        order = {"linf": 1, "l2": 2, "l1": np.inf}[self.norm]
        norms = np.linalg.norm(B, ord=order, axis=1)
        return float(self.eps @ (norms**2 if self.squared else norms))


def make_prox(norm, eps, t, d, groups=None, squared=False, free=()):
    """The :class:`Prox` of a penalty FISTA supports.

    Parameters
    ----------
    norm : str or float
        The moment norm.
    eps : float or array_like
        The weights.
    t : int
        The rows of ``A``.
    d : int
        The columns of ``A``.
    groups : list of index lists, optional
        The feature groups.
    squared : bool, default=False
        The squared penalty.
    free : sequence of int, default=()
        The columns left out of the penalty.

    Returns
    -------
    Prox
        The proximal map.

    Raises
    ------
    ValueError
        Naming a penalty FISTA does not support.
    """
    if squared and norm != "l2":
        raise ValueError('solver="fista" supports squared=True with norm="l2" only')
    if norm not in ("l1", "l2", "linf", "group", "l1inf"):
        raise ValueError(
            f'solver="fista" supports norm in l1, l2, linf, group, l1inf; got {norm!r}'
        )
    penalized = np.array([j for j in range(d) if j not in set(free)], dtype=int)
    if norm == "group":
        position = {j: k for k, j in enumerate(penalized)}
        groups = [np.array([position[j] for j in g]) for g in groups]
        eps = np.broadcast_to(np.asarray(eps, float), (len(groups),)).copy()
    elif norm == "l1inf":
        eps = np.asarray(eps, dtype=float)
    else:
        eps = np.broadcast_to(np.asarray(eps, float), (t,)).copy()
    return Prox(norm, eps, groups, squared, penalized)


def _spectral_norm_squared(X, steps: int = 30) -> float:
    """``||X||_2^2`` by power iteration (a lower estimate; backtracking corrects it)."""
    v = np.random.default_rng(0).normal(size=X.shape[1])
    value = 0.0
    for _ in range(steps):
        w = X.T @ (X @ v)
        value = float(np.linalg.norm(w))
        if value == 0:
            return 0.0
        v = w / value
    return value


def fista(entropy, X, theta, prox, tol=1e-8, max_iter=100_000, A0=None):
    """Minimize eq. (21) by FISTA with backtracking and adaptive restart.

    Stops when the gradient mapping ``L ||prox(Y - grad/L) - Y||`` falls below ``tol``
    times its value at the start (a scale-free optimality measure: it is zero exactly at
    a minimizer), or when a step from a restart does not lower the computed objective
    (optimal to its rounding; see the module's docstring).

    Parameters
    ----------
    entropy : Entropy
        The smooth ``F``.
    X : ndarray of shape (n_samples, d)
        The examples.
    theta : ndarray of shape (n_samples, t)
        The encoded targets.
    prox : Prox
        The penalty's proximal map.
    tol : float, default=1e-8
        The relative gradient mapping at which it stops.
    max_iter : int, default=100000
        Iterations at most.
    A0 : ndarray of shape (t, d), optional
        The start; zero by default.

    Returns
    -------
    A : ndarray of shape (t, d)
        The solution.
    objective : float
        Eq. (21) there, with the penalty.
    iterations : int
        Iterations done.
    converged : bool
        Whether a stopping rule was met.
    """
    n = X.shape[0]
    t = theta.shape[1]

    def smooth(S):  # f from the scores S = X A^T, which are linear in A
        return float(np.mean(entropy.value(S) - np.sum(theta * S, axis=1)))

    A = np.zeros((t, X.shape[1])) if A0 is None else np.array(A0, dtype=float)
    S_A = X @ A.T
    Y, S_Y, momentum = A, S_A, 1.0
    L = max(_spectral_norm_squared(X) / (2 * n), 1e-12) / 8  # raised by backtracking
    objective = smooth(S_A) + prox.value(A)
    first = None
    for iteration in range(1, max_iter + 1):
        f_Y = smooth(S_Y)
        grad = (entropy.gradient(S_Y) - theta).T @ X / n
        while True:
            candidate = prox(Y - grad / L, 1 / L)
            S_new = X @ candidate.T
            f_new = smooth(S_new)
            step = candidate - Y
            if f_new <= f_Y + np.sum(grad * step) + L / 2 * np.sum(step * step) + 1e-15:
                break
            L *= 2
            if not L < MAX_LIPSCHITZ:  # non-finite values: no step can be taken
                return A, objective, iteration, False
        residual = L * np.linalg.norm(step)
        first = residual if first is None else first
        if residual <= tol * max(first, 1e-300):
            return candidate, f_new + prox.value(candidate), iteration, True
        new_objective = f_new + prox.value(candidate)
        if new_objective > objective:  # adaptive restart (O'Donoghue and Candes)
            if momentum == 1.0 and Y is A:  # a plain step from A: A is optimal to rounding
                return A, objective, iteration, True
            Y, S_Y, momentum = A, S_A, 1.0
            continue
        next_momentum = (1 + np.sqrt(1 + 4 * momentum**2)) / 2
        beta = (momentum - 1) / next_momentum
        Y, S_Y = candidate + beta * (candidate - A), S_new + beta * (S_new - S_A)
        A, S_A, objective, momentum = candidate, S_new, new_objective, next_momentum
    return A, objective, max_iter, False
