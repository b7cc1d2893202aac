"""Time of method="exact" for H up to 10^6, as a ratio to numpy.sort of the same risks
in the same process, for risks measured on M examples (multiples of 1/M, as a real
classifier family gives: at most M + 1 distinct values) and for distinct risks.

Goals at H = 10^5: within 15x the sort for the chi-squared divergence with the linear and
squared distances, 40x with the kl distance or the KL divergence;
at H = 10^6, every pair within 2 s (the KL-divergence pairs, whose statistics cost
O(H) a point, included).

    python -m benchmarks.bench_exact [--repeats 3] [--json] [--largest 1000000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import cvxpb as pb
from cvxpb.app.texttable import print_table
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE

SIZES = (50, 1990, 100_000, 1_000_000)
M = 1840


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def risks_for(H: int, seed: int = 0, distinct: bool = False) -> np.ndarray:
    """Risks measured on M examples (multiples of 1/M), as a real SVM family gives, or
    ``distinct`` ones (every value different)."""
    risks = np.random.default_rng(seed).uniform(0.02, 0.5, H)
    return risks if distinct else np.round(risks * M) / M


def goal(H: int, divergence: str, distance: str) -> str:
    if H == 1_000_000:
        return "2 s"
    if H == 100_000:
        return "40x sort" if "kl" in (distance, divergence) else "15x sort"
    return ""


def met(row) -> str:
    if row["goal"] == "2 s":
        return "yes" if row["exact_ms"] <= 2000 else "NO"
    if row["goal"]:
        return "yes" if row["ratio_to_sort"] <= float(row["goal"].split("x")[0]) else "NO"
    return ""


def run(repeats: int, largest: int) -> list[dict]:
    rows = []
    for H in (H for H in SIZES if H <= largest):
        for distinct in (False, True):
            risks = risks_for(H, distinct=distinct)
            sort_seconds = best_time(lambda r=risks: np.sort(r), repeats * 5)
            for divergence in ("chi2", "kl"):
                for distance in DISTANCES_BY_DIVERGENCE[divergence]:
                    prob = pb.BoundProblem(risks, M, 0.05, distance, divergence)
                    seconds = best_time(prob.solve, repeats)
                    row = {
                        "H": H,
                        "risks": "distinct" if distinct else "k/M",
                        "divergence": divergence,
                        "distance": distance,
                        "exact_ms": 1000 * seconds,
                        "sort_ms": 1000 * sort_seconds,
                        "ratio_to_sort": seconds / sort_seconds,
                        "status": prob.solve().status,
                        "goal": goal(H, divergence, distance),
                    }
                    rows.append(row | {"met": met(row)})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--largest", type=int, default=1_000_000, help="largest H to run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.repeats, args.largest)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print_table(
        rows,
        {
            "H": ">7",
            "risks": ">8",
            "divergence": ">10",
            "distance": ">8",
            "exact_ms": ">10.2f",
            "sort_ms": ">9.4f",
            "ratio_to_sort": ">13.0f",
            "status": ">8",
            "goal": ">8",
            "met": ">4",
        },
    )


if __name__ == "__main__":
    main()
