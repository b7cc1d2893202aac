"""What each ``cvxpb`` command does; :mod:`cvxpb.app.cli` parses the command line.

Kept apart from the parser so that ``cvxpb --help`` and ``--version`` load none
of NumPy, pandas, SciPy or CVXPY.
"""

from __future__ import annotations

import codecs
import re
import sys
from pathlib import Path

import numpy as np

from cvxpb import jsonout
from cvxpb.app.legend import legend
from cvxpb.app.texttable import format_table
from cvxpb.engine.declare.bound_problem import BoundProblem
from cvxpb.engine.methods import METHODS
from cvxpb.engine.result import SUPPORT_NOTE

# -- reading numbers -------------------------------------------------------------


def read_vector(source: str, column: str | None = None, flag: str = "--column") -> np.ndarray:
    """Read numbers from a CSV/TXT file, an .npy file, or stdin (``-``).

    A file with several columns needs ``column``: a header name (``risk`` in a
    ``name,risk`` file) or an index from 0. Text is UTF-8 (a byte-order mark is
    read as one) or UTF-16 with its mark; a first row is a header only where every
    cell is a name (it starts with a letter), so no number is ever taken for one.

    Parameters
    ----------
    source : str
        The path, or ``-``.
    column : str, optional
        The column of a multi-column file.
    flag : str, default="--column"
        The option's name in errors.

    Returns
    -------
    ndarray of shape (n,)
        The numbers.

    Raises
    ------
    ValueError
        For an unreadable file, an .npy array that is not one column of numbers, a
        missing or unknown column, or a non-number.
    """
    if source.endswith(".npy"):
        return _read_npy(source)
    data = _stdin_bytes() if source == "-" else Path(source).read_bytes()
    lines = [
        (n, re.split(r"[,;\s]+", line.strip()))
        for n, line in enumerate(_decoded(data, source).splitlines(), 1)
    ]
    rows = [(n, cells) for n, cells in lines if cells[0]]
    header = rows.pop(0)[1] if rows and _names(rows[0][1]) else None
    if not rows:
        raise ValueError(f"{source}: no numbers found")
    widths = {len(cells) for _, cells in rows}
    if len(widths) != 1:
        raise ValueError(f"{source}: rows have different numbers of columns {sorted(widths)}")
    width = widths.pop()
    if column is None and width > 1 and len(rows) > 1:
        names = f" ({', '.join(header)})" if header else ""
        raise ValueError(f"{source}: {width} columns{names}; choose one with {flag}")
    if column is None:
        cells = [(n, x) for n, row in rows for x in row]
    else:
        index = _column_index(column, header, width, flag)
        cells = [(n, row[index]) for n, row in rows]
    return np.array([_number(x, source, n) for n, x in cells])


def _stdin_bytes() -> bytes:
    """Standard input's bytes (a stream without them, as a test's, gives its text)."""
    stream = sys.stdin
    return stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()


def _decoded(data: bytes, source: str) -> str:
    """``data`` as text: UTF-16 where it opens with that mark, else UTF-8 (its mark
    dropped: it made the first number unreadable, and that row was taken for a header)."""
    try:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        where = f"{err.reason} at byte {err.start}"
        raise ValueError(f"{source}: not UTF-8 or UTF-16 text ({where})") from None


def _read_npy(source: str) -> np.ndarray:
    """The numbers of an .npy file holding one column: ``(n,)`` or ``(n, 1)``."""
    with open(source, "rb") as file:
        if file.read(6) != b"\x93NUMPY":  # else numpy would try it as a pickle
            raise ValueError(
                f"{source}: not a NumPy .npy file (no .npy header); a text file of numbers "
                "is read under a name that does not end in .npy"
            )
    try:
        array = np.load(source, allow_pickle=False)
    except ValueError as err:
        raise ValueError(f"{source}: holds Python objects, not numbers ({err})") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{source}: holds {array.dtype} values, not real numbers")
    if not (array.ndim == 1 or (array.ndim == 2 and array.shape[1] == 1)):
        raise ValueError(f"{source}: an array of shape {array.shape}; one column (n,) is read")
    return array.astype(float).ravel()


def _column_index(column: str, header, width: int, flag: str) -> int:
    if header and column in header:
        return header.index(column)
    if column.isdigit() and int(column) < width:
        return int(column)
    names = f" or one of {', '.join(header)}" if header else ""
    raise ValueError(f"{flag} must be a column index in [0, {width - 1}]{names}, got {column!r}")


