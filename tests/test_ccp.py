"""The CCP driver on its own: DC problems with known answers, every way of giving a
concave part, infeasible starts, solver failures and reproducible random starts."""

import cvxpy as cp
import numpy as np
import pytest

from cvxpb.engine.methods import ccp


def quadratic_problem(route):
    """min (x - 3)^2 - x^2/2 = x^2/2 - 6x + 9: the minimum is at x = 6 (value -9)."""
    x = cp.Variable(name="x")
    if route == "expr":
        concave = ccp.ConcavePart(expr=-cp.square(x) / 2)
    elif route == "callables":
        concave = ccp.ConcavePart(
            value=lambda pt: -(pt[x] ** 2) / 2, gradient=lambda pt: {x: -pt[x]}
        )
    else:
        concave = ccp.ConcavePart(
            linearize=lambda pt: (pt[x] ** 2 / 2, {x: -pt[x]})  # tangent of -x^2/2 at pt
        )
    objective = ccp.DCFunction(cp.square(x - 3), concave)
    return ccp.DCProblem(objective, (), [x <= 100]), x


@pytest.mark.parametrize("route", ["expr", "callables", "linearize"])
def test_every_route_reaches_the_known_minimum(route):
    problem, x = quadratic_problem(route)
    # x_{k+1} = 3 + x_k / 2: the error halves each step, the objective's quarters
    res = ccp.solve(problem, initial={x: np.array(0.0)}, tol=1e-14, tol_x=1e-9)
    assert res.status == "converged"
    assert float(res.value(x)) == pytest.approx(6, abs=1e-6)
    assert res.objective == pytest.approx(-9, abs=1e-8)
    objectives = [row["objective"] for row in res.history]
    assert all(b <= a + 1e-9 for a, b in zip(objectives, objectives[1:], strict=False))
    assert {"objective", "slack", "tau", "solver_status", "inaccurate"} <= set(res.history[0])


def test_penalty_ccp_recovers_from_an_infeasible_start():
    """min (x - 1/2)^2 s.t. |x| >= 1, i.e. 1 - x^2 <= 0: the optimum is x = 1."""
    x = cp.Variable(name="x")
    constraint = ccp.DCFunction(cp.Constant(1.0), ccp.ConcavePart(expr=-cp.square(x)))
    problem = ccp.DCProblem(ccp.DCFunction(cp.square(x - 0.5)), (constraint,), [x <= 10])
    start = {x: np.array(0.0)}  # infeasible, and the gradient of -x^2 vanishes there
    plain = ccp.solve(problem, initial=start, penalty=False)
    assert plain.status in ("solver_failed", "infeasible") and plain.point is None
    res = ccp.solve(problem, initial=start, penalty=True, tau=1.0, mu=2.0, tau_max=1e6)
    assert res.status == "converged"
    assert float(res.value(x)) == pytest.approx(1.0, abs=1e-5)
    assert res.history[0]["slack"] > 0.5 and res.history[-1]["slack"] < 1e-7


def test_best_feasible_iterate_over_random_starts_is_reproducible():
    """min -|x|-style problem with two minima: x in [-2, 1], min (x^2 - 2x^2) = -x^2."""
    x = cp.Variable(name="x")
    objective = ccp.DCFunction(cp.square(x) / 10, ccp.ConcavePart(expr=-cp.square(x)))
    problem = ccp.DCProblem(objective, (), [x >= -2, x <= 1])
    first = ccp.solve(problem, n_starts=8, random_state=7)
    second = ccp.solve(problem, n_starts=8, random_state=7)
    assert float(first.value(x)) == pytest.approx(-2, abs=1e-6)  # the global one
    assert first.objective == second.objective and len(first.starts) == 8
    assert {s["objective"] for s in first.starts} != {first.objective}  # a start found x = 1


def test_unavailable_solver_is_a_status_with_the_message():
    problem, x = quadratic_problem("expr")
    res = ccp.solve(problem, initial={x: np.array(0.0)}, solvers=("NOT_A_SOLVER",))
    assert res.status == "solver_failed" and "NOT_A_SOLVER: not installed" in res.message


def test_fallback_order_and_inaccurate_flag():
    problem, x = quadratic_problem("expr")
    options = {"SCS": {"max_iters": 2}}
    strict = ccp.solve(
        problem, initial={x: np.array(0.0)}, solvers=("SCS",), solver_options=options, max_iter=3
    )
    assert strict.status == "solver_failed" and "SCS" in strict.message
    loose = ccp.solve(
        problem, initial={x: np.array(0.0)}, solvers=("SCS", "CLARABEL"), solver_options=options
    )
    assert loose.status == "converged"
    assert {row["solver"] for row in loose.history} == {"CLARABEL"}  # SCS was not accepted


def test_subproblem_is_dpp_so_iterations_reuse_its_compilation():
    problem, _ = quadratic_problem("expr")
    sub = ccp._Subproblem(problem, problem.variables, penalty=True)
    assert sub.cvx.is_dcp(dpp=True)


def test_declarations_are_checked():
    x = cp.Variable()
    with pytest.raises(ValueError, match="must be concave"):
        ccp.ConcavePart(expr=cp.square(x))
    with pytest.raises(ValueError, match="exactly one of"):
        ccp.ConcavePart()
    with pytest.raises(ValueError, match="must be convex"):
        ccp.DCFunction(-cp.square(x))
