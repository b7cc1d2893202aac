"""Derivatives by central differences, kept inside a function's domain."""

from __future__ import annotations

import math
from collections.abc import Callable


def central_difference(
    f: Callable[[float], float],
    x: float,
    step: float,
    lower: float = -math.inf,
    upper: float = math.inf,
) -> float:
    """The slope of ``f`` at ``x`` from its values a ``step`` to either side.

    Parameters
    ----------
    f : callable
        A function of one real number.
    x : float
        The point.
    step : float
        The distance to each side (positive).
    lower, upper : float, default=-inf, inf
        The ends of ``f``'s domain: a side that would leave it stops at the end, and
        the difference is divided by the width actually spanned.

    Returns
    -------
    float
        ``(f(b) - f(a)) / (b - a)`` with ``a = max(x - step, lower)`` and
        ``b = min(x + step, upper)``.

    Examples
    --------
    >>> round(central_difference(lambda t: t**3, 2.0, 1e-4), 6)  # 3 x^2 (+ step^2)
    12.0
    >>> round(central_difference(math.sqrt, 0.0, 1e-6, lower=0.0), 6)  # one side at 0
    1000.0
    """
    below, above = max(x - step, lower), min(x + step, upper)
    return float(f(above) - f(below)) / (above - below)
