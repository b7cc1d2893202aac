"""Sahu & Hemachandra's Appendix D, re-run on a committed family of SVMs.

The paper's appendix tables study one family per dataset, the SVMs of its linear
grid ``lam = 0.1, 0.11, ...`` (:func:`cvxpb.svm.linear_grid`), and its prefixes:

* Tables 6 and 7: the kl-chi2 bound and test error at ``H = 50, 200, 500, 1000,
  1990`` by the fixed point and by a general NLP solver (Ipopt there, SLSQP here),
  beside the certified global optimum (``method="exact"``), which the paper lacks;
* Table 8: the kl-chi2 bound by the convex-concave procedure from many random starts
  at ``H = 50``, against the fixed point;
* Table 9: support, ``N(alpha)`` and HHI of the three chi2 posteriors at ``H = 1000``
  and ``delta = 0.01``;
* Figures 4 and 5: the optimal support size against ``delta``.

Each function reads the JSON payload that ``cvxpb experiment stochastic-svm --H ...``
writes (the risks, test errors and sample size of each dataset's family), so the
tables depend on nothing but committed numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from cvxpb.app.diagnostics import summary
from cvxpb.engine.declare.bound_problem import BoundProblem
from cvxpb.files import written_together
from cvxpb.validation import check_delta

SIZES = (50, 200, 500, 1000, 1990)
NLP_LARGEST = 500  # SLSQP takes about 8 minutes per problem at H = 1990
DELTAS = (0.01, 0.05, 0.1)


def _family(data: dict, size: int):
    """The first ``size`` SVMs of a dataset's family: risks, test errors."""
    if size > len(data["risks"]):
        raise ValueError(f"{data['name']} has {len(data['risks'])} SVMs, not {size}")
    return np.asarray(data["risks"][:size]), np.asarray(data["test_errors"][:size])


def _method_columns(problem, test_errors, method: str) -> dict:
    result = problem.solve(method)
    posterior = result.posterior
    error = np.nan if posterior is None else float(posterior @ test_errors)
    return {
        f"B {method}": result.bound,
        f"T {method}": error,
        f"{method} status": result.status,
        f"{method} seconds": result.seconds,
    }


def methods_table(payload: dict, sizes=SIZES, delta=None, progress=False) -> pd.DataFrame:
    """Tabulate kl-chi2 by ``exact``, ``fixed_point`` and ``nlp`` on each prefix (Tables 6, 7).

    ``nlp`` runs up to :data:`NLP_LARGEST` classifiers.

    Parameters
    ----------
    payload : dict
        A ``stochastic-svm`` run's JSON, made with ``--H``.
    sizes : sequence of int, default=SIZES
        The prefixes of the family.
    delta : float, optional
        The confidence; the run's by default.
    progress : bool, default=False
        Show a bar.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    delta = check_delta(payload["settings"]["delta"] if delta is None else delta)
    rows = []
    cases = [(data, size) for data in payload["datasets"] for size in sizes]
    for data, size in tqdm(cases, desc="kl-chi2 by method", disable=not progress):
        risks, test_errors = _family(data, size)
        problem = BoundProblem(risks, data["m"], delta, "kl", "chi2")
        row = {"dataset": data["name"], "H": size, "m": data["m"], "delta": delta}
        for method in ("exact", "fixed_point", "nlp"):
            if method != "nlp" or size <= NLP_LARGEST:
                row |= _method_columns(problem, test_errors, method)
        rows.append(row)
    return pd.DataFrame(rows)


def ccp_table(
    payload: dict, size=50, starts=200, delta=None, random_state=0, progress=False
) -> pd.DataFrame:
    """Table 8: kl-chi2 by the convex-concave procedure from Dirichlet(1) starts.

    On the first ``size`` SVMs, against the fixed point and the certified optimum; the
    range, mean and sd of the bounds and test errors the starts reach, and the time all
    the starts took (``CCP seconds``).

    Parameters
    ----------
    payload : dict
        A ``stochastic-svm`` run's JSON, made with ``--H``.
    size : int, default=50
        The SVMs.
    starts : int, default=200
        The starts.
    delta : float, optional
        The confidence; the run's by default.
    random_state : int, default=0
        Seeds the starts.
    progress : bool, default=False
        Show a bar.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    delta = check_delta(payload["settings"]["delta"] if delta is None else delta)
    rows = []
    for data in tqdm(payload["datasets"], desc="CCP starts", disable=not progress):
        risks, test_errors = _family(data, size)
        problem = BoundProblem(risks, data["m"], delta, "kl", "chi2")
        exact, fixed = problem.solve("exact"), problem.solve("fixed_point")
        rng = np.random.default_rng(random_state)
        bounds, errors, seconds = [], [], 0.0
        for _ in range(starts):
            result = problem.solve("ccp", initial=rng.dirichlet(np.ones(size)))
            bounds.append(result.bound)
            errors.append(float(result.posterior @ test_errors))
            seconds += result.seconds
        bounds, errors = np.array(bounds), np.array(errors)
        rows.append(
            {
                "dataset": data["name"],
                "H": size,
                "starts": starts,
                "B exact": exact.bound,
                "B fixed_point": fixed.bound,
                "B CCP min": bounds.min(),
                "B CCP max": bounds.max(),
                "B CCP mean": bounds.mean(),
                "B CCP sd": bounds.std(ddof=1),
                "starts within 1e-6 of exact": int(np.sum(bounds <= exact.bound + 1e-6)),
                "T exact": float(exact.posterior @ test_errors),
                "T fixed_point": float(fixed.posterior @ test_errors),
                "T CCP min": errors.min(),
                "T CCP max": errors.max(),
                "T CCP mean": errors.mean(),
                "T CCP sd": errors.std(ddof=1),
                "CCP seconds": seconds,
            }
        )
    return pd.DataFrame(rows)


