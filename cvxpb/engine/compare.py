"""``compare()``: every method of solution side by side, against a certified optimum."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cvxpb.engine.methods import applicable, certifies

applicable_methods = applicable  # the registry's list, under the name compare() documents


REACHED_RTOL = 1e-6  # a bound within this of the certified optimum, relatively, reached it


def _reached(problem, res, exact) -> str:
    """What the method's posterior is, against the certified optimum: the optimum, a
    stationary point above it (a KKT point of the bound on the simplex, which for a bound
    not convex in the posterior need not be the optimum), or a point above it."""
    if not np.all(np.isfinite(res.posterior)) or not np.isfinite(res.bound):
        return "no posterior"
    if res.bound - exact.bound <= REACHED_RTOL * max(exact.bound, 1e-12):
        return "the optimum"
    if problem.kkt_residual(res.posterior) <= REACHED_RTOL:  # NaN where not defined
        return "a stationary point above it"
    return "a point above it"


def _row(problem, res, exact):
    finite = np.all(np.isfinite(res.posterior))
    return {
        "method": res.method,
        "status": res.status,
        "reached": _reached(problem, res, exact),
        "bound": res.bound,
        "gap": res.bound - exact.bound,
        "posterior_l1": float(np.abs(res.posterior - exact.posterior).sum()) if finite else np.nan,
        "support": res.support_size if finite else 0,
        "kkt_residual": problem.kkt_residual(res.posterior) if finite else np.nan,
        "iterations": res.iterations,
        "seconds": res.seconds,
        "message": res.message,
    }


class Comparison(pd.DataFrame):
    """The table of :func:`compare`, a DataFrame that prints its key columns readably.

    The key columns are method, status, what its posterior reached against the certified
    optimum, bound, the gap to the reference bound and seconds; the others stay in the
    DataFrame.

    Parameters
    ----------
    data, index, columns, dtype, copy : object
        As for :class:`pandas.DataFrame`.
    """

    KEY_COLUMNS = ("method", "status", "reached", "bound", "gap", "seconds")

    @property
    def _constructor(self):
        return pd.DataFrame  # a selection or a computation gives a plain DataFrame

    def __repr__(self) -> str:
        return self.text("also in this DataFrame")

    __str__ = __repr__

    def text(self, more: str) -> str:
        """The key columns as a table, what gap means, and the other columns' names.

        Parameters
        ----------
        more : str
            How the other columns are reached (in Python, the DataFrame; on the command
            line, ``--json``).

        Returns
        -------
        str
            The text.
        """
        formats = {
            "bound": lambda v: f"{v:.6f}",
            "gap": lambda v: f"{v:+.1e}" if v else "0",
            "seconds": lambda v: f"{v:.3g}",
        }
        shown = pd.DataFrame(self.loc[:, list(self.KEY_COLUMNS)])
        for column, form in formats.items():
            shown[column] = [form(v) if np.isfinite(v) else "-" for v in shown[column]]
        others = [c for c in self.columns if c not in self.KEY_COLUMNS]
        return (
            shown.to_string(index=False)
            + "\ngap: bound minus the exact method's (or, where it does not apply, the "
            "declared engine's) certified bound\nreached: the optimum (within "
            f"{REACHED_RTOL:g} of it, relatively), a stationary point above it (a KKT point "
            "of the bound, which for a bound not convex in the posterior need not be the "
            "optimum), or a point above it" + f"\n{more}: {', '.join(others)}"
        )


def compare(problem, methods=None, options: dict | None = None) -> Comparison:
    """Run every applicable method side by side against a certified reference.

    The reference is the exact method's certified optimum, or the declared engine's where
    the exact method does not apply (a divergence with no family of its own).

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    methods : sequence of str, optional
        Default: every applicable method (see :func:`applicable_methods`).
    options : dict, optional
        Keyword arguments per method, e.g. ``{"nlp": {"max_seconds": 30}}``.

    Returns
    -------
    Comparison
        One row per method: status, what it reached against the certified optimum,
        bound, gap to the reference bound, L1 distance of the posterior to the reference
        one, support size, KKT residual, iterations, seconds and message.
    """
    options = options or {}
    applicable = applicable_methods(problem)
    methods = applicable if methods is None else list(methods)
    name = next(m for m in applicable if certifies(m))  # exact, else declared
    reference = problem.solve(name, **options.get(name, {}))
    results = {name: reference}
    for method in methods:
        if method not in results:
            results[method] = problem.solve(method, **options.get(method, {}))
    return Comparison([_row(problem, results[method], reference) for method in methods])
