"""The PAC-Bayes bounds of Parrado-Hernández et al. (2012) for SVMs with Gaussian
posteriors ``N(mu w, I)``.

Each bound is ``sup{r : kl(Q_S(w, mu), r) <= (KL(Q || P) + penalty) / m}``, minimized
over ``mu``. It holds for all ``mu`` at once, so the minimization costs nothing: ``mu``
is scanned on a log grid (the objective need not be unimodal) and around the best grid
point on finer grids. The inverse of the binary kl is the verified
one of :mod:`cvxpb.numerics.kl`, and ``Q_S`` is rounded up, so the reported value is a valid
bound. ``deterministic`` is ``min(1, 2 bound)``, the bound on the SVM itself (eq. 5).

* ``langford`` (Corollary 4): prior ``N(0, I)``, ``KL = mu^2/2``, penalty ``ln((m+1)/delta)``.
* ``prior`` (Corollaries 5 and 7): a prior direction ``w_r`` learnt on a separate part;
  ``KL = ||mu w - eta_j w_r||^2 / 2``, the best of ``J`` scalings at the price ``ln J``;
  evaluated on the ``m - r`` examples not used for ``w_r``.
* ``tau`` (Theorem 8): the same with variance ``tau^2`` along ``w_r``.
* ``expectation`` (Theorems 9 and 10): the prior mean ``eta w_p`` with
  ``w_p = E[y phi(x)]``, estimated from the same sample at the price of
  ``b = R/sqrt(m) (2 + sqrt(2 ln(2/delta)))`` and penalty ``ln(2(m+1)/delta)``.
* ``tau_expectation`` (Theorem 11), for ``tau >= 1``: the paper's proof drops the term
  ``(w_p^T mu w / ||w_p||)^2 (1/tau^2 - 1)``, which is not positive only when ``tau >= 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from cvxpb.numerics.kl import kl_inv_upper, kl_inv_upper_newton
from cvxpb.svm.gaussian import kl_shifted, kl_tau, stochastic_error
from cvxpb.threads import one_blas_thread
from cvxpb.validation import check_choice, check_delta, real_array

MU_GRID = np.geomspace(1e-3, 1e4, 281)
DEFAULT_ETAS = np.linspace(1.0, 100.0, 10)  # J = 10 scalings over the paper's range 1..100
ROUND_UP = 1 + 1e-12
REFINE_POINTS = 33  # each finer scan spans the 2 grid steps around the best point
REFINE_LEVELS = 4  # the last scan's step: 16^-4 of the grid's (a factor 1 + 1e-6 in mu)


@dataclass(frozen=True)
class SVMBound:
    """A bound on the stochastic classifier's true error and how it was reached.

    Parameters
    ----------
    name : str
        The bound (``"langford"``, ``"prior"``, ...).
    bound : float
        The bound on the stochastic classifier's true error.
    mu : float
        The posterior's scaling chosen.
    eta : float or None
        The prior's scaling chosen (None for Langford's prior).
    empirical : float
        ``Q_S(w, mu)`` on the examples the bound uses.
    kl : float
        The KL term (an upper bound on it for the expectation priors).
    m : int
        The examples the bound uses.
    delta : float
        The confidence.
    """

    name: str
    bound: float
    mu: float
    eta: float | None
    empirical: float  # Q_S(w, mu) on the examples the bound uses
    kl: float  # the KL term (an upper bound on it for the expectation priors)
    m: int
    delta: float

    @property
    def deterministic(self) -> float:
        """float: ``min(1, 2 bound)``, the bound on the deterministic SVM (eq. 5)."""
        return min(1.0, 2 * self.bound)


def _value(margins, mu, complexity, m, verified=False):
    """The bound at each ``mu`` (vectorized), with ``Q_S`` rounded up; the search uses
    Newton's inverse, the reported value the verified one."""
    mu = np.atleast_1d(mu)
    empirical = np.minimum(stochastic_error(margins, mu) * ROUND_UP, 1.0)
    eps = complexity(mu) / m
    if verified:
        return kl_inv_upper(empirical, eps), empirical
    return kl_inv_upper_newton(empirical, eps)[0], empirical


