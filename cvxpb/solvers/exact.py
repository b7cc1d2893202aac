"""``method="exact"``: the global minimum by branch and bound along a one-parameter family.

Every optimal posterior lies on the family of :mod:`cvxpb.solvers.family`. On an
interval ``[a, b]`` of its parameter, ``L`` and the divergence are monotone, so
``g >= g(L(a), D(b))`` (chi-squared; ``g(L(b), KL(a))`` for Gibbs) with ``g`` the
bound, increasing in both. Intervals whose lower bound exceeds the best value
found are discarded, the rest are halved, until the lower and upper bounds meet
within ``tol``. The discarded intervals' lower bounds give the certificate.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize_scalar

from cvxpb.result import Certificate
from cvxpb.solvers.family import Chi2Family, GibbsFamily, RenyiFamily, initial_grid

SPLIT = 3  # pieces an open interval is cut into each round
MAX_OPEN = 200_000  # open intervals at most; beyond, stop with status "max_rounds"


def family_of(problem, support=None):
    """The family that holds ``problem``'s optimal posteriors (DESIGN.md item 3); with
    ``support`` (indices), those of the posteriors that vanish off it. The prior is then
    restricted, not renormalized, so the family's divergence is still against ``P``."""
    risks, prior = problem.risks, problem.prior
    if support is not None:
        risks, prior = risks[support], prior[support]
    if problem.divergence == "kl":
        return GibbsFamily(risks, prior)
    if problem.alpha == 2:
        return Chi2Family(risks, prior)
    return RenyiFamily(risks, prior, problem.alpha)


class _Search:
    """Branch and bound over ``x in [0, 1]`` for ``min g(L(x), div(x))``."""

    def __init__(self, family, bound, tol):
        self.family, self.bound, self.tol = family, bound, tol
        x = initial_grid(family.breaks())
        L, div = family.stats(x)
        values = bound(L, div)
        self.best_value, self.best_x = np.inf, 0.0
        self._update(x, values)
        self.a = (x[:-1], L[:-1], div[:-1])
        self.b = (x[1:], L[1:], div[1:])
        self.unsplittable_lower = np.inf
        self.rounds = 0

    def _update(self, x, values):
        values = np.where(np.isnan(values), np.inf, values)
        i = int(np.argmin(values))
        if values[i] < self.best_value:
            self.best_value, self.best_x = float(values[i]), float(x[i])

    def _lower_pair(self, a, b):
        """``(L, div)`` at which ``g`` bounds the interval from below (monotonicity)."""
        return (a[1], b[2]) if self.family.L_increasing else (b[1], a[2])

    def run(self, max_rounds):
        a, b = self.a, self.b
        while True:
            mid_x = 0.5 * (a[0] + b[0])
            splittable = (mid_x > a[0]) & (mid_x < b[0])
            closed = self.bound.at_least(*self._lower_pair(a, b), self.best_value - self.tol)
            keep = ~closed & splittable
            self.unsplittable_lower = min(
                self.unsplittable_lower, self._lower(a, b, ~closed & ~splittable)
            )
            if not np.any(keep) or self.rounds >= max_rounds or keep.sum() > MAX_OPEN:
                self.open_lower = self._lower(a, b, keep)
                self.width = float(np.min(b[0] - a[0]))
                return
            self.rounds += 1
            a, b = self._split([v[keep] for v in a], [v[keep] for v in b])

    def _split(self, a, b):
        """Cut each interval into SPLIT equal pieces; evaluate the new points."""
        fractions = np.arange(1, SPLIT) / SPLIT
        inner = (a[0][:, None] + fractions * (b[0] - a[0])[:, None]).ravel()
        L, div = self.family.stats(inner)
        better = ~self.bound.at_least(L, div, self.best_value)  # only these can improve
        if np.any(better):
            self._update(inner[better], self.bound(L[better], div[better]))
        shape = (a[0].size, SPLIT - 1)
        nodes = [
            np.concatenate([ea[:, None], v.reshape(shape), eb[:, None]], axis=1)
            for ea, v, eb in zip(a, (inner, L, div), b, strict=True)
        ]
        return [n[:, :-1].ravel() for n in nodes], [n[:, 1:].ravel() for n in nodes]

    def _lower(self, a, b, which):
        if not np.any(which):
            return np.inf
        L, div = self._lower_pair([v[which] for v in a], [v[which] for v in b])
        return float(np.min(self.bound(L, div, rounding=-1)))

    def polish(self):
        """Refine the incumbent by bounded Brent search within one final interval of it."""
        lo, hi = max(self.best_x - self.width, 0.0), min(self.best_x + self.width, 1.0)
        if hi <= lo:
            return

        def objective(x):
            return float(self.bound(*self.family.stats(x))[0])

        res = minimize_scalar(
            objective, bounds=(lo, hi), method="bounded", options={"xatol": 1e-15}
        )
        if res.fun < self.best_value:
            self.best_value, self.best_x = float(res.fun), float(res.x)

    @property
    def lower_bound(self) -> float:
        """Every discarded interval had ``g >= best - tol`` when it was discarded, and the
        best value only decreases; open and unsplittable intervals count by their bounds."""
        return min(self.best_value - self.tol, self.open_lower, self.unsplittable_lower)


