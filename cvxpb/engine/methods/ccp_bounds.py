"""``method="ccp"``: the bounds as difference-of-convex programs for
:mod:`cvxpb.engine.methods.ccp`.

The divergence gives its change of measure ``rhs(q)`` as a convex CVXPY expression
(``right_side_expr``): ``c ||q / sqrt(p)||_2``, ``c = sqrt(I/delta)``, for chi2;
``(K(q) + ln(xi(m)/delta)) / m`` (kl distance) or ``/ (2m)`` (sq) for KL. The
distance's ``inverse_form`` picks the program:

* ``"root"`` (squared distance): ``L + sqrt(s)``, ``s >= rhs(q)``; the concave
  ``sqrt(s)`` is linearized (an SOCP each time for chi2; McAllester's bound for KL).
* ``"kl"``: the bound is the smallest ``r >= L`` with ``kl(L, r) >= rhs(q)``, since
  ``kl(L, .)`` increases on ``[L, 1]``: ``min r  s.t.  rhs(q) - kl(L(q), r) <= 0``.
  The concave ``-kl`` is linearized (Sahu & Hemachandra, eq. 67c). (``min r s.t. kl(L, r) <= eps``,
  the other half of the paper's equality, is solved by ``r = L`` and bounds nothing.)
  Its tangent is taken at ``L`` clipped into ``[1e-12, 1 - 1e-12]``: any tangent of a
  concave function over-estimates it, and none is taken where ``d kl / dL`` is
  infinite, so all-zero risks (separable data) need no special case.
* ``"sum"`` (linear distance): ``L + rhs(q)``, convex, one iteration.

Only the classifiers with positive prior mass are variables.

Each iteration solves a conic program in those variables (exponential cones for KL), so
CCP is the local baseline of the papers' comparisons, not the method for large sets:
beyond a few thousand classifiers the conic solvers lose accuracy on its programs and
end them inaccurate or failed, where ``method="exact"`` certifies the same bound in
milliseconds (``python -m benchmarks.bench_ccp_scale`` measures both: its table gives
each size's seconds per CCP iteration, status and gap to the exact optimum). SCS, the
last solver tried, stops after 5000 iterations of its own.
"""

from __future__ import annotations

import time
from inspect import Parameter, signature

import cvxpy as cp
import numpy as np

from cvxpb.engine.methods import ccp
from cvxpb.engine.methods.method import refuse
from cvxpb.numerics.kl import kl
from cvxpb.validation import check_choice

CLIP = 1e-12
# Bounds can be ~1e-3, where the solvers' default absolute gap tolerance (~1e-8) is
# already 1e-5 relative: ask for a 1e-10 relative gap instead (feasibility as default).
TIGHT = {
    "CLARABEL": {"tol_gap_abs": 1e-14, "tol_gap_rel": 1e-10},
    "ECOS": {"abstol": 1e-14, "reltol": 1e-10},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 5000},
}


STATUSES = ccp.STATUSES  # the driver's


def _right_side(problem, q=None):
    """The divergence's change of measure as a CVXPY expression of ``q`` on the
    positive-prior classifiers (a fresh variable if None), or None."""
    p = problem.prior[problem.prior > 0]
    q = cp.Variable(p.size, nonneg=True) if q is None else q
    return problem.divergence_function.right_side_expr(problem.bound_function, q, p)


def _kl_tangent(q, r, risks):
    """The concave ``-kl(risks @ q, r)``, linearized at a clipped nearby point."""

    def linearize(point):
        L0 = float(np.clip(risks @ point[q], CLIP, 1 - CLIP))
        r0 = float(np.clip(point[r], L0 + CLIP, 1 - CLIP)) if L0 + CLIP < 1 - CLIP else L0
        d_L = np.log(L0 / r0) - np.log((1 - L0) / (1 - r0))
        d_r = (r0 - L0) / (r0 * (1 - r0))
        constant = -float(kl(L0, r0)) + d_L * L0 + d_r * r0
        return constant, {q: -d_L * risks, r: np.array(-d_r)}

    return ccp.ConcavePart(linearize=linearize)


