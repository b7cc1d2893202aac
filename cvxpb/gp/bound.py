"""The PAC-Bayes bound of Kamesawa et al., Theorem 1 (eq. 29) and its constant ``b`` (eqs. 30-31).

``E_{Q^} L_D(f) <= -(log delta + log Z_{X,y|s}) / n + b(sigma0^2)`` for the negative log
likelihood loss, under the sub-Gaussian condition (28) with ``sigma0^2 < 1/2``.

``b = inf_{a > c} [log(2 pi (a + 4))/2 - a / (2(a + 4)) + 4 sigma0^4 ((a + 5)/(a + 4))^2]``
with ``c = (10 sigma0^2 - 4)/(1 - 2 sigma0^2)``. With ``u = 1/(a + 4)``

``b = -log(u)/2 + log(2 pi)/2 - 1/2 + 2u + 4 sigma0^4 (1 + u)^2``

over ``0 < u < (1 - 2 sigma0^2)/(2 sigma0^2)``, convex in ``u`` (a DCP program) with
the stationary point ``16 sigma0^4 u^2 + (4 + 16 sigma0^4) u - 1 = 0``; the infimum is
there or, past the range, at its end.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from scipy.special import log_ndtr
from sklearn.utils.validation import check_is_fitted

from cvxpb.engine.conic import solve_program
from cvxpb.numerics.tolerances import nudge
from cvxpb.threads import one_blas_thread
from cvxpb.validation import check_delta
from cvxpb.warn import warn_user

METHODS = ("closed_form", "cvx")


def check_sigma0_sq(sigma0_sq) -> float:
    """Check ``sigma0^2`` in ``[0, 1/2)``: Theorem 1 needs ``sigma0^2 < 1/2``.

    Parameters
    ----------
    sigma0_sq : float
        The sub-Gaussian parameter of condition (28).

    Returns
    -------
    float
        ``sigma0_sq``.

    Raises
    ------
    ValueError
        Outside ``[0, 1/2)``.
    """
    try:
        value = float(sigma0_sq)
    except (TypeError, ValueError):
        raise ValueError(f"sigma0_sq must be a number in [0, 1/2), got {sigma0_sq!r}") from None
    if not 0 <= value < 0.5:
        raise ValueError(f"sigma0_sq must lie in [0, 1/2) (Theorem 1), got {sigma0_sq!r}")
    return value


def _objective(u, s4):
    return -0.5 * np.log(u) + 0.5 * np.log(2 * np.pi) - 0.5 + 2 * u + 4 * s4 * (1 + u) ** 2


def _u_max(sigma0_sq):
    return np.inf if sigma0_sq == 0 else (1 - 2 * sigma0_sq) / (2 * sigma0_sq)


def b_constant(sigma0_sq, method: str = "closed_form") -> float:
    """The constant ``b(sigma0^2)`` of Kamesawa et al.'s eq. (30).

    Parameters
    ----------
    sigma0_sq : float
        In ``[0, 1/2)``.
    method : {"closed_form", "cvx"}, default="closed_form"
        The stationary point in closed form, or the infimum as a CVXPY program (an
        independent check).

    Returns
    -------
    float
        ``b``.

    Raises
    ------
    ValueError
        For ``sigma0_sq`` outside ``[0, 1/2)`` or another method.
    RuntimeError
        When the program of ``method="cvx"`` is not solved.
    """
    sigma0_sq = check_sigma0_sq(sigma0_sq)
    s4, u_max = sigma0_sq**2, _u_max(sigma0_sq)
    if method == "closed_form":
        if s4 == 0:
            u = 0.25
        else:
            p = 4 + 16 * s4
            u = 2 / (p + np.sqrt(p * p + 64 * s4))  # the positive root, without cancellation
        return float(_objective(min(u, u_max), s4))
    if method == "cvx":
        u = cp.Variable(pos=True)
        objective = -0.5 * cp.log(u) + 2 * u + 4 * s4 * cp.square(1 + u)
        constraints = [] if np.isinf(u_max) else [u <= u_max]
        problem = cp.Problem(cp.Minimize(objective), constraints)
        outcome = solve_program(problem, ("CLARABEL",))
        if not outcome.solved:
            raise RuntimeError(f"the program for b was not solved: {outcome.message}")
        return float(problem.value + 0.5 * np.log(2 * np.pi) - 0.5)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def pac_bayes_bound(log_marginal_likelihood, n: int, delta=0.05, sigma0_sq=0.1) -> float:
    """Kamesawa et al.'s eq. (29): ``-(log delta + log Z)/n + b(sigma0^2)``, rounded up.

    Parameters
    ----------
    log_marginal_likelihood : float
        ``log Z``.
    n : int
        The training sample's size.
    delta : float, default=0.05
        The confidence.
    sigma0_sq : float, default=0.1
        The sub-Gaussian parameter, in ``[0, 1/2)``.

    Returns
    -------
    float
        The bound on the posterior-expected negative log likelihood risk.
    """
    delta = check_delta(delta)
    if not (isinstance(n, int | np.integer) and n >= 1):
        raise ValueError(f"n must be a positive integer, got {n!r}")
    value = -(np.log(delta) + float(log_marginal_likelihood)) / n + b_constant(sigma0_sq)
    return float(nudge(value, +1))


def gibbs_nll_risk(mean, var, y, n_nodes: int = 64) -> float:
    """The risk Theorem 1 bounds, on a sample.

    ``mean_i E_{f ~ N(mean_i, var_i)} [-log Phi(y_i f)]``, the posterior-expected
    negative log likelihood, by Gauss-Hermite quadrature.

    Parameters
    ----------
    mean : ndarray of shape (n,)
        The latent posterior means.
    var : ndarray of shape (n,)
        The latent posterior variances.
    y : ndarray of shape (n,)
        The labels in {-1, +1}.
    n_nodes : int, default=64
        Quadrature nodes for the standard normal.

    Returns
    -------
    float
        The risk.
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(n_nodes)
    f = np.asarray(mean)[:, None] + np.sqrt(np.asarray(var))[:, None] * nodes[None, :]
    losses = -log_ndtr(np.asarray(y, dtype=float)[:, None] * f)
    return float(np.mean(losses @ weights) / np.sqrt(2 * np.pi))


