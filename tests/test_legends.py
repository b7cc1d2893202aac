"""Every column an experiment prints is explained under its table."""

import re

import numpy as np
import pandas as pd

from cvxpb.app.cli import main
from cvxpb.app.experiments import majority_vote
from cvxpb.app.legend import COLUMNS, METHODS, legend


def _explained(text, names):
    missing = [name for name in names if not re.search(rf"^  {re.escape(name)}: ", text, re.M)]
    assert not missing, missing


def test_stochastic_svm_explains_its_columns(tmp_path, capsys):
    grid = tmp_path / "grid.txt"
    grid.write_text("\n".join(map(str, [0.05, 0.1, 0.5, 1.0])))
    argv = ["experiment", "stochastic-svm", "--dataset", "haberman", "--lambdas", str(grid)]
    assert main([*argv, "--out", str(tmp_path), "--no-plots"]) == 0
    text = capsys.readouterr().out
    printed = pd.read_csv(tmp_path / "stochastic_svm.csv").columns.drop(["message", "method"])
    _explained(text, [c for c in printed if c != "delta"])
    _explained(text, ["N(0.8)", "HHI", "vote error", "delta test error", "relative"])


def test_majority_vote_explains_columns_bounds_statuses_and_trivial_values(tmp_path, capsys):
    argv = ["experiment", "majority-vote", "--dataset", "housevotes", "--trees", "8"]
    assert main([*argv, "--modes", "oob,split", "--no-plots", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    summary = pd.read_csv(tmp_path / "majority_vote.csv")
    _explained(text, summary["bound"].unique())
    assert "what each minimum proves" in text and "NaN" not in text
    statuses = majority_vote.wide(
        majority_vote.summary(pd.read_csv(tmp_path / "majority_vote_runs.csv")), "statuses"
    )
    assert "uniform" not in statuses.columns
    trivial = summary[(summary["bound"] != "uniform") & (summary["bound value"] >= 1)]
    for row in trivial.itertuples():
        assert f"{row.bound} on {row.dataset} ({row.mode})" in text


def test_statuses_of_several_runs_are_counted():
    assert majority_vote.counted(["optimal", "optimal"]) == "optimal"
    assert majority_vote.counted(["optimal", "local", "local", ""]) == "local 2, optimal 1"


def test_the_other_experiments_columns_have_meanings():
    slt_gp = ["setting", "r", "n", "method", "accuracy", "accuracy_sd", "seconds", "rho",
              "rho_test", "eq_29", "test_risk", "repeats", "warnings"]  # fmt: skip
    minimax = ["dataset", "method", "error %", "se %", "runs", "warnings"]
    prior_svm = ["dataset", "fraction", "method", "bound", "bound_sd", "test_error",
                 "test_error_sd", "runs"]  # fmt: skip
    assert set(slt_gp + minimax + prior_svm) <= set(COLUMNS)
    assert {"GPC", "SLT-GP", "GPC (reference)", "GPC+"} <= set(METHODS)
    text = legend(slt_gp, ["GPC+"])
    assert "eq_29: " in text and "can exceed 1" in text and "names:\n  GPC+: " in text
    assert np.all([name in METHODS for name in majority_vote.ALL_BOUNDS])


def test_every_table_has_its_figure(tmp_path):
    """The minimax run and a single-size SLT-GP run wrote no figure; the posteriors' figure
    drew eleven bounds with ten colours (first order and DIS alike)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cvxpb.app.experiments import minimax, slt_gp

    runs = pd.DataFrame(
        {"dataset": ["a", "a", "b", "b"] * 2, "method": ["mmSVM", "SVM"] * 4,
         "test error": np.linspace(0.1, 0.3, 8), "run": [0, 0, 0, 0, 1, 1, 1, 1]}
    )  # fmt: skip
    paths = minimax.write(runs, tmp_path / "minimax")
    assert (tmp_path / "minimax" / "minimax.png") in paths
    rows = pd.DataFrame(
        {"setting": "latent_gp", "r": 0.0, "n": 200, "method": ["GPC", "SLT-GP"] * 2,
         "repeat": [0, 0, 1, 1], "accuracy": [80.0, 85.0, 82.0, 86.0], "seconds": 1.0}
    )  # fmt: skip
    paths = slt_gp.write(rows, tmp_path / "slt")
    assert (tmp_path / "slt" / "slt_gp.png").read_bytes()[:4] == b"\x89PNG"
    colors = {majority_vote._color(plt, b) for b in majority_vote.ALL_BOUNDS}
    assert len(colors) == len(majority_vote.ALL_BOUNDS)
