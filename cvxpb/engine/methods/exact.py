"""``method="exact"``: the global minimum by branch and bound along a one-parameter family.

Every optimal posterior lies on the family of :mod:`cvxpb.pac_bayes.families`. On an
interval ``[a, b]`` of its parameter, ``L`` and the divergence are monotone, so
``g >= g(L(a), D(b))`` (chi-squared; ``g(L(b), KL(a))`` for Gibbs) with ``g`` the
bound, increasing in both; for chi-squared and KL the tangents of the convex
frontier the families trace give a second-order bound as well (``frontier_pairs`` in
:mod:`cvxpb.pac_bayes.families`). Intervals whose lower bound exceeds the best value
found are discarded, the rest are split, until the lower and upper bounds meet
within ``tol``. The discarded intervals' lower bounds give the certificate.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize_scalar

from cvxpb.engine.methods.method import refuse
from cvxpb.engine.result import Certificate, clipped_lower
from cvxpb.pac_bayes.families import (
    V_MAX,
    scaled_parameter,
    segment_of,
)
from cvxpb.validation import check_count, check_positive

SPLIT = 3  # pieces an open interval is cut into each round
SAMPLE = 256  # grid points the first incumbent is taken from
FRONTIER_CHUNK = 4096  # intervals whose frontier pairs are built at once
STATS_FLOATS = 2**17  # floats in one array of a family's statistics at once (1 MB)
MAX_OPEN = 200_000  # open intervals at most (or twice the first ones); beyond, "max_rounds"


STATUSES = ("optimal", "optimal_inaccurate", "max_rounds")  # the statuses it returns


def formulation(problem, mu: float | None = None):
    """The scalarized program whose minimizers the family traces, at ``mu``.

    Every optimal posterior solves ``min_q l @ q + mu core(q)`` on the simplex for some
    ``mu > 0`` (the bound increases in the Gibbs risk and the divergence, so an optimum
    is Pareto-optimal); the family is those minimizers, in closed form, and the exact
    method searches its parameter.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    mu : float, optional
        The weight of the divergence's core, above 0; by default the weight at the
        optimum (:func:`solve`: its certificate's parameter, through
        :meth:`cvxpb.pac_bayes.families.Family.program_weight`), so that the program's
        minimizer is the optimal posterior.

    Returns
    -------
    cvxpb.engine.formulation.Formulation
        The program on the positive-prior classifiers, DCP: a quadratic for
        chi-squared, exponential cones for KL, power cones for Renyi; ``bound()``
        after a solve is the bound at its minimizer.
    """
    import cvxpy as cp

    from cvxpb.engine.formulation import Formulation

    refuse(problem, "exact")
    mu = _optimal_weight(problem) if mu is None else mu
    check_positive(mu, "mu")
    support = problem.prior > 0
    p = problem.prior[support]
    q = cp.Variable(p.size, nonneg=True, name="q")
    core = problem.divergence_function.expr(q, p)
    objective = problem.risks[support] @ q + mu * core
    return Formulation(cp.Problem(cp.Minimize(objective), [cp.sum(q) == 1]), problem, q, support)


def _optimal_weight(problem) -> float:
    """The ``mu`` of :func:`formulation` at the exact method's optimum; where the optimum is
    a limit of the family (the prior, or the least-risk face), a weight near that limit."""
    if problem.vacuous():  # every weight maps to 1
        return 1.0
    certificate = solve(problem).certificate
    if certificate is None or certificate.value is None:
        return 1.0
    weight = family_of(problem).program_weight(certificate.value)
    return float(np.clip(weight, 1e-9, 1e9))


def family_of(problem, support=None):
    """The family that holds ``problem``'s optimal posteriors.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    support : array_like of int, optional
        Indices: the family of the posteriors that vanish off them. The prior is then
        restricted, not renormalized, so the family's divergence is still against ``P``.

    Returns
    -------
    Family
        The divergence's family (:mod:`cvxpb.pac_bayes.families`).
    """
    risks, prior = problem.risks, problem.prior
    if support is not None:
        risks, prior = risks[support], prior[support]
    return problem.divergence_function.family(risks, prior)


class _Search:
    """Branch and bound over ``v in [-V_MAX, V_MAX]`` for ``min g(L(x), div(x))``.

    The reported bound is ``min(g, 1)``, so an interval whose lower bound reaches 1
    holds nothing better than the trivial bound: a bound that is 1 everywhere closes
    every interval at once. ``evaluate(x)``, if given, is the bound at the family's
    posterior computed from the posterior itself: every new incumbent is re-evaluated
    by it, so a value the cumulative statistics got wrong never becomes the incumbent.
    Intervals close when their lower bound reaches ``min(best, 1) - tol/2``; the other
    half of ``tol`` is left for the rounding of the reported bound.
    """

    def __init__(self, family, bound, tol, evaluate=None, floors=(-np.inf, -np.inf)):
        self.family, self.bound, self.tol = family, bound, tol
        self.evaluate, self.floors = evaluate, floors
        width = len(getattr(family, "d", ()))  # the distinct risks a point's statistics sum
        self.chunk = max(16, STATS_FLOATS // max(width, 1))
        x = family.grid()
        L, div = self._stats(x)
        self.best_value, self.best_x = np.inf, -V_MAX
        sample = np.arange(0, x.size, max(1, x.size // SAMPLE))  # an incumbent first
        self._update(x[sample], bound(L[sample], div[sample]))
        better = ~bound.at_least(L, div, self.best_value)  # then only where it can fall
        if np.any(better):
            self._update(x[better], bound(L[better], div[better]))
        self.a = (x[:-1], L[:-1], div[:-1])
        self.b = (x[1:], L[1:], div[1:])
        self.closed_lower = np.inf
        self.unsplittable_lower = np.inf
        self.rounds = 0

    @property
    def target(self) -> float:
        """The value an interval must be able to beat: the incumbent's, or the trivial
        bound 1 where the incumbent's formula is above it."""
        return min(self.best_value, 1.0)

    def _stats(self, x):
        """``family.stats(x)`` in chunks, so that a family whose statistics take O(H)
        memory a point holds ``STATS_FLOATS`` floats at once, whatever the points."""
        if x.size <= self.chunk:
            return self.family.stats(x)
        parts = [self.family.stats(x[i : i + self.chunk]) for i in range(0, x.size, self.chunk)]
        return tuple(np.concatenate(v) for v in zip(*parts, strict=True))

    def _update(self, x, values):
        values = np.where(np.isnan(values), np.inf, values)
        i = int(np.argmin(values))
        if values[i] >= self.best_value:
            return
        value = float(values[i]) if self.evaluate is None else self.evaluate(float(x[i]))
        if value < self.best_value:
            self.best_value, self.best_x = value, float(x[i])

    def _lower_pair(self, a, b):
        """``(L, div)`` at which ``g`` bounds the interval from below (monotonicity),
        moved down by the statistics' rounding error, and raised to the terms' floors
        (every posterior's Gibbs risk is at least the least risk, its divergence at least
        the divergence's least value), which statistics that lost their digits to
        cancellation can fall below."""
        L, div = (a[1], b[2]) if self.family.L_increasing else (b[1], a[2])
        L, div = self.family.lower_terms(b[0], L, div)
        return np.maximum(L, self.floors[0]), np.maximum(div, self.floors[1])

    def _closes(self, a, b, threshold):
        """Whether each interval's lower bound reaches ``threshold``: the monotone pair,
        or (families on a convex frontier) every cell of the frontier pairs."""
        closed = self.bound.at_least(*self._lower_pair(a, b), threshold)
        rest = np.flatnonzero(~closed)
        if getattr(self.family, "frontier_pairs", None) and rest.size:
            closed[rest] = self._frontier(
                a, b, rest, lambda L, K: np.all(self.bound.at_least(L, K, threshold), axis=1)
            )
        return closed

    def _frontier(self, a, b, which, reduce):
        """``reduce(L, K)`` of the frontier pairs of the intervals ``which``, in chunks
        of ``FRONTIER_CHUNK`` intervals so that memory stays bounded."""
        parts = []
        for start in range(0, which.size, FRONTIER_CHUNK):
            i = which[start : start + FRONTIER_CHUNK]
            parts.append(reduce(*self.family.frontier_pairs([v[i] for v in a], [v[i] for v in b])))
        return np.concatenate(parts)

    def run(self, max_rounds):
        a, b = self.a, self.b
        while True:
            mid_x = 0.5 * (a[0] + b[0])
            splittable = (mid_x > a[0]) & (mid_x < b[0])
            threshold = self.target - self.tol / 2
            closed = self._closes(a, b, threshold)
            keep = ~closed & splittable
            if np.any(closed):  # each closed interval's lower bound is proven >= threshold
                self.closed_lower = min(self.closed_lower, threshold)
            self.unsplittable_lower = min(
                self.unsplittable_lower, self._stuck_lower(a, b, ~closed & ~splittable)
            )
            too_many = keep.sum() > max(MAX_OPEN, 2 * self.a[0].size)
            if not np.any(keep) or self.rounds >= max_rounds or too_many:
                self.open_lower = self._lower(a, b, keep)
                self.width = float(np.min(b[0] - a[0]))
                return
            self.rounds += 1
            a, b = self._split([v[keep] for v in a], [v[keep] for v in b])

    def _split(self, a, b):
        """Cut each interval into SPLIT equal pieces; evaluate the new points."""
        fractions = np.arange(1, SPLIT) / SPLIT
        inner = (a[0][:, None] + fractions * (b[0] - a[0])[:, None]).ravel()
        L, div = self._stats(inner)
        better = ~self.bound.at_least(L, div, self.target)  # only these can improve
        if np.any(better):
            self._update(inner[better], self.bound(L[better], div[better]))
        shape = (a[0].size, SPLIT - 1)
        nodes = [
            np.concatenate([ea[:, None], v.reshape(shape), eb[:, None]], axis=1)
            for ea, v, eb in zip(a, (inner, L, div), b, strict=True)
        ]
        return [n[:, :-1].ravel() for n in nodes], [n[:, 1:].ravel() for n in nodes]

    def _lower(self, a, b, which):
        """The least lower bound of the intervals ``which``; one that cannot be computed
        (NaN) counts as 0, below which no bound lies."""
        if not np.any(which):
            return np.inf
        a, b = [v[which] for v in a], [v[which] for v in b]
        values = self.bound(*self._lower_pair(a, b), rounding=-1)
        values = np.where(np.isnan(values), 0.0, values)
        low = np.flatnonzero(values < self.target - self.tol / 2)  # closed by the frontier
        if getattr(self.family, "frontier_pairs", None) and low.size:

            def least(L, K):
                frontier = self.bound(L, K, rounding=-1)
                return np.min(np.where(np.isnan(frontier), 0.0, frontier), axis=1)

            values[low] = np.maximum(values[low], self._frontier(a, b, low, least))
        return float(np.min(values))

    def _stuck_lower(self, a, b, which):
        """Lower bounds of intervals one float step wide. Where one holds a breakpoint
        ``d_k`` the family changes within it faster than floats resolve (a new classifier
        enters with weight ``(t - d_k)^e``), and the monotone bound ``g(L(a), D(b))`` is
        loose: there the part above ``d_k`` is searched in ``u = log(t - d_k)``."""
        if not np.any(which) or not hasattr(self.family, "stats_segment"):
            return self._lower(a, b, which)
        lower = np.inf
        for i in np.flatnonzero(which):
            ends = [np.array([v[i]]) for v in a], [np.array([v[i]]) for v in b]
            at_break = _breakpoint_pieces(self.family, a[0][i], b[0][i])
            if at_break is None:
                lower = min(lower, self._lower(*ends, np.array([True])))
                continue
            k, s_lo, s_hi, below = at_break
            if below:  # [t_a, d_k] on segment k - 1: monotone, L from a, D at d_k
                L0, D0 = self.family.stats_segment(np.array([k]), np.array([0.0]))
                L, D = self.family.lower_terms(b[0][i], a[1][i : i + 1], D0)
                lower = min(lower, float(self.bound(L, D, rounding=-1)[0]))
            segment = _Segment(self.family, k, s_lo, s_hi)
            sub = _Search(segment, self.bound, self.tol, floors=self.floors)
            sub.run(MAX_SUB_ROUNDS)
            lower = min(lower, sub.lower_bound)
        return lower

    def polish(self):
        """Refine the incumbent by bounded Brent search within one final interval of it."""
        lo, hi = max(self.best_x - self.width, -V_MAX), min(self.best_x + self.width, V_MAX)
        if hi <= lo:
            return

        def objective(x):
            return float(self.bound(*self.family.stats(x))[0])

        res = minimize_scalar(
            objective, bounds=(lo, hi), method="bounded", options={"xatol": 1e-15}
        )
        self._update(np.array([res.x]), np.array([res.fun]))

    @property
    def lower_bound(self) -> float:
        """The least lower bound of every interval: closed, open or unsplittable."""
        return min(self.closed_lower, self.open_lower, self.unsplittable_lower)


