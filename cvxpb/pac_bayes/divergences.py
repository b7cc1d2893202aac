"""Divergences between a discrete posterior ``q`` and a prior ``p``, each one class.

A divergence is an increasing ``transform`` of a ``core`` convex in ``q``: KL is its
own core; the chi-squared divergence is ``M - 1`` and the Renyi divergence of order
``alpha`` is ``log(M) / (alpha - 1)``, both of the moment
``M = sum_i q_i^alpha p_i^(1 - alpha)``. Each class carries everything the engines
need of it, so that no other module knows a divergence by its name:

* for the bounds (:func:`cvxpb.BoundProblem`): :meth:`~Divergence.value`, the
  argument the bound's formula takes (``sum q^2/p`` for chi-squared, as in Theorem 1
  of Sahu & Hemachandra; the divergence itself otherwise), its
  :meth:`~Divergence.rounding_error` and :meth:`~Divergence.gradient`, and
  :meth:`~Divergence.reported`, the divergence by its own definition;
* for the declared engine (:class:`cvxpb.Minimize`): :meth:`~Divergence.core` rounded
  outward, :meth:`~Divergence.transform`, :meth:`~Divergence.core_gradient`,
  :meth:`~Divergence.expr` (the core's CVXPY expression) and
  :meth:`~Divergence.linear_min`, the closed-form minimum of ``g @ q + mu core(q)``
  over the simplex with a lower bound from weak duality;
* for ``method="exact"``: :meth:`~Divergence.family`, the one-parameter family of
  posteriors that holds every optimum (:mod:`cvxpb.pac_bayes.families`);
* for teaching: :attr:`~Divergence.symbol`.

The base class is in :mod:`cvxpb.pac_bayes.divergence`, KL in
:mod:`cvxpb.pac_bayes.kl_divergence`, chi-squared and Renyi in
:mod:`cvxpb.pac_bayes.power_divergences`; here :func:`as_divergence` turns the user's
words (``"kl"``, ``"chi2"``, ``"renyi"`` with ``alpha``) into one of these objects; past
it no code compares a divergence's name.
"""

from __future__ import annotations

from cvxpb.numerics.constants import check_order
from cvxpb.pac_bayes.divergence import Divergence
from cvxpb.pac_bayes.kl_divergence import KLDivergence
from cvxpb.pac_bayes.power_divergences import Chi2, PowerDivergence, Renyi
from cvxpb.pac_bayes.protocol import DIVERGENCE_MEMBERS, adopt, offers_protocol

__all__ = [
    "DIVERGENCES",
    "Chi2",
    "Divergence",
    "KLDivergence",
    "PowerDivergence",
    "Renyi",
    "as_divergence",
]


DIVERGENCES = ("chi2", "kl", "renyi")


_BY_NAME = {"chi2": Chi2, "kl": KLDivergence, "renyi": Renyi}


def as_divergence(divergence, alpha=None) -> Divergence:
    """Turn the user's word for a divergence into its object.

    The words are :data:`DIVERGENCES` (``"renyi"`` with a finite ``alpha > 1``); a
    :class:`Divergence` passes through.

    Parameters
    ----------
    divergence : {"chi2", "kl", "renyi"} or Divergence
        The user's word, or an object (one of ours, or the user's own subclass).
    alpha : float or None
        The Renyi order: needed with ``"renyi"``, 2 or None with ``"chi2"``, None with
        ``"kl"``.

    Returns
    -------
    Divergence
        The divergence object.

    Raises
    ------
    ValueError
        For any other name, or an ``alpha`` the divergence does not take.

    Examples
    --------
    >>> from cvxpb.pac_bayes.divergences import as_divergence
    >>> as_divergence("renyi", alpha=3).term_name()
    'renyi_3'
    """
    if offers_protocol(divergence, Divergence):  # a user's, not subclassing ours
        divergence = adopt(divergence, Divergence, DIVERGENCE_MEMBERS)
    if isinstance(divergence, Divergence):
        if alpha is not None and alpha != divergence.alpha:
            raise ValueError(f"alpha={alpha!r} does not match the divergence's order")
        return divergence
    kind = _BY_NAME.get(divergence) if isinstance(divergence, str) else None
    if kind is None:
        raise ValueError(f"divergence must be one of {DIVERGENCES}, got {divergence!r}")
    if kind is Renyi:
        if alpha is None:
            raise ValueError('divergence="renyi" needs alpha > 1, a finite number; got None')
        return Renyi(check_order(alpha))
    if kind is Chi2 and alpha is not None and (isinstance(alpha, bool) or alpha != 2):
        raise ValueError(f'alpha is 2 for divergence="chi2"; use "renyi" for alpha={alpha!r}')
    if kind is KLDivergence and alpha is not None:
        raise ValueError('alpha is only used with divergence="renyi" or "chi2"')
    return kind()
