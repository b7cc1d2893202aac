"""Seed 002's experiments: GPC on X, SLT-GP, and GPC on X* (the reference), Table 3.

Each repeat draws 200 training and 1000 test examples from a data-generating process
of :func:`cvxpb.datasets.privileged` and reports the test accuracy (%) of

* ``GPC``: EP-GPC on ``X`` (empirical Bayes kernel);
* ``SLT-GP``: soft labels from a GPC on the training ``X*``, transferred (``rho`` by
  empirical Bayes);
* ``GPC (reference)``: GPC trained and tested on ``X*`` (not available in practice).

The linear settings (``clean_soft_label``, ``clean_feature``, ``relevant_feature``)
use the linear kernel, as the seed does on ``X``, on both ``X`` and ``X*``;
``noisy_latent_gp`` uses the RBF kernel. The seed's GPC+ baseline is not included.
With ``r_values`` the ``noisy_latent_gp`` setting is run for each noise rate ``r`` and
the chosen ``rho`` is recorded (Figure 2).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from cvxpb import datasets
from cvxpb.gp import GPClassifierEP, SLTGPClassifier
from cvxpb.parallel import run_parallel

METHODS = ("GPC", "SLT-GP", "GPC (reference)")


def one_repeat(setting, k, r=0.0, random_state=0) -> list[dict]:
    """Every method on one draw: rows of (method, accuracy %, seconds, rho)."""
    seed = int(np.random.SeedSequence([random_state, k]).generate_state(1)[0])
    train, test = datasets.privileged(setting, random_state=seed, r=r)
    kernel = "rbf" if setting == "noisy_latent_gp" else "linear"
    rows = []
    for method in METHODS:
        start = time.perf_counter()
        if method == "GPC":
            clf = GPClassifierEP(kernel).fit(train.X, train.y)
            predicted, rho = clf.predict(test.X), np.nan
        elif method == "SLT-GP":
            clf = SLTGPClassifier(kernel=kernel, privileged_kernel=kernel)
            clf.fit(train.X, train.y, X_star=train.X_star)
            predicted, rho = clf.predict(test.X), clf.rho_
        else:
            clf = GPClassifierEP(kernel).fit(train.X_star, train.y)
            predicted, rho = clf.predict(test.X_star), np.nan
        rows.append(
            {
                "setting": setting,
                "r": r,
                "repeat": k,
                "method": method,
                "accuracy": 100 * float(np.mean(predicted == test.y)),
                "seconds": time.perf_counter() - start,
                "rho": rho,
            }
        )
    return rows


def run_experiment(
    settings, repeats=5, r_values=(0.0,), random_state=0, n_jobs=None, progress=True
) -> pd.DataFrame:
    """All repeats of all settings (``r_values`` apply to ``noisy_latent_gp``)."""
    from joblib import delayed

    unknown = [s for s in settings if s not in datasets.PRIVILEGED]
    if unknown:
        raise ValueError(f"settings must be among {datasets.PRIVILEGED}, got {unknown}")
    if not (isinstance(repeats, int | np.integer) and repeats >= 1):
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    jobs = [
        (setting, k, r)
        for setting in settings
        for r in (r_values if setting == "noisy_latent_gp" else (0.0,))
        for k in range(repeats)
    ]
    tasks = (delayed(one_repeat)(s, k, r, random_state) for s, k, r in jobs)
    results = run_parallel(tasks, len(jobs), n_jobs, progress, "repeats")
    return pd.DataFrame([row for rows in results for row in rows])


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of the accuracy per setting, r and method (Table 3),
    with the mean seconds and, for SLT-GP, the mean rho."""
    grouped = rows.groupby(["setting", "r", "method"], sort=False)
    return grouped.agg(
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        seconds=("seconds", "mean"),
        rho=("rho", "mean"),
        repeats=("repeat", "nunique"),
    ).reset_index()


def write(rows: pd.DataFrame, out) -> list:
    """``slt_gp_runs.csv`` (every repeat) and ``slt_gp.csv`` (:func:`summary`)."""
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "slt_gp_runs.csv", out / "slt_gp.csv"]
    rows.to_csv(paths[0], index=False, float_format="%.6g")
    summary(rows).to_csv(paths[1], index=False, float_format="%.4g")
    return paths
