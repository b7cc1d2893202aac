"""The binary kl and its inverses at one point, compiled (:mod:`cvxpb.numerics.compiled`).

The one implementation of :mod:`cvxpb.numerics.kl`'s arithmetic: that module checks
its arguments, broadcasts them and calls these point by point (``*_many`` loop over
flat arrays). The formulas, their accuracy and the verified brackets are described
there; here each function says which step it is.
"""

from __future__ import annotations

import math

from cvxpb.numerics.compiled import kernel
from cvxpb.numerics.kl import BRACKET_RELATIVE, BRACKET_WIDTH
from cvxpb.numerics.tolerances import EPS, LARGEST

LOG_2 = math.log(2.0)
MAX_HALVINGS = 1100  # enough to reach 4 ulps relative at 1e-300
S_MAX = -math.log1p(-(1 - EPS / 2))  # s of the largest float below 1
SERIES_RADIUS = 0.1
SERIES_TERMS = 8
NEWTON_STEPS = 60


@kernel
def least(a, b):
    """``min(a, b)``, NaN if either is (as ``numpy.minimum``)."""
    if a != a or b != b:
        return math.nan
    return a if a < b else b


@kernel
def largest(a, b):
    """``max(a, b)``, NaN if either is (as ``numpy.maximum``)."""
    if a != a or b != b:
        return math.nan
    return a if a > b else b


@kernel
def log_ratio(a, b):
    """``log(a / b)`` for ``b > 0``, also where ``a / b`` over- or underflows."""
    ratio = a / b
    if 0 < ratio < math.inf:
        return math.log(ratio)
    if a > 0:
        return math.log(a) - math.log(b)
    return -math.inf if a == 0 else math.nan


@kernel
def scaled_psi(weight, x, log_one_plus_x, linear):
    """``-weight * psi(x)``, ``psi(x) = log1p(x) - x``: the series in ``u = x / (2 + x)``
    near 0, else ``-weight log(1 + x) + linear`` (``linear = weight x`` exactly)."""
    if not abs(x) < SERIES_RADIUS:
        return -weight * log_one_plus_x + linear
    u = x / (2 + x)
    u2 = u * u
    series = 0.0
    for j in range(SERIES_TERMS, 0, -1):  # Horner on sum_{j>=1} u^(2j-2) / (2j+1)
        series = series * u2 + 1.0 / (2 * j + 1)
    return -weight * (-2 * u2 / (1 - u) + 2 * u2 * u * series)


@kernel
def kl(p, q):
    """``kl(p, q)`` as its two non-negative parts added, free of cancellation (the
    limits ``h`` and ``-h`` at ``p = 0`` and ``p = 1``, ``h = q - p``)."""
    h = q - p
    left, right = h, -h
    if p > 0:
        left = scaled_psi(p, h / p, log_ratio(q, p), h)
    if p < 1:
        rest = 1 - p
        right = scaled_psi(rest, -h / rest, log_ratio(1 - q, rest), -h)
    return left + right


@kernel
def surely_at_least(p, r, eps):
    """Whether ``kl(p, r) >= eps`` despite rounding (a margin of 64 ulps and 1e-300)."""
    value = kl(p, r)
    return value - (64 * EPS * value + 1e-300) >= eps


@kernel
def widest(hi):
    """The widest a bracket ending at ``hi`` may be left."""
    return max(BRACKET_WIDTH, BRACKET_RELATIVE * hi)


@kernel
def newton_margin(guess, error):
    """How far around Newton's root its bracket's ends are tried."""
    return 4 * error + 8 * EPS * guess


@kernel
def upper_newton(p, eps, max_iter):
    """Newton's root of ``kl(p, r) = eps`` above ``p``, in ``s = -log(1 - r)``, and a
    bound on its error: ``(r, error)``."""
    if eps == 0 or p >= 1:
        return (p if eps == 0 else 1.0), 4 * EPS
    near = least(p + eps + math.sqrt(eps * eps + 2 * p * eps), p + math.sqrt(eps / 2))
    s = least(-math.log1p(-least(near, 1.0)), (eps + LOG_2) / (1 - p))
    s = least(s, S_MAX)
    if s >= S_MAX and kl(p, -math.expm1(-s)) < eps:  # the root is above the largest r < 1
        return 1.0, 4 * EPS
    r, step = -math.expm1(-s), 0.0
    for _ in range(max_iter):
        r_old = -math.expm1(-s)
        slope = (r_old - p) / r_old
        if slope > 0:
            s -= (kl(p, r_old) - eps) / slope
        r = largest(-math.expm1(-s), p)
        last, step = abs(step), r_old - r
        if abs(step) <= 2 * EPS * r or (last > 0 and abs(step) >= last):
            break
    return r, abs(step) + 4 * EPS


