"""Parrado-Hernández et al. (2012), Section 5: SVMs and prior SVMs selected by PAC-Bayes bounds.

Each repetition splits the data 80 : 20 at random (the paper uses 50 repetitions) and
standardizes it on the training part; a ``fraction`` of the training part is used
(the paper's 20%, 30%, ..., 100%). Over the paper's grid ``C in {0.01, ..., 10000}`` and
``sigma in {1/4, 1/2, 1, 2, 4} sqrt(d)`` (``gamma = 1 / (2 sigma^2)``) every method is
trained and bounded; each method keeps the grid point of least bound ("model selection
plus classification"), whose bound and test error are reported. Methods:

* ``SVM+PB``, ``SVM+PriorPB``, ``SVM+tauPB``, ``SVM+EPB``, ``SVM+tauEPB``: one SVM on
  the whole training part, bounded by Langford's bound, the mixture prior (J = 10,
  prior from half of the training part, bound on the other half), the tau prior
  (tau = 50), the mixture-expectation prior and the tau-expectation prior;
* ``PriorSVM``: the prior SVM with the mixture-prior bound;
* ``EtaPriorSVM``: the eta-prior SVM with the tau-prior bound;
* ``PriorSVM-2C``, ``EtaPriorSVM-2C`` (not run by default): the same with the prior's
  ``C`` searched over the grid as well (the paper's Table 4).

``delta = 0.01`` throughout, as in the paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import delayed
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb import datasets
from cvxpb.experiments import check_plan
from cvxpb.parallel import run_kept
from cvxpb.svm.prior_bounds import DEFAULT_ETAS, svm_pac_bayes_bound
from cvxpb.svm.prior_svm import EtaPriorSVM, PriorSVM

C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)
SIGMA_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
SVM_BOUNDS = {
    "SVM+PB": "langford",
    "SVM+PriorPB": "prior",
    "SVM+tauPB": "tau",
    "SVM+EPB": "expectation",
    "SVM+tauEPB": "tau_expectation",
}
PRIOR_SVMS = {
    "PriorSVM": PriorSVM,
    "EtaPriorSVM": EtaPriorSVM,
    "PriorSVM-2C": PriorSVM,
    "EtaPriorSVM-2C": EtaPriorSVM,
}
METHODS = (*SVM_BOUNDS, *PRIOR_SVMS)
DEFAULT_METHODS = METHODS[:7]  # the 2C variants fit one prior SVM per prior C: 7x the work
DELTA = 0.01


def _error(clf, X, y) -> float:
    return float(np.mean(clf.predict(X) != y))


def grid_point(X, y, X_test, y_test, C, gamma, seed, methods=METHODS, c_grid=C_GRID) -> list[dict]:
    """Every method at one ``(C, gamma)``: rows of (method, bound, test error)."""
    rows = []
    X_prior, X_rest, y_prior, y_rest = train_test_split(
        X, y, train_size=0.5, stratify=y, random_state=seed
    )
    svc = SVC(C=C, gamma=gamma).fit(X, y)
    prior_svc = SVC(C=C, gamma=gamma).fit(X_prior, y_prior)
    for method, prior in SVM_BOUNDS.items():
        if method not in methods:
            continue
        held_out = prior in ("prior", "tau")
        result = svm_pac_bayes_bound(
            svc,
            X_rest if held_out else X,
            y_rest if held_out else y,
            prior=prior,
            delta=DELTA,
            prior_svc=prior_svc,
            etas=DEFAULT_ETAS if prior != "tau_expectation" else [DEFAULT_ETAS[0]],
        )
        rows.append(
            {"method": method, "bound": result.bound, "test error": _error(svc, X_test, y_test)}
        )
    for method, kind in PRIOR_SVMS.items():
        if method not in methods:
            continue
        # the "2C" variants also search the prior's C over the grid (Section 5.2.2)
        priors = c_grid if method.endswith("-2C") else (C,)
        fits = [
            kind(C=C, C_prior=c, gamma=gamma, delta=DELTA, random_state=seed).fit(X, y)
            for c in priors
        ]
        best = min(fits, key=lambda clf: clf.bound_)
        rows.append(
            {
                "method": method,
                "bound": best.bound_,
                "test error": _error(best, X_test, y_test),
                "C prior": best.C_prior,
            }
        )
    return [row | {"C": C, "gamma": gamma} for row in rows]


def _split(data, k, fraction, random_state):
    """Repetition ``k``'s 80 : 20 split, a ``fraction`` of its training part, standardized."""
    seed = int(np.random.SeedSequence([random_state, k]).generate_state(1)[0])
    X, X_test, y, y_test = train_test_split(
        data.X, data.y, test_size=0.2, stratify=data.y, random_state=seed
    )
    if fraction < 1:
        X, _, y, _ = train_test_split(X, y, train_size=fraction, stratify=y, random_state=seed)
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test, seed


