"""The ``cvxpb`` command: ``cvxpb solve RISKS`` and ``cvxpb demo``."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from cvxpb import __version__, jsonout
from cvxpb.bounds import DISTANCES_BY_DIVERGENCE
from cvxpb.constants import CONSTANTS
from cvxpb.datasets import NAMES as DATASET_NAMES
from cvxpb.datasets import PRIVILEGED
from cvxpb.parallel import ClusterLostError
from cvxpb.problem import BoundProblem
from cvxpb.solvers import METHODS

ALL_DISTANCES = ("linear", "sq", "kl", "catoni")


def read_vector(source: str, column: int | None = None) -> np.ndarray:
    """Numbers from a CSV/TXT file (one column, or ``column``), an .npy file, or stdin (``-``)."""
    if source.endswith(".npy"):
        return np.ravel(np.load(source))
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    rows = [r for r in (re.split(r"[,;\s]+", line.strip()) for line in text.splitlines()) if r[0]]
    if rows and not _numeric(rows[0]):
        rows = rows[1:]  # a header line
    if not rows:
        raise ValueError(f"{source}: no numbers found")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise ValueError(f"{source}: rows have different numbers of columns {sorted(widths)}")
    table = np.array([[_number(x, source) for x in r] for r in rows])
    if table.shape[1] > 1 and column is None and table.shape[0] > 1:
        raise ValueError(f"{source}: {table.shape[1]} columns; choose one with --column")
    if column is not None:
        if not 0 <= column < table.shape[1]:
            raise ValueError(f"--column must be in [0, {table.shape[1] - 1}], got {column}")
        return table[:, column]
    return table.ravel()


def _numeric(row) -> bool:
    try:
        [float(x) for x in row]
    except ValueError:
        return False
    return True


def _number(text: str, source: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{source}: {text!r} is not a number") from None


def _result_row(res) -> dict:
    return {
        "method": res.method,
        "bound": res.bound,
        "E_Q[risk]": res.empirical_risk,
        "divergence": res.divergence,
        "support": res.support_size,
        "status": res.status,
        "ms": round(1000 * res.seconds, 2),
    }


def _top_weights(prob, posterior, top: int) -> pd.DataFrame:
    order = np.argsort(-posterior, kind="stable")[:top]
    return pd.DataFrame({"index": order, "risk": prob.risks[order], "weight": posterior[order]})


def cmd_solve(args) -> int:
    risks = read_vector(args.risks, args.column)
    prior = None if args.prior is None else read_vector(args.prior)
    prob = BoundProblem(
        risks,
        args.m,
        args.delta,
        args.distance,
        args.divergence,
        prior,
        args.constants,
        alpha=args.alpha,
    )
    if args.compare:
        return _print_comparison(prob, args)
    methods = [name.strip() for name in args.method.split(",")]
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"--method must be among {tuple(METHODS)}, got {name!r}")
    options = {"cvx": {"solver": args.solver}} if args.solver else {}
    results = [prob.solve(name, **options.get(name, {})) for name in methods]
    if args.json:
        payload = {
            "problem": {
                "H": prob.H,
                "m": prob.m,
                "delta": prob.delta,
                "distance": prob.distance,
                "divergence": prob.divergence,
                "constants": prob.constants,
            },
            "results": [
                {**_result_row(r), "message": r.message, "posterior": r.posterior.tolist()}
                for r in results
            ],
        }
        print(jsonout.dumps(payload, indent=2))
        return 0
    print(f"{prob!r}\n")
    print(pd.DataFrame([_result_row(r) for r in results]).to_string(index=False))
    best = min(results, key=lambda r: r.bound if np.isfinite(r.bound) else np.inf)
    if np.all(np.isfinite(best.posterior)):
        print(f"\ntop posterior weights ({best.method}):")
        print(_top_weights(prob, best.posterior, args.top).to_string(index=False))
    return 0


def _print_comparison(prob, args) -> int:
    table = prob.compare(options={"nlp": {"max_seconds": args.nlp_seconds}})
    if args.json:
        print(
            jsonout.dumps(
                {"problem": repr(prob), "rows": table.to_dict(orient="records")},
                indent=2,
            )
        )
        return 0
    print(f"{prob!r}\n")
    shown = table.drop(columns="message")
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0


def cmd_demo(args) -> int:
    from cvxpb.demo import run_demo

    data, table = run_demo(delta=args.delta, seed=args.seed)
    if args.json:
        print(
            jsonout.dumps(
                {"data": data.description, "m": data.m, "rows": table.to_dict(orient="records")},
                indent=2,
            )
        )
        return 0
    print(data.description)
    print(
        f"validation risks: min {data.risks.min():.4f}, max {data.risks.max():.4f}; "
        f"delta = {args.delta}\n"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.5f}"))
    print(f"\n{table.attrs['seconds']:.1f} s in all (SVM training included)")
    return 0


def _dataset_names(items, seed_names) -> list[str]:
    """``--dataset`` values, comma-separated or repeated; ``seed`` expands to ``seed_names``."""
    names = [n.strip() for item in items for n in item.split(",") if n.strip()]
    return [n for item in names for n in (seed_names if item == "seed" else [item])]


def _add_datasets(parser, what: str) -> None:
    parser.add_argument(
        "--dataset",
        action="append",
        required=True,
        help=f"{what} (repeat or comma-separate); 'seed' for the seed's datasets here",
    )


def cmd_experiment(args) -> int:
    from cvxpb.experiments import stochastic_svm as experiment

    names = _dataset_names(args.dataset, experiment.SEED_DATASETS)
    options = {
        "delta": args.delta,
        "constants": args.constants,
        "method": args.method,
        "lambdas": None if args.lambdas is None else read_vector(args.lambdas),
        "folds": None if args.folds == 0 else args.folds,
        "random_state": args.seed,
        "n_jobs": args.n_jobs,
    }
    runs = experiment.run_experiment(
        names,
        args.out,
        plots=not args.no_plots,
        progress=not args.json,
        resume=args.resume,
        **options,
    )
    if args.json:
        print(jsonout.dumps(experiment.to_json(runs, {"datasets": names})))
        return 0
    table = experiment.results_table(runs).drop(columns=["message", "method", "delta"])
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if any(run.cv for run in runs):
        print("\ncross-validation against sq-chi2 (Sahu & Hemachandra, Table 4):")
        cv = experiment.cv_table(runs)
        print(cv.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.out:
        print(f"\nwritten to {args.out}/")
    return 0


def _check_output(args) -> None:
    """``--out`` writable and matplotlib there (or plots off, with a note), before any work."""
    from cvxpb.experiments import prepare_output

    plots = prepare_output(args.out, not getattr(args, "no_plots", True))
    if hasattr(args, "no_plots"):
        args.no_plots = not plots


def _kept(args, name: str) -> dict:
    """Where an experiment keeps its finished repetitions (``--out``), and ``--resume``."""
    from pathlib import Path

    keep = None if args.out is None else Path(args.out) / ".finished" / name
    return {"keep": keep, "resume": args.resume}


def _add_resume(parser) -> None:
    parser.add_argument(
        "--resume",
        action="store_true",
        help="take the work an earlier, interrupted run finished under --out",
    )


def _save_or_print_json(experiment, rows, table, args, **options) -> bool:
    """Write the experiment's files under ``--out``; with ``--json`` print the table and
    return True (nothing more to print)."""
    if args.out:
        experiment.write(rows, args.out, **options)
    if args.json:
        records = table.astype(object).where(table.notna(), None)  # NaN is not JSON
        print(jsonout.dumps(records.to_dict(orient="records")))
    return bool(args.json)


def cmd_minimax(args) -> int:
    from cvxpb.experiments import minimax as experiment

    _check_output(args)

    names = _dataset_names(args.dataset, experiment.DATASETS)
    unknown = [n for n in names if n not in (*DATASET_NAMES, "synthetic")]
    if unknown:
        raise ValueError(f"datasets must be among {DATASET_NAMES} or synthetic, got {unknown}")
    methods = tuple(m.strip() for m in args.methods.split(","))
    rows = experiment.run_experiment(
        names,
        args.runs,
        methods,
        random_state=args.seed,
        progress=not args.json,
        **_kept(args, "minimax"),
    )
    table = experiment.summary(rows)
    if _save_or_print_json(experiment, rows, table, args):
        return 0
    wide = table.pivot(index="dataset", columns="method", values="error %")
    print("test error % (mean over runs; Farnia & Tse (2016), Table 1):")
    print(wide.reindex(columns=list(methods)).to_string(float_format=lambda v: f"{v:.1f}"))
    print("\nwith standard errors:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    return 0


def cmd_prior_svm(args) -> int:
    from cvxpb.experiments import prior_svm as experiment

    _check_output(args)

    names = _dataset_names(args.dataset, ("pima",))
    unknown = [n for n in names if n not in DATASET_NAMES]
    if unknown:
        raise ValueError(f"datasets must be among {DATASET_NAMES}, got {unknown}")
    fractions = tuple(float(f) for f in args.fractions.split(","))
    methods = tuple(m.strip() for m in args.methods.split(","))
    grids = {}
    if args.c_grid:
        grids["c_grid"] = tuple(float(c) for c in args.c_grid.split(","))
    if args.sigma_factors:
        grids["sigma_factors"] = tuple(float(f) for f in args.sigma_factors.split(","))
    grid = experiment.run_experiment(
        names,
        args.runs,
        fractions,
        methods,
        args.seed,
        args.n_jobs,
        not args.json,
        **grids,
        **_kept(args, "prior_svm"),
    )
    table = experiment.summary(grid)
    if _save_or_print_json(experiment, grid, table, args, plots=not args.no_plots):
        return 0
    print(
        "bounds and test errors of the bound-selected classifiers "
        "(Parrado-Hernández et al., 2012, Tables 2-5):"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0


def cmd_slt_gp(args) -> int:
    from cvxpb.experiments import slt_gp as experiment

    _check_output(args)

    settings = [n.strip() for item in args.setting for n in item.split(",") if n.strip()]
    r_values = tuple(float(r) for r in args.r_values.split(","))
    sizes = tuple(int(n) for n in args.sizes.split(","))
    rows = experiment.run_experiment(
        settings,
        args.repeats,
        r_values,
        args.seed,
        args.n_jobs,
        not args.json,
        sizes,
        **_kept(args, "slt_gp"),
    )
    table = experiment.summary(rows)
    if _save_or_print_json(experiment, rows, table, args, plots=not args.no_plots):
        return 0
    print(
        "test accuracy % (Kamesawa et al., Table 3; rho: SLT-GP's empirical-Bayes task similarity):"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cvxpb", description="PAC-Bayes bound minimization as convex programs."
    )
    parser.add_argument("--version", action="version", version=f"cvxpb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="minimize a bound over posteriors on given risks")
    solve.add_argument("risks", help="CSV/TXT (one number a line or a column) or .npy; - is stdin")
    solve.add_argument("--m", type=int, required=True, help="sample size of the risks")
    solve.add_argument("--delta", type=float, default=0.05)
    solve.add_argument("--distance", default="kl", choices=ALL_DISTANCES)
    solve.add_argument("--divergence", default="chi2", choices=tuple(DISTANCES_BY_DIVERGENCE))
    solve.add_argument("--alpha", type=float, help="Renyi order > 1 (with --divergence renyi)")
    solve.add_argument("--prior", help="file of prior weights (default uniform)")
    solve.add_argument("--constants", default="exact", choices=CONSTANTS)
    solve.add_argument("--method", default="exact", help=f"comma-separated, of {tuple(METHODS)}")
    solve.add_argument("--solver", help="CVXPY solver for method cvx (CLARABEL, ECOS, SCS)")
    solve.add_argument("--column", type=int, help="column of a multi-column file (from 0)")
    solve.add_argument("--top", type=int, default=5, help="posterior weights to show")
    solve.add_argument("--json", action="store_true", help="machine-readable output")
    solve.add_argument(
        "--compare", action="store_true", help="every applicable method against the exact optimum"
    )
    solve.add_argument(
        "--nlp-seconds",
        type=float,
        default=30.0,
        help="time budget of the NLP baseline in --compare",
    )
    solve.set_defaults(run=cmd_solve)
    demo = sub.add_parser("demo", help="the main job on WDBC, shipped with scikit-learn")
    demo.add_argument("--delta", type=float, default=0.05)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--json", action="store_true")
    demo.set_defaults(run=cmd_demo)
    experiment = sub.add_parser("experiment", help="the seeds' experiments, written to files")
    which = experiment.add_subparsers(dest="experiment", required=True)
    svm = which.add_parser(
        "stochastic-svm", help="Sahu & Hemachandra: stochastic SVMs on real data against 5-fold CV"
    )
    _add_datasets(svm, "a dataset")
    svm.add_argument("--out", help="directory for CSV, JSON and PNG files")
    svm.add_argument("--delta", type=float, default=0.05)
    svm.add_argument("--constants", default="exact", choices=CONSTANTS)
    svm.add_argument("--method", default="exact", choices=tuple(METHODS))
    svm.add_argument(
        "--lambdas", help="file of lambdas (default: Sahu & Hemachandra's 158-value grid)"
    )
    svm.add_argument("--folds", type=int, default=5, help="CV folds; 0 skips the CV baseline")
    svm.add_argument("--seed", type=int, default=0)
    svm.add_argument("--n-jobs", type=int, help="joblib workers for the SVMs and the CV")
    svm.add_argument("--no-plots", action="store_true")
    _add_resume(svm)
    svm.add_argument("--json", action="store_true", help="print everything as JSON")
    svm.set_defaults(run=cmd_experiment)
    mm = which.add_parser(
        "minimax",
        help="Farnia & Tse (2016): minimax classifiers against SVM and logistic regression",
    )
    _add_datasets(mm, "a dataset or 'synthetic'")
    mm.add_argument("--runs", type=int, default=20, help="random 70:30 splits per dataset")
    mm.add_argument(
        "--methods",
        default="mmSVM,mmBC,mmRBC,SVM,LogReg",
        help="comma-separated, of mmSVM, mmBC, mmRBC, SVM, LogReg, Majority",
    )
    mm.add_argument("--out", help="directory for the CSV and JSON files")
    mm.add_argument("--seed", type=int, default=0)
    _add_resume(mm)
    mm.add_argument("--json", action="store_true")
    mm.set_defaults(run=cmd_minimax)
    ps = which.add_parser(
        "prior-svm",
        help="Parrado-Hernández et al. (2012): SVMs and prior SVMs selected by PAC-Bayes bounds",
    )
    _add_datasets(ps, "a dataset")
    ps.add_argument("--runs", type=int, default=5, help="random 80:20 splits (the seed: 50)")
    ps.add_argument("--fractions", default="1.0", help="training-set fractions, e.g. 0.2,0.6,1")
    ps.add_argument(
        "--methods",
        default="SVM+PB,SVM+PriorPB,SVM+tauPB,SVM+EPB,SVM+tauEPB,PriorSVM,EtaPriorSVM",
        help="comma-separated; also PriorSVM-2C and EtaPriorSVM-2C (prior C searched too)",
    )
    ps.add_argument("--c-grid", help="values of C (default the seed's 0.01,...,10000)")
    ps.add_argument("--sigma-factors", help="sigma / sqrt(d) (default 0.25,0.5,1,2,4)")
    ps.add_argument("--out", help="directory for the CSV and PNG files")
    ps.add_argument("--seed", type=int, default=0)
    ps.add_argument("--n-jobs", type=int, help="joblib workers over the repetitions")
    ps.add_argument("--no-plots", action="store_true")
    _add_resume(ps)
    ps.add_argument("--json", action="store_true")
    ps.set_defaults(run=cmd_prior_svm)
    sg = which.add_parser("slt-gp", help="Kamesawa et al.: GPC, SLT-GP and GPC on X* (Table 3)")
    sg.add_argument(
        "--setting",
        action="append",
        required=True,
        help=f"one of {', '.join(PRIVILEGED)} (repeat or comma-separate)",
    )
    sg.add_argument("--repeats", type=int, default=5, help="draws per setting (the seed: 100)")
    sg.add_argument("--r-values", default="0", help="noise rates r for noisy_latent_gp")
    sg.add_argument("--sizes", default="200", help="training-set sizes, e.g. 20,50,100,200")
    sg.add_argument("--out", help="directory for the CSV files")
    sg.add_argument("--seed", type=int, default=0)
    sg.add_argument("--n-jobs", type=int, help="joblib workers over the repeats")
    sg.add_argument("--no-plots", action="store_true")
    _add_resume(sg)
    sg.add_argument("--json", action="store_true")
    sg.set_defaults(run=cmd_slt_gp)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, OSError, ImportError) as err:
        print(f"cvxpb: error: {err}", file=sys.stderr)
        return 2
    except ClusterLostError as err:
        print(f"cvxpb: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = getattr(args, "out", None)
        where = f"; finished work is kept under {kept}/" if kept else ""
        print(f"\ncvxpb: interrupted{where}", file=sys.stderr)
        if kept and hasattr(args, "resume"):
            print("cvxpb: run the same command with --resume to go on from there", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
