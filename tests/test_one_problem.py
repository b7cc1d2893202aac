"""One problem type: a declaration, solved by every method that accepts it by its
features; a user's divergence (not subclassing ours) and a user's method work through
solve, methods and compare."""

import ast
import dataclasses
import pathlib

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.methods import METHODS, refusals, register_method, unregister_method
from cvxpb.ensemble import bounds as mv
from tests.pairs import PAIRS
from tests.users_own import AtThePrior, MyChi2, MyKL

RISKS = np.random.default_rng(5).uniform(0.05, 0.45, 25)
PRIOR = np.random.default_rng(6).dirichlet(np.ones(25))


@pytest.mark.parametrize(("distance", "divergence", "alpha"), PAIRS)
def test_the_first_order_bound_reaches_exact_and_it_equals_the_general_search(
    distance, divergence, alpha
):
    q = pb.Posterior(PRIOR)
    problem = pb.Minimize(mv.first_order(q, RISKS, 400, 0.05, distance, divergence, alpha))
    assert problem.methods()[0] == "exact" and problem.methods()[-1] == "declared"
    exact, general = problem.solve(method="exact"), problem.solve(method="declared")
    assert exact.method == "exact" and general.method == "declared"
    assert abs(exact.bound - general.bound) <= 1e-7
    assert exact.status == general.status == "optimal"
    assert exact.certificate.lower_bound <= general.bound and general.certificate.lower_bound <= (
        exact.bound
    )
    assert problem.solve().method == "exact"  # the best accepting method by default
    for res in (exact, general):  # the declaration's own formula at the posterior
        assert res.bound == problem.value_at(res.posterior)
        assert set(res.terms) == set(general.terms)


def test_the_standard_form_is_twice_the_bound_problem():
    q = pb.Posterior(PRIOR)
    declared = pb.Minimize(mv.first_order(q, RISKS, 400, 0.05, "kl", "kl"))
    form = declared.standard_form()
    ours = pb.BoundProblem(RISKS, 400, 0.05, "kl", "kl", prior=PRIOR)
    assert form.scale == 2.0
    w = np.random.default_rng(0).dirichlet(np.ones(25))
    assert 2 * form.problem.evaluate(w) == pytest.approx(declared.value_at(w), rel=1e-14)
    assert form.problem.evaluate(w) == ours.value_at(w)


def test_other_declarations_go_to_the_general_search_and_say_why():
    q = pb.Posterior.uniform(6)
    errors = (np.random.default_rng(1).uniform(size=(200, 6)) < 0.3).astype(float)
    tandem = pb.Minimize(mv.tandem(q, errors))
    assert tandem.methods() == ["declared"] and tandem.standard_form() is None
    why = refusals(tandem)
    assert set(why) == set(METHODS) - {"declared"}
    searches = {"vertex", "weight"}  # of three terms or more: the tandem bound has two
    assert all("2 terms; the Pareto search (declared)" in why[m] for m in searches)
    standard = set(why) - searches
    assert all("not one PAC-Bayes bound of a Gibbs risk" in why[m] for m in standard)
    with pytest.raises(ValueError, match='method="exact" .*not one PAC-Bayes bound'):
        tandem.solve(method="exact")
    assert tandem.solve().method == "declared"
    table = tandem.compare()
    assert list(table["method"]) == ["declared"]


def test_a_bound_problem_solves_through_its_declaration_once():
    problem = pb.BoundProblem(RISKS, 400, distance="sq", divergence="chi2", prior=PRIOR)
    declared = problem.declared()
    assert isinstance(declared, pb.Minimize) and declared.standard_form() is not None
    res = problem.solve("declared")
    assert res.bound == problem.value_at(res.posterior)  # reported by the problem, once
    assert res.certificate.parameter == "mu" and res.status == "optimal"
    assert abs(res.bound - problem.solve().bound) <= 1e-7


@pytest.mark.parametrize("distance", ["kl", "sq"])
def test_a_users_kl_not_subclassing_ours_solves_by_every_method_whose_members_it_has(distance):
    mine = pb.BoundProblem(RISKS, 400, distance=distance, divergence=MyKL(), prior=PRIOR)
    ours = pb.BoundProblem(RISKS, 400, distance=distance, divergence="kl", prior=PRIOR)
    assert mine.methods() == ["exact", "ccp", "nlp", "declared"]
    assert abs(mine.solve().bound - ours.solve().bound) <= 1e-9
    for method in ("exact", "ccp", "nlp"):  # each as it does with ours (nlp stops short alike)
        found, reference = mine.solve(method), ours.solve(method)
        assert found.status == reference.status, method
        assert found.bound == pytest.approx(reference.bound, abs=1e-8), method
    # without linear_min, the general search certifies through CVXPY and Frank-Wolfe
    found, best = mine.solve("declared"), ours.solve().bound
    assert found.certificate.lower_bound <= best <= found.bound <= best + 1e-6
    why = refusals(mine)
    assert "cone(bound, p)" in why["fixed_point"] or "inverse_form" in why["fixed_point"]
    assert "no second-order cone (cone(bound, p))" in why["cvx"] or "inverse_form" in why["cvx"]
    with pytest.raises(ValueError, match=r'method="cvx" .*; use method="exact"'):
        mine.solve("cvx")


