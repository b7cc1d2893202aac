"""cvxpb: PAC-Bayesian bound minimization as disciplined convex programs."""

from cvxpb.bounds import Bound
from cvxpb.constants import bound_constant
from cvxpb.kl import kl, kl_inv_lower, kl_inv_upper
from cvxpb.problem import BoundProblem
from cvxpb.result import Certificate, Result

__all__ = [
    "Bound",
    "BoundProblem",
    "Certificate",
    "Result",
    "bound_constant",
    "kl",
    "kl_inv_lower",
    "kl_inv_upper",
]
__version__ = "0.1.0"
