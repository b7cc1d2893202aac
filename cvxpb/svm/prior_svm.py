"""Parrado-Hernández et al.'s prior SVM and eta-prior SVM as scikit-learn classifiers.

Both split the training set: a part (``prior_fraction``, the paper's r = 50%) trains an
ordinary SVM whose unit weight vector ``w_r`` is the prior direction; the rest trains
the posterior and is the sample the bound is computed on.

* :class:`PriorSVM` (Section 4.1.1): for each scaling ``eta_j`` (``J = n_priors``,
  equally spaced over ``eta_range``) the QP ``min ||w - eta_j w_r||^2/2 + C sum xi``;
  the posterior with the least mixture-prior bound (Corollary 7) is kept.
* :class:`EtaPriorSVM` (Section 4.2): ``eta`` is learnt with the posterior in one QP;
  the bound is the tau-prior bound (Theorem 8, the paper's ``eta = tau = 50``), with the
  mixture bound over 50 scalings in ``[1, 100]`` (the paper's "eta-PSVM + Prior PB")
  reported beside it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.minimax.program import solve_program
from cvxpb.svm.gaussian import KernelVector, from_svc
from cvxpb.svm.prior_bounds import prior_bound
from cvxpb.svm.prior_qp import (
    box_qp,
    eta_prior_qp,
    eta_prior_svm_program,
    kernel_factor,
    prior_svm_program,
    recover_eta,
)
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes, check_delta


def _check_positive(value, name):
    if not (np.isscalar(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


class _PriorSVMBase(BinaryOnly, ClassifierMixin, BaseEstimator):
    def __init__(self, C, C_prior, kernel, gamma, prior_fraction, delta, solver, random_state):
        # the parameters both classifiers take, stored as given (scikit-learn's rule)
        self.C = C
        self.C_prior = C_prior
        self.kernel = kernel
        self.gamma = gamma
        self.prior_fraction = prior_fraction
        self.delta = delta
        self.solver = solver
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the prior and the posterior SVMs and compute the bound.

        BLAS runs on one thread (:mod:`cvxpb.threads`).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        self
            The fitted classifier.
        """
        with one_blas_thread():
            return self._fit(X, y)

    def _prepare(self, X, y):
        """Checks, the split, the prior direction and the posterior part's kernel."""
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, type(self).__name__)
        _check_positive(self.C, "C")
        _check_positive(self.C if self.C_prior is None else self.C_prior, "C_prior")
        if not 0 < self.prior_fraction < 1:
            raise ValueError(f"prior_fraction must lie in (0, 1), got {self.prior_fraction!r}")
        check_delta(self.delta)
        if self.kernel not in ("rbf", "linear"):
            raise ValueError(f"kernel must be 'rbf' or 'linear', got {self.kernel!r}")
        signed = np.where(y == self.classes_[1], 1, -1)
        X_prior, X_post, y_prior, y_post = self._split(X, signed)
        prior_svc = SVC(
            C=self.C if self.C_prior is None else self.C_prior,
            kernel=self.kernel,
            gamma=self.gamma,
        ).fit(X_prior, y_prior)
        w_r = from_svc(prior_svc)
        length = w_r.norm()
        self.prior_ = KernelVector(
            w_r.beta / length, w_r.points, w_r.bias / length, w_r.kernel, w_r.gamma
        )
        K = self.prior_._k(X_post, X_post) + 1.0  # the augmented kernel
        g = self.prior_.scores(X_post)
        return X_post, y_post, K, g

    def _split(self, X, signed):
        stratify = signed if np.min(np.bincount((signed + 1) // 2)) >= 2 else None
        parts = train_test_split(
            X,
            signed,
            train_size=self.prior_fraction,
            stratify=stratify,
            random_state=self.random_state,
        )
        if np.unique(parts[2]).size < 2 or parts[1].shape[0] < 1:
            raise ValueError("the prior part needs examples of both classes; use more data")
        return parts

    def _posterior(self, a, y_post, X_post, eta) -> KernelVector:
        """``w = sum a_i y_i phi~(x_i) + eta w_r`` (eq. 27)."""
        beta = np.concatenate([a * y_post, eta * self.prior_.beta])
        points = np.vstack([X_post, self.prior_.points])
        bias = float(np.sum(a * y_post) + eta * self.prior_.bias)
        return KernelVector(beta, points, bias, self.prior_.kernel, self.prior_.gamma)

    def _bound(self, a, eta, y_post, K, g, etas, tau=None):
        """The bound of ``w = sum a_i y_i phi~(x_i) + eta w_r`` on the posterior part,
        from the augmented kernel ``K`` and ``g = w_r^T phi~(x_i)`` alone (``w_r`` is
        unit): ``||w||^2 = c^T K c + 2 eta c^T g + eta^2`` with ``c = a * y``, the
        scores ``K c + eta g`` and ``w^T w_r = c^T g + eta``."""
        c = a * y_post
        Kc = K @ c
        length = np.sqrt(max(c @ Kc + 2 * eta * (c @ g) + eta**2, 0.0))
        if length == 0:
            raise ValueError("the posterior's weight vector is zero: its margins are undefined")
        margins = y_post * (Kc + eta * g) / (length * np.sqrt(np.diag(K)))
        return prior_bound(margins, (c @ g + eta) / length, etas, self.delta, tau)

    def decision_function(self, X):
        """``w^T phi~(x)``: positive for ``classes_[1]``.

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
        return self.w_.scores(X)

    def predict(self, X):
        """The posterior SVM's labels.

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


class PriorSVM(_PriorSVMBase):
    """The prior SVM of Parrado-Hernández et al. (2012, Section 4.1).

    Selected by the mixture-prior bound.

    Parameters
    ----------
    C : float, default=1.0
        The posterior's trade-off.
    C_prior : float, optional
        The prior SVM's (the "2C" variant); default ``C``.
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel.
    gamma : float or "scale", default="scale"
        The RBF width.
    prior_fraction : float in (0, 1), default=0.5
        The share of the examples the prior SVM trains on.
    n_priors : int, default=10
        ``J``, the scalings ``eta_j``, equally spaced over ``eta_range``.
    eta_range : (float, float), default=(1, 100)
        The scalings' range.
    delta : float in (0, 1), default=0.01
        The confidence.
    solver : {"newton", "CLARABEL", "ECOS", "SCS"}, default="newton"
        ``"newton"``: the dedicated box-QP solver of :mod:`cvxpb.svm.prior_qp`; where it
        does not converge (ill-conditioned kernels with a large ``C``) Clarabel solves that
        QP and ``fallbacks_`` counts it. Else the named CVXPY solver.
    random_state : int, optional
        The prior/posterior split.

    Attributes
    ----------
    bound_, deterministic_bound_, mu_, eta_ : float
        The bound, its deterministic form, the scalings chosen.
    result_ : SVMBound
        The bound and how it was reached.
    w_, prior_ : KernelVector
        The posterior (unit after normalization) and the unit ``w_r``.
    classes_ : ndarray of shape (2,)
        The classes.
    fallbacks_ : int
        QPs the dedicated solver handed to Clarabel.
    """

    def __init__(
        self,
        C=1.0,
        C_prior=None,
        kernel="rbf",
        gamma="scale",
        prior_fraction=0.5,
        n_priors=10,
        eta_range=(1.0, 100.0),
        delta=0.01,
        solver="newton",
        random_state=None,
    ):
        super().__init__(C, C_prior, kernel, gamma, prior_fraction, delta, solver, random_state)
        self.n_priors = n_priors
        self.eta_range = eta_range

    def _fit(self, X, y):
        if not (isinstance(self.n_priors, int | np.integer) and self.n_priors >= 1):
            raise ValueError(f"n_priors must be a positive integer, got {self.n_priors!r}")
        X_post, y_post, K, g = self._prepare(X, y)
        self.fallbacks_ = 0
        etas = np.linspace(*self.eta_range, self.n_priors)
        H = (y_post[:, None] * K) * y_post[None, :]
        L = None if self.solver == "newton" else kernel_factor(K)
        best, a = None, None
        for eta in etas:
            a = self._solve(H, L, y_post, g, eta, a)
            result = self._bound(a, eta, y_post, K, g, etas)
            if best is None or result.bound < best[0].bound:
                best = (result, a, eta)
        self.result_, a, self.eta_ = best
        self.w_ = self._posterior(a, y_post, X_post, self.eta_)
        self.bound_, self.mu_ = self.result_.bound, self.result_.mu
        self.deterministic_bound_ = self.result_.deterministic
        return self

    def _solve(self, H, L, y, g, eta, start=None):
        """The dual (26) at ``eta``; the dedicated solver starts from ``start`` (the last
        scaling's solution)."""
        v = 1 - eta * y * g
        solver = self.solver
        if solver == "newton":
            a, _, converged = box_qp(H, v, self.C, a0=start)
            if converged:
                return a
            # ill-conditioned kernels with a large C: Clarabel takes over, on the record
            self.fallbacks_ += 1
            solver, L = "CLARABEL", kernel_factor(H * np.outer(y, y))
        problem, a = prior_svm_program(L, y, g, eta, self.C)
        solve_program(problem, solver)
        return np.clip(a.value, 0, self.C)


class EtaPriorSVM(_PriorSVMBase):
    """The eta-prior SVM of Parrado-Hernández et al. (2012, Section 4.2).

    The prior's scaling is learnt in the QP. ``solver="newton"`` (default) is
    :func:`~cvxpb.svm.prior_qp.eta_prior_qp`, a root search over ``eta`` through box
    QPs, with Clarabel where it does not converge (counted in ``fallbacks_``); else the
    named CVXPY solver.

    Parameters
    ----------
    C : float, default=1.0
        The posterior's trade-off.
    C_prior : float, optional
        The prior SVM's (the "2C" variant); default ``C``.
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel.
    gamma : float or "scale", default="scale"
        The RBF width.
    prior_fraction : float in (0, 1), default=0.5
        The share of the examples the prior SVM trains on.
    tau : float, default=50.0
        The spread of the bound's tau prior (Theorem 8).
    bound_eta : float, default=50.0
        The scaling of the bound's tau prior.
    delta : float in (0, 1), default=0.01
        The confidence.
    solver : {"newton", "CLARABEL", "ECOS", "SCS"}, default="newton"
        The QP solver.
    random_state : int, optional
        The prior/posterior split.

    Attributes
    ----------
    eta_ : float
        The learnt scaling.
    bound_ : float
        The bound with the tau prior.
    mixture_bound_ : float
        The bound with the mixture of 50 scalings in [1, 100].
    deterministic_bound_, mu_ : float
        The deterministic bound and the posterior's scaling.
    result_ : SVMBound
        The bound and how it was reached.
    w_, prior_ : KernelVector
        The posterior and the unit ``w_r``.
    classes_ : ndarray of shape (2,)
        The classes.
    fallbacks_ : int
        QPs handed to Clarabel.
    """

    def __init__(
        self,
        C=1.0,
        C_prior=None,
        kernel="rbf",
        gamma="scale",
        prior_fraction=0.5,
        tau=50.0,
        bound_eta=50.0,
        delta=0.01,
        solver="newton",
        random_state=None,
    ):
        super().__init__(C, C_prior, kernel, gamma, prior_fraction, delta, solver, random_state)
        self.tau = tau
        self.bound_eta = bound_eta

    def _fit(self, X, y):
        _check_positive(self.tau, "tau")
        X_post, y_post, K, g = self._prepare(X, y)
        self.fallbacks_ = 0
        a, eta = self._solve(K, y_post, g)
        try:
            self.eta_ = recover_eta(a, y_post, K, g, self.C)
        except ValueError:  # no free support vector: the equality's multiplier is eta
            self.eta_ = eta
        self.w_ = self._posterior(a, y_post, X_post, self.eta_)
        self.result_ = self._bound(a, self.eta_, y_post, K, g, [self.bound_eta], self.tau)
        mixture = self._bound(a, self.eta_, y_post, K, g, np.linspace(1.0, 100.0, 50))
        self.bound_, self.mu_ = self.result_.bound, self.result_.mu
        self.mixture_bound_ = mixture.bound
        self.deterministic_bound_ = self.result_.deterministic
        return self

    def _solve(self, K, y, g):
        """``(a, eta)``: the dual's solution and its equality's multiplier."""
        if self.solver == "newton":
            a, eta, converged = eta_prior_qp((y[:, None] * K) * y[None, :], y, g, self.C)
            if converged:
                return a, eta
            self.fallbacks_ += 1  # the prior alone separates the data, or ill-conditioning
        problem, a, balance = eta_prior_svm_program(kernel_factor(K), y, g, self.C)
        solve_program(problem, "CLARABEL" if self.solver == "newton" else self.solver)
        return np.clip(a.value, 0, self.C), float(balance.dual_value)
