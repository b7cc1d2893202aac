"""The kl inverse atoms: the upper and lower inverses of the binary kl divergence.

Seeger's bound and the majority-vote bounds built on it state the true risk through
``kl_inverse(L, e) = sup {r : kl(L, r) <= e}`` (increasing in both arguments, jointly
concave) and ``kl_inverse_lower(L, e) = inf {r : kl(L, r) <= e}`` (increasing in ``L``,
decreasing in ``e``, jointly convex); each evaluates with outward rounding
(:func:`kl_upper_rounded`, :func:`kl_lower_rounded`).
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.expressions import Expression, composes, within
from cvxpb.numerics.kl import kl_inv_lower_bracket, kl_inv_lower_newton
from cvxpb.numerics.tolerances import nudge
from cvxpb.pac_bayes.distances import KLDistance

_KL_DISTANCE = KLDistance()


class KLInverse(Expression):
    """The upper or lower inverse of the binary kl divergence.

    The upper inverse ``sup {r >= L : kl(L, r) <= e}`` is increasing in both arguments;
    the lower one ``inf {r <= L : kl(L, r) <= e}`` is increasing in ``L`` and decreasing
    in ``e``. ``L`` is clipped into [0, 1] and ``e`` at 0.

    Parameters
    ----------
    L : Expression or float
        The empirical risk.
    e : Expression or float
        The right-hand side (complexity term).
    upper : bool, default=True
        The upper inverse, else the lower one.
    """

    def __init__(self, L, e, upper=True):
        super().__init__(L, e)
        self.upper = upper
        self.monotonicity = (1, 1) if upper else (1, -1)

    def _apply(self, arguments, rounding):
        L, e = np.broadcast_arrays(*arguments)
        if self.upper:
            return kl_upper_rounded(L, e, rounding)
        return kl_lower_rounded(L, e, rounding)

    def _curvature(self, kinds, ranges):
        """The upper inverse is jointly concave, the lower one jointly convex: each is
        the largest or least ``r`` over a slice of the convex set ``kl(L, r) <= e``.
        The clips keep that where they act on the side that bends the right way (the
        least of concave functions is concave, the largest of convex ones convex): ``L``
        clipped at 1 above the upper inverse, at 0 below the lower one. The others must
        not act: ``L >= 0`` for the upper, ``L <= 1`` for the lower, ``e >= 0`` both."""
        want = "concave" if self.upper else "convex"
        L = within(ranges[0], 0.0) if self.upper else within(ranges[0], high=1.0)
        inside = L and within(ranges[1], 0.0)
        return want if inside and composes(kinds, self.monotonicity, want) else None

    def __repr__(self):
        name = "kl_inverse" if self.upper else "kl_inverse_lower"
        return f"{name}({self.args[0]!r}, {self.args[1]!r})"


def kl_upper_rounded(L, e, rounding):
    """Compute the upper kl inverse ``sup {r >= L : kl(L, r) <= e}``, rounded outward.

    Parameters
    ----------
    L, e : array_like
        The empirical value and the inequality's side.
    rounding : {1, 0, -1}
        Up, nearest or down.

    Returns
    -------
    ndarray
        The inverse.
    """
    return _KL_DISTANCE.inverse(L, e, rounding)


def kl_lower_rounded(L, e, rounding):
    """Compute the lower kl inverse ``inf {r <= L : kl(L, r) <= e}``, rounded outward.

    Parameters
    ----------
    L, e : array_like
        The empirical value (clipped into [0, 1]) and the inequality's side (at
        least 0).
    rounding : {1, 0, -1}
        Up, nearest or down.

    Returns
    -------
    ndarray
        The inverse.
    """
    L, e = np.clip(L, 0.0, 1.0), np.maximum(e, 0.0)
    lo, hi = kl_inv_lower_bracket(L, e)
    exact = (e == 0) | (L == 0)
    if rounding == 0:  # Newton's root within the bracket: the midpoint of a bracket
        # cut at its absolute width (1e-300) lies far above a subnormal root
        end = np.clip(kl_inv_lower_newton(L, e)[0], lo, hi)
    else:
        end = lo if rounding < 0 else nudge(hi, rounding)
    return np.where(exact, L, np.clip(end, 0.0, L))


def kl_inverse(L, e) -> Expression:
    """The upper kl inverse ``sup {r : kl(L, r) <= e}``.

    Parameters
    ----------
    L : Expression or float
        The empirical risk, clipped into [0, 1].
    e : Expression or float
        The right-hand side, clipped at 0.

    Returns
    -------
    Expression
        The atom, increasing in both.
    """
    return KLInverse(L, e, upper=True)


def kl_inverse_lower(L, e) -> Expression:
    """The lower kl inverse ``inf {r : kl(L, r) <= e}``.

    Parameters
    ----------
    L : Expression or float
        The empirical value, clipped into [0, 1].
    e : Expression or float
        The right-hand side, clipped at 0.

    Returns
    -------
    Expression
        The atom: increasing in ``L``, decreasing in ``e``.
    """
    return KLInverse(L, e, upper=False)