@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_a_users_chi2_not_subclassing_ours_solves_by_every_method(distance):
    mine = pb.BoundProblem(RISKS, 400, distance=distance, divergence=MyChi2(), prior=PRIOR)
    ours = pb.BoundProblem(RISKS, 400, distance=distance, divergence="chi2", prior=PRIOR)
    assert mine.methods() == ours.methods()
    best = ours.solve().bound
    assert abs(mine.solve().bound - best) <= 1e-9
    for method in mine.methods():
        found, reference = mine.solve(method), ours.solve(method)
        assert found.status == reference.status, method
        assert found.bound == pytest.approx(reference.bound, abs=1e-8), method


def test_a_users_divergence_without_a_family_is_refused_by_exact_naming_the_member():
    class Bare:
        name = "bare"

        def core(self, q, p, rounding=0):
            return MyKL().core(q, p, rounding)

        def accepts(self, distance):
            return distance.inverse_form == "kl"

        def right_side(self, bound, K, rounding=0):
            return MyKL().right_side(bound, K, rounding)

    problem = pb.BoundProblem(RISKS, 400, distance="kl", divergence=Bare())
    assert "family(risks, prior)" in refusals(problem)["exact"]
    assert "right_side_expr" in refusals(problem)["ccp"]
    with pytest.raises(ValueError, match=r"a divergence needs core\(q, p, rounding\)"):
        pb.BoundProblem(RISKS, 400, distance="kl", divergence=type("Nameless", (), {"name": "x"})())


def test_a_users_method_registered_once_works_through_solve_methods_and_compare():
    method = register_method(AtThePrior())
    try:
        problem = pb.BoundProblem(RISKS, 400, distance="kl", prior=PRIOR)
        assert "at_the_prior" in problem.methods()
        res = problem.solve("at_the_prior")
        assert res.bound == problem.value_at(PRIOR) and res.method == "at_the_prior"
        assert "at_the_prior" in list(problem.compare()["method"])
        q = pb.Posterior(PRIOR)
        errors = (np.random.default_rng(1).uniform(size=(200, 25)) < RISKS).astype(float)
        tandem = pb.Minimize(mv.tandem(q, errors))
        assert tandem.methods() == ["declared", "at_the_prior"]  # ours, then the user's
        assert tandem.solve("at_the_prior").bound == tandem.value_at(PRIOR)
        with pytest.raises(ValueError, match="taken"):
            register_method(AtThePrior())
    finally:
        unregister_method(method.name)
    assert "at_the_prior" not in METHODS
    with pytest.raises(ValueError, match="not a method registered from outside"):
        unregister_method("exact")


CONCEPTS = {
    "Divergence",
    "KLDivergence",
    "Chi2",
    "Renyi",
    "PowerDivergence",
    "Distance",
    "Linear",
    "Squared",
    "KLDistance",
    "Catoni",
    "UnionBoundDistance",
}