def _names(row) -> bool:
    """Whether every cell of ``row`` is a name (starts with a letter or _), as a header's
    are: ``nan`` and ``inf`` are numbers, ``0.05x`` a number written wrongly."""
    return all(re.match(r"[^\W\d]", x) and not _is_number(x) for x in row)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _number(text: str, source: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{source}, line {line}: {text!r} is not a number") from None


def _check_risks(risks: np.ndarray, source: str) -> None:
    bad = np.flatnonzero(~((risks >= 0) & (risks <= 1)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{source}: risk {i} (counting from 0) is {float(risks[i])!r}; risks must lie in [0, 1]"
            + (f" ({bad.size} such values)" if bad.size > 1 else "")
        )


def _read_prior(args, size: int) -> np.ndarray | None:
    if args.prior is None:
        return None
    prior = read_vector(args.prior, args.prior_column, "--prior-column")
    if prior.size != size:
        raise ValueError(f"--prior has {prior.size} weights for {size} risks")
    if np.any(~np.isfinite(prior)) or np.any(prior < 0):
        raise ValueError("--prior weights must be finite and >= 0")
    total = float(np.sum(prior))
    if args.normalize_prior and total > 0:
        return prior / total
    if abs(total - 1) > 1e-9:
        raise ValueError(
            f"--prior weights sum to {total!r}, not 1; fix the file or pass --normalize-prior"
        )
    return prior


# -- solve -------------------------------------------------------------------------


RESULT_FORMATS = {
    "method": "<11",
    "status": "<18",
    "bound": ".6f",
    "E_Q[risk]": ".6f",
    "divergence": ".6g",
    "support": "d",
    "ms": ".3g",
}


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


def _top_weights(data, posterior, top: int) -> str:
    order = np.argsort(-posterior, kind="stable")[:top]
    rows = [{"index": int(i), "risk": data.risks[i], "weight": posterior[i]} for i in order]
    return format_table(rows, {"index": "d", "risk": ".6g", "weight": ".6g"})


def _check_combination(args) -> None:
    """The pairs the parser cannot check, in the command line's own words."""
    if args.distance == "catoni" and args.divergence != "kl":
        raise ValueError("--distance catoni needs --divergence kl")
    if args.divergence == "renyi" and args.alpha is None:
        raise ValueError("--divergence renyi needs --alpha, the Renyi order (> 1)")
    if args.alpha is not None and args.divergence != "renyi":
        raise ValueError("--alpha is the Renyi order: use it with --divergence renyi")
    methods = [name.strip() for name in args.method.split(",")]
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"--method must be among {', '.join(METHODS)}; got {name!r}")
    if args.solver and "cvx" not in methods:
        raise ValueError("--solver is the CVXPY solver of --method cvx")


def cmd_solve(args) -> int:
    """Run ``cvxpb solve``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    _check_combination(args)
    risks = read_vector(args.risks, args.column)
    _check_risks(risks, args.risks)
    prob = BoundProblem(
        risks,
        args.m,
        args.delta,
        args.distance,
        args.divergence,
        _read_prior(args, risks.size),
        args.constants,
        alpha=args.alpha,
    )
    data = prob.standard_form().problem  # the bound as stated: H, m, delta, ...
    if args.compare:
        return _print_comparison(prob, data, args)
    methods = [name.strip() for name in args.method.split(",")]
    options = {"cvx": {"solver": args.solver}} if args.solver else {}
    results = [prob.solve(name, **options.get(name, {})) for name in methods]
    if args.json:
        print(jsonout.dumps(_solve_json(data, results), indent=2))
        return 0
    print(f"{data!r}\n")
    print(format_table([_result_row(r) for r in results], RESULT_FORMATS))
    print(SUPPORT_NOTE)
    best = min(results, key=lambda r: r.bound if np.isfinite(r.bound) else np.inf)
    if np.all(np.isfinite(best.posterior)):
        print(f"\ntop posterior weights ({best.method}):")
        print(_top_weights(data, best.posterior, args.top))
    return 0


def _solve_json(data, results) -> dict:
    return {
        "problem": {
            "H": data.H,
            "m": data.m,
            "delta": data.delta,
            "distance": data.distance,
            "divergence": data.divergence,
            "constants": data.constants,
        },
        "results": [
            {**_result_row(r), "message": r.message, "posterior": r.posterior.tolist()}
            for r in results
        ],
    }


def _print_comparison(prob, data, args) -> int:
    table = prob.compare(options={"nlp": {"max_seconds": args.nlp_seconds}})
    if args.json:
        payload = {"problem": repr(data), "rows": table.to_dict(orient="records")}
        print(jsonout.dumps(payload, indent=2))
        return 0
    print(f"{data!r}\n")
    print(table.text("more columns with --json"))
    return 0


# -- demo --------------------------------------------------------------------------


def cmd_demo(args) -> int:
    """Run ``cvxpb demo``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.demo import describe, run_demo

    data, table = run_demo(delta=args.delta, seed=args.seed, progress=not args.json)
    if args.json:
        payload = {
            "data": data.description,
            "m": data.m,
            "delta": args.delta,
            "rows": table.to_dict(orient="records"),
        }
        print(jsonout.dumps(payload, indent=2))
        return 0
    print(describe(data, table, args.delta))
    return 0


# -- experiments -------------------------------------------------------------------


def _dataset_names(items, own, word="paper") -> list[str]:
    """``--dataset`` values, comma-separated or repeated; ``word`` expands to ``own``
    (the paper's own datasets, or those of a committed table)."""
    names = [n.strip() for item in items for n in item.split(",") if n.strip()]
    return [n for item in names for n in (own if item == word else [item])]


def _written_to(args) -> None:
    if args.out:
        print(f"\nwritten to {Path(args.out)}/")


def _lambdas(args):
    """The grid of ``--lambdas`` (a file) or ``--H`` (Appendix D's), else None (Section 7's)."""
    if args.grid_size is not None:
        from cvxpb.svm import linear_grid

        if args.grid_size < 1:
            raise ValueError(f"--H must be a positive integer, got {args.grid_size}")
        return linear_grid(args.grid_size)
    return None if args.lambdas is None else read_vector(args.lambdas)


def cmd_stochastic_svm(args) -> int:
    """Run ``cvxpb experiment stochastic-svm``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.experiments import stochastic_svm as experiment

    names = _dataset_names(args.dataset, experiment.PAPER_DATASETS)
    options = {
        "delta": args.delta,
        "constants": args.constants,
        "method": args.method,
        "lambdas": _lambdas(args),
        "cost": args.cost,
        "folds": None if args.folds == 0 else args.folds,
        "subsets": not args.no_plots,  # the ordered-subset bounds are drawn, not tabulated
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
    print(legend(table.columns))
    if any(run.cv for run in runs):
        print("\ncross-validation against sq-chi2 (Sahu & Hemachandra, Table 4):")
        cv = experiment.cv_table(runs)
        print(cv.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(legend(cv.columns.drop("dataset")))
    _written_to(args)
    return 0


def cmd_stochastic_svm_appendix(args) -> int:
    """Run ``cvxpb experiment stochastic-svm-appendix``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    import json

    from cvxpb.app.experiments import stochastic_svm_appendix as appendix

    source = Path(args.results) / "stochastic_svm.json"
    if not source.is_file():
        raise ValueError(f"--results must hold a stochastic-svm run's JSON; {source} is missing")
    if args.starts < 2:
        raise ValueError(f"--starts must be at least 2, got {args.starts}")
    payload = json.loads(source.read_text())
    out = Path(args.out or args.results)
    for path in appendix.write(payload, out, starts=args.starts):
        print(f"written {path}")
    return 0


def _check_output(args) -> None:
    """``--out`` writable and matplotlib there (or plots off, with a note), before any work."""
    from cvxpb.app.experiments import prepare_output

    plots = prepare_output(args.out, not getattr(args, "no_plots", True))
    if hasattr(args, "no_plots"):
        args.no_plots = not plots


def _kept(args, name: str) -> dict:
    """Where an experiment keeps its finished repetitions (``--out``), and ``--resume``."""
    keep = None if args.out is None else Path(args.out) / ".finished" / name
    return {"keep": keep, "resume": args.resume}


def _save_or_print_json(experiment, rows, table, args, **options) -> bool:
    """Write the experiment's files under ``--out``; with ``--json`` print the table and
    return True (nothing more to print)."""
    if args.out:
        experiment.write(rows, args.out, **options)
    if args.json:
        records = table.astype(object).where(table.notna(), None)  # NaN is not JSON
        print(jsonout.dumps(records.to_dict(orient="records")))
    return bool(args.json)


def _check_datasets(names, allowed, what: str) -> None:
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError(f"--dataset must be among {', '.join(allowed)}{what}; got {unknown}")


def cmd_minimax(args) -> int:
    """Run ``cvxpb experiment minimax``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.datasets import NAMES
    from cvxpb.app.experiments import minimax as experiment
    from cvxpb.app.experiments import warning_report

    _check_output(args)
    names = _dataset_names(args.dataset, experiment.DATASETS)
    _check_datasets(names, (*NAMES, "synthetic"), ", or 'paper'")
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
    if _save_or_print_json(experiment, rows, table, args, plots=not args.no_plots):
        return 0
    wide = table.pivot(index="dataset", columns="method", values="error %")
    print("test error % (mean over runs; Farnia & Tse (2016), Table 1):")
    print(wide.reindex(columns=list(methods)).to_string(float_format=lambda v: f"{v:.1f}"))
    print("\nwith standard errors:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(legend(table.columns))
    print(f"\n{warning_report(rows)}")
    _written_to(args)
    return 0


def cmd_prior_svm(args) -> int:
    """Run ``cvxpb experiment prior-svm``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.datasets import NAMES
    from cvxpb.app.experiments import prior_svm as experiment

    _check_output(args)
    names = _dataset_names(args.dataset, ("pima",))
    _check_datasets(names, NAMES, ", or 'paper'")
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
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep=""))
    meaning = "the bound of the grid point of least bound, mean over the runs (none for "
    print(legend(table.columns, meanings={"bound": meaning + "SVM+10FCV, chosen by CV)"}))
    _written_to(args)
    return 0


