"""``method="declared"``: the bound as a declaration, solved by the general engine.

:meth:`cvxpb.BoundProblem.declaration` states the problem's bound with the atoms of
:mod:`cvxpb.engine.declare` (the :class:`cvxpb.pac_bayes.bounds.Bound` of the Gibbs risk and the
divergence), and :class:`cvxpb.Minimize` solves it by the Pareto branch and bound of
:mod:`cvxpb.engine.declare.pareto`. ``method="exact"`` is the same search specialized to the
closed-form families of these bounds; this route is the one every declared bound
takes, so the two checking each other checks the engine.
"""

from __future__ import annotations

import time

from cvxpb.engine.result import Certificate

CERTIFIES = True  # a proven lower bound on the minimum


def solve(problem, tol: float = 1e-7, max_solves: int = 300):
    """Globally minimize ``problem``'s bound through its declaration.

    ``status`` is ``"optimal"`` when the reported bound (re-evaluated from the
    posterior, rounded outward) is within ``tol`` of the proven lower bound, else
    ``"optimal_inaccurate"``.

    Parameters
    ----------
    problem : BoundProblem
        The problem.
    tol : float, default=1e-7
        The certified gap at which the search stops.
    max_solves : int, default=300
        The scalarized programs at most.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
        With a certificate whose parameter is ``"mu"``.
    """
    from cvxpb.engine.declare import Minimize  # whose solve checks tol and max_solves first

    start = time.perf_counter()
    solved = Minimize(problem.declaration()).solve(tol=tol, max_solves=max_solves)
    result = problem.result_from_posterior(
        solved.posterior,
        method="declared",
        status="optimal",
        seconds=time.perf_counter() - start,
        iterations=solved.iterations,
    )
    lower = min(solved.certificate.lower_bound, 1.0)  # the reported bound is clipped at 1
    gap = result.bound - lower
    return problem.replace_result(
        result,
        status="optimal" if gap <= tol else "optimal_inaccurate",
        certificate=Certificate("mu", solved.certificate.value, None, lower, gap),
        message=f"Pareto search: {solved.iterations} programs, certified gap {gap:.3g}",
    )
