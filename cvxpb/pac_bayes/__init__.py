"""The PAC-Bayes layer: the concepts as objects, each defined once.

:mod:`~cvxpb.pac_bayes.divergences` holds KL, chi-squared and the Renyi divergences
(and the protocol a user's own divergence follows), :mod:`~cvxpb.pac_bayes.families`
the one-parameter families of posteriors that contain every optimum of a bound in the
Gibbs risk and a divergence. It imports only :mod:`cvxpb.numerics`.
"""

DISTANCES_BY_DIVERGENCE = {
    "chi2": ("linear", "sq", "kl"),
    "renyi": ("linear", "sq", "kl"),
    "kl": ("linear", "sq", "kl", "catoni"),
}
"""The users' words: each divergence and the distances it has bounds with (the command
line's choices; here, where importing them loads nothing numerical)."""
