"""Seed 002's data-generating processes, the linear kernel, and the experiment runner."""

import json

import numpy as np
import pytest

from cvxpb import datasets
from cvxpb.cli import main
from cvxpb.experiments import slt_gp as experiment
from cvxpb.gp.classifier import GPClassifierEP, kernel_derivatives, kernel_matrix
from cvxpb.gp.ep import log_marginal_gradient, run_ep


def test_generators_follow_table_2():
    train, test = datasets.privileged("clean_soft_label", random_state=0)
    assert train.X.shape == (200, 50) and test.X.shape == (1000, 50)
    alpha = np.linalg.lstsq(train.X, train.X_star[:, 0], rcond=None)[0]
    assert test.X @ alpha == pytest.approx(test.X_star[:, 0])  # x* = alpha^T x, shared alpha
    train, _ = datasets.privileged("relevant_feature", random_state=1)
    assert np.array_equal(train.X_star, train.X[:, :3])
    train, _ = datasets.privileged("clean_feature", random_state=2)
    assert np.std(train.X - train.X_star) == pytest.approx(1.0, abs=0.05)
    clean, _ = datasets.privileged("noisy_latent_gp", random_state=3, r=0.0)
    noisy, _ = datasets.privileged("noisy_latent_gp", random_state=3, r=1.0)
    agreement = np.mean(np.sign(clean.X_star[:, 0]) == clean.y)
    assert agreement > 0.75 and abs(np.mean(np.sign(noisy.X_star[:, 0]) == noisy.y) - 0.5) < 0.15
    with pytest.raises(ValueError, match="unknown setting"):
        datasets.privileged("latent_gp")


def test_linear_kernel_gradient_and_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.sign(X @ [1.0, -1.0, 0.5] + 0.3 * rng.normal(size=40))
    K = kernel_matrix("linear", X, X, 0.8, 1.0)
    state = run_ep(K, y, tol=1e-12)
    gradient = log_marginal_gradient(state, K, kernel_derivatives("linear", X, K, 1.0))
    up = run_ep(kernel_matrix("linear", X, X, 0.8 * np.exp(1e-6), 1.0), y, tol=1e-12)
    down = run_ep(kernel_matrix("linear", X, X, 0.8 * np.exp(-1e-6), 1.0), y, tol=1e-12)
    fd = (up.log_marginal_likelihood - down.log_marginal_likelihood) / 2e-6
    assert gradient[0] == pytest.approx(fd, rel=1e-5) and gradient[1] == 0
    assert GPClassifierEP("linear").fit(X, y).score(X, y) > 0.9


def test_one_repeat_and_summary():
    rows = experiment.run_experiment(["relevant_feature"], repeats=2, progress=False)
    assert set(rows["method"]) == set(experiment.METHODS) and len(rows) == 6
    table = experiment.summary(rows)
    reference = table[table["method"] == "GPC (reference)"].iloc[0]
    assert reference["accuracy"] > 95  # the labels are linear in X*
    slt = rows[rows["method"] == "SLT-GP"]
    assert slt["rho"].between(0, 1).all()
    with pytest.raises(ValueError, match="settings must be among"):
        experiment.run_experiment(["nope"])


def test_command_line(capsys, tmp_path):
    argv = ["experiment", "slt-gp", "--setting", "noisy_latent_gp", "--repeats", "1"]
    assert main([*argv, "--r-values", "0,1", "--json", "--out", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["r"] for r in rows} == {0.0, 1.0}
    assert (tmp_path / "slt_gp.csv").exists()
