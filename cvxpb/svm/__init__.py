"""SVM families for PAC-Bayes bounds (seed 000's stochastic SVM; seed 001's priors)."""

from cvxpb.svm.grid import lambda_grid
from cvxpb.svm.prior_bounds import SVMBound, svm_pac_bayes_bound
from cvxpb.svm.prior_svm import EtaPriorSVM, PriorSVM
from cvxpb.svm.stochastic import StochasticSVM

__all__ = [
    "EtaPriorSVM",
    "PriorSVM",
    "SVMBound",
    "StochasticSVM",
    "lambda_grid",
    "svm_pac_bayes_bound",
]
