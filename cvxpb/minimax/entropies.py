"""The conjugates ``F_theta`` of the generalized entropies (Farnia & Tse (2016), eq. 20).

``F_theta(z) = max_P H(Y) + E_P[theta(Y)]^T z``. For classification into ``t + 1``
classes ``theta`` is the one-hot code of the first ``t`` (the last class is the
reference) and ``z~ = (z, 0)``; for regression ``theta(y) = y`` and ``t = 1``.

* log loss (Shannon entropy): ``F = log(1 + sum_j exp z_j)`` (eq. 28);
* 0-1 loss (``H = 1 - max_y p_y``): ``F = max_k (sum_largest(z~, k) + k - 1) / k``,
  binary ``max(0, (z+1)/2, z)`` (eq. 30);
* Brier loss (``H = 1 - ||p||^2``): ``F = 1 + max_p (p^T z~ - ||p||^2)`` over the simplex,
  attained at the projection of ``z~/2``, and ``= 1 + min_nu nu + sum_j (z~_j - nu)_+^2/4``
  by duality; binary ``z/2 + huber`` (eq. 36);
* quadratic loss on ``{E Y^2 <= rho^2}``: ``F = rho^2 + huber(z/2, rho)`` (eq. 32).

Each :class:`Entropy` has ``value`` and ``gradient`` on NumPy arrays (rows are samples;
the gradients follow the paper's procedures, eqs. 29, 33, 35, and give
``E_{P*}[theta(Y) | x]`` by eq. 22) and ``expression``, a DCP CVXPY expression for use in
a minimization (the 0-1 and Brier forms add epigraph variables, one per sample).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from scipy.special import logsumexp, softmax


def _with_reference(Z) -> np.ndarray:
    """``z~ = (z, 0)`` for each row."""
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    return np.hstack([Z, np.zeros((Z.shape[0], 1))])


def _expr_with_reference(Z):
    return cp.hstack([Z, np.zeros((Z.shape[0], 1))])


def _top_k(Zt, level):
    """The paper's procedure: per row, the smallest ``k`` with
    ``sum_{i<=k} (z~_(i) - z~_(k+1)) > level`` (``t + 1`` if none), and the sorted rows."""
    order = np.argsort(-Zt, axis=1, kind="stable")
    sorted_rows = np.take_along_axis(Zt, order, axis=1)
    sums = np.cumsum(sorted_rows, axis=1)
    K = Zt.shape[1]
    ks = np.arange(1, K)  # k = 1..t, compared with the (k+1)-th largest
    excess = sums[:, :-1] - ks * sorted_rows[:, 1:]
    over = excess > level
    k = np.where(over.any(axis=1), over.argmax(axis=1) + 1, K)
    return k, order, sorted_rows, sums


class Entropy:
    """``F_theta`` of one loss: ``value``, ``gradient``, ``expression``, ``max_entropy``."""

    name = ""
    classification = True

    def value(self, Z) -> np.ndarray:
        """``F_theta`` of each row of ``Z``.

        Parameters
        ----------
        Z : array_like of shape (n_samples, t)
            The scores ``z = A x``, one row per sample.

        Returns
        -------
        ndarray of shape (n_samples,)
            The values.
        """
        raise NotImplementedError

    def gradient(self, Z) -> np.ndarray:
        """The gradient of ``F_theta`` at each row of ``Z`` (a subgradient at a kink).

        Parameters
        ----------
        Z : array_like of shape (n_samples, t)
            The scores ``z = A x``, one row per sample.

        Returns
        -------
        ndarray of shape (n_samples, t)
            The gradient, ``E_{P*}[theta(Y) | x]`` by eq. (22).
        """
        raise NotImplementedError

    def expression(self, Z):
        """``F_theta`` of each row as a CVXPY expression, for a minimization.

        Parameters
        ----------
        Z : cvxpy.Expression of shape (n_samples, t)
            The scores.

        Returns
        -------
        cvxpy.Expression of shape (n_samples,)
            A convex (DCP) expression of ``F_theta`` of each row.
        """
        raise NotImplementedError

    def max_entropy(self, t: int) -> float:
        """``M = max_P H(Y)``: the worst-case loss with no information.

        Parameters
        ----------
        t : int
            The dimension of ``theta`` (classes minus one, or 1 for regression).

        Returns
        -------
        float
            ``M``.
        """
        raise NotImplementedError


class LogEntropy(Entropy):
    """The log loss's (Shannon entropy's) ``F = log(1 + sum_j exp z_j)`` (eq. 28)."""

    name = "log"

    def value(self, Z):
        return logsumexp(_with_reference(Z), axis=1)

    def gradient(self, Z):
        return softmax(_with_reference(Z), axis=1)[:, :-1]

    def expression(self, Z):
        return cp.log_sum_exp(_expr_with_reference(Z), axis=1)

    def max_entropy(self, t):
        return float(np.log(t + 1))


class ZeroOneEntropy(Entropy):
    """The 0-1 loss's ``F = max_k (sum_largest(z~, k) + k - 1) / k`` (eq. 30)."""

    name = "zero_one"

    def value(self, Z):
        Zt = _with_reference(Z)
        sums = np.cumsum(-np.sort(-Zt, axis=1), axis=1)
        k = np.arange(1, Zt.shape[1] + 1)
        return np.max((sums + k - 1) / k, axis=1)

    def gradient(self, Z):
        """Eq. (29): ``1/k`` on the ``k`` largest entries of ``z~``.

        A subgradient where ``F`` has a kink.

        Parameters
        ----------
        Z : array_like of shape (n_samples, t)
            The scores ``z = A x``, one row per sample.

        Returns
        -------
        ndarray of shape (n_samples, t)
            The gradient, ``E_{P*}[theta(Y) | x]`` by eq. (22).
        """
        Zt = _with_reference(Z)
        k, order, _, _ = _top_k(Zt, 1.0)
        ranks = np.argsort(order, axis=1)
        return np.where(ranks < k[:, None], 1.0 / k[:, None], 0.0)[:, :-1]

    def expression(self, Z):
        """``max_k (k s_k + sum_j (z~_j - s_k)_+ + k - 1)/k`` with a variable ``s_k`` per sample.

        ``min_s k s + sum (x - s)_+ = sum_largest(x, k)``, and the minimizations over the
        separate ``s_k`` commute with the max.

        Parameters
        ----------
        Z : cvxpy.Expression of shape (n_samples, t)
            The scores.

        Returns
        -------
        cvxpy.Expression of shape (n_samples,)
            A convex (DCP) expression of ``F_theta`` of each row.
        """
        Zt = _expr_with_reference(Z)
        n, K = Zt.shape
        terms = [cp.max(Zt, axis=1)]
        for k in range(2, K):
            s = cp.Variable(n)
            top = k * s + cp.sum(cp.pos(Zt - cp.reshape(s, (n, 1), order="C")), axis=1)
            terms.append((top + k - 1) / k)
        terms.append((cp.sum(Zt, axis=1) + K - 1) / K)
        return cp.maximum(*terms)

    def max_entropy(self, t):
        return t / (t + 1)