def _neighbours(family, bound, x_best):
    """The objective at the ends of the segment holding ``x_best`` and its neighbours."""
    breaks = family.breaks()
    if breaks is None:
        return {}
    k = int(np.searchsorted(breaks, x_best, side="left"))
    idx = [i for i in range(k - 2, k + 2) if 0 <= i < breaks.size]
    xs = breaks[idx]
    L, D = family.stats(xs)
    nus = family.nu(xs)
    return {float(nu): float(v) for nu, v in zip(nus, bound(L, D), strict=True)}


def _segment(family, x_best):
    if family.breaks() is None:
        return None
    nu = float(family.nu(x_best))
    values = family.u1 + family.d
    k = int(np.searchsorted(values, nu, side="left"))
    right = float(values[k]) if k < values.size else float("inf")
    return (float(values[max(k - 1, 0)]), right)


def solve(problem, tol: float = 1e-9, max_rounds: int = 200):
    """Globally minimize ``problem``'s bound; returns a :class:`~cvxpb.result.Result`.

    ``tol`` is the certified gap (absolute, on the bound) at which branch and bound
    stops; the incumbent is then polished, so it is usually optimal far below ``tol``.
    """
    start = time.perf_counter()
    family = family_of(problem)
    search = _Search(family, problem.bound_function, tol)
    search.run(max_rounds)
    search.polish()
    posterior = family.posterior(search.best_x)
    status = "optimal" if search.open_lower == np.inf else "max_rounds"
    seconds = time.perf_counter() - start
    result = problem.result_from_posterior(
        posterior,
        method="exact",
        status=status,
        seconds=seconds,
        iterations=search.rounds,
        message=f"branch and bound: {search.rounds} rounds, tol={tol:g}",
    )
    L, div = result.empirical_risk, result.divergence
    certificate = Certificate(
        parameter=family.parameter,
        value=float(
            family.nu(search.best_x) if family.parameter == "nu" else family.beta(search.best_x)
        ),
        segment=_segment(family, search.best_x),
        lower_bound=search.lower_bound,
        gap=result.bound - search.lower_bound,
        neighbours=_neighbours(family, problem.bound_function, search.best_x),
        grid_value=problem.bound_function.best_grid_value(L, div),
    )
    return problem.replace_result(result, certificate=certificate)


def restricted_minimum(problem, support, tol: float = 1e-9, max_rounds: int = 200):
    """``(bound, posterior)``: the bound minimized over posteriors that vanish off
    ``support`` (indices with prior mass), by the same branch and bound; the bound is
    :meth:`~cvxpb.BoundProblem.evaluate` of the posterior (rounded outward)."""
    support = np.asarray(support, dtype=int)
    if support.size == 0 or np.any(problem.prior[support] <= 0):
        raise ValueError("support must be a non-empty set of classifiers with prior mass")
    family = family_of(problem, support)
    search = _Search(family, problem.bound_function, tol)
    search.run(max_rounds)
    search.polish()
    posterior = np.zeros(problem.H)
    posterior[support] = family.posterior(search.best_x)
    return problem.evaluate(posterior), posterior
