"""Our numbers for Parrado-Hernández et al.'s rows, each computed from the files its row
names. The paper's Tables 2-5 are below as data: mean and sd over its 50 repetitions."""

import numpy as np
import pandas as pd

SETS = {
    "han": "optdigits_even",
    "wav": "waveform21",
    "pim": "pima",
    "rin": "ringnorm",
    "spa": "spambase",
}
PAPER_REPEATS = 50


def _table(method_rows):
    """{method: {set: (mean, sd)}} from rows of (method, five means, five sds in
    thousandths)."""
    return {
        method: dict(zip(SETS, zip(means, (sd / 1000 for sd in sds), strict=True), strict=True))
        for method, means, sds in method_rows
    }


PAPER = _table(
    [  # Table 2 (SVM), Table 3 (prior SVMs), Table 4 (2C): bounds
        ("SVM+PB", (0.148, 0.190, 0.390, 0.198, 0.230), (0, 0, 1, 0, 0)),
        ("SVM+PriorPB", (0.088, 0.151, 0.411, 0.110, 0.171), (4, 4, 15, 4, 5)),
        ("SVM+tauPB", (0.088, 0.152, 0.406, 0.110, 0.172), (4, 4, 13, 4, 6)),
        ("SVM+EPB", (0.107, 0.133, 0.352, 0.194, 0.221), (1, 1, 4, 0, 1)),
        ("SVM+tauEPB", (0.149, 0.191, 0.401, 0.199, 0.232), (0, 0, 1, 0, 0)),
        ("PriorSVM", (0.037, 0.128, 0.386, 0.046, 0.137), (4, 4, 16, 3, 5)),
        ("EtaPriorSVM+PriorPB", (0.050, 0.154, 0.419, 0.053, 0.177), (6, 4, 14, 4, 6)),
        ("EtaPriorSVM", (0.047, 0.135, 0.397, 0.050, 0.147), (5, 4, 14, 4, 6)),
        ("PriorSVM-2C", (0.033, 0.126, 0.341, 0.041, 0.113), (2, 4, 19, 2, 4)),
        ("EtaPriorSVM+PriorPB-2C", (0.035, 0.154, 0.401, 0.049, 0.150), (3, 4, 18, 3, 5)),
        ("EtaPriorSVM-2C", (0.031, 0.126, 0.345, 0.039, 0.111), (2, 4, 19, 2, 5)),
    ]
)
PAPER_ERRORS = _table(
    [  # Table 5: test errors
        ("PriorSVM", (0.010, 0.086, 0.246, 0.016, 0.082), (4, 7, 34, 3, 9)),
        ("PriorSVM-2C", (0.011, 0.091, 0.251, 0.017, 0.069), (3, 9, 38, 3, 7)),
        ("EtaPriorSVM+PriorPB", (0.010, 0.086, 0.236, 0.016, 0.080), (5, 6, 28, 3, 9)),
        ("EtaPriorSVM+PriorPB-2C", (0.011, 0.087, 0.242, 0.018, 0.068), (3, 9, 39, 3, 8)),
        ("EtaPriorSVM", (0.010, 0.085, 0.238, 0.016, 0.080), (5, 6, 28, 3, 9)),
        ("EtaPriorSVM-2C", (0.011, 0.092, 0.248, 0.018, 0.070), (3, 10, 42, 3, 7)),
        ("SVM+10FCV", (0.008, 0.087, 0.251, 0.016, 0.067), (3, 7, 23, 3, 6)),
    ]
)
SVM_BOUNDS = ["SVM+PB", "SVM+PriorPB", "SVM+tauPB", "SVM+EPB", "SVM+tauEPB"]
PRIOR_SVMS = ["PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"]


def _key(method):
    """A method's name as a row's placeholder spells it (``SVM+10FCV``: ``SVM_10FCV``)."""
    return method.replace("+", "_").replace("-", "_")


def _final(path):
    table = pd.read_csv(path)
    return table[table["fraction"] == 1].set_index("method")


def _paper(short, methods, errors=False):
    source = PAPER_ERRORS if errors else PAPER
    return pd.Series({m: source[m][short][0] for m in methods})