MAX_SUB_ROUNDS = 60


def _breakpoint_pieces(family, v_a, v_b):
    """``(k, s_lo, s_hi, below)`` if ``[t(v_a), t(v_b)]`` holds or starts at a breakpoint
    ``d_k`` (``s = t - d_k`` from ``s_lo`` to ``s_hi``; ``below``: the interval starts
    under ``d_k``), else None."""
    if family.breaks() is None:
        return None
    t_a, t_b = (
        float(scaled_parameter(v_a, family.scale)),
        float(scaled_parameter(v_b, family.scale)),
    )
    if not (np.isfinite(t_b) and t_b > 0):
        return None
    k = int(segment_of(family.d, np.array([t_b]))[0])
    if k == 0 or family.d[k] < t_a * (1 - 1e-9):
        return None
    return k, max(t_a - family.d[k], 0.0), t_b - family.d[k], t_a < family.d[k]


class _Segment:
    """The family on segment ``k`` for ``s = t - d_k`` in ``[s_lo, s_hi]``, searched in
    ``u = log s`` (``u = -V_MAX`` is ``s = 0``); the ends are rounded outward."""

    L_increasing = True

    def __init__(self, family, k, s_lo, s_hi):
        self.family, self.k = family, k
        self.u_lo = np.nextafter(np.log(s_lo), -np.inf) if s_lo > 0 else -V_MAX
        self.u_hi = np.nextafter(np.log(s_hi), np.inf)

    def breaks(self):
        return None

    def grid(self):
        inner = np.linspace(max(self.u_lo, self.u_hi - 80), self.u_hi, 257)
        return np.unique(np.concatenate([[self.u_lo], inner]))

    def stats(self, u):
        s = np.exp(np.atleast_1d(np.asarray(u, dtype=float)))
        return self.family.stats_segment(np.full(s.shape, self.k), s)

    def lower_terms(self, u, L, div):
        return self.family.lower_terms(u, L, div)


