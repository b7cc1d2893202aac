"""The standard form of a declaration, ``c * pac_bayes(bound, gibbs_risk(q, risks), D)``,
as a reduction.

The methods derived for one bound of a Gibbs risk and a divergence (``exact``, ``cvx``,
``closed_form``, ``ccp``, ``fixed_point``, ``nlp``) take the data of that bound, a
:class:`cvxpb.engine.one_bound.OneBound`. As a reduction of CVXPY's solving chain hands
a solver its data and maps the solution back, :class:`ToStandardForm` ``accepts`` a
declaration of that shape (up to a positive factor: the first-order bound of a
majority vote is twice one), ``apply`` gives the data and its factor, and ``invert``
reports the method's Result on the data as the declaration's.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from cvxpb.engine.declare import expressions as ex
from cvxpb.engine.declare import terms as tm
from cvxpb.engine.declare.divergence_terms import DivergenceTerm
from cvxpb.engine.one_bound import OneBound
from cvxpb.engine.result import Result
from cvxpb.numerics.tolerances import nudge


class StandardForm(NamedTuple):
    """A declaration as the methods derived for one bound take it: ``scale * problem``.

    Parameters
    ----------
    scale : float
        The positive factor of the declared bound (2 for the first-order bound).
    problem : OneBound
        The bound of one distance and divergence, of the Gibbs risk.
    """

    scale: float
    problem: OneBound


class ToStandardForm:
    """The reduction of a declaration to one bound of a Gibbs risk and a divergence.

    ``accepts`` a :class:`cvxpb.Minimize` whose bound is
    ``c * pac_bayes(function, gibbs_risk(q, risks), D)`` with ``c > 0`` and ``D``
    ``function``'s own argument of one divergence term of ``q``; ``apply`` gives its
    :class:`StandardForm`; ``invert`` maps a method's Result on that form back.
    """

    def accepts(self, problem) -> bool:
        """Say whether ``problem`` is one bound of a Gibbs risk and a divergence.

        Parameters
        ----------
        problem : cvxpb.Minimize
            A declaration (a union bound has no standard form).

        Returns
        -------
        bool
            Whether :meth:`apply` gives its standard form.
        """
        return self.apply(problem) is not None

    def apply(self, problem) -> StandardForm | None:
        """Give ``problem``'s standard form: the data of its one bound, and its factor.

        Recognized once per problem; :func:`cvxpb.BoundProblem` states it directly.

        Parameters
        ----------
        problem : cvxpb.Minimize
            A declaration.

        Returns
        -------
        StandardForm or None
            ``c`` and the :class:`OneBound`; None for any other shape (or risks outside
            [0, 1]: a loss, not a risk, for these methods).
        """
        if not hasattr(problem, "bound"):  # the least of several bounds is not one
            return None
        if not hasattr(problem, "_standard"):
            problem._standard = recognize(problem.bound)
        return problem._standard

    def invert(self, problem, form: StandardForm, result: Result) -> Result:
        """Report a method's Result on ``form`` as ``problem``'s.

        The bound is the declared formula at the method's posterior, rounded outward;
        a certificate's lower bound is scaled by ``form.scale`` (rounded down) and its
        gap taken against that bound.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The declaration :meth:`apply` reduced.
        form : StandardForm
            What it gave.
        result : Result
            The method's Result on ``form.problem``.

        Returns
        -------
        Result
            The declaration's Result; the method's itself where the scale is 1 (the same
            bound, evaluated and rounded outward by the standard form) or where it found
            no posterior.
        """
        q = result.posterior
        if form.scale == 1 or not np.all(np.isfinite(q)):
            return result
        certificate = result.certificate
        if certificate is not None:  # scaled, rounded down; clipped and its gap reset below
            lower = float(nudge(form.scale * certificate.lower_bound, -1))
            certificate = dataclasses.replace(certificate, lower_bound=lower)
        keep = ("status", "method", "seconds", "iterations", "message", "objective", "details")
        fields = {name: getattr(result, name) for name in keep}
        return problem.result_from_posterior(q, certificate=certificate, **fields)


TO_STANDARD_FORM = ToStandardForm()


def declaration(data: OneBound):
    """Declare one bound with the engine's atoms, as ``method="declared"`` minimizes it.

    Parameters
    ----------
    data : OneBound
        The bound: its risks, prior and :class:`cvxpb.Bound`.

    Returns
    -------
    cvxpb.engine.declare.expressions.Expression
        The bound of the Gibbs risk and the divergence over a :class:`cvxpb.Posterior`
        with ``data``'s prior, whose standard form is ``data`` itself.
    """
    q = tm.Posterior(data.prior)
    divergence = DivergenceTerm(q, data.divergence_function)
    argument = data.divergence_function.bound_argument(divergence)
    return ex.pac_bayes(data.bound_function, tm.gibbs_risk(q, data.risks), argument)


def recognize(bound) -> StandardForm | None:
    """Recognize ``c * pac_bayes(function, gibbs_risk(q, risks), D)`` in ``bound``.

    ``D`` must be the bound's own argument of one divergence term of ``q``
    (``function.measure.bound_argument(term)``, as :func:`declaration` and
    :func:`cvxpb.ensemble.bounds.first_order` declare it), ``c`` a product of positive
    factors.

    Parameters
    ----------
    bound : Expression
        A declared bound.

    Returns
    -------
    StandardForm or None
        ``c`` and the data of that bound; None for any other shape, or risks outside
        [0, 1].
    """
    scale, node = 1.0, bound
    while type(node) is ex.Scale and node.factor > 0:
        scale, node = scale * node.factor, node.args[0]
    if type(node) is not ex.PacBayes:
        return None
    risk, argument = node.args
    if type(risk) is not tm.GibbsRisk:
        return None
    terms = list(argument.leaves())
    if len(terms) != 1 or type(terms[0]) is not DivergenceTerm:
        return None
    term, function = terms[0], node.function
    own = function.measure.bound_argument(term)
    if term.measure is not function.measure or term.posterior is not risk.posterior:
        return None
    if repr(own) != repr(argument):  # the argument, written as the bound's own
        return None
    try:
        problem = OneBound.of_bound(risk.risks, term.prior, function)
    except ValueError:  # risks outside [0, 1]: a loss, not a risk, for these methods
        return None
    return StandardForm(scale, problem)
