"""Binary kl divergence and its inverses, conservative by construction.

``kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q))``. Its upper inverse
``sup {r in [p, 1] : kl(p, r) <= eps}`` is the kl bound on a true risk. We return
the *upper* end of a bisection bracket no wider than ``BRACKET_WIDTH`` whose end
was checked, with a floating-point error margin, to satisfy ``kl(p, r) >= eps``:
the value returned is never below the true inverse. (A bisection midpoint, as
public PAC-Bayes code returns, can fall below it.)
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.numerics.tolerances import EPS
from cvxpb.validation import check_unit_interval, real_array

BRACKET_WIDTH = 1e-300
BRACKET_RELATIVE = 4 * EPS
_MAX_HALVINGS = 1100  # enough to reach 4 ulps relative at 1e-300
_S_MAX = -np.log1p(-(1 - EPS / 2))  # s of the largest float below 1


_SERIES_RADIUS = 0.1
_SERIES_TERMS = 8


def _log_ratio(a, b):
    """``log(a / b)``, also when ``a / b`` over- or underflows."""
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        ratio = a / b
        fine = np.isfinite(ratio) & (ratio > 0)
        return np.where(fine, np.log(np.where(fine, ratio, 1.0)), np.log(a) - np.log(b))


def _scaled_psi(weight, x, log_one_plus_x, linear):
    """``-weight * psi(x)``, ``psi(x) = log1p(x) - x``, accurate to a few ulps.

    Near ``x = 0`` the series in ``u = x / (2 + x)`` (``log1p(x) = 2 atanh(u)``):
    ``psi = -2u^2/(1-u) + 2u^3 (1/3 + u^2/5 + u^4/7 + ...)``, whose two parts have
    one sign each (no cancellation); for ``|x| < 0.1``, ``u^2 < 0.0028`` and eight
    terms reach double precision. Elsewhere ``-weight log(1 + x) + linear`` with
    ``linear = weight * x`` passed in exactly (``h`` or ``-h``).
    """
    small = np.abs(x) < _SERIES_RADIUS
    out = -weight * log_one_plus_x + linear
    xs = x[small]
    u = xs / (2 + xs)
    u2 = u * u
    series = np.zeros_like(u)
    for j in range(_SERIES_TERMS, 0, -1):  # Horner on sum_{j>=1} u^(2j-2) / (2j+1)
        series = series * u2 + 1.0 / (2 * j + 1)
    psi = -2 * u2 / (1 - u) + 2 * u2 * u * series
    out[small] = -weight[small] * psi
    return out


def _kl_parts(p, q):
    """The two non-negative parts of kl(p, q), free of cancellation.

    With ``h = q - p``: ``kl = -p psi(h/p) - (1-p) psi(-h/(1-p))``, ``psi(x) = log1p(x) - x``
    (the linear terms ``-h`` and ``+h`` cancel exactly); the limits at ``p = 0``
    and ``p = 1`` are ``h`` and ``-h``.
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))
    if p.size == 1:  # the searches call it on one point: the same formulas on scalars
        left, right = _kl_parts_scalar(p.item(), q.item())
        return np.reshape(left, p.shape), np.reshape(right, p.shape)
    shape, p, q = p.shape, np.atleast_1d(p), np.atleast_1d(q)
    h = q - p
    left, right = h.copy(), -h
    inner, outer = p > 0, p < 1
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        pi, qi, hi = p[inner], q[inner], h[inner]
        left[inner] = _scaled_psi(pi, hi / pi, _log_ratio(qi, pi), hi)
        po, qo, ho = 1 - p[outer], 1 - q[outer], h[outer]
        right[outer] = _scaled_psi(po, -ho / po, _log_ratio(qo, po), -ho)
    return left.reshape(shape), right.reshape(shape)


def _kl_parts_scalar(p, q):
    """:func:`_kl_parts` at one point, in Python floats (no array machinery)."""
    p, q = float(p), float(q)
    h = q - p
    left, right = h, -h
    if p > 0:
        left = _scaled_psi_scalar(p, h / p, _log_ratio_scalar(q, p), h)
    if p < 1:
        po = 1 - p
        right = _scaled_psi_scalar(po, -h / po, _log_ratio_scalar(1 - q, po), -h)
    return left, right


