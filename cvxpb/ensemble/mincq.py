"""MinCq (Germain, Lacasse, Laviolette, Marchand and Roy, 2015): the vote that minimizes the
empirical C-bound at a chosen margin.

For two classes, with each voter's output ``h_i(x)`` in {-1, +1} and ``y`` in {-1, +1},
the vote ``sign(sum_i w_i h_i(x))`` errs only where its margin ``y sum_i w_i h_i(x)`` is at
most 0, and the C-bound (Chebyshev-Cantelli on the margin) bounds that by
``1 - E[margin]^2 / E[margin^2]``. MinCq votes with the voters and their complements
``-h_i``, weighted ``Q_i`` and ``1/H - Q_i`` (a quasi-uniform posterior over ``2H``
voters), so the vote's weights are ``w = 2 Q - 1/H``. It fixes the margin's first moment
on the sample at ``mu`` and minimizes its second moment, a convex quadratic program:

``min_Q Q^T M Q - a^T Q``  subject to  ``m^T Q = mu / 2 + sum(m) / (2H)``,
``0 <= Q_i <= 1/H``,

with ``m_i`` the mean of ``y h_i``, ``M_ij`` the mean of ``h_i h_j`` and ``a = M 1 / H``
(``E[margin^2] = 4 (Q^T M Q - a^T Q) + 1^T M 1 / H^2``). This module solves it with
CVXPY and reports the empirical C-bound and Germain et al.'s PAC-Bound 1 for the
posterior over the ``2H`` voters (:func:`cvxpb.ensemble.bounds.c_bound`, uniform prior).
"""

from __future__ import annotations

import dataclasses

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.engine.declare.problem import Minimize
from cvxpb.engine.declare.terms import Posterior
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.classifier import VoterMixin
from cvxpb.threads import one_blas_thread
from cvxpb.validation import BinaryOnly, binary_classes, check_delta


@dataclasses.dataclass(frozen=True)
class MinCqResult:
    """MinCq's program and what it gives.

    Parameters
    ----------
    status : str
        The solver's status (``"optimal"``, or its word for what went wrong).
    weights : ndarray of shape (H,)
        The vote's weights on the voters, ``2 Q - 1/H``, each in ``[-1/H, 1/H]``.
    posterior : ndarray of shape (2H,)
        ``(Q, 1/H - Q)``: the posterior over the voters and their complements.
    first_moment : float
        The margin's mean on the sample (``mu``, up to the solver's tolerance).
    second_moment : float
        The margin's mean square on the sample.
    empirical_c_bound : float
        ``1 - first_moment^2 / second_moment``.
    pac_bound : float
        Germain et al.'s PAC-Bound 1 at ``posterior`` (valid with probability ``1 - delta``
        where the posterior was chosen on other data than the bound's; see the class).
    message : str
        The solver's message, if any.
    """

    status: str
    weights: np.ndarray
    posterior: np.ndarray
    first_moment: float
    second_moment: float
    empirical_c_bound: float
    pac_bound: float
    message: str = ""

    def __str__(self) -> str:
        """The result in words: the margin's moments, the empirical C-bound, the bound."""
        vacuous = " (vacuous)" if self.pac_bound >= 1 else ""
        lines = [
            f"MinCq: {self.status}; the margin's mean {self.first_moment:.4g} and mean "
            f"square {self.second_moment:.4g} on the sample",
            f"  empirical C-bound {self.empirical_c_bound:.4g} (1 - mean^2 / mean square: "
            "the vote's risk on the sample is at most this)",
            f"  PAC-Bound 1 at the posterior {self.pac_bound:.4g}{vacuous}: with probability "
            "1 - delta, where the posterior was chosen on other data than the bound's",
            f"  weights on {self.weights.size} voters, from {self.weights.min():.3g} to "
            f"{self.weights.max():.3g} (each within 1/H = {1 / self.weights.size:.3g})",
        ]
        return "\n".join(lines + ([f"  solver: {self.message}"] if self.message else []))


