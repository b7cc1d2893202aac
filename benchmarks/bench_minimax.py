"""Farnia & Tse (2016), the problem with n = 200, d = 10000: conic solvers against FISTA.

Each fit of eq. (21) with the l2 moment norm (solved on the row space of X, n
columns) and with the l_inf one (the lasso's l1 penalty, all d columns); times as
ratios to the first row, measured in this process, with each fit's worst-case loss.

    python -m benchmarks.bench_minimax [--d 10000] [--eps 0.05] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

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
    parser.add_argument("--d", type=int, default=10_000)
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.d, args.eps)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
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