def _log_ratio_scalar(a, b):
    """:func:`_log_ratio` of two floats, ``b > 0`` (``-inf`` at ``a = 0``, NaN below)."""
    ratio = a / b
    if 0 < ratio < math.inf:  # numpy's log, as the array path's: the same bits
        return float(np.log(ratio))
    if a > 0:  # the ratio over- or underflowed
        return float(np.log(a)) - float(np.log(b))
    return -math.inf if a == 0 else math.nan


def _scaled_psi_scalar(weight, x, log_one_plus_x, linear):
    """:func:`_scaled_psi` of floats: the same series near 0."""
    if not abs(x) < _SERIES_RADIUS:
        return -weight * log_one_plus_x + linear
    u = x / (2 + x)
    u2 = u * u
    series = 0.0
    for j in range(_SERIES_TERMS, 0, -1):
        series = series * u2 + 1.0 / (2 * j + 1)
    return -weight * (-2 * u2 / (1 - u) + 2 * u2 * u * series)


def _kl_scalar(p, q):
    """``kl(p, q)`` of two floats."""
    left, right = _kl_parts_scalar(p, q)
    return left + right


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
    left, right = _kl_parts(p, q)
    value = left + right
    return float(value) if value.ndim == 0 else value


def _rounding_error(value):
    """A bound on the rounding error of a computed kl ``value``."""
    return 64 * EPS * value + 1e-300


def _widest(hi):
    """The widest a bracket ending at ``hi`` may be left."""
    return np.maximum(BRACKET_WIDTH, BRACKET_RELATIVE * hi)


def _newton_margin(guess, error):
    """How far around Newton's root its bracket's ends are tried."""
    return 4 * error + 8 * EPS * guess


def _kl_with_error(p, q):
    """kl(p, q) in floating point and a bound on its rounding error."""
    left, right = _kl_parts(p, q)
    value = left + right
    return value, _rounding_error(value)


def _check(p, eps):
    check_unit_interval(real_array(p, "p"), "p")
    p, eps = np.broadcast_arrays(np.asarray(p, dtype=float), real_array(eps, "eps"))
    if not np.all(eps >= 0):  # False for NaN too
        raise ValueError("eps must be >= 0 with no NaN")
    return p.astype(float), eps.astype(float)


def _bisect(p, eps, lo, hi, verified_high):
    """Halve [lo, hi] until no wider than BRACKET_WIDTH or BRACKET_RELATIVE * hi.

    The side named by ``verified_high`` (``hi`` if True, else ``lo``) only ever
    moves to points where ``kl(p, x) >= eps`` holds despite rounding.
    """
    shape = np.shape(lo)
    p, eps = np.broadcast_to(p, shape).ravel(), np.broadcast_to(eps, shape).ravel()
    lo, hi = np.array(lo, dtype=float).ravel(), np.array(hi, dtype=float).ravel()
    active = np.flatnonzero(hi - lo > _widest(hi))
    for _ in range(_MAX_HALVINGS):
        if active.size == 0:
            break
        mid = 0.5 * (lo[active] + hi[active])
        value, error = _kl_with_error(p[active], mid)
        surely_above = value - error >= eps[active]
        move_hi = surely_above if verified_high else ~surely_above
        hi[active[move_hi]] = mid[move_hi]
        lo[active[~move_hi]] = mid[~move_hi]
        a_lo, a_hi = lo[active], hi[active]
        active = active[a_hi - a_lo > _widest(a_hi)]
    return lo.reshape(shape), hi.reshape(shape)


