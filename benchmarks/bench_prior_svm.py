"""The QPs of Parrado-Hernández et al. (2012) on waveform21: dedicated solvers against Clarabel.

The prior SVM's dual (26) at one scaling and the eta-prior SVM's dual (with its
equality), over the paper's sigma grid at one C, on ``m`` posterior points; times as
ratios to the first row, measured in this process, with each solution's dual
objective (the dedicated solvers' must not be below Clarabel's).

    python -m benchmarks.bench_prior_svm [--m 600] [--C 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb import datasets
from cvxpb.svm.gaussian import from_svc
from cvxpb.svm.prior_qp import (
    box_qp,
    eta_prior_qp,
    eta_prior_svm_program,
    kernel_factor,
    prior_svm_program,
)
from cvxpb.texttable import print_table

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
    parser.add_argument("--m", type=int, default=600)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.m, args.C)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    formats = {
        "QP": "<14",
        "sigma/sqrt(d)": ">13.2f",
        "solver": "<13",
        "seconds": ">8.2f",
        "ratio": ">7.1f",
        "dual objective": ">16.8f",
    }
    print_table(rows, formats)


if __name__ == "__main__":
    main()
