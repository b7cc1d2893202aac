"""``method="cvx"``: the linear-distance chi-squared bound (eq. 8) as an SOCP in CVXPY.

``min_q  l^T q + c * sqrt(sum_i q_i^2 / p_i)``,  ``c = sqrt(I_lin / delta)``,
over the simplex. With ``t >= ||q / sqrt(p)||_2`` (a second-order cone) the
objective ``l^T q + c t`` is linear. Risks, ``1/sqrt(p)`` and ``c`` are CVXPY
Parameters (DPP), so re-solving for new risks or delta reuses the compiled problem.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import ExitStack, contextmanager
from functools import lru_cache

import cvxpy as cp
import numpy as np

from cvxpb.engine.conic import SOLVERS, solve_program
from cvxpb.engine.methods.method import refuse
from cvxpb.validation import check_choice

DPP_MAX = 2000  # classifiers up to which the program keeps its data in Parameters
KEPT_SIZES = 16  # sizes whose compiled programs are kept for the next solve


def build(size: int, data=None):
    """Build the SOCP for ``size`` classifiers with positive prior, in ``z = q / sqrt(p)``.

    ``sqrt(sum q^2/p) = ||z||_2``, ``sum q = sqrt(p) @ z``, ``l @ q = (l sqrt(p)) @ z``.
    Without ``data`` the vectors ``sqrt(p)``, ``l sqrt(p)`` and the scalar ``c`` are
    CVXPY Parameters, so the program is DPP and new data need no recompiling. CVXPY's
    map from a vector Parameter to the problem data takes memory quadratic in its
    length (2 GB at 8000 classifiers, 13 GiB at 3 * 10^4), so beyond ``DPP_MAX``
    classifiers the data go in as constants (H = 10^5: 1 s and 0.3 GB).

    Parameters
    ----------
    size : int
        The classifiers with positive prior.
    data : tuple, optional
        ``(sqrt_prior, scaled_risks, c)`` as constants.

    Returns
    -------
    problem : cvxpy.Problem
        The SOCP.
    parameters : dict
        Its Parameters by name (empty with ``data``).
    q : cvxpy.Expression
        The posterior ``sqrt(p) * z``.
    """
    z = cp.Variable(size, nonneg=True, name="z")
    t = cp.Variable(name="t")
    if data is None:
        sqrt_prior = cp.Parameter(size, nonneg=True, name="sqrt_prior")
        scaled_risks = cp.Parameter(size, name="scaled_risks")  # l_i sqrt(p_i)
        c = cp.Parameter(nonneg=True, name="c")
        parameters = {"sqrt_prior": sqrt_prior, "scaled_risks": scaled_risks, "c": c}
    else:
        (sqrt_prior, scaled_risks, c), parameters = data, {}
    constraints = [
        sqrt_prior @ z == 1,  # sum q = 1
        cp.norm(z, 2) <= t,  # sqrt(sum q^2/p) <= t   (second-order cone)
    ]
    problem = cp.Problem(cp.Minimize(scaled_risks @ z + c * t), constraints)
    return problem, parameters, cp.multiply(sqrt_prior, z)


class _Programs:
    """Compiled DPP programs by size, each lent to one solve at a time.

    A program's Parameters hold one problem's data from assignment until its solution
    is read, so two threads sharing one program read each other's data (16 solves in 4
    threads: 3 wrong posteriors labelled optimal). A solve borrows a program that no
    other holds, built where every kept one is lent, and gives it back; the programs of
    the last ``KEPT_SIZES`` sizes are kept.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._free = OrderedDict()  # size -> programs no solve holds

    def kept(self, size: int) -> list:
        """The programs of ``size`` classifiers no solve holds now, as built."""
        with self._lock:
            return list(self._free.get(size, []))

    @contextmanager
    def lent(self, size: int):
        with self._lock:
            free = self._free.get(size)
            program = free.pop() if free else None
        if program is None:
            program = build(size)
        try:
            yield program
        finally:
            with self._lock:
                self._free.setdefault(size, []).append(program)
                self._free.move_to_end(size)
                while len(self._free) > KEPT_SIZES:
                    self._free.popitem(last=False)


_PROGRAMS = _Programs()


def _support(problem):
    return np.flatnonzero(problem.prior > 0)


def _data(problem, support):
    c2, r = cone(problem, support)  # q = sqrt(r) z
    sqrt_r = np.sqrt(r)
    return sqrt_r, problem.risks[support] * sqrt_r, float(np.sqrt(c2))


@contextmanager
def _program(problem, support, cached: bool = True):
    """``(program, q)`` with ``problem``'s data, held by this caller alone until the
    block ends: in the Parameters of a (kept) DPP program up to ``DPP_MAX``
    classifiers, as constants beyond."""
    data = _data(problem, support)
    if support.size > DPP_MAX:
        program, _, q = build(support.size, data)
        yield program, q
        return
    with _PROGRAMS.lent(support.size) if cached else _fresh(support.size) as built:
        program, params, q = built
        for parameter, value in zip(params.values(), data, strict=True):
            parameter.value = value
        yield program, q


