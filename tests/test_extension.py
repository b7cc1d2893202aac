"""The extension point, from outside: a divergence defined in this file alone, as a user
would write it, is solved by the declared engine as ours are."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import cvxpb as pb
from cvxpb.numerics.tolerances import nudge
from cvxpb.pac_bayes.divergences import Divergence


class SquaredHellinger(Divergence):
    """``H^2(q, p) = 1 - sum_i sqrt(q_i p_i)``, convex in ``q`` (a user's divergence:
    no closed-form ``linear_min``, no family)."""

    name = "hellinger"

    def core(self, q, p, rounding=0):
        affinity = math.fsum(np.sqrt(np.asarray(q, dtype=float) * np.asarray(p, dtype=float)))
        return float(nudge(1 - affinity + rounding * 1e-15, rounding))

    def core_gradient(self, q, p):
        return -0.5 * np.sqrt(np.asarray(p) / np.maximum(np.asarray(q, dtype=float), 1e-300))

    def expr(self, q, p):
        import cvxpy as cp

        return 1 - cp.sum(cp.multiply(np.sqrt(p), cp.sqrt(q)))


class HellingerWithDual(SquaredHellinger):
    """The same, with the closed-form minimum of ``g @ q + mu H^2(q)`` the engine uses to
    certify its scalarized programs: ``q_i = mu^2 p_i / (4 (g_i + nu)^2)`` with ``nu``
    making ``q`` sum to 1, and at any ``nu > -min g`` the dual value
    ``mu - nu - sum_i mu^2 p_i / (4 (g_i + nu))`` is a lower bound (weak duality)."""

    def linear_min(self, p, g, mu):
        g = np.asarray(g, dtype=float)
        if mu == 0:
            q = (g == g.min()).astype(float)
            return q / q.sum(), float(g.min())

        def mass(nu):
            return mu**2 * p / (4 * (g + nu) ** 2)

        lo, hi = -g.min(), -g.min() + mu  # mass(lo+) = inf, mass(hi) <= sum p / 4 < 1
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if mass(mid).sum() > 1 else (lo, mid)
        nu = hi
        dual = mu - nu - math.fsum(mu**2 * p / (4 * (g + nu)))
        return mass(nu) / mass(nu).sum(), float(nudge(dual - 1e-12 * (1 + abs(dual)), -1))


RISKS = np.array([0.12, 0.30, 0.08, 0.21, 0.15, 0.40])
N = 300


def _bound(q, divergence):
    L = pb.gibbs_risk(q, RISKS)
    H2 = pb.divergence_term(q, divergence)
    return L + pb.sqrt((H2 + math.log(2 / 0.05)) / (2 * N))


def _multistart(prior):
    def formula(x):
        x = np.clip(x, 0, None) / np.clip(x, 0, None).sum()
        H2 = 1 - np.sum(np.sqrt(x * prior))
        return RISKS @ x + np.sqrt((H2 + math.log(2 / 0.05)) / (2 * N))

    starts = [prior, np.full(6, 1 / 6), *np.random.default_rng(0).dirichlet(np.ones(6), 10)]
    best = min(
        minimize(
            formula,
            s,
            method="SLSQP",
            bounds=[(0, 1)] * 6,
            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
            options={"ftol": 1e-15, "maxiter": 1000},
        ).fun
        for s in starts
    )
    return formula, best


PRIOR = np.array([0.3, 0.1, 0.1, 0.2, 0.2, 0.1])


def test_a_users_divergence_is_solved_and_certified_by_the_declared_engine():
    q = pb.Posterior(PRIOR)
    problem = pb.Minimize(_bound(q, HellingerWithDual()))
    res = problem.solve(tol=1e-7)
    assert res.status == "optimal" and res.certificate.gap <= 1e-7
    assert "hellinger" in problem.explain()
    assert set(res.terms) == {"gibbs_risk", "hellinger"}
    w = res.posterior
    assert res.divergence == pytest.approx(1 - np.sum(np.sqrt(w * PRIOR)), abs=1e-12)
    formula, best = _multistart(PRIOR)
    assert res.certificate.lower_bound <= best + 1e-12
    assert best - 1e-7 <= res.bound <= best + 1e-7 and res.bound >= formula(w) - 1e-12


def test_without_a_closed_form_the_engine_still_proves_a_lower_bound():
    """No ``linear_min``: CVXPY solves the scalarized programs and the Frank-Wolfe bound
    certifies them; the status says how close that proof came."""
    q = pb.Posterior(PRIOR)
    res = pb.Minimize(_bound(q, SquaredHellinger())).solve(tol=1e-4)
    _, best = _multistart(PRIOR)
    assert res.certificate.lower_bound <= best + 1e-12 <= res.bound + 1e-12
    assert res.bound - best < 1e-6
    assert res.status == ("optimal" if res.certificate.gap <= 1e-4 else "optimal_inaccurate")


def test_a_term_needs_a_divergence_object():
    q = pb.Posterior.uniform(3)
    with pytest.raises(ValueError, match="divergence must be one of"):
        pb.divergence_term(q, "hellinger")
    with pytest.raises(ValueError, match="needs a cvxpb Divergence"):
        pb.declare.terms.DivergenceTerm(q, object())
