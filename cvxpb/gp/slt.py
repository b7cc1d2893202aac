"""SLT-GP (Kamesawa et al.): GP classification with privileged information by soft-label transfer.

A GPC on the privileged features ``X*`` gives soft labels ``s`` (its posterior mean at
the training points, Section 2.2). The source latent ``f_S`` (``s_i ~ N(f_S(x_i), 1)``)
and the target latent ``f_T`` (``y_i ~ Phi(f_T(x_i))``) share the GP prior with
cross-covariance ``rho k`` (eq. 2). The soft labels' sites are exact Gaussians, so EP
over the joint with only the target sites approximated (eqs. 8-18) is EP for ``f_T``
under the prior conditioned on ``s`` (the paper's eqs. 37-39, with the unit noise of the
source likelihood):

``m = rho K (K + I)^-1 s``, ``C = K - rho^2 K (K + I)^-1 K``,

and that EP's log marginal likelihood is ``log p(y, s) - log p(s) = log p(y | s)``, the
conditional marginal likelihood of eq. (25). Empirical Bayes sets the kernel by the
plain GPC on ``X`` and then ``rho in [0, 1]`` by L-BFGS-B with the exact derivative
(its ``_search`` says why not all at once). With ``rho = 0`` this is
plain GPC on ``X``.
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.optimize import minimize
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.gp.bound import PACBayesMixin
from cvxpb.gp.classifier import (
    KERNELS,
    GPClassifierEP,
    fitted_kernel,
    kernel_diagonal,
    kernel_matrix,
)
from cvxpb.gp.ep import log_marginal_gradient, predict_latent, run_ep
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes, check_privileged


def conditional_prior(K, s, rho):
    """The target latent's prior given the soft labels (Kamesawa et al.).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel on ``X``.
    s : ndarray of shape (n,)
        The soft labels.
    rho : float
        The task similarity.

    Returns
    -------
    m : ndarray of shape (n,)
        The prior mean ``rho K G s``.
    C : ndarray of shape (n, n)
        The prior covariance ``K - rho^2 K G K``.
    G : ndarray of shape (n, n)
        ``(K + I)^-1``.
    """
    G = np.linalg.inv(K + np.eye(K.shape[0]))
    KG = K @ G
    return rho * KG @ s, K - rho**2 * KG @ K, G


class SLTGPClassifier(PACBayesMixin, BinaryOnly, ClassifierMixin, BaseEstimator):
    """Soft-label-transfer GP classification (Kamesawa et al.).

    ``fit(X, y, X_star)`` takes the privileged features ``X_star`` of the training
    examples.

    Parameters
    ----------
    rho : float in [0, 1], default=0.5
        Task similarity; the starting point of the search when ``optimize``.
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel on ``X``.
    privileged_kernel : {"rbf", "linear"}, default="rbf"
        The kernel on ``X_star``.
    amplitude : float, default=1.0
        The kernel's amplitude on ``X`` (the search's start).
    length_scale : float, default=1.0
        The kernel's length scale on ``X`` (the search's start).
    optimize : bool or "length_scale", default=True
        Empirical Bayes: the kernel as the plain GPC's on ``X``, then ``rho`` (and the
        privileged GPC's kernel by its own); ``"length_scale"`` keeps ``amplitude`` on
        ``X``; ``False`` keeps the given values (the privileged GPC then uses a unit
        kernel).
    max_sweeps : int, default=100
        EP sweeps at most.

    Attributes
    ----------
    rho_, amplitude_, length_scale_ : float
        The values found.
    soft_labels_ : ndarray of shape (n_samples,)
        The privileged GPC's soft labels.
    privileged_ : GPClassifierEP
        The GPC on the privileged features.
    at_bound_ : tuple of str
        The kernel hyperparameters on ``X`` left at an end of their search range (see
        :class:`cvxpb.gp.classifier.HyperparameterBoundWarning`).
    log_marginal_likelihood_ : float
        Eq. (25), conditional on the soft labels.
    ep_ : EPState
        The sites.
    classes_ : ndarray of shape (2,)
        The classes.
    """

    def __init__(
        self,
        rho=0.5,
        kernel="rbf",
        privileged_kernel="rbf",
        amplitude=1.0,
        length_scale=1.0,
        optimize=True,
        max_sweeps=100,
    ):
        self.rho = rho
        self.kernel = kernel
        self.privileged_kernel = privileged_kernel
        self.amplitude = amplitude
        self.length_scale = length_scale
        self.optimize = optimize
        self.max_sweeps = max_sweeps

    @one_blas_thread
    def fit(self, X, y, X_star=None):
        """Fit the privileged GPC, its soft labels, then the target GPC.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.
        X_star : array_like of shape (n_samples, n_privileged), optional
            The privileged features of the training examples; ``X`` itself without them
            (the soft labels then come from a GPC on the same features).

        Returns
        -------
        SLTGPClassifier
            The fitted classifier.
        """
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, "SLTGPClassifier")
        for name in ("kernel", "privileged_kernel"):
            if getattr(self, name) not in KERNELS:
                raise ValueError(f"{name} must be one of {KERNELS}, got {getattr(self, name)!r}")
        if not (np.isscalar(self.rho) and 0 <= self.rho <= 1):
            raise ValueError(f"rho must lie in [0, 1], got {self.rho!r}")
        signed = np.where(y == self.classes_[1], 1.0, -1.0)
        X_star = X if X_star is None else check_privileged(X, X_star)
        self.privileged_ = GPClassifierEP(
            self.privileged_kernel, optimize=bool(self.optimize), max_sweeps=self.max_sweeps
        )
        self.privileged_.fit(X_star, y)
        self.soft_labels_ = self.privileged_._latent(X_star)[0]
        theta = np.array([np.log(self.amplitude), np.log(self.length_scale), self.rho])
        warm, self.at_bound_ = None, ()
        if self.optimize:
            theta, warm = self._search(X, y, signed, theta)
        self.amplitude_, self.length_scale_ = np.exp(theta[:2])
        self.rho_ = float(theta[2])
        K = kernel_matrix(self.kernel, X, X, self.amplitude_, self.length_scale_)
        m, C, self.G_ = conditional_prior(K, self.soft_labels_, self.rho_)
        self.ep_ = run_ep(C, signed, self.max_sweeps, init=warm, offset=m)
        self.y_signed_ = signed
        self.C_ = C
        self.log_marginal_likelihood_ = self.ep_.log_marginal_likelihood
        self.X_train_ = X
        return self

    def _search(self, X, y, signed, theta):
        """Two stages: the kernel by the plain GPC's empirical Bayes on ``X`` (SLT-GP at
        ``rho = 0``), then ``rho`` by the conditional marginal likelihood (L-BFGS-B on
        ``[0, 1]`` with its exact derivative). Searching all three at once runs off to
        interpolating the soft labels (length scale -> 0, rho -> 1): they are in-sample
        posterior means of a GPC fitted to ``y``, so they explain ``y`` at the training
        points whatever the kernel does between them. Returns ``(theta, last EP state)``."""
        plain = GPClassifierEP(
            self.kernel, *np.exp(theta[:2]), optimize=self.optimize, max_sweeps=self.max_sweeps
        )
        plain.fit(X, y)
        self.at_bound_ = plain.at_bound_
        amplitude, scale = plain.amplitude_, plain.length_scale_
        K = kernel_matrix(self.kernel, X, X, amplitude, scale)
        s = self.soft_labels_
        G = np.linalg.inv(K + np.eye(K.shape[0]))
        KG = K @ G
        last = {}

        def objective(t):
            rho = t[0]
            m, C = rho * KG @ s, K - rho**2 * KG @ K
            state = run_ep(C, signed, self.max_sweeps, init=last.get("state"), offset=m)
            last["state"] = state
            gradient = log_marginal_gradient(state, C, [-2 * rho * KG @ K], [KG @ s])
            return -state.log_marginal_likelihood, -gradient

        result = minimize(objective, [theta[2]], jac=True, method="L-BFGS-B", bounds=[(0, 1)])
        return np.array([np.log(amplitude), np.log(scale), result.x[0]]), last["state"]

    def with_rho(self, rho) -> SLTGPClassifier:
        """A copy with the task similarity set to ``rho``, its EP rerun.

        Everything else is kept (the kernel, the soft labels): for scanning ``rho``
        (Figure 2).

        Parameters
        ----------
        rho : float in [0, 1]
            The task similarity.

        Returns
        -------
        SLTGPClassifier
            The copy, fitted.
        """
        check_is_fitted(self)
        if not (np.isscalar(rho) and 0 <= rho <= 1):
            raise ValueError(f"rho must lie in [0, 1], got {rho!r}")
        other = copy.copy(self)
        K = fitted_kernel(self, self.X_train_)
        m, other.C_, other.G_ = conditional_prior(K, self.soft_labels_, rho)
        other.ep_ = run_ep(other.C_, self.y_signed_, self.max_sweeps, init=self.ep_, offset=m)
        other.rho_ = float(rho)
        other.log_marginal_likelihood_ = other.ep_.log_marginal_likelihood
        return other

    def _latent(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        k_cross, K = fitted_kernel(self, X), fitted_kernel(self, self.X_train_)
        prior_mean = self.rho_ * k_cross.T @ (self.G_ @ self.soft_labels_)
        C_cross = k_cross - self.rho_**2 * K @ self.G_ @ k_cross
        C_diag = kernel_diagonal(self.kernel, X, self.amplitude_) - self.rho_**2 * np.sum(
            k_cross * (self.G_ @ k_cross), axis=0
        )
        mean, var = predict_latent(self.ep_, self.C_, C_cross, C_diag)
        return prior_mean + mean, var

    def _prior_marginals(self):
        """The conditional prior's means and variances at the training inputs."""
        K = fitted_kernel(self, self.X_train_)
        return self.rho_ * K @ (self.G_ @ self.soft_labels_), np.diag(self.C_)

    def decision_function(self, X):
        """``mu / sqrt(1 + sigma^2)`` of the target latent (eq. 23's argument).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores.
        """
        mean, var = self._latent(X)
        return mean / np.sqrt(1 + var)

    def predict_proba(self, X):
        """Eq. (23): ``Phi(mu / sqrt(1 + sigma^2))`` for the second class.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            The probabilities of the two classes.
        """
        positive = norm.cdf(self.decision_function(X))
        return np.column_stack([1 - positive, positive])

    def predict(self, X):
        """The more probable class.

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
