"""Sahu & Hemachandra's pipeline on WDBC with the full 158-value grid: where the time goes.

Stages: training the SVM family (the baseline, ratio 1), each (distance, divergence)
posterior by ``method``, the ordered-subset bounds of Figure 1, and 5-fold CV over
the same grid (Table 4). All measured in this process, times as ratios to training.

    python -m benchmarks.bench_stochastic_svm [--method exact] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

from cvxpb import BoundProblem, datasets
from cvxpb.app.diagnostics import ordered_subset_bounds
from cvxpb.app.experiments.stochastic_svm import PAIRS, split
from cvxpb.app.texttable import print_table
from cvxpb.svm import lambda_grid
from cvxpb.svm.cv import cross_validate
from cvxpb.svm.family import fit_family


def _best_of(repeat, work):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = work()
        times.append(time.perf_counter() - start)
    return min(times), value


def run(method: str, repeat: int) -> list[dict]:
    X, y, _, _ = split(datasets.load("wdbc"), 0)
    lambdas = lambda_grid()
    base, family = _best_of(repeat, lambda: fit_family(X, y, lambdas, random_state=0))
    rows = [{"stage": f"train {lambdas.size} SVMs", "seconds": base}]
    for distance, divergence in PAIRS:
        prob = BoundProblem(family.risks, family.m, 0.05, distance, divergence)
        seconds, _ = _best_of(repeat, lambda prob=prob: prob.solve(method))
        rows.append({"stage": f"posterior {distance}-{divergence}", "seconds": seconds})
        if divergence == "chi2":
            seconds, _ = _best_of(1, lambda prob=prob: ordered_subset_bounds(prob))
            rows.append({"stage": f"Figure 1 {distance}-{divergence}", "seconds": seconds})
    seconds, _ = _best_of(1, lambda: cross_validate(X, y, lambdas, 5, family.gamma))
    rows.append({"stage": "5-fold CV", "seconds": seconds})
    for row in rows:
        row["ratio"] = row["seconds"] / base
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="exact")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.method, args.repeat)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print_table(rows, {"stage": "<24", "seconds": ">9.4f", "ratio": ">9.3f"})
    total = sum(r["seconds"] for r in rows if r["stage"].startswith("posterior"))
    print(
        f"\nall {len(PAIRS)} posteriors: {total:.3f} s, {total / rows[0]['seconds']:.3f} x training"
    )


if __name__ == "__main__":
    main()
