"""Results of solving a bound problem: small frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

SUPPORT_MASS = 1e-6
SUPPORT_NOTE = (
    f"support: classifiers with weight above {SUPPORT_MASS:g}/H "
    f"(the others hold less than {SUPPORT_MASS:g} in all)"
)


@dataclass(frozen=True, eq=False)
class Certificate:
    """Evidence of global optimality for ``method="exact"``.

    Attributes
    ----------
    parameter : {"nu", "beta"}
        Name of the family parameter (chi-squared: ``q ∝ p (nu - l)_+``; KL: Gibbs).
    value : float
        The parameter at the returned posterior.
    segment : tuple of float or None
        For chi-squared, the two consecutive distinct risks between which ``nu`` lies.
    lower_bound : float
        A proven lower bound on the minimum of the bound over the whole simplex.
    gap : float
        Reported bound minus ``lower_bound``.
    neighbours : dict
        The objective at the ends of the segment and of the two neighbouring ones.
    grid_value : float or None
        The chosen ``lam`` or ``C`` for bounds with a union-bounded grid.
    """

    parameter: str
    value: float
    segment: tuple[float, float] | None
    lower_bound: float
    gap: float
    neighbours: dict = field(default_factory=dict)
    grid_value: float | None = None


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of ``BoundProblem.solve``.

    ``bound`` is always re-evaluated from ``posterior`` with outward rounding and
    the conservative kl inverse, and is at most 1 (a risk is); ``unclipped_bound``
    is the formula's value before that, which the linear, sq and Catoni bounds can
    take above 1. A solver's objective value is kept apart in ``objective`` and never
    reported as the bound. ``details`` holds what one
    method alone reports (for example the fixed-point scheme's positivity checks).
    """

    bound: float
    posterior: np.ndarray
    status: str
    method: str
    seconds: float
    iterations: int
    empirical_risk: float
    divergence: float
    certificate: Certificate | None = None
    message: str = ""
    solver: str | None = None
    objective: float | None = None
    details: dict = field(default_factory=dict)
    unclipped_bound: float | None = None

    SUPPORT_MASS: ClassVar[float] = SUPPORT_MASS

    @property
    def support_size(self) -> int:
        """Number of classifiers with posterior weight above ``SUPPORT_MASS / H`` (1e-6 / H).

        A KL posterior is positive everywhere, with weights down to 1e-300. The
        classifiers left out hold less than ``SUPPORT_MASS`` of the mass in all.
        """
        return int(np.count_nonzero(self.posterior > self.SUPPORT_MASS / self.posterior.size))

    def summary(self) -> str:
        """One line: method, status, bound, iterations, time (and the gap if certified)."""
        gap = f", certified gap {self.certificate.gap:.1e}" if self.certificate else ""
        return (
            f"{self.method}: {self.status}, bound {self.bound:.6g}{gap}, "
            f"{self.iterations} iterations, {self.seconds:.3g} s"
        )

    def is_optimal(self) -> bool:
        return self.status == "optimal"
