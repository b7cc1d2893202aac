"""Gaussian posteriors over linear classifiers in feature space (Parrado-Hernández et
al., 2012, Section 2).

A (kernel) SVM is the linear function ``f(x) = w^T phi(x) + b``. With the bias as one
more coordinate, ``w~ = (w, b)`` and ``phi~(x) = (phi(x), 1)``, it is a homogeneous
classifier ``sign(w~^T phi~(x))`` as the paper assumes (with ``b = 0`` exactly the paper's
setting). The posterior ``Q(w, mu) = N(mu w, I)`` around the unit vector ``w = w~/||w~||``
has the stochastic empirical error (eq. 2)

``Q_S(w, mu) = E_m[1 - Phi(mu gamma(x, y))]``, ``gamma = y w^T phi~(x) / ||phi~(x)||`` (eq. 3),

and every Gaussian the paper compares with it differs from it only along one or two
unit directions, so each KL needs only inner products of unit vectors:
:class:`KernelVector` keeps ``sum_i beta_i phi~(z_i)`` and computes them with the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr
from sklearn.metrics.pairwise import pairwise_kernels


@dataclass(frozen=True, eq=False)
class KernelVector:
    """``v = sum_i beta_i phi(z_i) + (0, ..., 0, bias)`` in the augmented feature space.

    Parameters
    ----------
    beta : ndarray of shape (k,)
        The coefficients.
    points : ndarray of shape (k, n_features)
        The points ``z_i``.
    bias : float
        The last coordinate.
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel.
    gamma : float, optional
        The RBF width.
    """

    beta: np.ndarray
    points: np.ndarray
    bias: float
    kernel: str = "rbf"
    gamma: float | None = None

    def _k(self, A, B):
        params = {} if self.kernel == "linear" or self.gamma is None else {"gamma": self.gamma}
        return pairwise_kernels(A, B, metric=self.kernel, **params)

    def scores(self, X) -> np.ndarray:
        """``v^T phi~(x)`` for each row of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores.
        """
        return self._k(np.asarray(X, dtype=float), self.points) @ self.beta + self.bias

    def dot(self, other: KernelVector) -> float:
        """The inner product with another vector of the same kernel.

        Parameters
        ----------
        other : KernelVector
            The other vector.

        Returns
        -------
        float
            ``v^T other``.
        """
        return float(self.beta @ self._k(self.points, other.points) @ other.beta) + (
            self.bias * other.bias
        )

    def norm(self) -> float:
        """The Euclidean norm.

        Returns
        -------
        float
            ``||v||``.
        """
        return float(np.sqrt(max(self.dot(self), 0.0)))

    def feature_norms(self, X) -> np.ndarray:
        """``||phi~(x)|| = sqrt(k(x, x) + 1)`` for each row of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The norms.
        """
        X = np.asarray(X, dtype=float)
        if self.kernel == "rbf":
            diagonal = np.ones(X.shape[0])  # k(x, x) = exp(0)
        elif self.kernel == "linear":
            diagonal = np.einsum("ij,ij->i", X, X)
        else:
            raise ValueError(f"kernel must be 'rbf' or 'linear', got {self.kernel!r}")
        return np.sqrt(diagonal + 1.0)


def from_svc(svc) -> KernelVector:
    """The weight vector ``w~ = (sum alpha_i y_i phi(x_i), b)`` of a fitted binary ``SVC``.

    Parameters
    ----------
    svc : sklearn.svm.SVC
        A fitted binary SVC.

    Returns
    -------
    KernelVector
        Its ``scores`` are ``svc.decision_function``.
    """
    if len(svc.classes_) != 2:
        raise ValueError("the Gaussian-posterior bounds are for binary SVMs")
    gamma = getattr(svc, "_gamma", None)
    return KernelVector(
        np.asarray(svc.dual_coef_[0], dtype=float),
        np.asarray(svc.support_vectors_, dtype=float),
        float(svc.intercept_[0]),
        svc.kernel,
        gamma,
    )


def mean_vector(X, y, kernel="rbf", gamma=None) -> KernelVector:
    """``w_p^ = (1/m) sum_i y_i phi~(x_i)``, the expectation prior's estimate (Section 3.2).

    Parameters
    ----------
    X : array_like of shape (m, n_features)
        The examples.
    y : array_like of shape (m,)
        Their labels in {-1, +1}.
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel.
    gamma : float, optional
        The RBF width.

    Returns
    -------
    KernelVector
        The estimate.
    """
    y = np.asarray(y, dtype=float)
    return KernelVector(y / y.size, np.asarray(X, dtype=float), float(y.mean()), kernel, gamma)


def normalized_margins(w: KernelVector, X, y) -> np.ndarray:
    """The normalized margins ``gamma(x, y) = y w~^T phi~(x) / (||w~|| ||phi~(x)||)`` (eq. 3).

    Parameters
    ----------
    w : KernelVector
        The weight vector.
    X : array_like of shape (n_samples, n_features)
        The examples.
    y : array_like of shape (n_samples,)
        Their labels in {-1, +1}.

    Returns
    -------
    ndarray of shape (n_samples,)
        The margins, in [-1, 1].
    """
    length = w.norm()
    if length == 0:
        raise ValueError("the classifier's weight vector is zero: its margins are undefined")
    return np.asarray(y) * w.scores(X) / (length * w.feature_norms(X))


def stochastic_error(margins, mu) -> np.ndarray:
    """The stochastic classifier's empirical error ``Q_S(w, mu) = mean(1 - Phi(mu gamma))`` (eq. 2).

    Parameters
    ----------
    margins : ndarray of shape (n_samples,)
        The normalized margins.
    mu : float or array_like
        The scalings.

    Returns
    -------
    ndarray
        ``Q_S`` at each ``mu``.
    """
    mu = np.atleast_1d(np.asarray(mu, dtype=float))
    return ndtr(-mu[:, None] * np.asarray(margins)[None, :]).mean(axis=1)


def kl_gaussians(mean0, cov0, mean1, cov1) -> float:
    """``KL(N(mean0, cov0) || N(mean1, cov1))`` (eq. 6), for checking the closed forms.

    Parameters
    ----------
    mean0 : ndarray of shape (d,)
        The first Gaussian's mean.
    cov0 : ndarray of shape (d, d)
        Its covariance (positive definite).
    mean1 : ndarray of shape (d,)
        The second Gaussian's mean.
    cov1 : ndarray of shape (d, d)
        Its covariance (positive definite).

    Returns
    -------
    float
        The divergence.
    """
    cov1_inv = np.linalg.inv(cov1)
    diff = np.asarray(mean1) - np.asarray(mean0)
    _, logdet0 = np.linalg.slogdet(cov0)
    _, logdet1 = np.linalg.slogdet(cov1)
    return 0.5 * (
        logdet1 - logdet0 + np.trace(cov1_inv @ cov0) + diff @ cov1_inv @ diff - len(diff)
    )


def kl_shifted(mu, eta, cosine):
    """``KL(N(mu w, I) || N(eta w_r, I)) = ||mu w - eta w_r||^2 / 2`` (Corollary 5).

    For unit ``w, w_r`` with ``w^T w_r = cosine``, written as the squares of the parts
    along and across ``w_r``: the expanded ``mu^2 - 2 mu eta cosine + eta^2`` cancels to
    a negative value near ``mu = eta`` when the two align, which would understate the
    bound.

    Parameters
    ----------
    mu : float or ndarray
        The posterior's scaling.
    eta : float or ndarray
        The prior's scaling.
    cosine : float
        ``w^T w_r``.

    Returns
    -------
    float or ndarray
        The divergence (at least 0).
    """
    return 0.5 * ((mu * cosine - eta) ** 2 + mu**2 * _sine_squared(cosine))


def _sine_squared(cosine):
    """``1 - cosine^2``, never below 0 (a cosine may exceed 1 by rounding)."""
    return np.maximum(1 - np.square(cosine), 0.0)


def kl_tau(mu, eta, cosine, tau):
    """KL between ``N(mu w, I)`` and the prior of Theorem 8.

    The prior has mean ``eta w_r``, variance ``tau^2`` along ``w_r`` and 1 across it.

    Parameters
    ----------
    mu : float or ndarray
        The posterior's scaling.
    eta : float or ndarray
        The prior's scaling.
    cosine : float
        ``w^T w_r``.
    tau : float
        The prior's spread along ``w_r``.

    Returns
    -------
    float or ndarray
        The divergence (at least 0).
    """
    parallel = mu * cosine - eta  # P_par(mu w - eta w_r)
    across = mu**2 * _sine_squared(cosine)  # P_perp(mu w)^2
    x = tau**-2.0
    spread = max(x - 1 - np.log(x), 0.0)  # >= 0; rounding near tau = 1 could undercut it
    return 0.5 * (spread + parallel**2 / tau**2 + across)
