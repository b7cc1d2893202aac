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
lies above a concave function there. That arithmetic, at one point, is compiled once
(:mod:`cvxpb.numerics.trinomial_kernels`); this module broadcasts and loops.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from cvxpb.numerics.compiled import Kernels

KERNELS = Kernels("cvxpb.numerics.trinomial_kernels")
GOLDEN_STEPS = 48  # the bracket shrinks to 0.618^48 < 1e-9 of the range of e
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


def _flat(*arrays):
    """The arrays broadcast together, as fresh flat float arrays (numba would compile
    apart for a read-only or broadcast view), and their shape."""
    arrays = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in arrays))
    return [np.array(x, order="C").ravel() for x in arrays], arrays[0].shape


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
    flat, shape = _flat(e, d_S, e_S, s)
    lows, highs = np.empty(flat[0].size), np.empty(flat[0].size)
    KERNELS.disagreement_slice_many(*flat, int(rounding), lows, highs)
    return lows.reshape(shape), highs.reshape(shape)


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
    (e_S, d_S, s), shape = _flat(e_S, d_S, s)
    e_S = np.clip(e_S, 0.0, 1.0)
    d_S, s = np.clip(d_S, 0.0, 1.0 - e_S), np.clip(s, 0.0, LARGE)  # LARGE allows every e
    out = np.empty(e_S.size)
    KERNELS.pac_bound_two_many(e_S, d_S, s, int(rounding), int(GOLDEN_STEPS), out)
    return out.reshape(shape)
