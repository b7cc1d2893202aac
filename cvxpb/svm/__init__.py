"""SVM families for PAC-Bayes bounds (seed 000's stochastic SVM; seed 001's priors)."""

from cvxpb.svm.grid import lambda_grid
from cvxpb.svm.stochastic import StochasticSVM

__all__ = ["StochasticSVM", "lambda_grid"]
