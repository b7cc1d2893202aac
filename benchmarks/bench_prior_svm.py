"""The prior SVMs of Parrado-Hernández et al. (2012) on waveform21, against scikit-learn's SVC.

First table: ``PriorSVM`` and ``EtaPriorSVM`` fit (their QPs and their bounds) on
``n`` examples, as a ratio to ``SVC``'s fit on the same ``n`` in this process (best of
``--repeats``). Goal: within 10x at n = 2000.

Second table: the QPs alone, the prior SVM's dual (26) at one scaling and the
eta-prior SVM's dual (with its equality), over the paper's sigma grid at one C, on
``m`` posterior points: the dedicated solvers against Clarabel, times as ratios to the
first row, with each solution's dual objective (the dedicated solvers' must not be
below Clarabel's).

    python -m benchmarks.bench_prior_svm [--n 2000] [--m 600] [--C 1] [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from benchmarks.bench_exact import best_time
from cvxpb.app import datasets
from cvxpb.app.texttable import print_table
from cvxpb.svm import EtaPriorSVM, PriorSVM
from cvxpb.svm.gaussian import from_svc
from cvxpb.svm.prior_qp import (
    box_qp,
    eta_prior_qp,
    eta_prior_svm_program,
    kernel_factor,
    prior_svm_program,
)

ETA = 50.0  # the middle of the paper's scalings


def problem(m: int, factor: float):
    """The posterior part's augmented kernel, labels and prior scores ``g``."""
    data = datasets.load("waveform21", n=2 * m)
    X = StandardScaler().fit_transform(data.X)
    gamma = 1 / (2 * (factor * np.sqrt(X.shape[1])) ** 2)
    prior = from_svc(SVC(C=1.0, gamma=gamma).fit(X[:m], data.y[:m]))
    X_post, y = X[m:], data.y[m:]
    K = prior._k(X_post, X_post) + 1.0
    return K, y, prior.scores(X_post) / prior.norm()


def _timed(solve):
    start = time.perf_counter()
    result = solve()
    return time.perf_counter() - start, result


def estimators(n: int, C: float, repeats: int) -> list[dict]:
    """Fit times of the two estimators and of SVC, with the ratio to SVC."""
    data = datasets.load("waveform21", n=n)
    X = StandardScaler().fit_transform(data.X)
    peer = best_time(lambda: SVC(C=C).fit(X, data.y), repeats)
    rows = [{"estimator": "SVC", "seconds": peer, "ratio": 1.0, "bound": None, "met": "-"}]
    for cls in (PriorSVM, EtaPriorSVM):
        model = cls(C=C, random_state=0)
        seconds = best_time(lambda m=model: m.fit(X, data.y), repeats)
        rows.append(
            {
                "estimator": cls.__name__,
                "seconds": seconds,
                "ratio": seconds / peer,
                "bound": model.bound_,
                "met": "yes" if seconds <= 10 * peer else "NO",
            }
        )
    return rows


def run(m: int, C: float) -> list[dict]:
    rows = []
    for factor in (0.25, 1.0, 4.0):
        K, y, g = problem(m, factor)
        H = (y[:, None] * K) * y[None, :]
        v = 1 - ETA * y * g

        def conic_prior(K=K, y=y, g=g):
            prog, a = prior_svm_program(kernel_factor(K), y, g, ETA, C)
            prog.solve(solver="CLARABEL")
            return a.value

        def conic_eta(K=K, y=y, g=g):
            prog, a, _ = eta_prior_svm_program(kernel_factor(K), y, g, C)
            prog.solve(solver="CLARABEL")
            return a.value

        cases = (
            ("prior SVM", "box_qp", lambda H=H, v=v: box_qp(H, v, C)[0], v),
            ("prior SVM", "Clarabel", conic_prior, v),
            ("eta-prior SVM", "eta_prior_qp", lambda H=H, y=y, g=g: eta_prior_qp(H, y, g, C)[0]),
            ("eta-prior SVM", "Clarabel", conic_eta),
        )
        for qp, solver, solve, *linear in cases:
            seconds, a = _timed(solve)
            linear_term = linear[0] if linear else np.ones_like(a)
            rows.append(
                {
                    "QP": qp,
                    "sigma/sqrt(d)": factor,
                    "solver": solver,
                    "seconds": seconds,
                    "dual objective": float(linear_term @ a - a @ H @ a / 2),
                }
            )
    for row in rows:
        row["ratio"] = row["seconds"] / rows[0]["seconds"]
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--m", type=int, default=600)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    fits, qps = estimators(args.n, args.C, args.repeats), run(args.m, args.C)
    if args.json:
        print(json.dumps({"estimators": fits, "qps": qps}, indent=2))
        return
    print(f"Fit on waveform21, n = {args.n}, C = {args.C} (goal: within 10x SVC)")
    shown = [
        {**row, "bound": "-" if row["bound"] is None else f"{row['bound']:.4f}"} for row in fits
    ]
    print_table(
        shown,
        {"estimator": "<12", "seconds": ">8.3f", "ratio": ">6.1f", "bound": ">8", "met": ">4"},
    )
    print(f"\nThe QPs alone, m = {args.m}")
    formats = {
        "QP": "<14",
        "sigma/sqrt(d)": ">13.2f",
        "solver": "<13",
        "seconds": ">8.2f",
        "ratio": ">7.1f",
        "dual objective": ">16.8f",
    }
    print_table(qps, formats)


if __name__ == "__main__":
    main()
