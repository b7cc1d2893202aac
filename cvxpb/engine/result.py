"""The outcome of a minimization, the same for every method: :class:`Result` and its
:class:`Certificate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

SUPPORT_MASS = 1e-6
SUPPORT_NOTE = (
    f"support: classifiers with weight above {SUPPORT_MASS:g}/H "
    f"(the others hold less than {SUPPORT_MASS:g} in all)"
)

STATUSES = {
    "optimal": "a global minimum: the bound at the posterior is within the tolerance of a "
    "proven lower bound (exact, declared; the relative one too where asked), or the "
    "posterior solves a convex program to its solver's optimality conditions (cvx, "
    "closed_form)",
    "optimal_inaccurate": "a proven lower bound exists but lies further below the bound "
    "than the tolerance (the certificate's gap says how far), or the convex solver "
    "reported reduced accuracy",
    "local": "the bound holds at the posterior returned; it is not proven least (a search "
    "over three or more terms, a relaxation that leaves a gap, or no finite lower bound)",
    "converged": "the method's own iteration met its stopping rule (ccp, fixed_point, "
    "nlp): a stationary point at best, not proven global",
}
"""What each status of a solved problem claims of the minimum. The bound at the
posterior is a true bound under every one of them; the statuses of :data:`STOPPED`
say instead what stopped a method."""

STOPPED = {
    "max_rounds": "the search's rounds ran out before the gap closed (exact)",
    "max_iter": "the iterations ran out before the stopping rule held (ccp, nlp)",
    "time_limit": "max_seconds ran out (nlp)",
    "stalled": "the iterates stopped improving before the stopping rule held (ccp)",
    "stopped": "the solver stopped on a rule of its own (nlp, trust-constr)",
    "linesearch_failed": "SLSQP's line search found no lower point (nlp)",
    "did_not_converge": "the fixed-point iteration did not settle on some subset (fixed_point)",
    "diverged": "the fixed-point iterates stopped being finite (fixed_point)",
    "conditions_not_met": "the closed form's conditions fail on this problem "
    "(closed_form, Theorem 11)",
    "solver_failed": "the solver raised or returned no solution; its words are in message",
    "infeasible": "the solver found the program infeasible (cvx, ccp, nlp)",
    "infeasible_inaccurate": "CVXPY's solver found the program infeasible, to reduced "
    "accuracy (cvx)",
    "unbounded": "CVXPY's solver found the program unbounded (cvx)",
    "unbounded_inaccurate": "CVXPY's solver found the program unbounded, to reduced accuracy (cvx)",
    "infeasible_or_unbounded": "CVXPY's solver could not tell which (cvx)",
    "user_limit": "a limit set on CVXPY's solver stopped it (cvx)",
    "solver_error": "CVXPY's solver reported an error (cvx)",
}
"""What each status that is not a claim says stopped the method, with the solver's own
words in ``message``; where no posterior came out, the bound is NaN. Each method states
the statuses it returns (its module's ``STATUSES``), all of them keys here or of
:data:`STATUSES`."""


def clipped_lower(lower: float) -> float:
    """Clip a proven lower bound on a risk's bound to ``[0, 1]``.

    No risk lies below 0, and the reported bound is clipped at 1.

    Parameters
    ----------
    lower : float
        A proven lower bound on the bound's formula.

    Returns
    -------
    float
        ``lower`` clipped to ``[0, 1]``.
    """
    return min(max(float(lower), 0.0), 1.0)


@dataclass(frozen=True, eq=False)
class Certificate:
    """A proven lower bound on the minimum, and where the search found its best point.

    Parameters
    ----------
    parameter : {"nu", "beta", "mu"} or None
        The one-parameter family the best posterior lies on, when the search ran along
        one: ``"nu"`` for the chi-squared and Renyi families ``q ∝ p (nu - l)_+^e`` and
        ``"beta"`` for the Gibbs family ``q ∝ p exp(-beta l)`` (``method="exact"``);
        ``"mu"`` for the weight of the second term in ``min A + mu B``, the
        scalarization of a bound of two terms (the declared engine). ``None`` where no
        single parameter describes the search (one term, or three and more).
    value : float or None
        The parameter at the returned posterior (``None`` with ``parameter=None``).
    segment : tuple of float or None
        For the chi-squared family, the two consecutive distinct risks between which
        ``nu`` lies; otherwise None.
    lower_bound : float
        A proven lower bound on the minimum of the bound over the whole simplex.
    gap : float
        Reported bound minus ``lower_bound`` (at least 0).
    neighbours : dict
        For ``method="exact"``: the objective at the ends of the segment and of the two
        neighbouring ones.
    grid_value : float or None
        The chosen ``lam`` or ``C`` for bounds with a union-bounded grid.
    """

    parameter: str | None
    value: float | None
    segment: tuple[float, float] | None
    lower_bound: float
    gap: float
    neighbours: dict = field(default_factory=dict)
    grid_value: float | None = None


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of a minimization, the same for every method.

    ``Minimize.solve`` by any method returns one; every field
    means the same whatever produced it.

    Parameters
    ----------
    bound : float
        The bound at ``posterior``, re-evaluated from the posterior with outward
        rounding and the conservative kl inverse, at most 1 (a risk is). A solver's
        objective value is never the bound (it is kept in ``objective``). NaN when
        the method produced no posterior.
    posterior : ndarray of shape (H,)
        The posterior's weights.
    status : str
        What the result proves; see :data:`STATUSES`.
    method : str
        The method that produced it (``"declared"`` for :class:`cvxpb.Minimize`).
    seconds : float
        Wall-clock time of the solve.
    iterations : int
        The method's iterations (scalarized programs for the declared engine).
    empirical_risk : float or None
        The Gibbs risk ``L(q) = sum_i q_i l_i`` at the posterior, where the bound has
        that term; None where it has not (a tandem bound, say).
    divergence : float or None
        The divergence of the posterior from the prior, by its own definition
        (``KL(q||p)``, ``chi2(q||p) = sum q^2/p - 1``, ``D_alpha(q||p)``), where the
        bound has exactly one divergence term; None otherwise.
    certificate : Certificate or None
        The proven lower bound, for the methods that prove one (``exact``,
        ``declared``); None for the others.
    message : str
        The method's or the solver's own account.
    solver : str or None
        The solver library's solver, for the methods that call one.
    objective : float or None
        The solver's objective value, kept apart from the bound.
    details : dict
        What one method alone reports (for example the fixed-point scheme's
        positivity checks).
    unclipped_bound : float or None
        The bound's formula before the clip at 1, where it exceeds 1 (the linear, sq and
        Catoni bounds, and declared bounds such as twice or four times a risk's bound,
        can); None otherwise.
    terms : dict
        Every term of the bound by name (``gibbs_risk``, ``tandem_risk``,
        ``disagreement``, ``KL``, ``chi2``, ``renyi_<alpha>``) and its value at the
        posterior; empty when the method produced no posterior.
    """

    bound: float
    posterior: np.ndarray
    status: str
    method: str
    seconds: float
    iterations: int
    empirical_risk: float | None
    divergence: float | None
    certificate: Certificate | None = None
    message: str = ""
    solver: str | None = None
    objective: float | None = None
    details: dict = field(default_factory=dict)
    unclipped_bound: float | None = None
    terms: dict = field(default_factory=dict)

    SUPPORT_MASS: ClassVar[float] = SUPPORT_MASS

    @classmethod
    def from_terms(cls, bound, posterior, terms, risk, divergence, **fields) -> Result:
        """Build the Result at a posterior from the values of the bound's terms.

        Every engine builds its Results here, so ``empirical_risk`` and ``divergence``
        are read off ``terms`` the same way whatever solved the problem.

        Parameters
        ----------
        bound : float
            The bound at ``posterior``, rounded outward.
        posterior : ndarray of shape (H,)
            The posterior.
        terms : dict
            Each term of the bound by name, and its value at ``posterior``.
        risk : str or None
            The name in ``terms`` of the Gibbs risk, or None where the bound has no
            such term (``empirical_risk`` is then None).
        divergence : str or None
            The name in ``terms`` of the bound's one divergence, or None where it has
            none or several (``divergence`` is then None).
        **fields
            The Result's other fields (method, status, seconds, iterations, ...).

        Returns
        -------
        Result
            With ``terms`` a copy of the dict given.

        Examples
        --------
        >>> import numpy as np
        >>> res = Result.from_terms(
        ...     0.3, np.array([0.5, 0.5]), {"tandem_risk": 0.1, "KL": 0.02}, None, "KL",
        ...     status="optimal", method="declared", seconds=0.0, iterations=1,
        ... )
        >>> res.empirical_risk is None, res.divergence
        (True, 0.02)
        """
        return cls(
            bound=bound,
            posterior=posterior,
            empirical_risk=None if risk is None else terms[risk],
            divergence=None if divergence is None else terms[divergence],
            terms=dict(terms),
            **fields,
        )

    @property
    def support_size(self) -> int:
        """Number of classifiers with posterior weight above ``SUPPORT_MASS / H`` (1e-6 / H).

        A KL posterior is positive everywhere, with weights down to 1e-300. The
        classifiers left out hold less than ``SUPPORT_MASS`` of the mass in all.
        """
        return int(np.count_nonzero(self.posterior > self.SUPPORT_MASS / self.posterior.size))

    def summary(self) -> str:
        """Summarize the result in one line.

        Returns
        -------
        str
            Method, status, bound, iterations, time (and the gap if certified).
        """
        gap = f", certified gap {self.certificate.gap:.1e}" if self.certificate else ""
        return (
            f"{self.method}: {self.status}, bound {self.bound:.6g}{gap}, "
            f"{self.iterations} iterations, {self.seconds:.3g} s"
        )

    def __str__(self) -> str:
        """The result as a person reads it: what the bound is and what its status
        proves, the gap, the posterior's largest weights, the terms and the time."""
        lines = [self.summary()]
        if self.unclipped_bound is not None and self.unclipped_bound > self.bound:
            lines.append(
                f"  vacuous: the bound's formula is {self.unclipped_bound:.6g} at this "
                "posterior, above 1, so the trivial bound 1 is reported"
            )
        meaning = {**STATUSES, **STOPPED}.get(self.status, "see message")
        lines.append(f"  status {self.status}: {meaning}")
        if self.certificate is not None:
            lines.append(
                f"  certificate: no posterior has a bound below {self.certificate.lower_bound:.6g}"
            )
        if self.posterior.size:
            lines.append(f"  posterior: {self._weights_line()}")
        if self.terms:
            terms = ", ".join(f"{name} {value:.4g}" for name, value in self.terms.items())
            lines.append(f"  terms at the posterior: {terms}")
        if self.message:
            lines.append(f"  {self.method}: {self.message}")
        return "\n".join(lines)

    def _weights_line(self, shown: int = 5) -> str:
        order = np.argsort(-self.posterior, kind="stable")[:shown]
        largest = ", ".join(f"{self.posterior[i]:.3g} on {i}" for i in order)
        more = " ..." if self.support_size > shown else ""
        return (
            f"{self.support_size} of {self.posterior.size} classifiers hold weight above "
            f"{SUPPORT_MASS:g}/H; the largest {largest}{more}"
        )

    def is_optimal(self) -> bool:
        """Say whether the status is ``"optimal"`` (a global minimum).

        Returns
        -------
        bool
            ``status == "optimal"``.
        """
        return self.status == "optimal"


def failed_result(size: int, method: str, status: str, message: str, seconds: float, **fields):
    """Build the Result of a solve that produced no posterior.

    Parameters
    ----------
    size : int
        The number of voters (the posterior's length, all NaN).
    method, status, message : str
        What ran, how it ended and the solver's own words.
    seconds : float
        Wall-clock time.
    **fields
        The Result's other fields (``iterations`` 0 unless given).

    Returns
    -------
    Result
        With bound, posterior and the terms' values NaN.
    """
    fields.setdefault("iterations", 0)
    nan = float("nan")
    return Result(
        bound=nan,
        posterior=np.full(size, nan),
        status=status,
        method=method,
        seconds=seconds,
        empirical_risk=nan,
        divergence=nan,
        message=message,
        **fields,
    )
