"""The global minimum of a bound concave in three or more convex posterior terms.

Orient each term so that the bound increases in it: the bound is ``G(t)``, increasing,
at ``t = (t_1(q), ..., t_k(q))`` with every ``t_i`` convex, so the reachable set plus
the positive orthant, ``S``, is convex.

**The outer polytope.** Each scalarized program ``min_q w @ t(q)``, solved at weights
``w >= 0``, comes with a proven lower bound ``c_w`` (weak duality, as in
:mod:`cvxpb.engine.declare.pareto`), so ``S`` lies in the halfspace ``w @ t >= c_w``.
With the box ``lo <= t <= hi`` (``lo_i`` each term's proven least value, ``hi_i`` its
largest, at a vertex of the simplex since the term is convex) these halfspaces make a
polytope ``P`` holding every reachable ``t``.

**The certificate.** Where ``G`` is concave on the box, or quasi-concave (each set
``{G >= lam}`` convex: the C-tandem bound; each atom states where it is,
:meth:`cvxpb.engine.declare.expressions.Expression.curvature_over`; safeguards that break
concavity are dropped from a minorant of ``G``,
:meth:`~cvxpb.engine.declare.expressions.Expression.bounding_form`), its least value on
``P`` is at a vertex of ``P``. The vertices are exact
(:class:`cvxpb.engine.declare.polytope.Polytope`) and rounded down, ``G`` is evaluated
there rounded down, and the least of those values is a proven lower bound on the
minimum. The least ``G`` at a solved posterior, re-evaluated with outward rounding, is
the upper bound.

**The atoms' domains.** An atom finite only on one side of a plane in its arguments
(``Expression.domain``: PAC-Bound 2 past a joint error of 0, where its slope is
infinite and no finite concave extension exists) would make every vertex past that
plane worth ``-inf``. Once the least vertex is such a one, the search cuts at the
plane's weights, its offset proven by the terms' least entry
(:func:`cvxpb.engine.declare.terms.weighted_floor`).

**The weights.** The least program value ``c(w) = min_q w @ t(q)`` is concave in ``w``,
and at the weights ``w_j`` of the cuts tight at a vertex ``v`` it equals ``w_j @ v``;
so if any weights cut ``v`` off, the weights between the ``w_j`` do (their mean first,
then the means of pairs). New weights go to the vertex where ``G`` is least, together
with the weights at which the best posterior so far is stationary (``grad G``), until
the two bounds meet within ``tol`` (an outer approximation in the manner of Benson,
1998, steered by the bound).
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from cvxpb.engine.declare.pareto import ParetoSearch, Values
from cvxpb.engine.declare.polytope import Polytope
from cvxpb.engine.declare.programs import Solved
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import gap_goal, nudge

STALL = 8  # rounds without the lower bound rising by tol end a search through a minorant
STALL_EXACT = 40  # ... and one through the terms themselves, whose cuts close the gap in
# the end: its least vertex can hold for a score of rounds, then jump


class VertexSearch(ParetoSearch):
    """Cuts at weights of the scalarization until the least vertex meets the best bound.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its posterior terms (two or more).
    signs : dict
        ``{term: +1 or -1}``: the direction the bound depends on each term in.
    solver : str, default="CLARABEL"
        CVXPY's solver for the scalarized programs without a closed form or Newton step.
    replace : dict, optional
        ``{term: majorant}``: convex majorants standing in for terms (a round of the
        convex-concave procedure).
    minorants : dict, optional
        ``{term: minorant}``: convex minorants to use instead of the terms' own.
    """

    def __init__(self, bound, terms, signs, solver="CLARABEL", replace=None, minorants=None):
        super().__init__(bound, terms, signs, solver, replace, minorants)
        self._least_index = None  # the least vertex's index, None once a cut removes it

    def run(self, tol, max_solves, rtol=None, cutoff=None):
        """Cut until the bound at the best posterior meets the least vertex value.

        Parameters
        ----------
        tol : float
            The gap at which the search stops.
        max_solves : int
            The scalarized programs at most.
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
        if self.box is None and not self.certifiable():
            raise ValueError("the bound is not concave in its terms on their box")
        lo = [self.box.lo[t] for t in self.terms]
        hi = [self.box.hi[t] for t in self.terms]
        self.polytope = Polytope(lo, hi)
        self.tol = gap_goal(tol, rtol, 1.0)  # the gap asked (of programs, for _joint_bound)
        for w in self._first_weights():
            self._cut(w)
        relaxed = any(m is not None for m in self.convex.values())
        stall = STALL if relaxed else STALL_EXACT
        history = []
        edges = domain_weights(self.bound, self.terms, self.signs)  # cut at the atoms'
        # domains once a vertex is past
        while True:
            best = min(self.solved, key=lambda s: s.value)
            lower, vertex = self._least_vertex()
            if lower == -np.inf and edges:
                for w in edges:  # the cut alone: its posterior (a program along an edge of
                    # the bound's domain, not towards its minimum) would steer the search
                    _, c = self.certified(list(zip(self.terms, w, strict=True)))
                    if np.isfinite(c):
                        self.polytope.cut(w, c)
                edges = []
                continue
            history.append(lower)
            goal = self.tol = gap_goal(tol, rtol, best.value)
            if best.value - lower <= goal or len(self.solved) >= max_solves:
                break
            if cutoff is not None and lower > cutoff:
                break
            if len(history) > stall:  # the programs' precision (or a minorant) stalls it
                rise = history[-1] - history[-1 - stall]  # NaN while no vertex has a value
                if not rise > max(goal, (best.value - lower) / 100):
                    break
            if not self._refine(vertex, best):
                break
        return best, lower, time.perf_counter() - start

    def _first_weights(self):
        """Every pair's and all the terms' mean weight, and the weights at which the
        prior is stationary."""
        k = len(self.terms)
        weights = [np.ones(k) / k]
        for i, j in itertools.combinations(range(k), 2):
            w = np.zeros(k)
            w[[i, j]] = 0.5
            weights.append(w)
        stationary = self._stationary(self.terms[0].posterior.prior)
        return weights + ([stationary] if stationary is not None else [])

    def _stationary(self, q):
        """The normalized slopes of ``G`` in the terms at ``q``, if finite and not zero."""
        slopes = self.slopes(q, self.terms)
        if not np.all(np.isfinite(slopes)) or slopes.sum() <= 0:
            return None
        return slopes / slopes.sum()

    def _refine(self, vertex, best) -> bool:
        """Cut at weights between the normals tight at ``vertex`` (their mean, then the
        means of pairs, until one cuts it off) and where ``best`` is stationary.
        Returns whether any new weights were tried."""
        normals, capped = self.polytope.normals_at(vertex)
        normals = [n / n.sum() for n in normals if n.sum() > 0]
        candidates = [np.mean(normals, axis=0)] if normals else []
        candidates += [(a + b) / 2 for a, b in itertools.combinations(normals, 2)]
        if capped.any():  # the upper faces' normals are no weights: drop those coordinates
            candidates = [_without(w, capped) for w in candidates] + candidates
        candidates = [w for w in candidates if w is not None]
        stationary = self._stationary(best.q)
        tried = False
        if stationary is not None and self._new(stationary):
            self._cut(stationary)
            tried = True
        for w in candidates:
            if not self._new(w):
                continue
            tried = True
            if self._cut(w) and self._least_index is None:
                break  # the least vertex is cut off
        return tried

    def _new(self, w) -> bool:
        key = tuple(np.round(w, 12))
        return key not in {tuple(np.round(s.log_weights, 12)) for s in self.solved}

    def _cut(self, w) -> bool:
        """Solve the scalarized program at ``w``, keep its posterior, add its cut."""
        weighted = list(zip(self.terms, [float(x) for x in w], strict=True))
        q, c = self.certified(weighted)
        q = np.maximum(q, 0.0)
        q /= exact_sum(q)
        self.solved.append(Solved(float("nan"), q, c, self.value_at(q), tuple(w)))
        if not (np.isfinite(c) and self.polytope.cut(w, c)):
            return False
        if self._least_index is not None:  # where the least vertex went, if it stayed
            stayed = np.flatnonzero(self.polytope.kept == self._least_index)
            self._least_index = int(stayed[0]) if stayed.size else None
        return True

    def _least_vertex(self):
        """``(lower, index)``: the least value of ``G``'s minorant over the vertices,
        rounded down, and the vertex it is at."""
        polytope = self.polytope
        fresh = [k for k, value in enumerate(polytope.values) if value is None]
        if fresh:
            points = polytope.lower_vertices(fresh)
            coordinates = {t: points[:, i] for i, t in enumerate(self.terms)}
            values = self.form.evaluate(Values(coordinates=coordinates, signs=self.signs), -1)
            values = np.broadcast_to(np.asarray(values, dtype=float), (len(fresh),))
            for k, value in zip(fresh, values, strict=True):
                polytope.values[k] = float(value)
        values = np.array(polytope.values, dtype=float)
        values = np.where(np.isnan(values), -np.inf, values)
        k = int(np.argmin(values))
        self._least_index = k
        return float(nudge(values[k], -1)) if np.isfinite(values[k]) else -np.inf, k