def _noise(ours, short, methods):
    """Each test error's difference from the paper's, over the spread of both means
    (the paper's sd for a repetition, its repetitions and ours)."""
    z = {}
    for method in methods:
        mean, sd = PAPER_ERRORS[method][short]
        spread = sd * np.sqrt(1 / PAPER_REPEATS + 1 / ours.loc[method, "runs"])
        z[method] = abs(ours.loc[method, "test_error"] - mean) / spread
    return max(z.values())


def _selected_c(grid_csv):
    """The largest C any bound selects (least bound per fraction, run and method)."""
    grid = pd.read_csv(grid_csv)
    bounded = grid[grid["method"] != "SVM+10FCV"]
    chosen = bounded.loc[bounded.groupby(["fraction", "run", "method"])["bound"].idxmin()]
    return float(chosen["C"].max())


def data_sets(*_sources):
    """Table 1: the five data sets as the library loads them."""
    from cvxpb.app import datasets

    out = {}
    for short, name in SETS.items():
        data = datasets.load(name, **({"n": 5000} if short == "wav" else {}))
        out[f"{short}_n"], out[f"{short}_d"] = data.X.shape
        out[f"{short}_pos"] = int(np.sum(data.y == 1))
        out[f"{short}_neg"] = int(np.sum(data.y == -1))
    return out


def pima(prior_csv, grid_csv):
    """Pima at the full training set: the eight bounds and the test errors."""
    ours = _final(prior_csv)
    bounds = ours["bound"].drop("SVM+10FCV")
    excess = bounds - _paper("pim", bounds.index)
    prior = ours.loc[PRIOR_SVMS, "test_error"]
    return {
        "runs": int(ours["runs"].min()),
        "least": bounds.min(),
        "most": bounds.max(),
        "least_name": bounds.idxmin(),
        "paper_least_name": _paper("pim", bounds.index).idxmin(),
        "excess_min": excess.min(),
        "excess_min_name": excess.idxmin(),
        "excess_max": excess.max(),
        "excess_max_name": excess.idxmax(),
        "epb": bounds["SVM+EPB"],
        "mixture": bounds["EtaPriorSVM+PriorPB"],
        "tau": bounds["EtaPriorSVM"],
        "prior_error_min": prior.min(),
        "prior_error_max": prior.max(),
        "cv_error": ours.loc["SVM+10FCV", "test_error"],
        "noise": _noise(ours, "pim", [*PRIOR_SVMS, "SVM+10FCV"]),
        "largest_c": _selected_c(grid_csv),
    }


def mixture_rows(pima_csv, spambase_csv):
    """Table 3: the eta-prior SVM's mixture-prior bound against its tau-prior bound."""
    out = {}
    for short, path in (("pim", pima_csv), ("spa", spambase_csv)):
        bounds = _final(path)["bound"]
        out[f"{short}_mixture"] = bounds["EtaPriorSVM+PriorPB"]
        out[f"{short}_tau"] = bounds["EtaPriorSVM"]
        out[f"{short}_above"] = bounds["EtaPriorSVM+PriorPB"] - bounds["EtaPriorSVM"]
    return out


def column(prior_csv):
    """One data set's column at the full training set: bounds and test errors, ours
    and the paper's."""
    ours = _final(prior_csv)
    short = next(s for s, name in SETS.items() if name == ours["dataset"].iloc[0])
    bounds = ours["bound"].drop("SVM+10FCV")
    svm = bounds[SVM_BOUNDS]
    paper = _paper(short, bounds.index)
    out = {f"b_{_key(m)}": bounds[m] for m in bounds.index}
    out |= {f"p_{_key(m)}": paper[m] for m in bounds.index}
    out |= {f"e_{_key(m)}": ours.loc[m, "test_error"] for m in [*PRIOR_SVMS, "SVM+10FCV"]}
    out |= {
        "runs": int(ours["runs"].min()),
        "least_name": bounds.idxmin(),
        "paper_least_name": paper.idxmin(),
        "svm_min": svm.min(),
        "svm_min_name": svm.idxmin(),
        "svm_max": svm.max(),
        "prior_svms_least": bool(bounds[PRIOR_SVMS].max() < svm.min()),
        "paper_prior_svms_least": bool(paper[PRIOR_SVMS].max() < paper[SVM_BOUNDS].min()),
        "excess_min": (bounds - paper).min(),
        "excess_max": (bounds - paper).max(),
        "prior_excess": bounds["PriorSVM"] - paper["PriorSVM"],
        "noise": _noise(ours, short, [*PRIOR_SVMS, "SVM+10FCV"]),
    }
    order = ["PriorSVM", "EtaPriorSVM", "SVM+PriorPB", "SVM+tauPB", "SVM+PB", "SVM+EPB"]
    out["ordered"] = bool(bounds[order].is_monotonic_increasing)
    out["epb_above_langford"] = bool(bounds["SVM+EPB"] > bounds["SVM+PB"])
    return out