class SubGaussianWarning(UserWarning):
    """The prior visibly breaks Theorem 1's condition (28): the number is not a bound."""


def sub_gaussian_evidence(prior_mean, prior_var, y) -> tuple[float, float]:
    """What the training sample shows of condition (28) for a GP prior.

    For ``f(x) ~ N(m(x), v(x))``, ``E_f exp(lam y f(x)) = exp(lam y m(x) + lam^2 v(x)/2)``.
    As ``lam -> 0`` condition (28) then needs ``E[y m(x)] = 0``, and as ``lam -> inf`` it
    needs ``v(x) <= sigma0^2`` wherever ``x`` has mass: so ``sigma0^2`` below the
    sample's largest prior variance, or a prior mean that correlates with the labels
    (SLT-GP's conditional prior with informative soft labels and ``rho > 0``), breaks the
    condition (on the empirical distribution; the true one is not seen).

    Parameters
    ----------
    prior_mean : array_like of shape (n,)
        The prior's marginal means at the training inputs.
    prior_var : array_like of shape (n,)
        Its marginal variances there.
    y : array_like of shape (n,)
        The labels in {-1, +1}.

    Returns
    -------
    largest_variance : float
        ``max_i var_i``.
    label_correlation : float
        ``mean_i y_i m_i``.
    """
    y = np.asarray(y, dtype=float)
    return float(np.max(prior_var)), float(np.mean(y * np.asarray(prior_mean)))


class PACBayesMixin:
    """Theorem 1's bound and the risk it bounds, for the fitted GP classifiers.

    They provide ``log_marginal_likelihood_``, ``X_train_``, ``classes_``, ``_latent`` and
    ``_prior_marginals``.
    """

    @one_blas_thread
    def pac_bayes_bound(self, delta=0.05, sigma0_sq=0.1) -> float:
        """Kamesawa et al.'s Theorem 1 (eq. 29) with ``log Z`` the EP log marginal likelihood.

        For SLT-GP, ``log Z`` is eq. (25)'s. A bound on the posterior-expected negative log
        likelihood risk, valid when the prior satisfies the sub-Gaussian condition (28) with
        ``sigma0_sq < 1/2``. A :class:`SubGaussianWarning` says when the training sample
        already shows the condition broken (:func:`sub_gaussian_evidence`).

        Parameters
        ----------
        delta : float, default=0.05
            The confidence.
        sigma0_sq : float, default=0.1
            The sub-Gaussian parameter, in ``[0, 1/2)``.

        Returns
        -------
        float
            The bound.
        """
        check_is_fitted(self)
        value = pac_bayes_bound(
            self.log_marginal_likelihood_, self.X_train_.shape[0], delta, sigma0_sq
        )
        largest_var, label_correlation = sub_gaussian_evidence(
            *self._prior_marginals(), np.where(self.y_signed_ > 0, 1, -1)
        )
        if largest_var > sigma0_sq or abs(label_correlation) > 1e-12:
            warn_user(
                f"condition (28) fails on the training sample (largest prior variance "
                f"{largest_var:.3g} against sigma0_sq = {sigma0_sq}, mean of y * prior "
                f"mean {label_correlation:.3g}, which must be 0): {value:.4g} is Theorem "
                "1's value, not a bound for this prior",
                SubGaussianWarning,
            )
        return value

    def gibbs_risk(self, X, y) -> float:
        """The posterior-expected negative log likelihood on ``(X, y)``.

        :func:`gibbs_nll_risk` of the posterior: on held-out data, an estimate of the
        expected risk the bound is about.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        float
            The risk.
        """
        mean, var = self._latent(X)
        return gibbs_nll_risk(mean, var, np.where(np.asarray(y) == self.classes_[1], 1, -1))
