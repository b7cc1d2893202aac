"""scikit-learn estimators on the minimax program (Farnia & Tse (2016)).

* :class:`MinimaxClassifier`: ``loss="zero_one"`` is the minimax SVM, ``"brier"`` the
  minimax Brier classifier (``randomized=True``: the mmRBC rule of eq. 38), ``"log"``
  (regularized) logistic regression; binary and multiclass.
* :class:`MinimaxRegressor`: the quadratic loss; with ``eps = 0`` least squares, with the
  l_inf moment norm the lasso, l2 (``squared=True``) ridge, ``norm="group"`` group lasso.
* :class:`RobustFeatureSelector`: the l_{1,inf} relaxation of robust feature selection
  (eq. 43).

Each keeps the optimal ``A_``, the solver's ``status_`` (``"optimal"`` or, with CVXPY's
warning, ``"optimal_inaccurate"``; anything else raises :class:`MinimaxSolverError`) and
``worst_case_loss_``, the value of eq. (21) recomputed
from ``A_`` with NumPy, which by Theorem 3 is the maximum conditional entropy over the
distribution set; its decisions follow eq. (22), ``E_{P*}[theta(Y)|x] = grad F(A x)``.
An intercept is a constant feature left out of the penalty (its moment is matched exactly).
``route_`` says which solver produced ``A_`` (see the ``solver`` parameter).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from cvxpb.engine import conic
from cvxpb.minimax import sparse_logistic
from cvxpb.minimax.entropies import get_entropy
from cvxpb.minimax.fista import SMOOTH, fista, make_prox
from cvxpb.minimax.program import (
    NORMS,
    MinimaxSolverError,
    check_groups,
    dual_exponent,
    encode,
    minimax_program,
    penalty,
    solve_program,
)
from cvxpb.minimax.zero_one import solve_zero_one, zero_one_status
from cvxpb.threads import one_blas_thread

SOLVERS = ("auto", *conic.SOLVERS, "fista")
POLISH_STEPS = 2000  # proximal gradient steps at most when polishing a conic solution


def _check_eps(eps, size=None) -> np.ndarray:
    eps = np.asarray(eps, dtype=float)
    if eps.ndim > 1 or np.any(~np.isfinite(eps)) or np.any(eps < 0):
        raise ValueError(f"eps must be a non-negative number or 1-D array, got {eps!r}")
    if size is not None and eps.ndim == 1 and eps.size not in (1, size):
        raise ValueError(f"eps must be a number or have {size} entries, got {eps.size}")
    return eps


def _check_norm(norm) -> None:
    if norm not in NORMS:
        dual_exponent(norm)  # numbers p >= 1; raises the ValueError otherwise


def _with_intercept(X, fit_intercept):
    if not fit_intercept:
        return X, ()
    return np.hstack([X, np.ones((X.shape[0], 1))]), (X.shape[1],)


def _smooth_program(Xa, target, loss, classes, rho, norm, eps, groups, squared, free):
    """``(entropy, theta, prox)``: eq. (21) as FISTA states it (smooth ``F`` only)."""
    if loss not in SMOOTH:
        raise ValueError(f'solver="fista" needs a smooth F: loss in {SMOOTH}, got {loss!r}')
    entropy = get_entropy(loss, rho)
    if entropy.classification:
        theta = encode(target, classes)
    else:
        theta = np.asarray(target, dtype=float).reshape(-1, 1)
    if norm == "group":
        check_groups(groups, Xa.shape[1], free)
    prox = make_prox(norm, eps, theta.shape[1], Xa.shape[1], groups, squared, free)
    return entropy, theta, prox


def _fista(Xa, *program):
    entropy, theta, prox = _smooth_program(Xa, *program)
    A, _, iterations, converged = fista(entropy, Xa, theta, prox)
    if not converged:
        raise MinimaxSolverError(f"fista did not converge in {iterations} iterations")
    return A, iterations


def polish(Xa, B, *program):
    """Refine a conic solver's ``B`` by proximal gradient steps from it.

    For a smooth ``F`` and a penalty FISTA supports; else ``B`` is returned as it is. An
    interior-point solution is strictly inside the cones, so coefficients that are zero
    at the optimum come out as small non-zeros. A proximal step sets a coefficient to
    exactly zero where the optimality conditions say it is (its gradient within the
    penalty's subdifferential), and the steps stop once they no longer lower the
    objective, so the polished point is at least as good as ``B``.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    B : ndarray of shape (t, d)
        The conic solver's solution.
    *program
        ``(target, loss, classes, rho, norm, eps, groups, squared, free)``: eq. (21) as the
        estimator states it.

    Returns
    -------
    ndarray of shape (t, d)
        The polished solution, or ``B``.
    """
    try:
        entropy, theta, prox = _smooth_program(Xa, *program)
    except ValueError:
        return B
    A, objective, _, converged = fista(entropy, Xa, theta, prox, max_iter=POLISH_STEPS, A0=B)
    start = float(np.mean(entropy.value(Xa @ B.T) - np.sum(theta * (Xa @ B.T), axis=1)))
    return A if converged and objective <= start + prox.value(B) else B


def row_space(Xa, free):
    """Restate the problem on the row space of the penalized columns.

    For the rotation-invariant l2 penalties when the columns outnumber the samples. With
    ``X_pen = U S V^T`` (thin SVD), ``X_pen a = (U S)(V^T a)`` and
    ``||a||_2 >= ||V^T a||_2``, so an optimal row lies in the span of ``V``: solve for
    ``b = V^T a`` on ``U S`` (``n`` columns instead of ``d``), then ``a = V b``.

    Parameters
    ----------
    Xa : ndarray of shape (n_samples, d)
        The examples, with the intercept's column if any.
    free : sequence of int
        The columns left out of the penalty.

    Returns
    -------
    X_r : ndarray of shape (n_samples, r + len(free))
        The examples in the reduced coordinates.
    free_r : tuple of int
        The free columns' places there.
    lift : callable
        ``lift(B)``: the solution in the original coordinates.
    """
    penalized = [j for j in range(Xa.shape[1]) if j not in set(free)]
    U, S, Vt = np.linalg.svd(Xa[:, penalized], full_matrices=False)
    rank = int(np.sum(S > S[0] * 1e-12)) if S.size and S[0] > 0 else 0
    reduced = np.hstack([U[:, :rank] * S[:rank], Xa[:, list(free)]])
    free_r = tuple(range(rank, rank + len(free)))

    def lift(B):
        A = np.zeros((B.shape[0], Xa.shape[1]))
        A[:, penalized] = B[:, :rank] @ Vt[:rank]
        A[:, list(free)] = B[:, rank:]
        return A

    return reduced, free_r, lift


class _MinimaxBase(BaseEstimator):
    def _solve(self, X, target, loss, classes=None, rho=np.inf, norm=None, eps=None):
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        Xa, free = _with_intercept(X, self.fit_intercept)
        norm = self.norm if norm is None else norm
        eps = self.eps if eps is None else eps
        groups = getattr(self, "groups", None)
        squared = getattr(self, "squared", False)
        group_norm = getattr(self, "group_norm", "l2")
        Xs, free_s, lift = Xa, free, None
        if norm == "l2" and Xa.shape[1] - len(free) > Xa.shape[0]:
            Xs, free_s, lift = row_space(Xa, free)
        program = (norm, eps, groups, group_norm, squared, free_s)
        B = self._dedicated(Xs, target, loss, classes, program) if self.solver == "auto" else None
        if B is None and self.solver == "fista":
            B, self.n_iter_ = _fista(
                Xs, target, loss, classes, rho, norm, eps, groups, squared, free_s
            )
            self.status_, self.route_ = cp.OPTIMAL, "fista"
        elif B is None:
            solver = "CLARABEL" if self.solver == "auto" else self.solver
            problem, A = minimax_program(
                Xs, target, loss, norm, eps, groups, group_norm, squared, rho, free_s, classes
            )
            second = ("ECOS", "SCS") if self.solver == "auto" else ()
            used = solve_program(problem, solver, second)
            B, self.n_iter_ = np.asarray(A.value), problem.solver_stats.num_iters
            B = polish(Xs, B, target, loss, classes, rho, norm, eps, groups, squared, free_s)
            self.status_ = problem.status  # "optimal", or "optimal_inaccurate" (with a warning)
            self.route_ = f"CVXPY program, {used}"
        self.A_ = B if lift is None else lift(B)
        return Xa

    def _dedicated(self, Xs, target, loss, classes, program):
        """``B`` from a solver made for the problem (the 0-1 loss's working sets, skglm
        for binary sparse logistic regression), or ``None`` if none applies or converged."""
        norm, eps, groups, _, _, free = program
        if loss == "zero_one":
            labels = np.searchsorted(classes, target)
            used = []
            B, self.n_iter_, upper, lower = solve_zero_one(
                Xs, labels, classes.size - 1, *program, used=used
            )
            self.duality_gap_ = max(upper - lower, 0.0)
            self.status_ = zero_one_status(upper, lower)
            self.route_ = ", ".join(["working sets", *dict.fromkeys(used)])
            return B
        T = 1 if classes is None else classes.size - 1
        if not sparse_logistic.applicable(loss, T, *program, Xs.shape[1]):
            return None
        B = sparse_logistic.solve(Xs, encode(target, classes), norm, eps, groups, free)
        if B is not None:
            self.n_iter_, self.status_, self.route_ = 0, cp.OPTIMAL, "skglm"
        return B

    def _scores(self, X):
        Xa, _ = _with_intercept(X, self.fit_intercept)
        return Xa @ self.A_.T


class MinimaxClassifier(ClassifierMixin, _MinimaxBase):
    """The robust Bayes classifier against the moment set of Farnia & Tse (2016), eq. (19).

    Parameters
    ----------
    loss : {"zero_one", "brier", "log"}, default="zero_one"
        The loss whose worst case is minimized.
    norm : {"l2", "l1", "linf", "group", "l1inf"} or float p >= 1, default="l2"
        The norm of the moment constraints; each row of ``A`` pays its dual norm.
    eps : float or array of shape (n_classes - 1,), default=0.1
        The radius of each row's moment constraint (``0``: the unregularized GLM).
    groups : list of index lists, optional
        Feature groups, with ``norm="group"``.
    squared : bool, default=False
        Theorem 5's squared penalty ``sum eps_i ||A_i||_*^2``.
    randomized : bool, default=False
        With ``loss="brier"``, predict by eq. (38) (mmRBC) instead of the MAP rule.
    fit_intercept : bool, default=True
        Add a constant feature, left out of the penalty.
    random_state : int, optional
        For ``randomized`` predictions.
    solver : {"auto", "CLARABEL", "ECOS", "SCS", "fista"}, default="auto"
        ``"auto"``: a solver made for the problem where there is one (the 0-1 loss:
        working sets on the LP structure of ``F``, with a certified gap; binary log loss
        with the lasso or l2 group-lasso penalty: skglm's proximal Newton), else Clarabel
        on the CVXPY program of eq. (21). A conic solver's name: that program, the
        reference route. ``route_`` names the route taken.

    Attributes
    ----------
    classes_ : ndarray
        The classes (the last is the reference).
    A_ : ndarray of shape (n_classes - 1, d)
        The rows for all classes but the last.
    coef_, intercept_ : ndarray
        ``A_`` split into the features' part and the intercept.
    worst_case_loss_ : float
        The minimax objective at ``A_``.
    route_ : str
        The solver route taken.
    """

    def __init__(
        self,
        loss="zero_one",
        norm="l2",
        eps=0.1,
        groups=None,
        squared=False,
        randomized=False,
        fit_intercept=True,
        random_state=None,
        solver="auto",
    ):
        self.loss = loss
        self.norm = norm
        self.eps = eps
        self.groups = groups
        self.squared = squared
        self.randomized = randomized
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.solver = solver

    @one_blas_thread
    def fit(self, X, y):
        """Solve eq. (21) for ``A``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels.

        Returns
        -------
        MinimaxClassifier
            The fitted classifier.

        Raises
        ------
        MinimaxSolverError
            When no solver reaches an optimal point.
        """
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        entropy = get_entropy(self.loss)
        if not entropy.classification:
            raise ValueError(f"loss must be one of ('zero_one', 'brier', 'log'), got {self.loss!r}")
        if self.randomized and self.loss != "brier":
            raise ValueError('randomized=True is the mmRBC rule of loss="brier" only')
        _check_norm(self.norm)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"y needs at least two classes, got {self.classes_.size} class")
        _check_eps(self.eps, self.classes_.size - 1)
        Xa = self._solve(X, y, self.loss, self.classes_)
        d = X.shape[1]
        self.coef_, self.intercept_ = self.A_[:, :d], self.A_[:, d:].sum(axis=1)
        self.worst_case_loss_ = self._objective(Xa, y)
        return self

    def _objective(self, Xa, y) -> float:
        scores = Xa @ self.A_.T
        theta = encode(y, self.classes_)
        entropy = get_entropy(self.loss)
        fit = np.mean(entropy.value(scores) - np.sum(theta * scores, axis=1))
        return float(fit + self._penalty_value())

    def _penalty_value(self) -> float:
        expr = penalty(
            cp.Constant(self.coef_), self.norm, self.eps, self.groups, "l2", self.squared
        )
        return float(expr.value)

    def conditional(self, X):
        """``P*(y | x)`` of the entropy-maximizing distribution, by eq. (22).

        For every loss; for the 0-1 loss it is uniform over the top ``k`` classes of eq. (29).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probabilities.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        p = get_entropy(self.loss).gradient(self._scores(X))
        return np.hstack([p, 1 - p.sum(axis=1, keepdims=True)])

    def _has_unique_map(self):
        return self.loss in ("brier", "log")

    @available_if(_has_unique_map)
    def predict_proba(self, X):
        """:meth:`conditional`, for the Brier and log losses. Under the 0-1 loss ``P*``
        ties its top classes, so its MAP class is not a decision; use :meth:`conditional`."""
        return self.conditional(X)

    def decision_function(self, X):
        """The scores ``A x`` of the classes (the reference class, last, scores 0).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, the score of the second class against the first.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        full = np.hstack([self._scores(X), np.zeros((X.shape[0], 1))])
        return full[:, 1] - full[:, 0] if self.classes_.size == 2 else full

    def predict(self, X):
        """The robust Bayes decision.

        The MAP class (ties to the higher score), or for ``randomized`` Brier a draw with
        probabilities ``p^2 / sum p^2`` (eq. 38).

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
        if not self.randomized:
            full = np.hstack([self._scores(X), np.zeros((X.shape[0], 1))])
            return self.classes_[np.argmax(full, axis=1)]
        p = self.conditional(X) ** 2
        p /= p.sum(axis=1, keepdims=True)
        rng = check_random_state(self.random_state)
        draws = (rng.random_sample((p.shape[0], 1)) > np.cumsum(p, axis=1)).sum(axis=1)
        return self.classes_[np.minimum(draws, self.classes_.size - 1)]


class MinimaxRegressor(RegressorMixin, _MinimaxBase):
    """The robust Bayes (MMSE) regressor of Farnia & Tse (2016), Section 3.3.

    Parameters
    ----------
    norm : {"l2", "l1", "linf", "group"} or float p >= 1, default="l2"
        The moment norm: ``"linf"`` gives the lasso, ``"l2"`` with ``squared=True`` ridge.
    eps : float or array (one per group), default=0.0
        The radius of the moment constraint; ``0`` gives least squares.
    groups : list of index lists, optional
        Disjoint feature groups covering all features, with ``norm="group"``.
    group_norm : str or float, default="l2"
        Each group's moment norm (``"l2"``: the l2 group lasso).
    squared : bool, default=False
        Theorem 5's squared penalty.
    rho : float, optional
        The bound ``E[Y^2] <= rho^2`` of eq. (32), at least ``max |y|``. ``None``: the
        paper's choice, ``F = z^2/4`` solved first and ``rho = max_i |A x_i| / 2``, which
        makes the Huber ``F`` quadratic on the data, so ``A`` is optimal for it too.
    fit_intercept : bool, default=True
        Add a constant feature, left out of the penalty.
    solver : {"auto", "CLARABEL", "ECOS", "SCS", "fista"}, default="auto"
        As :class:`MinimaxClassifier`'s; ``route_`` names the route taken.

    Attributes
    ----------
    A_ : ndarray of shape (1, d [+ 1])
        The one row of ``A``.
    coef_, intercept_ : ndarray, float
        The regression ``E[Y|x] = coef_ x + intercept_ = A x / 2``.
    rho_ : float
        The ``rho`` used.
    worst_case_loss_ : float
        The minimax objective at ``A_``.
    """

    def __init__(
        self,
        norm="l2",
        eps=0.0,
        groups=None,
        group_norm="l2",
        squared=False,
        rho=None,
        fit_intercept=True,
        solver="auto",
    ):
        self.norm = norm
        self.eps = eps
        self.groups = groups
        self.group_norm = group_norm
        self.squared = squared
        self.rho = rho
        self.fit_intercept = fit_intercept
        self.solver = solver

    @one_blas_thread
    def fit(self, X, y):
        """Solve eq. (21) for ``A`` with the quadratic loss.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The targets.

        Returns
        -------
        MinimaxRegressor
            The fitted regressor.

        Raises
        ------
        ValueError
            For a ``rho`` below ``max |y|`` or a norm or ``eps`` out of range.
        """
        X, y = validate_data(self, X, y, y_numeric=True)
        _check_norm(self.norm)
        if self.norm == "l1inf":
            raise ValueError("norm='l1inf' is for RobustFeatureSelector")
        _check_eps(self.eps)
        if self.rho is not None and not self.rho >= np.max(np.abs(y)):
            raise ValueError(
                f"rho must be None or at least max|y| = {np.max(np.abs(y)):.6g} (the set "
                f"E[Y^2] <= rho^2 must hold the data, else eq. (21) can be unbounded); "
                f"got {self.rho!r}"
            )
        Xa = self._solve(X, y, "quadratic", rho=np.inf if self.rho is None else self.rho)
        scores = Xa @ self.A_[0]
        self.rho_ = float(np.max(np.abs(scores)) / 2) if self.rho is None else float(self.rho)
        d = X.shape[1]
        self.coef_, self.intercept_ = self.A_[0, :d] / 2, float(self.A_[0, d:].sum() / 2)
        entropy = get_entropy("quadratic", max(self.rho_, 1e-300))
        fit = np.mean(entropy.value(scores) - y * scores)
        A = cp.Constant(self.A_[:, :d])
        self.worst_case_loss_ = float(
            fit + penalty(A, self.norm, self.eps, self.groups, self.group_norm, self.squared).value
        )
        return self

    def predict(self, X):
        """``E_{P*}[Y | x]``: eq. (33) at ``A x``, i.e. ``A x / 2`` clipped to ``[-rho, rho]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predictions.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return get_entropy("quadratic", max(self.rho_, 1e-300)).gradient(self._scores(X))[:, 0]


class RobustFeatureSelector(SelectorMixin, _MinimaxBase):
    """Robust feature selection by the l_{1,inf} relaxation of Farnia & Tse (2016), eq. (43).

    Parameters
    ----------
    loss : {"log", "zero_one", "brier", "quadratic"}, default="log"
        The loss.
    eps : float, default=0.05
        The weight of ``||A||_{1,inf}``; larger keeps fewer features.
    n_features : int, optional
        Keep this many features, by the largest column norms ``max_i |A_ij|``;
        by default every feature whose norm exceeds ``tol`` times the largest.
    tol : float, default=1e-6
        The relative column norm below which a feature is dropped.
    fit_intercept : bool, default=True
        Add a constant feature, left out of the penalty.
    solver : {"auto", "CLARABEL", "ECOS", "SCS", "fista"}, default="auto"
        As :class:`MinimaxClassifier`'s; ``route_`` names the route taken.

    Attributes
    ----------
    A_ : ndarray
        The solution of eq. (43).
    scores_ : ndarray of shape (n_features,)
        ``max_i |A_ij|`` per feature.
    worst_case_loss_ : float
        The objective of eq. (43).
    """

    def __init__(
        self, loss="log", eps=0.05, n_features=None, tol=1e-6, fit_intercept=True, solver="auto"
    ):
        self.loss = loss
        self.eps = eps
        self.n_features = n_features
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.solver = solver

    @one_blas_thread
    def fit(self, X, y):
        """Solve eq. (43) and score the features.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels or targets.

        Returns
        -------
        RobustFeatureSelector
            The fitted selector.
        """
        X, y = validate_data(self, X, y)
        entropy = get_entropy(self.loss)
        classes = None
        if entropy.classification:
            check_classification_targets(y)
            classes = np.unique(y)
            if classes.size < 2:
                raise ValueError(f"y needs at least two classes, got {classes.size} class")
        if _check_eps(self.eps).ndim != 0:
            raise ValueError("eps must be a single number for the l1,inf penalty")
        if self.n_features is not None and not 1 <= self.n_features <= X.shape[1]:
            raise ValueError(f"n_features must be in [1, {X.shape[1]}], got {self.n_features}")
        self._solve(X, y, self.loss, classes, norm="l1inf")
        self.scores_ = np.max(np.abs(self.A_[:, : X.shape[1]]), axis=0)
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        if self.n_features is not None:
            keep = np.zeros(self.scores_.size, dtype=bool)
            keep[np.argsort(-self.scores_, kind="stable")[: self.n_features]] = True
            return keep
        top = self.scores_.max()
        return self.scores_ > self.tol * top if top > 0 else np.zeros_like(self.scores_, bool)
