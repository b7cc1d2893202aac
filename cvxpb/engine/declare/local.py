"""Bounds of three or more posterior terms: a local search over the scalarization's
weights, with what it proves stated.

A bound ``G`` increasing in the oriented convex terms ``t_1, ..., t_k`` is least at a
Pareto point of the terms, and every such point minimizes ``t_1 + sum_j w_j t_j`` for
some weights ``w_j >= 0`` (or, at the far ends, with ``t_1``'s weight zero). For two
terms the weights are one number and :mod:`cvxpb.engine.declare.pareto` certifies the
minimum. With more, the weights span a region of dimension ``k - 1`` and the minimum of
``G`` over its outer approximation is no longer a one-dimensional search, so this
module searches the weights **locally**: a grid of log-weights, then the fixed-point
iteration of the stationarity condition from the best point (:class:`WeightSearch`).

What is proven, and what is not:

* every candidate posterior solves its convex scalarized program, and the reported
  bound is ``G`` re-evaluated there with outward rounding, so it is a true bound;
* the lower bound is ``G`` at the terms' separate minima (each proven as in
  :mod:`cvxpb.engine.declare.pareto`): valid, and often far below the minimum;
* so the status is ``"local"``, and ``"optimal"`` only if the two happen to meet
  within the tolerance. No other claim of optimality is made.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from cvxpb.engine.declare.pareto import ParetoSearch, Values
from cvxpb.engine.declare.programs import Solved
from cvxpb.numerics.summation import exact_sum

GRID = (-4.0, -2.0, 0.0, 2.0)  # log10 of each weight relative to the first term's
STEPS = tuple(2.0**-k for k in range(7))  # damping of a move towards the target weights
LIMIT = 12.0  # log-weights are kept within +-LIMIT decades


class WeightSearch(ParetoSearch):
    """The best Pareto point a local search over the weights finds, for three or more terms.

    From the best point of a grid it iterates the stationarity condition: at a local
    minimum ``q`` of ``G(t(q))``, ``q`` minimizes ``sum_i dG/dt_i t_i``, so the weights
    move towards the partial derivatives of ``G`` at the current terms (by central
    differences of the declared expression), damped until the bound falls.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its posterior terms (three or more).
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
        self.terms = list(terms)
        self.points: dict = {}  # log-weights -> Solved

    def run(self, tol, max_solves, begin=(), cutoff=None):
        """Search the weights from a grid (or a start), then by the stationarity iteration.

        Parameters
        ----------
        tol : float
            The gap between the best bound and the lower bound at which the search stops.
        max_solves : int
            The scalarized programs at most.
        begin : tuple, default=()
            Log-weights to begin at instead of the grid (a round of the convex-concave
            procedure starts where the last one ended); the grid if empty or of another
            length.
        cutoff : float, optional
            The search stops after its first program where its lower bound is above
            this.

        Returns
        -------
        best : Solved
            The program whose posterior has the least bound.
        lower : float
            The bound at the terms' separate minima, rounded down (valid, often far below).
        seconds : float
            Wall-clock time.
        """
        start = time.perf_counter()
        lows = {t: self._least(t) for t in self.terms}
        lower = float(self.bound.evaluate(Values(coordinates=lows, signs=self.signs), -1))
        points = itertools.product(GRID, repeat=len(self.terms) - 1)
        if len(begin) == len(self.terms) - 1:
            points = [tuple(begin)]
        best = None
        for point in points:  # the grid ends early where the gap has closed
            solved = self._visit(point)
            if best is None or solved.value < best.value:
                best = solved
            if best.value - lower <= tol or (cutoff is not None and lower > cutoff):
                break
        above = cutoff is not None and lower > cutoff
        while len(self.points) < max_solves and best.value - lower > tol and not above:
            moved = self._step(best, max_solves)
            if moved is None:
                break
            best = moved
        return best, lower, time.perf_counter() - start

    def _step(self, best, max_solves):
        """A point towards the target weights that lowers the bound, or ``None``."""
        here = np.array(best.log_weights)
        move = self._target(best.q) - here
        if np.max(np.abs(move)) < 1e-9:
            return None
        for step in STEPS:
            if len(self.points) >= max_solves:
                return None
            solved = self._visit(tuple(here + step * move))
            if solved.value < best.value:
                return solved
        return None

    def _target(self, q):
        """log10 of ``dG/dt_i / dG/dt_1`` at the oriented terms of ``q``."""
        slopes = np.maximum(self.slopes(q, self.terms), 1e-300)
        return np.clip(np.log10(slopes[1:] / slopes[0]), -LIMIT, LIMIT)

    def _visit(self, point) -> Solved:
        if point not in self.points:
            weights = [1.0] + [10.0**x for x in point]
            q = self._program(list(zip(self.terms, weights, strict=True)))
            q = np.maximum(q, 0.0)
            q /= exact_sum(q)
            solved = Solved(float("nan"), q, -np.inf, self.value_at(q), point)
            self.points[point] = solved
            self.solved.append(solved)
        return self.points[point]
