"""method="exact" against independent routes: brute force, the SOCP, the closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvxpb as pb
from tests.brute_force import bound, brute_force_minimum

PAIRS = [
    ("linear", "chi2"),
    ("sq", "chi2"),
    ("kl", "chi2"),
    ("linear", "kl"),
    ("sq", "kl"),
    ("kl", "kl"),
    ("catoni", "kl"),
]


def seeds(count, default):
    """``range(count)``, the seeds past ``default`` under ``slow`` (run by CI too): the
    first ones already give each kind of instance (a zero risk at ``seed % 3 == 0``, a
    prior weight of zero at ``seed % 4 == 1``)."""
    return [s if s < default else pytest.param(s, marks=pytest.mark.slow) for s in range(count)]


def random_instance(seed):
    rng = np.random.default_rng(seed)
    H = int(rng.integers(2, 7))
    m = int(rng.choice([20, 100, 1000]))
    risks = np.round(rng.uniform(0, 0.6, H) * m) / m  # multiples of 1/m: ties happen
    if seed % 3 == 0:
        risks[0] = 0.0
    prior = rng.dirichlet(np.ones(H))
    if seed % 4 == 1:
        prior[-1] = 0.0  # a classifier the prior excludes
        prior /= prior.sum()
    delta = float(rng.choice([0.01, 0.05, 0.3]))
    return risks, prior, m, delta


@pytest.mark.parametrize("seed", seeds(8, 4))
@pytest.mark.parametrize(("distance", "divergence"), PAIRS)
def test_exact_is_never_beaten_by_brute_force(seed, distance, divergence):
    risks, prior, m, delta = random_instance(seed)
    prob = pb.BoundProblem(risks, m, delta, distance, divergence, prior=prior)
    res = prob.solve()
    assert res.status == "optimal"
    ours = bound(res.posterior, risks, prior, m, delta, distance, divergence)
    assert ours <= res.bound <= ours + 1e-9  # reported bound: re-evaluated, rounded up
    brute = brute_force_minimum(risks, prior, m, delta, distance, divergence, seed=seed)
    assert ours <= brute + 1e-10  # exact never beaten
    assert brute >= res.certificate.lower_bound - 1e-12  # the certificate holds
    assert res.certificate.gap <= 2e-9


@pytest.mark.parametrize("seed", seeds(5, 2))
@pytest.mark.parametrize("alpha", [1.5, 3.0, 8.0])
@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_renyi_exact_is_never_beaten_by_brute_force(seed, alpha, distance):
    risks, prior, m, delta = random_instance(seed)
    prob = pb.BoundProblem(risks, m, delta, distance, "renyi", prior=prior, alpha=alpha)
    res = prob.solve()
    ours = bound(res.posterior, risks, prior, m, delta, distance, "renyi", alpha)
    assert ours <= res.unclipped_bound <= ours + 1e-9
    assert res.bound == min(res.unclipped_bound, 1.0)  # a risk is at most 1
    brute = brute_force_minimum(risks, prior, m, delta, distance, "renyi", seed=seed, alpha=alpha)
    # the minimum is that of the bound, clipped at 1: where the formula is above 1 at
    # every posterior, the trivial bound 1 is the minimum and is certified at once
    assert min(ours, 1.0) <= min(brute, 1.0) + 1e-10
    assert min(brute, 1.0) >= res.certificate.lower_bound - 1e-12  # the certificate holds
    # for alpha > 2 the weights (t - d)^(1/(alpha-1)) have infinite slope at a breakpoint,
    # faster than floats in t resolve: the intervals there are searched in log(t - d)
    assert res.status == "optimal" and res.certificate.gap <= 1e-9


@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_renyi_of_order_two_is_chi2(distance):
    risks = np.random.default_rng(5).uniform(0, 0.5, 300)
    chi2 = pb.BoundProblem(risks, 800, distance=distance).solve()
    renyi = pb.BoundProblem(risks, 800, distance=distance, divergence="renyi", alpha=2).solve()
    # the same optimum; renyi carries log(sum q^2/p) where chi2 carries the sum itself
    assert renyi.bound == pytest.approx(chi2.bound, rel=1e-10, abs=0)
    assert np.allclose(renyi.posterior, chi2.posterior, rtol=0, atol=1e-5)  # a flat optimum


def test_renyi_family_at_order_two_matches_the_cumulative_sums():
    from cvxpb.pac_bayes.families import Chi2Family, RenyiFamily

    rng = np.random.default_rng(0)
    risks = np.round(rng.uniform(0, 0.5, 300) * 100) / 100
    prior = rng.dirichlet(np.ones(300))
    v = np.concatenate([[-800, -40], np.linspace(-10, 10, 50), [40, 800]])
    (L1, D1), (L2, D2) = Chi2Family(risks, prior).stats(v), RenyiFamily(risks, prior, 2.0).stats(v)
    # the Renyi family carries D_2 = log(sum q^2/p); the chi2 family the sum itself
    assert np.allclose(L1, L2, rtol=0, atol=1e-14) and np.allclose(np.log(D1), D2, atol=1e-13)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("solver", ["CLARABEL", "ECOS", "SCS"])
def test_exact_matches_the_socp(seed, solver):
    rng = np.random.default_rng(seed)
    risks, prior = rng.uniform(0, 0.5, 25), rng.dirichlet(np.ones(25))
    prob = pb.BoundProblem(risks, m=300, delta=0.05, distance="linear", prior=prior)
    exact, socp = prob.solve(), prob.solve(method="cvx", solver=solver)
    assert socp.status == "optimal" and socp.solver == solver
    assert exact.bound <= socp.bound + 1e-12
    assert socp.bound - exact.bound <= (1e-4 if solver == "SCS" else 1e-6)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("uniform", [True, False])
def test_algorithm2_matches_exact(seed, uniform):
    rng = np.random.default_rng(seed)
    H = 40
    risks = rng.uniform(0, 0.5, H)
    prior = None if uniform else rng.dirichlet(np.ones(H))
    prob = pb.BoundProblem(risks, m=int(rng.integers(50, 3000)), distance="linear", prior=prior)
    exact, closed = prob.solve(), prob.solve(method="closed_form")
    assert closed.bound == pytest.approx(exact.bound, abs=1e-10)
    assert np.allclose(closed.posterior, exact.posterior, atol=1e-6)


def test_theorem11_when_its_conditions_hold_and_fail():
    risks = np.array([0.10, 0.11, 0.12, 0.13])
    prob = pb.BoundProblem(risks, m=50, delta=0.05, distance="linear")
    res = prob.solve(method="closed_form", rule="theorem11")
    assert res.status == "optimal" and res.support_size == 4
    assert res.bound == pytest.approx(prob.solve().bound, abs=1e-10)
    far = pb.BoundProblem([0.0, 0.5, 0.9], m=5000, delta=0.05, distance="linear")
    failed = far.solve(method="closed_form", rule="theorem11")
    assert failed.status == "conditions_not_met" and np.isnan(failed.bound)
    assert "Theorem 11" in failed.message


def test_uniform_prior_support_is_an_ordered_subset():
    risks = np.random.default_rng(3).uniform(0, 0.5, 300)
    res = pb.BoundProblem(risks, m=2000, distance="sq").solve()
    order = np.argsort(risks)
    weights = res.posterior[order]
    k = res.support_size
    assert np.all(weights[:k] > 0) and np.all(weights[k:] == 0)
    assert np.all(np.diff(weights[:k]) <= 1e-15)  # weights fall as risks rise
    lo, hi = res.certificate.segment
    assert lo <= res.certificate.value <= hi
    neighbours = res.certificate.neighbours  # the family at the surrounding breakpoints
    assert len(neighbours) >= 2 and min(neighbours.values()) >= res.bound - 1e-9
    assert set(neighbours) & {lo, hi}


@pytest.mark.parametrize(("distance", "divergence"), PAIRS)
def test_separable_data_all_risks_zero(distance, divergence):
    prob = pb.BoundProblem(np.zeros(10), m=200, distance=distance, divergence=divergence)
    res = prob.solve()
    assert res.status == "optimal" and res.empirical_risk == 0.0
    assert np.allclose(res.posterior, 0.1)  # Lemma 4 (Sahu & Hemachandra): Q = P, equal risks
    assert 0 < res.bound < 1


@pytest.mark.parametrize(("distance", "divergence"), PAIRS)
def test_single_classifier(distance, divergence):
    res = pb.BoundProblem([0.2], m=100, distance=distance, divergence=divergence).solve()
    assert res.posterior.tolist() == [1.0] and res.bound > 0.2


@settings(max_examples=40, deadline=None)
@given(
    risks=st.lists(st.floats(0, 1), min_size=1, max_size=30),
    weights=st.lists(st.floats(0.01, 1), min_size=30, max_size=30),
    m=st.integers(1, 10**5),
    delta=st.floats(1e-4, 0.5),
    pair=st.sampled_from(PAIRS),
)
def test_invariants(risks, weights, m, delta, pair):
    risks = np.array(risks)
    prior = np.array(weights[: risks.size]) / np.sum(weights[: risks.size])
    distance, divergence = pair
    prob = pb.BoundProblem(risks, m, delta, distance, divergence, prior=prior)
    res = prob.solve()
    q = res.posterior
    assert np.all(q >= 0) and abs(q.sum() - 1) <= 1e-12  # on the simplex
    assert res.bound >= res.empirical_risk  # never below the empirical risk term
    assert res.bound <= prob.value_at(prior) + 1e-10  # never beaten by the prior
    vertex = np.eye(risks.size)[np.argmin(risks)]
    assert res.bound <= prob.value_at(vertex) + 1e-10  # nor by the best single classifier


@pytest.mark.slow  # 23 s: the search repeats with every incumbent checked
def test_incumbents_are_checked_from_the_posterior_when_the_statistics_disagree():
    from cvxpb.engine.methods import exact

    prob = pb.BoundProblem([0.1, 0.2, 0.3, 0.15], m=200, divergence="kl")
    prob = prob.standard_form().problem  # the bound's data, which the search takes
    family = exact.family_of(prob)
    agree = exact._searched(family, prob.bound_function, 1e-9, exact._evaluator(prob, family), 200)
    assert agree.evaluate is None  # one search: the statistics were right at the incumbent
    calls = []

    def disagreeing(x):
        calls.append(x)
        return 0.5

    again = exact._searched(family, prob.bound_function, 1e-9, disagreeing, 200)
    assert again.evaluate is disagreeing and len(calls) >= 2  # searched again, checking each
