"""A declaration's standard form: ``c * pac_bayes(bound, gibbs_risk(q, risks), D)``.

The methods derived for one bound of a Gibbs risk and a divergence (``exact``, ``cvx``,
``closed_form``, ``ccp``, ``fixed_point``, ``nlp``) take a :class:`cvxpb.BoundProblem`;
a declaration of exactly that shape, up to a positive factor (the first-order bound of
a majority vote is twice it), reaches them through the problem recognized here, as
CVXPY hands a solver the data of a problem in the form it accepts.
"""

from __future__ import annotations

from cvxpb.engine.declare.expressions import PacBayes, Scale
from cvxpb.engine.declare.terms import DivergenceTerm, GibbsRisk


def standard_form(bound):
    """Recognize ``c * pac_bayes(function, gibbs_risk(q, risks), D)`` in ``bound``.

    ``D`` must be the bound's own argument of one divergence term of ``q``
    (``function.measure.bound_argument(term)``, as :class:`cvxpb.BoundProblem` and
    :func:`cvxpb.ensemble.bounds.first_order` declare it), ``c`` a product of positive
    factors.

    Parameters
    ----------
    bound : Expression
        A declared bound.

    Returns
    -------
    cvxpb.engine.problem.StandardForm or None
        ``c`` and the BoundProblem of that bound; None for any other shape, or risks
        outside [0, 1].
    """
    from cvxpb.engine.problem import BoundProblem, StandardForm

    scale, node = 1.0, bound
    while type(node) is Scale and node.factor > 0:
        scale, node = scale * node.factor, node.args[0]
    if type(node) is not PacBayes:
        return None
    risk, argument = node.args
    if type(risk) is not GibbsRisk:
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
        problem = BoundProblem.of_bound(risk.risks, term.prior, function)
    except ValueError:  # risks outside [0, 1]: a loss, not a risk, for these methods
        return None
    return StandardForm(scale, problem)
