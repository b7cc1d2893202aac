"""Germain et al.'s (2015) PAC-Bound 2: the largest C-bound over a trinomial kl region.

On one sample, a pair of two-class voters either both errs (rate ``e``: the joint
error, which is the tandem risk), disagrees (``d``: in two classes exactly one of them
errs) or answers right twice. The C-bound in these two rates is

    F(d, e) = 1 - (1 - 2e - d)^2 / (1 - 2d)        (the Gibbs risk is e + d/2),

and PAC-Bound 2 bounds the vote's risk by the largest ``F`` over the rates the
trinomial kl inequality allows,

    sup {F(d, e) : kl(d_S, e_S || d, e) <= s, d <= 2 (sqrt(e) - e), 2e + d < 1},

``s = (2 KL + ln((xi(m) + m) / delta)) / m``, and 1 where the region reaches
``2e + d = 1`` (a Gibbs risk of 1/2).

:func:`pac_bound_two` takes the supremum over a larger region: the union of those
regions over every empirical pair ``(d', e')`` with ``d' >= d_S`` and ``e' <= e_S``
(the points within trinomial kl ``s`` of that quadrant), and without the constraint
``d <= 2 (sqrt(e) - e)`` (only ``d < 1/2``). A larger set gives a larger supremum, so
the value is still a bound; it is nonincreasing in ``d_S`` and nondecreasing in ``e_S``
and ``s``, as a declared bound must be; and it is PAC-Bound 2 itself where the
supremum of PAC-Bound 2 lies on the region's low-disagreement edge (the case of a
useful C-bound, ``d_S`` above ``2 e_S``) and the dropped constraint does not bind there.
The least trinomial kl from the quadrant is jointly convex in ``(d_S, e_S, d, e)`` (the
least of a jointly convex function over a convex set) and ``F`` is concave for
``d < 1/2``, so the value is jointly concave in ``(d_S, e_S, s)`` (a concave function
maximized over the slices of a convex set) wherever ``d_S < 1/2``. On one sample
``d_S <= 2 (sqrt(e_S) - e_S)`` always holds (Jensen), and the value is at least the
C-bound at ``(d_S, e_S)``, at least 0; statistics no sample gives can take it below 0.

At each ``e`` the region's points are ``d >= d_lo(e)``, and ``F(., e)`` rises to its
peak ``4e`` at ``d = 2e``, then falls; so the supremum is ``max_e G(e)`` over
``[0, e_top]`` (``e_top`` the binary kl's upper inverse of ``e_S``) with
``G(e) = F(max(2e, d_lo(e)), e)``, a concave function of ``e``. Its largest value is
found by a golden-section search and bounded above, whatever the search found, by
chords: at a few points around the best ``e`` and at the ends, ``G`` from above (the
least ``d`` from below) and from below (at points proven inside), and on each piece
between them the chord through a neighbouring piece, extended, which lies above a
concave function there.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from cvxpb.numerics.kl import (
    kl,
    kl_inv_lower_bracket,
    kl_inv_lower_newton,
    kl_inv_upper_bracket,
)
from cvxpb.numerics.tolerances import EPS, nudge

GOLDEN_STEPS = 48  # the bracket shrinks to 0.618^48 < 1e-9 of the range of e
STEPS = (1e-9, 1e-5)  # the certificate's points beside the best e, relative to e's range
INSIDE = 1e-9  # below, the search keeps kl(e_S, e) this far (relative) under the side
LARGE = 1e300  # a larger side (infinite) changes nothing: every pair is within it


def trinomial_kl(a, b, d, e):
    """``kl((a, b, 1-a-b) || (d, e, 1-d-e))``, with ``0 ln 0 = 0``.

    Parameters
    ----------
    a, b : array_like
        The empirical disagreement and joint error.
    d, e : array_like
        The true ones.

    Returns
    -------
    ndarray
        The divergence (``inf`` where a positive rate meets a zero one).
    """
    a, b, d, e = (np.asarray(x, dtype=float) for x in (a, b, d, e))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = [xlogy(p, p) - xlogy(p, r) for p, r in ((a, d), (b, e), (1 - a - b, 1 - d - e))]
    return sum(terms)


def lowest_disagreement(e, d_S, e_S, s, d_L, rounding):
    """``d_lo(e)``, the least ``d`` of the region at the joint error ``e``.

    That is the least ``d`` with a point of the quadrant ``d' >= d_S, e' <= e_S``
    within trinomial kl ``s`` of ``(d, e)``.

    The divergence splits by the chain rule,
    ``kl(a, b || d, e) = kl(b, e) + (1 - b) kl(a / (1 - b), d / (1 - e))``, so from the
    corner ``(d_S, e_S)`` the least ``d`` is ``(1 - e) u`` with ``u`` the binary kl's
    lower inverse of ``d_S / (1 - e_S)`` at ``(s - kl(e_S, e)) / (1 - e_S)``. From the
    edge ``d' = d_S`` (``e' = (1 - d_S) e / (1 - d) <= e_S`` there, the divergence being
    ``kl(d_S, d)``) it is ``d_L``, the lower inverse of ``d_S`` at ``s``, where
    ``(1 - d_S) e <= e_S (1 - d_L)``. The quadrant's own points ``(d_S, e)``,
    ``e <= e_S``, are at divergence 0; its other candidates lie to the right of these.

    Parameters
    ----------
    e : ndarray
        The joint error, with ``kl(e_S, e) <= s`` or ``e <= e_S``.
    d_S, e_S, s : ndarray
        The quadrant's corner and the kl inequality's side.
    d_L : ndarray
        ``d_L``, rounded down (``rounding=+1``) or up.
    rounding : {1, 0, -1}
        ``+1``: a value at most ``d_lo(e)``; ``-1``: at least it, a ``d`` whose point
        ``(d, e)`` is in the region (proven with the rounding margins); 0: near it,
        fast (Newton's iterates unverified), for searching.

    Returns
    -------
    ndarray
        The disagreement.
    """
    gap = kl(e_S, e)
    rest = 1 - e_S
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.where(np.isfinite(gap), gap - rounding * (64 * EPS * gap + 1e-300), gap)
        side = np.where(rest > 0, np.maximum(s - gap, 0.0) / rest, 0.0)
        p = np.where(rest > 0, np.minimum(d_S / rest, 1.0), 0.0)
    side = np.maximum(nudge(side, rounding), 0.0)
    if rounding == 0:
        u = kl_inv_lower_newton(p, side)[0]
    else:
        lo, hi = kl_inv_lower_bracket(p, side)
        u = np.where((side == 0) | (p == 0), p, lo if rounding > 0 else hi)
    corner = nudge((1 - e) * u, -rounding)
    if rounding < 0:  # no corner point where kl(e_S, e) may exceed s
        corner = np.where(gap <= s, corner, np.inf)
    edge = (1 - d_S) * e <= e_S * (1 - d_L) * (1 + rounding * 4 * EPS)
    lowest = np.where(edge, np.minimum(d_L, corner), corner)
    return np.where(e <= e_S, np.minimum(lowest, d_S), lowest)  # (d_S, e) itself, exactly


def c_bound_in_rates(d, e):
    """The C-bound in the disagreement and the joint error.

    ``F(d, e) = 1 - (1 - 2e - d)^2 / (1 - 2d)``; 1 where ``2e + d >= 1`` or
    ``d >= 1/2`` (no C-bound holds there; 1 bounds any vote).

    Parameters
    ----------
    d, e : ndarray
        The disagreement and the joint error.

    Returns
    -------
    ndarray
        The C-bound.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1 - (1 - 2 * e - d) ** 2 / (1 - 2 * d)
    return np.where((2 * e + d >= 1) | (d >= 0.5), 1.0, value)


def _profile(e, d_S, e_S, s, d_L, rounding):
    """``G(e) = F(max(2e, d_lo(e)), e)``: with ``rounding=+1`` never below the true
    value (``d_lo`` from below, and ``F(., e)`` falls beyond its peak at ``2e``); with 0
    near it, for searching."""
    low = lowest_disagreement(e, d_S, e_S, s, d_L, rounding)
    return c_bound_in_rates(np.maximum(2 * e, low), e)


def _golden(profile, top):
    """A golden-section search for the largest ``profile`` on ``[0, top]``: its best
    point."""
    ratio = (np.sqrt(5) - 1) / 2
    a, b = np.zeros_like(top), top.copy()
    x1, x2 = b - ratio * (b - a), a + ratio * (b - a)
    g1, g2 = profile(x1), profile(x2)
    for _ in range(GOLDEN_STEPS):
        left = g1 >= g2  # the largest value lies in [a, x2]
        a, b = np.where(left, a, x1), np.where(left, x2, b)
        x_new = np.where(left, b - ratio * (b - a), a + ratio * (b - a))
        g_new = profile(x_new)
        x1, x2 = np.where(left, x_new, x2), np.where(left, x1, x_new)
        g1, g2 = np.where(left, g_new, g2), np.where(left, g1, g_new)
    return np.where(g1 >= g2, x1, x2)


def _chords(grid, up, low):
    """An upper bound on a concave ``G`` over ``[grid[0], grid[-1]]`` from values above
    (``up``) and below (``low``) it at the sorted ``grid``: on each piece, the least of
    the chords through its left neighbour and its left end, extended right, and through
    its right end and its right neighbour, extended left (a concave function lies below
    its chords outside them), and ``4 e`` at the piece's right end (``F <= 4e``)."""
    bounds = [np.max(up, axis=0)]
    last = grid.shape[0] - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(last):
            u, v, length = grid[i], grid[i + 1], grid[i + 1] - grid[i]
            best = 4 * v
            if i >= 1:
                run = u - grid[i - 1]
                rise = np.maximum(up[i] - low[i - 1], 0.0) / run * length
                best = np.minimum(best, np.where(run > 0, up[i] + rise, np.inf))
            if i + 2 <= last:
                run = grid[i + 2] - v
                rise = np.maximum(up[i + 1] - low[i + 2], 0.0) / run * length
                best = np.minimum(best, np.where(run > 0, up[i + 1] + rise, np.inf))
            bounds.append(np.where(length > 0, best, -np.inf))
    return np.maximum.reduce(bounds)


def _inside_value(e, d_S, e_S, s, d_L):
    """``G(e)`` from below: the C-bound, rounded down, at ``(max(2e, d), e)`` for a ``d``
    whose point is proven in the region; 1 past ``e = 1/4`` (a point on ``2e + d = 1``
    with ``d < 1/2`` is there); ``-inf`` where no point with ``d < 1/2`` is proven."""
    d = lowest_disagreement(e, d_S, e_S, s, d_L, -1)
    peak = np.maximum(2 * e, d)
    proven = peak < 0.5
    value = nudge(c_bound_in_rates(np.where(proven, peak, 0.0), e), -1)
    value = np.where(proven, value, -np.inf)
    return np.where((e > 0.25) & (d < 0.5), 1.0, value)


def pac_bound_two(e_S, d_S, s, rounding: int = 1):
    """PAC-Bound 2 over the monotone region of the module's text.

    Parameters
    ----------
    e_S : array_like
        The empirical joint error (tandem risk), in [0, 1].
    d_S : array_like
        The empirical disagreement, in [0, 1] (lowered to ``1 - e_S`` if above).
    s : array_like
        The kl inequality's side, at least 0.
    rounding : {1, 0, -1}, default=1
        ``+1``: a value at least the supremum (bounded by chords of the concave
        profile at points around the best ``e``); ``-1``: at most it (the C-bound at a
        point of the region proven inside; ``-inf`` if none is); 0: the search's best
        value, unverified, fast.

    Returns
    -------
    ndarray
        The bound, at most 1.
    """
    e_S, d_S, s = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(e_S, d_S, s))
    e_S = np.clip(e_S, 0.0, 1.0)
    d_S, s = np.clip(d_S, 0.0, 1.0 - e_S), np.clip(s, 0.0, LARGE)  # LARGE allows every e
    shape = e_S.shape
    e_S, d_S, s = (np.atleast_1d(x).ravel() for x in (e_S, d_S, s))
    top = kl_inv_upper_bracket(e_S, s)[1]
    inner = np.maximum(s - INSIDE * (s + 1e-3), 0.0)
    inner_top = kl_inv_upper_bracket(e_S, inner)[0]  # its points can be proven inside
    plain = (s == 0) | (d_S == 0)
    d_L = [np.where(plain, d_S, end) for end in kl_inv_lower_bracket(d_S, s)]

    def profile(e, rounding=0):
        return _profile(e, d_S, e_S, s, d_L[0], rounding)

    best = _golden(profile, top)
    if rounding == 0:
        return np.minimum(profile(best), 1.0).reshape(shape)
    steps = [best + side * h * top for side in (-1, 1) for h in STEPS]
    grid = np.stack([np.zeros_like(top), top, inner_top, best, *steps])
    grid = np.sort(np.clip(grid, 0.0, top), axis=0)
    low = np.stack([_inside_value(e, d_S, e_S, s, d_L[1]) for e in grid])
    if rounding < 0:
        return np.minimum(np.max(low, axis=0), 1.0).reshape(shape)
    up = np.stack([profile(e, 1) for e in grid])
    value = _chords(grid, up, low)
    value = nudge(value + 64 * EPS * (1 + np.abs(value)), 1)
    return np.minimum(value, 1.0).reshape(shape)
