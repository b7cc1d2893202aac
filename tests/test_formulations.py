"""Every method shows the convex program it solves: ``formulation(method)`` is DCP, and a
conic solver (Clarabel) on it gives the method's own step, which also checks our
closed forms and drivers against the conic solver."""

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.ensemble import bounds as mv
from tests.pairs import PAIRS

pytestmark = pytest.mark.filterwarnings("ignore:Solution may be inaccurate")  # tight tolerances

RISKS = np.random.default_rng(3).uniform(0.05, 0.45, 12)
PRIOR = np.random.default_rng(4).dirichlet(np.full(12, 2.0))


def _problem(distance, divergence, alpha):
    return pb.BoundProblem(RISKS, 300, 0.05, distance, divergence, prior=PRIOR, alpha=alpha)


TIGHT = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "max_iter": 500}


def _solved(program):
    """``program`` solved by Clarabel, tightly (its defaults stop near 1e-8 relative)."""
    program.solve(solver="CLARABEL", **TIGHT)
    return program


def _variable(program, name):
    return next(v for v in program.variables() if v.name() == name)


@pytest.mark.parametrize(("distance", "divergence", "alpha"), PAIRS)
@pytest.mark.parametrize("mu", [0.01, 0.3, 5.0])
def test_exact_states_the_program_its_family_solves(distance, divergence, alpha, mu):
    problem = _problem(distance, divergence, alpha)
    program = problem.formulation("exact", mu=mu)
    assert program.is_dcp()
    _solved(program)
    found = np.clip(_variable(program, "q").value, 0, None)
    measure = problem.standard_form().problem.divergence_function
    q, _ = measure.linear_min(PRIOR, RISKS, mu)  # the closed form
    least = RISKS @ q + mu * measure.core(q, PRIOR)
    assert least - 1e-12 <= program.value <= least + 1e-7  # power cones: about 1e-8 off
    # the minimizer moves by about sqrt(error / curvature): 1e-5 at mu = 0.01 with KL
    assert np.abs(found / found.sum() - q).sum() <= 1e-5


@pytest.mark.parametrize(("distance", "divergence", "alpha"), PAIRS)
def test_ccp_states_its_subproblem_at_an_iterate(distance, divergence, alpha):
    problem = _problem(distance, divergence, alpha)
    if "ccp" not in problem.methods():
        with pytest.raises(ValueError, match='method="ccp" handles'):
            problem.formulation("ccp")
        return
    program = problem.formulation("ccp", at="uniform")
    assert program.is_dcp()
    convex = (
        problem.standard_form().problem.distance_function.inverse_form == "sum"
    )  # no concave part to linearize
    assert bool(program.parameters()) != convex  # else the tangents, set at the iterate
    _solved(program)
    step = np.clip(_variable(program, "q").value, 0, None)
    one = problem.solve("ccp", max_iter=1)  # the driver's own first step
    assert problem.value_at(step / step.sum()) == pytest.approx(one.bound, abs=1e-6)
    assert one.bound < problem.value_at(np.full(12, 1 / 12))  # the step went downhill


@pytest.mark.parametrize("method", ["cvx", "closed_form"])
def test_the_socp_is_what_cvx_and_the_closed_forms_solve(method):
    problem = _problem("linear", "chi2", None)
    program = problem.formulation(method)
    assert program.is_dcp(dpp=True)
    _solved(program)
    assert program.value == pytest.approx(problem.solve(method).bound, abs=1e-6)
    assert program.value == pytest.approx(problem.solve().bound, abs=1e-6)


@pytest.mark.parametrize(("method", "words"), [("fixed_point", "fixed-point"), ("nlp", "SLSQP")])
def test_a_method_that_solves_no_program_says_what_it_does_instead(method, words):
    problem = _problem("sq", "chi2", None)
    with pytest.raises(ValueError, match=f"solves no convex program: .*{words}"):
        problem.formulation(method)


def test_the_standard_forms_programs_are_a_declarations_too():
    q = pb.Posterior(PRIOR)
    declared = pb.Minimize(mv.first_order(q, RISKS, 300, 0.05, "kl", "kl"))
    ours = _problem("kl", "kl", None)
    for method, at in (("exact", {"mu": 0.2}), ("ccp", {"at": "prior"})):
        mine, reference = declared.formulation(method, **at), ours.formulation(method, **at)
        _solved(mine), _solved(reference)
        assert mine.value == pytest.approx(reference.value, abs=1e-7)
    program = declared.formulation("declared", weights=[1.0, 0.5])  # the general search's
    assert program.is_dcp()
    with pytest.raises(ValueError, match='method="cvx"'):
        declared.formulation("cvx")


def _mapped_back(program):
    """The bound at the program's minimizer, solved tightly."""
    return _solved(program).bound()


@pytest.mark.parametrize(("distance", "divergence", "alpha"), PAIRS)
def test_each_program_maps_back_to_its_methods_bound(distance, divergence, alpha):
    """Solved where each method states it by default (its own optimum), the program's
    minimizer is the method's posterior: mapped back, it gives the method's bound. The
    bound's slope in the posterior is at most about 1, so a minimizer 1e-6 off moves the
    bound by about 1e-6 at most; at the optimum the first order vanishes, so much less."""
    problem = _problem(distance, divergence, alpha)
    for method in problem.methods():
        if method in ("fixed_point", "nlp"):
            continue
        program = problem.formulation(method)
        assert program.is_dcp()
        result = problem.solve(method)
        assert _mapped_back(program) == pytest.approx(result.bound, abs=1e-6), method
        # and the posteriors agree: within sqrt(gap / curvature) of each other, ~1e-3
        assert np.abs(program.posterior() - result.posterior).sum() <= 1e-3, method


def test_a_declaration_maps_back_to_its_own_bound():
    """A declaration reaches the methods of its standard form; the bound its programs map
    back to is the declared one, as ``Minimize.solve`` reports it."""
    q = pb.Posterior(PRIOR)
    declared = pb.Minimize(2 * mv.first_order(q, RISKS, 300, 0.05, "kl", "kl"))  # scale 2
    for method in ("exact", "ccp", "declared"):
        bound = _mapped_back(declared.formulation(method))
        assert bound == pytest.approx(declared.solve(method).bound, abs=1e-6), method


def test_the_default_program_is_not_the_bound_until_mapped_back():
    """The exact method's program at its optimum has a value of its own (a weighted sum),
    which is not the bound; ``bound()`` is."""
    problem = _problem("kl", "kl", None)
    program = _solved(problem.formulation("exact"))
    assert abs(program.value - problem.solve().bound) > 1e-3
    assert program.bound() == pytest.approx(problem.solve().bound, abs=1e-7)
    with pytest.raises(ValueError, match="solve the program first"):
        problem.formulation("exact").bound()
