"""Farnia & Tse (2016): the minimax SVM against LinearSVC, and the solvers of eq. (21).

First table (``--digits``): the minimax SVM (0-1 loss, l2 moment norm) on ``n``
digits, 10 classes, standardized, by its working-set solver, its programs solved by the
interior-point method (the estimator's route) and by Clarabel (and with ``--reference``
by the sum-largest CVXPY program, minutes), as a ratio to scikit-learn's ``LinearSVC``
fit on the same data in this process (best of ``--repeats``), with the certified gap.
Goal: within 20x at n = 1200.

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
from cvxpb.app.experiments.minimax import synthetic
from cvxpb.app.texttable import print_table
from cvxpb.minimax import MinimaxClassifier
from cvxpb.minimax.zero_one import solve_zero_one

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
    ("log", "linf", "auto"),  # skglm
    ("zero_one", "l2", "auto"),  # working sets
    ("zero_one", "linf", "auto"),
)


def digits(n: int, eps: float, repeats: int, reference: bool) -> list[dict]:
    """The minimax SVM's fit against LinearSVC's on ``n`` digits."""
    X, y = load_digits(return_X_y=True)
    keep = np.random.default_rng(0).permutation(y.size)[:n]
    X, y = StandardScaler().fit_transform(X[keep]), y[keep]
    peer = best_time(lambda: LinearSVC().fit(X, y), repeats)
    rows = [{"solver": "LinearSVC", "seconds": peer, "ratio": 1.0, "loss": "-", "gap": "-"}]
    routes = [("working sets, interior point", "auto"), ("working sets, Clarabel", "CLARABEL")]
    if reference:
        routes.append(("sum-largest program", "reference"))
    for name, solver in routes:
        if solver == "reference":
            seconds, loss, gap = _reference_fit(X, y, eps)
        elif solver == "CLARABEL":
            seconds, loss, gap = _working_sets_by(X, y, eps, solver, min(repeats, 3))
        else:
            clf = MinimaxClassifier(loss="zero_one", eps=eps)
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


def sparse(d: int, eps: float, repeats: int) -> list[dict]:
    """Binary log loss with the lasso's l1 (against liblinear, which also penalizes the
    intercept) and the l2 group lasso over groups of 10 features (against skglm's own
    GroupProxNewton), on the problem with n = 200; the first fit (numba compiles skglm's
    solvers once per process) and the best of ``repeats``."""
    from skglm.datafits import LogisticGroup
    from skglm.penalties import WeightedGroupL2
    from skglm.solvers import GroupProxNewton
    from sklearn.linear_model import LogisticRegression

    from cvxpb.minimax.sparse_logistic import _group_pointers

    data = synthetic(n=200, d=d)
    X, y = data.X, data.y
    groups = [list(range(k, min(k + 10, d))) for k in range(0, d, 10)]
    pointers, indices = _group_pointers(groups)

    def liblinear():
        C = 1 / (X.shape[0] * eps)
        return LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, tol=1e-6).fit(X, y)

    def group_peer():
        datafit, weights = LogisticGroup(pointers, indices), np.full(len(groups), eps)
        penalty = WeightedGroupL2(1.0, weights, pointers, indices)
        return GroupProxNewton(fit_intercept=True, tol=1e-10).solve(X, y, datafit, penalty)

    def ours(norm):
        clf = MinimaxClassifier(loss="log", norm=norm, eps=eps, groups=groups)
        return lambda: clf.fit(X, y)

    rows = []
    for penalty, peer_name, peer, norm in (
        ("l1", "liblinear", liblinear, "linf"),
        ("group l2", "skglm GroupProxNewton", group_peer, "group"),
    ):
        first = time.perf_counter()
        peer()
        first = time.perf_counter() - first
        peer_time = best_time(peer, repeats)
        fit = ours(norm)
        ours_first = time.perf_counter()
        fit()
        ours_first = time.perf_counter() - ours_first
        ours_time = best_time(fit, repeats)
        rows.append(
            {
                "penalty": penalty,
                "peer": peer_name,
                "peer_s": peer_time,
                "peer_first_s": first,
                "cvxpb_s": ours_time,
                "cvxpb_first_s": ours_first,
                "ratio": ours_time / peer_time,
                "met": "yes" if ours_time <= 3 * peer_time else "NO",
            }
        )
    return rows


def _working_sets_by(X, y, eps, solver, repeats):
    """The estimator's working sets with every program solved by ``solver`` (the route
    before the interior-point method): ``(seconds, objective, certified gap)``."""
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    labels = np.searchsorted(np.unique(y), y)
    program = ("l2", eps, None, "l2", False, (X.shape[1],))
    T = labels.max()
    seconds = best_time(lambda: solve_zero_one(Xa, labels, T, *program, solver=solver), repeats)
    _, _, upper, lower = solve_zero_one(Xa, labels, T, *program, solver=solver)
    return seconds, upper, upper - lower


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
                "route": clf.route_,
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
    lasso = sparse(args.d, args.eps, args.repeats)
    rows = run(args.d, args.eps)
    if args.json:
        result = {"minimax_svm_digits": mmsvm, "sparse_logistic": lasso, "synthetic": rows}
        print(json.dumps(result, indent=2))
        return
    print(f"Minimax SVM on {args.digits} digits, eps = 0.1 (goal: within 20x LinearSVC)")
    print_table(
        mmsvm,
        {"solver": "<29", "seconds": ">8.2f", "ratio": ">6.1f", "loss": ">13", "gap": ">8"},
    )
    print(f"\nBinary log loss, n = 200, d = {args.d}, eps = {args.eps} (goal: within 3x)")
    print_table(
        lasso,
        {
            "penalty": "<8",
            "peer": "<21",
            "peer_s": ">7.3f",
            "peer_first_s": ">12.3f",
            "cvxpb_s": ">8.3f",
            "cvxpb_first_s": ">13.3f",
            "ratio": ">6.2f",
            "met": ">4",
        },
    )
    print(f"\nThe solvers on the problem with n = 200, d = {args.d}")
    formats = {
        "loss": "<9",
        "norm": "<5",
        "solver": "<8",
        "seconds": ">8.2f",
        "ratio": ">7.1f",
        "worst-case loss": ">15.8f",
        "iterations": ">10d",
        "route": "<22",
    }
    print_table(rows, formats)


if __name__ == "__main__":
    main()
