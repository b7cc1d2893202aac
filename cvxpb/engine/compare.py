"""``BoundProblem.compare``: every method of solution side by side, against a certified optimum."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cvxpb.engine.methods import applicable, certifies

applicable_methods = applicable  # the registry's list, under the name compare() documents


def _row(problem, res, exact):
    finite = np.all(np.isfinite(res.posterior))
    return {
        "method": res.method,
        "bound": res.bound,
        "gap": res.bound - exact.bound,
        "posterior_l1": float(np.abs(res.posterior - exact.posterior).sum()) if finite else np.nan,
        "support": res.support_size if finite else 0,
        "kkt_residual": problem.kkt_residual(res.posterior) if finite else np.nan,
        "iterations": res.iterations,
        "seconds": res.seconds,
        "status": res.status,
        "message": res.message,
    }


class Comparison(pd.DataFrame):
    """The table of :func:`compare`, a DataFrame that prints its key columns readably.

    The key columns are method, status, bound, the gap to the reference bound and
    seconds; the others stay in the DataFrame.

    Parameters
    ----------
    data, index, columns, dtype, copy : object
        As for :class:`pandas.DataFrame`.
    """

    KEY_COLUMNS = ("method", "status", "bound", "gap", "seconds")

    @property
    def _constructor(self):
        return pd.DataFrame  # a selection or a computation gives a plain DataFrame

    def __repr__(self) -> str:
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
            "declared engine's) certified bound" + f"\nalso in this DataFrame: {', '.join(others)}"
        )

    __str__ = __repr__


def compare(problem, methods=None, options: dict | None = None) -> Comparison:
    """Run every applicable method side by side against a certified reference.

    The reference is the exact method's certified optimum, or the declared engine's where
    the exact method does not apply (a divergence with no family of its own).

    Parameters
    ----------
    problem : cvxpb.BoundProblem
        The problem.
    methods : sequence of str, optional
        Default: every applicable method (see :func:`applicable_methods`).
    options : dict, optional
        Keyword arguments per method, e.g. ``{"nlp": {"max_seconds": 30}}``.

    Returns
    -------
    Comparison
        One row per method: bound, gap to the reference bound, L1 distance of the
        posterior to the reference one, support size, KKT residual, iterations, seconds
        and status.
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
