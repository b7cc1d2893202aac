"""SVM families for PAC-Bayes bounds: Sahu & Hemachandra's stochastic SVM and
the data-dependent priors of Parrado-Hernández et al. (2012)."""

from cvxpb.svm.grid import lambda_grid, linear_grid
from cvxpb.svm.prior_bounds import SVMBound, svm_pac_bayes_bound
from cvxpb.svm.prior_svm import EtaPriorSVM, PriorSVM
from cvxpb.svm.stochastic import StochasticSVM

__all__ = [
    "EtaPriorSVM",
    "PriorSVM",
    "SVMBound",
    "StochasticSVM",
    "lambda_grid",
    "linear_grid",
    "svm_pac_bayes_bound",
]