def domain_weights(bound, terms, signs) -> list:
    """Find the weights along which an atom of ``bound`` is finite only on one side.

    An atom's ``domain`` row ``a`` says ``a @ args >= 0`` at every rate a sample gives
    and ``-inf`` (from below) elsewhere. Where the arguments it weighs are terms and
    ``a`` times their orientation is at least 0, ``w @ t >= 0`` holds for the oriented
    terms ``t`` at every posterior: the vertex search proves a cut there (the
    scalarized program at those weights, its least entry as
    :func:`cvxpb.engine.declare.terms.weighted_floor`) that keeps the polytope's
    vertices where the atom has a value, not past its edge where each vertex would
    certify nothing; the segment search takes the least value on the edge instead.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its terms, in the order of the weights.
    signs : dict
        Their orientations.

    Returns
    -------
    list of ndarray
        Each the weights of one domain row, non-negative, summing to 1.
    """
    position = {t: i for i, t in enumerate(terms)}
    weights = []
    for node in _nodes(bound):
        for row in node.domain:
            w = np.zeros(len(terms))
            for arg, a in zip(node.args, row, strict=True):
                if a == 0:
                    continue
                if arg not in position:
                    break
                w[position[arg]] += a * signs[arg]
            else:
                if np.all(w >= 0) and w.sum() > 0:
                    weights.append(w / w.sum())
    return weights


def _nodes(expression):
    """The expression and every node under it."""
    yield expression
    for arg in expression.args:
        yield from _nodes(arg)


def _without(w, capped):
    """The weights ``w`` with the ``capped`` coordinates' set to 0, renormalized (None
    if nothing is left)."""
    w = np.where(capped, 0.0, w)
    return w / w.sum() if w.sum() > 0 else None
