"""``GPClassifierEP``: binary GP classification by EP, with empirical-Bayes hyperparameters.

The kernel is RBF, ``amplitude^2 exp(-||x - x'||^2 / (2 length_scale^2))``, or linear,
``amplitude^2 x^T x'`` (the paper's ``sigma^2 x^T x'``). ``fit`` maximizes
the EP log marginal likelihood over ``log amplitude`` and ``log length_scale`` with
L-BFGS-B and the exact gradient at the EP fixed point, warm-starting each EP run from
the previous sites; ``optimize="length_scale"`` keeps the amplitude (Kamesawa et al.'s
Section 5.8 fixes it at 1/4) and ``optimize=False`` keeps both.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.gp.bound import PACBayesMixin
from cvxpb.gp.ep import log_marginal_gradient, predict_latent, predictive_probability, run_ep
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes
from cvxpb.warn import warn_user

BOUNDS = ((np.log(1e-2), np.log(1e2)), (np.log(1e-2), np.log(1e3)))  # log amplitude, log scale


KERNELS = ("rbf", "linear")
OPTIMIZE = (True, False, "length_scale")


class HyperparameterBoundWarning(ConvergenceWarning):
    """The marginal likelihood still rose at the edge of the hyperparameter search."""


def at_search_bound(theta, optimize) -> tuple:
    """Name the hyperparameters the search left on an edge of :data:`BOUNDS`, with a warning.

    There the marginal likelihood still rises, as it does in the amplitude on data the
    latent function separates. Predictions stay usable; the posterior's latent
    variances, and with them any log-loss risk, are then set by the bound.

    Parameters
    ----------
    theta : array_like of shape (2,)
        The log amplitude and log length scale found.
    optimize : bool or "length_scale"
        Which were searched.

    Returns
    -------
    tuple of str
        The names of those at an edge.
    """
    searched = (0, 1) if optimize is True else (1,)  # "length_scale" keeps the amplitude
    found = []
    for k in searched:
        name = ("amplitude", "length_scale")[k]
        for end, side in zip(BOUNDS[k], ("lower", "upper"), strict=True):
            if abs(theta[k] - end) <= 1e-6:
                found.append(name)
                warn_user(
                    f"the {name} reached the {side} end of its search range "
                    f"({np.exp(end):g}): the EP marginal likelihood still rises there, so the "
                    "posterior's latent variances are set by that bound",
                    HyperparameterBoundWarning,
                )
    return tuple(found)


def rbf(X, Z, amplitude, length_scale):
    """The RBF kernel ``amplitude^2 exp(-||x - z||^2 / (2 length_scale^2))``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The first points.
    Z : ndarray of shape (m, d)
        The second points.
    amplitude : float
        The amplitude.
    length_scale : float
        The length scale.

    Returns
    -------
    K : ndarray of shape (n, m)
        The kernel.
    D : ndarray of shape (n, m)
        The squared distances.
    """
    D = cdist(X, Z, "sqeuclidean")
    return amplitude**2 * np.exp(-D / (2 * length_scale**2)), D


def kernel_matrix(kind, X, Z, amplitude, length_scale):
    """The ``rbf`` kernel, or ``linear``: ``amplitude^2 x^T z``.

    Parameters
    ----------
    kind : {"rbf", "linear"}
        The kernel.
    X : ndarray of shape (n, d)
        The first points.
    Z : ndarray of shape (m, d)
        The second points.
    amplitude : float
        The amplitude.
    length_scale : float
        The length scale (unused by ``linear``).

    Returns
    -------
    ndarray of shape (n, m)
        The kernel.
    """
    if kind == "linear":
        return amplitude**2 * (X @ Z.T)
    return rbf(X, Z, amplitude, length_scale)[0]


def fitted_kernel(clf, Z) -> np.ndarray:
    """``k(X_train, Z)`` with a fitted classifier's kernel and hyperparameters.

    Parameters
    ----------
    clf : GPClassifierEP
        A fitted classifier.
    Z : ndarray of shape (m, d)
        The points.

    Returns
    -------
    ndarray of shape (n_train, m)
        The kernel.
    """
    return kernel_matrix(clf.kernel, clf.X_train_, Z, clf.amplitude_, clf.length_scale_)


def kernel_diagonal(kind, X, amplitude):
    """``k(x, x)`` for each row of ``X``.

    Parameters
    ----------
    kind : {"rbf", "linear"}
        The kernel.
    X : ndarray of shape (n, d)
        The points.
    amplitude : float
        The amplitude.

    Returns
    -------
    ndarray of shape (n,)
        The diagonal.
    """
    if kind == "linear":
        return amplitude**2 * np.einsum("ij,ij->i", X, X)
    return np.full(X.shape[0], amplitude**2)


def kernel_derivatives(kind, X, K, length_scale):
    """``dK / d log amplitude`` and ``dK / d log length_scale``.

    Parameters
    ----------
    kind : {"rbf", "linear"}
        The kernel.
    X : ndarray of shape (n, d)
        The points.
    K : ndarray of shape (n, n)
        The kernel matrix.
    length_scale : float
        The length scale.

    Returns
    -------
    list of ndarray
        The two derivatives (the second zero for ``linear``).
    """
    if kind == "linear":
        return [2 * K, np.zeros_like(K)]
    return [2 * K, K * cdist(X, X, "sqeuclidean") / length_scale**2]


class GPClassifierEP(PACBayesMixin, BinaryOnly, ClassifierMixin, BaseEstimator):
    """Binary GP classification with the probit likelihood, by expectation propagation.

    Parameters
    ----------
    kernel : {"rbf", "linear"}, default="rbf"
        ``amplitude^2 exp(-||x - x'||^2 / (2 length_scale^2))`` or ``amplitude^2 x^T x'``.
    amplitude, length_scale : float, default=1.0
        The kernel's; the starting point of the search when ``optimize``.
    optimize : bool or "length_scale", default=True
        Empirical Bayes: maximize the EP marginal likelihood over both, or over the
        length scale only.
    max_sweeps : int, default=100
        EP sweeps; not converging is an :class:`~cvxpb.gp.ep.EPConvergenceWarning`.

    Attributes
    ----------
    classes_, amplitude_, length_scale_, log_marginal_likelihood_, ep_ (the sites),
    n_sweeps_
    at_bound_ : tuple of str
        The hyperparameters the search left at an end of its range (``BOUNDS``), each
        with a :class:`HyperparameterBoundWarning`.
    """

    def __init__(
        self, kernel="rbf", amplitude=1.0, length_scale=1.0, optimize=True, max_sweeps=100
    ):
        self.kernel = kernel
        self.amplitude = amplitude
        self.length_scale = length_scale
        self.optimize = optimize
        self.max_sweeps = max_sweeps

    @one_blas_thread
    def fit(self, X, y):
        """Run EP, with empirical Bayes over the kernel when ``optimize``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        GPClassifierEP
            The fitted classifier.
        """
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, "GPClassifierEP")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")
        for name in ("amplitude", "length_scale"):
            value = getattr(self, name)
            if not (np.isscalar(value) and np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if self.optimize not in OPTIMIZE:
            raise ValueError(f"optimize must be one of {OPTIMIZE}, got {self.optimize!r}")
        signed = np.where(y == self.classes_[1], 1.0, -1.0)
        self.X_train_, self.y_signed_ = X, signed
        theta, warm = np.log([self.amplitude, self.length_scale]), None
        self.at_bound_ = ()
        if self.optimize:
            theta, warm = self._search(X, signed, theta)
            self.at_bound_ = at_search_bound(theta, self.optimize)
        self.amplitude_, self.length_scale_ = np.exp(theta)
        K = kernel_matrix(self.kernel, X, X, self.amplitude_, self.length_scale_)
        self.ep_ = run_ep(K, signed, self.max_sweeps, init=warm)
        self.log_marginal_likelihood_ = self.ep_.log_marginal_likelihood
        self.n_sweeps_ = self.ep_.sweeps
        return self

    def _search(self, X, signed, theta):
        """The hyperparameters by L-BFGS-B on the EP marginal likelihood, each EP run
        warm-started from the last; ``(theta, last EP state)``."""
        last = {}

        def objective(t):
            amplitude, scale = np.exp(t)
            K = kernel_matrix(self.kernel, X, X, amplitude, scale)
            state = run_ep(K, signed, self.max_sweeps, init=last.get("state"))
            last["state"] = state
            derivatives = kernel_derivatives(self.kernel, X, K, scale)
            gradient = log_marginal_gradient(state, K, derivatives)
            return -state.log_marginal_likelihood, -gradient

        bounds = list(BOUNDS)
        if self.optimize == "length_scale":
            bounds[0] = (theta[0], theta[0])
        result = minimize(objective, theta, jac=True, method="L-BFGS-B", bounds=bounds)
        return result.x, last["state"]

    def decision_function(self, X):
        """``mu / sqrt(1 + sigma^2)`` of the latent predictive distribution.

        The probit argument of :meth:`predict_proba`, so its order is the probabilities'
        order and its sign the latent mean's.

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

    def _latent(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        K, K_cross = fitted_kernel(self, self.X_train_), fitted_kernel(self, X)
        diag = kernel_diagonal(self.kernel, X, self.amplitude_)
        return predict_latent(self.ep_, K, K_cross, diag)

    def _prior_marginals(self):
        """The prior's means and variances at the training inputs."""
        X = self.X_train_
        return np.zeros(X.shape[0]), kernel_diagonal(self.kernel, X, self.amplitude_)

    def predict_proba(self, X):
        """``Phi(mu / sqrt(1 + sigma^2))`` for the second class (Rasmussen & Williams, eq. 3.80).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            The probabilities of the two classes.
        """
        positive = predictive_probability(*self._latent(X))
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
