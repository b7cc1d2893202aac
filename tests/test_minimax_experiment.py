"""Farnia & Tse (2016), the experiment: lambda selection, table, synthetic data, command."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from cvxpb.app.cli import main
from cvxpb.app.experiments import minimax as experiment
from cvxpb.app.experiments import warning_report

LAMBDAS = np.array([2.0**-6, 2.0**-2, 2.0**2])


def test_lambda_is_chosen_on_the_validation_split():
    data = experiment.synthetic(n=120, d=30, random_state=3)
    X, y = data.X[:80], data.y[:80]
    lam, error = experiment.select_and_test(
        "mmBC", X, y, data.X[80:], data.y[80:], LAMBDAS, np.random.default_rng(5)
    )
    # the same draws, by hand
    seed = int(np.random.default_rng(5).integers(2**31))
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.3, random_state=seed)
    errors = [
        np.mean(experiment.make("mmBC", l, y_fit.size).fit(X_fit, y_fit).predict(X_val) != y_val)
        for l in LAMBDAS
    ]
    assert lam == LAMBDAS[int(np.argmin(errors))]
    refit = experiment.make("mmBC", lam, 80).fit(X, y)
    assert error == np.mean(refit.predict(data.X[80:]) != data.y[80:])


def test_baselines_carry_the_same_penalty():
    """C = 1/(2 lam n): (1/n) sum loss + lam ||w||^2 is C sum loss + ||w||^2/2, scaled."""
    svm = experiment.make("SVM", 0.25, 40)
    assert svm.C == pytest.approx(1 / 20)
    mm = experiment.make("mmSVM", 0.25, 40)
    assert (mm.loss, mm.eps, mm.squared, mm.solver) == ("zero_one", 0.25, True, "auto")
    with pytest.raises(ValueError, match="method must be one of"):
        experiment.make("tree", 0.1, 10)


def test_synthetic_data_follows_the_seed():
    data = experiment.synthetic(n=200, d=2000, random_state=0)
    assert data.X.shape == (200, 2000) and set(np.unique(data.X)) == {0.0, 1.0}
    assert data.X.mean() == pytest.approx(0.75, abs=0.01)
    assert set(np.unique(data.y)) == {-1, 1}


def test_runs_and_summary(tmp_path):
    rows = experiment.run_experiment(["hepatitis"], runs=2, lambdas=LAMBDAS, progress=False)
    assert len(rows) == 2 * len(experiment.DEFAULT_METHODS)
    assert rows["test error"].between(0, 1).all()
    table = experiment.summary(rows)
    svm = rows[rows["method"] == "SVM"]["test error"]
    row = table[table["method"] == "SVM"].iloc[0]
    assert row["error %"] == pytest.approx(100 * svm.mean())
    assert row["se %"] == pytest.approx(100 * svm.std(ddof=1) / np.sqrt(2))
    paths = experiment.write(rows, tmp_path)
    assert pd.read_csv(paths[1]).shape[0] == len(experiment.DEFAULT_METHODS)
    assert len(json.loads(paths[2].read_text())["runs"]) == len(rows)
    with pytest.raises(ValueError, match="runs must be a positive integer"):
        experiment.run_experiment(["hepatitis"], runs=0)


def test_command_line(capsys):
    argv = ["experiment", "minimax", "--dataset", "hepatitis", "--runs", "1"]
    assert main([*argv, "--methods", "mmSVM,SVM", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["method"] for r in rows} == {"mmSVM", "SVM"}
    assert main(["experiment", "minimax", "--dataset", "nope"]) == 2
    assert "--dataset must be among" in capsys.readouterr().err


def test_majority_reference_predicts_the_majority_class():
    X = np.zeros((10, 2))
    y = np.array([1] * 7 + [-1] * 3)
    assert experiment.make("Majority", 1.0, 10).fit(X, y).predict(X).tolist() == [1] * 10


def test_solver_warnings_are_counted_per_method_not_printed(monkeypatch, capsys):
    import warnings as w

    real = experiment.select_and_test

    def noisy(method, *args):
        if method == "mmSVM":
            w.warn("Solution may be inaccurate.", UserWarning, stacklevel=1)
            w.warn("Solution may be inaccurate.", UserWarning, stacklevel=1)
        return real(method, *args)

    monkeypatch.setattr(experiment, "select_and_test", noisy)
    rows = experiment.run_experiment(
        ["haberman"], runs=2, methods=("mmSVM", "Majority"), lambdas=[1.0], progress=False
    )
    assert capsys.readouterr().err == ""
    assert rows.groupby("method")["warnings"].sum().to_dict() == {"Majority": 0, "mmSVM": 4}
    report = warning_report(rows)
    assert "mmSVM: 4 in 2 runs, e.g. UserWarning: Solution may be inaccurate." in report
    assert "Majority" not in report
    assert experiment.summary(rows).set_index("method").loc["mmSVM", "warnings"] == 4
