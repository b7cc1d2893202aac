"""Germain et al.'s (2015) PAC-Bound 2: the largest C-bound over a trinomial kl region.

On one sample, a pair of two-class voters either both errs (rate ``e``: the joint
error, which is the tandem risk), disagrees (``d``: in two classes exactly one of them
errs) or answers right twice. Their Gibbs risk is ``R = e + d / 2``, and the C-bound is

    F(d, e) = 1 - (1 - 2R)^2 / (1 - 2d) = 1 - (1 - 2e - d)^2 / (1 - 2d).

PAC-Bound 2 bounds the vote's risk by the largest ``F`` over the rates the trinomial kl
inequality allows,

    sup {F(d, e) : kl(d_S, e_S || d, e) <= s, d <= 2 (sqrt(e) - e), 2e + d < 1},

``s = (2 KL + ln((xi(m) + m) / delta)) / m``, and 1 where the region reaches
``2e + d = 1`` (a Gibbs risk of 1/2).

:func:`pac_bound_two` takes that supremum over the region itself, its constraint
``d <= 2 (sqrt(e) - e)`` written as the cap of :func:`region_cap`: ``d <= 2 (sqrt(e) -
e)`` below ``e = 1/4`` and ``d <= 1/2`` from there. The two agree wherever the Gibbs
risk is below 1/2: ``d <= 2 (sqrt(e) - e)`` is ``e >= R^2``, that is ``d <= 2R (1 -
R)``, that is ``F >= 0`` (so the constraint only keeps the C-bound's negative values
out), and at ``e >= 1/4`` every point with ``R < 1/2`` meets it. The cap only adds
points of Gibbs risk 1/2 or more (and ``d <= 1/2``), where the C-bound is 1; where the
kl region holds one of them and a point of the paper's region, the segment between the
two crosses ``R = 1/2`` at a disagreement below 1/2, which the paper's region
approaches, so its supremum is 1 as well. So the value is PAC-Bound 2 as stated
wherever the paper's region is not empty; where it is (the sample's rates far from
every pair's, which one sample never gives: ``e_S >= R_S^2`` by Jensen), the value is
1 from above: the statistics say nothing.

From below (``rounding=-1``) the value is that of the region with ``d < 1/2`` alone,
the cap's ``F >= 0`` dropped: the same wherever the paper's region has a point (the
largest ``F`` is then at least 0, and only ``F >= 0`` was dropped), and below 0 where
it has none instead of ``-inf``. That larger region's supremum is concave and monotone
by the same arguments, so it is a minorant of the bound that stays finite past the
edge where the paper's region empties, and the vertex search's certificates, which
evaluate the bound from below at points of an outer polytope (some of them rates no
sample gives), lose nothing there.

With the cap the region is convex (the cap is concave in ``e``) and ``F`` concave on
it, and the value is

* jointly concave in ``(d_S, e_S, s)`` (a concave function maximized over the slices
  of a convex set);
* nondecreasing in the side ``s`` and, at a fixed ``d_S``, in the Gibbs risk
  ``L_S = e_S + d_S / 2`` (so in ``e_S``); nonincreasing in ``d_S`` at a fixed ``L_S``.
  Both by data processing: the kernel that moves a share of the outcomes "both right"
  to "both wrong" maps the sample's rates to the higher ones and every ``(d, e)`` of the
  region to a point of the new one with a larger ``R`` and the same ``d``, hence a
  larger ``F``, still under the cap (at a fixed ``d``, the cap holds from ``2R (1 - R)
  >= d`` upwards: ``R`` between the roots, or past 1/2); the one that moves a share of
  "disagree" evenly to "both wrong" and "both right" maps the higher disagreement's
  rates back to the lower one's, and every point of the former's region to one of the
  latter's with the same ``R`` and a smaller ``d`` (under the cap still), hence a larger
  ``F``.

So :class:`cvxpb.ensemble.atoms.PacBoundTwo` declares it in ``(L_S, d_S, s)``, the
coordinates in which it is monotone (in ``(e_S, d_S)`` it is not: at a fixed joint
error, more disagreement below about ``2 e_S`` raises it). The paper's own constraint
``2 (sqrt(e) - e)`` for every ``e`` would break the first kernel's argument past
``R = 1/2``; the cap gives the same supremum and keeps it.

At each ``e`` the region's points are ``d`` in ``[d_lo(e), d_hi(e)]`` (the chain rule
``kl(a, b || d, e) = kl(b, e) + (1 - b) kl(a / (1 - b), d / (1 - e))`` gives both ends
from the binary kl's inverses), and ``F(., e)`` rises to its peak ``4e`` at ``d = 2e``,
then falls; so the supremum is ``max_e G(e)`` over the joint errors within binary kl
``s`` of ``e_S``, with ``G(e) = F(clip(2e, d_lo(e), d_hi(e)), e)``, a concave function of
``e``. Its largest value is found by a golden-section search and bounded above,
whatever the search found, by chords: at a few points around the best ``e`` and at the
ends, ``G`` from above (the slice widened) and from below (at points proven inside),
and on each piece between them the chord through a neighbouring piece, extended, which
lies above a concave function there.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from cvxpb.numerics.kl import (
    kl,
    kl_inv_lower_bracket,
    kl_inv_lower_newton,
    kl_inv_upper_bracket,
    kl_inv_upper_newton,
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


def disagreement_slice(e, d_S, e_S, s, rounding):
    """``(d_lo(e), d_hi(e))``: the region's disagreements at the joint error ``e``.

    By the chain rule, ``d / (1 - e)`` lies between the binary kl's inverses of
    ``d_S / (1 - e_S)`` at ``(s - kl(e_S, e)) / (1 - e_S)``.

    Parameters
    ----------
    e : ndarray
        The joint error.
    d_S, e_S, s : ndarray
        The empirical disagreement and joint error, and the kl inequality's side.
    rounding : {1, 0, -1}
        ``+1``: an interval holding the slice; ``-1``: one inside it (its points proven
        in the region, with the rounding margins); 0: near it, fast (Newton's iterates
        unverified), for searching.

    Returns
    -------
    d_lo : ndarray
        The least disagreement.
    d_hi : ndarray
        The largest; below ``d_lo`` where the slice is empty (``e`` not within binary kl
        ``s`` of ``e_S``, or not proven so).
    """
    gap = kl(e_S, e)
    rest = 1 - e_S
    with np.errstate(divide="ignore", invalid="ignore"):
        moved = gap - rounding * (64 * EPS * gap + 1e-300)  # 0 at e = e_S is exact
        gap = np.where(np.isfinite(gap) & (gap > 0), moved, gap)
        side = np.where(rest > 0, np.maximum(s - gap, 0.0) / rest, 0.0)
        p = np.where(rest > 0, np.minimum(d_S / rest, 1.0), 0.0)
    side = np.maximum(nudge(side, rounding), 0.0)
    if rounding == 0:
        lo, hi = kl_inv_lower_newton(p, side)[0], kl_inv_upper_newton(p, side)[0]
    else:
        lows, highs = kl_inv_lower_bracket(p, side), kl_inv_upper_bracket(p, side)
        inward = rounding < 0
        lo, hi = lows[int(inward)], highs[int(not inward)]
        plain = (side == 0) | (p == 0)
        lo = np.where(plain & (p == 0), 0.0, np.where(side == 0, p, lo))
        hi = np.where((side == 0) & (p > 0), p, hi)
    lo, hi = np.where(rest > 0, lo, 0.0), np.where(rest > 0, hi, 1.0)  # all errors: any d
    d_lo, d_hi = nudge((1 - e) * lo, -rounding), nudge((1 - e) * hi, rounding)
    own = (e == e_S) & (side == 0)  # the sample's own rates: exactly in the region
    d_lo, d_hi = np.where(own, d_S, d_lo), np.where(own, d_S, d_hi)
    outside = gap > s  # beyond the joint error's own kl bound: no point at this e
    return np.where(outside, np.inf, np.maximum(d_lo, 0.0)), np.where(outside, -np.inf, d_hi)


def c_bound_in_rates(d, e):
    """The C-bound in the disagreement and the joint error.

    ``F(d, e) = 1 - (1 - 2e - d)^2 / (1 - 2d)``; 1 where ``2e + d >= 1`` (a Gibbs risk of
    1/2 or more: 1 bounds any vote); ``-inf`` at ``d >= 1/2`` below that (no pair of true
    rates is there).

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
    value = np.where(d >= 0.5, -np.inf, value)
    return np.where(2 * e + d >= 1, 1.0, value)


