"""``method="nlp"``: a generic nonlinear solver on the full simplex (the role Ipopt played
in Sahu & Hemachandra), with its failures reported as statuses as in their Table 6.

``minimize g(L(q), div(q))  s.t.  sum q = 1, 0 <= q <= 1`` by scipy's SLSQP or
trust-constr from a uniform start, with the gradient ``g_L l + g_div grad div``.
Sahu & Hemachandra's codes: M (maximum iterations) is ``max_iter``; I (locally infeasible) is
``infeasible``; R (restoration failed) and line-search failures are ``linesearch_failed``;
E (unknown error) is ``solver_failed``.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, minimize

from cvxpb.validation import check_choice, check_count, check_positive

SOLVERS = ("SLSQP", "trust-constr")
SLSQP_STATUS = {
    0: "converged",
    2: "infeasible",
    3: "max_iter",
    4: "infeasible",
    5: "solver_failed",
    6: "solver_failed",
    7: "solver_failed",
    8: "linesearch_failed",
    9: "max_iter",
}
TRUST_STATUS = {0: "max_iter", 1: "converged", 2: "converged", 3: "stopped"}
STATUSES = tuple(sorted({*SLSQP_STATUS.values(), *TRUST_STATUS.values(), "time_limit"}))


def _objective(problem, support):
    def full(z):
        q = np.zeros(problem.H)
        q[support] = z
        return q

    def f(z):
        return float(problem.bound_function(*problem.raw_terms(full(z))))

    def grad(z):
        return problem.gradient(full(z))[support]

    return f, grad


def _deadline(max_seconds):
    """A callback that stops the solver (StopIteration) once ``max_seconds`` have passed."""
    if max_seconds is None:
        return None
    end = time.perf_counter() + max_seconds

    def callback(*_):
        if time.perf_counter() > end:
            raise StopIteration

    return callback


def _minimize(f, grad, z0, solver, max_iter, tol, max_seconds, verbose=False):
    n, callback = z0.size, _deadline(max_seconds)
    if solver == "SLSQP":
        constraint = {"type": "eq", "fun": lambda z: z.sum() - 1, "jac": lambda z: np.ones(n)}
        res = minimize(
            f,
            z0,
            jac=grad,
            method="SLSQP",
            bounds=[(0, 1)] * n,
            constraints=[constraint],
            options={"maxiter": max_iter, "ftol": tol, "disp": verbose},
            callback=callback,
        )
        table = SLSQP_STATUS
    else:
        res = minimize(
            f,
            z0,
            jac=grad,
            method="trust-constr",
            bounds=Bounds(0, 1),
            constraints=[LinearConstraint(np.ones((1, n)), 1, 1)],
            options={"maxiter": max_iter, "gtol": tol, "xtol": tol, "verbose": 2 * verbose},
            callback=callback,
        )
        table = TRUST_STATUS
    return res, "time_limit" if res.status == 99 else table.get(res.status, "solver_failed")


def solver_options(solver, verbose: bool) -> dict:
    """The command line's ``--solver`` and ``--verbose`` as :func:`solve` takes them.

    Parameters
    ----------
    solver : str or None
        The method of scipy ("SLSQP" or "trust-constr"), or None for the default.
    verbose : bool
        Whether to print the solver's log.

    Returns
    -------
    dict
        Keyword arguments of :func:`solve`.
    """
    return {"verbose": verbose} if solver is None else {"solver": solver, "verbose": verbose}


def solve(
    problem,
    solver: str = "SLSQP",
    initial="uniform",
    max_iter: int = 500,
    tol: float = 1e-12,
    max_seconds: float | None = None,
    verbose: bool = False,
):
    """Minimize the bound with scipy's ``solver`` from ``initial``.

    SLSQP's dense subproblem costs O(H^3) an iteration (about two minutes in all at
    H = 1990); ``max_seconds`` stops it with status ``time_limit`` and its last iterate.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    solver : {"SLSQP", "trust-constr"}, default="SLSQP"
        The method of scipy.
    initial : {"uniform", "prior"}, default="uniform"
        The start.
    max_iter : int, default=500
        Iterations at most.
    tol : float, default=1e-12
        The tolerance of scipy.
    max_seconds : float, optional
        Wall-clock limit.
    verbose : bool, default=False
        Print scipy's log.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        Status ``"converged"`` at the solver's stopping rule (a stationary point at best),
        else the solver's reason (``"max_iter"``, ``"infeasible"``, ``"time_limit"``,
        ``"solver_failed"``, ...), as in Sahu & Hemachandra's Table 6.
    """
    check_choice(solver, "solver", SOLVERS)
    check_choice(initial, "initial", ("uniform", "prior"))
    check_count(max_iter, "max_iter")
    check_positive(tol, "tol")
    check_positive(max_seconds, "max_seconds", allow_none=True)
    start = time.perf_counter()
    support = np.flatnonzero(problem.prior > 0)
    z0 = (
        np.full(support.size, 1 / support.size)
        if initial == "uniform"
        else problem.prior[support] / problem.prior[support].sum()
    )
    f, grad = _objective(problem, support)
    try:
        with np.errstate(all="ignore"):
            res, status = _minimize(f, grad, z0, solver, max_iter, tol, max_seconds, verbose)
    except Exception as err:  # noqa: BLE001 - any failure of the solver is a status
        return problem.failed_result(
            "nlp",
            "solver_failed",
            f"{solver}: {type(err).__name__}: {err}",
            time.perf_counter() - start,
            solver=solver,
        )
    seconds = time.perf_counter() - start
    z = np.clip(res.x, 0.0, None)
    if not np.all(np.isfinite(z)) or z.sum() <= 0:
        return problem.failed_result(
            "nlp", "solver_failed", f"{solver}: {res.message}", seconds, solver=solver
        )
    posterior = np.zeros(problem.H)
    posterior[support] = z / z.sum()
    return problem.result_from_posterior(
        posterior,
        method="nlp",
        status=status,
        seconds=seconds,
        iterations=int(getattr(res, "nit", 0) or 0),
        message=f"{solver}: {res.message}",
        solver=solver,
        objective=float(res.fun),
    )
