"""An independent route to the optimal bound: the bound formulas written out again
from the papers, a scipy root finder for kl, and multi-start SLSQP over the simplex."""

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import rel_entr

from cvxpb.numerics.constants import bound_constant, kl_constant
from tests.maurer_xi import xi


def kl(a, b):
    return rel_entr(a, b) + rel_entr(1 - a, 1 - b)


def kl_upper(L, eps):
    if eps <= 0:
        return L
    top = 1 - 1e-16
    if kl(L, top) <= eps:
        return 1.0
    return brentq(lambda r: kl(L, r) - eps, L, top, xtol=1e-15, rtol=1e-15)


def chi2_constant(distance, m):
    if distance == "linear":
        return 1 / (4 * m)
    if distance == "sq":
        return (3 * m - 2) / (16 * m**3) if m > 1 else 1 / 12
    return kl_constant(m)


def bound(q, risks, prior, m, delta, distance, divergence, alpha=None):
    q = np.clip(q, 0, None)
    q = q / q.sum()
    L = float(q @ risks)
    on = q > 0
    if divergence in ("chi2", "renyi"):
        if divergence == "chi2":
            rhs = np.sqrt(np.sum(q[on] ** 2 / prior[on]) * chi2_constant(distance, m) / delta)
        else:  # Theorem 1: E_P[(q/p)^a]^(1/a) (I(m, a')/delta)^(1/a'); I from cvxpb (mpmath-tested)
            moment = np.sum(q[on] ** alpha * prior[on] ** (1 - alpha))
            constant = bound_constant(distance, m, alpha=alpha)
            rhs = moment ** (1 / alpha) * (constant / delta) ** (1 - 1 / alpha)
        if distance == "linear":
            return L + rhs
        if distance == "sq":
            return L + np.sqrt(rhs)
        return kl_upper(L, rhs)
    K = float(np.sum(q[on] * np.log(q[on] / prior[on])))
    if distance == "kl":
        return kl_upper(L, (K + np.log(xi(m) / delta)) / m)
    if distance == "sq":
        return L + np.sqrt((K + np.log(xi(m) / delta)) / (2 * m))
    if distance == "linear":
        lam = np.sqrt(8 * m) * np.geomspace(0.25, 64, 41)
        return float(np.min(L + (K + np.log(41 / delta)) / lam + lam / (8 * m)))
    C = np.geomspace(1e-2, 1e2, 41)
    values = (1 - np.exp(-C * L - (K + np.log(41 / delta)) / m)) / (1 - np.exp(-C))
    return float(np.min(values))


def brute_force_minimum(
    risks, prior, m, delta, distance, divergence, starts=30, seed=0, alpha=None, support=None
):
    """Best bound found by SLSQP from the prior, every vertex and random Dirichlet starts,
    over posteriors that vanish off ``support`` (default: where the prior has mass)."""
    rng = np.random.default_rng(seed)
    support = np.flatnonzero(prior > 0) if support is None else np.asarray(support)
    H = support.size

    def f(z):
        q = np.zeros(risks.size)
        q[support] = np.clip(z, 0, None)
        return bound(q, risks, prior, m, delta, distance, divergence, alpha)

    points = [prior[support] / prior[support].sum(), *np.eye(H), *rng.dirichlet(np.ones(H), starts)]
    best = min(f(z) for z in points)
    for z0 in points:
        res = minimize(
            f,
            z0,
            method="SLSQP",
            bounds=[(0, 1)] * H,
            constraints=[{"type": "eq", "fun": lambda z: np.sum(z) - 1}],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if np.all(np.isfinite(res.x)) and abs(np.sum(res.x) - 1) < 1e-9:
            best = min(best, f(res.x))
    return best


def formula_at(declared, q) -> float:
    """A declared bound's formula at ``q``, rounded up, which may exceed 1; checks on the
    way that ``Minimize.value_at`` reports it clipped at 1, the trivial bound."""
    import cvxpb as pb
    from cvxpb.engine.declare.values import Values

    value = float(declared.evaluate(Values(np.asarray(q, dtype=float)), +1))
    assert pb.Minimize(declared).value_at(q) == min(value, 1.0)
    return value


def formula_of(result) -> float:
    """A Result's bound before the clip at 1; checks that the bound is it, clipped."""
    value = result.bound if result.unclipped_bound is None else result.unclipped_bound
    assert result.bound == min(value, 1.0)
    return value
