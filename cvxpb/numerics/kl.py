"""Binary kl divergence and its inverses, conservative by construction.

``kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q))``. Its upper inverse
``sup {r in [p, 1] : kl(p, r) <= eps}`` is the kl bound on a true risk. We return
the *upper* end of a bisection bracket no wider than ``BRACKET_WIDTH`` whose end
was checked, with a floating-point error margin, to satisfy ``kl(p, r) >= eps``:
the value returned is never below the true inverse. (A bisection midpoint, as
public PAC-Bayes code returns, can fall below it.)

**kl without cancellation.** With ``h = q - p``, ``kl = -p psi(h/p) - (1-p) psi(-h/(1-p))``,
``psi(x) = log1p(x) - x``: two non-negative parts, the linear terms ``-h`` and ``+h``
cancelled exactly. Near ``x = 0``, ``psi`` is the series in ``u = x / (2 + x)``
(``log1p(x) = 2 atanh(u)``): ``psi = -2u^2/(1-u) + 2u^3 (1/3 + u^2/5 + u^4/7 + ...)``,
whose two parts have one sign each; for ``|x| < 0.1``, ``u^2 < 0.0028`` and eight terms
reach double precision. A computed kl is within ``64 eps kl + 1e-300`` of the true one.

**The verified brackets.** Newton's root (:func:`kl_inv_upper_newton`,
:func:`kl_inv_lower_newton`) gives a start a few ulps wide, kept where its ends pass the
bisection's own tests with that rounding margin, and halved until no wider than
``max(1e-300, 4 eps hi)``; where they fail, the bisection starts from the whole side
(``[p, 1]`` or ``[0, p]``), or from ``[0, 1e-300]`` where the lower root is below that
width. The arithmetic, at one point, is compiled once (:mod:`cvxpb.numerics.kl_kernels`);
this module checks, broadcasts and loops over points.
"""

from __future__ import annotations

import numpy as np

from cvxpb.numerics.compiled import Kernels
from cvxpb.numerics.tolerances import EPS
from cvxpb.validation import check_unit_interval, real_array

KERNELS = Kernels("cvxpb.numerics.kl_kernels")
BRACKET_WIDTH = 1e-300  # a bracket is halved until no wider than this ...
BRACKET_RELATIVE = 4 * EPS  # ... or this times its upper end
UPPER_NEWTON, LOWER_NEWTON, UPPER_BRACKET, LOWER_BRACKET = range(4)  # kl_kernels.inverse_many
AT_ONE_POINT = ("upper_newton", "lower_newton", "upper_bracket", "lower_bracket")  # the same


