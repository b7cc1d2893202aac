"""``method="closed_form"``: the paper's closed forms for the linear-distance chi2 bound.

On a support ``S`` the KKT system of ``min l^T q + c sqrt(sum q^2/p)`` (``c^2 = I_lin/delta``)
gives, with ``pi = p / P_S`` and the ``pi``-mean and variance of the risks on ``S``:

``q_i = pi_i [1 + (mean_S - l_i) / Delta_S]``,  ``Delta_S = sqrt(c^2 / P_S - var_S)``,
with bound value ``mean_S + Delta_S``.

* ``rule="theorem11"``: ``S`` = all classifiers (Theorem 11, eq. 22), valid when
  (23) all ``q_i >= 0`` and (24) ``c^2 > var_P``.
* ``rule="algorithm2"``: ``S`` = the ``H'`` smallest risks, ``H' = 1, 2, ...`` until
  (29) breaks down (Algorithm 2, Theorem 4). For the uniform prior ``P_S = H'/H`` gives
  eq. (9), whose printed factor ``1/H`` should read ``1/H'`` (the weights must sum to 1,
  as eq. (32) uses); Algorithm 2's line 23 must also use ``H*``, not the failed ``H'``.
"""

from __future__ import annotations

import time

import numpy as np

from cvxpb.engine.methods import cvx
from cvxpb.engine.methods.method import refuse
from cvxpb.validation import check_choice

RULES = ("algorithm2", "theorem11")
STATUSES = ("optimal", "conditions_not_met")  # the statuses it returns


def _subset_terms(l, p, c2):
    """Cumulative ``P_S``, ``mean_S``, ``Delta_S`` (NaN where undefined) over prefixes."""
    P = np.cumsum(p)
    mean = np.cumsum(p * l) / P
    var = np.maximum(np.cumsum(p * l * l) / P - mean**2, 0.0)
    slack = c2 / P - var
    with np.errstate(invalid="ignore"):
        delta = np.where(slack > 0, np.sqrt(np.maximum(slack, 0.0)), np.nan)
    return P, mean, delta


def _weights(l, p, P, mean, delta):
    return (p / P) * (1 + (mean - l) / delta)


def _algorithm2(l, p, c2):
    """Largest ``H*`` such that every prefix up to it is defined and positive."""
    P, mean, delta = _subset_terms(l, p, c2)
    ok = np.isfinite(delta) & (1 + (mean - l) / np.where(np.isfinite(delta), delta, 1) > 0)
    ok[0] = True  # one classifier: q = (1,), always feasible
    failures = np.flatnonzero(~ok)
    k = (failures[0] if failures.size else l.size) - 1
    return _weights(l[: k + 1], p[: k + 1], P[k], mean[k], delta[k]), k + 1


formulation = cvx.formulation  # the SOCP whose KKT system the closed forms solve


def solve(problem, rule: str = "algorithm2"):
    """The closed-form optimum of the linear chi2 bound by ``rule``.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    rule : {"algorithm2", "theorem11"}, default="algorithm2"
        Which support the closed form is taken on (see the module's text).

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        Status ``"optimal"``, or ``"conditions_not_met"`` where Theorem 11's conditions
        (23) and (24) fail.
    """
    refuse(problem, "closed_form")
    check_choice(rule, "rule", RULES)
    start = time.perf_counter()
    support = np.flatnonzero(problem.prior > 0)
    order = support[np.argsort(problem.risks[support], kind="stable")]
    l = problem.risks[order]
    c2, p = cvx.cone(problem, order)  # chi-squared: I/delta and the prior
    posterior = np.zeros(problem.H)
    if rule == "theorem11":
        P, mean, delta = (v[-1] for v in _subset_terms(l, p, c2))
        weights = _weights(l, p, P, mean, delta)
        if not np.isfinite(delta) or np.any(weights < 0):
            message = "Theorem 11 needs (24) I/delta > var_P(l) and (23) all q_i >= 0"
            return problem.failed_result(
                "closed_form", "conditions_not_met", message, time.perf_counter() - start
            )
        posterior[order] = weights
        size = l.size
    else:
        weights, size = _algorithm2(l, p, c2)
        posterior[order[:size]] = weights
    return problem.result_from_posterior(
        np.clip(posterior, 0.0, None),
        method="closed_form",
        status="optimal",
        seconds=time.perf_counter() - start,
        iterations=size,
        message=f"{rule}: support of the {size} smallest risks",
    )
