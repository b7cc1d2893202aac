"""GPC+: GP classification with privileged noise (Hernández-Lobato et al., 2014).

The baseline of Kamesawa et al.'s Table 3 and Figure 1. The label is
``y = sign(f(x) + e)`` with ``e ~ N(0, exp(g(x*)))``: the privileged features ``x*``
set the noise level, so

``p(y | f, g) = Phi(y f exp(-g / 2))``,  ``f ~ GP(0, k)``,  ``g ~ GP(mu_g, k*)``.

EP approximates each likelihood term by a Gaussian site in ``f_i`` times one in ``g_i``.
The tilted moments need one integral: ``f`` integrates out in closed form,
``int Phi(y f exp(-g/2)) N(f | m, v) df = Phi(y m / sqrt(exp(g) + v))``, and the rest is
a Gauss-Hermite quadrature over ``g``'s cavity. Sweeps are parallel and damped, one
Cholesky factorization per GP (site precisions are kept non-negative: see
:func:`run_ep_plus`).
The EP marginal likelihood is ``sum_i log Z_i`` plus one
:func:`cvxpb.gp.ep.gaussian_terms` per GP. With ``k* = 0`` and ``mu_g = 0`` the
noise variance is 1 and GPC+ is the probit GPC of :mod:`cvxpb.gp.ep` (tested).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.optimize import minimize
from scipy.spatial.distance import pdist
from scipy.special import log_ndtr, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.gp.classifier import (
    BOUNDS,
    KERNELS,
    GPClassifierEP,
    kernel_diagonal,
    kernel_matrix,
    rbf,
)
from cvxpb.gp.ep import (
    EPConvergenceWarning,
    EPState,
    gaussian_terms,
    marginals,
    predict_latent,
)
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes, check_privileged
from cvxpb.warn import warn_user

NODES, WEIGHTS = hermegauss(64)  # probabilists' Gauss-Hermite: int h(x) N(x|0,1) dx
LOG_WEIGHTS = np.log(WEIGHTS / np.sqrt(2 * np.pi))
DAMPING = 0.5  # share of the new site parameters taken in a sweep
TOL = 1e-7


def tilted_moments(y, mean_f, var_f, mean_g, var_g):
    """The moments of ``Phi(y f exp(-g/2))`` times the cavity, for arrays of sites.

    The cavity is ``N(f | mean_f, var_f) N(g | mean_g, var_g)``.

    Parameters
    ----------
    y : ndarray
        The labels in {-1, +1}.
    mean_f : ndarray
        The cavity means of ``f``.
    var_f : ndarray
        The cavity variances of ``f``.
    mean_g : ndarray
        The cavity means of ``g``.
    var_g : ndarray
        The cavity variances of ``g``.

    Returns
    -------
    tuple of ndarray
        ``(mean_f, var_f, mean_g, var_g, log_z)`` of the tilted distribution.
    """
    g = mean_g[:, None] + np.sqrt(var_g)[:, None] * NODES[None, :]
    scale = np.sqrt(np.exp(np.minimum(g, 700.0)) + var_f[:, None])  # e^700 ~ 1e304: no inf
    z = (y * mean_f)[:, None] / scale
    log_phi = log_ndtr(z)
    log_z = logsumexp(LOG_WEIGHTS + log_phi, axis=1)
    share = np.exp(LOG_WEIGHTS + log_phi - log_z[:, None])  # posterior weight of each node
    ratio = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_phi)  # N(z) / Phi(z)
    f_mean = mean_f[:, None] + (y * var_f)[:, None] * ratio / scale  # E[f | g]
    f_var = var_f[:, None] - var_f[:, None] ** 2 * ratio * (z + ratio) / scale**2
    mean_f_new = np.sum(share * f_mean, axis=1)
    var_f_new = np.sum(share * (f_var + f_mean**2), axis=1) - mean_f_new**2
    mean_g_new = np.sum(share * g, axis=1)
    var_g_new = np.sum(share * g**2, axis=1) - mean_g_new**2
    return mean_f_new, var_f_new, mean_g_new, var_g_new, log_z


@dataclass(frozen=True, eq=False)
class PlusState:
    """The sites of ``f`` and of ``h = g - mean_g``, the likelihood, sweeps and convergence.

    Parameters
    ----------
    f : EPState
        ``f``'s sites (carrying the shared marginal likelihood).
    h : EPState
        ``h``'s sites.
    log_marginal_likelihood : float
        ``log Z_EP`` of the two.
    sweeps : int
        The sweeps run.
    converged : bool
        Whether the marginals settled.
    """

    f: EPState
    h: EPState
    log_marginal_likelihood: float
    sweeps: int
    converged: bool


def _cavity(tau, nu, variances, means):
    return 1 / variances - tau, means / variances - nu


@one_blas_thread
def run_ep_plus(K, K_star, y, mean_g=0.0, max_sweeps=500, tol=TOL, init=None):
    """EP for GPC+ on the kernels of ``x`` and of ``x*``.

    Site precisions are kept non-negative. ``f``'s likelihood is log-concave, so its
    sites never need more; ``g``'s is not, and where its tilted variance exceeds the
    cavity's the site stays flat (precision 0) instead of turning the posterior
    improper, so those sites match the tilted mean but not the variance. Sweeps stop
    when no posterior marginal moves more than ``tol``; not converging is an
    :class:`EPConvergenceWarning`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel of ``x``.
    K_star : ndarray of shape (n, n)
        The kernel of ``x*``.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    mean_g : float, default=0.0
        ``g``'s prior mean.
    max_sweeps : int, default=500
        Sweeps at most.
    tol : float, default=TOL
        The largest marginal change at which it stops.
    init : PlusState, optional
        Another run's sites to start from.

    Returns
    -------
    PlusState
        The sites and the marginal likelihood.
    """
    n = y.size
    sites = (
        np.zeros(4 * n)
        if init is None
        else np.concatenate([init.f.tau, init.f.nu, init.h.tau, init.h.nu])
    )
    previous, sweeps, change = None, 0, np.inf
    while True:
        tau_f, nu_f, tau_h, nu_h = np.split(sites, 4)
        var_f, mu_f, _ = marginals(K, tau_f, nu_f)
        var_h, mu_h, _ = marginals(K_star, tau_h, nu_h)
        current = np.concatenate([mu_f, var_f, mu_h, var_h])
        if previous is not None:
            change = np.abs(current - previous).max()
        if change < tol or sweeps == max_sweeps:
            break
        previous, sweeps = current, sweeps + 1
        cav_f, cav_h = _cavity(tau_f, nu_f, var_f, mu_f), _cavity(tau_h, nu_h, var_h, mu_h)
        proper = (cav_f[0] > 0) & (cav_h[0] > 0)
        safe_f, safe_h = np.where(proper, cav_f[0], 1.0), np.where(proper, cav_h[0], 1.0)
        m_f, v_f, m_g, v_g, _ = tilted_moments(
            y, cav_f[1] / safe_f, 1 / safe_f, cav_h[1] / safe_h + mean_g, 1 / safe_h
        )
        tau_f, tau_h = np.maximum(1 / v_f - safe_f, 0.0), np.maximum(1 / v_g - safe_h, 0.0)
        proposal = np.concatenate(  # each site puts its marginal's mean at the tilted mean
            [
                tau_f,
                m_f * (safe_f + tau_f) - cav_f[1],
                tau_h,
                (m_g - mean_g) * (safe_h + tau_h) - cav_h[1],
            ]
        )
        proposal = np.where(np.tile(proper, 4), proposal, sites)
        sites = sites + DAMPING * (proposal - sites)
    converged = change < tol
    if not converged:
        warn_user(
            f"GPC+ EP did not converge in {max_sweeps} sweeps (last change {change:.2e})",
            EPConvergenceWarning,
        )
    return _state(K, K_star, y, mean_g, np.split(sites, 4), sweeps, converged)


def _state(K, K_star, y, mean_g, sites, sweeps, converged) -> PlusState:
    """The marginal likelihood at the sites: ``sum log Z_i`` and both GPs' terms."""
    tau_f, nu_f, tau_h, nu_h = sites
    var_f, mu_f, L_f = marginals(K, tau_f, nu_f)
    var_h, mu_h, L_h = marginals(K_star, tau_h, nu_h)
    cav_f, cav_h = _cavity(tau_f, nu_f, var_f, mu_f), _cavity(tau_h, nu_h, var_h, mu_h)
    *_, log_z = tilted_moments(
        y, cav_f[1] / cav_f[0], 1 / cav_f[0], cav_h[1] / cav_h[0] + mean_g, 1 / cav_h[0]
    )
    log_ml = float(np.sum(log_z))
    log_ml += gaussian_terms(K, tau_f, nu_f, L_f, *cav_f)
    log_ml += gaussian_terms(K_star, tau_h, nu_h, L_h, *cav_h)
    f = EPState(tau_f, nu_f, L_f, log_ml, sweeps, converged)
    h = EPState(tau_h, nu_h, L_h, log_ml, sweeps, converged)
    return PlusState(f, h, log_ml, sweeps, converged)