@kernel
def lower_newton(p, eps, max_iter):
    """Newton's root of ``kl(p, r) = eps`` below ``p``, in ``s = -log(r)`` (no
    underflow), and a bound on its error: ``(r, error)``."""
    if eps == 0 or p <= 0:
        return p, 4 * EPS * p
    gap = p - math.sqrt(2 * p * eps)
    s = least(-math.log(gap) if gap > 0 else math.inf, (eps + LOG_2) / p)
    s = least(s, 1 - math.log(p) + eps / p)
    r = math.exp(-s) if math.isfinite(s) else 0.0
    if r == 0:  # a start below the least float: so is the root
        return r, 0.0
    step = 0.0
    for _ in range(max_iter):
        r_old = math.exp(-s)
        slope = (p - r_old) / (1 - r_old)
        if slope > 0:
            s -= (kl(p, r_old) - eps) / slope
        r = least(math.exp(-s), p)
        last, step = abs(step), r - r_old
        if abs(step) <= 2 * EPS * r or (last > 0 and abs(step) >= last) or not math.isfinite(s):
            break
    return r, abs(step) + 4 * EPS * r


@kernel
def halve(p, eps, lo, hi, verified_high):
    """Halve ``[lo, hi]`` until no wider than :func:`widest`; the side named by
    ``verified_high`` only moves to points where ``kl(p, x) >= eps`` despite rounding."""
    for _ in range(MAX_HALVINGS):
        if not hi - lo > widest(hi):
            break
        mid = 0.5 * (lo + hi)
        if surely_at_least(p, mid, eps) == verified_high:
            hi = mid
        else:
            lo = mid
    return lo, hi


@kernel
def upper_start(p, eps):
    """The upper bracket's start: a few ulps around Newton's root where its ends pass
    the halving's tests (``hi`` surely at ``eps``, ``lo`` not), else ``[p, 1]``."""
    guess, error = upper_newton(p, eps, NEWTON_STEPS)
    margin = newton_margin(guess, error)
    lo, hi = max(p, guess - margin), min(1.0, guess + margin)
    if surely_at_least(p, hi, eps) and (lo == p or not surely_at_least(p, lo, eps)):
        return lo, hi
    return p, 1.0


@kernel
def upper_bracket(p, eps):
    """``(lo, hi)`` around ``sup {r >= p : kl(p, r) <= eps}``, ``hi`` verified above it
    (``(p, p)`` where ``eps = 0`` or ``p = 1``)."""
    if eps == 0 or p == 1:
        return p, p
    lo, hi = upper_start(p, eps)
    return halve(p, eps, lo, hi, True)


@kernel
def lower_start(p, eps):
    """The lower bracket's start: a few ulps around Newton's root (widened by kl's
    rounding carried into ``r``) where its ends pass the halving's tests; else
    ``[0, 1e-300]`` where the root is below that width; else ``[0, p]``."""
    guess, error = lower_newton(p, eps, NEWTON_STEPS)
    slope = (p - guess) / (guess * (1 - guess)) if p > guess else math.inf
    allowance = 2 * (64 * EPS * eps + 1e-300) / slope
    if allowance != allowance:
        allowance = 0.0
    allowance = min(allowance, LARGEST)
    margin = newton_margin(guess, error) + allowance
    lo, hi = max(0.0, guess - margin), min(p, guess + margin)
    if surely_at_least(p, lo, eps) and not surely_at_least(p, hi, eps) and lo > 0:
        return lo, hi
    if p > BRACKET_WIDTH and not surely_at_least(p, BRACKET_WIDTH, eps):
        return 0.0, BRACKET_WIDTH
    return 0.0, p


@kernel
def lower_bracket(p, eps):
    """``(lo, hi)`` around ``inf {r <= p : kl(p, r) <= eps}``, ``lo`` verified below it
    or 0."""
    lo, hi = lower_start(p, eps)
    return halve(p, eps, lo, hi, False)


@kernel
def kl_many(p, q, out):
    """:func:`kl` at each of the flat arrays' points, into ``out``."""
    for i in range(p.size):
        out[i] = kl(p[i], q[i])


@kernel
def inverse_many(which, p, eps, max_iter, first, second):
    """One inverse at each point of the flat arrays, its two results into ``first`` and
    ``second``: ``which`` 0, 1, 2, 3 for :func:`upper_newton`, :func:`lower_newton`,
    :func:`upper_bracket`, :func:`lower_bracket`."""
    for i in range(p.size):
        if which == 0:
            first[i], second[i] = upper_newton(p[i], eps[i], max_iter)
        elif which == 1:
            first[i], second[i] = lower_newton(p[i], eps[i], max_iter)
        elif which == 2:
            first[i], second[i] = upper_bracket(p[i], eps[i])
        else:
            first[i], second[i] = lower_bracket(p[i], eps[i])
