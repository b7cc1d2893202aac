"""A bound that is 1 at every posterior is certified at once by every method, in memory
that does not grow with the search; no certified lower bound of a risk is below 0."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.engine.methods import exact

# found by a fuzz: exact ended "max_rounds" here, and with H = 100 took 8 s and 3 GB
FUZZED = dict(
    risks=[0.9504636963259353, 0.14415961271963373, 0.9486494471372439],
    m=16,
    delta=5.520487414561669e-09,
    distance="linear",
    divergence="renyi",
    alpha=3.0,
)


def _pairs():
    return [
        (distance, divergence)
        for divergence, distances in {
            "chi2": ("linear", "sq", "kl"),
            "renyi": ("linear", "sq", "kl"),
            "kl": ("linear", "sq", "kl", "catoni"),
        }.items()
        for distance in distances
    ]


def _vertices_and_random(problem, rng, count=20):
    problem = problem.standard_form().problem  # the bound's data: its prior, its voters
    on = np.flatnonzero(problem.prior > 0)
    for i in on[:count]:
        q = np.zeros(problem.H)
        q[i] = 1.0
        yield q
    for _ in range(count):
        q = np.zeros(problem.H)
        q[on] = rng.dirichlet(np.full(on.size, 0.3))
        yield q
    yield problem.prior


def test_fuzzed_vacuous_problem_is_optimal_by_every_method():
    problem = pb.BoundProblem(**FUZZED)
    assert problem.standard_form().problem.vacuous()
    for method in problem.methods():
        res = problem.solve(method)
        assert res.status == "optimal", method
        assert res.bound == 1.0 and res.certificate.lower_bound == 1.0
        assert res.certificate.gap == 0.0


def test_exact_search_closes_a_vacuous_problem_at_once():
    """The branch and bound itself (not the shortcut every method takes first): an
    interval whose lower bound reaches 1 can hold nothing below the trivial bound."""
    res = exact.solve(pb.BoundProblem(**FUZZED).standard_form().problem)
    assert res.status == "optimal" and res.bound == 1.0
    assert res.iterations <= 1
    assert 1.0 - 1e-9 <= res.certificate.lower_bound <= 1.0


@pytest.mark.parametrize("H", [100, 1000])
def test_exact_on_a_large_vacuous_problem_stays_small(H):
    rng = np.random.default_rng(H)
    problem = pb.BoundProblem(
        rng.uniform(0, 0.1, H), m=1000, delta=1e-9, distance="linear", divergence="renyi", alpha=3
    )
    tracemalloc.start()
    try:
        res = exact.solve(problem.standard_form().problem)  # the search, no shortcut
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.status == "optimal" and res.bound == 1.0
    assert peak < 3e7  # statistics in chunks: tens of MB whatever H (1.1 GiB at H = 1000)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(
    H=st.integers(1, 40),
    low=st.floats(0.0, 1.0),
    m=st.integers(1, 40),
    log_delta=st.floats(-27.0, -0.5),
    pair=st.sampled_from(_pairs()),
    alpha=st.floats(1.05, 20.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_vacuous_problems_are_certified_by_every_method(H, low, m, log_delta, pair, alpha, seed):
    rng = np.random.default_rng(seed)
    distance, divergence = pair
    prior = rng.dirichlet(np.ones(H))
    problem = pb.BoundProblem(
        rng.uniform(low, 1.0, H),
        m=m,
        delta=float(np.exp(log_delta)),
        distance=distance,
        divergence=divergence,
        prior=prior,
        alpha=alpha if divergence == "renyi" else None,
    )
    assume(problem.standard_form().problem.vacuous())
    # the claim, by another route: the formula is at least 1 wherever we look
    for q in _vertices_and_random(problem, rng):
        assert problem.standard_form().problem.evaluate_unclipped(q) >= 1.0
    for method in problem.methods():
        tracemalloc.start()
        try:
            res = problem.solve(method)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert res.status == "optimal" and res.bound == 1.0, method
        assert res.certificate is not None and res.certificate.lower_bound == 1.0, method
        assert peak < 1e7, method
    searched = exact.solve(problem.standard_form().problem)  # the branch and bound alone
    assert searched.status == "optimal" and searched.bound == 1.0


@pytest.mark.parametrize(
    ("risks", "m", "delta", "distance", "divergence", "alpha"),
    [
        ([1e-300, 0.0], 1, 0.5, "kl", "renyi", 2.0),  # found by a fuzz: lower bound -5e-10
        ([0.0, 0.0], 1, 0.5, "kl", "renyi", 2.0),
        ([0.0, 1e-300, 1.0], 3, 0.9, "sq", "renyi", 1.5),
        ([1e-300, 0.0], 1, 0.5, "kl", "chi2", None),
        ([1e-300, 0.0], 1, 0.5, "linear", "kl", None),
    ],
)
def test_a_lower_bound_on_a_risk_is_at_least_zero(risks, m, delta, distance, divergence, alpha):
    problem = pb.BoundProblem(risks, m, delta, distance, divergence, alpha=alpha)
    for method in ("exact", "declared"):
        res = problem.solve(method)
        assert 0.0 <= res.certificate.lower_bound <= res.bound, method
        for value in res.certificate.neighbours.values():  # each, from its own posterior
            assert value >= res.certificate.lower_bound
    best = problem.solve("declared")
    assert problem.solve("exact").bound <= best.bound + 1e-9


@settings(max_examples=80, deadline=None)
@given(
    H=st.integers(1, 6),
    tiny=st.sampled_from([0.0, 1e-300, 5e-324, 1e-200]),
    m=st.integers(1, 20),
    delta=st.floats(0.01, 0.99),
    pair=st.sampled_from(_pairs()),
    seed=st.integers(0, 2**32 - 1),
)
def test_certificates_lie_in_zero_to_the_bound(H, tiny, m, delta, pair, seed):
    rng = np.random.default_rng(seed)
    risks = np.where(rng.random(H) < 0.5, tiny, rng.random(H))
    alpha = 3.0 if pair[1] == "renyi" else None
    problem = pb.BoundProblem(risks, m, delta, *pair, alpha=alpha)
    res = problem.solve("exact")
    assert 0.0 <= res.certificate.lower_bound <= res.bound


def test_the_declared_search_takes_the_shortcut_too():
    """Found by hypothesis on another release: one classifier of risk 1, m = 1, kl and
    chi-squared. The declared search (which takes declarations, not the standard form)
    closed it with a lower bound of 1 - 9e-16; certified at once, it is 1."""
    problem = pb.BoundProblem(
        np.array([1.0]), m=1, delta=float(np.exp(-1.0)), distance="kl", divergence="chi2"
    )
    assert problem.standard_form().problem.vacuous()
    res = problem.solve("declared")
    assert res.status == "optimal" and res.bound == 1.0 and res.certificate.lower_bound == 1.0