def region_cap(e, rounding=0):
    """The largest disagreement of the paper's region at the joint error ``e``.

    ``2 (sqrt(e) - e)`` below ``e = 1/4``, where it is the edge ``F = 0`` of the C-bound
    (``e >= R^2``); 1/2 from there, where the points of Gibbs risk below 1/2 are within
    ``2 (sqrt(e) - e)`` and those at or above it bound the vote by 1 (the module's text).

    Parameters
    ----------
    e : ndarray
        The joint error.
    rounding : {1, 0, -1}, default=0
        Rounded up, to nearest, or down (1/2 is exact).

    Returns
    -------
    ndarray
        The cap, in [0, 1/2].
    """
    e = np.clip(e, 0.0, 1.0)
    edge = nudge(2 * (np.sqrt(e) - e), rounding)  # no cancellation: sqrt(e) >= 2e there
    return np.where(e < 0.25, np.clip(edge, 0.0, 0.5), 0.5)


def _slice_value(e, d_S, e_S, s, rounding):
    """``G(e)``, the largest ``F`` over the slice at ``e``: 1 where the slice has a point
    of Gibbs risk 1/2 below ``d = 1/2``, else ``F`` at ``2e`` clipped into the slice;
    ``-inf`` where the slice is empty. With ``rounding=+1`` never below the true value
    (the slice widened); with ``-1`` never above it (a point proven inside, ``F``
    rounded down, the slice capped at ``d < 1/2`` alone: the module's text); with 0
    near it, for searching, and where the slice is empty a value
    below -1 that rises towards the region (``-1`` less the gap between the slice's
    ends, a convex function of ``e``), so that the search finds a thin region."""
    d_lo, d_hi = disagreement_slice(e, d_S, e_S, s, rounding)
    top = np.minimum(d_hi, region_cap(e, rounding) if rounding >= 0 else 0.5)
    reach = np.maximum(d_lo, 1 - 2 * e)  # the least d of the slice with R >= 1/2
    half = (reach <= top) & (reach < 0.5)
    d = np.clip(2 * e, d_lo, np.maximum(top, d_lo))
    value = c_bound_in_rates(d, e)
    if rounding < 0:
        value = nudge(value, -1)
    value = np.where(half, 1.0, np.where(d >= 0.5, -np.inf, value))
    empty = -np.inf if rounding else -1.0 - (d_lo - top)
    return np.where(d_lo > top, empty, value)