def minimize_over_mu(margins, complexity, m, grid=MU_GRID):
    """Minimize the bound over the posterior's scaling ``mu``.

    The scan of ``grid``, then ``REFINE_LEVELS`` finer scans (``REFINE_POINTS`` each,
    vectorized) between the best point's neighbours; the bound at the chosen ``mu`` by
    the verified kl inverse.

    Parameters
    ----------
    margins : ndarray of shape (m,)
        The normalized margins.
    complexity : callable
        ``complexity(mu)``: the numerator of the kl bound's right side at each ``mu``.
    m : int
        The sample size.
    grid : array_like, default=MU_GRID
        The first scan's points.

    Returns
    -------
    bound : float
        The bound at ``mu``, by the verified kl inverse.
    mu : float
        The scaling chosen.
    empirical : float
        ``Q_S`` at ``mu``, rounded up.
    """
    points = np.asarray(grid, dtype=float)
    values, _ = _value(margins, points, complexity, m)
    k = int(np.argmin(values))
    best_mu, best_value = float(points[k]), float(values[k])
    for _ in range(REFINE_LEVELS):
        lo, hi = points[max(k - 1, 0)], points[min(k + 1, points.size - 1)]
        if not hi > lo:
            break
        points = (
            np.geomspace(lo, hi, REFINE_POINTS) if lo > 0 else np.linspace(lo, hi, REFINE_POINTS)
        )
        values, _ = _value(margins, points, complexity, m)
        k = int(np.argmin(values))
        if values[k] < best_value:
            best_mu, best_value = float(points[k]), float(values[k])
    bound, empirical = _value(margins, best_mu, complexity, m, verified=True)
    return float(bound[0]), best_mu, float(empirical[0])


def _best_over_etas(name, margins, etas, kl_of, penalty, delta):
    """The mixture: each scaling's bound with ``ln J`` added; the least one.

    ``Q_S(mu)`` does not depend on the scaling and the bound increases with the KL term,
    so the least bound over scalings and ``mu`` is the least over ``mu`` of the bound at
    ``min_j KL(mu, eta_j)``: one search over ``mu``, not one per scaling. That function
    dips where each scaling's KL is least, and when ``w`` and ``w_r`` align the dips are
    narrower than the grid's step, so the scan also visits each dip's bottom
    (:func:`_kl_dips`).
    """
    margins = np.asarray(margins, dtype=float)
    m = margins.size
    if m == 0:
        raise ValueError("the bound needs at least one example")
    etas = [None] if etas is None else np.atleast_1d(np.asarray(etas, dtype=float))
    extra = penalty + np.log(len(etas))

    def least_kl(mu):
        mu = np.atleast_1d(mu)
        kls = np.array([kl_of(mu, eta) for eta in etas]).reshape(len(etas), mu.size)
        return kls.min(axis=0), np.argmin(kls, axis=0)

    grid = np.union1d(MU_GRID, _kl_dips(kl_of, etas))
    bound, mu, empirical = minimize_over_mu(margins, lambda x: least_kl(x)[0] + extra, m, grid)
    kl, j = least_kl(mu)
    eta = etas[int(j[0])]
    return SVMBound(
        name, bound, mu, None if eta is None else float(eta), empirical, float(kl[0]), m, delta
    )


def _kl_dips(kl_of, etas) -> np.ndarray:
    """For each scaling, the ``mu`` in the grid's range where its KL is least, from the
    quadratic through ``mu = 0, 1, 2`` (exact for the shifted and tau priors, whose KL
    is quadratic in ``mu``; an extra scan point for the others)."""
    dips = []
    for eta in etas:
        q0, q1, q2 = (float(np.squeeze(kl_of(np.array([x]), eta))) for x in (0.0, 1.0, 2.0))
        a = (q2 - 2 * q1 + q0) / 2
        b = q1 - q0 - a
        if a > 0:
            dips.append(-b / (2 * a))
    dips = np.asarray(dips, dtype=float)
    return dips[(dips >= MU_GRID[0]) & (dips <= MU_GRID[-1])]


def langford_bound(margins, delta=0.01) -> SVMBound:
    """Corollary 4 of Parrado-Hernandez et al. (2012): the prior ``N(0, I)``.

    Parameters
    ----------
    margins : ndarray of shape (m,)
        The normalized margins on the training sample.
    delta : float, default=0.01
        The confidence.

    Returns
    -------
    SVMBound
        The least bound over ``mu`` (and the scalings), with how it was reached.
    """
    delta = check_delta(delta)
    m = np.size(margins)
    return _best_over_etas(
        "langford", margins, None, lambda mu, _: mu**2 / 2, np.log((m + 1) / delta), delta
    )


