"""Parrado-Hernández et al. (2012), the experiment: model selection by bounds, summary, command."""

import json

import numpy as np
import pandas as pd
import pytest

from cvxpb.app.cli import main
from cvxpb.app.experiments import prior_svm as experiment

SMALL = {"c_grid": (0.1, 10.0), "sigma_factors": (0.5, 2.0)}


@pytest.fixture(scope="module")
def grid():
    return experiment.run_experiment(
        ["haberman"], runs=2, fractions=(0.5, 1.0), progress=False, **SMALL
    )


def test_grid_has_every_method_at_every_point(grid):
    assert len(grid) == 2 * 2 * 4 * len(experiment.DEFAULT_METHODS)  # runs x fractions x grid
    bounded = grid[grid["method"] != experiment.CV_METHOD]
    assert bounded["bound"].between(0, 1).all() and grid["test error"].between(0, 1).all()
    cv = grid[grid["method"] == experiment.CV_METHOD]
    assert cv["bound"].isna().all() and cv["cv error"].between(0, 1).all()
    full, half = grid[grid["fraction"] == 1.0], grid[grid["fraction"] == 0.5]
    assert full["m"].iloc[0] == 244 and half["m"].iloc[0] == 122  # 80% of 306, then half


def test_selection_takes_the_least_bound(grid):
    best = experiment.selected(grid)
    for _, row in best.iterrows():
        same = grid[
            (grid["run"] == row["run"])
            & (grid["method"] == row["method"])
            & (grid["fraction"] == row["fraction"])
        ]
        if row["method"] == experiment.CV_METHOD:
            assert row["cv error"] == same["cv error"].min()
        else:
            assert row["bound"] == same["bound"].min()
    table = experiment.summary(grid)
    one = table[(table["method"] == "PriorSVM") & (table["fraction"] == 1.0)].iloc[0]
    chosen = best[(best["method"] == "PriorSVM") & (best["fraction"] == 1.0)]
    assert one["bound"] == pytest.approx(chosen["bound"].mean())
    assert one["test_error_sd"] == pytest.approx(chosen["test error"].std())


def test_files(grid, tmp_path):
    paths = experiment.write(grid, tmp_path)
    assert {p.name for p in paths} == {
        "prior_svm_grid.csv",
        "prior_svm.csv",
        "prior_svm_fractions.png",
        "prior_svm_C.png",
    }
    assert len(pd.read_csv(tmp_path / "prior_svm_grid.csv")) == len(grid)


def test_command_line_and_bad_input(capsys):
    argv = ["experiment", "prior-svm", "--dataset", "haberman", "--runs", "1"]
    options = ["--methods", "SVM+PB,PriorSVM", "--c-grid", "1", "--sigma-factors", "1"]
    assert main([*argv, *options, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["method"] for r in rows} == {"SVM+PB", "PriorSVM"}
    with pytest.raises(ValueError, match="fractions must lie in"):
        experiment.run_experiment(["haberman"], fractions=(1.5,))
    with pytest.raises(ValueError, match="methods must be among"):
        experiment.run_experiment(["haberman"], methods=("SVM+XX",))
    assert np.isclose(experiment.DELTA, 0.01)


def test_two_c_variant_never_loses_to_the_single_c():
    """It searches the prior's C over the grid, which includes C itself."""
    from cvxpb.app import datasets

    rows = pd.DataFrame(
        experiment.repetition(
            datasets.load("haberman"), 0, 0.5, ("PriorSVM", "PriorSVM-2C"), 0, (0.1, 10.0), (1.0,)
        )
    )
    single = rows[rows["method"] == "PriorSVM"].set_index("C")["bound"]
    double = rows[rows["method"] == "PriorSVM-2C"].set_index("C")["bound"]
    assert np.all(double <= single + 1e-12)
    assert set(rows["C prior"].dropna()) <= {0.1, 10.0}


def test_cross_validated_svm_is_scikit_learns_grid_search(grid):
    """SVM+10FCV selects what GridSearchCV selects on the same split, grid and folds."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from cvxpb.app import datasets

    data = datasets.load("haberman")
    best = experiment.selected(grid)
    for run in (0, 1):
        X, y, X_test, y_test, seed = experiment._split(data, run, 1.0, 0)
        gammas = [1 / (2 * (f * np.sqrt(X.shape[1])) ** 2) for f in SMALL["sigma_factors"]]
        folds = StratifiedKFold(10, shuffle=True, random_state=seed)  # the paper's 10 folds
        search = GridSearchCV(SVC(), {"C": SMALL["c_grid"], "gamma": gammas}, cv=folds)
        search.fit(X, y)
        ours = best[
            (best["method"] == experiment.CV_METHOD)
            & (best["run"] == run)
            & (best["fraction"] == 1.0)
        ].iloc[0]
        assert ours["cv error"] == pytest.approx(1 - search.best_score_, abs=1e-12)
        refit_error = np.mean(search.predict(X_test) != y_test)
        ties = np.isclose(search.cv_results_["mean_test_score"], search.best_score_).sum()
        if ties == 1:  # with ties the two searches may take different (equal) points
            assert ours["test error"] == pytest.approx(refit_error)


def test_eta_prior_svm_mixture_row_is_the_same_fit():
    """EtaPriorSVM+PriorPB reads the mixture bound off the eta-prior SVM's fit: the same
    classifier (same test error) with the bound of 50 scalings in [1, 100]."""
    from cvxpb.app import datasets
    from cvxpb.svm.prior_svm import EtaPriorSVM

    data = datasets.load("haberman")
    X, y, X_test, y_test, seed = experiment._split(data, 0, 0.5, 0)
    methods = ("EtaPriorSVM", "EtaPriorSVM+PriorPB", "EtaPriorSVM+PriorPB-2C")
    rows = pd.DataFrame(experiment.grid_point(X, y, X_test, y_test, 1.0, 0.2, seed, methods))
    rows = rows.set_index("method")
    clf = EtaPriorSVM(C=1.0, gamma=0.2, delta=experiment.DELTA, random_state=seed).fit(X, y)
    assert rows.loc["EtaPriorSVM", "bound"] == pytest.approx(clf.bound_)
    assert rows.loc["EtaPriorSVM+PriorPB", "bound"] == pytest.approx(clf.mixture_bound_)
    assert rows.loc["EtaPriorSVM+PriorPB", "bound"] != rows.loc["EtaPriorSVM", "bound"]
    same = rows.loc[["EtaPriorSVM", "EtaPriorSVM+PriorPB"], "test error"]
    assert same.nunique() == 1
    assert rows.loc["EtaPriorSVM+PriorPB-2C", "bound"] <= clf.mixture_bound_ + 1e-12


def test_figure_4_marks_the_cross_validated_C(grid):
    """The vertical line sits at the C of least CV error averaged over runs."""
    part = grid[(grid["fraction"] == 1.0) & (grid["sigma factor"] == 0.5)]
    cv = part[part["method"] == experiment.CV_METHOD]
    means = {C: cv[cv["C"] == C]["cv error"].mean() for C in SMALL["c_grid"]}
    assert experiment._cv_C(part) == min(means, key=means.get)
