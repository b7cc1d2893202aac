"""The global minimum of a bound increasing in two convex posterior terms.

Orient each term so that the bound increases in it (a concave term enters as its
negative): the bound is ``G(a, b)``, increasing in both, at ``a = A(q)``, ``b = B(q)``
with ``A`` and ``B`` convex. Its minimum over the simplex is at a Pareto point of
``(A, B)``, and every such point minimizes ``A + mu B`` for some ``mu`` in ``[0, inf]``.

**The certificate.** Each scalarized program, solved at ``mu_k``, comes with a lower
bound ``c_k <= min_q A(q) + mu_k B(q)`` from weak duality (below), so every reachable
pair ``(A(q), B(q))`` lies in the region ``R = {a >= a_lo, b >= b_lo, a + mu_k b >=
c_k for every k}``. As ``G`` increases in both, its least value on ``R`` is on the
lower-left boundary of ``R``, a convex broken line; on a piece of it from ``(a1, b1)``
to ``(a2, b2)`` (``a1 <= a2``, ``b1 >= b2``), ``G >= G(a1, b2)``. Cutting every edge
into ``PIECES`` pieces and taking the least such corner value gives a proven lower
bound on the minimum; the least ``G`` at a solved posterior, re-evaluated with outward
rounding, is the upper bound. Where a minorant of ``G`` is concave on a box that holds
the edges (each atom states where it is, as for :mod:`cvxpb.engine.declare.vertices`;
the KL bounds of every distance, the tandem bound), its least value on an edge is at
one of the edge's two ends, which replace the pieces: the lower bound is then the
least value on the region's boundary itself, not a piecewise estimate of it. The
region's lower ends start at the terms' known floors (a rate is at least 0), so its
boundary never runs where no pair can be. New ``mu`` go next to the edge with the
least corner, with the ``mu`` at which the best posterior so far is stationary
(``dG/db / dG/da``), until the two bounds meet within ``tol``; an edge whose corners
alone keep them apart is cut into more pieces. The ``c_k`` are rounded down; each
vertex's ``b`` is enclosed by interval arithmetic, and a line whose crossings the
rounding cannot order is dropped (fewer lines leave a larger region, which still holds
every pair), so each edge's range of ``b`` holds its true one and every point at which
``G`` is evaluated is below-left of the boundary point it stands for.

**The lower bounds ``c_k``.** Where ``B`` is a divergence,
``min_q' g @ q' + mu B(q')`` has a closed form with a dual certificate
(:meth:`cvxpb.pac_bayes.divergences.Divergence.linear_min`), and convexity of ``A`` gives
``min A + mu B >= A(q) - grad A(q) @ q + min_q' [grad A(q) @ q' + mu B(q')]`` at any
``q``. For an affine ``A`` this is the minimum itself and ``q'`` the minimizer (the
Gibbs and chi-squared families of ``method="exact"``); otherwise ``q`` comes from
Newton's method where ``A`` is quadratic and ``B`` is KL
(:mod:`cvxpb.engine.declare.newton`), else from CVXPY with Clarabel. Without a divergence
the Frank-Wolfe bound ``f(q) + min_i grad f_i - grad f @ q`` of ``f = A + mu B`` is
used. No solver is trusted: the bound holds whatever ``q`` they return.
"""

from __future__ import annotations

import math
import time

import numpy as np

from cvxpb.engine.declare.box import Box
from cvxpb.engine.declare.programs import ScalarizedPrograms, Solved
from cvxpb.engine.declare.values import Values
from cvxpb.numerics.derivatives import central_difference
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import gap_goal, nudge, nudge_float

PIECES = 256  # each edge of the boundary is cut into this many pieces for its corners
STALL = 5  # rounds without the lower bound rising by tol (or 1% of the gap) end a search
# through a minorant
MAX_PIECES = 1 << 14  # an edge that could hold the minimum is cut into up to this many
FIRST_MUS = np.geomspace(1e-8, 1e2, 21)
# log-distances from the stationary mu of the programs placed around it each round where
# they have a closed form: lines that close the gap near the minimum in one or two rounds
CLUSTER = np.array([1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3])
# the curvatures of G's minorant on the terms' box under which its least value on a
# polytope is at a vertex, on a segment at an end: concave, and quasi-concave (each set
# {G >= lam} convex, so G at a mixture of points is at least their least value)
VERTEX_CURVATURES = ("affine", "concave", "quasiconcave")
POLISH = 4  # programs at most at the best posterior's stationary mu, once certified


