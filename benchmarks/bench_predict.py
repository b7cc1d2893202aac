"""StochasticSVM.predict at H = 1990 SVMs, as a ratio to its peer: one SVC's own
``predict`` times the posterior's support (what evaluating each SVM in turn costs).

Goal: within 2x. ``predict`` evaluates only SVMs with weight, and the kernel between
the test points and all their support vectors once.

    python -m benchmarks.bench_predict [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from benchmarks.bench_exact import best_time
from cvxpb.app import datasets
from cvxpb.app.experiments.stochastic_svm import split
from cvxpb.app.texttable import print_table
from cvxpb.svm import StochasticSVM

H = 1990


def run(repeats: int) -> list[dict]:
    X, y, X_test, _ = split(datasets.load("wdbc"), 0)
    lambdas = np.geomspace(1e-4, 5, H)
    rows = []
    for distance, divergence in (("sq", "chi2"), ("kl", "chi2"), ("kl", "kl")):
        clf = StochasticSVM(distance=distance, divergence=divergence, lambdas=lambdas)
        clf.fit(X, y)
        support = int(np.count_nonzero(clf.posterior_))
        heavy = clf.result_.support_size
        svc = clf.family_.estimators[int(np.argmax(clf.posterior_))]
        one = best_time(lambda s=svc: s.predict(X_test), repeats)
        ours = best_time(lambda c=clf: c.predict(X_test), repeats)
        peer = one * heavy
        rows.append(
            {
                "bound": f"{distance}-{divergence}",
                "support": support,
                "above 1e-6/H": heavy,
                "predict_ms": 1000 * ours,
                "peer_ms": 1000 * peer,
                "ratio": ours / peer,
                "met": "yes" if ours <= 2 * peer else "NO",
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.repeats)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    formats = {"bound": "<10", "support": "d", "above 1e-6/H": "d", "predict_ms": ".2f"}
    print_table(rows, formats | {"peer_ms": ".2f", "ratio": ".2f", "met": ">4"})


if __name__ == "__main__":
    main()