MEAN_BOUNDS = (-6.0, 6.0)  # g's prior mean: noise standard deviations exp(-3) to exp(3)


class GPCPlusClassifier(BinaryOnly, ClassifierMixin, BaseEstimator):
    """GPC+ (Hernández-Lobato et al., 2014): privileged features set each label's noise level.

    ``fit(X, y, X_star)`` takes the privileged features ``X_star`` of the training
    examples. ``g``'s kernel is RBF on ``X_star``; its amplitude, length scale and prior
    mean maximize the EP marginal likelihood (L-BFGS-B), warm-starting each EP run from
    the last. Predictions use ``f``'s latent mean: the privileged features are not there
    at test time.

    Parameters
    ----------
    kernel : {"rbf", "linear"}, default="rbf"
        The kernel of ``f`` on ``X``, set by the plain GPC's empirical Bayes on ``X``.
    max_sweeps : int, default=500
        EP sweeps at most.

    Attributes
    ----------
    amplitude_, length_scale_ : float
        The kernel on ``X``.
    noise_amplitude_, noise_length_scale_, noise_mean_ : float
        ``g``'s prior.
    log_marginal_likelihood_ : float
        ``log Z_EP``.
    ep_ : PlusState
        The sites.
    classes_ : ndarray of shape (2,)
        The classes.
    """

    def __init__(self, kernel="rbf", max_sweeps=500):
        self.kernel = kernel
        self.max_sweeps = max_sweeps

    @one_blas_thread
    def fit(self, X, y, X_star=None):
        """Fit ``f``'s kernel, then ``g``'s prior by the EP marginal likelihood.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.
        X_star : array_like of shape (n_samples, n_privileged), optional
            The privileged features of the training examples. Without them, ``X``
            itself: each label's noise level is then learned from the features the
            classifier sees (a heteroscedastic GPC), as :class:`SLTGPClassifier` does.

        Returns
        -------
        GPCPlusClassifier
            The fitted classifier.
        """
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, "GPCPlusClassifier")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")
        X_star = X if X_star is None else check_privileged(X, X_star)
        signed = np.where(y == self.classes_[1], 1.0, -1.0)
        plain = GPClassifierEP(self.kernel).fit(X, y)
        self.amplitude_, self.length_scale_ = plain.amplitude_, plain.length_scale_
        self.K_ = kernel_matrix(self.kernel, X, X, self.amplitude_, self.length_scale_)
        theta, self.ep_ = self._search(X_star, signed)
        self.noise_amplitude_, self.noise_length_scale_ = np.exp(theta[:2])
        self.noise_mean_ = float(theta[2])
        self.log_marginal_likelihood_ = self.ep_.log_marginal_likelihood
        self.X_train_ = X
        return self

    def _search(self, X_star, signed):
        """``(theta, EP state)`` of g's prior (log amplitude, log length scale, mean) by
        L-BFGS-B on the EP marginal likelihood, each EP run warm-started from the last.
        The gradient is taken by finite differences: where a site of ``g`` is held at
        precision 0 the EP fixed point is not stationary, and the usual fixed-point
        formula for the gradient (:func:`cvxpb.gp.ep.log_marginal_gradient`) is off."""
        last = {}

        def objective(t):
            K_star = rbf(X_star, X_star, np.exp(t[0]), np.exp(t[1]))[0]
            with warnings.catch_warnings():  # the final run below reports convergence
                warnings.simplefilter("ignore", EPConvergenceWarning)
                state = run_ep_plus(
                    self.K_, K_star, signed, t[2], self.max_sweeps, init=last.get("s")
                )
            last["s"] = state
            return -state.log_marginal_likelihood

        start = np.array([0.0, np.log(np.median(pdist(X_star)) or 1.0), 0.0])
        bounds = [*BOUNDS, MEAN_BOUNDS]
        result = minimize(objective, start, method="L-BFGS-B", bounds=bounds)
        K_star = rbf(X_star, X_star, *np.exp(result.x[:2]))[0]
        state = run_ep_plus(self.K_, K_star, signed, result.x[2], self.max_sweeps, init=last["s"])
        return result.x, state

    def decision_function(self, X):
        """The latent predictive mean of ``f``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores; positive for ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        K_cross = kernel_matrix(self.kernel, self.X_train_, X, self.amplitude_, self.length_scale_)
        diag = kernel_diagonal(self.kernel, X, self.amplitude_)
        return predict_latent(self.ep_.f, self.K_, K_cross, diag)[0]

    def predict(self, X):
        """The class on the side of ``f``'s latent mean.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels.
        """
        scores = self.decision_function(X)  # first: unfitted, NotFittedError
        return self.classes_[(scores > 0).astype(int)]