def formulate(problem):
    """State ``problem``'s bound as a difference-of-convex program.

    With ``rhs(q)`` the divergence's change of measure (``right_side_expr``, convex):
    ``min L + rhs`` (inverse ``"sum"``, convex), ``min L + sqrt(s)  s.t.  s >= rhs``
    (``"root"``; the concave ``sqrt(s)`` is linearized) or
    ``min r  s.t.  rhs - kl(L, r) <= 0`` (``"kl"``; the concave ``-kl`` is linearized).

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The problem; the program is on its positive-prior classifiers.

    Returns
    -------
    program : DCProblem
        The program for :func:`cvxpb.engine.methods.ccp.solve`.
    q : cvxpy.Variable
        The posterior on the positive-prior classifiers.
    other : cvxpy.Variable or None
        The epigraph variable: ``s`` (sq distance), ``r`` (kl distance) or None (linear).
    """
    support = problem.prior > 0
    p, risks = problem.prior[support], problem.risks[support]
    q = cp.Variable(p.size, nonneg=True, name="q")
    L = risks @ q
    simplex = [cp.sum(q) == 1]
    rhs = _right_side(problem, q)
    form = problem.distance_function.inverse_form
    if form == "sum":
        return ccp.DCProblem(ccp.DCFunction(L + rhs), (), simplex), q, None
    if form == "root":
        s = cp.Variable(nonneg=True, name="s")
        objective = ccp.DCFunction(L, ccp.ConcavePart(expr=cp.sqrt(s)))
        return ccp.DCProblem(objective, (), [*simplex, s >= rhs]), q, s
    r = cp.Variable(name="r")
    constraint = ccp.DCFunction(rhs, _kl_tangent(q, r, risks))
    extra = [r >= L, r <= 1]
    return ccp.DCProblem(ccp.DCFunction(r), (constraint,), [*simplex, *extra]), q, r


def start_point(problem, q, other, q0):
    """A feasible start: ``q0`` and the matching ``s`` or ``r`` (the bound at ``q0``).

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    q : cvxpy.Variable
        The posterior variable of :func:`formulate`.
    other : cvxpy.Variable or None
        Its epigraph variable.
    q0 : ndarray
        The start's posterior on the positive-prior classifiers.

    Returns
    -------
    dict
        ``{variable: value}`` for the CCP driver.
    """
    point = {q: q0}
    if other is None:
        return point
    if problem.distance_function.inverse_form == "root":  # s = rhs = (bound - L)^2
        L, div = problem.terms(_full(problem, q0))
        point[other] = np.array((problem.bound_function(L, div) - L) ** 2)
    else:
        point[other] = np.array(problem.evaluate(_full(problem, q0)))
    return point


def formulation(problem, at=None):
    """The DCP subproblem the CCP solves at the iterate ``at``.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    at : {"uniform", "prior"} or array_like, optional
        The iterate (a posterior over all classifiers), as :func:`solve`'s ``initial``;
        by default the posterior the CCP ends at (:func:`solve`), a
        fixed point: the subproblem's minimizer is that posterior again.

    Returns
    -------
    cvxpb.engine.formulation.Formulation
        :func:`formulate`'s program with its concave parts linearized at ``at``
        (:func:`cvxpb.engine.methods.ccp.subproblem`); its variable ``q`` is the next
        iterate on the positive-prior classifiers, and ``bound()`` the bound there.
    """
    from cvxpb.engine.formulation import Formulation

    refuse(problem, "ccp")
    if at is None:
        at = solve(problem).posterior
    dc, q, other = formulate(problem)
    program = ccp.subproblem(dc, start_point(problem, q, other, _initial_q(problem, at)))
    return Formulation(program, problem, q, problem.prior > 0)