def two_cs(prior_2c_csv, pima_2c_csv):
    """Tables 4 and 5: a separate C for the prior."""
    table = pd.concat([pd.read_csv(prior_2c_csv), pd.read_csv(pima_2c_csv)])
    every = table.pivot_table(index=["dataset", "fraction"], columns="method", values="bound")
    final = table[table["fraction"] == 1].set_index(["dataset", "method"])
    out = {"runs": int(table["runs"].min())}
    tighter = True
    for single in ("PriorSVM", "EtaPriorSVM", "EtaPriorSVM+PriorPB"):
        tighter &= bool((every[f"{single}-2C"] < every[single]).all())
        for short, name in SETS.items():
            for suffix, method in (("1", single), ("2", f"{single}-2C")):
                out[f"{_key(single)}_{short}_{suffix}"] = final.loc[(name, method), "bound"]
                out[f"{_key(single)}_{short}_{suffix}_paper"] = PAPER[method][short][0]
    out["tighter"] = tighter
    gains = {short: out[f"PriorSVM_{short}_1"] - out[f"PriorSVM_{short}_2"] for short in SETS}
    paper_gains = {
        short: PAPER["PriorSVM"][short][0] - PAPER["PriorSVM-2C"][short][0] for short in SETS
    }
    out["smaller_gain"] = ", ".join(s for s in SETS if gains[s] < paper_gains[s] / 2)
    errors = {}
    for method in ("PriorSVM-2C", "EtaPriorSVM+PriorPB-2C", "EtaPriorSVM-2C"):
        for short, name in SETS.items():
            ours = final.loc[(name, method)]
            mean, sd = PAPER_ERRORS[method][short]
            errors[method, short] = (ours["test_error"], mean, sd, ours["runs"])
            out[f"err_{_key(method)}_{short}"] = ours["test_error"]
    z = [abs(o - p) / (sd * np.sqrt(1 / PAPER_REPEATS + 1 / r)) for o, p, sd, r in errors.values()]
    out["noise"] = max(z)
    out["beyond_sd"] = sum(abs(o - p) > sd for o, p, sd, _ in errors.values())
    out["cells"] = len(errors)
    return out


def figures_1_and_2(pim_csv, wav_csv, han_csv, rin_csv, spa_csv):
    """Figures 1 and 2: bounds against the training fraction, every data set."""
    wide = {}
    for short, path in zip(SETS, (han_csv, wav_csv, pim_csv, rin_csv, spa_csv), strict=True):
        table = pd.read_csv(path)
        wide[short] = table.pivot(index="fraction", columns="method", values="bound")
    smallest = min(w.index.min() for w in wide.values())
    learnt = [
        k
        for k, w in wide.items()
        if (w[["SVM+PriorPB", "SVM+tauPB"]].max(axis=1) < w["SVM+PB"]).all()
    ]
    expectation = [k for k, w in wide.items() if (w["SVM+EPB"] < w["SVM+PB"]).any()]
    drop = {k: w.loc[w.index.min()] - w.loc[w.index.max()] for k, w in wide.items()}
    steeper = [k for k, d in drop.items() if d["SVM+PriorPB"] > d["SVM+PB"]]
    least = {k: w.drop(columns="SVM+10FCV").idxmin(axis=1) for k, w in wide.items()}
    exceptions = [
        f"{w:.0%} of {k}" for k, s in least.items() for w, name in s.items() if name != "PriorSVM"
    ]
    return {
        "smallest": smallest,
        "largest_bound": max(w.loc[smallest].max() for w in wide.values()),
        "learnt": ", ".join(learnt),
        "not_learnt": ", ".join(k for k in wide if k not in learnt),
        "expectation": ", ".join(expectation),
        "steeper": ", ".join(steeper),
        "not_steeper": ", ".join(k for k in wide if k not in steeper),
        "least_exceptions": ", ".join(exceptions),
        "sets": len(wide),
    }


