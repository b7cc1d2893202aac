"""Issue 12's wrong bounds, each against an independent route (mpmath, the SOCP)."""

import math

import mpmath as mp
import numpy as np
import pytest

import cvxpb as pb
from cvxpb.numerics.constants import log_moment_supremum

mp.mp.dps = 40


def mp_log_moment(m, l, distance, power):
    """``log sum_k Bin(k; m, l) phi(k/m, l)^power`` in 40-digit arithmetic."""
    l = mp.mpf(l)
    total = mp.mpf(0)
    for k in range(m + 1):
        x = mp.mpf(k) / m
        if distance == "kl":
            phi = (x * mp.log(x / l) if k else 0) + (
                (1 - x) * mp.log((1 - x) / (1 - l)) if k < m else 0
            )
        else:
            phi = abs(x - l) ** (1 if distance == "linear" else 2)
        if phi > 0:
            total += mp.binomial(m, k) * l**k * (1 - l) ** (m - k) * mp.power(phi, power)
    return mp.log(total)


ALPHAS = [1 + 1e-9, 1 + 1e-6, 1.001, 1.01, 1.1]


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("m", [1, 10, 100])
@pytest.mark.parametrize("distance", ["linear", "sq"])
def test_renyi_constant_near_order_one_bounds_mpmath_from_above(alpha, m, distance):
    power = alpha / (alpha - 1)
    ours, l_star = log_moment_supremum(m, distance, power)
    at_star = float(mp_log_moment(m, l_star, distance, power))
    # certified from above, and tight where it matters: the bound takes (log I)/alpha',
    # and log I carries rounding errors of order alpha' eps
    assert at_star <= ours
    assert (ours - at_star) / power <= 1e-12 + 1e-9 * abs(at_star) / power
    for l in np.linspace(0.01, 0.99, 7):  # no point of a coarse grid lies above it
        assert float(mp_log_moment(m, l, distance, power)) <= ours


@pytest.mark.parametrize("alpha", [1.01, 1.1, 3.0])
@pytest.mark.parametrize("m", [10, 200])
def test_kl_renyi_constant_bounds_mpmath_from_above(alpha, m):
    power = alpha / (alpha - 1)
    ours, l_star = log_moment_supremum(m, "kl", power)
    at_star = float(mp_log_moment(m, l_star, "kl", power))
    assert at_star <= ours <= at_star + 1e-9 * max(1.0, abs(at_star))


def test_kl_distance_refuses_orders_too_close_to_one():
    with pytest.raises(ValueError, match="alpha"):
        pb.bound_constant("kl", 100, alpha=1.001)


def test_linear_renyi_bound_never_falls_below_its_value_as_alpha_tends_to_one():
    # issue 12, item 1: alpha = 1.003 gave 0.1000 (the Gibbs risk, no bound at all)
    risks = [0.1, 0.2, 0.3]
    bounds = [
        pb.BoundProblem(risks, 10000, distance="linear", divergence="renyi", alpha=a).solve().bound
        for a in (1.1, 1.01, 1.003)
    ]
    assert bounds[0] < bounds[1] < bounds[2]
    assert bounds[2] > 0.1 + 0.05  # the complexity term grows, it does not underflow
    # one example, risk 0: the bound tends to the vacuous value 1, never below it
    tiny = pb.BoundProblem([0.0], 1, distance="linear", divergence="renyi", alpha=1 + 1e-6)
    assert tiny.solve().bound > 0.99


def test_bound_constant_never_underflows_to_zero():
    # issue 12, item 1: I(10^4, alpha' = 334) is about exp(-1700), below every float
    power = 1.003 / 0.003
    log_i, l_star = log_moment_supremum(10000, "linear", power)
    assert float(mp_log_moment(10000, l_star, "linear", power)) <= log_i < -700
    assert pb.bound_constant("linear", 10000, alpha=1.003) == math.ulp(0.0)  # rounded up, not 0


def test_renyi_bound_at_half_is_not_below_the_true_bound():
    # issue 12, item 4: the supremum stopped short at l = 0.49852; the true one is near 0.4995
    prob = pb.BoundProblem([0.1, 0.2], m=1000, distance="linear", divergence="renyi", alpha=3)
    q = np.array([0.5, 0.5])
    log_i = float(mp_log_moment(1000, 0.499507, "linear", 1.5))  # a lower bound on log I
    D = math.log(0.5**3 * 0.5**-2 * 2) / 2  # D_3(q || uniform) = 0
    true_lower = 0.15 + math.exp((D + log_i - math.log(0.05)) / 1.5)
    assert prob.value_at(q) >= true_lower


