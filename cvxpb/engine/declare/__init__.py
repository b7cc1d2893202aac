"""Bounds by declaration: posterior terms, atoms, and ``Minimize``.

::

    import numpy as np, cvxpb as pb

    q = pb.Posterior(prior)                        # H voters
    T = pb.tandem_risk(q, errors)                  # n x H error indicators
    bound = 4 * pb.kl_inverse(T, (2 * pb.KL(q) + pb.log_xi(n) - np.log(delta)) / n)
    prob = pb.Minimize(bound)
    print(prob.explain())                          # terms, curvature, rule, method
    res = prob.solve()                             # certified global minimum

The composition rule is in :mod:`cvxpb.engine.declare.expressions`, the terms in
:mod:`cvxpb.engine.declare.terms`, :mod:`cvxpb.engine.declare.quadratic` and
:mod:`cvxpb.engine.declare.divergence_terms`, the solver in
:mod:`cvxpb.engine.declare.pareto`.
"""

from cvxpb.engine.declare.divergence_terms import KL, chi2, divergence_term, renyi
from cvxpb.engine.declare.expressions import (
    DeclarationError,
    exp,
    inv,
    log,
    maximum,
    minimum,
    sqrt,
    union_min,
)
from cvxpb.engine.declare.kl_atoms import kl_inverse, kl_inverse_lower
from cvxpb.engine.declare.problem import Minimize
from cvxpb.engine.declare.quadratic import disagreement, tandem_risk
from cvxpb.engine.declare.terms import Posterior, gibbs_risk

__all__ = [
    "KL",
    "DeclarationError",
    "Minimize",
    "Posterior",
    "chi2",
    "disagreement",
    "divergence_term",
    "exp",
    "gibbs_risk",
    "inv",
    "kl_inverse",
    "kl_inverse_lower",
    "log",
    "maximum",
    "minimum",
    "renyi",
    "sqrt",
    "tandem_risk",
    "union_min",
]
