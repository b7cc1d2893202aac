"""BoundProblem: declaration, validation, evaluation, the SOCP formulation, explain()."""

import cvxpy as cp
import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.methods import cvx
from tests.brute_force import bound

RISKS = np.array([0.10, 0.12, 0.30, 0.05])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"risks": []}, "risks must not be empty"),
        ({"risks": [0.1, 1.2]}, r"risks must lie in \[0, 1\]"),
        ({"risks": [0.1, np.nan]}, "no NaN"),
        ({"risks": [[0.1, 0.2]]}, "one-dimensional"),
        ({"m": 0}, "m must be an integer >= 1"),
        ({"m": 10.5}, "m must be an integer >= 1"),
        ({"delta": 0.0}, r"delta must lie in \(0, 1\)"),
        ({"delta": 1.0}, r"delta must lie in \(0, 1\)"),
        ({"delta": "a"}, "delta must be a number"),
        ({"prior": [0.5, 0.5]}, "prior must have length 4"),
        ({"prior": [0.5, 0.5, 0.5, -0.5]}, "non-negative"),
        ({"prior": [0.5, 0.5, np.nan, 0.0]}, "NaN"),
        ({"prior": [0.3, 0.3, 0.3, 0.3]}, "prior must sum to 1"),
        ({"distance": "hinge"}, "distance must be one of"),
        ({"distance": "catoni", "divergence": "chi2"}, "distance must be one of"),
        ({"divergence": "tv"}, "divergence must be one of"),
        ({"constants": "approx"}, "constants must be one of"),
        ({"grid": [1.0], "distance": "kl"}, "grid is only used"),
        ({"grid": [-1.0], "distance": "catoni", "divergence": "kl"}, "grid must be"),
        ({"divergence": "renyi"}, "needs alpha > 1"),
        ({"divergence": "renyi", "alpha": 1.0}, "finite alpha > 1"),
        ({"divergence": "renyi", "alpha": np.inf}, "finite alpha > 1"),
        ({"divergence": "chi2", "alpha": 3}, 'use "renyi"'),
        ({"divergence": "kl", "alpha": 3}, "alpha is only used"),
    ],
)
def test_bad_input_names_the_argument(kwargs, match):
    args = {"risks": RISKS, "m": 100, "delta": 0.05, **kwargs}
    with pytest.raises(ValueError, match=match):
        pb.BoundProblem(**args)


def test_unknown_method_or_solver_lists_the_known_ones():
    prob = pb.BoundProblem(RISKS, 100, distance="linear")
    with pytest.raises(ValueError, match="method must be one of.*exact"):
        prob.solve(method="magic")
    with pytest.raises(ValueError, match="solver must be one of.*CLARABEL"):
        prob.solve(method="cvx", solver="GUROBI")
    with pytest.raises(ValueError, match='use method="exact"'):
        pb.BoundProblem(RISKS, 100, distance="sq").solve(method="cvx")


def test_evaluate_matches_the_formulas_and_rejects_bad_posteriors():
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.5, 0.2, 0.0, 0.3])
    for distance in ("linear", "sq", "kl"):
        prob = pb.BoundProblem(RISKS, 250, 0.05, distance, prior=prior)
        expected = bound(q, RISKS, prior, 250, 0.05, distance, "chi2")
        assert expected <= prob.value_at(q) <= expected + 1e-12
    prob = pb.BoundProblem(RISKS, 250, prior=[0.5, 0.5, 0.0, 0.0])
    with pytest.raises(ValueError, match="where the prior is zero"):
        prob.value_at(q)
    with pytest.raises(ValueError, match="sum to 1"):
        prob.value_at([0.5, 0.5, 0.5, 0.0])
    with pytest.raises(ValueError, match="non-negative"):
        prob.value_at([1.5, -0.5, 0.0, 0.0])


def test_result_is_a_frozen_record_with_its_bound_reevaluated():
    prob = pb.BoundProblem(RISKS, 300, distance="linear")
    res = prob.solve(method="cvx")
    assert res.bound == prob.value_at(res.posterior)
    assert res.objective is not None and res.method == "cvx" and res.seconds > 0
    with pytest.raises(AttributeError):
        res.bound = 0.0


def test_formulation_is_the_dpp_socp_and_solving_it_gives_the_optimum():
    prob = pb.BoundProblem(RISKS, 300, distance="linear")
    program = prob.formulation("cvx")
    assert isinstance(program, cp.Problem) and program.is_dcp(dpp=True)
    program.solve(solver="CLARABEL")
    assert program.value == pytest.approx(prob.solve().bound, abs=1e-7)


