"""Farnia & Tse's Table 1 setting: minimax classifiers against SVM and logistic regression.

Each run splits a dataset at random 70 : 30 into training and test parts. Each method's
``lam`` in ``{2^-10, ..., 2^10}`` is chosen on a random 70 : 30 split of the training
part; the method is refitted on the whole training part and its test error recorded.
The minimax classifiers carry the paper's ``lam ||alpha||_2^2`` penalty (``squared=True``,
Theorem 5); the baselines are scikit-learn's linear ``SVC`` and ``LogisticRegression``
with the same penalty (``C = 1 / (2 lam n)``), and the minimax probability machine
(Lanckriet et al., 2002) with ``lam I`` added to its covariances. Features are standardized on the
training part. The paper averages 1000 runs; ``runs`` sets how many here, and the table
gives their mean and standard error.

The synthetic high-dimensional experiment of the paper (``n = 200``, ``d = 10000``
Bernoulli(0.75) features, ``y = sign(gamma^T x + z)``) is :func:`synthetic`.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb import jsonout
from cvxpb.app import datasets
from cvxpb.app.experiments import (
    check_plan,
    first_warning,
    load_progress,
    recorded_warnings,
    save_progress,
)
from cvxpb.files import written_together
from cvxpb.minimax.estimators import MinimaxClassifier
from cvxpb.minimax.mpm import MinimaxProbabilityMachine

LAMBDAS = 2.0 ** np.arange(-10, 11)
DATASETS = ("hepatitis", "crx", "australian", "pima", "ionosphere", "bupa")
METHODS = ("mmSVM", "mmBC", "mmRBC", "SVM", "LogReg", "Majority", "MPM")
DEFAULT_METHODS = METHODS[:5]


def make(method: str, lam: float, n: int, random_state=None):
    """The estimator ``method`` with penalty ``lam ||w||^2`` on ``n`` training examples.

    For ``"MPM"``, the minimax probability machine, ``lam I`` is added to the
    covariances.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    lam : float
        The penalty.
    n : int
        The training examples.
    random_state : int, optional
        Seeds a randomized estimator.

    Returns
    -------
    estimator
        An unfitted scikit-learn estimator.
    """
    if method in ("mmSVM", "mmBC", "mmRBC"):
        return MinimaxClassifier(
            loss="zero_one" if method == "mmSVM" else "brier",
            eps=lam,
            squared=True,
            randomized=method == "mmRBC",
            random_state=random_state,
        )
    C = 1 / (2 * lam * n)
    if method == "SVM":
        return SVC(kernel="linear", C=C)
    if method == "LogReg":
        return LogisticRegression(C=C, max_iter=10_000)
    if method == "MPM":
        return MinimaxProbabilityMachine(reg=lam)
    if method == "Majority":  # the reference: predict the training part's majority class
        return DummyClassifier(strategy="most_frequent")
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def _error(estimator, X, y) -> float:
    return float(np.mean(estimator.predict(X) != y))


def select_and_test(method, X, y, X_test, y_test, lambdas, rng):
    """Choose ``lam`` on a 70 : 30 split of ``(X, y)``, refit, and test.

    Parameters
    ----------
    method : str
        The method.
    X : ndarray
        The training examples.
    y : ndarray
        Their labels.
    X_test : ndarray
        The test examples.
    y_test : ndarray
        Their labels.
    lambdas : array_like
        The penalties to choose from.
    rng : numpy.random.Generator
        The run's random stream.

    Returns
    -------
    lam : float
        The penalty chosen.
    error : float
        The test error.
    """
    seed = int(rng.integers(2**31))
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.3, random_state=seed)
    errors = [
        _error(make(method, lam, y_fit.size, seed).fit(X_fit, y_fit), X_val, y_val)
        for lam in lambdas
    ]
    best = float(lambdas[int(np.argmin(errors))])
    return best, _error(make(method, best, y.size, seed).fit(X, y), X_test, y_test)


def one_run(X, y, methods, lambdas, rng) -> list[dict]:
    """One random 70 : 30 split, every method.

    Parameters
    ----------
    X : ndarray
        The examples.
    y : ndarray
        The labels.
    methods : sequence of str
        The methods.
    lambdas : array_like
        The penalties to choose from.
    rng : numpy.random.Generator
        The run's random stream.

    Returns
    -------
    list of dict
        Rows of (method, lam, test error, seconds).
    """
    seed = int(rng.integers(2**31))
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=seed)
    if np.unique(y_train).size < 2:
        raise ValueError("a training split has one class only; use more data")
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    rows = []
    for method in methods:
        start = time.perf_counter()
        with recorded_warnings() as caught:
            lam, error = select_and_test(method, X_train, y_train, X_test, y_test, lambdas, rng)
        rows.append(
            {
                "method": method,
                "lambda": lam,
                "test error": error,
                "seconds": time.perf_counter() - start,
                "warnings": len(caught),
                "warning": first_warning(caught),
            }
        )
    return rows


def synthetic(n: int = 200, d: int = 10_000, random_state=0):
    """The paper's high-dimensional data, as it states them.

    ``X_i ~ Bernoulli(0.75)``, ``y = sign(gamma^T x + z)``, ``z ~ N(0, 1)``. The paper
    does not give ``gamma``; here ``gamma ~ N(0, I / d)``. With uncentered ``x`` the term
    ``0.75 sum_i gamma_i`` is one offset for all examples, so the classes are unbalanced
    by an amount that depends on the draw; compare the methods with the ``Majority``
    rule.

    Parameters
    ----------
    n : int, default=200
        The examples.
    d : int, default=10000
        The features.
    random_state : int, default=0
        Seeds the draw.

    Returns
    -------
    Dataset
        The data.
    """
    rng = np.random.default_rng(random_state)
    X = (rng.random((n, d)) < 0.75).astype(float)
    gamma = rng.normal(size=d) / np.sqrt(d)
    y = np.where(X @ gamma + rng.normal(size=n) > 0, 1, -1)
    return datasets.Dataset("synthetic", X, y, f"Farnia & Tse's Bernoulli data, n={n}, d={d}")


def run_experiment(
    names,
    runs=20,
    methods=DEFAULT_METHODS,
    lambdas=LAMBDAS,
    random_state=0,
    progress=True,
    keep=None,
    resume=False,
) -> pd.DataFrame:
    """Run every ``(dataset, run, method)``; ``"synthetic"`` is :func:`synthetic`.

    The runs draw their splits from one random stream in turn. With ``keep`` the rows so
    far and the stream's state are saved after every run, so a resumed run gives the rows
    an uninterrupted one would.

    Parameters
    ----------
    names : sequence of str
        The data sets.
    runs : int, default=20
        The repetitions.
    methods : sequence of str, default=DEFAULT_METHODS
        The methods.
    lambdas : array_like, default=LAMBDAS
        The penalties to choose from.
    random_state : int, default=0
        Seeds the stream.
    progress : bool, default=True
        Show a bar over the units of work.
    keep : str or path, optional
        A directory where finished work is saved at once.
    resume : bool, default=False
        Take back the work saved under ``keep`` with the same settings.

    Returns
    -------
    pandas.DataFrame
        Every row.
    """
    from tqdm.auto import tqdm

    check_plan(runs, methods, METHODS)
    rng = np.random.default_rng(random_state)
    jobs = [(name, k) for name in names for k in range(runs)]
    settings = jsonout.plain([list(names), runs, list(methods), list(lambdas), random_state])
    rows, start = load_progress(_progress_path(keep), settings, rng) if resume else ([], 0)
    for index in tqdm(range(start, len(jobs)), desc="runs", disable=not progress):
        name, k = jobs[index]
        data = synthetic() if name == "synthetic" else datasets.load(name)
        for row in one_run(data.X, data.y, methods, np.asarray(lambdas), rng):
            rows.append({"dataset": name, "run": k, **row})
        save_progress(_progress_path(keep), settings, rows, index + 1, rng)
    return pd.DataFrame(rows)


def _progress_path(keep):
    from pathlib import Path

    return None if keep is None else Path(keep) / "minimax.joblib"


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean test error (%) and its standard error per data set and method (Table 1).

    Parameters
    ----------
    rows : pandas.DataFrame
        The runs' rows.

    Returns
    -------
    pandas.DataFrame
        The summary.
    """
    grouped = rows.groupby(["dataset", "method"], sort=False)["test error"]
    table = pd.DataFrame(
        {"error %": 100 * grouped.mean(), "se %": 100 * grouped.sem(), "runs": grouped.size()}
    )
    if "warnings" in rows:
        table["warnings"] = rows.groupby(["dataset", "method"], sort=False)["warnings"].sum()
    return table.reset_index()


