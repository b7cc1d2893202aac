"""The scalarized programs of a declared bound's oriented terms, solved and certified.

At weights ``w`` of the oriented terms, ``min_q sum_t w_t t(q)`` over the simplex is a
convex program (a quadratic form through its convex minorant). Each is solved by its
closed form (``linear_min`` of a divergence, the terms affine), by Newton's method
where the terms are quadratic but for one KL (:mod:`cvxpb.engine.declare.newton`), or
by CVXPY, and comes with a proven lower bound from weak duality: the linearization at
the posterior found plus the divergence's closed-form minimum, raised where it can be
by the summed forms' non-negative part (the joint bound) or by curvature KL lends to
an indefinite form (:mod:`cvxpb.engine.declare.loan`); without a divergence, the
Frank-Wolfe bound. No solver is trusted: the bound holds whatever posterior they
return. :class:`cvxpb.engine.declare.pareto.ParetoSearch` and the searches over more
terms solve their programs here.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from cvxpb.engine.declare.dnn import nonnegative_part
from cvxpb.engine.declare.loan import loan
from cvxpb.engine.declare.newton import minimize_quadratic_kl
from cvxpb.engine.declare.quadratic import PairwiseLoss, ShiftedQuadratic
from cvxpb.engine.declare.terms import weighted_floor
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, nudge

WARM_PRIOR = 1e-6  # the prior's share in a warm start
JOINT_ITERATIONS = 60  # ADMM steps of the summed forms' non-negative part: 300 (the dnn
# module's own) close PAC-Bound 2's gaps out of bag by under 1e-3 more, in 1.6-1.8x the time
JOINT_TRIAL = 6  # programs _joint_bound is tried on before, never raising c, it is left
ENTROPY_FLOOR = 1e-12  # the entropy's weight when Newton's method solves a quadratic alone
CONTINUATION = (1e-4, 1e-8)  # the weights it solves at first, each from the one before


@dataclass
class Solved:
    """One scalarized program: its ``mu``, posterior, lower bound and upper value.

    Parameters
    ----------
    mu : float
        The weight of ``B`` in ``min A + mu B``.
    q : ndarray of shape (H,)
        The posterior found.
    lower : float
        A proven lower bound on ``min A + mu B``, rounded down.
    value : float
        The bound at ``q``, rounded up.
    log_weights : tuple, default=()
        The weights' log10, for searches over several (:mod:`cvxpb.engine.declare.local`).
    """

    mu: float
    q: np.ndarray
    lower: float
    value: float
    log_weights: tuple = ()  # the weights' log10, for searches over several (local.py)


class ScalarizedPrograms:
    """The programs ``min sum_t w_t t(q)`` of a search's oriented terms, certified.

    The part of :class:`cvxpb.engine.declare.pareto.ParetoSearch` (and of the searches
    that subclass it) that solves one weighted program at a time; the search sets the
    terms, their signs, minorants and the programs solved so far.
    """

    @property
    def closed_family(self) -> bool:
        """Whether the programs are ``A`` affine plus ``mu B``, ``B`` a divergence with a
        closed-form minimum, and the bound a function of the two alone (no stand-ins)."""
        if self._closed is None:
            self._closed = self._is_closed_family()
        return self._closed

    def _is_closed_family(self) -> bool:
        A, B = self.A, self.B
        return (
            len(self.terms) == 2
            and not self.replace
            and self.convex[A] is None
            and self.convex[B] is None
            and A.curvature == "affine"
            and self.signs[B] > 0
            and B.closed_form_min
            and set(self.bound.leaves()) == {A, B}
        )

    def _solve(self, mu):
        q, lower = self._program_at(mu)
        self.solved.append(Solved(mu, q, lower, self.value_at(q)))

    def _program_at(self, mu):
        """``(q, c)`` of the scalarized program at ``mu``, ``q`` clipped and summing to 1."""
        q, lower = self._scalarized(mu)
        q = np.maximum(q, 0.0)
        return q / exact_sum(q), lower

    def _scalarized(self, mu):
        """``(q, c)``: a posterior near ``argmin A + mu B`` and ``c <= min A + mu B``."""
        return self.certified([(self.A, 1.0), (self.B, mu)])

    def certified(self, weighted):
        """Solve the weighted sum of the oriented terms, with a proven lower bound.

        ``q`` is a posterior near the minimum and ``c`` at most the minimum. Where the
        last term is a divergence with a closed-form ``linear_min``, ``c`` comes from it
        and the other terms' tangents (their minimum itself when they are affine);
        otherwise from the Frank-Wolfe bound. Where the divergence's curvature makes
        the sum of the true terms convex, the terms with minorants enter as they are
        (:mod:`cvxpb.engine.declare.loan`). The least entry of the terms' forms summed
        (:func:`cvxpb.engine.declare.terms.weighted_floor`) raises ``c`` where it is
        higher: for an indefinite sum, whose minorant can lie far below it.

        Parameters
        ----------
        weighted : list of (Term, float)
            The terms and their weights (at least 0).

        Returns
        -------
        q : ndarray of shape (H,)
            The posterior found.
        c : float
            The lower bound, rounded down.
        """
        q, c = self._certified(weighted)
        if self.closed_family:  # c is the program's minimum, rounded down: nothing to gain
            return q, c
        c = max(c, weighted_floor(weighted, self.signs))
        tries, wins = self._joint
        # where it never raised c, it is not tried on; nor where the program's value at q
        # is within the gap asked of c (the joint bound is at most that value)
        if (wins or tries < JOINT_TRIAL) and self._program_gap(weighted, q, c) > self.tol:
            joint = self._joint_bound(weighted, q)
            if joint > -math.inf:
                self._joint = (tries + 1, wins + (joint > c))
            c = max(c, joint)
        return q, c

    def _program_gap(self, weighted, q, c) -> float:
        """The scalarized program's value at ``q`` (the oriented terms rounded up) less
        its lower bound ``c``: at most this is left for a tighter lower bound to gain."""
        with np.errstate(invalid="ignore"):
            upper = sum(w * self.oriented(t, q, +1) for t, w in weighted if w > 0)
        return float(upper - c) if upper == upper else math.inf

    def _joint_bound(self, weighted, q) -> float:
        """The tangent bound with the quadratic forms summed before their minorant.

        Where two or more forms stand in through minorants, each falls short on its own
        (their indefinite parts do not cancel); their weighted sum ``q @ S @ q`` often
        is nearly convex (PAC-Bound 2's Gibbs risk of the pair and disagreement, whose
        disagreement parts cancel at the weights that matter). Its minorant, with a
        non-negative part taken out at ``q`` (:mod:`cvxpb.engine.declare.dnn`), is
        minimized with KL by Newton's method and bounded below by its tangent there
        (at ``q`` itself for another divergence), as in :meth:`certified`. ``-inf``
        where the sum is not of that kind. A search stops trying it after
        ``JOINT_TRIAL`` programs where it never raised the bound.
        """
        B, mu = weighted[-1]
        forms = [(t, w) for t, w in weighted[:-1] if w > 0]
        if not (self.signs[B] > 0 and B.closed_form_min and len(forms) >= 2):
            return -math.inf
        if any(t.pair_matrix() is None for t, _ in forms):
            return -math.inf
        if sum(self.relaxed(t) for t, _ in forms) < 2:
            return -math.inf
        S = sum(w * self.signs[t] * t.pair_matrix() for t, w in forms)
        summed = PairwiseLoss(B.posterior, (S + S.T) / 2, name="weighted forms")
        part = nonnegative_part(summed.matrix, q, JOINT_ITERATIONS)
        minorant = ShiftedQuadratic(summed, +1, part)
        start = None
        if mu > 0 and getattr(B, "entropic", False):  # Newton's method is for KL
            start = minimize_quadratic_kl(2 * minorant.matrix, minorant.linear, mu, B.prior, q)
        p = q if start is None else np.maximum(start, 0.0)
        p = p / exact_sum(p)
        return _tangent_bound(minorant.core(p, -1), minorant.gradient(p), p, B, mu)

    def _certified(self, weighted):
        """:meth:`certified` by the tangents or Frank-Wolfe alone."""
        B, mu = weighted[-1]
        on_loan = loan(weighted, self.signs, self.relaxed)
        if self.signs[B] > 0 and B.closed_form_min:
            rest = weighted[:-1]
            if all(t.curvature == "affine" for t, _ in rest):
                return B.linear_min(sum(w * self.signs[t] * t.gradient(None) for t, w in rest), mu)
            q = self._program(weighted, exact=on_loan is not None)
            if on_loan is not None:
                c = self._loan_bound(weighted, q, on_loan)
                if c is not None:
                    return q, c
            g = sum(w * self.lower_gradient(t, q) for t, w in rest)
            value = sum(w * self.lower_value(t, q) for t, w in rest)
            return q, _tangent_bound(value, g, q, B, mu)
        q = self._program(weighted, exact=on_loan is not None)
        return q, self._frank_wolfe(weighted, q, on_loan)

    def _loan_bound(self, weighted, q, on_loan):
        """The tangent bound with the divergence's lent weight moved into the tangent
        (:mod:`cvxpb.engine.declare.loan`), at ``q`` normalized; None where the
        divergence's gradient is not finite there (a weight that underflowed)."""
        B, mu = weighted[-1]
        p = np.maximum(q, 0.0)
        p = p / exact_sum(p)
        lent = [(t, w) for t, w in weighted[:-1] if w > 0] + [(B, on_loan.weight)]
        with np.errstate(divide="ignore"):
            g = sum(w * self.lower_gradient(t, p, exact=True) for t, w in lent)
        values = [w * self.lower_value(t, p, exact=True) for t, w in lent]
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(values))):
            return None
        value = sum(values)
        size = np.abs(g) @ p + np.max(np.abs(g)) + sum(abs(v) for v in values)
        margin = 8 * EPS * size + on_loan.allowance + 1e-300
        c = value - (g @ p + margin) + B.linear_min(g, mu - on_loan.weight)[1]
        return float(nudge(c, -1))

    def _frank_wolfe(self, weighted, q, on_loan=None) -> float:
        """``f(q) + min_i grad f_i - grad f @ q`` for ``f`` the weighted sum of the
        oriented terms (or their convex minorants, unless ``on_loan`` makes the terms
        themselves convex together): at most ``min f`` by convexity."""
        exact = on_loan is not None
        weighted = [(t, w) for t, w in weighted if w > 0]
        value = sum(w * self.lower_value(t, q, exact) for t, w in weighted)
        g = sum(w * self.lower_gradient(t, q, exact) for t, w in weighted)
        if not np.all(np.isfinite(g)):
            return -np.inf
        margin = 8 * EPS * (np.abs(g) @ q + np.max(np.abs(g)) + abs(value)) + 1e-300
        margin += on_loan.allowance if exact else 0.0
        return float(nudge(value + np.min(g) - g @ q - margin, -1))

    def _program(self, weighted, exact=False):
        """A posterior near the minimum of the weighted sum of the oriented terms (their
        convex minorants where they have one, unless ``exact``: a program on loan): by
        Newton's method where the terms are quadratic but for one KL
        (:mod:`cvxpb.engine.declare.newton`), else by CVXPY through the minorants; the
        prior if both fail."""
        q = self._newton(weighted, exact)
        return self._conic(weighted) if q is None else q

    def _newton(self, weighted, exact=False):
        """Newton's method on ``1/2 q @ S @ q + b @ q + mu KL``, or ``None``. A program
        of quadratic terms alone gets ``mu = ENTROPY_FLOOR``, reached through the weights
        of ``CONTINUATION`` (each program's solution starts the next: straight at the
        floor, coordinates bound for 0 fall a hundredfold a step and every step is cut
        short); its solution is then only a candidate, which the caller's Frank-Wolfe
        bound certifies."""
        weighted = [(t, w) for t, w in weighted if w > 0]
        entropic = [w for t, w in weighted if getattr(t, "entropic", False) and self.signs[t] > 0]
        if len(entropic) > 1:
            return None
        stages = [] if entropic else list(CONTINUATION)
        entropic = entropic or [ENTROPY_FLOOR]
        prior = weighted[0][0].posterior.prior
        S, b = np.zeros((prior.size, prior.size)), np.zeros(prior.size)
        for term, w in weighted:
            if getattr(term, "entropic", False):
                continue
            minorant = None if exact and self.relaxed(term) else self.convex[term]
            parts = term.quadratic() if minorant is None else minorant.quadratic()
            if parts is None:
                return None
            sign = 1 if minorant is not None else self.signs[term]
            S += w * sign * parts[0]
            b += w * sign * parts[1]
        start = self._warm_start(entropic[0])
        for mu in stages:  # a stage that fails leaves the start as it was
            staged = minimize_quadratic_kl(S, b, mu, prior, start)
            if staged is None:
                break
            start = staged
        return minimize_quadratic_kl(S, b, entropic[0], prior, start)

    def _warm_start(self, mu):
        """The posterior of the solved program whose KL weight is nearest ``mu`` (in
        ratio), where Newton's method starts; the prior before any (and in the searches
        over several weights, whose programs carry no one ``mu``)."""
        prior = self.B.posterior.prior
        weighted = [s for s in self.solved if s.mu > 0]  # NaN where there is no one mu
        if not weighted:
            return prior
        near = min(weighted, key=lambda s: abs(math.log(s.mu / mu))).q
        # a weight that underflowed to 0 at a small mu would stay 0 (Newton's method keeps
        # the start's support): a little of the prior puts every voter back in play
        return (1 - WARM_PRIOR) * near + WARM_PRIOR * prior

    def program(self, weighted):
        """The scalarized program as a CVXPY problem, and its posterior variable.

        ``min sum_t w_t t(q)`` over the simplex, each term oriented (a decreasing term
        enters negated) and a quadratic form against its curvature by its convex
        minorant: the program this search solves at those weights (by Newton's method
        where it can), written for a conic solver. It is DCP.

        Parameters
        ----------
        weighted : list of (Term, float)
            The terms and their weights (at least 0).

        Returns
        -------
        problem : cvxpy.Problem
            The program.
        q : cvxpy.Variable of shape (H,)
            The posterior.
        """
        import cvxpy as cp

        q = cp.Variable(weighted[0][0].posterior.size, nonneg=True)
        objective = sum(w * self.convex_expr(t, q) for t, w in weighted if w > 0)
        return cp.Problem(cp.Minimize(objective), [cp.sum(q) == 1]), q

    def _conic(self, weighted):
        """The same program by CVXPY (Clarabel by default); the prior if it fails."""
        from cvxpb.engine.conic import solve_program

        posterior = weighted[0][0].posterior
        problem, q = self.program(weighted)
        with warnings.catch_warnings():  # an inaccurate solve is only a candidate
            warnings.simplefilter("ignore", UserWarning)
            solve_program(problem, (self.solver,))  # whatever ends, q is only a candidate
        if q.value is None:
            return posterior.prior.copy()
        return np.asarray(q.value, dtype=float)


def _tangent_bound(value, g, p, B, mu) -> float:
    """``min_q' [f(p) + g @ (q' - p) + mu B(q')]`` rounded down: a lower bound on ``min f +
    mu B`` over the simplex for a convex ``f`` with value ``value`` (rounded down) and
    gradient ``g`` at ``p`` (its tangent is below it), by ``B``'s closed-form linear
    minimum (weak duality); ``g @ p``'s rounding taken off."""
    margin = 4 * EPS * (np.abs(g) @ p) + 1e-300
    return float(nudge(value - (g @ p + margin) + B.linear_min(g, mu)[1], -1))