def _golden(profile, bottom, top):
    """A golden-section search for the largest ``profile`` on ``[bottom, top]``: its
    best point."""
    ratio = (np.sqrt(5) - 1) / 2
    a, b = bottom.copy(), top.copy()
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
    its chords outside them), and ``4 e`` at the piece's right end (``F <= 4e``). A piece
    whose two ends are outside ``G``'s domain (``up`` is ``-inf``) lies outside it where
    another grid point is proven inside (``low`` finite): the domain is an interval."""
    bounds = [np.max(up, axis=0)]
    last = grid.shape[0] - 1
    witness = np.any(low > -np.inf, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(last):
            u, v, length = grid[i], grid[i + 1], grid[i + 1] - grid[i]
            best = 4 * v
            if i >= 1:
                run = u - grid[i - 1]
                rise = _rise(up[i], low[i - 1]) / run * length
                best = np.minimum(best, np.where(run > 0, _extend(up[i], rise), np.inf))
            if i + 2 <= last:
                run = grid[i + 2] - v
                rise = _rise(up[i + 1], low[i + 2]) / run * length
                best = np.minimum(best, np.where(run > 0, _extend(up[i + 1], rise), np.inf))
            outside = witness & (up[i] == -np.inf) & (up[i + 1] == -np.inf)
            bounds.append(np.where((length > 0) & ~outside, best, -np.inf))
    return np.maximum.reduce(bounds)


def _rise(up, low):
    """``max(up - low, 0)``, and ``inf`` (no chord) where both are ``-inf``: two points
    outside the profile's domain say nothing of it between them."""
    with np.errstate(invalid="ignore"):
        rise = np.maximum(up - low, 0.0)
    return np.where(np.isnan(rise), np.inf, rise)


