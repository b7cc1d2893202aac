"""Distance functions ``phi(lhat, l)`` between empirical and true risk.

A bound of the form ``phi(L, R) <= rhs`` is turned into ``R <= inverse(L, rhs)``.
``rounding=+1`` rounds the result up (for reported bounds), ``-1`` down (for
lower certificates), ``0`` leaves it as computed (for searching).
"""

from __future__ import annotations

import numpy as np

from cvxpb.kl import kl, kl_inv_upper_bracket, kl_inv_upper_newton

_EPS = np.finfo(float).eps


_TINY = 5e-324  # the least subnormal


def nudge(x, rounding: int):
    """``x`` moved outward in the direction ``rounding`` (+1, -1 or 0): by
    ``16 eps |x| + 5e-324``, so at least 15 ulps for a normal ``x`` even after the
    sum's rounding (``16 eps |x|`` is 16 ulps or more and rounding to nearest gives back
    at most one of the result's, at most two of ``x``'s), and one subnormal step at 0
    and for subnormals (their sums are exact). A tenth of the time ``nextafter`` took."""
    x = np.asarray(x, dtype=float)
    if rounding == 0:
        return x
    step = np.abs(x)
    step *= 16 * _EPS
    step += _TINY
    with np.errstate(over="ignore"):  # past the largest float: inf, outward still
        return x + step if rounding > 0 else x - step


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