class ParetoSearch(ScalarizedPrograms):
    """Branch and bound over ``mu`` for a bound in two oriented terms ``A``, ``B``.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its posterior terms (the first and the last are ``A`` and ``B``).
    signs : dict
        ``{term: +1 or -1}``: the direction the bound depends on each term in.
    solver : str, default="CLARABEL"
        CVXPY's solver for the scalarized programs without a closed form or Newton step.
    replace : dict, optional
        ``{term: majorant}``: convex majorants standing in for terms (a round of the
        convex-concave procedure).
    minorants : dict, optional
        ``{term: minorant}``: convex minorants to use instead of the terms' own (ones
        made tight at a posterior, :meth:`QuadraticForm.minorant`).
    """

    def __init__(self, bound, terms, signs, solver="CLARABEL", replace=None, minorants=None):
        self.bound, self.signs, self.solver = bound, signs, solver
        self.A, self.B = terms[0], terms[-1]
        self.terms = list(terms)
        self.form = bound.bounding_form(+1)  # a minorant of the bound
        self.box = None  # the terms' box, once certifiable() has computed it
        self.curvature = None  # the minorant's curvature on it, proven there
        self._concave = None  # whether the form is concave on the box (two terms)
        self._closed = None  # whether the programs have closed forms (closed_family)
        self.solved: list[Solved] = []
        self.convex = {t: t.minorant(s) for t, s in signs.items()}
        self.convex.update(minorants or {})
        self.inherited: list[Solved] = []  # an earlier search's programs (run's earlier)
        self.replace = replace or {}  # majorants standing in for terms (convex-concave)
        self.convex.update(self.replace)
        self._edge_values: dict = {}  # (mu, c, lo, hi) -> least corner value of G
        self._joint = (0, 0)  # the programs _joint_bound was tried on, and raised c in
        self.tol = 0.0  # the gap asked, once run sets it (0: the joint bound always tried)
        # monotone along lines: least at a vertex of R, and stationary at one mu
        self.vertex_exact = bound.monotone_of_affine()

    def certifiable(self, least=None) -> bool:
        """Whether the bound's minorant is concave on the terms' box (computing the box).

        Parameters
        ----------
        least : dict, optional
            ``{term: proven least oriented value}`` where already known.

        Returns
        -------
        bool
            True when the vertex certificate applies.
        """
        lo = dict(least) if least is not None else {t: self._least(t) for t in self.terms}
        lo = {t: self._floored(t, lo[t]) for t in self.terms}
        hi = {t: self._largest(t) for t in self.terms}
        if not all(np.isfinite(lo[t]) and np.isfinite(hi[t]) for t in self.terms):
            return False
        self.box = Box(lo, hi, self.signs)
        self.curvature = self.form.curvature_over(self.box)
        return self.curvature in VERTEX_CURVATURES

    def _floored(self, term, least) -> float:
        """``least`` raised to the oriented term's known floor (a rate's, below which a
        convex minorant may reach: the minorant raised to the floor is one too); for a
        decreasing term, the floor of its negative, minus its known ceiling."""
        if self.signs[term] > 0 and term.floor is not None:
            return max(least, term.floor)
        if self.signs[term] < 0 and term.ceiling is not None:
            return max(least, -term.ceiling)
        return least

    def _largest(self, term) -> float:
        """The oriented term's (or its convex stand-in's) largest value on the simplex,
        rounded up: a convex function's largest value is at a vertex."""
        minorant = self.convex[term]
        known = term.largest(self.signs[term]) if minorant is None else minorant.largest(+1)
        if known is None:
            known = self._largest_at_vertices(term, minorant)
        cap = self._cap(term)  # the form's own, which programs on loan reach
        return known if cap is None or not self.relaxed(term) else max(known, cap)

    def _largest_at_vertices(self, term, minorant) -> float:
        prior = term.posterior.prior
        values = []
        for j in range(prior.size):
            e = np.zeros(prior.size)
            e[j] = 1.0
            value = self.oriented(term, e, +1) if minorant is None else minorant.core(e, +1)
            values.append(float(value))
        return float(nudge(max(values), +1))

    def _cap(self, term):
        """The oriented term's known ceiling (None where unknown)."""
        if self.signs[term] > 0:
            return term.ceiling
        return None if term.floor is None else -term.floor

    def relaxed(self, term) -> bool:
        """Whether ``term`` stands in the programs through a convex minorant.

        Parameters
        ----------
        term : Term
            The term.

        Returns
        -------
        bool
            True for a minorant (not for a majorant of the convex-concave procedure).
        """
        return self.convex[term] is not None and term not in self.replace

    def oriented(self, term, q, rounding):
        """The oriented term ``sign * core`` at ``q``.

        Parameters
        ----------
        term : Term
            The term.
        q : ndarray of shape (H,)
            A posterior.
        rounding : {-1, 0, 1}
            The direction to round the oriented value in.

        Returns
        -------
        float
            ``signs[term] * term.core(q)``.
        """
        s = self.signs[term]
        return s * term.core(q, s * rounding)

    def lower_value(self, term, q, exact=False) -> float:
        """The oriented term at ``q`` rounded down, or its convex minorant's value.

        Parameters
        ----------
        term : Term
            The term.
        q : ndarray of shape (H,)
            A posterior.
        exact : bool, default=False
            The term itself even where it has a minorant (a program on loan).

        Returns
        -------
        float
            A value at most the oriented term at ``q``.
        """
        minorant = None if exact and self.relaxed(term) else self.convex[term]
        return self.oriented(term, q, -1) if minorant is None else minorant.core(q, -1)

    def lower_gradient(self, term, q, exact=False):
        """The gradient of the oriented term (or of its convex minorant) at ``q``.

        Parameters
        ----------
        term : Term
            The term.
        q : ndarray of shape (H,)
            A posterior.
        exact : bool, default=False
            The term's own even where it has a minorant (a program on loan).

        Returns
        -------
        ndarray of shape (H,)
            The gradient.
        """
        minorant = None if exact and self.relaxed(term) else self.convex[term]
        return self.signs[term] * term.gradient(q) if minorant is None else minorant.gradient(q)

    def convex_expr(self, term, q):
        """The oriented term (or its convex minorant) as a convex CVXPY expression.

        Parameters
        ----------
        term : Term
            The term.
        q : cvxpy.Variable of shape (H,)
            The posterior variable.

        Returns
        -------
        cvxpy.Expression
            A convex expression.
        """
        minorant = self.convex[term]
        return self.signs[term] * term.expr(q) if minorant is None else minorant.expr(q)

    def value_at(self, q) -> float:
        """The bound at ``q`` rounded up (through the majorants that stand in, if any).

        Parameters
        ----------
        q : ndarray of shape (H,)
            A posterior.

        Returns
        -------
        float
            The bound.
        """
        return float(self.bound.evaluate(Values(q, signs=self.signs, replace=self.replace), +1))

    def slopes(self, q, terms) -> np.ndarray:
        """The bound's slope in each oriented term at ``q``.

        Parameters
        ----------
        q : ndarray of shape (H,)
            A posterior.
        terms : sequence of Term
            The terms.

        Returns
        -------
        ndarray
            ``dG/dt`` for each term, by central differences, at least 0.
        """
        t = {term: self.oriented(term, q, 0) for term in terms}

        def at(term, shift):
            values = Values(coordinates={**t, term: t[term] + shift}, signs=self.signs)
            return float(self.bound.evaluate(values, 0))

        steps = [1e-6 * max(abs(t[term]), 1e-3) for term in terms]
        slopes = [
            central_difference(lambda shift, term=term: at(term, shift), 0.0, step)
            for term, step in zip(terms, steps, strict=True)
        ]
        return np.maximum(slopes, 0.0)

    def run(self, tol, max_solves, earlier=None, first=None, rtol=None, cutoff=None):
        """Search ``mu`` until the bound at the best posterior meets the lower bound.

        Parameters
        ----------
        tol : float
            The gap at which the search stops.
        max_solves : int
            The scalarized programs at most.
        earlier : ParetoSearch, optional
            A finished search of the same bound through other (valid) minorants: its
            programs' lower bounds hold here too and its posteriors' values are true
            values, so they are kept, and this search starts at its ``mu`` near its
            best posterior instead of ``FIRST_MUS``.
        first : sequence of float, optional
            The ``mu`` to begin at instead of ``FIRST_MUS`` (a round of the
            convex-concave procedure begins where the round before ended).
        rtol : float, optional
            Where given, the search stops only once the gap is also within ``rtol``
            times the bound at the best posterior (:func:`cvxpb.numerics.tolerances.gap_goal`).
        cutoff : float, optional
            The search stops once its lower bound is above this.

        Returns
        -------
        best : Solved
            The program whose posterior has the least bound.
        lower : float
            The proven lower bound on the minimum.
        seconds : float
            Wall-clock time.
        """
        start = time.perf_counter()
        self.tol = tol  # the gap asked: tol, or less where rtol is given (each round)
        first = self._first_mus() if first is None else first
        if earlier is not None:
            self.inherited = list(earlier.solved) + earlier.inherited
            first = earlier.mus_near_best()
        self._solve_all([float(mu) for mu in first])
        # the region's lower ends, at least the terms' known floors: the region then
        # holds the floors' faces, and its boundary stays where the terms can be
        self.a_lo = self._floored(self.A, self._least_seen(self.A))
        self.b_lo = self._floored(self.B, self._least_seen(self.B))
        if earlier is not None:
            self.a_lo, self.b_lo = max(self.a_lo, earlier.a_lo), max(self.b_lo, earlier.b_lo)
        relaxed = any(m is not None for m in self.convex.values())
        history = []
        while True:
            best = min(self.solved + self.inherited, key=lambda s: s.value)
            self.upper, self.tol = best.value, gap_goal(tol, rtol, best.value)
            lower, edge = self.lower_bound()
            history.append(lower)
            new = self._new_mus(edge, best)
            if best.value - lower <= self.tol or len(self.solved) >= max_solves or not new:
                break
            if cutoff is not None and lower > cutoff:
                break
            rise = history[-1] - history[-1 - STALL] if len(history) > STALL else np.inf
            if relaxed and rise <= max(self.tol, (best.value - lower) / 100):
                break  # the minorant's own shortfall holds the bounds apart
            self._solve_all(new[: max(max_solves - len(self.solved), 1)])
        best = min(self.solved + self.inherited, key=lambda s: s.value)
        if self.closed_family:
            best = self._polished(best, max_solves)
        return best, lower, time.perf_counter() - start

    def _polished(self, best, max_solves):
        """``best`` improved by programs at the ``mu`` where it is stationary while they
        lower the bound (a Newton iteration on ``mu``, for programs in closed form:
        the search stops at ``tol``, these take the bound on to rounding)."""
        for _ in range(POLISH):
            slope_a, slope_b = self.slopes(best.q, [self.A, self.B])
            if len(self.solved) >= max_solves or not (slope_a > 0 and 0 < slope_b < np.inf):
                break
            mu = float(slope_b / slope_a)
            if mu in {s.mu for s in self.solved}:
                break
            self._solve_all([mu])
            if self.solved[-1].value >= best.value:
                break
            best = self.solved[-1]
        return best

    def mus_near_best(self, factor=10.0):
        """The ``mu`` of the solved programs near the best posterior's.

        Parameters
        ----------
        factor : float, default=10.0
            How far (as a ratio) a ``mu`` may lie from the best posterior's.

        Returns
        -------
        list of float
            The ``mu``, ascending.
        """
        best = min(self.solved, key=lambda s: s.value).mu
        mus = [s.mu for s in self.solved if best / factor <= s.mu <= best * factor]
        return sorted(set(mus)) or [best]

    def _first_mus(self):
        """``FIRST_MUS``; for a monotone function of ``w_A A + w_B B`` (whose minimum
        is the scalarized program's at ``mu = w_B / w_A``) that ``mu`` alone, from the
        slopes at the prior, when they are finite and positive."""
        if self.vertex_exact:
            slope_a, slope_b = self.slopes(self.A.posterior.prior, [self.A, self.B])
            if slope_a > 0 and 0 < slope_b < np.inf:
                return [float(slope_b / slope_a)]
        return FIRST_MUS

    def run_single(self):
        """Minimize a bound of one term: the term's least value, with its proof.

        Returns
        -------
        best : Solved
            The posterior at the term's minimum.
        lower : float
            The bound at the proven least value of the term, rounded down.
        seconds : float
            Wall-clock time.
        """
        start = time.perf_counter()
        q, least = self._alone(self.A)
        q = np.maximum(q, 0.0)
        q /= exact_sum(q)
        self.solved.append(Solved(0.0, q, least, self.value_at(q)))
        values = Values(coordinates={self.A: np.float64(least)}, signs=self.signs)
        return self.solved[0], float(self.bound.evaluate(values, -1)), time.perf_counter() - start

    def _least(self, term) -> float:
        """A lower bound on the oriented term over the simplex."""
        return self._alone(term)[1]

    def _least_seen(self, term) -> float:
        """A lower bound on the oriented term over the simplex: in closed form where it
        has one; else the Frank-Wolfe bound at the solved program's posterior that
        weighs the other term least (``mu`` at most ``FIRST_MUS[0]`` for ``A``, at
        least ``FIRST_MUS[-1]`` for ``B``: within ``mu log H`` of the term's own least
        value), where there is one; else the term's own program's (:meth:`_least`)."""
        closed = self._closed_alone(term)
        if closed is not None:
            return closed[1]
        if term is self.A:
            near = [s for s in self.solved if s.mu <= FIRST_MUS[0]]
        else:
            near = [s for s in self.solved if s.mu >= FIRST_MUS[-1]]
        if not near:
            return self._least(term)
        return max(self._frank_wolfe([(term, 1.0)], s.q) for s in near)

    def _alone(self, term):
        """``(q, lower)``: a posterior near the oriented term's minimum and a lower bound
        on it (closed form for divergences and affine terms, else Clarabel and
        Frank-Wolfe)."""
        closed = self._closed_alone(term)
        if closed is not None:
            return closed
        weighted = [(term, 1.0)]
        q = self._program(weighted)
        return q, self._frank_wolfe(weighted, q)

    def _closed_alone(self, term):
        """:meth:`_alone` in closed form (a divergence, an affine term), else None."""
        zeros = np.zeros(term.posterior.size)
        if self.signs[term] > 0 and term.closed_form_min:
            return term.linear_min(zeros, 1.0)
        if term.curvature == "affine":
            g = self.signs[term] * term.gradient(zeros)
            vertex = (g == g.min()).astype(float)
            return vertex / vertex.sum(), float(nudge(np.min(g), -1))
        return None

    def _solve_all(self, mus):
        """Solve the scalarized programs at ``mus``: at once for an affine ``A`` and a
        divergence ``B`` with a closed-form minimum (the Gibbs and chi-squared
        families), whose bound is then evaluated at all the posteriors' terms in one
        call; one by one otherwise."""
        if not self.closed_family:
            for mu in sorted(mus, reverse=True):  # from the prior's end: warm starts
                self._solve(mu)
            return
        found = [(mu, *self._program_at(mu)) for mu in mus]
        # each oriented term rounded up: the bound, increasing in both, rounded up as
        # value_at rounds it
        a = np.array([self.oriented(self.A, q, +1) for _, q, _ in found])
        b = np.array([self.oriented(self.B, q, +1) for _, q, _ in found])
        values = self.bound.evaluate(
            Values(coordinates={self.A: a, self.B: b}, signs=self.signs), +1
        )
        values = np.broadcast_to(np.asarray(values, dtype=float), a.shape)
        for (mu, q, lower), value in zip(found, values, strict=True):
            self.solved.append(Solved(mu, q, lower, float(value)))

    def lower_bound(self):
        """The least corner value of ``G`` on the lower-left boundary of ``R``.

        Returns
        -------
        lower : float
            A proven lower bound on the minimum.
        edge : int
            The index (into the boundary's lines) of the edge it came from.
        """
        programs = self.solved + self.inherited
        lines = [(0.0, float(self.a_lo))]
        lines += [(float(s.mu), float(s.lower)) for s in programs if np.isfinite(s.lower)]
        lines, crossings = _envelope(lines)
        self._lines = lines
        edges = _edges(lines, crossings, float(self.b_lo))
        fresh = [edge for edge in edges if edge not in self._edge_values]
        if fresh:
            self._edge_values.update(zip(fresh, self._least_corners(fresh), strict=True))
        values = [self._edge_values[edge] for edge in edges]
        best = int(np.argmin(values))
        return values[best], best

    def _least_corners(self, edges) -> list[float]:
        """The least corner value of ``G`` on each edge (an edge is the same set of
        corners whenever it recurs, so :meth:`lower_bound` keeps these). Where ``G``'s
        minorant is concave on the terms' box, an edge's least value is at one of its
        ends (:meth:`_least_at_ends`); elsewhere every edge's corners are evaluated at
        once and an edge that could hold the minimum is then refined on its own
        (:meth:`_refined`)."""
        at_ends = [k for k, (mu, *_) in enumerate(edges) if self._ends_suffice(mu)]
        values = self._least_at_ends([edges[k] for k in at_ends])
        if values is None:  # not proven concave where the edges reach: pieces instead
            at_ends, values = [], []
        least = dict(zip(at_ends, values, strict=True))
        rest = [k for k in range(len(edges)) if k not in least]
        spans = [edges[k] for k in rest]
        if spans:
            corners = [self._edge_corners(*span) for span in spans]
            a = np.concatenate([np.atleast_1d(a) for a, _ in corners])
            b = np.concatenate([np.atleast_1d(b) for _, b in corners])
            values = np.broadcast_to(np.asarray(self._at(a, b), dtype=float), a.shape)
            pieces = np.split(values, np.cumsum([np.size(a) for a, _ in corners])[:-1])
            for k, span, (_, b), piece in zip(rest, spans, corners, pieces, strict=True):
                least[k] = self._refined(*span, b, piece)
        return [least[k] for k in range(len(edges))]

    def _ends_suffice(self, mu) -> bool:
        """Whether an edge of slope ``mu > 0`` takes its least value at its ends because
        ``G``'s minorant is concave on the terms' box (proven once, when first asked;
        a bound monotone in a weighted sum has its own rule, :meth:`_edge_corners`)."""
        if mu == 0 or self.vertex_exact:
            return False
        if self._concave is None:
            self._concave = self.certifiable({self.A: self.a_lo, self.B: self.b_lo})
        return self._concave

    def _least_at_ends(self, edges):
        """The least value of ``G``'s concave minorant on each edge ``a = c - mu b``:
        the lesser of its two ends, each taken below-left of the true one (the edge's
        ``b`` range holds the true one) and evaluated rounded down; ``inf`` for an edge
        wholly below the box's lower ends (no pair lies there). None where the minorant
        is not proven concave on a box that holds the edges (the box's top is raised to
        them where they reach past it: a search that goes on from an earlier one's
        programs, through other minorants, holds the true pairs, which may lie above its
        own minorants' largest values).

        The edges are cut at the box's lower ends (every pair the region holds is
        above them, so its boundary's part below them holds none)."""
        if not edges:
            return []
        top_a = max(_up(float(c) - _dn(float(mu) * float(lo))) for mu, c, lo, _ in edges)
        top_b = max(float(hi) for *_, hi in edges)
        if not self._concave_up_to(top_a, top_b):
            return None
        lo_a, lo_b = float(self.box.lo[self.A]), float(self.box.lo[self.B])
        points, inside = [], []
        for mu, c, lo, hi in edges:
            mu, c, bottom = float(mu), float(c), max(float(lo), lo_b)
            reach = _dn(_dn(c - lo_a) / mu)  # the line is at a >= lo_a up to here
            top = min(float(hi), reach)
            if bottom <= top:  # both ends below-left of the line's points, a >= lo_a
                # (past ``reach``, up to where the line meets a = lo_a, (lo_a, reach) is
                # below-left of every point as well)
                a_top = lo_a if reach < float(hi) else max(lo_a, _dn(c - _up(mu * top)))
                points += [(a_top, top), (max(lo_a, _dn(c - _up(mu * bottom))), bottom)]
                inside.append(True)
            elif bottom <= _up(_up(c - lo_a) / mu):  # perhaps a sliver: below-left of it
                points += [(lo_a, bottom)] * 2
                inside.append(True)
            else:  # wholly below a = lo_a
                inside.append(False)
        if not points:
            return [np.inf] * len(edges)
        a = np.array([x for x, _ in points])
        b = np.maximum([y for _, y in points], lo_b)
        coordinates = {self.A: a, self.B: b}
        values = self.form.evaluate(Values(coordinates=coordinates, signs=self.signs), -1)
        values = np.broadcast_to(np.asarray(values, dtype=float), a.shape)
        values = nudge(np.where(np.isnan(values), -np.inf, values), -1).reshape(-1, 2).min(axis=1)
        least = iter(values)
        return [float(next(least)) if fits else np.inf for fits in inside]

    def _concave_up_to(self, top_a, top_b) -> bool:
        """Whether ``G``'s minorant is concave on the box raised to reach ``top_a`` and
        ``top_b`` (the raised box is kept when it is: concave on it, concave on less)."""
        hi = self.box.hi
        if top_a <= hi[self.A] and top_b <= hi[self.B]:
            return True
        raised = {self.A: max(hi[self.A], top_a), self.B: max(hi[self.B], top_b)}
        box = Box(self.box.lo, raised, self.signs)
        if self.form.curvature_over(box) not in VERTEX_CURVATURES:
            return False
        self.box = box
        return True

    def _least_on_edge(self, mu, c, lo, hi) -> float:
        """The least corner value of ``G`` on one edge ``a = c - mu b``, ``b`` in
        ``[lo, hi]`` (:meth:`_least_corners` for one edge, its ends already rounded)."""
        a, b = self._edge_corners(mu, c, lo, hi)
        values = np.broadcast_to(np.asarray(self._at(a, b), dtype=float), np.shape(a))
        return self._refined(mu, c, lo, hi, b, values)

    def _edge_corners(self, mu, c, lo, hi):
        """The corners ``(a, b)`` at which :meth:`_refined` starts on the edge
        ``a = c - mu b``, ``b`` in ``[lo, hi]``: its two ends where ``G`` is monotone
        along it, else ``PIECES`` pieces' corners."""
        if self.vertex_exact and mu > 0:  # monotone along the edge: least at an end
            b = np.array([hi, lo])
            return nudge(c - nudge(mu * b, +1), -1), b
        return _corners(mu, c, lo, hi, PIECES)

    def _refined(self, mu, c, lo, hi, b, values) -> float:
        """The least corner value of ``G`` on the edge ``a = c - mu b``, ``b`` in
        ``[lo, hi]``, from its first corners' ``b`` and ``values``. Near the minimum
        ``G`` is flat along the edge, so every piece's corner is short of ``G`` on the
        segment by about the same amount. Where the least corner is below
        ``upper - tol`` but ``G`` on the segment there is not (only finer pieces, not
        more ``mu``, can close that gap), the edge is cut into proportionally more
        pieces, at most ``MAX_PIECES``."""
        least = float(values.min())
        if (self.vertex_exact and mu > 0) or mu == 0 or least >= self.upper - self.tol:
            return least
        k = int(np.argmin(values))
        on_line = float(self._at(c - mu * b[k], b[k]))
        if on_line < self.upper - self.tol / 2:  # only more mu can close this gap
            return least
        pieces = min(MAX_PIECES, PIECES * math.ceil((on_line - least) / (self.tol / 8)))
        if pieces <= PIECES:
            return least
        a, b = _corners(mu, c, lo, hi, pieces)
        return float(np.min(self._at(a, b)))

    def _at(self, a, b):
        """``G`` at oriented coordinates, rounded down."""
        coordinates = {self.A: a, self.B: b}
        return self.bound.evaluate(Values(coordinates=coordinates, signs=self.signs), -1)

    def _new_mus(self, edge, best):
        """``mu`` between the edge's line and its neighbours on the boundary, and the
        ``mu`` at which the best posterior so far would be stationary
        (``dG/dB / dG/dA``, a Newton-like step that the bisection backs up)."""
        mus = [float(mu) for mu, _ in self._lines]
        here = mus[edge]
        new = []
        if edge > 0:
            below = mus[edge - 1]
            new.append(here / 10 if below == 0 else float(np.sqrt(below * here)))
        if edge + 1 < len(mus):
            new.append(float(np.sqrt(here * mus[edge + 1])))
        elif here > 0:
            new.append(here * 10)
        else:
            new.append(FIRST_MUS[0])
        slope_a, slope_b = self.slopes(best.q, [self.A, self.B])
        if slope_a > 0 and 0 < slope_b < np.inf:
            stationary = slope_b / slope_a
            new.append(float(stationary))
            if self.closed_family:  # programs cost next to nothing: a cluster around it
                new += [float(stationary * np.exp(x)) for x in np.r_[-CLUSTER, CLUSTER]]
        known = {s.mu for s in self.solved}
        return list(dict.fromkeys(mu for mu in new if mu not in known))


