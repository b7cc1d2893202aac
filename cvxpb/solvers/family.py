"""The one-parameter families that contain every optimal posterior (DESIGN.md item 3).

Each bound is increasing in ``L(q)`` and in a convex divergence, so an optimal
``q`` minimizes ``L + mu * div`` for some ``mu``:

* chi-squared: ``q_i(nu) = p_i (nu - l_i)_+ / sum_j p_j (nu - l_j)_+``, ``nu > min l``;
* KL:          ``q_i(beta) = p_i exp(-beta l_i) / sum_j p_j exp(-beta l_j)`` (Gibbs).

Both are parametrized by ``x in [0, 1]`` with ``t = scale * x / (1 - x)``
(``nu = min l + t``, ``beta = t``), so ``x = 0`` and ``x = 1`` are the two limits.
Along the chi-squared family ``L`` rises and ``D`` falls with ``x``; along the
Gibbs family ``L`` falls and ``KL`` rises. That monotonicity is what makes the
interval lower bounds of the branch and bound valid.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logsumexp


def _parameter(x, scale):
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(x >= 1, np.inf, scale * x / np.where(x >= 1, 1.0, 1 - x))


def distinct_risks(risks, prior):
    """``(u_1, d, w)``: the smallest risk with prior mass, the sorted distinct risks'
    gaps ``d = u - u_1`` above it, and the prior mass ``w`` on each (zero-mass dropped)."""
    support = prior > 0
    values, inverse = np.unique(risks[support], return_inverse=True)
    return values[0], values - values[0], np.bincount(inverse, weights=prior[support])


def initial_grid(breaks=None, n=257):
    """Logistic-spaced points of (0, 1) (26 decades of ``t``), the ends and ``breaks``."""
    points = [np.array([0.0, 1.0]), expit(np.linspace(-30, 30, n))]
    if breaks is not None:
        points.append(breaks)
    return np.unique(np.concatenate(points))


class Chi2Family:
    """``q(nu) ∝ p (nu - l)_+``: the minimizers of ``L + mu * sum q^2/p``.

    On ``(u_k, u_{k+1}]`` (sorted distinct risks) the support is ``{l < nu}`` and,
    with ``d = u - u_1``, ``t = nu - u_1`` and ``A_j = sum_{support} p d^j``:
    ``Z = t A0 - A1``, ``L = u_1 + (t A1 - A2)/Z``, ``D = (t^2 A0 - 2t A1 + A2)/Z^2``
    (evaluated divided through by ``t``).
    """

    parameter = "nu"
    L_increasing = True

    def __init__(self, risks, prior):
        self.risks, self.prior = risks, prior
        self.u1, self.d, weights = distinct_risks(risks, prior)
        self.A = [np.cumsum(weights * self.d**j) for j in range(3)]
        self.scale = max(float(self.d[-1]), 1e-12)

    def breaks(self):
        """The ``x`` at which ``nu`` crosses a distinct risk value."""
        return self.d / (self.scale + self.d)

    def nu(self, x):
        return self.u1 + _parameter(x, self.scale)

    def support_size(self, x):
        """How many distinct risk values lie strictly below ``nu(x)``."""
        t = _parameter(x, self.scale)
        return np.maximum(np.searchsorted(self.d, t, side="left"), 1)

    def stats(self, x):
        """``(L, D)`` along the family, vectorized over ``x``."""
        t = np.atleast_1d(_parameter(x, self.scale))
        k = np.maximum(np.searchsorted(self.d, t, side="left"), 1) - 1
        A0, A1, A2 = (a[k] for a in self.A)
        finite = np.isfinite(t) & (t > 0)
        tf = np.where(finite, t, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            # divided through by t (and t^2): on the segment d_j < t, so A1/t <= A0 and
            # A2/t^2 <= A0 cannot overflow, and t^2 cannot underflow
            a1, a2 = A1 / tf, (A2 / tf) / tf
            Z = A0 - a1
            L = self.u1 + (A1 - A2 / tf) / Z
            D = (A0 - 2 * a1 + a2) / (Z * Z)
        L = np.where(finite, L, np.where(t == 0, self.u1, self.u1 + A1 / A0))
        D = np.where(finite, D, 1 / A0)
        return L, D

    e = 1.0  # the exponent of (nu - l)_+ in the family

    def posterior(self, x) -> np.ndarray:
        """``q(nu(x)) ∝ p (1 - (l - u_1)/t)_+^e`` over all H classifiers, computed directly
        (not by cumulative sums), with the limits ``t = 0`` and ``t = inf``."""
        t = float(_parameter(x, self.scale))
        gap = self.risks - self.u1
        if t == 0:
            weights = np.where(gap == 0, self.prior, 0.0)
        elif np.isinf(t):
            weights = self.prior.copy()
        else:
            weights = self.prior * np.clip(1 - gap / t, 0.0, None) ** self.e
        return weights / weights.sum()


class RenyiFamily:
    """``q(nu) ∝ p ((nu - l)_+)^(1/(alpha-1))``: minimizers of ``L + mu sum q^a p^(1-a)``.

    With ``t = nu - u_1``, ``d = u - u_1`` and ``z = (1 - d/t)_+ in [0, 1]`` (``t``
    factored out so that no power over- or underflows), ``e = 1/(alpha - 1)``:
    ``L = u_1 + sum w z^e d / sum w z^e`` and ``D = sum w z^(alpha e) / (sum w z^e)^alpha``.
    Evaluated directly, ``O(points x distinct risks)``; ``alpha = 2`` is :class:`Chi2Family`.
    """

    parameter = "nu"
    L_increasing = True

    def __init__(self, risks, prior, alpha):
        self.risks, self.prior, self.alpha = risks, prior, alpha
        self.u1, self.d, self.w = distinct_risks(risks, prior)
        self.scale = max(float(self.d[-1]), 1e-12)
        self.e = 1 / (alpha - 1)

    breaks = Chi2Family.breaks
    nu = Chi2Family.nu
    support_size = Chi2Family.support_size
    posterior = Chi2Family.posterior

    def stats(self, x):
        """``(L, D)`` along the family, vectorized over ``x``."""
        t = np.atleast_1d(_parameter(x, self.scale))
        positive = t > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.clip(1 - self.d[None, :] / np.where(positive, t, 1.0)[:, None], 0.0, None)
        z = np.where(positive[:, None], z, (self.d == 0)[None, :].astype(float))
        base = self.w * z**self.e
        total = base.sum(axis=1)
        L = self.u1 + (base @ self.d) / total
        D = (self.w * z ** (self.alpha * self.e)).sum(axis=1) / total**self.alpha
        return L, D


class GibbsFamily:
    """``q(beta) ∝ p exp(-beta l)``: the minimizers of ``L + KL / beta``."""

    parameter = "beta"
    L_increasing = False

    def __init__(self, risks, prior):
        self.risks, self.prior = risks, prior
        self.u1, self.d, weights = distinct_risks(risks, prior)
        self.log_w = np.log(weights)
        self.scale = 1.0 / max(float(self.d[-1]), 1e-12)

    def breaks(self):
        return None

    def beta(self, x):
        return _parameter(x, self.scale)

    def support_size(self, x):
        t = np.atleast_1d(_parameter(x, self.scale))
        return np.where(np.isinf(t), 1, self.d.size)

    def stats(self, x):
        """``(L, KL)`` along the family, vectorized over ``x`` (log-sum-exp)."""
        beta = np.atleast_1d(_parameter(x, self.scale))
        finite = np.isfinite(beta)
        b = np.where(finite, beta, 0.0)[:, None]
        logits = self.log_w[None, :] - b * self.d[None, :]
        top = logits.max(axis=1, keepdims=True)
        weights = np.exp(logits - top)
        total = weights.sum(axis=1)
        mean_gap = (weights @ self.d) / total
        log_z = top[:, 0] + np.log(total)
        L = self.u1 + mean_gap
        K = np.maximum(-b[:, 0] * mean_gap - log_z, 0.0)  # KL = -beta (L - u_1) - log Z
        L = np.where(finite, L, self.u1)
        K = np.where(finite, K, -self.log_w[0])
        return L, K

    def posterior(self, x) -> np.ndarray:
        beta = float(_parameter(x, self.scale))
        gap = self.risks - self.u1
        if np.isinf(beta):
            weights = np.where(gap == 0, self.prior, 0.0)
            return weights / weights.sum()
        with np.errstate(divide="ignore"):
            logits = np.log(self.prior) - beta * gap
        return np.exp(logits - logsumexp(logits))
