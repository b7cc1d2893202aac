"""The main job on embedded data: Sahu & Hemachandra's pipeline in miniature on UCI WDBC.

scikit-learn ships the Wisconsin diagnostic breast cancer data (569 examples, 30
features), one of Sahu & Hemachandra's datasets. We split it 0.4 : 0.4 : 0.2 into training,
validation and test parts (Section 7), train one RBF SVM per regularization
parameter ``lam`` (``C = 1 / (lam * n_train)``), measure each SVM's risk on the
``m`` validation examples, and minimize every bound over posteriors on the SVMs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from tqdm import tqdm

from cvxpb.app.texttable import format_table
from cvxpb.engine.declare.bound_problem import BoundProblem
from cvxpb.engine.result import SUPPORT_NOTE
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE

# a small arithmetic-geometric grid in the spirit of Sahu & Hemachandra, Section 7
DEMO_LAMBDAS = np.concatenate([np.geomspace(1e-4, 0.1, 16), np.arange(0.25, 5.01, 0.25)])


@dataclass(frozen=True)
class ClassifierRisks:
    """Validation risks (the bound's data) and test errors of a family of SVMs.

    Parameters
    ----------
    lambdas : ndarray of shape (H,)
        The regularization parameters.
    risks : ndarray of shape (H,)
        The validation risks.
    test_errors : ndarray of shape (H,)
        The test errors.
    m : int
        The validation examples.
    description : str
        How they were made.
    """

    lambdas: np.ndarray
    risks: np.ndarray
    test_errors: np.ndarray
    m: int
    description: str


def breast_cancer_risks(lambdas=DEMO_LAMBDAS, seed: int = 0, progress: bool = False):
    """Train one RBF SVM per ``lam`` on WDBC and measure validation and test errors.

    Parameters
    ----------
    lambdas : array_like, default=DEMO_LAMBDAS
        The regularization parameters.
    seed : int, default=0
        Seeds the split.
    progress : bool, default=False
        Show a bar over the SVMs.

    Returns
    -------
    ClassifierRisks
        The risks.
    """
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, train_size=0.4, stratify=y, random_state=seed
    )
    X_val, X_test, y_val, y_test = train_test_split(
        X_rest, y_rest, train_size=2 / 3, stratify=y_rest, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)
    X_train, X_val, X_test = (scaler.transform(part) for part in (X_train, X_val, X_test))
    risks, test_errors = [], []
    for lam in tqdm(lambdas, desc="training SVMs", unit="SVM", disable=not progress, leave=False):
        svm = SVC(C=1 / (lam * len(y_train)), kernel="rbf", gamma="scale").fit(X_train, y_train)
        risks.append(np.mean(svm.predict(X_val) != y_val))
        test_errors.append(np.mean(svm.predict(X_test) != y_test))
    description = (
        f"WDBC (scikit-learn's breast cancer data): {len(y_train)} training, "
        f"{len(y_val)} validation (m), {len(y_test)} test examples; {len(lambdas)} RBF SVMs"
    )
    return ClassifierRisks(
        np.asarray(lambdas), np.array(risks), np.array(test_errors), len(y_val), description
    )


def bound_table(data: ClassifierRisks, delta: float = 0.05, progress: bool = False):
    """The optimal bound for every distance and divergence, one row each.

    Parameters
    ----------
    data : ClassifierRisks
        The SVMs' risks.
    delta : float, default=0.05
        The confidence.
    progress : bool, default=False
        Show a bar over the bounds.

    Returns
    -------
    pandas.DataFrame
        One row per bound.
    """
    pairs = [(div, dist) for div in ("chi2", "kl") for dist in DISTANCES_BY_DIVERGENCE[div]]
    rows = []
    for divergence, distance in tqdm(
        pairs, desc="minimizing bounds", unit="bound", disable=not progress, leave=False
    ):
        prob = BoundProblem(data.risks, data.m, delta, distance, divergence)
        res = prob.solve()
        rows.append(
            {
                "divergence": divergence,
                "distance": distance,
                "bound": res.bound,
                "support": res.support_size,
                "E_Q[val risk]": res.empirical_risk,
                "E_Q[test error]": float(res.posterior @ data.test_errors),
                "status": res.status,
                "ms": 1000 * res.seconds,
            }
        )
    return pd.DataFrame(rows)


def run_demo(delta: float = 0.05, seed: int = 0, progress: bool = False):
    """Build the risks and the table of optimal bounds.

    Parameters
    ----------
    delta : float, default=0.05
        The confidence.
    seed : int, default=0
        Seeds the split.
    progress : bool, default=False
        Show progress bars.

    Returns
    -------
    data : ClassifierRisks
        The risks.
    table : pandas.DataFrame
        The bounds.
    """
    start = time.perf_counter()
    data = breast_cancer_risks(seed=seed, progress=progress)
    table = bound_table(data, delta, progress)
    table.attrs["seconds"] = time.perf_counter() - start
    return data, table


def describe(data: ClassifierRisks, table: pd.DataFrame, delta: float) -> str:
    """The demo's report: the data, what a bound is, the table with the tightest row marked.

    Parameters
    ----------
    data : ClassifierRisks
        The SVMs' risks.
    table : pandas.DataFrame
        The bounds of :func:`bound_table`.
    delta : float
        The confidence.

    Returns
    -------
    str
        The report.
    """
    best = int(table["bound"].idxmin())
    rows = [
        {
            **row,
            "": "*" if i == best else "",
            "ms": f"{row['ms']:.2g}" if row["ms"] < 10 else f"{row['ms']:.0f}",
        }
        for i, row in enumerate(table.to_dict(orient="records"))
    ]
    formats = {"divergence": "<10", "distance": "<8", "bound": ".4f", "": "<1", "support": "d"}
    formats |= {"E_Q[val risk]": ".4f", "E_Q[test error]": ".4f", "status": "<7", "ms": ">4"}
    return "\n".join(
        [
            data.description,
            f"validation risks of the SVMs: {data.risks.min():.4f} to {data.risks.max():.4f}",
            "",
            "Each bound is an upper bound on the true risk of the stochastic classifier",
            "(an SVM drawn from the posterior), holding with probability at least",
            f"1 - delta = {1 - delta:g} over the validation sample; each is minimized over",
            "posteriors, and certified optimal where the status says so.",
            "",
            format_table(rows, formats),
            "",
            "*: the tightest bound.",
            SUPPORT_NOTE + ".",
            "E_Q[...]: posterior-weighted averages; ms: time of the bound's minimization.",
            f"{table.attrs['seconds']:.1f} s in all, SVM training included.",
        ]
    )