def _corners(mu, c, lo, hi, pieces):
    """The lower-left corners of ``pieces`` pieces of the edge ``a = c - mu b``,
    ``b in [lo, hi]`` (rounded down): on the piece ``[b_(t+1), b_t]`` the least ``a`` is
    at ``b_t``, the least ``b`` at ``b_(t+1)``. ``mu = 0`` is the ray ``a = c``, ``b >= lo``."""
    if mu == 0:
        return np.array([c]), np.array([lo])
    b = np.linspace(hi, lo, pieces + 1)
    b[0], b[-1] = hi, lo
    a = nudge(c - nudge(mu * b[:-1], +1), -1)
    return a, b[1:]


def _dn(x: float) -> float:
    return nudge_float(x, -1)


def _up(x: float) -> float:
    return nudge_float(x, +1)


def _crossing(first, second):
    """``(low, high)``: an enclosure of the ``b`` where two lines ``a = c - mu b``
    meet (the second's ``mu`` the greater), or None where it is not a finite float."""
    (m1, c1), (m2, c2) = first, second
    top, width = c2 - c1, m2 - m1
    top_lo, top_hi, width_lo, width_hi = _dn(top), _up(top), _dn(width), _up(width)
    if not width_lo > 0 or not math.isfinite(top):
        return None
    with np.errstate(over="ignore"):
        low = top_lo / (width_hi if top_lo >= 0 else width_lo)
        high = top_hi / (width_lo if top_hi >= 0 else width_hi)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return _dn(low), _up(high)