def _by_c(grid_csv):
    grid = pd.read_csv(grid_csv)
    grid = grid[(grid["fraction"] == 1) & (grid["sigma factor"] == 1)]
    return grid.groupby(["method", "C"])[["bound", "test error", "cv error"]].mean()


def figure_4(wav_grid, pim_grid, spa_grid):
    """Figure 4: bounds and test errors against C at sigma = sqrt(d)."""
    out = {}
    for short, path in (("wav", wav_grid), ("pim", pim_grid)):
        means = _by_c(path)
        chosen = means.loc["SVM+10FCV", "cv error"].idxmin()
        top = means.loc["PriorSVM"].index.max()
        out[f"{short}_cv_c"], out[f"{short}_top_c"] = chosen, top
        for method, key in (("PriorSVM", "prior"), ("SVM+PB", "langford")):
            for end, c in (("low", chosen), ("high", top)):
                out[f"{short}_{key}_bound_{end}"] = means.loc[(method, c), "bound"]
                out[f"{short}_{key}_error_{end}"] = means.loc[(method, c), "test error"]
    spa = _by_c(spa_grid)
    low, high = spa.loc["PriorSVM"].index.min(), spa.loc["PriorSVM"].index.max()
    out["spa_low"], out["spa_high"] = low, high
    out["spa_bounds_rise"] = all(
        spa.loc[(m, high), "bound"] > spa.loc[(m, low), "bound"] for m in ("SVM+PB", "PriorSVM")
    )
    out["spa_errors_fall"] = all(
        spa.loc[(m, high), "test error"] < spa.loc[(m, low), "test error"]
        for m in ("SVM+PB", "PriorSVM")
    )
    rise = out["pim_langford_bound_high"] - out["pim_langford_bound_low"]
    error_rise = out["pim_langford_error_high"] - out["pim_langford_error_low"]
    out["pim_langford_rise"], out["pim_langford_error_rise"] = rise, error_rise
    return out


def eq_18(*_sources):
    """Eq. (18): the tau prior's extra KL beyond ``P_perp(mu w)^2 / 2``."""
    from cvxpb.svm.gaussian import kl_tau

    tau = eta = 50.0
    limit = np.log(tau) + 0.5 / tau**2
    mu, cosine = np.meshgrid(np.linspace(0, 100, 101), np.linspace(-1, 1, 201))
    extra = np.vectorize(kl_tau)(mu, eta, cosine, tau) - 0.5 * mu**2 * (1 - cosine**2)
    holds = extra <= limit + 1e-12
    away = extra[(mu == 100) & np.isclose(cosine, -0.5)].item()
    return {
        "limit": limit,
        "holds_facing": bool(holds[cosine >= 0].all()),
        "fails_away": bool(not holds[(cosine < 0) & (mu * -cosine > 1)].any()),
        "away": away,
        "tau": tau,
    }


def eq_5(*_sources):
    """Eq. (5): the deterministic SVM errs at most twice the stochastic classifier's rate."""
    from cvxpb.svm.gaussian import stochastic_error

    rng = np.random.default_rng(0)
    ratios = []
    for _ in range(20):
        margins = np.clip(rng.normal(0.3, 0.4, 200), -1, 1)
        for mu in (0.5, 2.0, 8.0, 32.0):
            stochastic = float(np.mean(stochastic_error(margins, mu)))
            ratios.append(np.mean(margins < 0) / stochastic)
    return {"samples": len(ratios), "largest": max(ratios)}


def settings(pima_csv, other_csv, pima_grid, other_grid):
    """The runs' repetitions, training fractions and C grids."""
    fractions = sorted(pd.read_csv(pima_csv)["fraction"].unique())
    return {
        "pima_runs": int(pd.read_csv(pima_csv)["runs"].min()),
        "other_runs": int(pd.read_csv(other_csv)["runs"].min()),
        "paper_runs": PAPER_REPEATS,
        "pima_c_max": float(pd.read_csv(pima_grid)["C"].max()),
        "other_c_max": float(pd.read_csv(other_grid)["C"].max()),
        "selected_c_max": _selected_c(pima_grid),
        "fractions": ", ".join(f"{f:.0%}" for f in fractions),
    }
