"""The majority-vote experiment: KEEL data, one run by hand, the table, the command
line with --json and --resume."""

import json

import numpy as np
import pandas as pd
import pytest

from cvxpb.app import datasets
from cvxpb.app.cli import main
from cvxpb.app.experiments import majority_vote as experiment

# sizes as KEEL lists them (mushroom: the 5644 rows without missing values)
SIZES = {"spambase": (4597, 57), "mushroom": (5644, 22), "splice": (3190, 60), "chess": (3196, 36)}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_keel_sets_load_with_their_original_features(name):
    data = datasets.keel(name)
    assert data.X.shape == SIZES[name]
    assert np.all(np.isfinite(data.X))
    classes = np.unique(data.y)
    assert classes.tolist() == ([0, 1, 2] if name == "splice" else [-1, 1])
    with pytest.raises(ValueError, match="unknown KEEL dataset"):
        datasets.keel("adult")


def test_one_run_rows_are_what_they_say():
    """The vote's test risk with each bound's posterior, recomputed from the votes."""
    data = datasets.keel("housevotes")
    rows, posteriors = experiment.one_run(data, "split", 15, experiment.BOUNDS, seed=3)
    names = [r["bound"] for r in rows]
    assert names == ["uniform", "first_order", "tnd", "lambda", "c_bound", "pac_bound_2", "dis"]
    for row in rows[1:]:
        assert row["value"] >= row["test risk"] - 0.2  # a bound, up to test noise
        assert row["status"] in ("optimal", "local")
        assert set(posteriors) == set(names[1:])
    assert rows[1]["status"] == "optimal"  # first order: certified
    assert rows[4]["status"] == "optimal"  # C-bound: three terms, certified on one sample
    assert rows[5]["status"] == "optimal"  # PAC-Bound 2: likewise


def test_command_line_json_and_resume(tmp_path, capsys, monkeypatch):
    args = ["experiment", "majority-vote", "--dataset", "housevotes", "--trees", "8"]
    args += ["--runs", "2", "--modes", "oob", "--no-plots", "--bounds", "table"]
    assert main([*args, "--json", "--out", str(tmp_path)]) == 0
    table = json.loads(capsys.readouterr().out)
    assert {r["bound"] for r in table} == {"uniform", *experiment.BOUNDS}
    assert all(r["runs"] == 2 for r in table)
    rows = pd.read_csv(tmp_path / "majority_vote_runs.csv")
    summary = pd.read_csv(tmp_path / "majority_vote.csv")
    mean = rows.groupby(["dataset", "mode", "bound"])["value"].mean()
    assert np.allclose(
        summary.set_index(["dataset", "mode", "bound"])["bound value"],
        mean.reindex(summary.set_index(["dataset", "mode", "bound"]).index),
        equal_nan=True,
    )
    monkeypatch.setattr(experiment, "one_run", lambda *a: pytest.fail("resume ran a job again"))
    assert main([*args, "--resume", "--out", str(tmp_path)]) == 0  # nothing left to run
    again = pd.read_csv(tmp_path / "majority_vote_runs.csv")
    pd.testing.assert_frame_equal(rows, again)
    assert main(["experiment", "majority-vote", "--dataset", "iris"]) == 2
    assert "--dataset must be among" in capsys.readouterr().err


def test_bounds_on_the_command_line():
    assert experiment.bound_names("table") == experiment.BOUNDS
    assert "split_kl" in experiment.bound_names("all")
    assert experiment.bound_names(" dis, tnd ") == ("tnd", "dis")  # the classifier's order
    for bad in ("tnd,no_such_bound", ",", "TND"):
        with pytest.raises(ValueError, match="--bounds must name some of"):
            experiment.bound_names(bad)


def test_command_line_new_bounds(tmp_path, capsys):
    args = ["experiment", "majority-vote", "--dataset", "housevotes", "--trees", "6"]
    args += ["--modes", "split", "--no-plots", "--bounds", "split_kl,unexpected_bernstein"]
    assert main([*args, "--json", "--out", str(tmp_path)]) == 0
    table = json.loads(capsys.readouterr().out)
    assert {r["bound"] for r in table} == {"uniform", "split_kl", "unexpected_bernstein"}
    ub = next(r for r in table if r["bound"] == "unexpected_bernstein")
    assert ub["statuses"] == "optimal"  # a grid of certified convex programs on one sample
