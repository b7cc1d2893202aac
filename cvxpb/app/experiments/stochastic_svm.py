"""Sahu & Hemachandra's experiment (Sections 7 and 8): stochastic SVMs on real data, against CV.

For each dataset: 20% of the examples are held out for testing (stratified); the other
80% are standardized (kernlab's ``ksvm`` scales by default) and give the family of RBF
SVMs, each trained on half of them and validated on the other half (m : v : t =
0.4 : 0.4 : 0.2). Every bound (chi2 and KL divergences, each distance) is minimized over
posteriors on the SVMs; each posterior's test error is the posterior average of the
SVMs' test errors (Section 8's ``T``, the stochastic classifier's error), and the
majority vote's error is reported beside it. The baseline is 5-fold CV over the same
grid on the same 80%, refitted there and tested on the same 20% (Table 4).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from tqdm.auto import tqdm

from cvxpb import jsonout
from cvxpb.app import datasets
from cvxpb.app.diagnostics import ALPHAS, ordered_subset_bounds, summary
from cvxpb.app.experiments import prepare_output
from cvxpb.engine.declare.bound_problem import BoundProblem
from cvxpb.files import written_together
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE
from cvxpb.parallel import run_kept
from cvxpb.svm.cv import cross_validate
from cvxpb.svm.family import fit_family
from cvxpb.svm.grid import COSTS, check_cost, check_lambdas, lambda_grid
from cvxpb.validation import check_delta

PAIRS = tuple((dist, div) for div in ("chi2", "kl") for dist in DISTANCES_BY_DIVERGENCE[div])
PAPER_DATASETS = (
    "bupa",
    "haberman",
    "ionosphere",
    "mammographic",
    "wdbc",
    "waveform",
    "spambase",
    "mushroom",
)  # Table 2 but Banknote, which no offline package ships
PAPER_SIZES = {"waveform": 3308}  # Sahu & Hemachandra's Table 2: waveform without class 0
CV_PAIR = ("sq", "chi2")  # the pair Table 4 compares with CV


@dataclass(eq=False)
class DatasetRun:
    """Everything one data set's run produced: the family's data, posteriors, rows.

    Parameters
    ----------
    name : str
        The data set.
    description : str
        Where it comes from.
    n : int
        The examples.
    m : int
        The validation examples per SVM.
    t : int
        The test examples.
    gamma : float
        The RBF width.
    lambdas : ndarray of shape (H,)
        The regularization parameters.
    risks : ndarray of shape (H,)
        The SVMs' validation risks.
    test_errors : ndarray of shape (H,)
        Their test errors.
    svm_seconds : float
        The time to train the family.
    rows : list of dict, default=[]
        A row per (distance, divergence).
    posteriors : dict, default={}
        The optimal posteriors.
    subsets : dict, default={}
        The ordered-subset bounds (Figure 1).
    cv : dict or None, default=None
        The cross-validated SVM.
    """

    name: str
    description: str
    n: int
    m: int
    t: int
    gamma: float
    lambdas: np.ndarray
    risks: np.ndarray
    test_errors: np.ndarray
    svm_seconds: float
    rows: list = field(default_factory=list)
    posteriors: dict = field(default_factory=dict)
    subsets: dict = field(default_factory=dict)
    cv: dict | None = None


def split(data, random_state=0):
    """Hold out a stratified 20% test part and standardize with the other 80%.

    Parameters
    ----------
    data : Dataset
        The data set.
    random_state : int, default=0
        Seeds the split.

    Returns
    -------
    X_rest : ndarray
        The 80%, standardized.
    y_rest : ndarray
        Their labels.
    X_test : ndarray
        The 20%, standardized with the 80%'s mean and standard deviation.
    y_test : ndarray
        Their labels.
    """
    X_rest, X_test, y_rest, y_test = train_test_split(
        data.X, data.y, test_size=0.2, stratify=data.y, random_state=random_state
    )
    mean, scale = X_rest.mean(axis=0), X_rest.std(axis=0)
    scale[scale == 0] = 1.0
    return (X_rest - mean) / scale, y_rest, (X_test - mean) / scale, y_test


def _posterior_row(run, distance, divergence, delta, constants, method):
    row = {"dataset": run.name, "distance": distance, "divergence": divergence}
    row |= {"method": method, "constants": constants, "delta": delta, "m": run.m}
    try:
        problem = BoundProblem(run.risks, run.m, delta, distance, divergence, constants=constants)
    except ValueError as err:  # e.g. the paper's kl constant is not tabulated below m = 50
        return row | {"status": "invalid", "message": str(err)}, None, None
    result = problem.solve(method)
    q = result.posterior
    row |= {
        "bound": result.bound,
        "E_Q[val risk]": result.empirical_risk,
        "test error": float(q @ run.test_errors),
        **summary(q, run.risks),
        "seconds": result.seconds,
        "status": result.status,
        "message": result.message,
    }
    return row, q, problem


def _majority_vote_error(votes, y_test, q) -> float:
    return float(np.mean(np.where(votes @ q > 0, 1, -1) != y_test))


def run_dataset(
    name: str,
    delta: float = 0.05,
    constants: str = "exact",
    method: str = "exact",
    lambdas=None,
    folds: int | None = 5,
    subsets: bool = True,
    random_state=0,
    n_jobs=None,
    progress: bool = False,
    cost: str = COSTS[0],
) -> DatasetRun:
    """Run Sahu & Hemachandra's pipeline on one data set (see the module's text).

    Parameters
    ----------
    name : str
        The data set.
    delta : float, default=0.05
        The confidence.
    constants : {"exact", "paper"}, default="exact"
        The bound's constant.
    method : str, default="exact"
        How each bound is minimized.
    lambdas : array_like, optional
        The regularization parameters; the paper's 158-value grid by default.
    folds : int or None, default=5
        The CV baseline's folds; None skips it.
    subsets : bool, default=True
        Compute the ordered-subset bounds of Figure 1 (for the chi2 pairs).
    random_state : int, default=0
        Seeds the splits.
    n_jobs : int, optional
        The number of workers (joblib's).
    progress : bool, default=False
        Show bars.
    cost : {"1/(lam n)", "1/lam"}, default="1/(lam n)"
        How ``lam`` becomes libsvm's ``C`` (:data:`cvxpb.svm.grid.COSTS`), for the family
        and the CV alike.

    Returns
    -------
    DatasetRun
        The run.
    """
    delta, cost = check_delta(delta), check_cost(cost)
    lambdas = lambda_grid() if lambdas is None else check_lambdas(lambdas)
    data = datasets.load(name, n=PAPER_SIZES.get(name), random_state=random_state)
    X, y, X_test, y_test = split(data, random_state)
    start = time.perf_counter()
    family = fit_family(
        X, y, lambdas, random_state=random_state, n_jobs=n_jobs, progress=progress, cost=cost
    )
    svm_seconds = time.perf_counter() - start
    votes = family.votes(X_test)
    run = DatasetRun(
        name,
        data.description,
        y.size + y_test.size,
        family.m,
        y_test.size,
        family.gamma,
        lambdas,
        family.risks,
        np.mean(votes != y_test[:, None], axis=0),
        svm_seconds,
    )
    steps = tqdm(
        total=len(PAIRS) + 1, desc=f"{name}: bounds, CV", leave=False, disable=not progress
    )
    for distance, divergence in PAIRS:
        steps.set_postfix_str(f"{distance}-{divergence}")
        row, q, problem = _posterior_row(run, distance, divergence, delta, constants, method)
        if q is not None:
            row["vote error"] = _majority_vote_error(votes, y_test, q)
            run.posteriors[f"{distance}-{divergence}"] = q
            if subsets and divergence == "chi2":
                table = ordered_subset_bounds(problem, progress=progress)
                run.subsets[f"{distance}-{divergence}"] = table
        run.rows.append(row)
        steps.update()
    if folds is not None:
        steps.set_postfix_str(f"{folds}-fold CV over {lambdas.size} lambdas")
        run.cv = _cv_row(run, (X, y, X_test, y_test), folds, random_state, n_jobs, cost)
    steps.update()
    steps.close()
    return run


def _cv_row(run, data, folds, random_state, n_jobs, cost) -> dict:
    X, y, X_test, y_test = data
    search = cross_validate(X, y, run.lambdas, folds, run.gamma, n_jobs, random_state, cost)
    cv_error = float(np.mean(search.best_estimator_.predict(X_test) != y_test))
    pac = next(
        (r for r in run.rows if (r["distance"], r["divergence"]) == CV_PAIR and "bound" in r),
        {},
    )
    pac_error = pac.get("test error", np.nan)
    return {
        "dataset": run.name,
        "lambda*": float(search.best_params_["lam"]),
        "CV test error": cv_error,
        "PAC-B test error": pac_error,
        "delta test error": cv_error - pac_error,
        "relative": (cv_error - pac_error) / cv_error if cv_error > 0 else np.nan,
        "PAC-B bound": pac.get("bound", np.nan),
        "CV seconds": search.seconds_,
        "PAC-B seconds": run.svm_seconds + pac.get("seconds", np.nan),
    }


def results_table(runs) -> pd.DataFrame:
    """One row per data set and (distance, divergence): the tidy results.

    Parameters
    ----------
    runs : list of DatasetRun
        The data sets' runs.

    Returns
    -------
    pandas.DataFrame
        The results.
    """
    return pd.DataFrame([row for run in runs for row in run.rows])


def bounds_table(results: pd.DataFrame, divergence: str = "chi2") -> pd.DataFrame:
    """Tabulate bounds and test errors, a row per data set and a column per distance.

    Sahu & Hemachandra's Table 3 for chi2.

    Parameters
    ----------
    results : pandas.DataFrame
        The :func:`results_table`.
    divergence : str, default="chi2"
        The divergence shown.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = results[results["divergence"] == divergence]
    wide = rows.pivot(index="dataset", columns="distance", values=["bound", "test error"])
    order = [d for d in DISTANCES_BY_DIVERGENCE[divergence] if d in set(rows["distance"])]
    wide = wide.reindex(columns=[(v, d) for v in ("bound", "test error") for d in order])
    wide.columns = [f"{'B' if v == 'bound' else 'T'} {d}" for v, d in wide.columns]
    return wide.reset_index()


def spread_table(results: pd.DataFrame, divergence: str = "chi2") -> pd.DataFrame:
    """Support, N(alpha) and HHI per data set and distance (Sahu & Hemachandra, Table 9).

    Parameters
    ----------
    results : pandas.DataFrame
        The :func:`results_table`.
    divergence : str, default="chi2"
        The divergence shown.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = results[results["divergence"] == divergence]
    columns = ["dataset", "distance", "support", *[f"N({a:g})" for a in ALPHAS], "HHI"]
    return rows[columns].reset_index(drop=True)


def cv_table(runs) -> pd.DataFrame:
    """One row per data set: CV against the sq-chi2 stochastic SVM (Sahu & Hemachandra, Table 4).

    Parameters
    ----------
    runs : list of DatasetRun
        The data sets' runs.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    return pd.DataFrame([run.cv for run in runs if run.cv is not None])


def to_json(runs, settings: dict) -> dict:
    """Everything needed to check the tables again, as JSON-able data.

    Each family's risks and test errors, the posteriors, and the rows.

    Parameters
    ----------
    runs : list of DatasetRun
        The data sets' runs.
    settings : dict
        The run's settings.

    Returns
    -------
    dict
        The payload.
    """
    return {
        "settings": settings,
        "datasets": [
            {
                "name": run.name,
                "description": run.description,
                "n": run.n,
                "m": run.m,
                "t": run.t,
                "gamma": run.gamma,
                "svm_seconds": run.svm_seconds,
                "lambdas": run.lambdas.tolist(),
                "risks": run.risks.tolist(),
                "test_errors": run.test_errors.tolist(),
                "posteriors": {k: v.tolist() for k, v in run.posteriors.items()},
                "rows": [jsonout.plain(row) for row in run.rows],  # NaN is null
                "cv": jsonout.plain(run.cv),
            }
            for run in runs
        ],
    }


def run_experiment(
    names, out=None, plots: bool = True, progress: bool = True, resume: bool = False, **options
):
    """Run :func:`run_dataset` on each data set and write the results.

    With ``out``, writes there ``stochastic_svm.csv`` (:func:`results_table`),
    ``stochastic_svm_cv.csv`` (:func:`cv_table`), ``stochastic_svm_bounds.csv``
    (:func:`bounds_table`), ``stochastic_svm_spread.csv`` (:func:`spread_table`),
    ``stochastic_svm.json`` (:func:`to_json`) and, with ``plots``, a PNG per data set.
    Everything that can be checked is checked first: the data set names, the method (it
    must apply to every bound of the table), ``out`` and matplotlib. Each finished data
    set is saved under ``out/.finished/`` at once (:func:`cvxpb.parallel.run_kept`), so
    an interrupted run keeps it, and ``resume=True`` takes it from there instead of
    computing it again (when it was made with the same settings).

    Parameters
    ----------
    names : sequence of str
        The data sets.
    out : str or path, optional
        The output directory.
    plots : bool, default=True
        Draw the figures.
    progress : bool, default=True
        Show bars.
    resume : bool, default=False
        Take the finished data sets kept under ``out``.
    **options
        The options of :func:`run_dataset`.

    Returns
    -------
    list of DatasetRun
        The runs.
    """
    from pathlib import Path

    from joblib import delayed

    names = list(names)
    unknown = [n for n in names if n not in datasets.NAMES]
    if not names or unknown:
        raise ValueError(
            f"datasets must be among {datasets.NAMES} (or 'paper' on the command line), "
            f"got {unknown or 'none'}"
        )
    _check_method(options.get("method", "exact"))
    plots = prepare_output(out, plots)
    keep = None if out is None else Path(out) / ".finished" / "stochastic_svm"
    tasks = [delayed(run_dataset)(name, progress=progress, **options) for name in names]
    keys = [[name, _settings(options)] for name in names]
    # one dataset at a time (n_jobs=1): the SVMs and the CV inside use options["n_jobs"]
    runs = run_kept(tasks, keys, keep, resume, 1, progress, "datasets", "dataset")
    if out is not None:
        write(runs, out, options, plots)
    return runs


def _check_method(method: str) -> None:
    """ValueError unless ``method`` solves every (distance, divergence) pair of the table."""
    from cvxpb.engine.compare import applicable_methods
    from cvxpb.engine.methods import METHODS

    if method not in METHODS:
        raise ValueError(f"--method must be one of {tuple(METHODS)}, got {method!r}")
    missing = [
        f"{d}-{v}"
        for d, v in PAIRS
        if method not in applicable_methods(BoundProblem([0.1, 0.2], 100, 0.05, d, v))
    ]
    if missing:
        raise ValueError(
            f"--method {method} does not apply to the bounds {', '.join(missing)} of this "
            "table; use --method exact (every bound) or nlp"
        )


def _settings(options) -> dict:
    """What a finished dataset depends on: every option but the number of workers."""
    return jsonout.plain({k: v for k, v in options.items() if k != "n_jobs"})


@written_together("stochastic_svm")
def write(runs, out, settings: dict, plots: bool = True) -> list:
    """Write the tables, the JSON and the figures of ``runs`` under ``out``.

    Parameters
    ----------
    runs : list of DatasetRun
        The data sets' runs.
    out : str or path
        The directory.
    settings : dict
        The run's settings.
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
    results = results_table(runs)
    tables = {
        "stochastic_svm.csv": results,
        "stochastic_svm_cv.csv": cv_table(runs),  # empty without the CV baseline
        "stochastic_svm_bounds.csv": bounds_table(results),
        "stochastic_svm_spread.csv": spread_table(results),
    }
    paths = []
    for name, table in tables.items():
        if not table.empty:
            paths.append(out / name)
            table.to_csv(paths[-1], index=False, float_format="%.6g")
    paths.append(out / "stochastic_svm.json")
    paths[-1].write_text(jsonout.dumps(to_json(runs, settings), indent=1))
    if plots:
        from cvxpb.app.plots import save_dataset_figure

        for run in runs:
            paths.append(out / f"stochastic_svm_{run.name}.png")
            save_dataset_figure(run, paths[-1])
    return paths
