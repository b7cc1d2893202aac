"""The divergence protocol followed to the letter: a user's object with members written
for floats, or lacking a member, either works through every method that accepts it or
is refused in one line naming the member, when the problem is stated."""

import math

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.methods import refusals
from cvxpb.numerics.tolerances import nudge

RISKS = np.array([0.12, 0.30, 0.08, 0.21, 0.15, 0.40, 0.27, 0.09])
M = 300


def _kl_core(q, p, rounding=0):
    q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
    on = q > 0
    value = math.fsum(q[on] * np.log(q[on] / p[on]))
    return float(nudge(value + rounding * 1e-15 * (1 + abs(value)), rounding))


def _kl_gradient(q, p):
    return np.log(np.maximum(np.asarray(q, dtype=float), 1e-300) / np.asarray(p)) + 1


class ExpOfKL:
    """``exp(KL)`` as the divergence, its transform and change of measure written with
    ``math`` (floats only): the Seeger bound again, through ``log(exp(KL))``."""

    name = "exp_kl"
    least = 0.0

    def core(self, q, p, rounding=0):
        return _kl_core(q, p, rounding)

    def core_gradient(self, q, p):
        return _kl_gradient(q, p)

    def expr(self, q, p):
        import cvxpy as cp

        return cp.sum(cp.rel_entr(q, p))

    def transform(self, core, rounding=0):
        return math.exp(core)

    def accepts(self, distance):
        return distance.name == "kl"

    def right_side(self, bound, E, rounding=0):
        K = math.log(E)
        return bound.metric.kl_right_side(K, bound.m, bound.delta, rounding, bound.log_xi)


def _seeger():
    return pb.BoundProblem(RISKS, m=M, distance="kl", divergence="kl").solve()


def test_members_written_for_floats_work_through_every_method():
    ours = _seeger()
    problem = pb.BoundProblem(RISKS, m=M, distance="kl", divergence=ExpOfKL())
    assert set(problem.methods()) >= {"nlp", "declared"}
    for method in problem.methods():
        found = problem.solve(method)
        assert found.bound >= ours.bound - 1e-9  # no method goes below the minimum
        assert found.bound == pytest.approx(ours.bound, abs=1e-6), method


def test_the_default_gradient_goes_through_the_transform():
    """nlp took the core's gradient for exp(KL)'s and stopped at 0.378296862833 in the
    issue's case; the default is now the core's times exp'(KL) = exp(KL)."""
    problem = pb.BoundProblem(RISKS, m=M, distance="kl", divergence=ExpOfKL())
    measure = problem.standard_form().problem.divergence_function
    rng = np.random.default_rng(0)
    q, p = rng.dirichlet(np.ones(8)), np.full(8, 1 / 8)
    K = _kl_core(q, p)
    expected = math.exp(K) * _kl_gradient(q, p)
    np.testing.assert_allclose(measure.gradient(q, p), expected, rtol=1e-6)


def test_a_vectorized_object_gets_the_arrays_themselves():
    seen = []

    class Vectorized(ExpOfKL):
        vectorized = True

        def transform(self, core, rounding=0):
            seen.append(type(core))
            return np.exp(core)

    term = pb.divergence_term(pb.Posterior.uniform(3), Vectorized())
    np.testing.assert_allclose(term.transform(np.array([0.0, 1.0])), [1.0, math.e])
    assert seen == [np.ndarray]


class _Partial:
    """Seeger's KL bound with members taken away."""

    least = 0.0

    def __init__(self, name, without):
        self.name = name
        members = {
            "core": _kl_core,
            "core_gradient": _kl_gradient,
            "expr": ExpOfKL.expr.__get__(self),
            "accepts": lambda distance: distance.name == "kl",
            "right_side": lambda bound, K, rounding=0: bound.metric.kl_right_side(
                K, bound.m, bound.delta, rounding, bound.log_xi
            ),
        }
        for name, member in members.items():
            if name not in without:
                setattr(self, name, member)


@pytest.mark.parametrize(
    ("without", "named"),
    [({"right_side"}, "right_side(bound, value, rounding)"), ({"accepts"}, "accepts(distance)")],
)
def test_a_member_every_bound_needs_is_named_when_the_problem_is_stated(without, named):
    with pytest.raises(ValueError, match=r"^the divergence 'partial' has no ") as error:
        pb.BoundProblem(RISKS, m=M, distance="kl", divergence=_Partial("partial", without))
    assert named in str(error.value) and "\n" not in str(error.value)


