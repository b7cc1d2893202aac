"""Expectation propagation for binary GP classification with the probit likelihood.

Rasmussen and Williams (2006), Algorithms 3.5 and 3.6: sites
``t_i(f_i) = Z~_i N(f_i | nu~_i / tau~_i, 1 / tau~_i)`` approximate ``Phi(y_i f_i)``; each
sweep updates every site in turn from its cavity by matching the tilted moments, with
rank-one updates of the posterior covariance, and recomputes the posterior from
``B = I + S~^1/2 K S~^1/2 = L L^T`` at the end of the sweep (the numerically stable form;
``S~ = diag(tau~)``). The log marginal likelihood is eq. (3.65), written with the same
Cholesky factor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import log_ndtr, ndtr

from cvxpb.threads import one_blas_thread
from cvxpb.warn import warn_user

TOL = 1e-8  # largest change of a site's parameters that still counts as converged
ANDERSON_MEMORY = 5  # past sweeps the parallel schedule extrapolates from


class EPConvergenceWarning(UserWarning):
    """EP stopped at its sweep limit before the sites settled."""


@dataclass(frozen=True, eq=False)
class EPState:
    """The site parameters and what prediction needs.

    Parameters
    ----------
    tau : ndarray of shape (n,)
        The site precisions.
    nu : ndarray of shape (n,)
        The site precision-times-means.
    L : ndarray of shape (n, n)
        The Cholesky factor of ``B = I + S^1/2 K S^1/2``.
    log_marginal_likelihood : float
        ``log Z_EP``.
    sweeps : int
        The sweeps run.
    converged : bool
        Whether the sites settled.
    """

    tau: np.ndarray  # site precisions
    nu: np.ndarray  # site precision-times-mean
    L: np.ndarray  # Cholesky factor of B = I + S^1/2 K S^1/2
    log_marginal_likelihood: float
    sweeps: int
    converged: bool


def _tilted_moments(y, cavity_mean, cavity_var):
    """Mean, variance and log normalizer of ``Phi(y f) N(f | m, v)`` (R&W eq. 3.58)."""
    scale = np.sqrt(1 + cavity_var)
    z = y * cavity_mean / scale
    log_z = log_ndtr(z)
    ratio = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_z)  # N(z)/Phi(z), stable
    mean = cavity_mean + y * cavity_var * ratio / scale
    var = cavity_var - cavity_var**2 * ratio * (z + ratio) / (1 + cavity_var)
    return mean, var, log_z


def _factor(K, tau):
    """``(L, V)``: ``L L^T = B = I + S^1/2 K S^1/2`` and ``V = L^-1 S^1/2 K``, so that
    ``Sigma = K - V^T V`` (the stable formulas of R&W Algorithm 3.5)."""
    s = np.sqrt(tau)
    sK = s[:, None] * K
    B = sK * s[None, :]
    B.flat[:: K.shape[0] + 1] += 1
    L = cholesky(B, lower=True, overwrite_a=True, check_finite=False)
    return L, solve_triangular(L, sK, lower=True, check_finite=False)


def _posterior(K, tau, nu):
    """``(Sigma, mu, L)`` from the sites."""
    L, V = _factor(K, tau)
    Sigma = K - V.T @ V
    return Sigma, Sigma @ nu, L


def _log_marginal(K, y, tau, nu, L, cavity_tau, cavity_nu, offset):
    """R&W eq. (3.65) (their Algorithm 3.5's last lines), from the converged sites."""
    cavity_mean, cavity_var = cavity_nu / cavity_tau, 1 / cavity_tau
    log_z = log_ndtr(y * (cavity_mean + offset) / np.sqrt(1 + cavity_var))
    return float(np.sum(log_z)) + gaussian_terms(K, tau, nu, L, cavity_tau, cavity_nu)


def gaussian_terms(K, tau, nu, L, cavity_tau, cavity_nu) -> float:
    """``log Z_EP - sum_i log Z_i`` of one GP's Gaussian sites.

    Eq. (3.65) of Rasmussen & Williams without the tilted normalizers ``Z_i``, so a
    likelihood shared by several GPs adds one such term per GP (GPC+).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The prior covariance.
    tau : ndarray of shape (n,)
        The site precisions.
    nu : ndarray of shape (n,)
        The site precision-times-means.
    L : ndarray of shape (n, n)
        The Cholesky factor of ``B``.
    cavity_tau : ndarray of shape (n,)
        The cavity precisions.
    cavity_nu : ndarray of shape (n,)
        The cavity precision-times-means.

    Returns
    -------
    float
        The Gaussian sites' part of ``log Z_EP``.
    """
    s = np.sqrt(tau)
    cavity_mean = cavity_nu / cavity_tau
    # (3.65) with tau~ cancelled between its terms, so that tau~_i = 0 is harmless:
    # -log|B|/2-type term, the quadratic nu~^T Sigma nu~ term and the cavity term
    logdet = 0.5 * np.sum(np.log1p(tau / cavity_tau)) - np.sum(np.log(np.diag(L)))
    b = nu - s * cho_solve((L, True), s * (K @ nu))  # Sigma nu~ = K b
    quad = 0.5 * nu @ (K @ b) - 0.5 * np.sum(nu**2 / (cavity_tau + tau))
    correction = 0.5 * np.sum(
        cavity_mean * cavity_tau * (tau * cavity_mean - 2 * nu) / (tau + cavity_tau)
    )
    return float(logdet + quad + correction)


@one_blas_thread
def run_ep(
    K,
    y,
    max_sweeps: int = 100,
    tol: float = TOL,
    init: EPState | None = None,
    offset=None,
    schedule: str = "parallel",
):
    """Expectation propagation on the kernel matrix ``K`` and labels ``y``.

    With ``offset`` the prior mean is ``offset``: EP runs on ``g = f - offset ~ N(0, K)``
    with the likelihood ``Phi(y (g + offset))``, so the sites and the posterior are
    ``g``'s. ``schedule="parallel"`` updates every site at once from the current
    marginals, one Cholesky factorization per sweep, extrapolated by Anderson
    acceleration over the last sweeps (restarted with a half step where the largest
    change grows); it stops when the largest change a full update proposes is below
    ``tol``. Where it has not converged in 3/4 of ``max_sweeps``, the sequential schedule
    of Rasmussen and Williams (rank-one updates site by site) continues from its sites
    for the rest. Both stop at a fixed point of the same EP equations.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The prior covariance.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    max_sweeps : int, default=100
        Sweeps at most.
    tol : float, default=TOL
        The largest site change at which it stops.
    init : EPState, optional
        Another run's sites to start from (as in a hyperparameter search).
    offset : ndarray of shape (n,), optional
        The prior mean.
    schedule : {"parallel", "sequential"}, default="parallel"
        The update schedule.

    Returns
    -------
    EPState
        The sites, the log marginal likelihood and the convergence.
    """
    n = y.size
    offset = np.zeros(n) if offset is None else np.asarray(offset, dtype=float)
    tau, nu = (np.zeros(n), np.zeros(n)) if init is None else (init.tau.copy(), init.nu.copy())
    converged, sweeps = False, 0
    if schedule == "parallel":
        budget = 3 * max_sweeps // 4
        tau, nu, sweeps, converged = _parallel_sweeps(K, y, tau, nu, offset, budget, tol)
    if not converged:
        tau, nu, more, converged, change = _sequential_sweeps(
            K, y, tau, nu, offset, max_sweeps - sweeps, tol
        )
        sweeps += more
        if not converged:
            warn_user(
                f"EP did not converge in {sweeps} sweeps (last change {change:.2e})",
                EPConvergenceWarning,
            )
    variances, mu, L = marginals(K, tau, nu)
    cavity_tau, cavity_nu = 1 / variances - tau, mu / variances - nu
    log_ml = _log_marginal(K, y, tau, nu, L, cavity_tau, cavity_nu, offset)
    return EPState(tau, nu, L, log_ml, sweeps, converged)


def marginals(K, tau, nu):
    """The posterior's variances and mean, and the factor ``L``, without forming ``Sigma``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The prior covariance.
    tau : ndarray of shape (n,)
        The site precisions.
    nu : ndarray of shape (n,)
        The site precision-times-means.

    Returns
    -------
    variances : ndarray of shape (n,)
        ``diag(Sigma)``.
    means : ndarray of shape (n,)
        ``Sigma nu``.
    L : ndarray of shape (n, n)
        The Cholesky factor of ``B``.
    """
    L, V = _factor(K, tau)
    return np.diag(K) - np.einsum("ij,ij->j", V, V), K @ nu - V.T @ (V @ nu), L


def _site_updates(y, tau, nu, variances, mu, offset):
    """Every site's moment-matched update from its cavity (sites whose cavity is not a
    proper Gaussian, possible mid-way in a parallel sweep, keep their values)."""
    cavity_tau, cavity_nu = 1 / variances - tau, mu / variances - nu
    proper = cavity_tau > 0
    safe_tau = np.where(proper, cavity_tau, 1.0)
    mean, var, _ = _tilted_moments(y, cavity_nu / safe_tau + offset, 1 / safe_tau)
    mean -= offset
    new_tau = np.where(proper, np.maximum(1 / var - cavity_tau, 0.0), tau)
    new_nu = np.where(proper, mean / var - cavity_nu, nu)
    return new_tau, new_nu


def _parallel_sweeps(K, y, tau, nu, offset, max_sweeps, tol):
    """``(tau, nu, sweeps, converged)`` of the parallel schedule, Anderson-accelerated.

    The sites ``x = (tau, nu)`` solve ``x = G(x)``, ``G`` the parallel update. Each
    sweep extrapolates from the last ``ANDERSON_MEMORY`` pairs ``(G(x_k), G(x_k) - x_k)``
    (Walker and Ni 2011, type II). Where the largest change grows past twice the least
    seen, the memory restarts with a half step, so a poor extrapolation costs one sweep.
    """
    n = y.size
    images, residuals, least = [], [], np.inf
    variances, mu, _ = marginals(K, tau, nu)
    for sweep in range(1, max_sweeps + 1):
        new_tau, new_nu = _site_updates(y, tau, nu, variances, mu, offset)
        x, image = np.concatenate([tau, nu]), np.concatenate([new_tau, new_nu])
        residual = image - x
        change = np.abs(residual).max()
        if change < tol:
            return tau, nu, sweep, True
        if change > 2 * least:  # the extrapolation went astray: restart
            images, residuals, least = [], [], change
        least = min(least, change)
        images, residuals = (
            [*images, image][-ANDERSON_MEMORY - 1 :],
            [*residuals, residual][-ANDERSON_MEMORY - 1 :],
        )
        step = x + 0.5 * residual if len(images) == 1 else _extrapolate(images, residuals)
        tau, nu = np.maximum(step[:n], 0.0), step[n:]
        variances, mu, _ = marginals(K, tau, nu)
    return tau, nu, max_sweeps, False


def _extrapolate(images, residuals):
    """Anderson's step: the images' combination whose residuals' combination is least."""
    d_residual = np.diff(residuals, axis=0).T
    gamma = np.linalg.lstsq(d_residual, residuals[-1], rcond=None)[0]
    return images[-1] - np.diff(images, axis=0).T @ gamma


def _sequential_sweeps(K, y, tau, nu, offset, max_sweeps, tol):
    """``(tau, nu, sweeps, converged, change)`` of Rasmussen and Williams' Algorithm 3.5."""
    Sigma, mu, _ = _posterior(K, tau, nu)
    change = np.inf
    for sweep in range(1, max_sweeps + 1):
        old_tau, old_nu = tau.copy(), nu.copy()
        for i in range(y.size):
            cavity_tau = 1 / Sigma[i, i] - tau[i]
            cavity_nu = mu[i] / Sigma[i, i] - nu[i]
            mean, var, _ = _tilted_moments(y[i], cavity_nu / cavity_tau + offset[i], 1 / cavity_tau)
            mean -= offset[i]
            delta_tau = max(1 / var - cavity_tau - tau[i], -tau[i])  # keep tau >= 0
            tau[i] += delta_tau
            nu[i] = mean / var - cavity_nu
            if delta_tau != 0:  # rank-one update of Sigma
                column = Sigma[:, i].copy()
                Sigma -= np.outer(column, column) / (1 / delta_tau + column[i])
            mu = Sigma @ nu
        Sigma, mu, _ = _posterior(K, tau, nu)
        change = max(np.abs(tau - old_tau).max(), np.abs(nu - old_nu).max())
        if change < tol:
            return tau, nu, sweep, True, change
    return tau, nu, max_sweeps, False, change


def predict_latent(state: EPState, K, K_cross, k_diag):
    """Latent predictive mean and variance at new points (Rasmussen & Williams, Algorithm 3.6).

    Parameters
    ----------
    state : EPState
        A run's sites.
    K : ndarray of shape (n, n)
        The training kernel.
    K_cross : ndarray of shape (n, m)
        ``k(X, X_new)``.
    k_diag : ndarray of shape (m,)
        The new points' ``k(x, x)``.

    Returns
    -------
    mean : ndarray of shape (m,)
        The latent means.
    var : ndarray of shape (m,)
        The latent variances (at least 1e-300).
    """
    s = np.sqrt(state.tau)
    z = s * cho_solve((state.L, True), s * (K @ state.nu))
    mean = K_cross.T @ (state.nu - z)
    v = solve_triangular(state.L, s[:, None] * K_cross, lower=True)
    var = k_diag - np.sum(v * v, axis=0)
    return mean, np.maximum(var, 1e-300)


def predictive_probability(mean, var):
    """``p(y = +1 | x) = Phi(mu / sqrt(1 + sigma^2))`` (R&W eq. 3.80; Kamesawa et al.'s eq. 23).

    Parameters
    ----------
    mean : ndarray
        The latent means.
    var : ndarray
        The latent variances.

    Returns
    -------
    ndarray
        The probabilities.
    """
    return ndtr(mean / np.sqrt(1 + var))


@one_blas_thread
def log_marginal_gradient(state: EPState, K, dK_list, d_offset_list=None) -> np.ndarray:
    """The gradient of ``log Z_EP`` in the hyperparameters at the EP fixed point.

    ``d log Z_EP / d theta = tr((b b^T - R) dK) / 2 + b^T d offset`` with
    ``R = S^1/2 B^-1 S^1/2`` and ``b = nu - R K nu`` (R&W eq. 5.27 for EP; with the sites
    fixed, only ``log N(site means | offset, K + site variances)`` moves).

    Parameters
    ----------
    state : EPState
        A run's sites.
    K : ndarray of shape (n, n)
        The prior covariance.
    dK_list : list of ndarray
        ``dK / d theta_j``.
    d_offset_list : list of ndarray, optional
        ``d offset / d theta_j``.

    Returns
    -------
    ndarray
        One derivative per hyperparameter.
    """
    s = np.sqrt(state.tau)
    R = s[:, None] * cho_solve((state.L, True), np.diag(s))
    b = state.nu - R @ (K @ state.nu)
    A = np.outer(b, b) - R
    d_offsets = d_offset_list or [None] * len(dK_list)
    return np.array(
        [
            0.5 * np.sum(A * dK) + (0.0 if dm is None else float(b @ dm))
            for dK, dm in zip(dK_list, d_offsets, strict=True)
        ]
    )
