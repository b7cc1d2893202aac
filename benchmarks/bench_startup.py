"""Start-up: what a command costs before any work, as a ratio to a bare interpreter.

Each command runs in a fresh process, ``--repeats`` times; the least wall time
counts (the others carry the machine's noise). The reference, ``python -c pass``,
runs in the same loop. Goals: ``cvxpb --version`` and ``--help`` within 10x of the
bare interpreter; ``import cvxpb`` and ``cvxpb solve`` on 10 risks (kl distance,
its constant computed afresh) under 1 s.

    python -m benchmarks.bench_startup [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cvxpb.app.texttable import print_table

RISKS = "0.10\n0.12\n0.30\n0.05\n0.20\n0.22\n0.15\n0.40\n0.11\n0.09\n"


def commands(risks: Path) -> dict[str, tuple[list[str], str, float]]:
    """name -> (argv, goal kind, goal value): ``ratio`` to the bare interpreter, or ``seconds``."""
    cli = [sys.executable, "-m", "cvxpb"]
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], "", 0.0),
        "cvxpb --version": ([*cli, "--version"], "ratio", 10.0),
        "cvxpb --help": ([*cli, "--help"], "ratio", 10.0),
        "cvxpb solve --help": ([*cli, "solve", "--help"], "ratio", 10.0),
        "import cvxpb": ([sys.executable, "-c", "import cvxpb"], "seconds", 1.0),
        "import cvxpb; cvxpb.BoundProblem": (
            [sys.executable, "-c", "import cvxpb; cvxpb.BoundProblem"],
            "seconds",
            1.0,
        ),
        "cvxpb solve (10 risks, kl)": ([*cli, "solve", str(risks), "--m", "1840"], "seconds", 1.0),
    }


def least_time(argv: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def measure(repeats: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        risks = Path(folder) / "risks.csv"
        risks.write_text(RISKS)
        plan = commands(risks)
        seconds = {name: least_time(argv, repeats) for name, (argv, _, _) in plan.items()}
    bare = seconds["python -c pass"]
    rows = []
    for name, (_, kind, goal) in plan.items():
        value = seconds[name] / bare if kind == "ratio" else seconds[name]
        rows.append(
            {
                "command": name,
                "seconds": seconds[name],
                "ratio": seconds[name] / bare,
                "goal": f"{kind} <= {goal:g}" if kind else "reference",
                "met": "yes" if not kind or value <= goal else "NO",
            }
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = measure(args.repeats)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    formats = {"command": "<34", "seconds": ">8.3f", "ratio": ">7.1f", "goal": ">15", "met": ">4"}
    print_table(rows, formats)


if __name__ == "__main__":
    main()