def _newton_bracket(p, eps):
    """A start for the bisection of :func:`kl_inv_upper_bracket`: a few ulps around
    Newton's root where its ends pass the bisection's own tests (``hi`` surely above
    ``eps`` despite rounding, ``lo`` not), else all of ``[p, 1]``. Bisection from it
    takes a few halvings, not fifty."""
    guess, error = kl_inv_upper_newton(p, eps)
    margin = _newton_margin(guess, error)
    lo, hi = np.maximum(p, guess - margin), np.minimum(1.0, guess + margin)
    value_lo, error_lo = _kl_with_error(p, lo)
    value_hi, error_hi = _kl_with_error(p, hi)
    with np.errstate(invalid="ignore"):  # inf - inf at r = 1: not good, so [p, 1]
        good = (value_hi - error_hi >= eps) & ((value_lo - error_lo < eps) | (lo == p))
    return np.where(good, lo, p), np.where(good, hi, 1.0)


def _newton_bracket_lower(p, eps):
    """A start for the bisection of :func:`kl_inv_lower_bracket`: a few ulps around
    Newton's root (:func:`kl_inv_lower_newton`) where its ends pass the bisection's own
    tests (``lo`` surely at or above ``eps`` despite rounding, ``hi`` not); else
    ``[0, BRACKET_WIDTH]`` where the root is below that width (``hi`` not surely at
    ``eps`` there), else all of ``[0, p]``."""
    guess, error = kl_inv_lower_newton(p, eps)
    # kl's rounding allowance, in r (a guess at 0 divides by 0, a tiny one overflows)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        slope = np.where(p > guess, (p - guess) / (guess * (1 - guess)), np.inf)
        allowance = np.nan_to_num(2 * (64 * EPS * eps + 1e-300) / slope)
    margin = _newton_margin(guess, error) + allowance
    lo, hi = np.maximum(0.0, guess - margin), np.minimum(p, guess + margin)
    value_lo, error_lo = _kl_with_error(p, lo)
    value_hi, error_hi = _kl_with_error(p, hi)
    with np.errstate(invalid="ignore"):
        good = (value_lo - error_lo >= eps) & (value_hi - error_hi < eps) & (lo > 0)
    # a root below the bisection's absolute width (Newton's start underflowed): where kl
    # at that width is not surely eps, the bisection's rule would move hi there, so the
    # bracket is [0, BRACKET_WIDTH] at once, not a thousand halvings down from p
    value_floor, error_floor = _kl_with_error(p, BRACKET_WIDTH)
    with np.errstate(invalid="ignore"):
        tiny = ~good & (p > BRACKET_WIDTH) & ~(value_floor - error_floor >= eps)
    return np.where(good, lo, 0.0), np.where(good, hi, np.where(tiny, BRACKET_WIDTH, p))


def _plain(p, eps) -> bool:
    """Whether ``(p, eps)`` is one point the float paths take: ``p`` in [0, 1] and a
    finite ``eps >= 0`` (anything else goes through the arrays' own handling)."""
    return np.ndim(p) == 0 and np.ndim(eps) == 0 and 0 <= p <= 1 and 0 <= eps < math.inf


SMALL = 32  # arrays of at most this many plain points go through the float path point by
# point: the same bits, and up to ten times faster than the array path's many small steps


def _pointwise(p, eps) -> bool:
    """Whether the broadcast ``p``, ``eps`` are few plain points (:func:`_plain` each)."""
    return 0 < p.size <= SMALL and bool(np.all((p >= 0) & (p <= 1) & (eps >= 0) & (eps < math.inf)))


def _point_by_point(function, p, eps, *args):
    """``function``'s two results at each point, as two arrays of ``p``'s shape."""
    points = zip(p.ravel(), eps.ravel(), strict=True)
    pairs = [function(float(a), float(b), *args) for a, b in points]
    return tuple(np.array(part, dtype=float).reshape(p.shape) for part in zip(*pairs, strict=True))


