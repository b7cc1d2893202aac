"""Floating-point rounding and the tolerances every layer shares, defined once.

``EPS`` is the machine epsilon of float64; :func:`nudge` moves a value outward by a few
ulps, which is how every reported bound is rounded up and every certified lower bound
down; :func:`exp_up` exponentiates a logarithm rounded up. The tolerances below are the
package's only ones for checking a user's distribution or a matrix's curvature.
"""

from __future__ import annotations

import math

import numpy as np

EPS = float(np.finfo(float).eps)
TINY = 5e-324  # the least subnormal
LARGEST = float(np.finfo(float).max)
PRIOR_SUM_TOLERANCE = 1e-9  # how far a prior (or posterior) may sum from 1
PSD_TOLERANCE = 1e-10  # a matrix's least eigenvalue may fall below 0 by this, relative


def nudge(x, rounding: int):
    """``x`` moved outward in the direction ``rounding`` (+1, -1 or 0).

    The step is ``16 eps |x| + 5e-324``: at least 15 ulps for a normal ``x`` even after
    the sum's rounding (``16 eps |x|`` is 16 ulps or more, and rounding to nearest gives
    back at most one of the result's, at most two of ``x``'s), and one subnormal step
    at 0 and for subnormals (their sums are exact). A tenth of the time ``nextafter``
    takes.

    Parameters
    ----------
    x : float or ndarray
        The value(s) to move.
    rounding : {+1, -1, 0}
        Up, down, or not at all.

    Returns
    -------
    ndarray or numpy.float64
        ``x`` moved outward (a numpy float for one float); ``inf`` past the largest
        float when moving up.

    Examples
    --------
    >>> from cvxpb.numerics.tolerances import nudge
    >>> bool(nudge(1.0, +1) > 1.0 > nudge(1.0, -1))
    True
    >>> float(nudge(float("inf"), -1)), float(nudge(-float("inf"), +1))
    (inf, -inf)
    """
    if isinstance(x, float):  # one value (Python's or numpy's): the same bits, faster
        return np.float64(nudge_float(float(x), rounding))
    x = np.asarray(x, dtype=float)
    if rounding == 0:
        return x
    step = np.abs(x)
    if step.ndim:  # an infinite x stays where it is, never NaN (inf - inf)
        np.minimum(step, LARGEST, out=step)
    elif step > LARGEST:
        step = LARGEST
    step *= 16 * EPS
    step += TINY
    with np.errstate(over="ignore"):  # past the largest float: inf, outward still
        return x + step if rounding > 0 else x - step


def nudge_float(x: float, rounding: int) -> float:
    """:func:`nudge` for one Python float, without the array machinery.

    The same step, ``16 eps |x| + 5e-324``, in a tenth of the time: for loops over a few
    values.

    Parameters
    ----------
    x : float
        The value to move.
    rounding : {+1, -1, 0}
        Up, down, or not at all.

    Returns
    -------
    float
        ``x`` moved outward; ``inf`` past the largest float when moving up.

    Examples
    --------
    >>> from cvxpb.numerics.tolerances import nudge, nudge_float
    >>> nudge_float(0.3, -1) == float(nudge(0.3, -1))
    True
    """
    step = 16 * EPS * min(abs(x), LARGEST) + TINY
    return x + rounding * step if rounding else x


def gap_goal(tol: float, rtol: float | None, bound: float) -> float:
    """The certified gap a search stops at: ``tol``, or ``rtol`` times the bound if less.

    ``rtol`` of None asks no relative gap.

    Parameters
    ----------
    tol : float
        The absolute gap.
    rtol : float or None
        The gap relative to the bound, or None for ``tol`` alone.
    bound : float
        The bound at the best posterior so far (a bound at or below 0, or not finite,
        keeps ``tol``).

    Returns
    -------
    float
        ``min(tol, rtol * bound)`` where that is positive, else ``tol``.

    Examples
    --------
    >>> from cvxpb.numerics.tolerances import gap_goal
    >>> gap_goal(1e-7, 1e-6, 0.01), gap_goal(1e-7, 1e-6, 0.5), gap_goal(1e-7, None, 0.01)
    (1e-08, 1e-07, 1e-07)
    """
    relative = math.inf if rtol is None else rtol * bound
    return min(tol, relative) if relative > 0 else tol


def exp_up(log_value: float) -> float:
    """Exponentiate a logarithm, rounded up so that an upper bound stays one.

    The result is at least the smallest positive float, and ``inf`` on overflow.

    Parameters
    ----------
    log_value : float
        A logarithm, typically an upper bound on one.

    Returns
    -------
    float
        A value at least ``exp(log_value)``.
    """
    if log_value > 709.78:
        return math.inf
    return max(float(nudge(math.exp(log_value), +1)), math.ulp(0.0))