def _extend(up, rise):
    """``up + rise``, and ``inf`` where that is ``-inf + inf`` (no chord)."""
    with np.errstate(invalid="ignore"):
        value = up + rise
    return np.where(np.isnan(value), np.inf, value)


def pac_bound_two(e_S, d_S, s, rounding: int = 1):
    """PAC-Bound 2 over the region of the module's text.

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
        profile at points around the best ``e``; 1 where no point of the region is
        found); ``-1``: at most it (the C-bound at a point proven inside the region
        with ``d < 1/2`` alone, the module's text; ``-inf`` if none is); 0: the
        search's best value, unverified, fast (1 where it finds no point).

    Returns
    -------
    ndarray
        The bound, at most 1.
    """
    e_S, d_S, s = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(e_S, d_S, s))
    shape = e_S.shape
    e_S, d_S, s = (np.atleast_1d(x).ravel() for x in (e_S, d_S, s))
    e_S = np.clip(e_S, 0.0, 1.0)
    d_S, s = np.clip(d_S, 0.0, 1.0 - e_S), np.clip(s, 0.0, LARGE)  # LARGE allows every e
    bottom = np.where(s > 0, kl_inv_lower_bracket(e_S, s)[0], e_S)  # s = 0: e_S alone
    top = np.where(s > 0, kl_inv_upper_bracket(e_S, s)[1], e_S)
    inner = np.maximum(s - INSIDE * (s + 1e-3), 0.0)
    inner_ends = kl_inv_lower_bracket(e_S, inner)[1], kl_inv_upper_bracket(e_S, inner)[0]

    def profile(e, rounding=0):
        return _slice_value(e, d_S, e_S, s, rounding)

    best = _golden(profile, bottom, top)
    best = np.where(profile(best) >= profile(e_S), best, e_S)
    found = profile(best) > -0.5  # a point of the region (F >= 0 there; empty: below -1)
    if rounding == 0:
        value = profile(best)
    else:
        width = top - bottom
        steps = [best + side * h * width for side in (-1, 1) for h in STEPS]
        grid = np.stack([bottom, top, *inner_ends, e_S, best, *steps])
        grid = np.sort(np.clip(grid, bottom, top), axis=0)
        low = np.stack([profile(e, -1) for e in grid])
        if rounding < 0:
            value = np.max(low, axis=0)
        else:
            value = _chords(grid, np.stack([profile(e, 1) for e in grid]), low)
            value = np.maximum(nudge(value + 64 * EPS * (1 + np.abs(value)), 1), 0.0)
    if rounding >= 0:  # no point of the region found: the statistics say nothing, 1
        value = np.where(found, value, 1.0)
    value = np.minimum(value, 1.0)
    return value.reshape(shape)