def margin_moments(signs, votes):
    """``m`` (each voter's mean of ``y h``) and ``M`` (each pair's mean of ``h h'``).

    Parameters
    ----------
    signs : array_like of shape (n,)
        The labels as -1 and +1.
    votes : array_like of shape (n, H)
        The voters' outputs as -1 and +1.

    Returns
    -------
    m : ndarray of shape (H,)
        The first moments.
    M : ndarray of shape (H, H)
        The second moments.
    """
    V = np.asarray(votes, dtype=float)
    n = V.shape[0]
    return np.asarray(signs, dtype=float) @ V / n, V.T @ V / n


def largest_margin(m) -> float:
    """The largest first moment of the margin a quasi-uniform posterior reaches.

    Each voter or its complement, whichever agrees more with the labels, at full weight.

    Parameters
    ----------
    m : array_like of shape (H,)
        The voters' first moments.

    Returns
    -------
    float
        ``mean(|m|)``.
    """
    return float(np.mean(np.abs(m)))


def solve_mincq(m, M, mu, solver="CLARABEL"):
    """Solve MinCq's quadratic program.

    Parameters
    ----------
    m : array_like of shape (H,)
        The voters' first moments of the margin.
    M : array_like of shape (H, H)
        Their second moments (a Gram matrix).
    mu : float
        The margin's first moment to reach, in ``(0, mean(|m|)]``.
    solver : str, default="CLARABEL"
        CVXPY's solver.

    Returns
    -------
    status : str
        CVXPY's status, or ``"solver_error"``.
    Q : ndarray of shape (H,) or None
        The weights ``Q`` (None where the solver failed).
    message : str
        The solver's message where it failed.

    Raises
    ------
    ValueError
        For ``mu`` outside ``(0, mean(|m|)]``, before any work.
    """
    m, M = np.asarray(m, dtype=float), np.asarray(M, dtype=float)
    top = largest_margin(m)
    if not (isinstance(mu, (int, float)) and 0 < mu <= top):
        raise ValueError(
            f"mu must lie in (0, {top:.6g}], the largest margin these voters reach, got {mu!r}"
        )
    H = m.size
    Q = cp.Variable(H)
    gram = cp.psd_wrap((M + M.T) / 2)  # a Gram matrix, as the engine's terms declare theirs
    objective = cp.quad_form(Q, gram) - (M.sum(axis=0) / H) @ Q
    constraints = [m @ Q == mu / 2 + m.sum() / (2 * H), Q >= 0, Q <= 1 / H]
    problem = cp.Problem(cp.Minimize(objective), constraints)
    try:
        problem.solve(solver=solver)
    except cp.error.SolverError as error:
        return "solver_error", None, str(error)
    if Q.value is None:
        return problem.status, None, f"{solver} returned no point ({problem.status})"
    return problem.status, np.clip(Q.value, 0.0, 1 / H), ""