def prior_bound(margins, cosine, etas=DEFAULT_ETAS, delta=0.01, tau=None) -> SVMBound:
    """The bounds of a prior learnt on held-out examples: Corollaries 5 and 7, Theorem 8.

    The prior ``N(eta_j w_r, .)``: Corollaries 5 and 7 (``tau=None``), Theorem 8
    (``tau``).

    Parameters
    ----------
    margins : ndarray of shape (m,)
        The normalized margins on the examples not used for ``w_r``.
    cosine : float
        ``w^T w_r`` for the unit vectors.
    etas : array_like, default=DEFAULT_ETAS
        The prior's scalings (one: Corollary 5; several: the mixture of Corollary 7).
    delta : float, default=0.01
        The confidence.
    tau : float, optional
        The prior's spread along ``w_r`` (Theorem 8).

    Returns
    -------
    SVMBound
        The least bound over ``mu`` (and the scalings), with how it was reached.
    """
    delta = check_delta(delta)
    if not -1 - 1e-9 <= cosine <= 1 + 1e-9:
        raise ValueError(f"cosine must lie in [-1, 1], got {cosine!r}")
    if tau is not None and not tau > 0:
        raise ValueError(f"tau must be positive, got {tau!r}")
    m = np.size(margins)
    if tau is None:
        name, kl_of = "prior", lambda mu, eta: kl_shifted(mu, eta, cosine)
    else:
        name, kl_of = "tau", lambda mu, eta: kl_tau(mu, eta, cosine, tau)
    return _best_over_etas(name, margins, etas, kl_of, np.log((m + 1) / delta), delta)


def expectation_bound(
    margins, dot, norm_wp, R, etas=DEFAULT_ETAS, delta=0.01, tau=None
) -> SVMBound:
    """The bounds of the expectation prior: Theorems 9, 10 and 11.

    The prior mean ``eta w_p``, ``w_p = E[y phi~(x)]`` estimated by ``w_p^`` on the same
    sample: Theorems 9, 10 (``tau=None``) and 11 (``tau >= 1``).

    Parameters
    ----------
    margins : ndarray of shape (m,)
        The normalized margins.
    dot : float
        ``w^T w_p^`` for the unit ``w``.
    norm_wp : float
        ``||w_p^||``.
    R : float
        A bound on ``||phi~(x)||``.
    etas : array_like, default=DEFAULT_ETAS
        The prior's scalings.
    delta : float, default=0.01
        The confidence.
    tau : float, optional
        The prior's spread along ``w_p`` (Theorem 11).

    Returns
    -------
    SVMBound
        The least bound over ``mu`` (and the scalings), with how it was reached.
    """
    delta = check_delta(delta)
    if not R > 0:
        raise ValueError(f"R must be positive (a bound on ||phi(x)||), got {R!r}")
    if tau is not None and not tau >= 1:
        raise ValueError(f"tau must be >= 1 for Theorem 11, got {tau!r}")
    m = np.size(margins)
    b = R / np.sqrt(m) * (2 + np.sqrt(2 * np.log(2 / delta)))

    def distance(mu, eta):  # ||mu w - eta w_p^||
        return np.sqrt(np.maximum(mu**2 - 2 * mu * eta * dot + eta**2 * norm_wp**2, 0.0))

    if tau is None:
        name = "expectation"

        def kl_of(mu, eta):
            return 0.5 * (distance(mu, eta) + eta * b) ** 2
    else:
        name = "tau_expectation"

        def kl_of(mu, eta):
            shifted = (distance(mu, eta) + eta * b) ** 2
            return 0.5 * (np.log(tau**2) + (shifted - mu**2 + 1) / tau**2 + mu**2 - 1)

    return _best_over_etas(name, margins, etas, kl_of, np.log(2 * (m + 1) / delta), delta)


PRIORS = ("langford", "prior", "tau", "expectation", "tau_expectation")


def _same_kernel(a, b) -> None:
    if (a.kernel, a.gamma) != (b.kernel, b.gamma):
        raise ValueError(
            f"the prior SVM's kernel ({a.kernel}, gamma={a.gamma}) must be the posterior's "
            f"({b.kernel}, gamma={b.gamma})"
        )


