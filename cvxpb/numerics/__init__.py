"""The numerics layer: the kl divergence between Bernoulli laws and its certified
inverses (:mod:`~cvxpb.numerics.kl`), exact sums (:mod:`~cvxpb.numerics.summation`),
the binomial pmf in log space (:mod:`~cvxpb.numerics.binomial`), certified suprema of
binomial moments (:mod:`~cvxpb.numerics.supremum`) and the constants ``I_phi(m, .)``
they give (:mod:`~cvxpb.numerics.constants`), and the rounding every layer shares
(:mod:`~cvxpb.numerics.tolerances`). It imports nothing else of cvxpb but
:mod:`cvxpb.validation`.
"""

CONSTANTS = ("exact", "paper")
"""The routes to the constants ``I_phi``: computed from the definition, or Sahu &
Hemachandra's own numbers (here, where importing them loads nothing numerical)."""
