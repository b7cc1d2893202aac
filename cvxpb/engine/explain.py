"""``BoundProblem.explain()``: each term of a bound as CVXPY sees it.

Curvatures and DCP verdicts are asked of CVXPY, and the cones are read off the
problem data CVXPY hands to Clarabel, so the text cannot drift from the code.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from cvxpb.pac_bayes.divergences import Chi2, Renyi

FORMULAS = {
    (
        "linear",
        "chi2",
    ): "min_q  L(q) + c sqrt(D(q)),  c = sqrt(I_lin/delta)  (Sahu & Hemachandra, eq. 8)",
    (
        "sq",
        "chi2",
    ): "min_q  L(q) + c^(1/2) D(q)^(1/4),  c = sqrt(I_sq/delta)  (Sahu & Hemachandra, eq. 11)",
    (
        "kl",
        "chi2",
    ): "min_{q,r}  r  s.t.  kl(L(q), r) <= c sqrt(D(q))  (Sahu & Hemachandra, eq. 14)",
    ("kl", "kl"): "min_{q,r}  r  s.t.  kl(L(q), r) <= (K(q) + ln(2 sqrt(m)/delta))/m  (Seeger)",
    ("sq", "kl"): "min_q  L(q) + sqrt((K(q) + ln(2 sqrt(m)/delta))/(2m))  (McAllester)",
    ("linear", "kl"): "min_q min_lam  L(q) + (K(q) + ln(n/delta))/lam + lam/(8m)   (grid of n)",
    ("catoni", "kl"): "min_q min_C  (1 - exp(-C L(q) - (K(q) + ln(n/delta))/m))/(1 - e^-C)",
    ("linear", "renyi"): "min_q  L(q) + c S(q)^(1/alpha),  c = (I_lin/delta)^(1/alpha')  "
    "(Sahu & Hemachandra, Theorem 1)",
    ("sq", "renyi"): "min_q  L(q) + (c S(q)^(1/alpha))^(1/2),  c = (I_sq/delta)^(1/alpha')",
    ("kl", "renyi"): "min_{q,r}  r  s.t.  kl(L(q), r) <= c S(q)^(1/alpha),  "
    "c = (I_kl/delta)^(1/alpha')",
}
NOT_DCP = {
    ("sq", "chi2"): "the fourth root of a convex function is neither convex nor concave "
    "(Sahu & Hemachandra, Theorem 7)",
    ("kl", "chi2"): "the constraint is convex <= convex, a difference of convex functions",
    ("kl", "kl"): "the constraint is convex <= convex, a difference of convex functions",
    ("sq", "kl"): "the square root of a convex function is neither convex nor concave",
    ("sq", "renyi"): "the square root of a convex function is neither convex nor concave",
    ("kl", "renyi"): "the constraint is convex <= convex, a difference of convex functions",
    ("catoni", "kl"): "1 - exp(-x) is concave increasing, so of a convex x it is "
    "quasiconvex (DQCP) but not DCP; for fixed C, minimizing it means minimizing the DCP x",
}


def _terms(problem, q):
    """The named CVXPY expressions of the bound's ingredients."""
    support = problem.prior > 0
    risks = cp.Constant(problem.risks)
    terms = {"L(q) = sum_i q_i l_i": risks @ q}
    divergence = problem.divergence_function
    if isinstance(divergence, Chi2):
        weights = np.where(support, 1 / np.sqrt(np.where(support, problem.prior, 1)), 0)
        terms["sqrt(D(q)) = ||q / sqrt(p)||_2"] = cp.norm(cp.multiply(weights, q), 2)
        terms["D(q) = sum_i q_i^2 / p_i"] = cp.sum(cp.multiply(weights**2, cp.square(q)))
    elif isinstance(divergence, Renyi):
        alpha, on = problem.alpha, problem.prior > 0
        # S^(1/alpha) = (sum q^alpha p^(1-alpha))^(1/alpha) = ||q p^(-1/alpha')||_alpha: a norm
        weights = np.where(on, np.where(on, problem.prior, 1.0) ** ((1 - alpha) / alpha), 0.0)
        terms["S(q)^(1/alpha) = ||q p^(-1/alpha')||_alpha"] = cp.pnorm(
            cp.multiply(weights, q), alpha
        )
        terms["S(q) = sum_i q_i^alpha p_i^(1-alpha)"] = divergence.expr(
            q, np.where(on, problem.prior, 1.0)
        )
    else:
        terms["K(q) = sum_i q_i log(q_i / p_i)"] = cp.sum(cp.rel_entr(q, problem.prior))
    return terms


