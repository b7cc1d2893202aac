"""The cross-validation baseline of Sahu & Hemachandra, Section 8.2: k-fold CV over the same grid.

:class:`LambdaSVC` is an RBF SVM parametrized like the stochastic SVM's family, by
``lam`` with ``C = 1 / (lam n)`` for the ``n`` examples it is fitted on (or ``C = 1 / lam``
with ``cost="1/lam"``), so that a
fold's SVM and the family's SVM with the same ``lam`` solve the same kind of problem.
:func:`cross_validate` picks the ``lam`` of lowest mean CV error with scikit-learn's
``GridSearchCV`` and refits it on all the data it was given.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.svm.family import sigest
from cvxpb.svm.grid import COSTS, check_cost, check_lambdas, svm_C
from cvxpb.threads import one_blas_thread


class LambdaSVC(ClassifierMixin, BaseEstimator):
    """An RBF SVM with ``C = 1 / (lam n)``, ``n`` the number of examples it is fitted on.

    Parameters
    ----------
    lam : float, default=1.0
        The regularization parameter (finite, positive).
    gamma : float, default=1.0
        The RBF width in ``exp(-gamma ||x - x'||^2)``.
    cost : {"1/(lam n)", "1/lam"}, default="1/(lam n)"
        How ``lam`` becomes libsvm's ``C`` (:data:`cvxpb.svm.grid.COSTS`).
    """

    def __init__(self, lam=1.0, gamma=1.0, cost=COSTS[0]):
        self.lam = lam
        self.gamma = gamma
        self.cost = cost

    @one_blas_thread
    def fit(self, X, y):
        """Fit scikit-learn's ``SVC`` with the ``C`` of ``lam``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels.

        Returns
        -------
        LambdaSVC
            The fitted classifier.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr")
        check_classification_targets(y)
        if not (isinstance(self.lam, Real) and self.lam > 0 and np.isfinite(self.lam)):
            raise ValueError(f"lam must be a finite number > 0, got {self.lam!r}")
        C = svm_C(self.lam, len(y), check_cost(self.cost))
        self.svc_ = SVC(C=C, kernel="rbf", gamma=self.gamma).fit(X, y)
        self.classes_ = self.svc_.classes_
        return self

    def predict(self, X):
        """The SVM's labels.

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
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return self.svc_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def cross_validate(
    X, y, lambdas, folds: int = 5, gamma=None, n_jobs=None, random_state=None, cost=COSTS[0]
) -> GridSearchCV:
    """Cross-validate :class:`LambdaSVC` over ``lambdas`` (stratified, shuffled folds).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The examples.
    y : array_like of shape (n_samples,)
        The labels.
    lambdas : array_like
        The regularization parameters to try.
    folds : int, default=5
        The folds.
    gamma : float, optional
        The RBF width; by default :func:`cvxpb.svm.family.sigest` on ``X``.
    n_jobs : int, optional
        The number of workers (joblib's).
    random_state : int, Generator or None, default=None
        Seeds the folds and the width.
    cost : {"1/(lam n)", "1/lam"}, default="1/(lam n)"
        How ``lam`` becomes libsvm's ``C`` (:data:`cvxpb.svm.grid.COSTS`).

    Returns
    -------
    GridSearchCV
        Fitted: ``best_params_["lam"]``, ``cv_results_``, ``best_estimator_`` (refitted on
        all of ``X``), and the attribute ``seconds_``, the wall time of the search and the
        refit.
    """
    lambdas, cost = check_lambdas(lambdas), check_cost(cost)
    if not (isinstance(folds, int | np.integer) and folds >= 2):
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
    start = time.perf_counter()
    gamma = sigest(X, random_state=random_state) if gamma is None else float(gamma)
    search = GridSearchCV(
        LambdaSVC(gamma=gamma, cost=cost),
        {"lam": list(lambdas)},
        cv=StratifiedKFold(folds, shuffle=True, random_state=random_state),
        n_jobs=n_jobs,
        error_score="raise",
    ).fit(X, y)
    search.seconds_ = time.perf_counter() - start
    return search
