"""cvxpb: PAC-Bayesian bound minimization as disciplined convex programs.

Give the empirical risks of H classifiers, the sample size ``m`` they were
measured on and a confidence ``delta``; cvxpb returns the posterior over the
classifiers with the tightest valid bound on the true risk of the stochastic
(Gibbs) classifier, and a certificate that no posterior does better::

    import numpy as np, cvxpb as pb

    risks = np.array([0.10, 0.12, 0.30, 0.05])
    prob = pb.BoundProblem(risks, m=1840, delta=0.05, distance="kl", divergence="chi2")
    res = prob.solve()            # method="exact": a certified global optimum
    res.bound, res.posterior, res.certificate.gap
    print(prob.compare())         # every published method against the optimum
    print(prob.explain())         # the terms, their curvature, the DCP verdict

The bounds: the chi-squared and Renyi bounds of Sahu & Hemachandra (linear,
squared and kl distances) and the KL-divergence bounds of Seeger/Maurer,
McAllester and Catoni. The learning systems live in subpackages:

- :mod:`cvxpb.svm`: stochastic SVMs (Sahu & Hemachandra) and SVMs with
  data-dependent priors (Parrado-Hernandez et al., 2012);
- :mod:`cvxpb.minimax`: minimax classifiers and regressors as GLMs (Farnia & Tse, 2016);
- :mod:`cvxpb.gp`: GP classification with privileged information, SLT-GP
  (Kamesawa et al.), and its PAC-Bayes bound.

The command line: ``cvxpb demo``, ``cvxpb solve RISKS --m M``, ``cvxpb experiment``
(``cvxpb --help``; ``python -m cvxpb`` works too). Full references are on the
documentation's references page.
"""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

_EXPORTS = {
    "kl": "cvxpb.numerics.kl",
    "kl_inv_lower": "cvxpb.numerics.kl",
    "kl_inv_upper": "cvxpb.numerics.kl",
    "log_xi": "cvxpb.numerics.maurer",
    "Bound": "cvxpb.pac_bayes.bounds",
    "BoundProblem": "cvxpb.engine.declare.bound_problem",
    "Certificate": "cvxpb.engine.result",
    "Result": "cvxpb.engine.result",
    "bound_constant": "cvxpb.numerics.constants",
    "DeclarationError": "cvxpb.engine.declare",
    "Minimize": "cvxpb.engine.declare",
    "Posterior": "cvxpb.engine.declare",
    "KL": "cvxpb.engine.declare",
    "chi2": "cvxpb.engine.declare",
    "divergence_term": "cvxpb.engine.declare",
    "Divergence": "cvxpb.pac_bayes.divergences",
    "renyi": "cvxpb.engine.declare",
    "gibbs_risk": "cvxpb.engine.declare",
    "tandem_risk": "cvxpb.engine.declare",
    "disagreement": "cvxpb.engine.declare",
    "kl_inverse": "cvxpb.engine.declare",
    "kl_inverse_lower": "cvxpb.engine.declare",
    "c_bound": "cvxpb.ensemble.atoms",
    "chebyshev_cantelli": "cvxpb.ensemble.atoms",
    "lambda_bound": "cvxpb.ensemble.atoms",
    "sqrt": "cvxpb.engine.declare",
    "log": "cvxpb.engine.declare",
    "exp": "cvxpb.engine.declare",
    "inv": "cvxpb.engine.declare",
    "minimum": "cvxpb.engine.declare",
    "maximum": "cvxpb.engine.declare",
    "union_min": "cvxpb.engine.declare",
}
__all__ = [
    "Bound",
    "bound_constant",
    "c_bound",
    "chebyshev_cantelli",
    "BoundProblem",
    "Certificate",
    "chi2",
    "DeclarationError",
    "disagreement",
    "Divergence",
    "divergence_term",
    "exp",
    "gibbs_risk",
    "inv",
    "KL",
    "kl",
    "kl_inv_lower",
    "kl_inv_upper",
    "kl_inverse",
    "kl_inverse_lower",
    "lambda_bound",
    "log",
    "log_xi",
    "maximum",
    "Minimize",
    "minimum",
    "Posterior",
    "renyi",
    "Result",
    "sqrt",
    "tandem_risk",
    "union_min",
]

if TYPE_CHECKING:
    from cvxpb.engine.declare import (
        KL,
        DeclarationError,
        Minimize,
        Posterior,
        chi2,
        disagreement,
        divergence_term,
        exp,
        gibbs_risk,
        inv,
        kl_inverse,
        kl_inverse_lower,
        log,
        maximum,
        minimum,
        renyi,
        sqrt,
        tandem_risk,
        union_min,
    )
    from cvxpb.engine.declare.bound_problem import BoundProblem
    from cvxpb.engine.result import Certificate, Result
    from cvxpb.ensemble.atoms import c_bound, chebyshev_cantelli, lambda_bound
    from cvxpb.numerics.constants import bound_constant
    from cvxpb.numerics.kl import kl, kl_inv_lower, kl_inv_upper
    from cvxpb.numerics.maurer import log_xi
    from cvxpb.pac_bayes.bounds import Bound
    from cvxpb.pac_bayes.divergences import Divergence


_SUBMODULES = {"datasets": "cvxpb.app.datasets"}  # ``from cvxpb import datasets``


def __getattr__(name: str):
    """Load the public names on first use, so ``import cvxpb`` and ``cvxpb --help``
    stay fast (NumPy, SciPy and CVXPY take most of a second to import)."""
    from importlib import import_module

    if name in _SUBMODULES:
        value = import_module(_SUBMODULES[name])
        globals()[name] = value
        return value
    if name not in _EXPORTS:
        raise AttributeError(f"module 'cvxpb' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_EXPORTS, *_SUBMODULES])
