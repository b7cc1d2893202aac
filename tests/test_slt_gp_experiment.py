"""Kamesawa et al.'s data-generating processes, the linear kernel, and the experiment runner."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cvxpb.app import datasets
from cvxpb.app.cli import main
from cvxpb.app.experiments import slt_gp as experiment
from cvxpb.gp import SLTGPClassifier
from cvxpb.gp.classifier import GPClassifierEP, kernel_derivatives, kernel_matrix
from cvxpb.gp.ep import log_marginal_gradient, run_ep
from cvxpb.gp.slt import conditional_prior


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
        datasets.privileged("latent")


def test_independent_feature_takes_a_random_subset_per_example():
    train, test = datasets.privileged("independent_feature", random_state=4)
    assert train.X_star.shape == (200, 3)
    columns = [
        [j for j in range(50) if np.any(np.isclose(train.X[i, j], train.X_star[i]))]
        for i in range(200)
    ]
    assert all(len(c) == 3 for c in columns)  # three of the example's own features
    counts = np.bincount(np.concatenate(columns), minlength=50)
    assert counts.min() > 0  # about 12 each: the subsets vary over all 50 features
    alpha = np.linalg.lstsq(test.X_star, test.y, rcond=None)[0]
    assert np.mean(np.sign(test.X_star @ alpha) == test.y) > 0.85  # y linear in x*


def _gp_log_density(values, X, amplitude=10.0):
    """log N(values | 0, amplitude exp(-||x - x'||^2 / 2)), by scipy."""
    from scipy.stats import multivariate_normal

    K = amplitude * np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return multivariate_normal(cov=K + 1e-6 * np.eye(len(X))).logpdf(values)


def test_latent_gp_settings_draw_from_the_table_2_kernel():
    """The latent values are far likelier under ``10 exp(-||x - x'||^2 / 2)`` than under
    a rescaled amplitude or after shuffling (which breaks the link to ``x``)."""
    rng = np.random.default_rng(0)
    train, _ = datasets.privileged("latent_gp", n_train=60, n_test=0, random_state=5)
    latent = train.X_star[:, 0]
    assert train.X.min() >= 0 and train.X.max() <= 10 and train.X.shape == (60, 2)
    fit = _gp_log_density(latent, train.X)
    assert fit > _gp_log_density(latent, train.X, 1.0) + 10
    assert fit > _gp_log_density(latent, train.X, 100.0) + 10
    assert fit > _gp_log_density(rng.permutation(latent), train.X) + 10
    assert np.mean(np.sign(latent) == train.y) > 0.75  # y = sign(x* + N(0, 1))


def test_noise_variance_labels_are_noisier_where_g_is_large():
    """``y = sign(f + exp(g / 2) eps)``: with ``f`` and ``g`` unknown, check through a
    large sample that agreement with a smooth fit of ``y`` on ``x`` is lower in the
    half of ``x*`` space where the training labels disagree most with their neighbours."""
    train, _ = datasets.privileged("noise_variance", n_train=1500, n_test=0, random_state=6)
    assert train.X_star.shape == (1500, 2) and train.X_star.max() <= 10
    from sklearn.neighbors import KNeighborsClassifier

    noisy = train.y != KNeighborsClassifier(25).fit(train.X, train.y).predict(train.X)
    by_star = KNeighborsClassifier(50).fit(train.X_star, noisy).predict_proba(train.X_star)[:, 1]
    assert np.corrcoef(by_star, noisy)[0, 1] > 0.2  # the noise level depends on x*
    flat, _ = datasets.privileged("latent_gp", n_train=1500, n_test=0, random_state=6)
    flat_noisy = flat.y != KNeighborsClassifier(25).fit(flat.X, flat.y).predict(flat.X)
    rng = np.random.default_rng(1)
    unrelated = rng.uniform(0, 10, (1500, 2))  # latent_gp's noise does not depend on it
    by_unrelated = KNeighborsClassifier(50).fit(unrelated, flat_noisy).predict_proba(unrelated)
    assert np.corrcoef(by_unrelated[:, 1], flat_noisy)[0, 1] < np.corrcoef(by_star, noisy)[0, 1]


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


@pytest.mark.slow
def test_one_repeat_and_summary():
    rows = experiment.run_experiment(["relevant_feature"], repeats=2, progress=False)
    methods = experiment.METHODS
    assert set(rows["method"]) == set(methods) and len(rows) == 2 * len(methods)
    table = experiment.summary(rows)
    reference = table[table["method"] == "GPC (reference)"].iloc[0]
    assert reference["accuracy"] > 95  # the labels are linear in X*
    slt = rows[rows["method"] == "SLT-GP"]
    assert slt["rho"].between(0, 1).all()
    with pytest.raises(ValueError, match="settings must be among"):
        experiment.run_experiment(["nope"])
    with pytest.raises(ValueError, match="methods must be among"):
        experiment.run_experiment(["relevant_feature"], methods=("GPC++",))


def test_rows_record_the_warnings_of_their_fit(monkeypatch, capsys):
    """A fit's warnings (EP that stops early, say) go into its row, not to stderr."""
    from cvxpb.app.experiments import warning_report
    from cvxpb.gp.ep import EPConvergenceWarning

    real = experiment._fit_and_predict

    def noisy(method, *args):
        if method == "GPC":
            warnings.warn("EP stopped after 200 sweeps", EPConvergenceWarning, stacklevel=1)
        return real(method, *args)

    monkeypatch.setattr(experiment, "_fit_and_predict", noisy)
    rows = experiment.run_experiment(
        ["relevant_feature"], repeats=1, progress=False, methods=("GPC", "SLT-GP")
    )
    assert capsys.readouterr().err == ""
    gpc, slt = rows[rows["method"] == "GPC"], rows[rows["method"] == "SLT-GP"]
    assert gpc["warning"].str.startswith("EPConvergenceWarning: EP stopped").all()
    assert not slt["warning"].str.startswith("EPConvergenceWarning").any()
    assert (gpc["warnings"] >= 1).all()
    assert "GPC: " in warning_report(rows) and "e.g. EPConvergenceWarning" in warning_report(rows)
    table = experiment.summary(rows).set_index("method")
    assert table.loc["GPC", "warnings"] == gpc["warnings"].sum()
    # the unpatched fits of the same draws warn once less each
    monkeypatch.setattr(experiment, "_fit_and_predict", real)
    plain = experiment.run_experiment(
        ["relevant_feature"], repeats=1, progress=False, methods=("GPC",)
    )
    assert np.array_equal(plain["warnings"].to_numpy() + 1, gpc["warnings"].to_numpy())


def test_command_line(capsys, tmp_path):
    argv = ["experiment", "slt-gp", "--setting", "noisy_latent_gp", "--repeats", "1"]
    argv += ["--r-values", "0,1", "--sizes", "30,60", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out, parse_constant=pytest.fail)  # no NaN
    assert {(r["r"], r["n"]) for r in rows} == {(0.0, 30), (0.0, 60), (1.0, 30), (1.0, 60)}
    slt = [r for r in rows if r["method"] == "SLT-GP"]
    assert all(0 <= r["rho"] <= 1 and 0 <= r["rho_test"] <= 1 for r in slt)
    assert all(r["rho"] is None for r in rows if r["method"] == "GPC")
    for name in ("slt_gp.csv", "slt_gp_runs.csv", "slt_gp_time.png", "slt_gp_rho.png"):
        assert (tmp_path / name).exists()


def test_rho_scan_picks_the_grid_minima():
    """Figure 2's two rhos against a direct scan written out here."""
    train, test = datasets.privileged("noisy_latent_gp", n_train=60, random_state=7, r=0.3)
    slt = SLTGPClassifier(amplitude=0.5, optimize="length_scale").fit(
        train.X, train.y, X_star=train.X_star
    )
    grid = np.array([0.0, 0.5, 1.0])
    scan = experiment.rho_scan(slt, test.X, test.y, grid)
    K = kernel_matrix("rbf", train.X, train.X, 0.5, slt.length_scale_)
    signed = np.where(train.y == slt.classes_[1], 1.0, -1.0)
    log_z = []
    for rho in grid:  # eq. (25) from the conditional prior, without with_rho
        m, C, _ = conditional_prior(K, slt.soft_labels_, rho)
        log_z.append(run_ep(C, signed, offset=m).log_marginal_likelihood)
    risks = [slt.with_rho(rho).gibbs_risk(test.X, test.y) for rho in grid]
    assert scan["rho (least eq. 29 on grid)"] == grid[np.argmax(log_z)]  # bound falls with log Z
    assert scan["rho (least test risk)"] == grid[np.argmin(risks)]


def test_the_seed_kernels_per_setting():
    assert experiment._options("independent_feature")["kernel"] == "linear"
    assert experiment._options("latent_gp")["kernel"] == "rbf"
    assert experiment._options("noisy_latent_gp")["optimize"] == "length_scale"
    with pytest.raises(ValueError, match="sizes must be integers"):
        experiment.run_experiment(["latent_gp"], sizes=(2,))


@pytest.mark.parametrize(("k", "bounded"), [(0, False), (1, True)])
def test_the_timing_runs_large_held_out_log_loss_is_the_amplitude_bound(k, bounded):
    """The committed timing run's held-out risk of 765 at n = 20 (repeat 1, against
    0.92 for repeat 0): the kernel search leaves the amplitude at the upper end of its
    range (100) and says so; the test points' latent variances are then about 1e4 and
    the posterior-expected log loss, by the quadrature and by an independent Monte
    Carlo, is in the hundreds. Not a bug of the risk: eq. (29) with sigma0^2 = 0.1
    cannot cover a prior of variance 1e4 (condition (28))."""
    import pandas as pd
    from scipy.special import log_ndtr

    from cvxpb.gp.classifier import HyperparameterBoundWarning

    seed = int(np.random.SeedSequence([0, k]).generate_state(1)[0])
    train, test = datasets.privileged("latent_gp", n_train=20, random_state=seed, r=0.0)
    clf = SLTGPClassifier(privileged_kernel="rbf", kernel="rbf")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(train.X, train.y, X_star=train.X_star)
    bound_warnings = [w for w in caught if issubclass(w.category, HyperparameterBoundWarning)]
    assert (clf.at_bound_ == ("amplitude",)) is bounded
    assert bool(bound_warnings) is bounded
    mean, var = clf._latent(test.X)
    y = np.where(test.y == clf.classes_[1], 1, -1)
    f = mean[:, None] + np.sqrt(var)[:, None] * np.random.default_rng(0).standard_normal((1, 4000))
    monte_carlo = float(np.mean(-log_ndtr(y[:, None] * f)))
    risk = clf.gibbs_risk(test.X, test.y)
    assert risk == pytest.approx(monte_carlo, rel=0.02)
    runs = pd.read_csv(Path(__file__).parents[1] / "docs/results/slt_gp_time/slt_gp_runs.csv")
    row = runs[(runs.n == 20) & (runs.repeat == k) & (runs.method == "SLT-GP")]
    assert float(row["test risk"].iloc[0]) == pytest.approx(risk, rel=1e-4)
    if bounded:
        assert clf.amplitude_ == pytest.approx(100) and var.max() > 5e3 and risk > 100
    else:
        assert var.max() < 10 and risk < 1
