"""``BoundProblem.solve(method="declared")``: the problem's bound as a declaration,
solved by the general engine, against ``method="exact"``'s closed-form families."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import cvxpb as pb

PAIRS = [
    ("kl", "kl", None),
    ("sq", "kl", None),
    ("linear", "kl", None),
    ("catoni", "kl", None),
    ("linear", "chi2", None),
    ("sq", "chi2", None),
    ("kl", "chi2", None),
    ("kl", "renyi", 1.01),
    ("linear", "renyi", 3.0),
]


def _agree(problem):
    exact, declared = problem.solve(), problem.solve("declared")
    assert declared.method == "declared" and declared.status == "optimal"
    assert declared.bound == problem.value_at(declared.posterior)  # re-evaluated, not the solver's
    assert abs(declared.bound - exact.bound) <= 1e-7
    assert declared.certificate.lower_bound <= exact.bound
    assert exact.certificate.lower_bound <= declared.bound
    assert declared.certificate.gap == pytest.approx(
        declared.bound - declared.certificate.lower_bound, abs=1e-15
    )
    return exact, declared


@pytest.mark.parametrize(("distance", "divergence", "alpha"), PAIRS)
def test_declared_method_agrees_with_the_exact_method(distance, divergence, alpha):
    rng = np.random.default_rng(len(distance) + len(divergence))
    risks = rng.uniform(0.05, 0.45, 60)
    _agree(pb.BoundProblem(risks, 500, 0.05, distance, divergence, alpha=alpha))


@pytest.mark.parametrize(
    "case",
    [
        {"prior": "zeros and 1e-12"},
        {"risks": "all zero"},
        {"risks": "all one", "divergence": "chi2"},
        {"H": 1, "distance": "catoni"},
        {"m": 1, "distance": "linear", "divergence": "chi2"},
        {"m": 10**9},
        {"constants": "paper", "distance": "sq", "divergence": "chi2"},
    ],
    ids=lambda case: ", ".join(f"{k}={v}" for k, v in case.items()),
)
def test_declared_method_at_the_edges(case):
    rng = np.random.default_rng(3)
    H = case.get("H", 40)
    risks = {"all zero": np.zeros(H), "all one": np.ones(H)}.get(
        case.get("risks"), rng.uniform(0.05, 0.45, H)
    )
    prior = None
    if "prior" in case:
        prior = rng.dirichlet(np.ones(H))
        prior[:4], prior[4] = 0.0, 1e-12
        prior /= prior.sum()
    problem = pb.BoundProblem(
        risks,
        case.get("m", 400),
        0.05,
        case.get("distance", "kl"),
        case.get("divergence", "kl"),
        prior=prior,
        constants=case.get("constants", "exact"),
    )
    _, declared = _agree(problem)
    if prior is not None:
        assert np.all(declared.posterior[:4] == 0)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    H=st.integers(1, 30),
    m=st.integers(1, 5000),
    pair=st.sampled_from(PAIRS),
)
@example(seed=254, H=15, m=254, pair=("sq", "chi2", None))  # projecting twice moved q by ulps
def test_declared_and_exact_methods_agree_on_random_problems(seed, H, m, pair):
    rng = np.random.default_rng(seed)
    risks = rng.uniform(0, 1, H) ** 2
    prior = rng.dirichlet(np.ones(H))
    _agree(pb.BoundProblem(risks, m, 0.1, pair[0], pair[1], prior=prior, alpha=pair[2]))


def test_the_declaration_is_the_bound():
    """The declared expression evaluated at a posterior is the problem's bound there."""
    from cvxpb.engine.declare.pareto import Values

    rng = np.random.default_rng(5)
    problem = pb.BoundProblem(rng.uniform(0.1, 0.4, 7), 300, 0.05, "kl", "renyi", alpha=2.5)
    q = rng.dirichlet(np.ones(7))
    declared = float(problem.bound.evaluate(Values(q), +1))
    assert declared == pytest.approx(problem.value_at(q), rel=1e-13)
    assert "pac_bayes[kl, renyi]" in repr(problem.bound)
