"""cvxpb.engine.conic: every failure of a solver is a status with its message."""

import cvxpy as cp
import numpy as np
import pytest

from cvxpb.engine.conic import SOLVERS, solve_program


def least_squares():
    x = cp.Variable(2)
    return cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, -2.0])))), x


def test_the_first_accepted_solver_holds_the_solution():
    program, x = least_squares()
    outcome = solve_program(program)
    assert outcome.solved and outcome.solver == SOLVERS[0] and outcome.status == "optimal"
    assert outcome.message == ""
    np.testing.assert_allclose(x.value, [1.0, -2.0], atol=1e-7)


def test_a_raising_solver_hands_over_to_the_next(monkeypatch):
    solve = cp.Problem.solve

    def failing(self, *args, solver=None, **kwargs):
        if solver == "CLARABEL":
            raise cp.error.SolverError("Solver 'CLARABEL' failed.")
        if solver == "ECOS":
            raise MemoryError("13 GiB")
        return solve(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", failing)
    program, x = least_squares()
    outcome = solve_program(program, ("NOT_A_SOLVER", "CLARABEL", "ECOS", "SCS"))
    assert outcome.solver == "SCS" and outcome.status in ("optimal", "optimal_inaccurate")
    assert outcome.message.split("; ") == [
        "NOT_A_SOLVER: not installed",
        "CLARABEL: Solver 'CLARABEL' failed.",
        "ECOS: MemoryError: 13 GiB",
    ]
    np.testing.assert_allclose(x.value, [1.0, -2.0], atol=1e-3)


def test_every_solver_failing_is_a_status_not_an_exception(monkeypatch):
    def failing(self, *args, solver=None, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(cp.Problem, "solve", failing)
    outcome = solve_program(least_squares()[0], ("CLARABEL", "ECOS"))
    assert not outcome.solved and outcome.status == "solver_failed" and outcome.solver is None
    assert outcome.message.count("LinAlgError: Singular matrix") == 2


def test_the_last_status_is_kept_when_no_solver_is_accepted():
    x = cp.Variable()
    outcome = solve_program(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]), ("CLARABEL", "ECOS"))
    assert not outcome.solved and outcome.status == "infeasible"
    assert outcome.message == (
        "CLARABEL returned status 'infeasible'; ECOS returned status 'infeasible'"
    )


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
@pytest.mark.parametrize("accept", [False, True])
def test_an_inaccurate_solution_ends_the_search_only_when_accepted(accept):
    program, _ = least_squares()
    options = {"SCS": {"max_iters": 2}}
    outcome = solve_program(program, ("SCS",), accept_inaccurate=accept, options=options)
    assert outcome.status == "optimal_inaccurate"
    assert outcome.solved is accept
