"""Gaussian process classification (Kamesawa et al.): EP for probit GPC, SLT-GP, their bound."""

from cvxpb.gp.classifier import GPClassifierEP
from cvxpb.gp.ep import EPConvergenceWarning
from cvxpb.gp.slt import SLTGPClassifier

__all__ = ["EPConvergenceWarning", "GPClassifierEP", "SLTGPClassifier"]