def _neighbours(family, evaluate, x_best):
    """The objective at the ends of the segment holding ``x_best`` and its neighbours,
    each from its posterior's own exact sums (the cumulative statistics can lose their
    digits at a breakpoint)."""
    breaks = family.breaks()
    if breaks is None:
        return {}
    k = int(np.searchsorted(breaks, x_best, side="left"))
    xs = breaks[[i for i in range(k - 2, k + 2) if 0 <= i < breaks.size]]
    return {float(nu): evaluate(float(x)) for nu, x in zip(family.nu(xs), xs, strict=True)}


def _segment(family, x_best):
    if family.breaks() is None:
        return None
    nu = float(family.nu(x_best))
    values = family.u1 + family.d
    k = int(np.searchsorted(values, nu, side="left"))
    right = float(values[k]) if k < values.size else float("inf")
    return (float(values[max(k - 1, 0)]), right)


def _evaluator(problem, family, support=None):
    """``x -> g`` at the family's posterior, from the posterior's own exact sums."""

    def evaluate(x):
        posterior = family.posterior(x)
        if support is not None:
            full = np.zeros(problem.H)
            full[support] = posterior
            posterior = full
        return float(problem.bound_function(*problem.terms(posterior)))

    return evaluate


def _searched(family, bound, tol, evaluate, max_rounds, floors=(-np.inf, -np.inf)) -> _Search:
    """The branch and bound, trusting the family's statistics; then the incumbent is
    evaluated from its posterior's own exact sums (O(H)). Where the statistics were off
    there by more than ``tol / 4`` (priors near 0 can do that), the search runs again
    and checks every new incumbent that way (O(H) each, so only then)."""
    search = _Search(family, bound, tol, floors=floors)
    search.run(max_rounds)
    search.polish()
    if not abs(evaluate(search.best_x) - search.best_value) <= tol / 4:
        search = _Search(family, bound, tol, evaluate, floors)
        search.run(max_rounds)
        search.polish()
    return search


