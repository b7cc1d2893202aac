"""``StochasticSVM``: Sahu & Hemachandra's stochastic SVM, a PAC-Bayes posterior over RBF SVMs.

``fit`` trains one SVM per regularization parameter (:mod:`cvxpb.svm.family`), measures
each one's risk on its validation split, and minimizes the chosen PAC-Bayes bound over
posteriors on the SVMs (:func:`cvxpb.BoundProblem`). The stochastic classifier draws an
SVM from the posterior for each prediction; its expected error is :meth:`gibbs_error`,
which the bound covers. ``predict_proba`` is the posterior mass voting for each class,
and ``predict`` the posterior-weighted majority vote.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.engine.declare.bound_problem import BoundProblem
from cvxpb.engine.result import Result
from cvxpb.pac_bayes.bounds import check_bound_choice
from cvxpb.svm.family import fit_family
from cvxpb.svm.grid import check_lambdas, lambda_grid
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes, check_delta


class StochasticSVM(BinaryOnly, ClassifierMixin, BaseEstimator):
    """A PAC-Bayes posterior over RBF SVMs trained on a grid of regularization parameters.

    The setting of Sahu & Hemachandra's experiments.

    Parameters
    ----------
    distance : {"linear", "sq", "kl", "catoni"}, default="sq"
        The distance of the bound.
    divergence : {"chi2", "renyi", "kl"} or Divergence, default="chi2"
        The divergence of the bound: a name, or an object (one of ours, or a user's
        subclass of :class:`cvxpb.Divergence`).
    delta : float in (0, 1), default=0.05
        The confidence.
    lambdas : array_like, optional
        Regularization parameters (``C = 1 / (lam m)``); default :func:`lambda_grid`.
    method : str, default="exact"
        How the bound is minimized (any method of :meth:`cvxpb.Minimize.solve`).
    train_fraction : float, default=0.5
        Share of the data each SVM trains on; the rest measures its risk.
    gamma : float, optional
        RBF width; default kernlab's ``sigest``.
    n_jobs : int, optional
        The number of workers (joblib's) for the SVMs.
    random_state : int, optional
        Seeds the splits.
    progress : bool, default=False
        A progress bar over the SVMs.
    alpha : float, optional
        The Renyi order, with ``divergence="renyi"``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The classes.
    bound_ : float
        The PAC-Bayes bound on the stochastic classifier's true risk.
    posterior_ : ndarray of shape (H,)
        The posterior over the SVMs.
    lambdas_, risks_ : ndarray of shape (H,)
        The grid and the SVMs' validation risks.
    gamma_ : float
        The RBF width used.
    result_ : cvxpb.Result
        The bound's minimization.
    """

    def __init__(
        self,
        distance="sq",
        divergence="chi2",
        delta=0.05,
        lambdas=None,
        method="exact",
        train_fraction=0.5,
        gamma=None,
        n_jobs=None,
        random_state=None,
        progress=False,
        alpha=None,
    ):
        self.distance = distance
        self.divergence = divergence
        self.delta = delta
        self.lambdas = lambdas
        self.method = method
        self.train_fraction = train_fraction
        self.gamma = gamma
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.alpha = alpha
        self.progress = progress

    @one_blas_thread
    def fit(self, X, y):
        """Train the SVMs and minimize the bound over posteriors on them.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        StochasticSVM
            The fitted classifier.
        """
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, "StochasticSVM")
        signed = np.where(y == self.classes_[1], 1, -1)
        check_delta(self.delta)  # before the SVMs are trained, as the bound's words:
        check_bound_choice(self.distance, self.divergence, self.alpha)
        self.lambdas_ = lambda_grid() if self.lambdas is None else check_lambdas(self.lambdas)
        family = fit_family(
            X,
            signed,
            self.lambdas_,
            self.train_fraction,
            self.gamma,
            self.n_jobs,
            self.random_state,
            self.progress,
        )
        problem = BoundProblem(
            family.risks, family.m, self.delta, self.distance, self.divergence, alpha=self.alpha
        )
        self.family_, self.risks_, self.gamma_ = family, family.risks, family.gamma
        self.result_ = problem.solve(self.method)
        self.bound_, self.posterior_ = self.result_.bound, self.result_.posterior
        return self

    def predict_proba(self, X):
        """The posterior mass of the SVMs voting for each class.

        Only SVMs with positive weight are evaluated.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            The masses, rows summing to 1.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        positive = self._positive_mass(X, self.posterior_ > 0)
        return np.column_stack([1 - positive, positive])

    def predict(self, X):
        """The posterior-weighted majority vote, exactly.

        The SVMs holding all but ``1e-6`` of the posterior mass vote first. A point whose
        vote could still turn with the rest (its margin from 1/2 is within their mass) is
        decided by every SVM of positive weight.

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
        X = validate_data(self, X, reset=False)
        heavy = self.posterior_ > Result.SUPPORT_MASS / self.posterior_.size
        light = (self.posterior_ > 0) & ~heavy
        positive = self._positive_mass(X, heavy)
        unsure = np.abs(positive - 0.5) <= self.posterior_[light].sum()
        if np.any(unsure) and np.any(light):
            positive[unsure] += self._positive_mass(X[unsure], light)
        return self.classes_[(positive > 0.5).astype(int)]

    def _positive_mass(self, X, which) -> np.ndarray:
        return (self.family_.votes(X, which) == 1) @ self.posterior_[which]

    def gibbs_error(self, X, y) -> float:
        """The stochastic classifier's expected error ``sum_i q_i err_i`` on ``(X, y)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        float
            The Gibbs error.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        signed = np.where(np.asarray(y) == self.classes_[1], 1, -1)
        which = self.posterior_ > 0
        errors = np.mean(self.family_.votes(X, which) != signed[:, None], axis=0)
        return float(errors @ self.posterior_[which])
