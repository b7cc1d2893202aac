"""The finite family of RBF SVMs of Sahu & Hemachandra, Section 7: one per regularization parameter.

Each ``lam`` gets its own random split of the data into ``m`` training and ``v``
validation examples (overlaps between classifiers allowed, as in the paper); its
empirical risk is measured on its validation part. The RBF width is estimated as
kernlab's ``ksvm`` does by default (``sigest``). Training runs through joblib, so
``n_jobs`` spreads it over cores and joblib's Dask backend over a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from joblib import delayed
from sklearn.dummy import DummyClassifier
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from cvxpb.parallel import run_parallel
from cvxpb.svm.grid import COSTS, check_cost, check_lambdas, svm_C


def sigest(X, frac: float = 0.5, random_state=None) -> float:
    """The automatic RBF width of kernlab's ``sigest``.

    ``mean(1 / q_0.9, 1 / q_0.1)`` of the squared distances between ``floor(frac * n)``
    random pairs of rows (zero distances dropped); ``exp(-gamma ||x - x'||^2)`` is the
    kernel of both kernlab's ``rbfdot`` and scikit-learn.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The examples.
    frac : float, default=0.5
        The share of ``n`` that gives the number of random pairs.
    random_state : int, Generator or None, default=None
        Seeds the pairs.

    Returns
    -------
    float
        ``gamma``.
    """
    X = np.asarray(X, dtype=float)
    rng = np.random.default_rng(random_state)
    n = max(int(np.floor(frac * X.shape[0])), 2)
    first, second = rng.integers(0, X.shape[0], n), rng.integers(0, X.shape[0], n)
    distances = np.sum((X[first] - X[second]) ** 2, axis=1)
    distances = distances[distances > 0]
    if distances.size == 0:
        return 1.0
    q10, q90 = np.quantile(distances, [0.1, 0.9])
    return float((1 / q90 + 1 / q10) / 2)


@dataclass(frozen=True, eq=False)
class SVMFamily:
    """Trained SVMs, one per ``lam``, with their validation risks (the bound's data).

    Parameters
    ----------
    lambdas : ndarray of shape (H,)
        The regularization parameters.
    estimators : list
        The fitted classifiers, one per ``lam``.
    risks : ndarray of shape (H,)
        Each one's risk on its validation examples.
    m : int
        The validation examples per classifier: the sample size of the risks.
    gamma : float
        The RBF width they share.
    """

    lambdas: np.ndarray
    estimators: list
    risks: np.ndarray
    m: int  # validation examples per classifier: the sample size of the risks
    gamma: float

    def votes(self, X, which=None) -> np.ndarray:
        """The predictions in {-1, +1} of the SVMs ``which``.

        The SVMs share one RBF width and draw their support vectors from the same data, so
        the kernel between ``X`` and the union of their support vectors is computed once,
        and each SVM's decision function is a product with it; the labels are exactly
        ``SVC.predict``'s (``classes_[decision > 0]``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        which : array_like of int or bool, optional
            Indices or a mask of the SVMs; all by default.

        Returns
        -------
        ndarray of shape (n_samples, len(which))
            The labels.
        """
        X = np.asarray(X, dtype=float)
        chosen = np.arange(len(self.estimators))
        if which is not None:
            chosen = chosen[which]
        svms = [i for i in chosen if isinstance(self.estimators[i], SVC)]
        votes = np.empty((X.shape[0], chosen.size), dtype=int)
        if svms:
            vectors = np.concatenate([self.estimators[i].support_vectors_ for i in svms])
            union, where = np.unique(vectors, axis=0, return_inverse=True)
            where = where.reshape(-1)  # NumPy 2.0.0 returns it with shape (n, 1)
            kernel = rbf_kernel(X, union, gamma=self.gamma)
            starts = np.cumsum([0, *(self.estimators[i].support_vectors_.shape[0] for i in svms)])
            decisions = {
                i: kernel[:, where[a:b]] @ self.estimators[i].dual_coef_[0]
                + self.estimators[i].intercept_[0]
                for i, a, b in zip(svms, starts[:-1], starts[1:], strict=True)
            }
        for column, i in enumerate(chosen):
            est = self.estimators[i]
            if i in svms:
                votes[:, column] = est.classes_[(decisions[i] > 0).astype(int)]
            else:
                votes[:, column] = est.predict(X)
        return votes


def _fit_one(X, y, lam, gamma, train_size, seed, cost):
    rng = np.random.default_rng(seed)
    order = rng.permutation(y.size)
    train, val = order[:train_size], order[train_size:]
    if np.unique(y[train]).size < 2:  # a one-class subsample: a constant classifier
        est = DummyClassifier(strategy="most_frequent").fit(X[train], y[train])
    else:
        C = svm_C(lam, train_size, cost)
        est = SVC(C=C, kernel="rbf", gamma=gamma).fit(X[train], y[train])
    return est, float(np.mean(est.predict(X[val]) != y[val]))


def fit_family(
    X,
    y,
    lambdas,
    train_fraction: float = 0.5,
    gamma: float | None = None,
    n_jobs=None,
    random_state=None,
    progress: bool = False,
    cost: str = COSTS[0],
) -> SVMFamily:
    """Train one SVM per ``lam`` (``C = 1 / (lam m)`` by default) on its own random split.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The examples.
    y : ndarray of shape (n_samples,)
        The labels, in {-1, +1}.
    lambdas : array_like of shape (H,)
        The regularization parameters.
    train_fraction : float, default=0.5
        Share of the examples each SVM trains on (Sahu & Hemachandra: m = v); the rest
        validate it.
    gamma : float, optional
        RBF width; by default :func:`sigest` on ``X``.
    n_jobs : int, optional
        The number of workers (joblib's; under ``joblib.parallel_config(backend="dask")``
        a Dask cluster's).
    random_state : int, Generator or None, default=None
        Seeds the splits and the width.
    progress : bool, default=False
        A tqdm bar over the SVMs.
    cost : {"1/(lam n)", "1/lam"}, default="1/(lam n)"
        How ``lam`` becomes libsvm's ``C`` (:data:`cvxpb.svm.grid.COSTS`).

    Returns
    -------
    SVMFamily
        The SVMs and their validation risks.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    lambdas, cost = check_lambdas(lambdas), check_cost(cost)
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must lie in (0, 1), got {train_fraction}")
    train_size = int(round(train_fraction * y.size))
    if not 1 <= train_size < y.size:
        raise ValueError(f"{y.size} examples cannot be split with train_fraction={train_fraction}")
    seeds = np.random.SeedSequence(random_state).spawn(lambdas.size + 1)
    gamma = sigest(X, random_state=seeds[-1]) if gamma is None else float(gamma)
    jobs = (
        delayed(_fit_one)(X, y, lam, gamma, train_size, seed, cost)
        for lam, seed in zip(lambdas, seeds[:-1], strict=False)
    )
    fitted = run_parallel(jobs, lambdas.size, n_jobs, progress, "SVMs", "svm")
    return SVMFamily(
        lambdas,
        [f[0] for f in fitted],
        np.array([f[1] for f in fitted]),
        y.size - train_size,
        gamma,
    )