def _check_etas(etas) -> np.ndarray:
    """A non-empty 1-D array of finite prior scalings."""
    etas = real_array(etas, "etas")
    if etas.ndim != 1 or etas.size == 0 or not np.all(np.isfinite(etas)):
        raise ValueError(f"etas must be a non-empty list of finite numbers, got {etas!r}")
    return etas


def _signed_labels(svc, y, name: str) -> np.ndarray:
    """``y`` as +1 / -1 by ``svc.classes_``; NotFittedError for an unfitted ``svc``, and a
    ValueError for a label that is not one of its two classes."""
    check_is_fitted(svc)
    classes = getattr(svc, "classes_", None)
    if classes is None or len(classes) != 2:
        raise ValueError(f"{name} must be a binary classifier, got classes {classes!r}")
    y = np.asarray(y)
    unknown = ~np.isin(y, classes)
    if np.any(unknown):
        raise ValueError(
            f"y has labels {np.unique(y[unknown])[:5].tolist()} that are not {name}'s classes "
            f"{classes.tolist()}"
        )
    return np.where(y == classes[1], 1, -1)


@one_blas_thread
def svm_pac_bayes_bound(
    svc, X, y, prior="langford", delta=0.01, prior_svc=None, etas=DEFAULT_ETAS, tau=50.0, R=None
) -> SVMBound:
    """Any bound of Parrado-Hernandez et al. (2012) for a fitted binary ``SVC``.

    Parameters
    ----------
    svc : sklearn.svm.SVC
        A fitted binary SVC, kernel ``"rbf"`` or ``"linear"``.
    X : array_like of shape (n_samples, n_features)
        The examples the bound is computed on: for ``prior`` and ``tau`` those *not* used
        to train ``prior_svc`` (the prior direction ``w_r``); for the others the whole
        training sample.
    y : array_like of shape (n_samples,)
        Their labels.
    prior : {"langford", "prior", "tau", "expectation", "tau_expectation"}, default="langford"
        The bound.
    delta : float, default=0.01
        The confidence.
    prior_svc : sklearn.svm.SVC, optional
        The SVC of the prior direction (``prior`` and ``tau``).
    etas : array_like, default=DEFAULT_ETAS
        The prior scalings (``J = len(etas)``; one value gives Corollary 5 / Theorem 9,
        several the mixtures of Corollary 7 / Theorem 10).
    tau : float, default=50.0
        The prior's spread (``tau`` and ``tau_expectation``).
    R : float, optional
        A bound on ``||phi~(x)|| = sqrt(k(x, x) + 1)``: ``sqrt(2)`` for the RBF kernel,
        and required otherwise.

    Returns
    -------
    SVMBound
        The least bound over ``mu`` (and the scalings), with how it was reached.

    Raises
    ------
    ValueError
        For an unknown ``prior``, a missing ``prior_svc`` or ``R``, or bad data.
    """
    from cvxpb.svm.gaussian import from_svc, mean_vector, normalized_margins

    check_choice(prior, "prior", PRIORS)
    check_delta(delta)
    etas = _check_etas(etas)
    y = _signed_labels(svc, y, "svc")
    if prior_svc is not None:
        check_is_fitted(prior_svc)
    w = from_svc(svc)
    if w.kernel not in ("rbf", "linear"):
        raise ValueError(f"kernel must be 'rbf' or 'linear', got {w.kernel!r}")
    margins = normalized_margins(w, X, y)
    if prior == "langford":
        return langford_bound(margins, delta)
    if prior in ("prior", "tau"):
        if prior_svc is None:
            raise ValueError(f'prior="{prior}" needs prior_svc, an SVC trained on other data')
        w_r = from_svc(prior_svc)
        _same_kernel(w_r, w)
        cosine = w.dot(w_r) / (w.norm() * w_r.norm())
        return prior_bound(margins, cosine, etas, delta, tau if prior == "tau" else None)
    if R is None:
        if w.kernel != "rbf":
            raise ValueError("R (a bound on ||phi(x)||) is required for the linear kernel")
        R = np.sqrt(2.0)
    w_p = mean_vector(X, y, w.kernel, w.gamma)
    dot = w.dot(w_p) / w.norm()
    return expectation_bound(
        margins, dot, w_p.norm(), R, etas, delta, tau if prior == "tau_expectation" else None
    )