def _upper_newton_scalar(p, eps, max_iter):
    """:func:`kl_inv_upper_newton` at one point, in floats: the same start, steps and
    stopping rules, and numpy's ``expm1`` and ``log1p``, so the same bits."""
    if eps == 0 or p >= 1:
        return (p if eps == 0 else 1.0), 4 * EPS
    near = min(p + eps + math.sqrt(eps * eps + 2 * p * eps), p + math.sqrt(eps / 2))
    s = float(-np.log1p(-near)) if near < 1 else math.inf
    s = min(s, (eps + float(np.log(2))) / (1 - p), _S_MAX)
    r = float(-np.expm1(-s))
    if s >= _S_MAX and _kl_scalar(p, r) < eps:  # the root is above the largest r < 1
        return 1.0, 4 * EPS
    step = 0.0
    for _ in range(max_iter):
        r_old = float(-np.expm1(-s))
        slope = (r_old - p) / r_old if r_old else math.nan  # 0/0: NaN, as in the arrays
        if slope > 0:
            s -= (_kl_scalar(p, r_old) - eps) / slope
        r = max(float(-np.expm1(-s)), p)
        last, step = abs(step), r_old - r
        if abs(step) <= 2 * EPS * r or (last > 0 and abs(step) >= last):
            break
    return r, abs(step) + 4 * EPS


def _lower_newton_scalar(p, eps, max_iter):
    """:func:`kl_inv_lower_newton` at one point, in floats: the same start, steps and
    stopping rules, and numpy's ``exp`` and ``log``, so the same bits."""
    if eps == 0 or p <= 0:
        return p, 4 * EPS * p
    gap = p - math.sqrt(2 * p * eps)
    s = float(-np.log(gap)) if gap > 0 else math.inf
    s = min(s, (eps + float(np.log(2))) / p)
    s = min(s, 1 - float(np.log(p)) + eps / p)
    with np.errstate(under="ignore"):
        r = float(np.exp(-s)) if math.isfinite(s) else 0.0
    step = 0.0
    if r == 0:  # a start below the least float: so is the root
        return r, 4 * EPS * r
    for _ in range(max_iter):
        r_old = float(np.exp(-s))
        slope = (p - r_old) / (1 - r_old) if r_old < 1 else math.nan  # 0/0, as in the arrays
        if slope > 0:
            s -= (_kl_scalar(p, r_old) - eps) / slope
        with np.errstate(under="ignore", over="ignore"):
            r = min(float(np.exp(-s)), p)
        last, step = abs(step), r - r_old
        if abs(step) <= 2 * EPS * r or (last > 0 and abs(step) >= last) or not math.isfinite(s):
            break
    return r, abs(step) + 4 * EPS * r


def _upper_bracket_scalar(p, eps):
    """:func:`kl_inv_upper_bracket` at one point, in floats: Newton's root, its ends
    checked with the same rounding margin, then halved as :func:`_bisect` does."""
    if eps == 0 or p == 1:
        return p, p
    guess, error = _upper_newton_scalar(p, eps, 60)
    margin = _newton_margin(guess, error)
    lo, hi = max(p, guess - margin), min(1.0, guess + margin)
    if not (_surely_at_least(p, hi, eps) and (lo == p or not _surely_at_least(p, lo, eps))):
        lo, hi = p, 1.0
    for _ in range(_MAX_HALVINGS):
        if not hi - lo > _widest(hi):
            break
        mid = 0.5 * (lo + hi)
        if _surely_at_least(p, mid, eps):
            hi = mid
        else:
            lo = mid
    return lo, hi