def _envelope(lines):
    """The lines ``a = c - mu b`` on the upper envelope as ``b`` falls (``mu``
    ascending), and enclosures of the ``b`` where each meets the next.

    A line is kept only where its crossings' enclosures are apart and in order; a
    line the rounding cannot place is dropped, which leaves a region holding the
    true one (fewer lines bound less), so every vertex found is a true vertex of it.
    """
    best: dict = {}
    for mu, c in lines:
        best[mu] = max(c, best.get(mu, c))
    kept: list = []
    crossings: list = []
    for line in sorted(best.items()):
        while kept:
            crossing = _crossing(kept[-1], line)
            if crossing is None and (len(kept) == 1 or kept[-1][1] >= line[1]):
                break  # lines the rounding cannot tell apart: the new one is dropped (the
                # first, the floor a >= a_lo, always stays)
            if crossing is not None and (not crossings or crossings[-1][0] > crossing[1]):
                crossings.append(crossing)
                kept.append(line)
                break
            kept.pop()
            if crossings:
                crossings.pop()
        else:
            kept.append(line)
    return kept, crossings


def _edges(lines, crossings, b_lo):
    """``(mu, c, lo, hi)`` per line of the envelope: a range of ``b`` holding the one
    where it is the boundary (``lo`` rounded down, ``hi`` up), cut at ``b >= b_lo``
    (``hi`` of the first edge is its ``lo``: a ray)."""
    edges = []
    for k, (mu, c) in enumerate(lines):
        lo = crossings[k][0] if k < len(crossings) else b_lo
        hi = crossings[k - 1][1] if k > 0 else lo
        if k == 0 or hi > b_lo:
            edges.append((mu, c, max(lo, b_lo), max(hi, lo, b_lo)))
    return edges
