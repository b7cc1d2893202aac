"""Gaussian process classification (seed 002): EP for the probit GPC; SLT-GP to come."""

from cvxpb.gp.classifier import GPClassifierEP
from cvxpb.gp.ep import EPConvergenceWarning

__all__ = ["EPConvergenceWarning", "GPClassifierEP"]
