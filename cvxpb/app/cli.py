"""The ``cvxpb`` command line: ``solve``, ``demo`` and ``experiment``.

This module only parses; :mod:`cvxpb.app.commands` does the work, imported once a
command runs, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import re
import sys

from cvxpb import __version__
from cvxpb.app.datasets import NAMES as DATASET_NAMES
from cvxpb.app.datasets import PRIVILEGED
from cvxpb.engine.methods import METHODS
from cvxpb.ensemble.registry import REGISTRY
from cvxpb.numerics import CONSTANTS
from cvxpb.pac_bayes import DISTANCES_BY_DIVERGENCE

ALL_DISTANCES = ("linear", "sq", "kl", "catoni")
FORMATTER = argparse.ArgumentDefaultsHelpFormatter

# Run times of the README's experiment commands on a quiet 2-core machine.
RUN_TIMES = {
    "stochastic-svm": "--dataset wdbc,bupa takes about 15 s",
    "stochastic-svm-appendix": "on the committed H = 1990 run (8 datasets) about 2.5 minutes",
    "minimax": "--dataset hepatitis,crx --runs 20 takes about 1 minute",
    "prior-svm": "--dataset pima --runs 5 takes about 6 minutes (35 grid cells a run)",
    "slt-gp": "--setting latent_gp --repeats 10 takes about 35 s (40 GP fits)",
    "majority-vote": "--dataset spambase,splice --runs 1 takes about 40 s (11 bounds)",
}
"""Measured on a quiet 2-core machine with one BLAS thread (the README gives the same)."""


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _command(name: str):
    """The function of :mod:`cvxpb.app.commands` that runs ``name``, loaded when it runs."""

    def run(args):
        from cvxpb.app import commands

        return getattr(commands, name)(args)

    return run


def _add_solve(sub) -> None:
    solve = sub.add_parser(
        "solve",
        formatter_class=FORMATTER,
        help="minimize a bound over posteriors on given risks",
        description="Minimize a PAC-Bayes bound over posteriors on the classifiers whose "
        "empirical risks are in RISKS. The bound is an upper bound on the true risk of "
        "the stochastic classifier, holding with probability at least 1 - delta over the "
        "sample of size m.",
    )
    solve.add_argument(
        "risks",
        help="CSV/TXT (one number a line, or a column chosen by --column) or .npy; - is stdin",
    )
    solve.add_argument("--m", type=int, required=True, help="sample size of the risks")
    solve.add_argument("--delta", type=float, default=0.05, help="confidence: holds w.p. 1 - delta")
    solve.add_argument(
        "--distance",
        default="kl",
        choices=ALL_DISTANCES,
        help="how empirical and true risk are compared; catoni needs --divergence kl",
    )
    solve.add_argument(
        "--divergence",
        default="chi2",
        choices=tuple(DISTANCES_BY_DIVERGENCE),
        help="posterior against prior; renyi needs --alpha",
    )
    solve.add_argument("--alpha", type=float, help="Renyi order > 1 (with --divergence renyi)")
    solve.add_argument("--prior", help="file of prior weights, one per risk (default uniform)")
    solve.add_argument("--prior-column", help="column of a multi-column --prior file")
    solve.add_argument(
        "--normalize-prior",
        action="store_true",
        help="divide the prior weights by their sum instead of requiring it to be 1",
    )
    solve.add_argument(
        "--constants",
        default="exact",
        choices=CONSTANTS,
        help="the bound's constant: exact supremum, or the paper's table (chi2, alpha = 2)",
    )
    solve.add_argument(
        "--method", default="exact", help=f"comma-separated, of {', '.join(METHODS)}"
    )
    solve.add_argument("--solver", help="CVXPY solver of --method cvx (CLARABEL, ECOS, SCS)")
    solve.add_argument(
        "--column", help="column of a multi-column risks file: a header name or an index from 0"
    )
    solve.add_argument(
        "--top", type=_non_negative, default=5, help="posterior weights to show (0 for none)"
    )
    solve.add_argument("--json", action="store_true", help="print strict JSON instead of tables")
    solve.add_argument(
        "--compare", action="store_true", help="every applicable method against the exact optimum"
    )
    solve.add_argument(
        "--nlp-seconds",
        type=float,
        default=None,
        help="a time budget of the NLP method in --compare (none by default: its iteration "
        "budget bounds it, so the table does not depend on the machine's load)",
    )
    solve.set_defaults(run=_command("cmd_solve"))


def _add_demo(sub) -> None:
    demo = sub.add_parser(
        "demo",
        formatter_class=FORMATTER,
        help="the main job on WDBC, shipped with scikit-learn (it prints how long it took)",
        description="Train RBF SVMs over a grid of regularization parameters on WDBC, "
        "measure their risks on a validation part, and minimize every bound.",
    )
    demo.add_argument("--delta", type=float, default=0.05, help="confidence: holds w.p. 1 - delta")
    demo.add_argument("--seed", type=int, default=0, help="random seed of the data split")
    demo.add_argument("--json", action="store_true", help="print strict JSON instead of a table")
    demo.set_defaults(run=_command("cmd_demo"))


def _experiment_parser(which, name: str, help: str):
    epilog = f"Run time on a quiet 2-core machine: {RUN_TIMES[name]}."
    return which.add_parser(
        name, formatter_class=FORMATTER, help=help, description=help + ".", epilog=epilog
    )


def _add_common(parser, out_help: str) -> None:
    parser.add_argument("--out", help=out_help)
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--no-plots", action="store_true", help="write no PNG files")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="take the work an earlier, interrupted run finished under --out",
    )
    parser.add_argument("--json", action="store_true", help="print strict JSON instead of tables")


def _add_datasets(parser, extra: str = "") -> None:
    parser.add_argument(
        "--dataset",
        action="append",
        required=True,
        help=f"repeat or comma-separate; one of {', '.join(DATASET_NAMES)}{extra}, "
        "or 'paper' for the paper's own",
    )


def _add_stochastic_svm(which) -> None:
    svm = _experiment_parser(
        which,
        "stochastic-svm",
        "Sahu & Hemachandra: stochastic SVMs on real data against 5-fold CV",
    )
    _add_datasets(svm)
    svm.add_argument("--delta", type=float, default=0.05, help="confidence: holds w.p. 1 - delta")
    svm.add_argument("--constants", default="exact", choices=CONSTANTS, help="the bound's constant")
    svm.add_argument("--method", default="exact", choices=tuple(METHODS), help="how to minimize")
    grid = svm.add_mutually_exclusive_group()
    grid.add_argument(
        "--lambdas", help="file of lambdas (default: Sahu & Hemachandra's 158-value grid)"
    )
    grid.add_argument(
        "--H",
        type=int,
        dest="grid_size",
        metavar="H",
        help="the first H lambdas of the paper's Appendix D grid 0.1, 0.11, ... (Table 3: 1990)",
    )
    svm.add_argument(
        "--cost",
        default="1/(lam n)",
        choices=("1/(lam n)", "1/lam"),
        help="how lambda becomes libsvm's C for n training examples (the paper does not say)",
    )
    svm.add_argument("--folds", type=int, default=5, help="CV folds; 0 skips the CV baseline")
    svm.add_argument("--n-jobs", type=int, help="joblib workers for the SVMs and the CV")
    _add_common(svm, "directory for CSV, JSON and PNG files")
    svm.set_defaults(run=_command("cmd_stochastic_svm"))


def _add_stochastic_svm_appendix(which) -> None:
    app = _experiment_parser(
        which,
        "stochastic-svm-appendix",
        "Sahu & Hemachandra's Appendix D (Tables 6-9, Figures 4-5) on the SVMs of a "
        "stochastic-svm run made with --H",
    )
    app.add_argument(
        "--results", required=True, help="the --out directory of a 'stochastic-svm --H' run"
    )
    app.add_argument("--starts", type=int, default=200, help="random CCP starts (Table 8)")
    app.add_argument("--out", help="directory for the CSV files (default: --results)")
    app.set_defaults(run=_command("cmd_stochastic_svm_appendix"))


def _add_minimax(which) -> None:
    mm = _experiment_parser(
        which,
        "minimax",
        "Farnia & Tse (2016): minimax classifiers against SVM and logistic regression",
    )
    _add_datasets(mm, ", synthetic")
    mm.add_argument("--runs", type=int, default=20, help="random 70:30 splits per dataset")
    mm.add_argument(
        "--methods",
        default="mmSVM,mmBC,mmRBC,SVM,LogReg",
        help="comma-separated, of mmSVM, mmBC, mmRBC, SVM, LogReg, Majority, MPM (the "
        "minimax probability machine)",
    )
    _add_common(mm, "directory for the CSV, JSON and PNG files")
    mm.set_defaults(run=_command("cmd_minimax"))


def _add_prior_svm(which) -> None:
    ps = _experiment_parser(
        which,
        "prior-svm",
        "Parrado-Hernández et al. (2012): SVMs and prior SVMs selected by PAC-Bayes bounds",
    )
    _add_datasets(ps)
    ps.add_argument("--runs", type=int, default=5, help="random 80:20 splits (the paper: 50)")
    ps.add_argument("--fractions", default="1.0", help="training-set fractions, e.g. 0.2,0.6,1")
    ps.add_argument(
        "--methods",
        default="SVM+PB,SVM+PriorPB,SVM+tauPB,SVM+EPB,SVM+tauEPB,SVM+10FCV,PriorSVM,"
        "EtaPriorSVM,EtaPriorSVM+PriorPB",
        help="comma-separated; also PriorSVM-2C, EtaPriorSVM-2C and EtaPriorSVM+PriorPB-2C "
        "(prior C searched too)",
    )
    ps.add_argument("--c-grid", help="values of C (default the paper's 0.01,...,10000)")
    ps.add_argument("--sigma-factors", help="sigma / sqrt(d) (default 0.25,0.5,1,2,4)")
    ps.add_argument("--n-jobs", type=int, help="joblib workers over the repetitions")
    _add_common(ps, "directory for the CSV and PNG files")
    ps.set_defaults(run=_command("cmd_prior_svm"))


def _add_slt_gp(which) -> None:
    sg = _experiment_parser(
        which, "slt-gp", "Kamesawa et al.: GPC, SLT-GP and GPC on X* (their Table 3)"
    )
    sg.add_argument(
        "--setting",
        action="append",
        required=True,
        help=f"repeat or comma-separate; one of {', '.join(PRIVILEGED)}",
    )
    sg.add_argument("--repeats", type=int, default=5, help="draws per setting (the paper: 100)")
    sg.add_argument("--r-values", default="0", help="noise rates r for noisy_latent_gp")
    sg.add_argument("--sizes", default="200", help="training-set sizes, e.g. 20,50,100,200")
    sg.add_argument(
        "--methods",
        default="GPC,SLT-GP,GPC (reference),GPC+",
        help="comma-separated, of GPC, SLT-GP, GPC (reference), GPC+",
    )
    sg.add_argument("--n-jobs", type=int, help="joblib workers over the repeats")
    _add_common(sg, "directory for the CSV and PNG files")
    sg.set_defaults(run=_command("cmd_slt_gp"))


def _add_majority_vote(which) -> None:
    from cvxpb.app.datasets import KEEL

    mv = _experiment_parser(
        which,
        "majority-vote",
        "Majority-vote bounds for random forests on KEEL data (first order, tandem, the "
        "Chebyshev-Cantelli bounds CCTND, split-kl, unexpected Bernstein and CCPBB, the "
        "C-tandem bound CTD, PAC-Bayes-lambda, C-bound, DIS), each minimized over the trees' "
        "weights; out of bag, beside Wu et al.'s (2021) published values, and the bounds at "
        "the uniform posterior beside Masegosa et al.'s (2020), where they report the dataset",
    )
    mv.add_argument(
        "--dataset",
        action="append",
        required=True,
        help=f"repeat or comma-separate; of {', '.join(KEEL)}, or 'table' for the ten of "
        "the committed run",
    )
    mv.add_argument("--runs", type=int, default=1, help="random 80:20 splits per dataset")
    mv.add_argument("--modes", default="split,oob", help="split (50:50), oob, or both")
    mv.add_argument("--trees", type=int, default=100, help="trees per forest")
    mv.add_argument(
        "--bounds",
        default="all",
        help=f"comma-separated names of MajorityVoteClassifier's bounds ({', '.join(REGISTRY)}), "
        "'all', or 'table' for the six of the committed run",
    )
    _add_common(mv, "directory for the CSV, JSON and PNG files")
    mv.set_defaults(run=_command("cmd_majority_vote"))


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: ``solve``, ``demo`` and ``experiment`` with its subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The parser; each subcommand sets ``run``, its handler in :mod:`cvxpb.app.commands`.
    """
    parser = argparse.ArgumentParser(
        prog="cvxpb",
        description="PAC-Bayes bound minimization as convex programs. "
        "Start with 'cvxpb demo'; 'cvxpb COMMAND --help' tells more.",
    )
    parser.add_argument("--version", action="version", version=f"cvxpb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_solve(sub)
    _add_demo(sub)
    experiment = sub.add_parser(
        "experiment",
        help="the papers' experiments, written to files",
        description="The papers' experiments: tables, JSON and plots written under --out.",
    )
    which = experiment.add_subparsers(dest="experiment", required=True)
    experiments = (_add_stochastic_svm, _add_stochastic_svm_appendix, _add_minimax)
    for add in (*experiments, _add_prior_svm, _add_slt_gp, _add_majority_vote):
        add(which)
    return parser


_KEYWORDS = "m|delta|distance|divergence|alpha|prior|constants|method|solver|column|top"


def as_flags(message: str) -> str:
    """Put a Python-keyword error in the command line's words: ``alpha=3`` -> ``--alpha 3``.

    Parameters
    ----------
    message : str
        An error message of the library.

    Returns
    -------
    str
        The message with ``name=value`` written as ``--name value``.
    """
    message = re.sub(rf'\b({_KEYWORDS})="([^"]*)"', r"--\1 \2", message)
    message = re.sub(rf"\b({_KEYWORDS})='([^']*)'", r"--\1 \2", message)
    message = re.sub(rf"\b({_KEYWORDS})=([^\s,;)]+)", r"--\1 \2", message)
    return re.sub(rf"^({_KEYWORDS}) ", r"--\1 ", message)


def main(argv=None) -> int:
    """Run the command line ``cvxpb``.

    Bad input ends with one line naming it (exit 2); an interrupt says where the finished
    work is kept (exit 130); a lost cluster says how much finished (exit 1).

    Parameters
    ----------
    argv : list of str, optional
        The arguments; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status.
    """
    args = build_parser().parse_args(argv)
    from cvxpb.threads import one_blas_thread, one_blas_thread_for_children

    one_blas_thread_for_children()
    try:
        with one_blas_thread():
            return args.run(args)
    except (ValueError, OSError, ImportError) as err:
        print(f"cvxpb: error: {as_flags(_named(err, args))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        kept = getattr(args, "out", None)
        where = f"; finished work is kept under {kept.rstrip('/')}/" if kept else ""
        print(f"\ncvxpb: interrupted{where}", file=sys.stderr)
        if kept and hasattr(args, "resume"):
            print("cvxpb: run the same command with --resume to go on from there", file=sys.stderr)
        return 130
    except RuntimeError as err:  # ClusterLostError is one; parallel loads joblib, so late
        from cvxpb.parallel import ClusterLostError

        if not isinstance(err, ClusterLostError):
            raise
        print(f"cvxpb: error: {err}", file=sys.stderr)
        return 1


def _named(err, args) -> str:
    """The error's text; for a file that cannot be read, which argument named it."""
    filename = getattr(err, "filename", None)
    if not isinstance(err, OSError) or filename is None:
        return str(err)
    names = [name for name, value in vars(args).items() if value == filename]
    text = f"cannot read {filename!r}: {err.strerror or err}"
    if not names:
        return text
    flag = names[0].upper() if names[0] == "risks" else "--" + names[0].replace("_", "-")
    return f"{text} (the file given as {flag})"


if __name__ == "__main__":
    sys.exit(main())