class MinCqClassifier(BinaryOnly, VoterMixin, ClassifierMixin, BaseEstimator):
    """MinCq: the two-class vote whose weights minimize the empirical C-bound at margin ``mu``.

    The voters are fitted and measured as
    :class:`cvxpb.ensemble.classifier.MajorityVoteClassifier` does
    (``validation="split"`` fits them on one part and runs MinCq on the other;
    ``"prefit"`` takes fitted voters and runs it on all of ``X``). The posterior is chosen
    on the same sample its PAC-Bound 1 is measured on, as Germain et al. report it; the
    bound at the posterior is valid as the PAC-Bayesian bounds are, for every posterior
    at once.

    Parameters
    ----------
    estimator : ensemble, list of classifiers, or None
        The voters (as for :class:`cvxpb.ensemble.classifier.MajorityVoteClassifier`).
    mu : float, default=0.05
        The margin's first moment, in ``(0, mean(|m|)]`` (Germain et al. choose it by
        cross-validation).
    delta : float, default=0.05
        The confidence of the PAC-Bound reported.
    validation : {"split", "prefit"}, default="split"
        Where MinCq's sample comes from.
    test_size : float, default=0.5
        The held-out share for ``"split"``.
    random_state : int or None
        Seeds the default forest and the split.

    Attributes
    ----------
    result_ : MinCqResult
        The program's solution, moments and bounds.
    weights_ : ndarray of shape (H,)
        The vote's weights on the voters.
    """

    def __init__(
        self,
        estimator=None,
        mu=0.05,
        delta=0.05,
        validation="split",
        test_size=0.5,
        random_state=None,
    ):
        self.estimator = estimator
        self.mu = mu
        self.delta = delta
        self.validation = validation
        self.test_size = test_size
        self.random_state = random_state

    @one_blas_thread
    def fit(self, X, y):
        """Fit (or take) the voters and solve MinCq on the sample that measures them.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            Two classes.

        Returns
        -------
        MinCqClassifier
            The fitted classifier.

        Raises
        ------
        ValueError
            For more than two classes, ``validation`` other than ``"split"`` or
            ``"prefit"``, a bad ``delta`` or ``test_size``, or ``mu`` above the largest
            margin the voters reach (named in the message).
        """
        if self.validation not in ("split", "prefit"):
            raise ValueError(f"validation must be 'split' or 'prefit', got {self.validation!r}")
        check_delta(self.delta)
        self._check_test_size()
        X, y = validate_data(self, X, y)
        self.classes_ = binary_classes(y, "MinCq")
        X_bound, y_bound, _ = self._fit_voters(X, y)
        votes = np.where(self._member_votes(X_bound) == self.classes_[1], 1.0, -1.0)
        signs = np.where(y_bound == self.classes_[1], 1.0, -1.0)
        m, M = margin_moments(signs, votes)
        status, Q, message = solve_mincq(m, M, self.mu)
        H = m.size
        if Q is None:
            Q = np.full(H, 0.5 / H)  # the uniform vote of each voter and its complement
        self.weights_ = 2 * Q - 1 / H
        self.posterior_ = np.concatenate([Q, 1 / H - Q])
        first, second = float(m @ self.weights_), float(self.weights_ @ M @ self.weights_)
        self.result_ = MinCqResult(
            status=status,
            weights=self.weights_,
            posterior=self.posterior_,
            first_moment=first,
            second_moment=second,
            empirical_c_bound=1 - first**2 / second if second > 0 else 1.0,
            pac_bound=self._pac_bound(votes, signs),
            message=message,
        )
        return self

    def _pac_bound(self, votes, signs):
        """Germain et al.'s PAC-Bound 1 at the posterior over the voters and complements."""
        doubled = np.hstack([votes, -votes])
        risks = np.mean(doubled != signs[:, None], axis=0)
        q = Posterior.uniform(doubled.shape[1])
        declared = mv.c_bound(q, risks, doubled.shape[0], doubled, self.delta)
        return Minimize(declared).value_at(self.posterior_)

    def decision_function(self, X):
        """The vote's weighted sum ``sum_i w_i h_i(x)``: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The sums.
        """
        check_is_fitted(self, "weights_")
        votes = self._member_votes(validate_data(self, X, reset=False))
        return np.where(votes == self.classes_[1], 1.0, -1.0) @ self.weights_

    def predict(self, X):
        """The vote: ``classes_[1]`` where the weighted sum is positive, else ``classes_[0]``.

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

    def predict_proba(self, X):
        """The share of the posterior over the ``2H`` voters that votes for each class.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Rows sum to 1.
        """
        positive = 0.5 + 0.5 * self.decision_function(X)  # sum w h in [-1, 1]
        positive = np.clip(positive, 0.0, 1.0)
        return np.stack([1 - positive, positive], axis=1)
