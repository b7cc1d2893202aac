"""``method="declared"``: the general search of the declared engine, for every declaration.

:class:`cvxpb.Minimize` searches its declared bound by the Pareto branch and bound of
:mod:`cvxpb.engine.declare.pareto` (one or two terms), the vertex search of
:mod:`cvxpb.engine.declare.vertices` or the weight search of
:mod:`cvxpb.engine.declare.local` (more), :func:`cvxpb.BoundProblem`'s declaration as
any other. ``method="exact"`` is the same search specialized to the closed-form families
of one bound, so the two checking each other checks the engine. The problem reports what
the search found, once (:meth:`cvxpb.Minimize.report_search`; for one bound as its
standard form reports it, :meth:`cvxpb.engine.one_bound.OneBound.report_search`).
"""

from __future__ import annotations

import numpy as np

STATUSES = ("optimal", "optimal_inaccurate", "local")  # the statuses it returns


def solver_options(solver, verbose: bool) -> dict:
    """``solver=`` as :func:`solve` takes it (``verbose`` prints only the closing line).

    Parameters
    ----------
    solver : str or None
        CVXPY's solver for the scalarized programs without a closed form; None for
        Clarabel.
    verbose : bool
        Unused: the search has no solver log of its own.

    Returns
    -------
    dict
        Keyword arguments of :func:`solve`.
    """
    return {} if solver is None else {"solver": solver}


def formulation(problem, weights=None):
    """The scalarized program the general search solves at ``weights`` of the terms.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    weights : sequence of float, optional
        One weight per term of the declaration (:meth:`cvxpb.Minimize.scalarized`); by
        default the bound's slopes in its terms at the posterior ``solve()`` returns
        (:meth:`cvxpb.Minimize.supporting_weights`), where that posterior minimizes
        the program.

    Returns
    -------
    cvxpb.engine.formulation.Formulation
        The program, DCP; ``bound()`` after a solve is the bound at its minimizer.
    """
    from cvxpb.engine.formulation import Formulation

    declared = problem.declared()
    if weights is None:
        weights = declared.supporting_weights(problem.solve(method="declared").posterior)
    program = declared.scalarized(weights)
    q = program.variables()[0]
    return Formulation(program, problem, q, np.ones(q.size, dtype=bool))


def solve(
    problem,
    tol: float = 1e-7,
    max_solves: int = 300,
    solver: str = "CLARABEL",
    tighten: bool = True,
    rtol: float | None = None,
    cutoff: float | None = None,
    kind: str | None = None,
):
    """Globally minimize ``problem``'s declared bound, with a proven lower bound.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    tol : float, default=1e-7
        The absolute gap at which the search stops.
    max_solves : int, default=300
        The scalarized programs at most.
    solver : str, default="CLARABEL"
        CVXPY's solver for the scalarized programs without a closed form.
    tighten : bool, default=True
        Whether a quadratic form's minorant is made tight where a gap remains.
    rtol : float, optional
        The gap relative to the bound, as well as ``tol``.
    cutoff : float, optional
        A value found elsewhere, above which the search stops
        (:meth:`cvxpb.Minimize.search` says more of each).
    kind : {"vertex", "weight"}, optional
        The search asked for; by default the one the declaration's terms call for.

    Returns
    -------
    Result
        The problem's report of the search (:meth:`cvxpb.Minimize.report_search`).
    """
    found = problem.declared().search(tol, max_solves, solver, tighten, rtol, cutoff, kind)
    return problem.report_search(found, tol, rtol)