def grid_cell(data, k, fraction, factor, C, methods, random_state, c_grid=C_GRID) -> list[dict]:
    """Every method at one ``(sigma factor, C)`` of repetition ``k``: the unit of work."""
    X, y, X_test, y_test, seed = _split(data, k, fraction, random_state)
    gamma = 1 / (2 * (factor * np.sqrt(X.shape[1])) ** 2)
    where = {"dataset": data.name, "run": k, "fraction": fraction, "m": y.size}
    return [
        {**where, "sigma factor": factor, **row}
        for row in grid_point(X, y, X_test, y_test, C, gamma, seed, methods, c_grid)
    ]


def repetition(
    data, k, fraction, methods, random_state, c_grid=C_GRID, sigma_factors=SIGMA_FACTORS
) -> list[dict]:
    """One 80 : 20 split, a ``fraction`` of its training part, the whole grid."""
    return [
        row
        for factor in sigma_factors
        for C in c_grid
        for row in grid_cell(data, k, fraction, factor, C, methods, random_state, c_grid)
    ]


def run_experiment(
    names,
    runs=5,
    fractions=(1.0,),
    methods=DEFAULT_METHODS,
    random_state=0,
    n_jobs=None,
    progress=True,
    c_grid=C_GRID,
    sigma_factors=SIGMA_FACTORS,
    keep=None,
    resume=False,
) -> pd.DataFrame:
    """The whole grid for every dataset, repetition and fraction (a tidy table).

    The unit of work is a grid cell (one ``C`` and ``sigma`` of one repetition); the
    progress bar counts them. With ``keep`` (a directory) each finished cell is saved
    there at once, and ``resume=True`` takes the saved ones back (those made with the
    same settings)."""
    check_plan(runs, methods, METHODS)
    if any(not 0 < f <= 1 for f in fractions):
        raise ValueError(f"fractions must lie in (0, 1], got {fractions}")
    jobs = [
        (name, k, f, factor, C)
        for name in names
        for k in range(runs)
        for f in fractions
        for factor in sigma_factors
        for C in c_grid
    ]
    loaded = {name: datasets.load(name) for name in names}
    tasks = (
        delayed(grid_cell)(loaded[n], k, f, factor, C, methods, random_state, c_grid)
        for n, k, f, factor, C in jobs
    )
    keys = [[*job, list(methods), random_state, list(c_grid)] for job in jobs]
    results = run_kept(tasks, keys, keep, resume, n_jobs, progress, "grid cells", "cell")
    return pd.DataFrame([row for rows in results for row in rows])


def selected(grid: pd.DataFrame) -> pd.DataFrame:
    """Per repetition and method, the grid point of least bound (model selection)."""
    keys = ["dataset", "fraction", "run", "method"]
    best = grid.loc[grid.groupby(keys, sort=False)["bound"].idxmin()]
    return best.reset_index(drop=True)


def summary(grid: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over repetitions of the selected bound and test
    error (the paper's Tables 2-5)."""
    best = selected(grid)
    grouped = best.groupby(["dataset", "fraction", "method"], sort=False)
    table = grouped.agg(
        bound=("bound", "mean"),
        bound_sd=("bound", "std"),
        test_error=("test error", "mean"),
        test_error_sd=("test error", "std"),
        runs=("run", "nunique"),
    )
    return table.reset_index()


def write(grid: pd.DataFrame, out, plots: bool = True) -> list:
    """``prior_svm_grid.csv`` (every grid point), ``prior_svm.csv`` (:func:`summary`) and,
    with ``plots``, ``prior_svm_fractions.png`` (bound against training-set size,
    Figure 1) and ``prior_svm_C.png`` (bound against C, Figure 4)."""
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "prior_svm_grid.csv", out / "prior_svm.csv"]
    grid.to_csv(paths[0], index=False, float_format="%.6g")
    summary(grid).to_csv(paths[1], index=False, float_format="%.5g")
    if plots:
        paths += _plots(grid, out)
    return paths


def _plots(grid, out) -> list:
    from cvxpb.plots import _pyplot

    plt = _pyplot()
    paths = []
    table = summary(grid)
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for (name, method), part in table.groupby(["dataset", "method"]):
        ax.plot(part["fraction"], part["bound"], "o-", label=f"{name} {method}")
    ax.set(xlabel="fraction of the training set", ylabel="bound (mean over runs)")
    ax.legend(fontsize="x-small")
    paths.append(out / "prior_svm_fractions.png")
    fig.savefig(paths[-1], dpi=80)
    plt.close(fig)
    full = grid[grid["fraction"] == grid["fraction"].max()]
    by_C = full.groupby(["dataset", "method", "run", "C"])["bound"].min().reset_index()
    curve = by_C.groupby(["dataset", "method", "C"])["bound"].mean().reset_index()
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for (name, method), part in curve.groupby(["dataset", "method"]):
        ax.plot(part["C"], part["bound"], "o-", label=f"{name} {method}")
    ax.set(xscale="log", xlabel="C", ylabel="least bound over sigma (mean over runs)")
    ax.legend(fontsize="x-small")
    paths.append(out / "prior_svm_C.png")
    fig.savefig(paths[-1], dpi=80)
    plt.close(fig)
    return paths