def test_exact_with_a_tiny_prior_weight_matches_the_socp():
    # issue 12, item 2: 1,002,520 reported as "optimal"
    prior = [1e-20, 0.01, 0.99 - 1e-20]
    prob = pb.BoundProblem([0.0, 0.01, 0.2], 10000, 0.05, "linear", "chi2", prior=prior)
    exact, socp = prob.solve(), prob.solve(method="cvx")
    assert exact.status == "optimal" and exact.certificate.gap <= 1e-9
    assert exact.bound <= socp.bound + 1e-9 and exact.bound == pytest.approx(0.2100, abs=1e-4)


@pytest.mark.parametrize("seed", range(6))
def test_exact_against_the_socp_with_dirichlet_priors_down_to_1e_300(seed):
    rng = np.random.default_rng(seed)
    H = 30
    prior = rng.dirichlet(np.full(H, 0.01))
    prior[rng.choice(H, 3, replace=False)] = [1e-300, 1e-200, 1e-100]
    prior = np.maximum(prior, 1e-300)
    prior /= math.fsum(prior)
    risks = rng.beta(2, 8, H)
    prob = pb.BoundProblem(risks, 3000, 0.05, "linear", "chi2", prior=prior)
    exact = prob.solve()
    assert exact.status == "optimal" and exact.certificate.gap <= 1e-9
    # Clarabel cannot scale 1/sqrt(1e-300); the SOCP over the classifiers with a prior
    # above 1e-12 gives a feasible posterior of the full problem, so exact is not above it
    kept = np.where(prior > 1e-12, prior, 0.0)
    sub = pb.BoundProblem(risks, 3000, 0.05, "linear", "chi2", prior=kept / math.fsum(kept))
    socp = sub.solve(method="cvx")
    assert socp.status == "optimal"
    assert exact.bound <= prob.value_at(socp.posterior) + 1e-7  # the SOCP's own accuracy
    # and no posterior of a multistart lies below the certified lower bound
    draws = rng.dirichlet(np.full(H, 0.3), size=300)
    assert min(prob.value_at(q) for q in draws) >= exact.certificate.lower_bound


@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
@pytest.mark.parametrize("risks", [[0.2, 0.1], [0.5, 0.0], [0.3, 0.3]])
def test_renyi_with_a_tiny_prior_weight_solves(distance, risks):
    # issue 12, item 3: NaN with status max_rounds, or an internal ValueError
    prob = pb.BoundProblem(
        risks, 100, distance=distance, divergence="renyi", alpha=3, prior=[1 - 1e-160, 1e-160]
    )
    res = prob.solve()
    assert math.isfinite(res.bound) and res.status == "optimal" and res.certificate.gap <= 1e-9
    assert res.bound == prob.value_at(res.posterior)  # re-evaluated from its posterior
    at_prior = prob.value_at(np.array([1 - 1e-160, 1e-160]))
    assert res.bound <= at_prior + 1e-12  # never worse than the prior itself
    # and never beaten by a grid over the simplex (two classifiers: q = (1 - s, s))
    grid = np.concatenate([np.geomspace(1e-300, 1e-100, 50), np.linspace(0, 1, 201)])
    best_on_grid = min(prob.value_at(np.array([1 - s, s])) for s in grid)
    assert res.certificate.lower_bound <= best_on_grid and res.bound <= best_on_grid + 1e-9
    assert res.certificate.lower_bound <= res.bound


def test_a_prior_weight_of_1e_252_at_the_least_risk_is_certified():
    # found by the property test: (t Z)^2 underflowed, and the breakpoint where the
    # weight moves off the tiny-prior classifiers is below the resolution of t
    risks = np.array([0.0, 0.01, 0.01, 0.0, 0.01, 0.01, 0.01, 0.0, 0.01, 0.5])
    prior = np.where(risks == 0, 1e-252, 1 / 7)
    prior[-1] = 1 - math.fsum(prior[:-1])
    prob = pb.BoundProblem(risks, 1, 0.5, "linear", "chi2", prior=prior)
    res = prob.solve()
    assert res.status == "optimal" and res.certificate.gap <= 1e-9
    # Clarabel cannot scale 1/sqrt(1e-252): a multistart instead, none below the certificate
    draws = np.random.default_rng(0).dirichlet(np.full(10, 0.3), size=500)
    assert min(prob.value_at(q) for q in draws) >= res.certificate.lower_bound
