"""Divergences between a discrete posterior ``q`` and prior ``p``.

Each is a small class with ``value``, ``gradient`` and ``expr`` (the CVXPY
expression), so the NumPy route and the DCP route sit side by side.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
from scipy.special import rel_entr


class Chi2:
    """``D(q) = sum_i q_i^2 / p_i = chi2(Q||P) + 1``, the factor in Theorem 1 (alpha = 2)."""

    name = "chi2"

    def value(self, q, p) -> float:
        """``sum q^2/p``, exactly summed (``math.fsum``); ``inf`` if ``q_i > 0 = p_i``."""
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        if np.any((q > 0) & (p == 0)):
            return math.inf
        support = q > 0
        return math.fsum(q[support] ** 2 / p[support])

    def gradient(self, q, p) -> np.ndarray:
        """``2 q / p``."""
        return 2 * np.asarray(q, dtype=float) / np.asarray(p, dtype=float)

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum_i q_i^2 / p_i`` (convex quadratic; needs ``p > 0``)."""
        return cp.sum(cp.multiply(1 / np.asarray(p, dtype=float), cp.square(q)))


class KLDivergence:
    """``KL(Q||P) = sum_i q_i log(q_i / p_i)``, with ``0 log 0 = 0``."""

    name = "kl"

    def value(self, q, p) -> float:
        """Exactly summed ``sum q log(q/p)``; ``inf`` if ``q_i > 0 = p_i``."""
        terms = rel_entr(np.asarray(q, dtype=float), np.asarray(p, dtype=float))
        return math.fsum(terms) if np.all(np.isfinite(terms)) else math.inf

    def gradient(self, q, p) -> np.ndarray:
        """``log(q/p) + 1``."""
        return np.log(np.asarray(q, dtype=float) / np.asarray(p, dtype=float)) + 1

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum rel_entr(q, p)`` (exponential cone)."""
        return cp.sum(cp.rel_entr(q, np.asarray(p, dtype=float)))


class Renyi:
    """``D_alpha(q) = sum_i q_i^alpha p_i^(1 - alpha) = E_P[(q/p)^alpha]``, alpha > 1.

    The factor of Theorem 1 of seed 000 (raised to ``1/alpha`` there); the Renyi
    divergence itself is ``log(D_alpha) / (alpha - 1)``. ``alpha = 2`` is :class:`Chi2`.
    """

    name = "renyi"

    def __init__(self, alpha: float):
        self.alpha = alpha

    def value(self, q, p) -> float:
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        if np.any((q > 0) & (p == 0)):
            return math.inf
        on = q > 0
        return math.fsum(q[on] ** self.alpha * p[on] ** (1 - self.alpha))

    def gradient(self, q, p) -> np.ndarray:
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        return self.alpha * q ** (self.alpha - 1) * p ** (1 - self.alpha)

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        """``sum_i p_i^(1-alpha) q_i^alpha`` (convex power; needs ``p > 0``)."""
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