def _surely_at_least(p, r, eps) -> bool:
    """Whether ``kl(p, r) >= eps`` despite rounding (:func:`_kl_with_error`'s margin)."""
    value = _kl_scalar(p, r)
    return value - _rounding_error(value) >= eps


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
    p, eps = _check(p, eps)
    if _plain(p, eps):
        return tuple(np.asarray(x) for x in _upper_bracket_scalar(float(p), float(eps)))
    if _pointwise(p, eps):
        return _point_by_point(_upper_bracket_scalar, p, eps)
    lo, hi = _bisect(p, eps, *_newton_bracket(p, eps), verified_high=True)
    exact = (eps == 0) | (p == 1)
    lo, hi = np.where(exact, p, lo), np.where(exact, p, hi)
    return lo, hi


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
    hi = kl_inv_upper_bracket(p, eps)[1]
    return float(hi) if hi.ndim == 0 else hi


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
    p, eps = _check(p, eps)
    return _bisect(p, eps, *_newton_bracket_lower(p, eps), verified_high=False)


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
    lo, _ = _bisect(p, eps, *_newton_bracket_lower(p, eps), verified_high=False)
    lo = np.where((eps == 0) | (p == 0), p, lo)
    return float(lo) if lo.ndim == 0 else lo


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
    if _plain(p, eps):
        return tuple(np.asarray(x) for x in _upper_newton_scalar(float(p), float(eps), max_iter))
    p, eps = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(eps, dtype=float))
    if _pointwise(p, eps):
        return _point_by_point(_upper_newton_scalar, p, eps, max_iter)
    shape = p.shape
    p, eps = np.atleast_1d(p).astype(float), np.atleast_1d(eps).astype(float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # kl(p, r) >= (r - p)^2 / (2r) for r >= p puts the root below this start
        near = np.minimum(p + eps + np.sqrt(eps * eps + 2 * p * eps), p + np.sqrt(eps / 2))
        s = np.minimum(-np.log1p(-np.minimum(near, 1.0)), (eps + np.log(2)) / (1 - p))
    s = np.minimum(s, _S_MAX)
    r = -np.expm1(-s)
    saturated = (s >= _S_MAX) & (kl_unchecked(p, r) < eps)  # root above the largest float below 1
    done = (eps == 0) | (p >= 1) | saturated
    r = np.where(eps == 0, p, np.where(done, 1.0, r))
    step = np.zeros_like(r)
    for _ in range(max_iter):
        active = ~done
        if not np.any(active):
            break
        sa, pa = s[active], p[active]
        ra = -np.expm1(-sa)
        slope = (ra - pa) / ra
        value = kl_unchecked(pa, ra) - eps[active]
        s_new = np.where(slope > 0, sa - value / np.where(slope > 0, slope, 1), sa)
        r_new = np.maximum(-np.expm1(-s_new), pa)
        last = np.abs(step[active])
        step[active] = ra - r_new
        s[active], r[active] = s_new, r_new
        # converged, or at the rounding floor: the steps of the exact iteration shrink
        stalled = (last > 0) & (np.abs(ra - r_new) >= last)
        done[active] = (np.abs(ra - r_new) <= 2 * EPS * r_new) | stalled
    return r.reshape(shape), (np.abs(step) + 4 * EPS).reshape(shape)


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
    if _plain(p, eps):
        return tuple(np.asarray(x) for x in _lower_newton_scalar(float(p), float(eps), max_iter))
    p, eps = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(eps, dtype=float))
    if _pointwise(p, eps):
        return _point_by_point(_lower_newton_scalar, p, eps, max_iter)
    shape = p.shape
    p, eps = np.atleast_1d(p).astype(float), np.atleast_1d(eps).astype(float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        gap = p - np.sqrt(2 * p * eps)
        s = np.minimum(-np.log(np.where(gap > 0, gap, 0.0)), (eps + np.log(2)) / p)
        s = np.minimum(s, 1 - np.log(p) + eps / p)  # in s = -log r: no underflow
    exact = (eps == 0) | (p <= 0)
    with np.errstate(under="ignore"):
        r = np.where(exact, p, np.exp(-np.where(np.isfinite(s), s, np.inf)))
    done = exact | (r == 0)  # a start below the least float: so is the root
    step = np.zeros_like(r)
    for _ in range(max_iter):
        active = ~done
        if not np.any(active):
            break
        sa, pa = s[active], p[active]
        ra = np.exp(-sa)
        slope = (pa - ra) / (1 - ra)
        value = kl_unchecked(pa, ra) - eps[active]
        with np.errstate(divide="ignore", invalid="ignore"):
            s_new = np.where(slope > 0, sa - value / np.where(slope > 0, slope, 1), sa)
        r_new = np.minimum(np.exp(-s_new), pa)
        last = np.abs(step[active])
        step[active] = r_new - ra
        s[active], r[active] = s_new, r_new
        stalled = (last > 0) & (np.abs(r_new - ra) >= last)
        done[active] = (np.abs(r_new - ra) <= 2 * EPS * r_new) | stalled | ~np.isfinite(s_new)
    return r.reshape(shape), (np.abs(step) + 4 * EPS * r).reshape(shape)
