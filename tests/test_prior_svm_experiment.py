"""Parrado-Hernández et al. (2012), the experiment: model selection by bounds, summary, command."""

import json

import numpy as np
import pandas as pd
import pytest

from cvxpb.cli import main
from cvxpb.experiments import prior_svm as experiment

SMALL = {"c_grid": (0.1, 10.0), "sigma_factors": (0.5, 2.0)}


@pytest.fixture(scope="module")
def grid():
    return experiment.run_experiment(
        ["haberman"], runs=2, fractions=(0.5, 1.0), progress=False, **SMALL
    )


def test_grid_has_every_method_at_every_point(grid):
    assert len(grid) == 2 * 2 * 4 * len(experiment.DEFAULT_METHODS)  # runs x fractions x grid
    assert grid["bound"].between(0, 1).all() and grid["test error"].between(0, 1).all()
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
    from cvxpb import datasets

    rows = pd.DataFrame(
        experiment.repetition(
            datasets.load("haberman"), 0, 0.5, ("PriorSVM", "PriorSVM-2C"), 0, (0.1, 10.0), (1.0,)
        )
    )
    single = rows[rows["method"] == "PriorSVM"].set_index("C")["bound"]
    double = rows[rows["method"] == "PriorSVM-2C"].set_index("C")["bound"]
    assert np.all(double <= single + 1e-12)
    assert set(rows["C prior"].dropna()) <= {0.1, 10.0}
