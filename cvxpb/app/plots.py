"""Pictures of posteriors over classifiers (Sahu & Hemachandra, Figures 1 and 6); needs matplotlib
(``pip install "cvxpb[plot]"``)."""

from __future__ import annotations

import numpy as np

from cvxpb.app.diagnostics import posterior_cdf


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('plots need matplotlib: pip install "cvxpb[plot]"') from None
    return plt


def plot_cdfs(ax, posteriors: dict, risks):
    """Draw each posterior's CDF over the classifiers ordered by risk (Figure 6).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    posteriors : dict
        ``{label: posterior}``.
    risks : array_like of shape (H,)
        The classifiers' risks.
    """
    for label, q in posteriors.items():
        cdf = posterior_cdf(q, risks)
        ax.step(np.arange(1, cdf.size + 1), cdf, where="post", label=label)
    ax.set(xlabel="classifiers by increasing validation risk", ylabel="posterior CDF")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small")


def plot_weights(ax, posteriors: dict, risks):
    """Draw posterior weight against validation risk.

    Linear decrease for chi2, exponential for KL (Sahu & Hemachandra, Section 8.1).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    posteriors : dict
        ``{label: posterior}``.
    risks : array_like of shape (H,)
        The classifiers' risks.
    """
    for label, q in posteriors.items():
        ax.plot(risks, q, "o", markersize=3, alpha=0.7, label=label)
    ax.set(xlabel="validation risk", ylabel="posterior weight")
    ax.legend(fontsize="small")


def plot_subset_bounds(ax, subsets: dict):
    """Draw the best bound on the ``H'`` smallest risks, as ``H'`` grows (Figure 1).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    subsets : dict
        ``{label: table}`` of :func:`cvxpb.app.diagnostics.ordered_subset_bounds`.
    """
    for label, table in subsets.items():
        ax.plot(table["H'"], table["bound"], label=label)
    ax.set(xlabel="H' (ordered subset size)", ylabel="best bound on the subset")
    ax.legend(fontsize="small")


def save_dataset_figure(run, path) -> None:
    """Save the three panels for one data set's run, as a PNG.

    Parameters
    ----------
    run : cvxpb.app.experiments.stochastic_svm.DatasetRun
        The run: its name, ``m``, risks, posteriors and subset bounds.
    path : str or path
        Where to write the PNG.
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), constrained_layout=True)
    plot_cdfs(axes[0], run.posteriors, run.risks)
    plot_weights(axes[1], run.posteriors, run.risks)
    plot_subset_bounds(axes[2], run.subsets)
    fig.suptitle(f"{run.name}: m = {run.m}, H = {run.risks.size}")
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_table(table, rows: str, value: str, spread: str, xlabel: str, title: str, path):
    """Draw a summary table as dots, with error bars.

    One row per ``rows`` entry, a marker per method at its ``value``, with ``spread`` as
    an error bar (Farnia & Tse's Table 1 and Kamesawa et al.'s Table 3, as pictures).

    Parameters
    ----------
    table : pandas.DataFrame
        With columns ``rows``, ``"method"``, ``value`` and ``spread``.
    rows, value, spread : str
        The columns.
    xlabel, title : str
        The axis label and the title.
    path : path
        The PNG to write.

    Returns
    -------
    path
        ``path``.
    """
    plt = _pyplot()
    names = list(dict.fromkeys(table[rows]))
    methods = list(dict.fromkeys(table["method"]))
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(names) * max(1, len(methods) / 3) + 1.8))
    markers = "osD^vP*X"
    for k, method in enumerate(methods):
        part = table[table["method"] == method].set_index(rows).reindex(names)
        y = np.arange(len(names)) + 0.7 * (k + 1) / (len(methods) + 1) - 0.35
        errors = part[spread].fillna(0.0).to_numpy()
        ax.errorbar(part[value], y, xerr=errors, fmt=markers[k % len(markers)], label=method)
    ax.set_yticks(np.arange(len(names)), names)
    ax.invert_yaxis()
    ax.set(xlabel=xlabel, title=title)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
