"""Gaussian process classification (Kamesawa et al.): EP for probit GPC, SLT-GP, their bound,
and GPC+ (Hernández-Lobato et al., 2014)."""

from cvxpb.gp.classifier import GPClassifierEP
from cvxpb.gp.ep import EPConvergenceWarning
from cvxpb.gp.privileged_noise import GPCPlusClassifier
from cvxpb.gp.slt import SLTGPClassifier

__all__ = ["EPConvergenceWarning", "GPCPlusClassifier", "GPClassifierEP", "SLTGPClassifier"]
