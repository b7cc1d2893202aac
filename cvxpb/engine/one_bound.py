"""One PAC-Bayes bound of a Gibbs risk and a divergence: the data the methods derived for
one bound take (``exact``, ``cvx``, ``closed_form``, ``ccp``, ``fixed_point``, ``nlp``).

A declaration reaches them through its standard form
(:class:`cvxpb.engine.declare.standard.ToStandardForm`, a reduction whose ``apply``
gives a :class:`OneBound` and whose ``invert`` reports the method's Result as the
declaration's), as CVXPY hands a solver the data of a problem in the form it accepts.
:func:`cvxpb.BoundProblem` declares one directly.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cvxpb.engine.result import Certificate, Result, clipped_lower, failed_result
from cvxpb.numerics.constants import CONSTANTS, check_sample_size
from cvxpb.numerics.derivatives import central_difference
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, gap_goal, nudge
from cvxpb.pac_bayes import check_distance
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE, Bound
from cvxpb.validation import (
    PRIOR_SUM_TOLERANCE,
    check_choice,
    check_delta,
    check_distribution,
    check_risks,
)


class OneBound:
    """One PAC-Bayes bound of the Gibbs risk and a divergence over ``H`` classifiers.

    The data the methods derived for one bound take: the risks, the prior and the
    :class:`cvxpb.Bound`, with the bound's evaluation (rounded outward), its gradient
    and KKT residual, and the Result of a posterior. Users state it through
    :func:`cvxpb.BoundProblem`, which gives the declaration to minimize.

    Parameters
    ----------
    risks : array_like of shape (H,)
        Empirical risks in [0, 1], measured on ``m`` examples.
    m : int
        Sample size (an integer >= 1).
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    distance : {"linear", "sq", "kl", "catoni"}, default="kl"
        ``catoni`` only with ``divergence="kl"``; see :mod:`cvxpb.pac_bayes.bounds`.
    divergence : {"chi2", "renyi", "kl"}, default="chi2"
        ``renyi`` is Theorem 1 of Sahu & Hemachandra (after Begin et al., 2016) for
        any order ``alpha > 1``; the divergence reported is then ``D_alpha``.
    prior : array_like of shape (H,), optional
        Prior weights (non-negative, summing to 1); ``None`` is uniform.
    constants : {"exact", "paper"}, default="exact"
        Route for the chi-squared bounds' constant ``I_phi(m, 2)``.
    grid : array_like, optional
        Grid of ``lam`` (KL linear) or ``C`` (Catoni), union-bounded.
    alpha : float > 1, optional
        Renyi order (``divergence="renyi"`` only; chi2 is ``alpha = 2``).

    Examples
    --------
    >>> import cvxpb as pb
    >>> from cvxpb.engine.one_bound import OneBound
    >>> data = OneBound([0.1, 0.12, 0.3], m=500, delta=0.05, distance="sq")
    >>> round(data.evaluate([0.5, 0.5, 0.0]), 4)
    0.1788
    """

    def __init__(
        self,
        risks,
        m,
        delta=0.05,
        distance="kl",
        divergence="chi2",
        prior=None,
        constants="exact",
        grid=None,
        alpha=None,
    ):
        self.risks = check_risks(risks)
        self.m = check_sample_size(m)
        self.delta = check_delta(delta)
        if isinstance(divergence, str):  # the user's words; objects are checked by Bound
            check_choice(divergence, "divergence", DISTANCES_BY_DIVERGENCE)
            if isinstance(distance, str):
                check_distance(distance, divergence)
        self.constants = check_choice(constants, "constants", CONSTANTS)
        size = self.risks.size
        self.prior = (
            np.full(size, 1.0 / size)
            if prior is None
            else check_distribution(prior, size, "prior") / exact_sum(prior)
        )
        self.bound_function = Bound(
            distance, divergence, self.m, self.delta, constants, grid, alpha
        )
        self.alpha = self.bound_function.alpha
        self.divergence_function = self.bound_function.measure  # the objects of the words
        self.distance_function = self.bound_function.metric
        self.divergence = self.divergence_function.name
        self.distance = self.distance_function.name

    @classmethod
    def of_bound(cls, risks, prior, function) -> OneBound:
        """Build the problem of a :class:`cvxpb.pac_bayes.bounds.Bound` already made.

        Parameters
        ----------
        risks : array_like of shape (H,)
            Empirical risks in [0, 1].
        prior : array_like of shape (H,)
            The prior.
        function : Bound
            The bound: its distance, divergence, ``m``, ``delta``, constants and grid.

        Returns
        -------
        OneBound
            The problem of minimizing ``function`` of the Gibbs risk and the divergence.
        """
        return cls(
            risks,
            function.m,
            function.delta,
            function.metric,
            function.measure,
            prior,
            function.constants,
            function.grid,
        )

    @property
    def H(self) -> int:
        """The number of classifiers."""
        return self.risks.size

    def __repr__(self):
        return (
            f"BoundProblem(H={self.H}, m={self.m}, delta={self.delta}, "
            f"distance={self.distance!r}, divergence={self.divergence!r}"
            + (f", alpha={self.alpha:g}" if self._order_is_chosen() else "")
            + f", constants={self.constants!r})"
        )

    def _order_is_chosen(self) -> bool:
        """Whether the divergence's order is the user's to choose (Renyi's): its term
        then carries the order in its name."""
        return self.alpha is not None and self.divergence_function.term_name() != self.divergence

    def report_search(self, found, tol: float = 1e-7, rtol=None) -> Result:
        """Make this problem's Result of what the declared search found.

        The bound is re-evaluated from the posterior as every method's is; the
        certificate's lower bound is the search's, clipped at 1 as the bound is.

        Parameters
        ----------
        found : cvxpb.engine.declare.problem.Found
            What :meth:`cvxpb.Minimize.search` found.
        tol, rtol : float
            The gap asked, absolute and relative.

        Returns
        -------
        Result
            ``"optimal"`` where the gap is within the goal, else ``"optimal_inaccurate"``.
        """
        result = self.result_from_posterior(
            found.q,
            method=found.method,
            status="optimal",
            seconds=found.seconds,
            iterations=found.solves,
        )
        lower = clipped_lower(found.lower)
        gap = result.bound - lower
        return self.replace_result(
            result,
            status="optimal" if gap <= gap_goal(tol, rtol, result.bound) else "optimal_inaccurate",
            certificate=Certificate("mu", found.mu, None, lower, gap),
            message=f"Pareto search: {found.solves} programs, certified gap {gap:.3g}",
        )

    # -- evaluation --------------------------------------------------------

    def project(self, q) -> np.ndarray:
        """Check ``q`` against the simplex, then clip and renormalize it.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        ndarray of shape (H,)
            ``q`` clipped at 0 and divided by its sum.

        Raises
        ------
        ValueError
            Unless ``q`` is finite, non-negative and sums to 1 within 1e-9 and 1e-6, with
            no mass where the prior is zero.
        """
        q = np.asarray(q, dtype=float)
        if q.shape != (self.H,):
            raise ValueError(f"q must have length {self.H}, got shape {q.shape}")
        if np.any(~np.isfinite(q)) or np.any(q < -PRIOR_SUM_TOLERANCE):
            raise ValueError("q must be finite and non-negative (within 1e-9)")
        q = np.clip(q, 0.0, None)
        total = exact_sum(q[q > 0])  # over the support: a chi2 posterior's is small
        if abs(total - 1) > 1e-6:
            raise ValueError(f"q must sum to 1 (within 1e-6), sums to {total!r}")
        if np.any((q > 0) & (self.prior == 0)):
            raise ValueError("q puts mass where the prior is zero: the divergence is infinite")
        if abs(total - 1) <= 2 * q.size * EPS:  # normalized up to rounding: projecting
            return q  # again must not move it (the Result's bound is evaluate(posterior))
        return q / total

    def terms(self, q) -> tuple[float, float]:
        """Evaluate the bound's two arguments at ``q``, exactly summed.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        L : float
            The Gibbs risk ``sum q_i l_i`` of ``q / sum(q)``.
        div : float
            The divergence's argument: ``sum q^2/p`` for chi2, ``D_alpha``, KL.
        """
        return self._projected_terms(self.project(q))

    def _projected_terms(self, q) -> tuple[float, float]:
        on = np.flatnonzero(q)
        total = exact_sum(q[on])
        L = min(exact_sum(q[on] * self.risks[on]) / total, 1.0)
        div = self.divergence_function.value(q / total, self.prior)
        return L, div

    def _rounded_bound(self, q, L, div) -> float:
        """The bound with ``L`` and ``div`` rounded up first, then every operation;
        ``div`` also carries its divergence's own rounding error (KL and Renyi sums have
        terms of both signs)."""
        div = max(div, 0.0) + self.divergence_function.rounding_error(q, self.prior)
        L, div = min(float(nudge(L, +1)), 1.0), float(nudge(div, +1))
        return float(self.bound_function(L, div, rounding=+1))

    def evaluate(self, q) -> float:
        """Evaluate the bound at ``q``, rounded outward: a valid upper bound.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        float
            The bound, at most 1 since the true risk is (:meth:`evaluate_unclipped`
            keeps larger values).
        """
        return min(self.evaluate_unclipped(q), 1.0)

    def evaluate_unclipped(self, q) -> float:
        """Evaluate the bound's formula at ``q``, rounded outward, even above 1.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        float
            The formula's value.
        """
        q = self.project(q)
        return self._rounded_bound(q, *self._projected_terms(q))

    def raw_terms(self, q) -> tuple[float, float]:
        """Evaluate the bound's arguments at any non-negative ``q``, unchecked.

        Parameters
        ----------
        q : array_like of shape (H,)
            Non-negative weights, not normalized (for solvers).

        Returns
        -------
        L : float
            ``q @ risks``.
        div : float
            The divergence's argument at ``q``.
        """
        q = np.clip(np.asarray(q, dtype=float), 0.0, None)
        return float(q @ self.risks), self.divergence_function.value(q, self.prior)

    def _partials(self, L: float, div: float, step: float = 1e-6) -> tuple[float, float]:
        """``dg/dL`` and ``dg/ddiv`` of the bound ``g(L, div)`` by central differences."""
        g = self.bound_function
        d_L = central_difference(lambda x: g(x, div), L, step, 0.0, 1.0)
        d_div = central_difference(lambda x: g(L, x), div, step * max(abs(div), 1e-6), 0.0)
        return d_L, d_div

    def gradient(self, q) -> np.ndarray:
        """Differentiate the bound at ``q`` (not projected): ``g_L l + g_div grad div``.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        ndarray of shape (H,)
            The gradient; ``+inf`` where the prior is zero (the divergence forbids those
            entries). KL's ``log q`` is taken at ``max(q, 1e-300)``.
        """
        q = np.clip(np.asarray(q, dtype=float), 0.0, None)
        d_L, d_div = self._partials(*self.raw_terms(q))
        on = self.prior > 0
        grad = np.full(self.H, np.inf)
        safe = np.maximum(q[on], 1e-300)
        grad[on] = d_L * self.risks[on] + d_div * self.divergence_function.gradient(
            safe, self.prior[on]
        )
        return grad

    def kkt_residual(self, q) -> float:
        """Measure how far ``q`` is from a KKT point of the bound on the simplex.

        With ``g`` the gradient and ``mu = sum q_i g_i``: ``max_i |min(q_i, g_i - mu)|``,
        zero exactly at a KKT point (``g_i = mu`` where ``q_i > 0``, ``g_i >= mu``
        where ``q_i = 0``) and, unlike a support threshold, small where an interior
        point solver leaves tiny weights.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        float
            The natural residual.
        """
        q = self.project(q)
        g = self.gradient(q)
        usable = self.prior > 0
        mu = float(q[usable] @ g[usable])
        return float(np.max(np.abs(np.minimum(q[usable], g[usable] - mu))))

    # -- solving -----------------------------------------------------------

    def result_from_posterior(self, posterior, **fields) -> Result:
        """Build a Result whose bound is re-evaluated from ``posterior``.

        Parameters
        ----------
        posterior : array_like of shape (H,)
            The posterior (projected onto the simplex).
        **fields
            The Result's other fields (method, status, seconds, ...).

        Returns
        -------
        Result
            With the value of each term of the bound: the Gibbs risk and the divergence
            by its own definition (chi-squared is ``sum q^2/p - 1``).
        """
        q = self.project(posterior)
        L, div = self._projected_terms(q)
        unclipped = self._rounded_bound(q, L, div)
        name = self.divergence_function.term_name()
        terms = {"gibbs_risk": L, name: self.divergence_function.reported(div)}
        bound = min(unclipped, 1.0)
        return Result.from_terms(
            bound, q, terms, "gibbs_risk", name, unclipped_bound=unclipped, **fields
        )

    def vacuous(self) -> bool:
        """Say whether no posterior has a bound below 1, proven without solving.

        The bound increases in the Gibbs risk and the divergence's argument, which are
        at least the least risk (of a classifier with prior mass) and the divergence's
        ``least_value``: where the formula there is at least 1 (rounded down), the
        trivial bound 1 is the minimum.

        Returns
        -------
        bool
            True where that is proven; False where it is not, or the divergence states
            no ``least_value``.
        """
        L, least = self.floors()
        return bool(np.isfinite(least) and self.bound_function.at_least(L, least, 1.0))

    def floors(self, support=None) -> tuple[float, float]:
        """Give values no posterior's Gibbs risk and divergence argument are below.

        Parameters
        ----------
        support : array_like, optional
            The classifiers a posterior may weigh (those with prior mass by default).

        Returns
        -------
        L : float
            The least risk among them.
        div : float
            The divergence's ``least_value``, or ``-inf`` where it states none.
        """
        on = self.prior > 0 if support is None else support
        least = getattr(self.divergence_function, "least_value", None)
        return float(np.min(self.risks[on])), -np.inf if least is None else float(least)

    def failed_result(self, method: str, status: str, message: str, seconds: float, **fields):
        """Build the Result of a solve that produced no posterior.

        :func:`cvxpb.engine.result.failed_result` over these classifiers.

        Parameters
        ----------
        method, status, message : str
            What ran, how it ended and the solver's own words.
        seconds : float
            Wall-clock time.
        **fields
            The Result's other fields.

        Returns
        -------
        Result
            With bound, posterior and the terms' values NaN.
        """
        return failed_result(self.H, method, status, message, seconds, **fields)

    def vacuous_result(self, method: str) -> Result:
        """The Result of a problem whose bound is 1 at every posterior (:meth:`vacuous`).

        Parameters
        ----------
        method : str
            The method that was asked.

        Returns
        -------
        Result
            At the prior, bound 1, status ``"optimal"`` with a certificate whose lower
            bound is 1.
        """
        result = self.result_from_posterior(
            self.prior, method=method, status="optimal", seconds=0.0, iterations=0
        )
        return self.replace_result(
            result,
            certificate=Certificate(None, None, None, 1.0, result.bound - 1.0),
            message="vacuous: at the least risk and the divergence's least value the bound's "
            "formula is already at least 1, so no posterior has a bound below the trivial 1",
        )

    @staticmethod
    def replace_result(result: Result, **changes) -> Result:
        """Copy ``result`` with ``changes`` to its fields.

        Parameters
        ----------
        result : Result
            The result.
        **changes
            New values of fields.

        Returns
        -------
        Result
            The copy.
        """
        return dataclasses.replace(result, **changes)
