"""A lower bound over the divergence's level sets: the terms' least values on its balls.

A declared bound of one divergence term ``B`` (KL, say, with a closed-form
``linear_min``) and other terms is, on the slab ``K1 <= B(q) <= K2`` of posteriors, at
least its value with ``B`` at ``K1`` and each other oriented term at its least value
over the ball ``{q : B(q) <= K2}``; the slabs that cover ``B``'s range cover the
simplex, so the least of those values is a lower bound on the minimum. Where the
other searches leave a gap (a weight search, which proves only the bound at the terms'
separate minima), this one can close it: a bound that a tiny prior weight makes vacuous
wherever the voter it weighs could help (CTD at 1 everywhere) is certified so.

**A term's least over a ball.** For an affine oriented term ``g @ q`` (a convex one
through its tangent at the prior, an affine term below it), weak duality gives, for
every ``mu >= 0``, ``min {g @ q : B(q) <= K} >= c(mu) - mu K`` with
``c(mu) = min_q g @ q + mu B(q)``, ``B``'s ``linear_min`` rounded down. ``c`` is
computed once on a grid of ``mu`` and each ball takes the best of those lines. A term
of no such kind takes its least value over the simplex
(:func:`cvxpb.engine.declare.terms.weighted_floor`).

**The slabs.** ``B``'s range, from its least to its largest value, is cut into
``SLABS`` slabs, geometrically; the slabs whose value is below the goal are halved, at
most ``ROUNDS`` times. Where ``B``'s largest value is not finite (a prior with a zero),
a last slab from the top up holds the rest, with every other term at its least over the
simplex.
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.terms import weighted_floor
from cvxpb.engine.declare.values import Values
from cvxpb.numerics.tolerances import EPS, nudge

MUS = np.geomspace(1e-9, 1e9, 361)  # the dual's grid, times the term's scale
SLABS = 64  # the first slabs
ROUNDS = 12  # halvings of the slabs below the goal at most
MAX_SLABS = 4096


class BallBound:
    """The lower bound of the module's text for one declared bound.

    Parameters
    ----------
    bound : Expression
        The declared bound.
    terms : sequence of Term
        Its terms.
    signs : dict
        ``{term: +1 or -1}``: their orientations.
    """

    def __init__(self, bound, terms, signs):
        self.bound, self.terms, self.signs = bound, list(terms), signs
        self.ball = next(t for t in self.terms if _is_ball(t, signs))
        prior = self.ball.posterior.prior
        self.lines = {t: self._lines(t, prior) for t in self.terms if t is not self.ball}

    @classmethod
    def applies(cls, terms, signs) -> bool:
        """Whether the bound has one divergence term with a closed-form minimum, increasing.

        Parameters
        ----------
        terms : sequence of Term
            The declaration's terms.
        signs : dict
            Their orientations.

        Returns
        -------
        bool
            True where :class:`BallBound` can be made.
        """
        divergences = [t for t in terms if t.divergence]
        return len(divergences) == 1 and _is_ball(divergences[0], signs) and len(terms) > 1

    def _lines(self, term, prior):
        """``(mus, offsets)``: the oriented term is at least ``offset + c(mu) - mu K`` on
        the ball of radius ``K`` for each pair (``c`` the ball term's program at the
        term's affine minorant), or ``(None, floor)`` where it has none."""
        s = self.signs[term]
        floor = None, weighted_floor([(term, 1.0)], self.signs)
        if term.curvature != "affine":
            fits = term.curvature == ("convex" if s > 0 else "concave")
            if not fits or term.minorant(s) is not None:
                return floor  # no tangent below it
        g = s * np.asarray(term.gradient(prior), dtype=float)
        if not np.all(np.isfinite(g)):
            return floor
        # s * term(q) >= s * term(p) + g @ (q - p): the part without q, rounded down
        at = s * term.core(prior, -s)
        offset = float(nudge(at - (g @ prior) - 4 * EPS * (np.abs(g) @ prior) - 1e-300, -1))
        scale = max(float(np.max(np.abs(g))), 1e-12)
        mus = MUS * scale
        lowers = np.array([self.ball.linear_min(g, float(mu))[1] for mu in mus])
        least = float(self.ball.linear_min(g, 0.0)[1])  # mu = 0: the least entry
        return np.r_[0.0, mus], offset + np.r_[least, lowers]

    def _least_on_ball(self, term, radius):
        """The oriented term's least value over the balls of ``radius`` (an array),
        rounded down."""
        mus, offsets = self.lines[term]
        if mus is None:
            return np.full(radius.shape, float(offsets))
        with np.errstate(invalid="ignore", over="ignore"):
            values = offsets[None, :] - nudge(mus[None, :] * radius[:, None], +1)
        values = np.where(np.isnan(values), -np.inf, values)
        return nudge(np.max(values, axis=1), -1)

    def _slabs(self, low, high):
        """The bound's lower bound on each slab ``[low, high]`` of the ball term's core,
        rounded down (``-inf`` where it is not a number)."""
        coordinates = {t: self._least_on_ball(t, high) for t in self.lines}
        coordinates[self.ball] = low
        values = self.bound.evaluate(Values(coordinates=coordinates, signs=self.signs), -1)
        values = np.broadcast_to(np.asarray(values, dtype=float), low.shape)
        return np.where(np.isnan(values), -np.inf, values)

    def lower(self, goal) -> float:
        """A proven lower bound on the minimum, refined until it reaches ``goal``.

        Parameters
        ----------
        goal : float
            The value at which refining stops (the least value found, less the gap
            asked).

        Returns
        -------
        float
            The least of the slabs' values, rounded down.
        """
        bottom = float(self.ball.floor)  # the core is never below it
        top = self.ball.largest(+1)
        top = float(top) if top is not None and np.isfinite(top) else None
        reach = top if top is not None else max(bottom, 1.0) * 1e3
        edges = np.r_[bottom, bottom + np.geomspace(1e-9, 1.0, SLABS) * (reach - bottom)]
        low, high = edges[:-1], edges[1:]
        values = self._slabs(low, high)
        for _ in range(ROUNDS):
            cut = values < goal
            if not cut.any() or low.size + cut.sum() > MAX_SLABS:
                break
            middle = (low[cut] + high[cut]) / 2
            low = np.r_[low[~cut], low[cut], middle]
            high = np.r_[high[~cut], middle, high[cut]]
            new = slice(low.size - 2 * middle.size, None)
            values = np.r_[values[~cut], self._slabs(low[new], high[new])]
        least = float(np.min(values))
        if top is None:  # the rest, past the last slab: the terms' least on the simplex
            rest = {t: np.float64(np.min(offsets)) for t, (_, offsets) in self.lines.items()}
            rest[self.ball] = np.float64(high.max())
            beyond = float(self.bound.evaluate(Values(coordinates=rest, signs=self.signs), -1))
            least = min(least, beyond if beyond == beyond else -np.inf)
        return float(nudge(least, -1))


def _is_ball(term, signs) -> bool:
    """A divergence term with a closed-form minimum and a known least value (where the
    slabs begin), in which the bound increases."""
    known = term.floor is not None and np.isfinite(term.floor)
    return bool(term.divergence and term.closed_form_min and signs[term] > 0 and known)
