"""The certified minimum of a bound over two voters: branch and bound on a segment.

With two voters a posterior is ``q(t) = (t, 1 - t)`` for ``t`` in ``[0, 1]``, so any
number of terms, of any curvature the declaration allows, is a function of one
number, and the minimum is certified by cutting the segment, whatever the bound's
shape in its terms.

**The lower bound on an interval** ``[a, b]`` of width ``w``. Each oriented term
``o(t) = sign * core(q(t))`` has a second derivative along the segment of at least
``k = 2 m``, with ``m`` the term's proven least curvature on the simplex's plane
(:meth:`cvxpb.engine.declare.terms.Term.least_curvature`; the direction
``(1, -1)`` has squared length 2). Where ``k >= 0`` the term is convex on the segment
and at least the larger of its tangents at ``a`` and ``b``, whose least value on the
interval is where they cross (or an end, where a slope's sign says so). Where
``k < 0`` it is at least the line through its two end values less
``-k (t - a) (b - t) / 2``, so at least the lesser end value less ``-k w^2 / 8``. The
bound increases in every oriented term, so on the interval it is at least its value
at those least values, rounded down. The tangents' slopes are floating-point
gradients: each line is lowered by ``SLOPE_ERROR`` times the gradient's size times
``w``, far above their rounding error and far below any gap asked.

**The search.** In rounds, every interval whose lower bound is not within the gap goal
of the least value found is cut at its midpoint and the bound evaluated there (rounded
up), all at once, until none is left.

**An atom's domain.** Where the least values' corner lies past an atom's domain
(``w @ t >= c`` for the oriented terms, :func:`cvxpb.engine.declare.vertices.domain_weights`,
``c`` proven by the terms' least entry: PAC-Bound 2's joint error of at least 0, where
a voter is perfect and the box of an interval near it holds rates no sample gives), the
terms' values on the interval lie in ``{t >= least, w @ t >= c}``; the bound increases
in each, so its least value there is on the face ``w @ t = c``, whose corners raise one
term each. Where the bound's minorant is proven concave on a box holding them, the
least of its values at those corners (each raised term rounded down) bounds the
interval. Where an interval stays without a finite lower bound down to
``2^-HOPELESS``, the search ends with none, and the searches of the other shapes take
over. Midpoints of ``[0, 1]`` are dyadic, so ``1 - t`` is
exact and every posterior evaluated is on the simplex exactly; an interval is not cut
below ``2^-MAX_DEPTH``.
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.box import Box
from cvxpb.engine.declare.pareto import VERTEX_CURVATURES
from cvxpb.engine.declare.programs import Solved
from cvxpb.engine.declare.terms import weighted_floor
from cvxpb.engine.declare.values import Values
from cvxpb.engine.declare.vertices import domain_weights
from cvxpb.numerics.tolerances import EPS, gap_goal, nudge

GRID = 64  # the first intervals
MAX_POINTS = 20_000  # posteriors evaluated at most (a gap still open is then reported)
MAX_DEPTH = 50  # an interval is not cut below 2^-MAX_DEPTH (1 - t stays exact)
HOPELESS = 16  # an interval of width 2^-HOPELESS with no finite lower bound ends the
# search: its terms' box holds rates no sample gives (a domain's edge, where the bound's
# slope is infinite), which cutting does not mend
SLOPE_ERROR = 1e-10  # a computed slope's error, relative to its gradient's size


class SegmentSearch:
    """Branch and bound over ``t`` for a bound of any terms on two voters.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its posterior terms.
    signs : dict
        ``{term: +1 or -1}``: the direction the bound depends on each term in.
    """

    def __init__(self, bound, terms, signs):
        self.bound, self.terms, self.signs = bound, list(terms), signs
        self.convex = {t: None for t in self.terms}  # every term is taken as it is
        self.curvature = {t: 2 * t.least_curvature(signs[t]) for t in self.terms}
        self.solved: list[Solved] = []
        self.form = bound.bounding_form(+1)  # a minorant of the bound, for the domains
        self.faces = []  # (w, c): w @ t >= c for the oriented terms at every posterior
        for w in domain_weights(bound, self.terms, signs):
            c = weighted_floor(list(zip(self.terms, w, strict=True)), signs)
            if np.isfinite(c):
                self.faces.append((w, c))

    @classmethod
    def applies(cls, posterior, terms, signs) -> bool:
        """Whether a bound on this posterior can be searched on the segment.

        Parameters
        ----------
        posterior : Posterior
            The declaration's posterior.
        terms : sequence of Term
            Its terms.
        signs : dict
            Their orientations.

        Returns
        -------
        bool
            Two voters, and a proven curvature for every term.
        """
        if posterior.size != 2:
            return False
        return all(t.least_curvature(signs[t]) is not None for t in terms)

    def run(self, tol, rtol=None, cutoff=None):
        """Cut the segment until the gap is within the goal.

        Parameters
        ----------
        tol, rtol : float
            The gap asked, absolute and relative to the bound.
        cutoff : float, optional
            Stop once the lower bound is above it.

        Returns
        -------
        tuple
            ``(best, lower, points)``: the best posterior as a :class:`Solved`, the
            proven lower bound (``-inf`` where none is) and the posteriors evaluated.
        """
        t = np.linspace(0.0, 1.0, GRID + 1)
        ends = self._at(t)
        a, b = _take(ends, slice(None, -1)), _take(ends, slice(1, None))
        lower = self._lower(a, b)
        while True:
            best = min(self.solved, key=lambda s: s.value)
            least = float(np.min(lower))
            goal = best.value - gap_goal(tol, rtol, best.value)
            width = b["t"] - a["t"]
            if least >= goal or (cutoff is not None and least > cutoff):
                return best, least, len(self.solved)
            hopeless = np.any((lower == -np.inf) & (width <= 2.0**-HOPELESS))
            if hopeless or len(self.solved) >= MAX_POINTS or np.min(width) <= 2.0**-MAX_DEPTH:
                return best, least, len(self.solved)
            kept, cut = lower >= goal, lower < goal
            middle = self._at((a["t"][cut] + b["t"][cut]) / 2)
            n_kept = int(kept.sum())
            a = _joined(_take(a, kept), _take(a, cut), middle)
            b = _joined(_take(b, kept), middle, _take(b, cut))
            new = slice(n_kept, None)
            lower = np.concatenate([lower[kept], self._lower(_take(a, new), _take(b, new))])

    def _lower(self, a, b):
        """The bound's proven lower bound on each interval, rounded down (``-inf`` where
        it is not a number: nothing proven)."""
        width = b["t"] - a["t"]
        least = {t: self._least(t, a[t], b[t], width) for t in self.terms}
        values = Values(coordinates=least, signs=self.signs)
        lower = np.asarray(self.bound.evaluate(values, -1), dtype=float)
        lower = np.where(np.isnan(lower), -np.inf, np.broadcast_to(lower, width.shape))
        if self.faces and np.any(lower == -np.inf):
            corner = np.stack([np.broadcast_to(least[t], width.shape) for t in self.terms])
            lower = np.maximum(lower, self._on_faces(corner, lower == -np.inf, a, b, width))
        return lower

    def _on_faces(self, corner, where, a, b, width):
        """Lower bounds on the intervals ``where`` whose least values' ``corner`` (one
        row per term) lies past an atom's domain: the least of the minorant at the
        corners of the face ``w @ t = c`` (module text), ``c`` raised on each interval
        to the least value there of ``w @ t`` itself; ``-inf`` elsewhere."""
        found = np.full(corner.shape[1], -np.inf)
        for w, c in self.faces:
            here = np.maximum(c, self._least_combined(w, a, b, width))
            with np.errstate(invalid="ignore"):
                short = here - w @ corner  # how far below the face the corner is
            for k in np.flatnonzero(where & (short > 0)):
                found[k] = max(found[k], self._least_on_face(corner[:, k], w, short[k]))
        return found

    def _least_combined(self, w, a, b, width):
        """The least value of ``w @ t`` (oriented terms) on each interval: a function
        whose ends are the terms' weighted sums and whose curvature is at least theirs,
        weighted."""

        weighted = [(wi, t) for wi, t in zip(w, self.terms, strict=True) if wi > 0]

        def summed(end):
            low, slope, size = (sum(wi * end[t][j] for wi, t in weighted) for j in range(3))
            error = 4 * EPS * sum(wi * np.abs(end[t][0]) for wi, t in weighted)
            return nudge(low - error, -1), slope, size

        k = float(sum(wi * self.curvature[t] for wi, t in weighted))
        return _least_of(summed(a), summed(b), k, width)

    def _least_on_face(self, corner, w, short) -> float:
        """The least of the minorant at the face's corners, rounded down, where it is
        proven concave on their box; ``-inf`` elsewhere."""
        raised = []
        for i in np.flatnonzero(w > 0):
            point = corner.copy()
            point[i] = nudge(corner[i] + short / w[i], -1)
            raised.append(point)
        raised = np.array(raised)
        top = nudge(np.max(raised, axis=0) + 4 * EPS * np.abs(short), +1)
        lo = dict(zip(self.terms, corner.tolist(), strict=True))
        box = Box(lo, dict(zip(self.terms, top.tolist(), strict=True)), self.signs)
        if self.form.curvature_over(box) not in VERTEX_CURVATURES:
            return -np.inf
        coordinates = {t: raised[:, j] for j, t in enumerate(self.terms)}
        values = self.form.evaluate(Values(coordinates=coordinates, signs=self.signs), -1)
        values = np.asarray(values, dtype=float)
        least = float(np.min(values)) if not np.any(np.isnan(values)) else -np.inf
        return float(nudge(least, -1))

    def _least(self, term, left, right, width):
        """The oriented term's least value on each interval, from its ends, rounded
        down."""
        return _least_of(left, right, self.curvature[term], width)

    def _at(self, t):
        """At each ``q(t)``: ``t``, and for each term its oriented value rounded down, its
        slope along the segment and its gradient's size; the bound there is recorded
        (rounded up) as a posterior found."""
        found = {"t": np.asarray(t, dtype=float)}
        upper = {}
        for term in self.terms:
            s = self.signs[term]
            rows = [self._term_at(term, s, np.array([x, 1.0 - x])) for x in found["t"]]
            low, slope, size, high = (np.array(column) for column in zip(*rows, strict=True))
            found[term] = np.stack([low, slope, size])
            upper[term] = high
        values = np.asarray(self.bound.evaluate(Values(coordinates=upper, signs=self.signs), +1))
        values = np.broadcast_to(values, found["t"].shape)
        for x, value in zip(found["t"], values, strict=True):
            self.solved.append(Solved(np.nan, np.array([x, 1.0 - x]), -np.inf, _or_inf(value)))
        return found

    @staticmethod
    def _term_at(term, s, q):
        """The oriented term at ``q`` rounded down, its slope, its gradient's size (of
        the finite entries) and its value rounded up."""
        with np.errstate(divide="ignore", invalid="ignore"):
            gradient = np.asarray(term.gradient(q), dtype=float)
        finite = gradient[np.isfinite(gradient)]
        slope = s * (gradient[0] - gradient[1]) if finite.size else np.nan
        return s * term.core(q, -s), slope, 1.0 + float(np.sum(np.abs(finite))), s * term.core(q, s)


def _least_of(left, right, k, width):
    """The least value on each interval of a function with second derivative at least
    ``k`` along the segment, from its ends' ``(value rounded down, slope, gradient
    size)``, rounded down (module text)."""
    (o_a, g_a, e_a), (o_b, g_b, e_b) = left, right
    if k < 0:  # at least the lesser end less -k w^2 / 8
        return nudge(np.minimum(o_a, o_b) + k * width**2 / 8, -1)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        s = (o_b - o_a - g_b * width) / (g_a - g_b)  # where the tangents cross
        s = np.clip(np.nan_to_num(s, nan=0.0), 0.0, width)
        crossing = np.minimum(o_a + g_a * s, np.minimum(o_a, o_b))
        error = 4 * EPS * (np.abs(o_a) + np.abs(o_b) + (np.abs(g_a) + np.abs(g_b)) * width)
        crossing = crossing - error - SLOPE_ERROR * (e_a + e_b) * width
        at_a = o_a - SLOPE_ERROR * e_a * width  # increasing from a: least at a
        at_b = o_b - SLOPE_ERROR * e_b * width  # decreasing to b
        from_b = o_b - g_b * width - SLOPE_ERROR * e_b * width  # vertical tangent at a
        from_a = o_a + g_a * width - SLOPE_ERROR * e_a * width  # and at b
    least = np.select(
        [
            np.isnan(g_a) | np.isnan(g_b),
            g_a >= 0,
            g_b <= 0,
            ~np.isfinite(g_a),
            ~np.isfinite(g_b),
        ],
        [-np.inf, at_a, at_b, from_b, from_a],
        crossing,
    )
    return nudge(least, -1)


def _take(ends, index):
    """The intervals' ends at ``index`` (each entry's last axis)."""
    return {k: v[..., index] for k, v in ends.items()}


def _joined(*parts):
    """Ends of intervals, one after the other."""
    return {k: np.concatenate([p[k] for p in parts], axis=-1) for k in parts[0]}


def _or_inf(value) -> float:
    """A bound's value, ``inf`` where it is not a number."""
    value = float(value)
    return value if value == value else np.inf
