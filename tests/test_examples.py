"""The gallery's scripts run, draw their figures, and quote numbers the library agrees
with: each check below reads a script's own variables after it ran and sets them
against an independent route (a hand-written program against cvxpb's, a local method
against the certified optimum, the lasso against scikit-learn's)."""

import runpy
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

EXAMPLES = Path(__file__).parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def run(name, monkeypatch, capsys):
    """Run ``examples/<name>.py``; its globals, its output and how many figures it
    showed."""
    shown = []

    def show(*args, **kwargs):
        shown.extend(plt.get_fignums())
        plt.close("all")

    monkeypatch.setattr(plt, "show", show)
    namespace = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    return namespace, capsys.readouterr().out, len(shown)


def test_every_script_is_a_gallery_example():
    """``examples/`` is the gallery's source: every script has the title docstring
    sphinx-gallery needs, and the checks below cover each one."""
    assert [s.stem for s in SCRIPTS] == sorted(CHECKS)
    for script in SCRIPTS:
        text = script.read_text()
        assert text.startswith('r"""\n') and "\n====" in text.split('"""')[1], script.name


def _socp(ns):
    exact = ns["exact"]
    assert abs(ns["by_hand"].value - exact.bound) < 1e-6
    assert abs(ns["program"].value - exact.bound) < 1e-6
    assert exact.status == "optimal" and exact.certificate.gap < 1e-8
    assert abs(ns["problem"].solve("closed_form").bound - exact.bound) < 1e-9
    assert ns["problem"].value_at(ns["best_single"]) > ns["problem"].value_at(ns["prior"])


def _ccp(ns):
    for distance, (exact, fixed, fp_bounds) in ns["results"].items():
        iterates = ns["ccp"][distance]
        floor = exact.certificate.lower_bound
        # CCP never rises, up to its subproblems' relative gap of 1e-10
        assert np.all(np.diff(iterates) <= 1e-10 * iterates[:-1]), distance
        assert iterates.min() >= floor and fp_bounds.min() >= floor
        assert iterates[-1] - floor < 1e-6 and fp_bounds[-1] - floor < 1e-6
        assert abs(fp_bounds[-1] - fixed.bound) < 1e-9


def _certificate(ns):
    exact = ns["exact"]
    assert abs(ns["g"](ns["L_star"], ns["D_star"]) - exact.bound) < 1e-9
    _, lower, best = ns["rounds"][-1]
    assert min(lower) <= exact.bound and best >= exact.certificate.lower_bound
    assert best - min(lower) <= 1e-7


def _minimax(ns):
    assert abs(ns["by_hand"].value - ns["program"].value) < 1e-6
    assert np.abs(ns["lasso"] - ns["sklearn_lasso"]).max() < 1e-6
    for name, values in ns["closed_forms"].items():
        assert np.abs(ns["losses"][name] - values).max() < 1e-12, name
    for key, (program, estimator) in ns["values"].items():
        assert abs(program - estimator) < 1e-6, key
    kept = ns["paths"]["brier"][0]
    assert kept[0] > kept[-1]  # a larger eps keeps fewer features


def _prior_svms(ns):
    duals = [ns["by_hand"].value, ns["program"].value, ns["dual_value"]]
    assert max(duals) - min(duals) < 1e-6 * abs(duals[0])
    assert abs(ns["eta_by_hand"].value - ns["eta_value"]) < 1e-6 * abs(ns["eta_value"])
    assert abs(abs(ns["balance"].dual_value) - ns["eta_root"]) < 1e-4 * ns["eta_root"]
    rows = dict(zip(ns["Cs"], ns["rows"], strict=True))
    bounds = ("langford", "prior", "eta_tau", "eta_mixture")
    for C, row in rows.items():  # the closing paragraph's claims
        least = min(bounds, key=lambda key: row[key])
        if 0.1 - 1e-9 <= C <= 3.2:
            assert least == "prior", C
        if C >= 30:
            assert least == "langford", C


def _slt_gp(ns):
    verdicts = {
        name: ns["bound_and_condition"](clf, 0.1)[1] for name, clf in ns["classifiers"].items()
    }
    assert verdicts == {
        "GPC, empirical Bayes": False,
        "SLT-GP": False,
        "GPC, k(x, x) <= 0.099": True,
    }
    classifiers, test = ns["classifiers"], ns["test"]
    # "no row is a proven bound for this data": test points break v(x) <= 0.099 ...
    assert np.mean(ns["test_variances"] > 0.099) > 0
    # ... and the closed form of E exp(lambda y f), by Monte Carlo at a lambda below 1/a
    rng = np.random.default_rng(0)
    a_sq, lam = ns["a_sq"], 0.3 * ns["blow_up"]
    norms = rng.chisquare(50, 400_000)
    monte_carlo = np.log(np.mean(np.exp(lam**2 * a_sq * norms / 2)))
    assert abs(monte_carlo - (-25 * np.log1p(-(lam**2) * a_sq))) < 0.01
    assert -25 * np.log1p(-(ns["lam"] ** 2) * a_sq) > ns["lam"] ** 2 * 0.1 / 2  # (28) fails
    assert classifiers["GPC, empirical Bayes"].gibbs_risk(test.X, test.y) > 1000
    assert ns["holds"].all() and np.all(np.diff(ns["values"]) > 0)
    assert np.all(ns["values"] > ns["constants"])


def _majority_votes(ns):
    for validation, fit in ns["fits"].items():
        bounds = fit.bounds(progress=False)
        assert bounds.loc["tnd", "minimum"] == fit.result_.bound
        for name, entry in bounds.iterrows():
            assert 0 <= entry["minimum"] <= min(entry["at_uniform"], 1), (validation, name)
            assert entry["status"] == "optimal", (validation, name)


def _own_bound(ns):
    exact = ns["ours"].solve()  # cvxpb's own KL
    assert abs(exact.bound - ns["mine"].solve().bound) < 1e-12
    assert ns["mine"].methods() == ["exact", "ccp", "nlp", "declared"]
    table = ns["table"].set_index("method")
    for method, row in table.iterrows():  # valid: never below the certified floor
        assert row["bound"] >= ns["floor"], method
    for method in ("exact", "declared"):  # certified: within the gap each is asked for
        assert table.loc[method, "status"] == "optimal", method
        assert table.loc[method, "bound"] - ns["floor"] <= 1e-7 + 1e-9, method
    declared = ns["declared"]
    assert declared.status == "optimal" and abs(declared.bound - ns["exact"].bound) < 1e-8
    vote = ns["vote"]  # kl(L, R) >= 2 (R - L)^2: the kl bound is never looser
    assert vote.bounds(progress=False).loc["first_order", "minimum"] <= vote.result_.bound


CHECKS = {
    "plot_01_linear_chi2_socp": _socp,
    "plot_02_ccp_fixed_points": _ccp,
    "plot_03_exact_certificate": _certificate,
    "plot_04_minimax_glms": _minimax,
    "plot_05_prior_svms": _prior_svms,
    "plot_06_slt_gp": _slt_gp,
    "plot_07_majority_votes": _majority_votes,
    "plot_08_your_own_bound": _own_bound,
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_example(name, monkeypatch, capsys, recwarn):
    """It runs, shows at least one figure, prints no NaN, lets no bare warning through,
    and its numbers agree with the library."""
    namespace, out, figures = run(name, monkeypatch, capsys)
    assert figures >= 1
    assert "nan" not in out.lower().replace("nanmean", "")
    assert not [str(w.message) for w in recwarn if not issubclass(w.category, DeprecationWarning)]
    check = CHECKS[name]
    check(namespace)
