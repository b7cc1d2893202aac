"""The minimax probability machine (Lanckriet, El Ghaoui, Bhattacharyya and Jordan, 2002).

A baseline of Farnia & Tse's Table 1, and a second-order cone program. For the two
classes' means ``mu_+, mu_-`` and covariances ``S_+, S_-``, the linear MPM solves

``min ||S_+^(1/2) a|| + ||S_-^(1/2) a||  subject to  a^T (mu_+ - mu_-) = 1``,

and with ``kappa = 1 / optimum`` classifies by ``sign(a^T x - b)``,
``b = a^T mu_+ - kappa ||S_+^(1/2) a||``. Against every distribution with those moments
each class is misclassified with probability at most ``1 / (1 + kappa^2)``
(``worst_case_error_``). ``reg`` adds ``reg * I`` to both covariances (the paper's
robust version, Section 3.1); the square roots come from eigendecompositions.
"""

from __future__ import annotations

from numbers import Real

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.engine.conic import SOLVERS, solve_program
from cvxpb.minimax.program import MinimaxSolverError
from cvxpb.threads import one_blas_thread


class MinimaxProbabilityMachine(ClassifierMixin, BaseEstimator):
    """The linear minimax probability machine for two classes.

    ``reg >= 0`` is added to both covariances. When no solver succeeds, ``fit`` raises
    :class:`cvxpb.minimax.MinimaxSolverError` with each solver's message.

    Parameters
    ----------
    reg : float, default=1e-6
        Added to the diagonal of both class covariances.
    solver : {"auto", "CLARABEL", "ECOS", "SCS"}, default="auto"
        ``"auto"`` tries Clarabel, then ECOS, then SCS; a solver's name uses it alone.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``a``.
    intercept_ : float
        ``-b``.
    kappa_ : float
        The margin of the worst-case bound.
    worst_case_error_ : float
        ``1 / (1 + kappa^2)``.
    status_, solver_ : str
        The solver's status and the solver that answered.
    classes_ : ndarray of shape (2,)
        The classes.
    """

    def __init__(self, reg=1e-6, solver="auto"):
        self.reg = reg
        self.solver = solver

    @one_blas_thread
    def fit(self, X, y):
        """Solve the MPM's second-order cone program.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        MinimaxProbabilityMachine
            The fitted classifier.

        Raises
        ------
        MinimaxSolverError
            When no solver succeeds.
        """
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        if not (isinstance(self.reg, Real) and np.isfinite(self.reg) and self.reg >= 0):
            raise ValueError(f"reg must be a finite number >= 0, got {self.reg!r}")
        if self.solver != "auto" and self.solver not in SOLVERS:
            raise ValueError(f"solver must be 'auto' or one of {SOLVERS}, got {self.solver!r}")
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(
                f"Only binary classification is supported: the MPM needs two classes, "
                f"got {self.classes_.size} class{'es' if self.classes_.size > 1 else ''}"
            )
        if np.min(np.unique(y, return_counts=True)[1]) < 2:
            raise ValueError("the MPM needs at least 2 examples of each class")
        positive, negative = X[y == self.classes_[1]], X[y == self.classes_[0]]
        mean_pos, mean_neg = positive.mean(axis=0), negative.mean(axis=0)
        if np.allclose(mean_pos, mean_neg, rtol=0, atol=1e-12):
            raise ValueError("the two classes have the same mean: no MPM separates them")
        factors = [self._factor(part) for part in (positive, negative)]
        a = cp.Variable(X.shape[1])
        objective = cp.norm(factors[0].T @ a) + cp.norm(factors[1].T @ a)
        problem = cp.Problem(cp.Minimize(objective), [a @ (mean_pos - mean_neg) == 1])
        self.status_, self.solver_ = _solve(problem, self.solver)
        coef = np.asarray(a.value)
        spreads = [float(np.linalg.norm(f.T @ coef)) for f in factors]
        # the objective recomputed from a (not the solver's value), rescaled so that
        # a^T (mu_+ - mu_-) = 1 holds exactly
        scale = float(coef @ (mean_pos - mean_neg))
        self.kappa_ = scale / sum(spreads)
        self.coef_ = coef
        self.intercept_ = -(coef @ mean_pos - self.kappa_ * spreads[0])
        self.worst_case_error_ = 1 / (1 + self.kappa_**2)
        return self

    def _factor(self, part) -> np.ndarray:
        """``L`` with ``L L^T`` the class's covariance (biased) plus ``reg I``."""
        centered = part - part.mean(axis=0)
        covariance = centered.T @ centered / part.shape[0] + self.reg * np.eye(part.shape[1])
        values, vectors = np.linalg.eigh(covariance)
        return vectors * np.sqrt(np.clip(values, 0, None))

    def decision_function(self, X):
        """The scores ``a^T x - b``: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """The class on the side of the hyperplane.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)  # first: unfitted, NotFittedError
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _solve(problem, solver: str) -> tuple[str, str]:
    """``(status, solver)`` of the first solver of ``solver`` (``"auto"``: each of
    :data:`cvxpb.engine.conic.SOLVERS`) that reaches an optimal (or optimal-inaccurate)
    point."""
    outcome = solve_program(problem, SOLVERS if solver == "auto" else (solver,))
    if not outcome.solved:
        raise MinimaxSolverError("the MPM's SOCP was not solved; " + outcome.message)
    return outcome.status, outcome.solver