def cmd_slt_gp(args) -> int:
    """Run ``cvxpb experiment slt-gp``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.experiments import slt_gp as experiment
    from cvxpb.app.experiments import warning_report

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
        methods=tuple(m.strip() for m in args.methods.split(",")),
    )
    table = experiment.summary(rows)
    if _save_or_print_json(experiment, rows, table, args, plots=not args.no_plots):
        return 0
    print(
        "test accuracy % (Kamesawa et al., Table 3; rho: SLT-GP's empirical-Bayes task similarity):"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep=""))
    print(legend(table.columns, table["method"]))
    print(f"\n{warning_report(rows)}")
    _written_to(args)
    return 0


def cmd_majority_vote(args) -> int:
    """Run ``cvxpb experiment majority-vote``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status (0 on success).
    """
    from cvxpb.app.datasets import KEEL
    from cvxpb.app.experiments import majority_vote as experiment
    from cvxpb.app.experiments.published import SOURCES, beside_published

    _check_output(args)
    names = _dataset_names(args.dataset, experiment.DATASETS, word="table")
    _check_datasets(names, KEEL, ", or 'table'")
    modes = tuple(m.strip() for m in args.modes.split(","))
    if args.trees < 1:
        raise ValueError(f"--trees must be a positive integer, got {args.trees}")
    bounds = experiment.bound_names(args.bounds)
    rows, posteriors = experiment.run_experiment(
        names,
        args.runs,
        modes,
        bounds=bounds,
        trees=args.trees,
        random_state=args.seed,
        progress=not args.json,
        **_kept(args, "majority_vote"),
    )
    table = experiment.summary(rows)
    options = {"posteriors": posteriors, "plots": not args.no_plots}
    if _save_or_print_json(experiment, rows, table, args, **options):
        return 0
    runs = f"mean over {args.runs} runs" if args.runs > 1 else "one run"
    print(f"each bound's minimum over the trees' weights ({runs}): the vote's risk is at most")
    print("this with probability 0.95 (split: errors on a held-out half; oob: out of bag)")
    print(experiment.wide(table).to_string(float_format=lambda v: f"{v:.4f}", na_rep="-"))
    print("\ntest risk of the vote with each bound's posterior (uniform: all trees alike):")
    risks = experiment.wide(table, "test risk")
    print(risks.to_string(float_format=lambda v: f"{v:.4f}", na_rep="-"))
    print("\nwhat each minimum proves (optimal: certified least; local: a true bound, not")
    print("proven least; with several runs, how many of each):")
    print(experiment.wide(table, "statuses").to_string(na_rep="-"))
    for note in experiment.remarks(table):
        print("\n" + note)
    shown = []
    for column, source in SOURCES.items():
        published = beside_published(table, column)
        if len(published):
            print(f"\n{column} out of bag beside {source}:")
            print(published.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep=""))
            shown = published.columns
    print("\n" + legend(shown, table["bound"], {"bound": "the bound's name (below)"}))
    _written_to(args)
    return 0
