"""Property: no reported bound lies below the exact-arithmetic bound at its own posterior.

For random problems over every (distance, divergence) pair, Renyi orders in (1, 10],
priors with entries down to 1e-300 and all-zero or all-one risks, the bound that
``solve()`` reports is compared with the bound at its posterior evaluated in 50-digit
arithmetic (mpmath): ``L``, the divergence and the kl inverse exactly, with the same
constant ``I`` (whose own certification is tested against mpmath sums elsewhere).
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE
from tests.maurer_xi import xi
from tests.mp_references import mp_kl

mp.mp.dps = 50
PAIRS = [(d, v) for v, ds in DISTANCES_BY_DIVERGENCE.items() for d in ds]
ALPHAS = [1.01, 1.3, 2.0, 3.7, 10.0]
SUMMED_M = [1, 3, 50, 777, 10_000]  # constants by binomial sums: a few, cached
ANY_M = [*SUMMED_M, 10**6, 2**40]  # closed forms and KL bounds take any m


def mp_kl_inverse(L, eps):
    if eps <= 0:
        return L
    lo, hi = L, mp.mpf(1)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mp_kl(L, mid) <= eps else (lo, mid)
    return lo  # below the root: the reference must not be above the true bound


def mp_bound(prob, q):
    """The bound at ``q`` in 50-digit arithmetic, clipped at 1 as reported."""
    q = [mp.mpf(float(x)) for x in q]
    prob = prob.standard_form().problem  # the bound's data
    p = [mp.mpf(float(x)) for x in prob.prior]
    on = [i for i, x in enumerate(q) if x > 0]
    total = mp.fsum(q)
    q = [x / total for x in q]
    L = mp.fsum(q[i] * mp.mpf(float(prob.risks[i])) for i in on)
    m, delta = prob.m, mp.mpf(prob.delta)
    if prob.divergence == "chi2":
        exact = {"linear": mp.mpf(1) / (4 * m), "sq": mp.mpf(3 * m - 2) / (16 * mp.mpf(m) ** 3)}
        constant = 1 / mp.mpf(12) if (m == 1 and prob.distance == "sq") else None
        constant = constant or exact.get(prob.distance, mp.mpf(prob.bound_function.constant))
        rhs = mp.sqrt(mp.fsum(q[i] ** 2 / p[i] for i in on) * constant / delta)
    elif prob.divergence == "renyi":
        alpha = mp.mpf(prob.alpha)
        moment = mp.fsum(q[i] ** alpha * p[i] ** (1 - alpha) for i in on)
        log_i = mp.mpf(prob.bound_function.log_constant)  # certified against mpmath sums
        rhs = mp.exp(mp.log(moment) / alpha + (log_i - mp.log(delta)) * (1 - 1 / alpha))
    else:
        K = mp.fsum(q[i] * mp.log(q[i] / p[i]) for i in on)
    d = prob.distance
    if d == "kl" and prob.divergence != "kl":
        value = mp_kl_inverse(L, rhs)
    elif d == "linear" and prob.divergence != "kl":
        value = L + rhs
    elif d == "sq" and prob.divergence != "kl":
        value = L + mp.sqrt(rhs)
    elif d == "kl":
        value = mp_kl_inverse(L, (K + mp.log(mp.mpf(xi(m)) / delta)) / m)
    elif d == "sq":
        value = L + mp.sqrt((K + mp.log(mp.mpf(xi(m)) / delta)) / (2 * m))
    else:
        grid = [mp.mpf(float(g)) for g in prob.bound_function.grid]
        penalty = K + mp.log(len(grid) / delta)
        if d == "linear":
            value = min(L + penalty / lam + lam / (8 * m) for lam in grid)
        else:
            value = min((1 - mp.exp(-c * L - penalty / m)) / (1 - mp.exp(-c)) for c in grid)
    return min(value, mp.mpf(1))


@st.composite
def problems(draw):
    distance, divergence = draw(st.sampled_from(PAIRS))
    H = draw(st.integers(1, 12))
    kind = draw(st.sampled_from(["random", "zeros", "ones", "grid"]))
    if kind == "zeros":
        risks = np.zeros(H)
    elif kind == "ones":
        risks = np.ones(H)
    else:
        values = st.floats(0, 1) if kind == "random" else st.sampled_from([0, 0.01, 0.5, 1])
        risks = np.array(draw(st.lists(values, min_size=H, max_size=H)))
    weights = np.array(draw(st.lists(st.floats(0.01, 1), min_size=H, max_size=H)))
    tiny = draw(st.lists(st.integers(0, 300), min_size=H, max_size=H))
    weights = np.where(np.array(tiny) > 250, weights * 10.0 ** -np.array(tiny), weights)
    prior = weights / math.fsum(weights)
    alpha = draw(st.sampled_from(ALPHAS)) if divergence == "renyi" else None
    summed = divergence == "renyi" or (divergence == "chi2" and distance == "kl")
    m = draw(st.sampled_from(SUMMED_M if summed else ANY_M))
    delta = draw(st.sampled_from([1e-6, 0.01, 0.05, 0.5, 0.99]))
    return pb.BoundProblem(risks, m, delta, distance, divergence, prior=prior, alpha=alpha)


def check_reported_bound_is_valid(prob):
    res = prob.solve()
    assert res.status in ("optimal", "optimal_inaccurate", "max_rounds")
    assert 0 <= res.bound <= 1
    assert res.bound >= mp_bound(prob, res.posterior)
    assert res.certificate.lower_bound <= res.bound


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_reported_bounds_are_never_below_the_exact_value(prob):
    """A hundred problems in the default suite; five thousand under ``slow``."""
    check_reported_bound_is_valid(prob)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_five_thousand_problems(prob):
    check_reported_bound_is_valid(prob)
