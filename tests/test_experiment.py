"""Sahu & Hemachandra's experiment: the CV baseline, the runner's rows, files and command."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from cvxpb import BoundProblem, datasets
from cvxpb.app.cli import main
from cvxpb.app.experiments import stochastic_svm as experiment
from cvxpb.svm import StochasticSVM
from cvxpb.svm.cv import LambdaSVC, cross_validate

LAMBDAS = [1e-4, 1e-3, 1e-2, 0.1, 0.5, 2.0]


def test_cv_picks_the_lambda_of_least_mean_fold_error():
    data = datasets.load("haberman")
    X = (data.X - data.X.mean(0)) / data.X.std(0)
    search = cross_validate(X, data.y, LAMBDAS, folds=5, gamma=0.3, random_state=1)
    # the same folds, with plain SVCs: C = 1 / (lam * training fold size)
    errors = np.zeros(len(LAMBDAS))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=1).split(X, data.y):
        for k, lam in enumerate(LAMBDAS):
            svc = SVC(C=1 / (lam * train.size), gamma=0.3).fit(X[train], data.y[train])
            errors[k] += np.mean(svc.predict(X[test]) != data.y[test]) / 5
    assert search.best_params_["lam"] == LAMBDAS[int(np.argmin(errors))]
    assert np.allclose(1 - search.cv_results_["mean_test_score"], errors)
    assert search.best_estimator_.svc_.C == pytest.approx(1 / (search.best_params_["lam"] * 306))
    assert search.seconds_ > 0


def test_lambda_svc_scales_c_with_the_sample():
    X, y = np.random.default_rng(0).normal(size=(40, 2)), np.arange(40) % 2
    assert LambdaSVC(lam=0.5).fit(X, y).svc_.C == pytest.approx(1 / 20)
    assert LambdaSVC(lam=0.5, cost="1/lam").fit(X, y).svc_.C == 2.0
    with pytest.raises(ValueError, match="cost must be one of"):
        LambdaSVC(lam=0.5, cost="lam").fit(X, y)
    search = cross_validate(X, y, [0.5], folds=2, cost="1/lam", random_state=0)
    assert search.best_estimator_.svc_.C == 2.0
    with pytest.raises(ValueError, match="folds must be an integer >= 2"):
        cross_validate(X, y, [0.1], folds=1)
    with pytest.raises(ValueError, match="lambdas must be finite and positive"):
        cross_validate(X, y, [0.1, 0.0])


@pytest.fixture(scope="module")
def run():
    return experiment.run_dataset("haberman", lambdas=LAMBDAS, random_state=0)


def test_split_is_0_4_0_4_0_2(run):
    assert run.n == 306 and run.t == np.ceil(0.2 * 306) and run.m == (306 - run.t) // 2 == 122
    assert run.risks.shape == run.test_errors.shape == (len(LAMBDAS),)


def test_rows_are_the_bound_problems_optima(run):
    assert [(r["distance"], r["divergence"]) for r in run.rows] == list(experiment.PAIRS)
    for row in run.rows:
        q = run.posteriors[f"{row['distance']}-{row['divergence']}"]
        assert np.isclose(q.sum(), 1) and np.all(q >= 0)
        prob = BoundProblem(run.risks, run.m, 0.05, row["distance"], row["divergence"])
        assert row["bound"] == prob.solve().bound == prob.value_at(q)
        assert row["E_Q[val risk]"] <= row["bound"]
        assert row["test error"] == pytest.approx(q @ run.test_errors)
        assert 1 <= row["N(0.8)"] <= row["N(0.9)"] <= row["N(0.95)"] <= row["support"]
        assert 1 / np.sqrt(len(LAMBDAS)) - 1e-12 <= row["HHI"] <= 1
    for key, table in run.subsets.items():  # Figure 1 ends at the optimum
        row = next(r for r in run.rows if f"{r['distance']}-{r['divergence']}" == key)
        assert table["bound"].iloc[-1] == pytest.approx(row["bound"], abs=1e-9)


def test_test_error_is_the_stochastic_svms_gibbs_error(run):
    """The same split and seed through StochasticSVM, an independent path to T."""
    data = datasets.load("haberman")
    X, y, X_test, y_test = experiment.split(data, 0)
    clf = StochasticSVM(lambdas=LAMBDAS, random_state=0).fit(X, y)
    assert np.array_equal(clf.risks_, run.risks)
    row = next(r for r in run.rows if (r["distance"], r["divergence"]) == ("sq", "chi2"))
    assert clf.gibbs_error(X_test, y_test) == pytest.approx(row["test error"])
    assert np.mean(clf.predict(X_test) != y_test) == pytest.approx(row["vote error"])


def test_cv_row_compares_with_sq_chi2(run):
    row = next(r for r in run.rows if (r["distance"], r["divergence"]) == ("sq", "chi2"))
    assert run.cv["PAC-B test error"] == row["test error"]
    assert run.cv["PAC-B bound"] == row["bound"]
    assert run.cv["lambda*"] in LAMBDAS
    assert run.cv["delta test error"] == pytest.approx(
        run.cv["CV test error"] - run.cv["PAC-B test error"]
    )


def test_paper_constants_loosen_the_squared_chi2_and_the_kl_bounds():
    """The papers' constants: the tabulated ``I_sq`` (looser than its exact value) and,
    for the KL bounds, ``2 sqrt(m)`` where the exact route computes Maurer's ``xi(m)``;
    the linear chi-squared bound has no such constant to change."""
    paper = experiment.run_dataset("haberman", constants="paper", lambdas=LAMBDAS, folds=None)
    exact = experiment.run_dataset("haberman", lambdas=LAMBDAS, folds=None, subsets=False)
    bounds = {
        (r["distance"], r["divergence"], k): r["bound"]
        for k, result in (("paper", paper), ("exact", exact))
        for r in result.rows
    }
    assert bounds["linear", "chi2", "paper"] == bounds["linear", "chi2", "exact"]
    assert bounds["sq", "chi2", "paper"] > bounds["sq", "chi2", "exact"]
    assert bounds["kl", "kl", "paper"] > bounds["kl", "kl", "exact"]


def test_an_untabulated_paper_constant_is_an_invalid_row(run):
    small = experiment.DatasetRun("tiny", "", 60, 24, 12, 1.0, run.lambdas, run.risks, run.risks, 0)
    row, q, _ = experiment._posterior_row(small, "kl", "chi2", 0.05, "paper", "exact")
    assert q is None and row["status"] == "invalid" and "50" in row["message"]


def test_files_are_written_and_reload(run, tmp_path):
    paths = experiment.write([run], tmp_path, {"lambdas": np.array(LAMBDAS)})
    names = {p.name for p in paths}
    assert names == {
        "stochastic_svm.csv",
        "stochastic_svm_cv.csv",
        "stochastic_svm_bounds.csv",
        "stochastic_svm_spread.csv",
        "stochastic_svm.json",
        "stochastic_svm_haberman.png",
    }
    table = pd.read_csv(tmp_path / "stochastic_svm.csv")
    assert len(table) == len(experiment.PAIRS)
    assert {"dataset", "distance", "divergence", "method", "constants", "bound"} <= set(table)
    assert {"test error", "support", "HHI", "seconds"} <= set(table)
    wide = pd.read_csv(tmp_path / "stochastic_svm_bounds.csv")
    assert list(wide.columns) == ["dataset", "B linear", "B sq", "B kl", "T linear", "T sq", "T kl"]
    chi2 = table[table["divergence"] == "chi2"].set_index("distance")
    assert wide["B sq"][0] == pytest.approx(chi2["bound"]["sq"], rel=1e-5)
    assert wide["T kl"][0] == pytest.approx(chi2["test error"]["kl"], rel=1e-5)
    spread = pd.read_csv(tmp_path / "stochastic_svm_spread.csv")
    assert spread["HHI"].tolist() == pytest.approx(chi2["HHI"].tolist(), rel=1e-5)
    payload = json.loads((tmp_path / "stochastic_svm.json").read_text())
    assert payload["settings"]["lambdas"] == LAMBDAS
    assert payload["datasets"][0]["risks"] == run.risks.tolist()
    assert (tmp_path / "stochastic_svm_haberman.png").read_bytes()[:4] == b"\x89PNG"


def test_command_line(tmp_path, capsys):
    grid = tmp_path / "grid.txt"
    grid.write_text("\n".join(map(str, LAMBDAS)))
    argv = ["experiment", "stochastic-svm", "--dataset", "haberman", "--lambdas", str(grid)]
    assert main([*argv, "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert "Table 4" in text and "haberman" in text
    assert (tmp_path / "out" / "stochastic_svm.csv").exists()
    assert main([*argv, "--folds", "0", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["datasets"][0]["cv"] is None
    assert main(["experiment", "stochastic-svm", "--dataset", "nope"]) == 2
    assert "datasets must be among" in capsys.readouterr().err
    assert main(["experiment", "stochastic-svm", "--dataset", "haberman", "--H", "0"]) == 2
    assert "--H must be a positive integer" in capsys.readouterr().err
    bad_cost = ["experiment", "stochastic-svm", "--dataset", "haberman", "--cost", "C"]
    with pytest.raises(SystemExit):
        main(bad_cost)


def test_appendix_grid_and_kernlab_cost_from_the_command_line(tmp_path, capsys):
    argv = ["experiment", "stochastic-svm", "--dataset", "haberman", "--H", "12"]
    argv += ["--cost", "1/lam", "--folds", "3", "--no-plots", "--out", str(tmp_path)]
    assert main(argv) == 0
    payload = json.loads((tmp_path / "stochastic_svm.json").read_text())
    assert np.allclose(payload["datasets"][0]["lambdas"], 0.1 + 0.01 * np.arange(12))
    assert payload["settings"]["cost"] == "1/lam"
    # C = 1/lam in [8.5, 10]: not the constant classifiers C = 1/(lam m) < 0.1 would give
    assert min(payload["datasets"][0]["risks"]) < 0.26


def test_no_cv_table_without_the_baseline(tmp_path):
    run = experiment.run_dataset("haberman", lambdas=LAMBDAS, folds=None, subsets=False)
    paths = experiment.write([run], tmp_path, {}, plots=False)
    assert {p.name for p in paths} == {
        "stochastic_svm.csv",
        "stochastic_svm_bounds.csv",
        "stochastic_svm_spread.csv",
        "stochastic_svm.json",
    }
