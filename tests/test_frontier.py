"""The frontier lower bounds of method="exact": below every posterior they claim to cover.

For an interval of the family's parameter, ``frontier_pairs`` gives pairs ``(L, div)``
such that no posterior whose ``L`` lies in the interval's ``L``-range has a lower bound
than the least ``g`` of the pairs. Checked against the family itself, sampled densely
inside the interval, and against random posteriors anywhere on the simplex; and the
slopes the tangents use against finite differences along the family.
"""

import numpy as np
import pytest

from cvxpb.engine.methods.exact import family_of
from cvxpb.engine.one_bound import OneBound
from cvxpb.pac_bayes.families import scaled_parameter


def problem(seed, divergence, distance):
    """A random problem of ``H`` in [3, 40] with a Dirichlet prior, and its family."""
    rng = np.random.default_rng(seed)
    H = int(rng.integers(3, 40))
    prior = rng.dirichlet(np.full(H, [0.3, 1.0, 5.0][seed % 3]))
    risks = np.round(rng.uniform(0, 0.6, H) * 200) / 200
    prob = OneBound(risks, 200, 0.05, distance, divergence, prior=prior)
    return prob, family_of(prob)


def frontier_lower(prob, family, xa, xb):
    a = [np.array([xa]), *family.stats(np.array([xa]))]
    b = [np.array([xb]), *family.stats(np.array([xb]))]
    L, div = family.frontier_pairs(a, b)
    return float(np.min(prob.bound_function(L, div, rounding=-1))), a, b


PAIRS = [("kl", d) for d in ("linear", "sq", "kl", "catoni")] + [
    ("chi2", d) for d in ("linear", "sq", "kl")
]


def cases(seeds: int):
    return pytest.mark.parametrize(
        ("divergence", "distance", "seed"), [(*pair, s) for pair in PAIRS for s in range(seeds)]
    )


@cases(6)
def test_no_family_point_inside_an_interval_is_below_its_frontier_bound(divergence, distance, seed):
    prob, family = problem(seed, divergence, distance)
    rng = np.random.default_rng(100 + seed)
    for _ in range(20):
        xa, xb = np.sort(rng.uniform(-6, 6, 2))
        lower, _, _ = frontier_lower(prob, family, xa, xb)
        inside = np.linspace(xa, xb, 201)
        values = prob.bound_function(*family.stats(inside), rounding=+1)
        assert lower <= np.min(values) + 1e-12


@cases(4)
def test_no_posterior_with_l_in_the_range_is_below_the_frontier_bound(divergence, distance, seed):
    prob, family = problem(seed, divergence, distance)
    rng = np.random.default_rng(200 + seed)
    edges = np.linspace(-6, 6, 25)
    bounds = [
        frontier_lower(prob, family, xa, xb) for xa, xb in zip(edges[:-1], edges[1:], strict=True)
    ]
    for _ in range(300):
        q = rng.dirichlet(np.full(prob.H, rng.choice([0.05, 0.5, 3.0]))) * (prob.prior > 0)
        q /= q.sum()
        L, div = prob.terms(q)
        value = prob.evaluate_unclipped(q)
        for lower, a, b in bounds:
            lo, hi = sorted((a[1][0], b[1][0]))
            if lo <= L <= hi:
                assert lower <= value + 1e-12


@pytest.mark.parametrize("divergence", ["kl", "chi2"])
def test_the_slopes_are_the_frontiers(divergence):
    prob, family = problem(1, divergence, "linear")
    for x in (-2.0, 0.0, 1.5):
        h = 1e-6
        (L1, D1), (L2, D2) = [
            (float(v[0]) for v in family.stats(np.array([x + s]))) for s in (-h, h)
        ]
        L, D = (float(v[0]) for v in family.stats(np.array([x])))
        t = float(scaled_parameter(x, family.scale))
        expected = -t if divergence == "kl" else -2 * D / (t - (L - family.u1))
        assert (D2 - D1) / (L2 - L1) == pytest.approx(expected, rel=1e-4)