def test_resolving_new_risks_reuses_the_compiled_program():
    first = pb.BoundProblem(RISKS, 300, distance="linear")
    first.solve(method="cvx")
    compiled = cvx._PROGRAMS.kept(4)[-1][0]._cache.param_prog
    second = pb.BoundProblem(RISKS[::-1] * 0.5, 900, delta=0.2, distance="linear")
    res = second.solve(method="cvx")
    assert cvx._PROGRAMS.kept(4)[-1][0]._cache.param_prog is compiled
    assert res.bound == pytest.approx(second.solve().bound, abs=1e-7)


def test_solver_failure_is_a_status_not_a_traceback():
    prob = pb.BoundProblem(RISKS, 300, distance="linear")
    res = prob.solve(method="cvx", solver="SCS", max_iters=1)
    assert res.status in (
        "optimal_inaccurate",
        "solver_failed",
        "infeasible_inaccurate",
        "unbounded_inaccurate",
        "user_limit",
    )
    assert "SCS" in res.message


@pytest.mark.parametrize(
    ("distance", "divergence", "verdict"),
    [
        ("linear", "chi2", "DCP: yes"),
        ("sq", "chi2", "DCP: no"),
        ("kl", "chi2", "DCP: no"),
        ("linear", "kl", "DCP: yes"),
        ("catoni", "kl", "DCP: no"),
    ],
)
def test_explain_reports_cvxpy_verdicts_and_cones(distance, divergence, verdict):
    text = pb.BoundProblem(RISKS, 300, distance=distance, divergence=divergence).explain()
    assert verdict in text and "L(q) = sum_i q_i l_i" in text and "AFFINE" in text
    if (distance, divergence) == ("linear", "chi2"):
        assert "second-order" in text
    if divergence == "kl":
        assert "exponential" in text


def test_paper_constants_route_through_the_problem():
    exact = pb.BoundProblem(RISKS, 500, distance="sq")
    paper = pb.BoundProblem(RISKS, 500, distance="sq", constants="paper")
    assert paper.standard_form().problem.bound_function.constant == (12 * 500 - 11) / (16 * 500**3)
    assert paper.solve().bound > exact.solve().bound  # the paper's constant is looser


@pytest.mark.parametrize("method", pb.BoundProblem([0.1, 0.2], m=100, distance="linear").methods())
def test_verbose_prints_a_closing_line_for_every_method(method, capsys):
    prob = pb.BoundProblem([0.1, 0.2, 0.3], m=100, distance="linear")
    res = prob.solve(method, verbose=True)
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == res.summary()
    assert res.summary().startswith(f"{method}: {res.status}, bound ")


@pytest.mark.parametrize(
    ("method", "solver"), [("cvx", "ECOS"), ("ccp", "SCS"), ("nlp", "trust-constr")]
)
def test_solver_reaches_the_methods_that_call_one(method, solver):
    prob = pb.BoundProblem([0.1, 0.2, 0.3], m=100, distance="linear")
    exact = prob.solve()
    res = prob.solve(method, solver=solver)
    assert abs(res.bound - exact.bound) < 1e-6
    if method == "cvx":
        assert res.solver == "ECOS"
    with pytest.raises(ValueError, match="solver must be one of"):
        prob.solve(method, solver="GUROBI" if method != "nlp" else "ECOS")


@pytest.mark.parametrize("method", ["exact", "closed_form", "fixed_point"])
def test_solver_is_refused_where_no_solver_is_called(method):
    prob = pb.BoundProblem([0.1, 0.2, 0.3], m=100, distance="linear")
    with pytest.raises(
        ValueError, match="calls no solver library; solver= applies to cvx, ccp, nlp"
    ):
        prob.solve(method, solver="ECOS")


@pytest.mark.parametrize(
    ("distance", "divergence"),
    [(d, v) for v in ("chi2", "renyi", "kl") for d in ("linear", "sq", "kl")],
)
def test_formulation_without_a_method_is_that_of_the_method_solve_runs(distance, divergence):
    """It defaulted to cvx, which refuses 8 of the 9 distance-divergence pairs."""
    from cvxpb.engine.methods import METHODS, default_method

    prob = pb.BoundProblem(
        RISKS,
        300,
        distance=distance,
        divergence=divergence,
        alpha=3.0 if divergence == "renyi" else None,
    )
    program = prob.formulation()
    assert program.is_dcp()
    expected = METHODS[default_method(prob, {})].formulation(prob)
    assert str(program.objective) == str(expected.objective)