def _kl_constraint(L, second, r):
    return cp.kl_div(L, r) + cp.kl_div(1 - L, 1 - r) - second  # kl(L, r) - rhs <= 0


_OBJECTIVES = {  # the bound (or its constraint) of each pair, with CVXPY atoms
    ("linear", "chi2"): lambda L, second, r: L + second,
    ("linear", "renyi"): lambda L, second, r: L + second,
    ("sq", "chi2"): lambda L, second, r: L + cp.sqrt(second),
    ("sq", "renyi"): lambda L, second, r: L + cp.sqrt(second),
    ("sq", "kl"): lambda L, second, r: L + cp.sqrt(second),
    ("kl", "chi2"): _kl_constraint,
    ("kl", "renyi"): _kl_constraint,
    ("kl", "kl"): _kl_constraint,
    ("linear", "kl"): lambda L, second, r: L + second / 10.0,
    ("catoni", "kl"): lambda L, second, r: 1 - cp.exp(-(L + second)),
}


def _objective(problem, terms):
    """The bound (or its constraint) written with CVXPY atoms, DCP or not (the constants
    do not change curvature, so they are left at 1)."""
    L, second = list(terms.values())[:2]
    r = cp.Variable(name="r")
    return _OBJECTIVES[(problem.distance, problem.divergence)](L, second, r)


def _cones(problem: cp.Problem) -> str:
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
    """A readable account of ``problem``: terms, curvature, DCP verdict and cones."""
    key = (problem.distance, problem.divergence)
    if key not in FORMULAS:  # a user's distance or divergence: the declared engine's account
        from cvxpb.engine.declare import Minimize

        return "\n".join(
            [repr(problem), "", "bound: as declared", Minimize(problem.declaration()).explain()]
        )
    q = cp.Variable(problem.H, nonneg=True, name="q")
    terms = _terms(problem, q)
    lines = [repr(problem), "", "bound: " + FORMULAS[key]]
    if isinstance(problem.divergence_function, Chi2):
        lines.append(
            f"  I_{problem.distance}(m={problem.m}, 2) = "
            f"{problem.bound_function.constant:.6g} (constants={problem.constants!r})"
        )
    width = max(34, max(len(name) for name in terms) + 1)
    lines += ["", f"{'term':{width}} {'curvature':10} CVXPY expression"]
    for name, expr in terms.items():
        lines.append(f"{name:{width}} {expr.curvature:10} {_short(expr)}")
    body = _objective(problem, terms)
    lines.append(f"{'bound (or its constraint)':{width}} {body.curvature:10} {_short(body)}")
    lines.append("")
    if key in NOT_DCP:
        lines.append(f"DCP: no -- {NOT_DCP[key]}.")
    else:
        program = cp.Problem(cp.Minimize(body), _simplex(q))
        lines.append(
            f"DCP: {'yes' if program.is_dcp() else 'no'}; "
            f"DPP: {'yes' if program.is_dcp(dpp=True) else 'no'}; "
            f"cones: {_cones(program)}"
        )
    lines += _family_lines(problem, q, terms)
    return "\n".join(lines)


def _family_lines(problem, q, terms):
    """Why method="exact" is global: the family subproblem is DCP."""
    L, second = list(terms.values())[:2]
    entropic = problem.divergence_function.entropic
    divergence = second if entropic else list(terms.values())[2]
    subproblem = cp.Problem(cp.Minimize(L + 1.0 * divergence), _simplex(q))
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