def _full(problem, q_support):
    q = np.zeros(problem.H)
    q[problem.prior > 0] = np.clip(q_support, 0.0, None)
    return q / q.sum()


def _initial_q(problem, initial):
    p = problem.prior[problem.prior > 0]
    if isinstance(initial, str):
        if initial == "uniform":
            return np.full(p.size, 1.0 / p.size)
        if initial == "prior":
            return p / p.sum()
        raise ValueError(f'initial must be "uniform", "prior" or an array, got {initial!r}')
    q0 = np.asarray(initial, dtype=float)
    if q0.shape != (problem.H,):
        raise ValueError(f"initial must have length {problem.H}, got {q0.shape}")
    return problem.project(q0)[problem.prior > 0]


def solver_options(solver, verbose: bool) -> dict:
    """The command line's ``--solver`` and ``--verbose`` as :func:`solve` takes them.

    Parameters
    ----------
    solver : str or None
        The one conic solver the CCP driver tries, or None for its default order.
    verbose : bool
        Whether to print the solver's log.

    Returns
    -------
    dict
        Keyword arguments of :func:`solve`.
    """
    from cvxpb.engine.conic import SOLVERS

    options = {"verbose": verbose}
    if solver is not None:
        options["solvers"] = (check_choice(solver, "solver", SOLVERS),)
    return options


def further_options() -> set:
    """The CCP driver's options, which :func:`solve` hands on.

    Returns
    -------
    set of str
        The keyword names of :func:`cvxpb.engine.methods.ccp.solve` but the problem and starts.
    """
    kinds = (Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY)
    names = {n for n, p in signature(ccp.solve).parameters.items() if p.kind in kinds}
    return names - {"problem", "initial", "sampler"}


def solve(problem, initial="uniform", n_starts: int = 1, random_state=None, **options):
    """Minimize the bound by CCP from ``initial``.

    Every start is feasible (``r`` or ``s`` is set from the bound at ``q``), so the plain
    CCP, which then decreases the bound monotonically, is the default
    (``penalty=False``), with a 1e-10 relative duality gap for the subproblem solvers
    (``TIGHT``) and ``tol=1e-10``. ``optimal_inaccurate`` subproblems are accepted (and
    flagged in the history): the bound is re-evaluated exactly at every iterate and the
    best kept, so an inaccurate subproblem cannot make the reported bound invalid.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    initial : {"uniform", "prior"} or array_like, default="uniform"
        The first start.
    n_starts : int, default=1
        Starts in all; the further ones are Dirichlet(1) draws.
    random_state : int, Generator or None, default=None
        Seeds the further starts.
    **options
        Options of :func:`cvxpb.engine.methods.ccp.solve`.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        Status ``"converged"`` at a stationary point (not proven global), or the driver's
        reason to stop.
    """
    options.setdefault("penalty", False)
    options.setdefault("solver_options", TIGHT)
    options.setdefault("tol", 1e-10)
    options.setdefault("accept_inaccurate", True)
    refuse(problem, "ccp")
    start = time.perf_counter()
    dc, q, other = formulate(problem)
    first = start_point(problem, q, other, _initial_q(problem, initial))

    def dirichlet(rng):
        return start_point(problem, q, other, rng.dirichlet(np.ones(q.shape[0])))

    result = ccp.solve(
        dc,
        initial=first,
        sampler=dirichlet,
        n_starts=n_starts,
        random_state=random_state,
        **options,
    )
    seconds = time.perf_counter() - start
    if result.point is None:
        return problem.failed_result(
            "ccp",
            result.status,
            result.message or "no feasible iterate",
            seconds,
            iterations=result.iterations,
        )
    return problem.result_from_posterior(
        _full(problem, result.point[q]),
        method="ccp",
        status=result.status,
        seconds=seconds,
        iterations=result.iterations,
        message=result.message or f"CCP {result.status}",
        objective=float(result.objective),
    )
