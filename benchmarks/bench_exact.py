"""Time of method="exact" for H in {50, 1990, 10^5}, as a ratio to numpy.sort of the
same risks, measured in the same process (the method is O(H log H): a sort, cumulative
sums and a branch and bound whose work does not grow with H for chi-squared).

    python -m benchmarks.bench_exact [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import cvxpb as pb
from cvxpb.bounds import DISTANCES_BY_DIVERGENCE
from cvxpb.texttable import print_table

SIZES = (50, 1990, 100_000)
M = 1840


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def risks_for(H: int, seed: int = 0) -> np.ndarray:
    """Risks measured on M examples (multiples of 1/M), as a real SVM family gives."""
    return np.round(np.random.default_rng(seed).uniform(0.02, 0.5, H) * M) / M


def run(repeats: int) -> list[dict]:
    rows = []
    for H in SIZES:
        risks = risks_for(H)
        sort_seconds = best_time(lambda r=risks: np.sort(r), repeats * 20)
        for divergence in ("chi2", "kl"):
            for distance in DISTANCES_BY_DIVERGENCE[divergence]:
                prob = pb.BoundProblem(risks, M, 0.05, distance, divergence)
                seconds = best_time(prob.solve, repeats)
                rows.append(
                    {
                        "H": H,
                        "divergence": divergence,
                        "distance": distance,
                        "exact_ms": 1000 * seconds,
                        "sort_ms": 1000 * sort_seconds,
                        "ratio_to_sort": seconds / sort_seconds,
                    }
                )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.repeats)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print_table(
        rows,
        {
            "H": ">7",
            "divergence": ">10",
            "distance": ">8",
            "exact_ms": ">10.2f",
            "sort_ms": ">9.4f",
            "ratio_to_sort": ">13.0f",
        },
    )


if __name__ == "__main__":
    main()
