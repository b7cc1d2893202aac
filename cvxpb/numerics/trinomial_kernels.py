"""PAC-Bound 2 at one point, compiled (:mod:`cvxpb.numerics.compiled`).

The one implementation of :mod:`cvxpb.numerics.trinomial`'s arithmetic, whose text
derives it: the slice of disagreements at a joint error, the profile ``G(e)``, its
golden-section search and the chords that bound it from above. ``rounding`` is +1
(outward: never below the true value), -1 (inward: never above it) or 0 (fast, for
searching), as there.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.numerics.compiled import kernel
from cvxpb.numerics.kl_kernels import (
    NEWTON_STEPS,
    kl,
    largest,
    least,
    lower_bracket,
    lower_newton,
    upper_bracket,
    upper_newton,
)
from cvxpb.numerics.tolerances import EPS, nudge_float

RATIO = (math.sqrt(5) - 1) / 2
STEPS = np.array([1e-9, 1e-5])  # the certificate's points beside the best e, relative to e's range
INSIDE = 1e-9  # below, the search keeps kl(e_S, e) this far (relative) under the side
GRID = 10  # the certificate's points: both ends, two inner ends, e_S, the best, four steps


nudge = kernel(nudge_float)  # x moved outward by 16 eps |x| + 5e-324, compiled


@kernel
def disagreement_slice(e, d_S, e_S, s, rounding):
    """``(d_lo, d_hi)``: the region's disagreements at the joint error ``e``, by the
    chain rule from the binary kl's inverses; ``(inf, -inf)`` past ``e``'s own kl
    bound."""
    gap = kl(e_S, e)
    rest = 1 - e_S
    if math.isfinite(gap) and gap > 0:  # 0 at e = e_S is exact
        gap -= rounding * (64 * EPS * gap + 1e-300)
    side, p = 0.0, 0.0
    if rest > 0:
        side, p = max(s - gap, 0.0) / rest, min(d_S / rest, 1.0)
    side = max(nudge(side, rounding), 0.0)
    if rounding == 0:
        lo, hi = lower_newton(p, side, NEWTON_STEPS)[0], upper_newton(p, side, NEWTON_STEPS)[0]
    else:
        lows, highs = lower_bracket(p, side), upper_bracket(p, side)
        lo, hi = (lows[1], highs[0]) if rounding < 0 else (lows[0], highs[1])
        if side == 0:
            lo, hi = p, p
        elif p == 0:
            lo = 0.0
    if not rest > 0:  # all errors: any d
        lo, hi = 0.0, 1.0
    d_lo, d_hi = nudge((1 - e) * lo, -rounding), nudge((1 - e) * hi, rounding)
    if e == e_S and side == 0:  # the sample's own rates: exactly in the region
        d_lo, d_hi = d_S, d_S
    if gap > s:
        return math.inf, -math.inf
    return largest(d_lo, 0.0), d_hi


@kernel
def c_bound_in_rates(d, e):
    """``F(d, e) = 1 - (1 - 2e - d)^2 / (1 - 2d)``; 1 at a Gibbs risk of 1/2 or more;
    ``-inf`` at ``d >= 1/2`` below it."""
    if 2 * e + d >= 1:
        return 1.0
    if d >= 0.5:
        return -math.inf
    return 1 - (1 - 2 * e - d) ** 2 / (1 - 2 * d)


@kernel
def region_cap(e, rounding):
    """The paper's largest disagreement at ``e``: ``2 (sqrt(e) - e)`` below 1/4, then
    1/2."""
    e = min(max(e, 0.0), 1.0)
    if not e < 0.25:
        return 0.5
    return min(max(nudge(2 * (math.sqrt(e) - e), rounding), 0.0), 0.5)


@kernel
def slice_value(e, d_S, e_S, s, rounding):
    """``G(e)``: the largest C-bound over the slice at ``e`` (the module's text; empty:
    ``-inf``, or for searching a value below -1 that rises towards the region)."""
    d_lo, d_hi = disagreement_slice(e, d_S, e_S, s, rounding)
    top = least(d_hi, region_cap(e, rounding) if rounding >= 0 else 0.5)
    if d_lo > top:
        return -math.inf if rounding != 0 else -1.0 - (d_lo - top)
    reach = largest(d_lo, 1 - 2 * e)  # the least d of the slice with R >= 1/2
    if reach <= top and reach < 0.5:
        return 1.0
    d = min(max(2 * e, d_lo), largest(top, d_lo))
    if d >= 0.5:
        return -math.inf
    value = c_bound_in_rates(d, e)
    return nudge(value, -1) if rounding < 0 else value


@kernel
def golden(d_S, e_S, s, bottom, top, steps):
    """A golden-section search for the largest :func:`slice_value` on ``[bottom, top]``:
    its best point."""
    a, b = bottom, top
    x1, x2 = b - RATIO * (b - a), a + RATIO * (b - a)
    g1, g2 = slice_value(x1, d_S, e_S, s, 0), slice_value(x2, d_S, e_S, s, 0)
    for _ in range(steps):
        if g1 >= g2:  # the largest value lies in [a, x2]
            b = x2
            x_new = b - RATIO * (b - a)
            x1, x2, g2 = x_new, x1, g1
            g1 = slice_value(x_new, d_S, e_S, s, 0)
        else:
            a = x1
            x_new = a + RATIO * (b - a)
            x1, x2, g1 = x2, x_new, g2
            g2 = slice_value(x_new, d_S, e_S, s, 0)
    return x1 if g1 >= g2 else x2


@kernel
def rise(up, low):
    """``max(up - low, 0)``; ``inf`` (no chord) where that is NaN."""
    difference = up - low
    return math.inf if difference != difference else max(difference, 0.0)


@kernel
def extend(up, step):
    """``up + step``; ``inf`` (no chord) where that is NaN."""
    value = up + step
    return math.inf if value != value else value


@kernel
def chords(grid, up, low):
    """An upper bound on a concave ``G`` over ``[grid[0], grid[-1]]`` from values above
    (``up``) and below (``low``) it at the sorted ``grid`` (the module's text)."""
    bound = np.max(up)
    last = grid.size - 1
    witness = np.any(low > -math.inf)
    for i in range(last):
        u, v, length = grid[i], grid[i + 1], grid[i + 1] - grid[i]
        best = 4 * v
        if i >= 1:
            run = u - grid[i - 1]
            chord = extend(up[i], rise(up[i], low[i - 1]) / run * length)
            best = least(best, chord if run > 0 else math.inf)
        if i + 2 <= last:
            run = grid[i + 2] - v
            chord = extend(up[i + 1], rise(up[i + 1], low[i + 2]) / run * length)
            best = least(best, chord if run > 0 else math.inf)
        outside = witness and up[i] == -math.inf and up[i + 1] == -math.inf
        bound = largest(bound, best if length > 0 and not outside else -math.inf)
    return bound


@kernel
def pac_bound_two(e_S, d_S, s, rounding, steps):
    """PAC-Bound 2 at one point (``e_S``, ``d_S`` in [0, 1], ``s`` in [0, 1e300])."""
    bottom = lower_bracket(e_S, s)[0] if s > 0 else e_S
    top = upper_bracket(e_S, s)[1] if s > 0 else e_S
    best = golden(d_S, e_S, s, bottom, top, steps)
    if not slice_value(best, d_S, e_S, s, 0) >= slice_value(e_S, d_S, e_S, s, 0):
        best = e_S
    found = slice_value(best, d_S, e_S, s, 0) > -0.5  # a point of the region
    if rounding == 0:
        value = slice_value(best, d_S, e_S, s, 0)
    else:
        inner = max(s - INSIDE * (s + 1e-3), 0.0)
        width = top - bottom
        grid = np.empty(GRID)
        grid[0], grid[1], grid[2], grid[3] = bottom, top, e_S, best
        grid[4] = lower_bracket(e_S, inner)[1]  # the ends of a region a little inside
        grid[5] = upper_bracket(e_S, inner)[0]
        for k in range(4):  # best -+ each step
            grid[6 + k] = best + (2 * (k // 2) - 1) * STEPS[k % 2] * width
        grid = np.sort(np.minimum(np.maximum(grid, bottom), top))
        low, up = np.empty(GRID), np.empty(GRID)
        for k in range(GRID):
            low[k] = slice_value(grid[k], d_S, e_S, s, -1)
            up[k] = slice_value(grid[k], d_S, e_S, s, 1) if rounding > 0 else 0.0
        if rounding < 0:
            value = np.max(low)
        else:
            value = chords(grid, up, low)
            value = max(nudge(value + 64 * EPS * (1 + abs(value)), 1), 0.0)
    if rounding >= 0 and not found:  # no point of the region: the statistics say nothing
        value = 1.0
    return min(value, 1.0)


@kernel
def pac_bound_two_many(e_S, d_S, s, rounding, steps, out):
    """:func:`pac_bound_two` at each point of the flat arrays, into ``out``."""
    for i in range(e_S.size):
        out[i] = pac_bound_two(e_S[i], d_S[i], s[i], rounding, steps)


@kernel
def disagreement_slice_many(e, d_S, e_S, s, rounding, lows, highs):
    """:func:`disagreement_slice` at each point of the flat arrays."""
    for i in range(e.size):
        lows[i], highs[i] = disagreement_slice(e[i], d_S[i], e_S[i], s[i], rounding)
