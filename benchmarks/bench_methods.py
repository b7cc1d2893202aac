"""Each method's bound gap to the exact optimum and its time, for H in {50, 200, 1990} and
the three distances (chi-squared divergence), with times as ratios to method="exact"
measured in the same process.

    python -m benchmarks.bench_methods [--nlp-seconds 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np

import cvxpb as pb
from cvxpb.app.texttable import print_table

SIZES = (50, 200, 1990)
M = 1840


def risks_for(H: int, seed: int = 0) -> np.ndarray:
    return np.round(np.random.default_rng(seed).uniform(0.02, 0.5, H) * M) / M


def run(nlp_seconds: float) -> list[dict]:
    rows = []
    for H in SIZES:
        for distance in ("linear", "sq", "kl"):
            prob = pb.BoundProblem(risks_for(H), M, 0.05, distance)
            table = prob.compare(options={"nlp": {"max_seconds": nlp_seconds}})
            base = float(table.loc[table.method == "exact", "seconds"].item())
            for row in table.itertuples():
                rows.append(
                    {
                        "H": H,
                        "distance": distance,
                        "method": row.method,
                        "gap": row.gap,
                        "seconds": row.seconds,
                        "ratio_to_exact": row.seconds / base,
                        "status": row.status,
                    }
                )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--nlp-seconds",
        type=float,
        default=60.0,
        help="time budget of the NLP baseline (SLSQP is O(H^3) an iteration)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = run(args.nlp_seconds)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print_table(
        rows,
        {
            "H": ">5",
            "distance": ">8",
            "method": ">12",
            "gap": ">10.2e",
            "seconds": ">9.4f",
            "ratio_to_exact": ">14.1f",
            "status": ">16",
        },
    )


if __name__ == "__main__":
    main()
