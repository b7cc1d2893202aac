"""Where CCP stops being the method to use: its time a CCP iteration and in all, its
status, and its gap to the exact optimum, against method="exact" in the same process,
for H classifiers with the kl distance and the KL divergence.

Each CCP iteration solves an exponential-cone program in H variables (CLARABEL, then
ECOS, then SCS with an iteration cap); the exact method searches the Gibbs family.

    python -m benchmarks.bench_ccp_scale [--sizes 500,1000,2000,4000] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

import cvxpb as pb
from cvxpb.app.texttable import print_table


def run(sizes) -> list[dict]:
    rows = []
    for H in sizes:
        rng = np.random.default_rng(H)
        prob = pb.BoundProblem(rng.uniform(0, 1, H), m=1000, distance="kl", divergence="kl")
        start = time.perf_counter()
        exact = prob.solve("exact")
        exact_seconds = time.perf_counter() - start
        start = time.perf_counter()
        ccp = prob.solve("ccp")
        seconds = time.perf_counter() - start
        rows.append(
            {
                "H": H,
                "ccp status": ccp.status,
                "iterations": ccp.iterations,
                "s/iteration": seconds / max(ccp.iterations, 1),
                "ccp s": seconds,
                "exact s": exact_seconds,
                "ratio": seconds / exact_seconds,
                "gap to exact": ccp.bound - exact.bound,
            }
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000,4000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = run([int(s) for s in args.sizes.split(",")])
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        formats = {"H": ">6d", "ccp status": "<14", "iterations": ">4d", "s/iteration": ">8.3f"}
        formats |= {"ccp s": ">8.2f", "exact s": ">8.4f", "ratio": ">8.0f", "gap to exact": ">9.2g"}
        print_table(rows, formats)


if __name__ == "__main__":
    main()