def _concept_checks(path):
    """The isinstance calls of ``path`` whose classes name a divergence or distance."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            if names & CONCEPTS:
                found.append((path.name, node.lineno))
    return found


def test_no_engine_module_asks_a_concept_for_its_class():
    engine = pathlib.Path(pb.__file__).parent / "engine"
    checks = [c for path in sorted(engine.rglob("*.py")) for c in _concept_checks(path)]
    assert checks == []
    # the scan finds such a check where there is one
    probe = engine.parent.parent / "tests" / "users_own.py"
    assert _concept_checks(probe) == []
    sample = pathlib.Path(__file__).with_name("_probe_isinstance.py")
    sample.write_text("if isinstance(d, (Chi2, str)):\n    pass\n")
    try:
        assert _concept_checks(sample) == [("_probe_isinstance.py", 1)]
    finally:
        sample.unlink()


def test_the_estimators_take_a_users_divergence_not_subclassing_ours():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble.classifier import MajorityVoteClassifier
    from cvxpb.svm.stochastic import StochasticSVM

    X, y = make_classification(n_samples=200, n_features=6, random_state=0)
    svm = {
        d: StochasticSVM(divergence=d, distance="linear", lambdas=[0.1, 1.0, 10.0], random_state=0)
        for d in (MyChi2(), "chi2")
    }
    mine, ours = (model.fit(X, y).result_.bound for model in svm.values())
    assert mine == pytest.approx(ours, abs=1e-12)

    def vote(divergence):
        forest = RandomForestClassifier(n_estimators=10, random_state=0)
        model = MajorityVoteClassifier(forest, "first_order", divergence, random_state=0)
        return model.fit(X, y).result_

    mine, ours = vote(MyKL()), vote("kl")
    assert mine.bound == pytest.approx(ours.bound, abs=1e-7)
    # each certificate holds against the other's minimum
    assert mine.certificate.lower_bound <= ours.bound
    assert ours.certificate.lower_bound <= mine.bound


@pytest.mark.parametrize(("distance", "divergence"), [("linear", "chi2"), ("kl", "kl")])
def test_a_bound_problem_is_its_declarations_solve_the_same_result(distance, divergence):
    problem = pb.BoundProblem(RISKS, 400, distance=distance, divergence=divergence, prior=PRIOR)
    declared = problem.declared()
    assert declared is problem  # one class: the short form is the declaration itself
    for method in problem.methods():
        options = {"random_state": 0} if method == "ccp" else {}
        short, long = problem.solve(method, **options), declared.solve(method, **options)
        assert short.method == long.method == method
        assert short.status == long.status, method
        assert short.bound == pytest.approx(long.bound, abs=1e-12), method
        # the same route; a conic solver's second solve of a cached program may move 1e-8
        assert np.allclose(short.posterior, long.posterior, rtol=1e-7, atol=1e-12), method
        fields = (
            dataclasses.astuple(r.certificate) if r.certificate else None for r in (short, long)
        )
        assert next(fields) == next(fields), method


def test_a_union_bound_is_a_problem_too():
    errors = (np.random.default_rng(0).random((400, 4)) < 0.2).astype(float)
    q = pb.Posterior.uniform(4)
    union = pb.Minimize(mv.chebyshev_cantelli_tnd(q, errors.mean(0), 400, errors))
    assert union.methods() == ["declared"] and union.standard_form() is None
    best = union.solve()
    assert list(union.compare()["method"]) == ["declared"]
    with pytest.raises(ValueError, match=r"problem.parts\[k\].formulation"):
        union.formulation()
    assert union.parts[0].formulation(weights=[1.0] * len(union.parts[0].terms)).is_dcp()
    method = register_method(AtThePrior())
    try:
        assert union.methods() == ["declared", "at_the_prior"]
        at_prior = union.solve("at_the_prior")
        assert at_prior.bound == union.value_at(q.prior) >= best.bound
    finally:
        unregister_method(method.name)


def test_the_searches_of_three_terms_are_methods_of_their_own():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 300)
    votes = np.where(rng.random((300, 8)) < 0.3, 1 - truth[:, None], truth[:, None])
    risks = (votes != truth[:, None]).mean(axis=0)
    c_bound = pb.Minimize(mv.c_bound(pb.Posterior.uniform(8), risks, 300, votes))
    assert len(c_bound.terms) == 3
    assert c_bound.methods() == ["declared", "vertex", "weight"]
    declared, vertex, weight = (c_bound.solve(m) for m in c_bound.methods())
    assert vertex.method == "vertex" and weight.method == "weight"
    assert vertex.bound == declared.bound and vertex.status == declared.status == "optimal"
    assert weight.bound >= declared.certificate.lower_bound  # local: above the proven least
    assert weight.status in ("optimal", "local")
    assert c_bound.formulation("weight", weights=[1.0, 1.0, 1.0]).is_dcp()


def test_no_minimum_is_reported_above_a_value_found(monkeypatch):
    """Where a search proves no optimum and stops above the bound at the fitted
    posterior, solve_bound reports the fitted posterior's value, with the search's status
    and certificate and a message saying so (a search made to stop at the uniform
    posterior, above the fitted one's value)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    model = MajorityVoteClassifier(forest, validation="oob", random_state=0).fit(X, y)
    uniform = np.full(10, 0.1)
    at_posterior = model.bound_at("c_bound")
    assert model.bound_at("c_bound", uniform) > at_posterior

    def stopped_early(problem, method=None, **options):
        return problem.result_from_posterior(
            uniform,
            status="local",
            method="declared",
            seconds=0.0,
            iterations=1,
            message="a search stopped early",
        )

    monkeypatch.setattr(pb.Minimize, "solve", stopped_early)
    found = model.solve_bound("c_bound")
    assert found.bound == at_posterior
    assert np.array_equal(found.posterior, model.posterior_) and found.status == "local"
    assert found.message.startswith("a search stopped early")
    assert "below the search's best" in found.message