def test_a_bound_value_of_its_own_needs_no_right_side():
    mine = _Partial("own_bound_value", {"right_side"})
    mine.bound_value = lambda bound, L, K, rounding=0: bound.metric.kl_bound(
        L, K, bound.m, bound.delta, bound.grid, rounding, bound.log_xi
    )
    found = pb.BoundProblem(RISKS, m=M, distance="kl", divergence=mine).solve("declared")
    assert found.bound == pytest.approx(_seeger().bound, abs=1e-8)


def test_no_expr_and_no_closed_form_is_refused_by_the_declared_search():
    problem = pb.BoundProblem(RISKS, m=M, distance="kl", divergence=_Partial("no_expr", {"expr"}))
    assert "declared" not in problem.methods()
    why = refusals(problem)["declared"]
    assert "linear_min(p, g, mu)" in why and "expr(q, p)" in why
    assert problem.solve("nlp").bound == pytest.approx(_seeger().bound, abs=1e-5)


def test_a_constant_is_there_without_uses_constant():
    """A user's chi-squared with Theorem 1's constant in its right side and no
    ``uses_constant``: the bound computes ``bound.constant`` when asked (a TypeError
    on None before)."""

    class Chi2Moment:
        name = "chi2_moment"
        alpha = 2.0

        def core(self, q, p, rounding=0):
            q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
            return float(nudge(math.fsum(q**2 / p) * (1 + rounding * 1e-15), rounding))

        def core_gradient(self, q, p):
            return 2 * np.asarray(q, dtype=float) / np.asarray(p, dtype=float)

        def accepts(self, distance):
            return distance.moment_bound

        def right_side(self, bound, moment, rounding=0):
            return math.sqrt(moment * bound.constant / bound.delta) * (1 + rounding * 1e-15)

    mine = pb.BoundProblem(RISKS, m=M, distance="linear", divergence=Chi2Moment())
    ours = pb.BoundProblem(RISKS, m=M, distance="linear", divergence="chi2").solve()
    assert mine.solve("nlp").bound == pytest.approx(ours.bound, abs=1e-6)


@pytest.mark.parametrize("kind", ["BoundProblem", "Minimize"])
def test_a_method_may_call_what_solvable_lists_on_either_problem(kind):
    """Solvable's docstring lists what a method may call on the problem it is given:
    each is there, for a BoundProblem and a Minimize alike, and means the same."""
    bound = pb.BoundProblem(RISKS, m=M, distance="kl", divergence="kl")
    problem = bound if kind == "BoundProblem" else bound.declared()
    prior = problem.declared().posterior.prior
    assert problem.value_at(prior) == pytest.approx(bound.value_at(prior), abs=1e-15)
    found = problem.result_from_posterior(
        prior, method="mine", status="local", seconds=0.0, iterations=0
    )
    assert found.bound == problem.value_at(prior)
    failed = problem.failed_result("mine", "solver_failed", "it raised", 0.0)
    assert math.isnan(failed.bound) and failed.posterior.shape == prior.shape
    assert problem.standard_form() is not None


@pytest.mark.parametrize(
    "case", ["random", "prior 1e-200", "all risks zero", "one voter", "ties at the least risk"]
)
def test_a_family_written_from_the_family_table_certifies_as_ours_does(case):
    """MyKL's family (tests/users_own.py) is written from FAMILY_MEMBERS alone, not from
    cvxpb.pac_bayes.families: exact certifies with it, at our KL's minimum."""
    from cvxpb.pac_bayes.families import Family
    from cvxpb.pac_bayes.protocol import FAMILY_MEMBERS
    from tests.users_own import GibbsPosteriors, MyKL

    rng = np.random.default_rng(3)
    risks, prior = rng.uniform(0.05, 0.45, 12), rng.dirichlet(np.ones(12))
    if case == "prior 1e-200":
        prior[int(np.argmin(risks))] = 1e-200
        prior /= prior.sum()
    elif case == "all risks zero":
        risks = np.zeros(12)
    elif case == "one voter":
        risks, prior = risks[:1], np.ones(1)
    elif case == "ties at the least risk":
        risks[:3] = risks.min()
    family = GibbsPosteriors(risks, prior)
    assert not isinstance(family, Family)
    assert all(hasattr(family, m.name) for m in FAMILY_MEMBERS if m.required)
    mine = pb.BoundProblem(risks, m=M, distance="kl", divergence=MyKL(), prior=prior)
    ours = pb.BoundProblem(risks, m=M, distance="kl", divergence="kl", prior=prior).solve()
    found = mine.solve("exact")
    assert found.status == "optimal" and abs(found.bound - ours.bound) <= 1e-9
    assert found.certificate.lower_bound <= ours.bound
    assert ours.certificate.lower_bound <= found.bound