def solve(problem, tol: float = 1e-9, max_rounds: int = 200):
    """Globally minimize ``problem``'s bound over its divergence's family.

    ``status`` is ``"optimal"`` when the certificate's gap (reported bound minus the
    proven lower bound on the minimum) is at most ``tol``; ``"optimal_inaccurate"``
    when every interval closed but rounding left a larger gap; ``"max_rounds"`` when
    the search stopped with intervals still open.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    tol : float, default=1e-9
        The absolute gap, on the bound, at which the search stops.
    max_rounds : int, default=200
        Rounds of the branch and bound at most.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        With a certificate whose parameter is ``"nu"`` or ``"beta"``.
    """
    refuse(problem, "exact")
    check_positive(tol, "tol")
    check_count(max_rounds, "max_rounds", 0)
    start = time.perf_counter()
    family = family_of(problem)
    evaluate = _evaluator(problem, family)
    search = _searched(family, problem.bound_function, tol, evaluate, max_rounds, problem.floors())
    posterior = family.posterior(search.best_x)
    seconds = time.perf_counter() - start
    result = problem.result_from_posterior(
        posterior,
        method="exact",
        status="max_rounds",
        seconds=seconds,
        iterations=search.rounds,
    )
    L, div = problem.terms(result.posterior)  # the bound's arguments
    lower_bound = clipped_lower(search.lower_bound)
    gap = result.bound - lower_bound
    if search.open_lower < np.inf:
        status = "max_rounds"
    else:
        status = "optimal" if gap <= tol else "optimal_inaccurate"
    certificate = Certificate(
        parameter=family.parameter,
        value=float(family.parameter_value(search.best_x)),
        segment=_segment(family, search.best_x),
        lower_bound=lower_bound,
        gap=gap,
        neighbours=_neighbours(family, evaluate, search.best_x),
        grid_value=problem.bound_function.best_grid_value(L, div),
    )
    message = f"branch and bound: {search.rounds} rounds, certified gap {gap:.3g} (tol={tol:g})"
    return problem.replace_result(result, certificate=certificate, status=status, message=message)


def restricted_minimum(problem, support, tol: float = 1e-9, max_rounds: int = 200):
    """Minimize the bound over the posteriors that vanish off ``support``.

    By the same branch and bound as :func:`solve`.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    support : array_like of int
        Indices of classifiers with prior mass.
    tol : float, default=1e-9
        The absolute gap at which the search stops.
    max_rounds : int, default=200
        Rounds at most.

    Returns
    -------
    bound : float
        :meth:`~cvxpb.engine.one_bound.OneBound.evaluate` of the posterior (rounded outward).
    posterior : ndarray of shape (H,)
        The posterior.
    """
    support = np.asarray(support, dtype=int)
    if support.size == 0 or np.any(problem.prior[support] <= 0):
        raise ValueError("support must be a non-empty set of classifiers with prior mass")
    family = family_of(problem, support)
    evaluate = _evaluator(problem, family, support)
    floors = problem.floors(support)
    search = _searched(family, problem.bound_function, tol, evaluate, max_rounds, floors)
    posterior = np.zeros(problem.H)
    posterior[support] = family.posterior(search.best_x)
    return problem.evaluate(posterior), posterior