class BrierEntropy(Entropy):
    """The Brier loss's ``F = 1 + max_p (p^T z~ - ||p||^2)`` over the simplex (eq. 36)."""

    name = "brier"

    def probabilities(self, Z) -> np.ndarray:
        """Eq. (35) for all ``t + 1`` classes: the projection of ``z~/2`` on the simplex.

        Parameters
        ----------
        Z : array_like of shape (n_samples, t)
            The scores ``z = A x``, one row per sample.

        Returns
        -------
        ndarray of shape (n_samples, t + 1)
            The worst-case conditional probabilities.
        """
        Zt = _with_reference(Z)
        k, order, _, sums = _top_k(Zt, 2.0)
        top_sum = np.take_along_axis(sums, (k - 1)[:, None], axis=1)
        ranks = np.argsort(order, axis=1)
        p = (2 - top_sum) / (2 * k[:, None]) + Zt / 2
        return np.where(ranks < k[:, None], p, 0.0)

    def value(self, Z):
        Zt, p = _with_reference(Z), self.probabilities(Z)
        return 1 + np.sum(p * Zt, axis=1) - np.sum(p * p, axis=1)

    def gradient(self, Z):
        return self.probabilities(Z)[:, :-1]

    def expression(self, Z):
        Zt = _expr_with_reference(Z)
        n = Zt.shape[0]
        nu = cp.Variable(n)
        excess = cp.pos(Zt - cp.reshape(nu, (n, 1), order="C"))
        return 1 + nu + cp.sum(cp.square(excess), axis=1) / 4

    def max_entropy(self, t):
        return t / (t + 1)


class QuadraticEntropy(Entropy):
    """The quadratic loss's ``F = rho^2 + huber(z/2, rho)`` on ``{E Y^2 <= rho^2}`` (eq. 32).

    ``rho = inf`` gives ``z^2/4`` (the constant ``rho^2`` dropped), which is linear
    regression.

    Parameters
    ----------
    rho : float, default=inf
        The bound on ``E[Y^2]``'s square root.
    """

    name = "quadratic"
    classification = False

    def __init__(self, rho: float = np.inf):
        if not rho > 0:
            raise ValueError(f"rho must be positive, got {rho!r}")
        self.rho = float(rho)

    def value(self, Z):
        z = np.asarray(Z, dtype=float).reshape(-1) / 2
        if np.isinf(self.rho):
            return z**2
        huber = np.where(np.abs(z) <= self.rho, z**2, 2 * self.rho * np.abs(z) - self.rho**2)
        return self.rho**2 + huber

    def gradient(self, Z):
        """Eq. (33): ``z/2`` clipped to ``[-rho, rho]``.

        Parameters
        ----------
        Z : array_like of shape (n_samples, t)
            The scores ``z = A x``, one row per sample.

        Returns
        -------
        ndarray of shape (n_samples, t)
            The gradient, ``E_{P*}[theta(Y) | x]`` by eq. (22).
        """
        z = np.asarray(Z, dtype=float).reshape(-1, 1) / 2
        return np.clip(z, -self.rho, self.rho)

    def expression(self, Z):
        z = cp.reshape(Z, (Z.shape[0],), order="C") / 2
        if np.isinf(self.rho):
            return cp.square(z)
        return self.rho**2 + cp.huber(z, self.rho)

    def max_entropy(self, t):
        return self.rho**2


LOSSES = {"log": LogEntropy, "zero_one": ZeroOneEntropy, "brier": BrierEntropy}


def get_entropy(loss: str, rho: float = np.inf) -> Entropy:
    """The :class:`Entropy` of a loss.

    Parameters
    ----------
    loss : {"log", "zero_one", "brier", "quadratic"}
        The loss.
    rho : float, default=inf
        The quadratic loss's ``rho``.

    Returns
    -------
    Entropy
        Its conjugate.

    Raises
    ------
    ValueError
        For another loss.
    """
    if loss == "quadratic":
        return QuadraticEntropy(rho)
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {(*LOSSES, 'quadratic')}, got {loss!r}")
    return LOSSES[loss]()
