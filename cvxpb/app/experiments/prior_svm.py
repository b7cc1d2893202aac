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
* ``SVM+10FCV``: the paper's baseline of Table 5, one SVM whose ``(C, sigma)`` is chosen
  by 10-fold cross-validation error on the training part (it has no bound; its rows
  carry the ``cv error`` they are selected by);
* ``PriorSVM``: the prior SVM with the mixture-prior bound;
* ``EtaPriorSVM``: the eta-prior SVM with the tau-prior bound;
* ``EtaPriorSVM+PriorPB``: the same eta-prior SVM with the mixture-prior bound over 50
  scalings in [1, 100] (the paper's "eta-PSVM + Prior PB" row; no second fit);
* ``PriorSVM-2C``, ``EtaPriorSVM-2C``, ``EtaPriorSVM+PriorPB-2C`` (not run by default):
  the same with the prior's ``C`` searched over the grid as well (the paper's Table 4).

``delta = 0.01`` throughout, as in the paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb.app import datasets
from cvxpb.app.experiments import check_plan
from cvxpb.files import written_together
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
CV_METHOD = "SVM+10FCV"
CV_FOLDS = 10
PRIOR_SVMS = {  # method: (classifier, the attribute holding its bound)
    "PriorSVM": (PriorSVM, "bound_"),
    "EtaPriorSVM": (EtaPriorSVM, "bound_"),
    "EtaPriorSVM+PriorPB": (EtaPriorSVM, "mixture_bound_"),
}
PRIOR_SVMS |= {f"{method}-2C": kind for method, kind in PRIOR_SVMS.items()}
METHODS = (*SVM_BOUNDS, CV_METHOD, *PRIOR_SVMS)
DEFAULT_METHODS = tuple(m for m in METHODS if not m.endswith("-2C"))  # 2C: 7x the work
DELTA = 0.01


def _error(clf, X, y) -> float:
    return float(np.mean(clf.predict(X) != y))


def _cross_validated(svc, X, y, X_test, y_test, seed) -> dict:
    """The SVM's 10-fold cross-validation error on the training part (the same folds at
    every grid point of a repetition) and its test error; no bound."""
    folds = StratifiedKFold(CV_FOLDS, shuffle=True, random_state=seed)
    accuracy = cross_val_score(clone(svc), X, y, cv=folds)
    return {
        "method": CV_METHOD,
        "bound": np.nan,
        "test error": _error(svc, X_test, y_test),
        # rounded so that grid points with the same fold errors tie exactly (the first
        # in grid order is chosen), as they do in the CSV
        "cv error": round(1 - float(np.mean(accuracy)), 12),
    }


