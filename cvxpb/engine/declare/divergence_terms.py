"""Divergence terms of the posterior: KL, chi-squared and Renyi against its prior.

Each is written once, in :mod:`cvxpb.pac_bayes.divergences`; :func:`divergence_term`
takes any divergence object there, a user's own included. The divergences minimize
``g @ q + mu * core(q)`` over the simplex in closed form with a lower bound from weak
duality (:meth:`cvxpb.Divergence.linear_min`), which is what certifies the scalarized
programs of :mod:`cvxpb.engine.declare.pareto`.
"""

from __future__ import annotations

from cvxpb.engine.declare.terms import Posterior, Term
from cvxpb.numerics.constants import check_order
from cvxpb.pac_bayes.divergences import Chi2, Divergence, KLDivergence, Renyi, as_divergence


class DivergenceTerm(Term):
    """A divergence of the posterior from its prior, as a term.

    Takes any :class:`cvxpb.pac_bayes.divergences.Divergence` (ours or a user's), whose
    convex core, transform, gradient, CVXPY expression and closed-form ``linear_min`` it
    uses.

    Parameters
    ----------
    posterior : Posterior
        The posterior (its prior is the divergence's reference).
    measure : Divergence
        The divergence.
    """

    curvature = "convex"
    divergence = True

    def __init__(self, posterior, measure: Divergence):
        try:
            measure = as_divergence(measure)  # ours, or a user's object adopted
        except ValueError as error:
            raise ValueError(
                "a divergence term needs a cvxpb Divergence or an object with a name and "
                f"core(q, p, rounding); {error}"
            ) from None
        super().__init__(posterior, measure.term_name())
        self.measure = measure
        self.floor = measure.least

    @property
    def prior(self):
        """ndarray of shape (H,): the prior the divergence is taken from."""
        return self.posterior.prior

    @property
    def entropic(self) -> bool:
        """bool: whether the divergence is KL (its minimizers are Gibbs posteriors)."""
        return self.measure.entropic

    @property
    def closed_form_min(self) -> bool:
        """bool: whether the divergence has ``linear_min``.

        Without it the scalarized programs are solved by CVXPY and certified by the
        Frank-Wolfe bound.
        """
        return hasattr(self.measure, "linear_min")

    def core(self, q, rounding=0):
        return self.measure.core(q, self.prior, rounding)

    def transform(self, core, rounding=0):
        return self.measure.transform(core, rounding)

    def affine(self) -> bool:
        return self.measure.transform_is_affine()

    def gradient(self, q):
        return self.measure.core_gradient(q, self.prior)

    def expr(self, q):
        return self.measure.expr(q, self.prior)

    def least_curvature(self, sign: int):
        # the divergence's own, where the bound increases in it
        return self.measure.least_curvature(self.prior) if sign > 0 else None

    def largest(self, sign: int):
        # the divergence's own largest value over the vertices where it has one
        if sign > 0 and hasattr(self.measure, "largest"):
            return self.measure.largest(self.prior)
        return None

    def linear_min(self, g, mu):
        """Minimize ``g @ q + mu core(q)`` over the simplex in closed form.

        Parameters
        ----------
        g : ndarray of shape (H,)
            The linear part.
        mu : float
            The weight of the core (positive).

        Returns
        -------
        q : ndarray of shape (H,)
            The minimizer.
        lower : float
            A lower bound on the minimum (weak duality), rounded down.
        """
        return self.measure.linear_min(self.prior, g, mu)


def divergence_term(q: Posterior, measure) -> DivergenceTerm:
    """Declare the divergence ``measure`` of ``q`` from its prior.

    Parameters
    ----------
    q : Posterior
        The posterior.
    measure : Divergence or str
        A :class:`~cvxpb.pac_bayes.divergences.Divergence` object (a user's own subclass
        works as ours do) or a name in :func:`~cvxpb.pac_bayes.divergences.as_divergence`'s
        vocabulary.

    Returns
    -------
    DivergenceTerm
        The term (convex core).
    """
    return DivergenceTerm(q, as_divergence(measure))


def KL(q: Posterior) -> DivergenceTerm:
    """Declare ``KL(q || p)`` against the posterior's prior (convex).

    Parameters
    ----------
    q : Posterior
        The posterior.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, KLDivergence())


def chi2(q: Posterior) -> DivergenceTerm:
    """Declare the chi-squared divergence ``chi2(q || p) = sum_i q_i^2 / p_i - 1``.

    An increasing transform of a convex moment. The chi-squared bounds of Sahu &
    Hemachandra (Theorem 1 with alpha = 2) take ``chi2(q) + 1 = sum_i q_i^2 / p_i``.

    Parameters
    ----------
    q : Posterior
        The posterior.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, Chi2())


def renyi(q: Posterior, alpha) -> DivergenceTerm:
    """Declare the Renyi divergence ``D_alpha(q || p)`` of order ``alpha > 1``.

    ``D_alpha(q || p) = log(sum q^alpha p^(1-alpha)) / (alpha - 1)``, an increasing
    transform of a convex moment.

    Parameters
    ----------
    q : Posterior
        The posterior.
    alpha : float
        The order, greater than 1.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, Renyi(check_order(alpha)))
