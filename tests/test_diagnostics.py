"""Posterior diagnostics: N(alpha), HHI, and the bound on ordered subsets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb import BoundProblem
from cvxpb.app.diagnostics import hhi, n_alpha, ordered_subset_bounds, posterior_cdf, summary
from cvxpb.engine.methods.closed_form import _subset_terms
from tests.brute_force import brute_force_minimum


def test_n_alpha_by_hand():
    risks = np.array([0.3, 0.1, 0.2, 0.4])
    q = np.array([0.1, 0.5, 0.3, 0.1])  # by risk: 0.5, 0.3, 0.1, 0.1
    assert posterior_cdf(q, risks) == pytest.approx([0.5, 0.8, 0.9, 1.0])
    assert [n_alpha(q, risks, a) for a in (0.5, 0.8, 0.85, 0.9, 0.95, 1.0)] == [1, 2, 3, 3, 4, 4]


def test_hhi_is_the_l2_norm():
    assert hhi(np.full(100, 0.01)) == pytest.approx(0.1)
    assert hhi([0.0, 1.0, 0.0]) == 1.0
    assert summary(np.array([0.6, 0.4, 0.0]), np.array([0.1, 0.2, 0.3]))["support"] == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.floats(0.01, 1))
def test_n_alpha_is_the_first_index_reaching_alpha(weights, alpha):
    q = np.array(weights) + 1e-3
    q /= q.sum()
    risks = np.linspace(0, 1, q.size)  # already in risk order
    n = n_alpha(q, risks, alpha)
    assert np.cumsum(q)[n - 1] >= alpha - 1e-12
    assert n == 1 or np.cumsum(q)[n - 2] < alpha - 1e-12


def test_bad_posterior_is_a_value_error():
    with pytest.raises(ValueError, match="posterior must sum to 1"):
        hhi([0.5, 0.1])
    with pytest.raises(ValueError, match="alpha must lie in"):
        n_alpha([1.0], [0.1], 1.5)


def test_linear_chi2_subsets_match_the_closed_form_where_it_is_positive():
    """On a prefix whose KKT weights (Sahu & Hemachandra, eq. 9 with 1/H') are all positive the
    restricted optimum is ``mean + Delta``; exact search on the family must agree."""
    risks = np.sort(np.random.default_rng(3).uniform(0.05, 0.4, 40))
    prob = BoundProblem(risks, 300, 0.05, "linear", "chi2")
    table = ordered_subset_bounds(prob)
    data = prob.standard_form().problem
    c2 = data.bound_function.constant / data.delta
    p = data.prior
    P, mean, delta = _subset_terms(risks, p, c2)
    checked = 0
    for k in range(1, risks.size + 1):
        weights = (p[:k] / P[k - 1]) * (1 + (mean[k - 1] - risks[:k]) / delta[k - 1])
        if np.isfinite(delta[k - 1]) and np.all(weights > 0):
            assert table["bound"][k - 1] == pytest.approx(mean[k - 1] + delta[k - 1], rel=1e-9)
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize(("distance", "divergence"), [("sq", "chi2"), ("kl", "chi2"), ("kl", "kl")])
def test_subset_bounds_fall_to_the_optimum_and_match_brute_force(distance, divergence):
    rng = np.random.default_rng(7)
    risks = rng.uniform(0.1, 0.45, 12)
    prob = BoundProblem(risks, 150, 0.05, distance, divergence)
    table = ordered_subset_bounds(prob)
    assert np.all(np.diff(table["bound"]) <= 1e-12)
    assert table["bound"].iloc[-1] == pytest.approx(prob.solve().bound, abs=1e-9)
    order = np.argsort(risks)
    for size in (1, 3, 6):  # the independent route: multi-start SLSQP on the subset
        best = brute_force_minimum(
            risks, prob.posterior.prior, 150, 0.05, distance, divergence, support=order[:size]
        )
        assert table["bound"][size - 1] <= best + 1e-7
        assert table["bound"][size - 1] >= best - 1e-5
