"""Farnia & Tse (2016): the minimax SVM against LinearSVC, and the solvers of eq. (21).

First table (``--digits``): the minimax SVM (0-1 loss, l2 moment norm) on ``n``
digits, 10 classes, standardized, by its working-set solver (and with
``--reference`` by the sum-largest CVXPY program, minutes), as a ratio to
scikit-learn's ``LinearSVC`` fit on the same data in this process (best of
``--repeats``), with the certified gap. Goal: within 20x at n = 1200.

Second table: the problem with n = 200, d = 10000, each fit of eq. (21) with the l2
moment norm (solved on the row space of X, n columns) and with the l_inf one (the
lasso's l1 penalty, all d columns); times as ratios to the first row, with each fit's
worst-case loss.

    python -m benchmarks.bench_minimax [--digits 1200] [--reference] [--d 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from benchmarks.bench_exact import best_time
from cvxpb.experiments.minimax import synthetic
from cvxpb.minimax import MinimaxClassifier
from cvxpb.texttable import print_table

CASES = (  # (loss, moment norm, solver); "linf" puts the lasso's l1 on A
    ("brier", "l2", "fista"),
    ("log", "l2", "fista"),
    ("brier", "l2", "CLARABEL"),
    ("brier", "l2", "SCS"),
    ("log", "l2", "CLARABEL"),
    ("zero_one", "l2", "CLARABEL"),
    ("zero_one", "l2", "SCS"),
    ("brier", "linf", "fista"),
    ("log", "linf", "fista"),
    ("brier", "linf", "CLARABEL"),
    ("brier", "linf", "SCS"),
    ("log", "linf", "CLARABEL"),
    ("zero_one", "linf", "CLARABEL"),
)


def digits(n: int, eps: float, repeats: int, reference: bool) -> list[dict]:
    """The minimax SVM's fit against LinearSVC's on ``n`` digits."""
    X, y = load_digits(return_X_y=True)
    keep = np.random.default_rng(0).permutation(y.size)[:n]
    X, y = StandardScaler().fit_transform(X[keep]), y[keep]
    peer = best_time(lambda: LinearSVC().fit(X, y), repeats)
    rows = [{"solver": "LinearSVC", "seconds": peer, "ratio": 1.0, "loss": "-", "gap": "-"}]
    routes = [("working sets", "CLARABEL")]
    if reference:
        routes.append(("sum-largest program", "reference"))
    for name, solver in routes:
        clf = MinimaxClassifier(loss="zero_one", eps=eps)
        if solver == "reference":
            seconds, loss, gap = _reference_fit(X, y, eps)
        else:
            seconds = best_time(lambda c=clf: c.fit(X, y), min(repeats, 3))
            loss, gap = clf.worst_case_loss_, clf.duality_gap_
        rows.append(
            {
                "solver": name,
                "seconds": seconds,
                "ratio": seconds / peer,
                "loss": f"{loss:.10f}",
                "gap": "-" if gap is None else f"{gap:.1e}",
                "met": "yes" if seconds <= 20 * peer else "NO",
            }
        )
    return rows


def _reference_fit(X, y, eps):
    """The sum-largest CVXPY program by Clarabel: ``(seconds, objective, None)``."""
    from cvxpb.minimax.program import minimax_program

    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    start = time.perf_counter()
    problem, _ = minimax_program(Xa, y, "zero_one", "l2", eps, free=(X.shape[1],))
    problem.solve(solver="CLARABEL")
    return time.perf_counter() - start, float(problem.value), None


def run(d: int, eps: float) -> list[dict]:
    data = synthetic(n=200, d=d)
    rows = []
    for loss, norm, solver in CASES:
        start = time.perf_counter()
        clf = MinimaxClassifier(loss=loss, norm=norm, eps=eps, solver=solver)
        clf.fit(data.X, data.y)
        seconds = time.perf_counter() - start
        rows.append(
            {
                "loss": loss,
                "norm": norm,
                "solver": solver,
                "seconds": seconds,
                "worst-case loss": clf.worst_case_loss_,
                "iterations": int(clf.n_iter_),
            }
        )
    for row in rows:
        row["ratio"] = row["seconds"] / rows[0]["seconds"]
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, default=1200)
    parser.add_argument("--reference", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--d", type=int, default=10_000)
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    mmsvm = digits(args.digits, 0.1, args.repeats, args.reference)
    rows = run(args.d, args.eps)
    if args.json:
        print(json.dumps({"minimax_svm_digits": mmsvm, "synthetic": rows}, indent=2))
        return
    print(f"Minimax SVM on {args.digits} digits, eps = 0.1 (goal: within 20x LinearSVC)")
    print_table(
        mmsvm,
        {"solver": "<19", "seconds": ">8.2f", "ratio": ">6.1f", "loss": ">13", "gap": ">8"},
    )
    print(f"\nThe solvers on the problem with n = 200, d = {args.d}")
    formats = {
        "loss": "<9",
        "norm": "<5",
        "solver": "<9",
        "seconds": ">8.2f",
        "ratio": ">7.1f",
        "worst-case loss": ">15.8f",
        "iterations": ">10d",
    }
    print_table(rows, formats)


if __name__ == "__main__":
    main()