def grid_point(X, y, X_test, y_test, C, gamma, seed, methods=METHODS, c_grid=C_GRID) -> list[dict]:
    """Every method at one ``(C, gamma)``.

    Parameters
    ----------
    X : ndarray
        The training examples.
    y : ndarray
        Their labels.
    X_test : ndarray
        The test examples.
    y_test : ndarray
        Their labels.
    C : float
        The SVMs' trade-off.
    gamma : float
        The RBF width.
    seed : int
        Seeds the prior/posterior split and the folds.
    methods : sequence of str, default=METHODS
        The methods.
    c_grid : sequence of float, default=C_GRID
        The grid of ``C`` (for the cross-validation).

    Returns
    -------
    list of dict
        Rows of (method, bound, test error).
    """
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
    if CV_METHOD in methods:
        rows.append(_cross_validated(svc, X, y, X_test, y_test, seed))
    fits = {}  # (classifier, prior C): one fit serves every bound read off it
    for method, (kind, attribute) in PRIOR_SVMS.items():
        if method not in methods:
            continue
        # the "2C" variants also search the prior's C over the grid (Section 5.2.2)
        priors = c_grid if method.endswith("-2C") else (C,)
        for c in priors:
            if (kind, c) not in fits:
                clf = kind(C=C, C_prior=c, gamma=gamma, delta=DELTA, random_state=seed)
                fits[kind, c] = clf.fit(X, y)
        best = min((fits[kind, c] for c in priors), key=lambda clf: getattr(clf, attribute))
        rows.append(
            {
                "method": method,
                "bound": getattr(best, attribute),
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
    """Every method at one ``(sigma factor, C)`` of repetition ``k``: the unit of work.

    Parameters
    ----------
    data : Dataset
        The data set.
    k : int
        The repetition.
    fraction : float
        The share of the training part used.
    factor : float
        The RBF width's factor.
    C : float
        The SVMs' trade-off.
    methods : sequence of str
        The methods.
    random_state : int
        Seeds the repetitions.
    c_grid : sequence of float, default=C_GRID
        The grid of ``C``.

    Returns
    -------
    list of dict
        The rows.
    """
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
    """One 80 : 20 split, a ``fraction`` of its training part, the whole grid.

    Parameters
    ----------
    data : Dataset
        The data set.
    k : int
        The repetition.
    fraction : float
        The share of the training part used.
    methods : sequence of str
        The methods.
    random_state : int
        Seeds the repetitions.
    c_grid : sequence of float, default=C_GRID
        The grid of ``C``.
    sigma_factors : sequence of float, default=SIGMA_FACTORS
        The RBF width's factors.

    Returns
    -------
    list of dict
        The rows.
    """
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
    """Run the whole grid for every data set, repetition and fraction.

    The unit of work is a grid cell (one ``C`` and ``sigma`` of one repetition); the
    progress bar counts them.

    Parameters
    ----------
    names : sequence of str
        The data sets.
    runs : int, default=5
        The repetitions.
    fractions : sequence of float, default=(1.0,)
        The shares of the training part.
    methods : sequence of str, default=DEFAULT_METHODS
        The methods.
    random_state : int, default=0
        Seeds the repetitions.
    n_jobs : int, optional
        The number of workers (joblib's).
    progress : bool, default=True
        Show a bar over the units of work.
    c_grid : sequence of float, default=C_GRID
        The grid of ``C``.
    sigma_factors : sequence of float, default=SIGMA_FACTORS
        The RBF width's factors.
    keep : str or path, optional
        A directory where finished work is saved at once.
    resume : bool, default=False
        Take back the work saved under ``keep`` with the same settings.

    Returns
    -------
    pandas.DataFrame
        A tidy table of every grid point.
    """
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


def criterion(grid: pd.DataFrame) -> pd.Series:
    """What each row is selected by: its bound, or for ``SVM+10FCV`` its CV error.

    Parameters
    ----------
    grid : pandas.DataFrame
        Every grid point's rows.

    Returns
    -------
    pandas.Series
        The criterion.
    """
    if "cv error" not in grid:
        return grid["bound"]
    return grid["bound"].where(grid["method"] != CV_METHOD, grid["cv error"])


def selected(grid: pd.DataFrame) -> pd.DataFrame:
    """Per repetition and method, the grid point of least bound (model selection).

    Or of least cross-validation error for ``SVM+10FCV``.

    Parameters
    ----------
    grid : pandas.DataFrame
        Every grid point's rows.

    Returns
    -------
    pandas.DataFrame
        The selected rows.
    """
    keys = ["dataset", "fraction", "run", "method"]
    best = criterion(grid).groupby([grid[k] for k in keys], sort=False).idxmin()
    return grid.loc[best].reset_index(drop=True)


def summary(grid: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over repetitions of the selected bound and test error.

    The paper's Tables 2-5; ``SVM+10FCV`` has no bound (empty).

    Parameters
    ----------
    grid : pandas.DataFrame
        Every grid point's rows.

    Returns
    -------
    pandas.DataFrame
        The summary.
    """
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


@written_together("prior_svm")
def write(grid: pd.DataFrame, out, plots: bool = True) -> list:
    """Write the grid, its summary and the figures under ``out``.

    ``prior_svm_grid.csv`` (every grid point), ``prior_svm.csv`` (:func:`summary`) and,
    with ``plots``, ``prior_svm_fractions.png`` (bound against training-set size, Figures
    1-3) and ``prior_svm_C.png`` (bound and test error against C, Figure 4).

    Parameters
    ----------
    grid : pandas.DataFrame
        Every grid point's rows.
    out : str or path
        The directory.
    plots : bool, default=True
        Draw the figures.

    Returns
    -------
    list of path
        The files written.
    """
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "prior_svm_grid.csv", out / "prior_svm.csv"]
    grid.to_csv(paths[0], index=False, float_format="%.6g")
    summary(grid).to_csv(paths[1], index=False, float_format="%.5g")
    if plots:
        paths += [_plot_fractions(grid, out), _plot_C(grid, out)]
    return paths


def _panels(rows, columns, width=4.2, height=3.0):
    from cvxpb.app.plots import _pyplot

    plt = _pyplot()
    size = (width * columns, height * rows)
    fig, axes = plt.subplots(rows, columns, figsize=size, squeeze=False, constrained_layout=True)
    return plt, fig, axes


def _save(plt, fig, path):
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def _plot_fractions(grid, out):
    """Figures 1-3: per dataset, the mean selected bound against the training fraction,
    the SVM's bounds on the left and the prior SVMs' on the right (a side only where
    the run has its methods)."""
    table = summary(grid).dropna(subset=["bound"])
    names = list(dict.fromkeys(table["dataset"]))
    sides = [
        (title, methods)
        for title, methods in (
            ("SVM, data-dependent priors", set(SVM_BOUNDS)),
            ("prior SVMs", set(PRIOR_SVMS)),
        )
        if methods & set(table["method"])
    ]
    plt, fig, axes = _panels(len(names), len(sides))
    for row, name in zip(axes, names, strict=True):
        part = table[table["dataset"] == name]
        for ax, (title, methods) in zip(row, sides, strict=True):
            for (method,), curve in part.groupby(["method"], sort=False):
                if method in methods:
                    ax.plot(curve["fraction"], curve["bound"], "o-", label=method)
            ax.set(title=f"{name}: {title}", xlabel="fraction of the training set")
            ax.set(ylabel="bound (mean over runs)")
            ax.legend(fontsize="x-small")
    return _save(plt, fig, out / "prior_svm_fractions.png")


def _plot_C(grid, out):
    """Figure 4: per dataset, at sigma = sqrt(d) (the factor nearest 1) and the full
    training part, each method's bound (solid) and the SVM's and prior SVM's test error
    (dashed) against C, mean over runs; the vertical line is the C of least 10-fold
    cross-validation error at that sigma (mean over runs)."""
    full = grid[grid["fraction"] == grid["fraction"].max()]
    names = list(dict.fromkeys(full["dataset"]))
    plt, fig, axes = _panels(1, len(names), width=5.0 + 2.5 / len(names), height=3.8)
    for ax, name in zip(axes[0], names, strict=True):
        part = full[full["dataset"] == name]
        factor = min(part["sigma factor"].unique(), key=lambda f: abs(np.log(f)))
        part = part[part["sigma factor"] == factor]
        curves = part.groupby(["method", "C"], sort=False)[["bound", "test error"]].mean()
        for method, curve in curves.groupby(level="method", sort=False):
            curve = curve.droplevel("method")
            if method in SVM_BOUNDS or method in PRIOR_SVMS:
                ax.plot(curve.index, curve["bound"], "o-", label=f"{method} bound")
            if method in ("SVM+PB", "PriorSVM"):
                ax.plot(
                    curve.index,
                    curve["test error"],
                    "k--" if method == "SVM+PB" else "k:",
                    label=f"{'SVM' if method == 'SVM+PB' else method} test error",
                )
        if CV_METHOD in set(part["method"]):
            ax.axvline(_cv_C(part), color="m", label="C of least 10-fold CV error")
        title = f"{name}, sigma = {factor:g} sqrt(d)"
        ax.set(xscale="log", xlabel="C", ylabel="mean over runs", title=title)
    handles, labels = axes[0, -1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize="x-small")
    return _save(plt, fig, out / "prior_svm_C.png")


def _cv_C(part) -> float:
    """The C of least 10-fold cross-validation error, averaged over runs."""
    cv = part[part["method"] == CV_METHOD]
    return float(cv.groupby("C")["cv error"].mean().idxmin())
