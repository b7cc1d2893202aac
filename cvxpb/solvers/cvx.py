"""``method="cvx"``: the linear-distance chi-squared bound (eq. 8) as an SOCP in CVXPY.

``min_q  l^T q + c * sqrt(sum_i q_i^2 / p_i)``,  ``c = sqrt(I_lin / delta)``,
over the simplex. With ``t >= ||q / sqrt(p)||_2`` (a second-order cone) the
objective ``l^T q + c t`` is linear. Risks, ``1/sqrt(p)`` and ``c`` are CVXPY
Parameters (DPP), so re-solving for new risks or delta reuses the compiled problem.
"""

from __future__ import annotations

import time
from functools import lru_cache

import cvxpy as cp
import numpy as np

from cvxpb.validation import check_choice

SOLVERS = ("CLARABEL", "ECOS", "SCS")
ACCEPTED = ("optimal", "optimal_inaccurate")


def build(size: int):
    """The parametrized SOCP for ``size`` classifiers with positive prior."""
    q = cp.Variable(size, nonneg=True, name="q")
    t = cp.Variable(name="t")
    risks = cp.Parameter(size, name="risks")
    inv_sqrt_prior = cp.Parameter(size, nonneg=True, name="inv_sqrt_prior")
    c = cp.Parameter(nonneg=True, name="c")
    constraints = [
        cp.sum(q) == 1,
        # sqrt(sum q^2/p) <= t  <=>  ||q / sqrt(p)||_2 <= t   (second-order cone)
        cp.norm(cp.multiply(inv_sqrt_prior, q), 2) <= t,
    ]
    problem = cp.Problem(cp.Minimize(risks @ q + c * t), constraints)
    return problem, {"risks": risks, "inv_sqrt_prior": inv_sqrt_prior, "c": c}, q


_cached_build = lru_cache(maxsize=16)(build)


def _support(problem):
    return np.flatnonzero(problem.prior > 0)


def _set_parameters(params, problem, support):
    params["risks"].value = problem.risks[support]
    params["inv_sqrt_prior"].value = 1 / np.sqrt(problem.prior[support])
    params["c"].value = np.sqrt(problem.bound_function.constant / problem.delta)


def supports(problem) -> bool:
    """Whether ``problem`` is the linear-distance chi2 bound (eq. 8), a convex SOCP."""
    return problem.distance == "linear" and problem.divergence == "chi2"


def check_linear_chi2(problem, method: str = "cvx"):
    """ValueError unless ``problem`` is the linear-distance chi2 bound (eq. 8)."""
    if not supports(problem):
        raise ValueError(
            f'method="{method}" solves distance="linear" with divergence="chi2" (eq. 8); '
            f"got distance={problem.distance!r}, divergence={problem.divergence!r}: "
            'use method="exact"'
        )


def formulation(problem) -> cp.Problem:
    """A fresh CVXPY Problem with ``problem``'s data in its Parameters."""
    check_linear_chi2(problem)
    support = _support(problem)
    program, params, _ = build(support.size)
    _set_parameters(params, problem, support)
    return program


def check_solver_options(solver: str, options: dict) -> None:
    """ValueError if ``solver`` refuses ``options``: they are tried on a one-classifier
    program first (microseconds), so a misspelt or out-of-range setting is reported
    before any work, naming it."""
    if options:
        _probe(solver, tuple(sorted(options.items(), key=lambda item: item[0])))


@lru_cache(maxsize=64)
def _probe(solver: str, items: tuple) -> None:
    options = dict(items)
    program, params, _ = build(1)
    params["risks"].value, params["inv_sqrt_prior"].value = np.zeros(1), np.ones(1)
    params["c"].value = 1.0
    try:
        program.solve(solver=solver, **options)
    except (TypeError, ValueError) as err:
        raise ValueError(f"solver option(s) {sorted(options)} refused by {solver}: {err}") from None
    except cp.error.SolverError:
        pass  # the options were taken; a failure of this probe says nothing of the real one


def solve(
    problem,
    solver: str = "CLARABEL",
    accept_inaccurate: bool = False,
    verbose: bool = False,
    **solver_options,
):
    """Solve the SOCP with ``solver`` (CLARABEL, ECOS or SCS); ``verbose`` prints
    CVXPY's and the solver's log, and ``solver_options`` go to the solver.

    ``optimal_inaccurate`` is reported as that status, with a posterior and a valid
    bound, and counted as success only with ``accept_inaccurate=True``.
    """
    check_linear_chi2(problem)
    check_choice(solver, "solver", SOLVERS)
    check_solver_options(solver, solver_options)
    start = time.perf_counter()
    support = _support(problem)
    try:
        program, params, q = _cached_build(support.size)
        _set_parameters(params, problem, support)
        program.solve(solver=solver, verbose=verbose, **solver_options)
    except Exception as err:  # noqa: BLE001 - any failure of the solver is a status
        message = f"{solver}: {type(err).__name__}: {err}"
        return problem.failed_result(
            "cvx", "solver_failed", message, time.perf_counter() - start, solver=solver
        )
    seconds = time.perf_counter() - start
    iterations = int(getattr(program.solver_stats, "num_iters", 0) or 0)
    if program.status not in ACCEPTED or q.value is None:
        return problem.failed_result(
            "cvx",
            program.status,
            f"{solver} returned status {program.status!r}",
            seconds,
            solver=solver,
        )
    posterior = np.zeros(problem.H)
    posterior[support] = np.clip(q.value, 0.0, None)
    status = "optimal" if program.status == "optimal" or accept_inaccurate else program.status
    return problem.result_from_posterior(
        posterior / posterior.sum(),
        method="cvx",
        status=status,
        seconds=seconds,
        iterations=iterations,
        message=f"{solver}: {program.status}",
        solver=solver,
        objective=float(program.value),
    )