def _flat(p, q):
    """``p`` and ``q`` broadcast together as flat float arrays the kernels read (fresh
    and writeable: numba would compile apart for a read-only or broadcast view), and
    their shape."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))
    return np.array(p, order="C").ravel(), np.array(q, order="C").ravel(), p.shape


def _inverse(which, p, eps, max_iter=60):
    """One of the kernels' inverses (``which``) at each point: two arrays of the
    broadcast shape (one point: the kernel inverse_many calls, without the arrays)."""
    if np.ndim(p) == 0 and np.ndim(eps) == 0:
        inverse = getattr(KERNELS, AT_ONE_POINT[which])
        steps = (int(max_iter),) if which in (UPPER_NEWTON, LOWER_NEWTON) else ()
        first, second = inverse(float(p), float(eps), *steps)
        return np.asarray(first), np.asarray(second)
    p, eps, shape = _flat(p, eps)
    first, second = np.empty(p.size), np.empty(p.size)
    KERNELS.inverse_many(which, p, eps, int(max_iter), first, second)
    return first.reshape(shape), second.reshape(shape)


def _one_float(x) -> bool:
    """Whether ``x`` is one float64 (a Python float, numpy's, or a 0-d array)."""
    if type(x) in (float, np.float64):
        return True
    return type(x) is np.ndarray and x.shape == () and x.dtype == np.float64


def _check(p, eps):
    if _one_float(p) and _one_float(eps) and 0 <= p <= 1 and eps >= 0:  # one plain point
        return np.asarray(p, dtype=float), np.asarray(eps, dtype=float)
    check_unit_interval(real_array(p, "p"), "p")
    p, eps = np.broadcast_arrays(np.asarray(p, dtype=float), real_array(eps, "eps"))
    if not np.all(eps >= 0):  # False for NaN too
        raise ValueError("eps must be >= 0 with no NaN")
    return p.astype(float), eps.astype(float)


def _as_float(x):
    """A 0-d result as a float; arrays as they are."""
    return float(x) if np.ndim(x) == 0 else x


def kl(p, q):
    """Binary kl divergence ``kl(p, q)`` between Bernoulli(p) and Bernoulli(q).

    Parameters
    ----------
    p, q : array_like of floats in [0, 1]
        Broadcast together. ``kl(p, 0) = inf`` for ``p > 0``, and likewise at 1.

    Returns
    -------
    ndarray or float
        Accurate to a few ulps relative, also for ``q`` close to ``p``.

    Examples
    --------
    >>> from cvxpb import kl
    >>> round(kl(0.1, 0.2), 8)  # 0.1 log(0.1/0.2) + 0.9 log(0.9/0.8)
    0.03669001
    >>> kl(0.0, 0.5) == float(np.log(2))
    True
    """
    check_unit_interval(real_array(p, "p"), "p")
    check_unit_interval(real_array(q, "q"), "q")
    return kl_unchecked(p, q)


def kl_unchecked(p, q):
    """Evaluate :func:`kl` without the domain check, for searches whose iterates stray.

    Parameters
    ----------
    p, q : array_like of floats
        As for :func:`kl`; NaN or values slightly outside [0, 1] give NaN or garbage,
        never an error.

    Returns
    -------
    ndarray or float
        ``kl(p, q)``.
    """
    if np.ndim(p) == 0 and np.ndim(q) == 0:
        return KERNELS.kl(float(p), float(q))
    p, q, shape = _flat(p, q)
    out = np.empty(p.size)
    KERNELS.kl_many(p, q, out)
    return out.reshape(shape)


def kl_inv_upper_bracket(p, eps):
    """Bracket the upper inverse ``sup {r >= p : kl(p, r) <= eps}``.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        The empirical risk.
    eps : array_like of floats >= 0
        The right side of ``kl(p, r) <= eps``.

    Returns
    -------
    lo : ndarray
        The lower end.
    hi : ndarray
        The upper end: ``hi`` satisfies ``kl(p, hi) >= eps`` (checked with a rounding margin), so it
        is never below the true inverse; ``hi - lo`` is at most ``4 eps hi``.
    """
    return _inverse(UPPER_BRACKET, *_check(p, eps))


def kl_inv_upper(p, eps):
    """Upper inverse of the binary kl: the kl bound on a true risk.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        Empirical (posterior-averaged) risk.
    eps : array_like of floats >= 0
        Right-hand side of ``kl(p, r) <= eps``; ``inf`` gives 1.

    Returns
    -------
    ndarray or float
        The upper end of a verified bracket: never below the true inverse, and above
        it by at most the bracket's width (4 ulps relative) plus kl's rounding margin
        carried into ``r`` (38 ulps at ``p = 0, eps = 1``; within 1e-13 relative).

    Examples
    --------
    The true risk of a classifier with empirical risk 0.1 on ``m = 200`` examples is,
    with probability at least 0.95, at most (Langford's test-set bound)

    >>> from cvxpb import kl, kl_inv_upper
    >>> r = kl_inv_upper(0.1, np.log(1 / 0.05) / 200)
    >>> round(r, 4), bool(kl(0.1, r) >= np.log(20) / 200)
    (0.1597, True)
    """
    return _as_float(kl_inv_upper_bracket(p, eps)[1])


def kl_inv_lower_bracket(p, eps):
    """Bracket the lower inverse ``inf {r <= p : kl(p, r) <= eps}``.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        The empirical risk.
    eps : array_like of floats >= 0
        The right side of ``kl(p, r) <= eps``.

    Returns
    -------
    lo : ndarray
        The lower end: ``lo`` satisfies ``kl(p, lo) >= eps`` (checked with a rounding
        margin) or is 0, so it is never above the true inverse. Where ``eps = 0`` or ``p = 0`` the
        inverse is ``p`` itself, which the caller takes.
    hi : ndarray
        The upper end, ``hi - lo`` at most ``4 eps hi``.
    """
    return _inverse(LOWER_BRACKET, *_check(p, eps))


def kl_inv_lower(p, eps):
    """Invert the binary kl from below: ``inf {r <= p : kl(p, r) <= eps}``.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        The empirical risk.
    eps : array_like of floats >= 0
        The right side of ``kl(p, r) <= eps``.

    Returns
    -------
    ndarray or float
        The lower end of a verified bracket, never above the true inverse.
    """
    p, eps = _check(p, eps)
    lo = _inverse(LOWER_BRACKET, p, eps)[0]
    return _as_float(np.where((eps == 0) | (p == 0), p, lo))


def kl_inv_upper_newton(p, eps, max_iter: int = 60):
    """Invert the binary kl from above by Newton's method, fast, for searching.

    In ``s = -log(1 - r)`` the map ``s -> kl(p, r(s)) - eps`` is convex and
    increasing for ``r > p`` (second derivative ``p e^s / (e^s - 1)^2``), so Newton
    iterates started above the root decrease monotonically to it, with slope
    ``(r - p) / r`` bounded away from 0 near ``r = 1``. The start is the smallest of
    Pinsker's ``p + sqrt(eps/2)``, ``p + eps + sqrt(eps^2 + 2 p eps)`` (from
    ``kl(p, r) >= (r - p)^2 / (2r)``), ``s = (eps + ln 2)/(1 - p)`` (from
    ``kl(p, r) >= -ln 2 + (1-p) s``) and the largest ``r < 1`` in floating point.
    ``error`` bounds ``|r - root|`` by the last step; the iteration stops at 2 ulps or
    when a step is no shorter than the one before (rounding noise). Reported bounds use
    :func:`kl_inv_upper`.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        The empirical risk.
    eps : array_like of floats >= 0
        The right side of ``kl(p, r) <= eps``.
    max_iter : int, default=60
        Newton steps at most.

    Returns
    -------
    r : ndarray or float
        The root's estimate.
    error : ndarray or float
        A bound on ``|r - root|``: the last step.
    """
    return _inverse(UPPER_NEWTON, p, eps, max_iter)


def kl_inv_lower_newton(p, eps, max_iter: int = 60):
    """Invert the binary kl from below by Newton's method, fast, to start a bisection.

    In ``s = -log(r)`` the map ``s -> kl(p, e^-s) - eps`` is convex and increasing for
    ``r < p`` (first derivative ``(p - r) / (1 - r)``, second ``r (1 - p) / (1 - r)^2``),
    so Newton iterates started below the root in ``r`` increase monotonically to it.
    The start is the largest of the lower bounds ``p - sqrt(2 p eps)`` (from
    ``kl(p, r) >= (p - r)^2 / (2p)`` for ``r <= p``), ``exp(-(eps + ln 2) / p)`` (from
    ``kl(p, r) >= -p ln r - ln 2``) and ``p exp(-1 - eps / p)`` (from
    ``(1 - p) ln((1 - p) / (1 - r)) >= r - p``), taken in ``s`` so that none underflows.
    ``error`` bounds ``|r - root|`` by the last step.

    Parameters
    ----------
    p : array_like of floats in [0, 1]
        The empirical risk.
    eps : array_like of floats >= 0
        The right side of ``kl(p, r) <= eps``.
    max_iter : int, default=60
        Newton steps at most.

    Returns
    -------
    r : ndarray
        The root's estimate (``p`` where ``eps = 0`` or ``p = 0``).
    error : ndarray
        A bound on ``|r - root|``: the last step.
    """
    return _inverse(LOWER_NEWTON, p, eps, max_iter)
