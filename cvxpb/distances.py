"""Distance functions ``phi(lhat, l)`` between empirical and true risk.

A bound of the form ``phi(L, R) <= rhs`` is turned into ``R <= inverse(L, rhs)``.
``rounding=+1`` rounds the result up (for reported bounds), ``-1`` down (for
lower certificates), ``0`` leaves it as computed (for searching).
"""

from __future__ import annotations

import numpy as np

from cvxpb.numerics.kl import kl, kl_inv_upper_bracket, kl_inv_upper_newton
from cvxpb.numerics.tolerances import nudge


class Linear:
    """``phi(lhat, l) = l - lhat``: ``R <= L + rhs``."""

    name = "linear"

    def phi(self, lhat, l):
        return np.asarray(l) - np.asarray(lhat)

    def expr(self, lhat, l):
        return l - lhat

    def inverse(self, L, rhs, rounding: int = 0):
        return nudge(nudge(L, rounding) + nudge(rhs, rounding), rounding)


class Squared:
    """``phi(lhat, l) = (l - lhat)^2``: ``R <= L + sqrt(rhs)``."""

    name = "sq"

    def phi(self, lhat, l):
        return (np.asarray(l) - np.asarray(lhat)) ** 2

    def expr(self, lhat, l):
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        return cp.square(l - lhat)

    def inverse(self, L, rhs, rounding: int = 0):
        root = nudge(np.sqrt(nudge(rhs, rounding)), rounding)
        return nudge(nudge(L, rounding) + root, rounding)


class KLDistance:
    """``phi(lhat, l) = kl(lhat, l)``: ``R <= kl^{-1}(L, rhs)`` (upper inverse)."""

    name = "kl"

    def phi(self, lhat, l):
        return kl(lhat, l)

    def expr(self, lhat, l):
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        # kl(L, r) = kl_div(L, r) + kl_div(1-L, 1-r): the linear terms cancel
        return cp.kl_div(lhat, l) + cp.kl_div(1 - lhat, 1 - l)

    def inverse(self, L, rhs, rounding: int = 0):
        L = np.clip(nudge(L, rounding), 0.0, 1.0)
        rhs = np.maximum(nudge(rhs, rounding), 0.0)
        if rounding > 0:
            return kl_inv_upper_bracket(L, rhs)[1]
        r, error = kl_inv_upper_newton(L, rhs)
        return np.maximum(r - error, L) if rounding < 0 else r


DISTANCES = {"linear": Linear(), "sq": Squared(), "kl": KLDistance()}