def concentration_table(payload: dict, size=1000, delta=0.01) -> pd.DataFrame:
    """Table 9: support, ``N(alpha)`` and HHI of the exact chi2 posteriors.

    Parameters
    ----------
    payload : dict
        A ``stochastic-svm`` run's JSON, made with ``--H``.
    size : int, default=1000
        The first SVMs taken.
    delta : float, default=0.01
        The confidence.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    delta = check_delta(delta)
    rows = []
    for data in payload["datasets"]:
        risks, _ = _family(data, size)
        for distance in ("linear", "sq", "kl"):
            result = BoundProblem(risks, data["m"], delta, distance, "chi2").solve()
            row = {"dataset": data["name"], "H": size, "delta": delta, "distance": distance}
            rows.append(row | {"bound": result.bound} | summary(result.posterior, risks))
    return pd.DataFrame(rows)


def support_table(payload: dict, cases, deltas=DELTAS) -> pd.DataFrame:
    """Tabulate the optimal posterior's support on a whole family against ``delta`` (Figures 4, 5).

    Parameters
    ----------
    payload : dict
        A ``stochastic-svm`` run's JSON, made with ``--H``.
    cases : sequence of tuple
        ``(dataset, distance, method)`` triples.
    deltas : sequence of float, default=DELTAS
        The confidences.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    deltas = [check_delta(d) for d in deltas]
    by_name = {data["name"]: data for data in payload["datasets"]}
    rows = []
    for name, distance, method in cases:
        data = by_name[name]
        risks, _ = _family(data, len(data["risks"]))
        for delta in deltas:
            problem = BoundProblem(risks, data["m"], delta, distance, "chi2")
            result = problem.solve(method)
            row = {"dataset": name, "distance": distance, "method": method, "delta": delta}
            support = summary(result.posterior, risks)["support"]
            rows.append(row | {"H": risks.size, "support": support, "bound": result.bound})
    return pd.DataFrame(rows)


FIGURE_CASES = (("bupa", "linear", "exact"), ("spambase", "kl", "fixed_point"))


@written_together("appendix_")
def write(payload: dict, out, starts=200, progress=True) -> list:
    """Write all four tables of ``payload`` as CSV files under ``out``.

    Parameters
    ----------
    payload : dict
        A ``stochastic-svm`` run's JSON, made with ``--H``.
    out : str or path
        The directory.
    starts : int, default=200
        The CCP starts of Table 8.
    progress : bool, default=True
        Show bars.

    Returns
    -------
    list of path
        The files written.
    """
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = {data["name"] for data in payload["datasets"]}
    tables = {
        "appendix_methods.csv": methods_table(payload, progress=progress),
        "appendix_ccp.csv": ccp_table(payload, starts=starts, progress=progress),
        "appendix_concentration.csv": concentration_table(payload),
        "appendix_support.csv": support_table(
            payload, [case for case in FIGURE_CASES if case[0] in names]
        ),
    }
    paths = []
    for name, table in tables.items():
        paths.append(out / name)
        table.to_csv(paths[-1], index=False, float_format="%.8g")
    return paths