@contextmanager
def _fresh(size: int):
    yield build(size)


def solver_options(solver, verbose: bool) -> dict:
    """The command line's ``--solver`` and ``--verbose`` as :func:`solve` takes them.

    Parameters
    ----------
    solver : str or None
        The conic solver, or None for the default.
    verbose : bool
        Whether to print the solver's log.

    Returns
    -------
    dict
        Keyword arguments of :func:`solve`.
    """
    return {"verbose": verbose} if solver is None else {"solver": solver, "verbose": verbose}


STATUSES = (  # the statuses it returns: CVXPY's where it gives no solution
    "optimal",
    "optimal_inaccurate",
    "infeasible",
    "infeasible_inaccurate",
    "unbounded",
    "unbounded_inaccurate",
    "infeasible_or_unbounded",
    "user_limit",
    "solver_error",
    "solver_failed",
)


def cone(problem, support=None):
    """The divergence's cone on the positive-prior classifiers (or on ``support``).

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    support : array_like of int, optional
        The classifiers, all with positive prior; those with positive prior by default.

    Returns
    -------
    tuple of (float, ndarray) or None
        ``(c2, r)``: the change of measure is ``sqrt(c2 sum_i q_i^2 / r_i)``
        (:meth:`cvxpb.Divergence.cone`; chi-squared: ``c2 = I/delta``, ``r = p``).
    """
    support = _support(problem) if support is None else support
    return problem.divergence_function.cone(problem.bound_function, problem.prior[support])


def formulation(problem) -> cp.Problem:
    """A fresh CVXPY Problem with ``problem``'s data in its Parameters.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).

    Returns
    -------
    cvxpb.engine.formulation.Formulation
        The SOCP (not cached, so the caller may change it); its ``bound()`` after a
        solve is the bound at its posterior ``sqrt(p) z``.
    """
    from cvxpb.engine.formulation import Formulation

    refuse(problem, "cvx")
    with _program(problem, _support(problem), cached=False) as (program, q):
        return Formulation(program, problem, q, problem.prior > 0)


def check_solver_options(solver: str, options: dict) -> None:
    """Raise if ``solver`` refuses ``options``, before any work.

    The options are tried on a one-classifier program first (microseconds), so a
    misspelt or out-of-range setting is reported naming it.

    Parameters
    ----------
    solver : str
        The conic solver.
    options : dict
        Its settings.

    Raises
    ------
    ValueError
        Naming the options and the solver's words.
    """
    if options:
        _probe(solver, tuple(sorted(options.items(), key=lambda item: item[0])))


@lru_cache(maxsize=64)
def _probe(solver: str, items: tuple) -> None:
    options = dict(items)
    program, params, _ = build(1)
    params["scaled_risks"].value, params["sqrt_prior"].value = np.zeros(1), np.ones(1)
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
    """Solve the SOCP with a conic solver.

    ``optimal_inaccurate`` is reported as that status, with a posterior and a valid
    bound, and counted as success only with ``accept_inaccurate=True``.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    solver : {"CLARABEL", "ECOS", "SCS"}, default="CLARABEL"
        The solver.
    accept_inaccurate : bool, default=False
        Report ``optimal_inaccurate`` as ``optimal``.
    verbose : bool, default=False
        Print CVXPY's and the solver's log.
    **solver_options
        The solver's own settings.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        ``objective`` keeps the solver's value apart.
    """
    refuse(problem, "cvx")
    check_choice(solver, "solver", SOLVERS)
    check_solver_options(solver, solver_options)
    start = time.perf_counter()
    support = _support(problem)
    with ExitStack() as held:
        try:
            program, q = held.enter_context(_program(problem, support))
        except Exception as err:  # noqa: BLE001 - building the program can exhaust memory
            message = f"{solver}: {type(err).__name__}: {err}"
            seconds = time.perf_counter() - start
            return problem.failed_result("cvx", "solver_failed", message, seconds, solver=solver)
        outcome = solve_program(program, (solver,), True, {solver: solver_options}, verbose)
        return _solved(problem, support, program, q, outcome, solver, start, accept_inaccurate)


def _solved(problem, support, program, q, outcome, solver, start, accept_inaccurate):
    """The Result of ``program`` (with ``problem``'s data) as ``solver`` left it."""
    seconds = time.perf_counter() - start
    if not outcome.solved or q.value is None:
        message = outcome.message or f"{solver} returned no solution"
        return problem.failed_result("cvx", outcome.status, message, seconds, solver=solver)
    iterations = int(getattr(program.solver_stats, "num_iters", 0) or 0)
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
