"""One bound's account as a convex program: each term as CVXPY sees it.

Curvatures and DCP verdicts are asked of CVXPY, and the cones are read off the
problem data CVXPY hands to Clarabel, so the text cannot drift from the code.
"""

from __future__ import annotations

import cvxpy as cp

from cvxpb.engine.methods import METHODS


def _terms(problem, q):
    """The named CVXPY expressions of the bound's ingredients: the Gibbs risk, and the
    divergence's own (:meth:`cvxpb.pac_bayes.divergences.Divergence.teaching_terms`)."""
    terms = {"L(q) = sum_i q_i l_i": cp.Constant(problem.risks) @ q}
    terms.update(problem.divergence_function.teaching_terms(q, problem.prior))
    return terms


def _objective(problem, terms):
    """The bound (or its constraint) written with CVXPY atoms, DCP or not (the constants
    do not change curvature, so they are left at 1): the distance's teaching form."""
    L, second = list(terms.values())[:2]
    return problem.distance_function.teaching_form(L, second, cp.Variable(name="r"))


def _cones(problem: cp.Problem, constraints=()) -> str:
    """The cones of ``problem`` (with ``constraints`` added where it has none of its
    own: the simplex of a bound written as an objective alone)."""
    if constraints and not problem.constraints:
        problem = cp.Problem(problem.objective, list(constraints))
    dims = problem.get_problem_data(cp.CLARABEL)[0]["dims"]
    parts = [f"zero {dims.zero}", f"nonneg {dims.nonneg}"]
    if dims.soc:
        parts.append(f"second-order {len(dims.soc)} (sizes {dims.soc})")
    if dims.exp:
        parts.append(f"exponential {dims.exp}")
    return ", ".join(parts)


def _simplex(q):
    return [cp.sum(q) == 1]


def explain(problem) -> str:
    """Give a readable account of ``problem`` as a convex program.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The data of one bound (a declaration's standard form).

    Returns
    -------
    str
        Its terms, their curvature, the DCP verdict and the cones; for a user's distance
        or divergence, the declared engine's account.
    """
    formula = problem.divergence_function.formula(problem.distance_function)
    if formula is None:  # a user's distance or divergence: the declared engine's account
        return "\n".join(
            [
                repr(problem),
                "",
                "bound: as declared (the distance or divergence states no formula of its own "
                "as a convex program; the terms above are the declared engine's)",
            ]
        )
    q = cp.Variable(problem.H, nonneg=True, name="q")
    terms = _terms(problem, q)
    program, not_dcp = formula
    lines = [repr(problem), "", "bound: " + program]
    measure = problem.divergence_function
    if measure.uses_constant:  # Theorem 1's I_phi(m, alpha'), alpha' = alpha / (alpha - 1)
        order = measure.alpha / (measure.alpha - 1) if measure.alpha else 2
        lines.append(
            f"  I_{problem.distance}(m={problem.m}, {order:g}) = "
            f"{problem.bound_function.constant:.6g} (constants={problem.constants!r})"
        )
    width = max(34, max(len(name) for name in terms) + 1)
    lines += ["", f"{'term':{width}} {'curvature':10} CVXPY expression"]
    for name, expr in terms.items():
        lines.append(f"{name:{width}} {expr.curvature:10} {_short(expr)}")
    body = _objective(problem, terms)
    lines.append(f"{'bound (or its constraint)':{width}} {body.curvature:10} {_short(body)}")
    lines.append("")
    if not_dcp is not None:
        lines.append(f"DCP: no -- {not_dcp}.")
        lines += _ccp_lines(problem)
    else:  # the SOCP that method="cvx" solves, where it applies; else the bound as written
        solved = METHODS["cvx"].data_refusal(problem) is None
        program = METHODS["cvx"].formulate_one(problem) if solved else cp.Problem(cp.Minimize(body))
        lines.append(
            f"DCP: {'yes' if program.is_dcp() else 'no'}; "
            f"DPP: {'yes' if program.is_dcp(dpp=True) else 'no'}; "
            f"cones: {_cones(program, _simplex(q))}"
        )
    if METHODS["exact"].data_refusal(problem) is None:
        lines += _family_lines(problem)
    return "\n".join(lines)


def _ccp_lines(problem):
    """How method="ccp" still solves DCP programs: its subproblem at an iterate."""
    if METHODS["ccp"].data_refusal(problem) is not None:
        return []
    subproblem = METHODS["ccp"].formulate_one(problem, at="uniform")
    return [
        'method="ccp" solves DCP subproblems, the concave part linearized at each iterate '
        '(formulation("ccp", at=...)); at the uniform posterior: '
        f"DCP: {'yes' if subproblem.is_dcp() else 'no'}; cones: {_cones(subproblem)}"
    ]


def _family_lines(problem):
    """Why method="exact" is global: the family's program is DCP (the one
    ``formulation("exact", mu=...)`` gives)."""
    subproblem = METHODS["exact"].formulate_one(problem, mu=1.0)
    name = problem.divergence_function.symbol
    return [
        "",
        f"every optimal q also solves  min_q L(q) + mu {name}  for some mu > 0 "
        "(the bound increases in both, so an optimum is Pareto-optimal):",
        f"  DCP: {'yes' if subproblem.is_dcp() else 'no'}; cones: {_cones(subproblem)}",
        '  method="exact" searches mu (its closed-form solution family) by branch and bound.',
    ]


def _short(expr, width=60) -> str:
    text = str(expr).replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."