@written_together("minimax")
def write(rows: pd.DataFrame, out, plots: bool = True) -> list:
    """Write the runs, their summary, a JSON and the figure under ``out``.

    ``minimax_runs.csv``, ``minimax.csv`` (:func:`summary`), ``minimax.json`` and, with
    ``plots``, ``minimax.png`` (each method's test error with its standard error).

    Parameters
    ----------
    rows : pandas.DataFrame
        The runs' rows.
    out : str or path
        The directory.
    plots : bool, default=True
        Draw the figure.

    Returns
    -------
    list of path
        The files written.
    """
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "minimax_runs.csv", out / "minimax.csv", out / "minimax.json"]
    table = summary(rows)
    rows.to_csv(paths[0], index=False, float_format="%.6g")
    table.to_csv(paths[1], index=False, float_format="%.4g")
    payload = {"summary": table.to_dict(orient="records"), "runs": rows.to_dict(orient="records")}
    paths[2].write_text(jsonout.dumps(payload, indent=1))
    if plots:
        from cvxpb.app.plots import plot_table

        title = "Farnia & Tse (2016), Table 1: test error, mean and standard error"
        paths.append(plot_table(table, "dataset", "error %", "se %", "test error %", title,
                                out / "minimax.png"))  # fmt: skip
    return paths
