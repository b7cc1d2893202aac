"""The binomial log-probability ``log Bin(k; m, l)``, accurate at any sample size.

Loader's saddle-point form (Loader, 2000, "Fast and accurate computation of
binomial probabilities"), for ``0 < k < m``:

``log Bin(k; m, l) = -m kl(k/m, l) + 1/2 log(m / (2 pi k (m - k))) + s(m) - s(k) - s(m - k)``

with ``s(n) = log n! - (n log n - n + 1/2 log(2 pi n))`` the error of Stirling's
formula. Every term is small near the mode, so the result keeps its relative
accuracy where a difference of log-gammas (each ~ ``m log m``) loses ``log10(m)``
digits: at ``m = 10^6`` that route is 2e-9 off, this one a few ulps.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.numerics.kl import kl_unchecked as kl

_HALF_LOG_2PI = 0.5 * np.log(2 * np.pi)
_SERIES_FROM = 15  # s(n) by its asymptotic series from here on (error < 1e-17)
_LOG_FACTORIAL = np.array([math.lgamma(n + 1) for n in range(_SERIES_FROM)])


def stirling_error(n):
    """Evaluate Stirling's error ``s(n) = log n! - (n log n - n + 1/2 log(2 pi n))``.

    Parameters
    ----------
    n : array_like of integers >= 1
        The arguments.

    Returns
    -------
    ndarray
        ``s(n)``: directly below 15, by its asymptotic series from there (error below
        1e-17).
    """
    n = np.asarray(n, dtype=float)
    small = n < _SERIES_FROM
    ns = np.where(small, n, 1.0)
    stirling = ns * np.log(ns) - ns + _HALF_LOG_2PI + 0.5 * np.log(ns)
    direct = _LOG_FACTORIAL[ns.astype(int)] - stirling
    nl = np.where(small, _SERIES_FROM, n)
    inv2 = 1 / (nl * nl)
    # 1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9)
    series = (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188)))) / nl
    return np.where(small, direct, series)


def log_pmf(k, m: int, l):
    """Evaluate the binomial log-probability ``log Bin(k; m, l)`` in log space.

    Parameters
    ----------
    k : array_like
        Counts in ``0..m``.
    m : int
        The number of trials.
    l : array_like of floats in [0, 1]
        The success probability, broadcast against ``k``.

    Returns
    -------
    ndarray
        ``log Bin(k; m, l)``, ``-inf`` where the probability is 0.
    """
    k, l = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(l, dtype=float))
    inner = (k > 0) & (k < m)
    ki = np.where(inner, k, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        middle = (
            -m * kl(ki / m, l)
            + 0.5 * (np.log(m) - np.log(ki) - np.log(m - ki))
            - _HALF_LOG_2PI
            + stirling_error(m)
            - stirling_error(ki)
            - stirling_error(m - ki)
        )
        at_zero = m * np.log1p(-l)
        at_m = m * np.log(l)
    out = np.where(inner, middle, np.where(k == 0, at_zero, at_m))
    return float(out) if out.ndim == 0 else out
