"""Divergences between a discrete posterior ``q`` and prior ``p``.

Each is a small class with ``value``, ``gradient`` and ``expr`` (the CVXPY
expression), so the NumPy route and the DCP route sit side by side.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp, rel_entr

from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS

if TYPE_CHECKING:
    import cvxpy as cp


class Chi2:
    """``D(q) = sum_i q_i^2 / p_i = chi2(Q||P) + 1``, the factor in Theorem 1 (alpha = 2)."""

    name = "chi2"

    def term_name(self) -> str:
        """The name of this divergence's term in a declared bound (and in ``Result.terms``)."""
        return "chi2"

    def reported(self, D: float) -> float:
        """The chi-squared divergence ``chi2(Q||P) = D - 1`` from the bound's argument
        ``D = sum q^2/p``."""
        return D - 1.0

    def value(self, q, p) -> float:
        """``sum q^2/p``, exactly summed (``exact_sum``); ``inf`` if ``q_i > 0 = p_i``."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        if np.any((q > 0) & (p == 0)):
            return math.inf
        support = q > 0
        return exact_sum(q[support] ** 2 / p[support])

    def rounding_error(self, q, p) -> float:
        """Zero beyond the relative few ulps that reporting adds (positive terms, fsum)."""
        return 0.0

    def gradient(self, q, p) -> np.ndarray:
        """``2 q / p``."""
        return 2 * np.asarray(q, dtype=float) / np.asarray(p, dtype=float)

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum_i q_i^2 / p_i`` (convex quadratic; needs ``p > 0``)."""
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        return cp.sum(cp.multiply(1 / np.asarray(p, dtype=float), cp.square(q)))


class KLDivergence:
    """``KL(Q||P) = sum_i q_i log(q_i / p_i)``, with ``0 log 0 = 0``."""

    name = "kl"

    def term_name(self) -> str:
        return "KL"

    def reported(self, K: float) -> float:
        """``KL(Q||P)``: the bound's argument itself."""
        return K

    def value(self, q, p) -> float:
        """Exactly summed ``sum q log(q/p)``; ``inf`` if ``q_i > 0 = p_i``."""
        terms = rel_entr(np.asarray(q, dtype=float), np.asarray(p, dtype=float))
        return exact_sum(terms) if np.all(np.isfinite(terms)) else math.inf

    def rounding_error(self, q, p) -> float:
        """A bound on the absolute rounding error of :meth:`value` (terms of both signs)."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        size = np.abs(q[on] * np.log(q[on])) + np.abs(q[on] * np.log(p[on]))
        return 16 * EPS * exact_sum(size) + 1e-300

    def gradient(self, q, p) -> np.ndarray:
        """``log(q/p) + 1``."""
        return np.log(np.asarray(q, dtype=float) / np.asarray(p, dtype=float)) + 1

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum rel_entr(q, p)`` (exponential cone)."""
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        return cp.sum(cp.rel_entr(q, np.asarray(p, dtype=float)))


class Renyi:
    """The Renyi divergence of order ``alpha > 1``:
    ``D_alpha(Q||P) = log(sum_i q_i^alpha p_i^(1 - alpha)) / (alpha - 1)``.

    Theorem 1 of Sahu & Hemachandra (after Begin et al., 2016) has
    ``(sum q^alpha p^(1-alpha))^(1/alpha) = exp(D_alpha / alpha')``; the sum itself
    overflows for small prior weights, so it is never formed: with
    ``t_i = (alpha - 1) log(q_i / p_i)``, ``log sum q e^t`` is ``log1p(sum q expm1(t))``
    when every ``t_i <= 1`` (accurate as ``alpha -> 1``) and a log-sum-exp otherwise.
    ``alpha = 2`` gives ``log(sum q^2/p)``; ``divergence="chi2"`` keeps the sum itself.
    """

    name = "renyi"

    def __init__(self, alpha: float):
        self.alpha = alpha

    def term_name(self) -> str:
        return f"renyi_{self.alpha:g}"

    def reported(self, D: float) -> float:
        """``D_alpha(Q||P)``: the bound's argument itself."""
        return D

    def _scaled_log_ratios(self, q, p):
        on = q > 0
        return on, (self.alpha - 1) * (np.log(q[on]) - np.log(p[on]))

    def log_moment(self, q, p) -> float:
        """``log sum_i q_i^alpha p_i^(1 - alpha)``."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        if np.any((q > 0) & (p == 0)):
            return math.inf
        on, t = self._scaled_log_ratios(q, p)
        if t.size and np.max(t) <= 1:
            terms = np.concatenate([q[on] * np.expm1(t), q[on]])
            return math.log1p(exact_sum([*terms, -1.0]))
        return float(logsumexp(np.log(q[on]) + t))

    def value(self, q, p) -> float:
        return self.log_moment(q, p) / (self.alpha - 1)

    def rounding_error(self, q, p) -> float:
        """A bound on the absolute rounding error of :meth:`value`."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        size = np.max(np.abs(np.log(q[on])) + np.abs(np.log(p[on])), initial=0.0)
        return 32 * EPS * (size + abs(self.value(q, p))) + 1e-300

    def gradient(self, q, p) -> np.ndarray:
        """``alpha/(alpha-1) (q_i/p_i)^(alpha-1) / sum_j q_j^alpha p_j^(1-alpha)``."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        with np.errstate(divide="ignore"):
            t = (self.alpha - 1) * (np.log(q) - np.log(p))
        scale = self.alpha / (self.alpha - 1)
        return scale * np.exp(t - self.log_moment(q, p))

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum_i p_i^(1-alpha) q_i^alpha``, the convex moment (``D_alpha`` is its
        increasing transform ``log(.)/(alpha - 1)``; needs ``p > 0``)."""
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        weights = np.asarray(p, dtype=float) ** (1 - self.alpha)
        return cp.sum(cp.multiply(weights, cp.power(q, self.alpha)))


DIVERGENCES = ("chi2", "kl", "renyi")


def get_divergence(name: str, alpha: float | None = None):
    """The divergence object called ``name``; ValueError listing the known ones."""
    if name == "chi2":
        return Chi2()
    if name == "kl":
        return KLDivergence()
    if name == "renyi":
        return Renyi(alpha)
    raise ValueError(f"divergence must be one of {DIVERGENCES}, got {name!r}")
