"""The extension point, from outside: a divergence defined in this file alone, as a user
would write it, is solved by the declared engine as ours are."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import cvxpb as pb
from cvxpb.pac_bayes.distances import Distance, Linear
from cvxpb.pac_bayes.divergences import Divergence
from tests.users_own import nudge


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


class MomentOfOrder(Divergence):
    """A user's divergence of a fixed order ``alpha``: the moment
    ``M = sum q^alpha p^(1 - alpha)`` itself, with the change of measure of Theorem 1 of
    Sahu & Hemachandra (Begin et al., 2016), ``phi(L, R) <= M^(1/alpha) (I/delta)^(1/alpha')``:
    the Renyi bound of that order, reached by another route."""

    name = "moment"
    uses_constant = True

    def __init__(self, alpha):
        self.alpha = alpha

    def term_name(self):
        return f"moment_{self.alpha:g}"

    def accepts(self, distance):
        return distance.moment_bound

    def core(self, q, p, rounding=0):
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        terms = np.exp(self.alpha * np.log(q[on]) + (1 - self.alpha) * np.log(p[on]))
        return float(nudge(math.fsum(terms) * (1 + rounding * 1e-13), rounding))

    value = core

    def rounding_error(self, q, p):
        return 1e-13 * self.core(q, p)

    def gradient(self, q, p):
        return self.alpha * (np.asarray(q, dtype=float) / np.asarray(p)) ** (self.alpha - 1)

    core_gradient = gradient

    def expr(self, q, p):
        import cvxpy as cp

        return cp.sum(cp.multiply(np.asarray(p) ** (1 - self.alpha), cp.power(q, self.alpha)))

    def right_side(self, bound, M, rounding=0):
        conjugate = self.alpha / (self.alpha - 1)
        exponent = np.log(M) / self.alpha + (bound.log_constant - np.log(bound.delta)) / conjugate
        return nudge(np.exp(nudge(exponent, rounding)), rounding)


class HalfLinear(Distance):
    """A user's distance, ``phi(lhat, l) = (l - lhat) / 2``: its constant is the linear
    one over ``2^alpha'``, and its bound the linear distance's."""

    name = "half_linear"

    def phi(self, lhat, l):
        return (np.asarray(l) - np.asarray(lhat)) / 2

    def inverse(self, L, rhs, rounding=0):
        return nudge(nudge(L, rounding) + 2 * nudge(rhs, rounding), rounding)

    def log_constant(self, m, constants, alpha):
        linear = Linear().log_constant(m, constants, alpha)
        return float(nudge(linear - alpha / (alpha - 1) * math.log(2), +1))

    def constant(self, m, constants, alpha):
        return math.exp(self.log_constant(m, constants, alpha))


RISKS_20 = np.random.default_rng(11).uniform(0.05, 0.45, 20)


@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_a_users_divergence_solves_a_bound_problem_by_every_method_that_applies(distance):
    """No family of its own: the exact method does not apply, and the declared engine
    (no closed-form linear_min: CVXPY and the Frank-Wolfe bound) finds the minimum of the
    Renyi bound of the same order (the exact method's certified optimum through our Renyi
    class) and proves a lower bound within 1e-4 of it."""
    mine = pb.BoundProblem(RISKS_20, m=400, distance=distance, divergence=MomentOfOrder(3.0))
    renyi = pb.BoundProblem(RISKS_20, m=400, distance=distance, divergence="renyi", alpha=3)
    assert mine.methods() == ["nlp", "declared"]
    declared, reference = mine.solve("declared"), renyi.solve()
    assert reference.status == "optimal" and declared.certificate.gap < 1e-4
    assert declared.status == (
        "optimal" if declared.certificate.gap <= 1e-7 else "optimal_inaccurate"
    )
    assert declared.certificate.lower_bound <= reference.bound + 1e-9
    assert declared.bound == pytest.approx(reference.bound, abs=2e-7)
    assert declared.terms.keys() == {"gibbs_risk", "moment_3"}
    table = mine.compare()
    assert list(table.method) == ["nlp", "declared"]
    assert table.bound.min() >= declared.certificate.lower_bound - 1e-12
    with pytest.raises(ValueError, match='use method="declared"'):
        mine.solve("exact")


def test_a_users_distance_solves_a_bound_problem_as_its_equal_of_ours_does():
    mine = pb.BoundProblem(RISKS_20, m=400, distance=HalfLinear(), divergence="chi2")
    linear = pb.BoundProblem(RISKS_20, m=400, distance="linear", divergence="chi2")
    assert mine.methods() == ["exact", "nlp", "declared"]
    for method in ("exact", "declared"):
        assert mine.solve(method).bound == pytest.approx(linear.solve().bound, rel=1e-9)
    q = np.random.default_rng(1).dirichlet(np.ones(20))
    assert mine.value_at(q) == pytest.approx(linear.value_at(q), rel=1e-9)
    assert "half_linear" in mine.explain()


class MomentOnPairs(MomentOfOrder):
    """The moment multiplies over a product: ``M(q x q || p x p) = M(q || p)^2``."""

    def bound_argument(self, term, copies=1):
        return term if copies == 1 else term**copies


def test_the_majority_vote_bounds_take_a_divergence_object():
    """first_order and tandem said "divergence must be one of ('chi2', 'renyi', 'kl')" to
    an object. A user's moment of order 3 gives the Renyi bound of order 3, on one
    posterior and, where it says how it multiplies over pairs, on the tandem; where it
    does not say, the tandem bound refuses it rather than guess (2 M for M^2 would be
    too small to hold where M > 2)."""
    from cvxpb.ensemble import bounds as mv

    rng = np.random.default_rng(0)
    E = (rng.random((300, 6)) < rng.uniform(0.1, 0.4, 6)).astype(float)
    q = pb.Posterior(rng.dirichlet(np.ones(6)))
    for declare in (
        lambda d, a: mv.first_order(q, E.mean(0), 300, 0.05, divergence=d, alpha=a),
        lambda d, a: mv.tandem(q, E, delta=0.05, divergence=d, alpha=a),
    ):
        ours = pb.Minimize(declare("renyi", 3.0))
        mine = pb.Minimize(declare(MomentOnPairs(3.0), None))
        for w in (q.prior, np.full(6, 1 / 6), rng.dirichlet(np.ones(6))):
            assert mine.value_at(w) == pytest.approx(ours.value_at(w), rel=1e-9)
        assert mine.solve().bound == pytest.approx(ours.solve().bound, abs=1e-6)
    with pytest.raises(ValueError, match="does not say how it behaves on a product"):
        mv.tandem(q, E, delta=0.05, divergence=MomentOfOrder(3.0))


def test_the_classifier_takes_a_divergence_object():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble import MajorityVoteClassifier
    from cvxpb.pac_bayes.divergences import KLDivergence

    X, y = load_breast_cancer(return_X_y=True)
    fits = [
        MajorityVoteClassifier(RandomForestClassifier(n_estimators=8, random_state=0),
                               bound="tnd", divergence=d, validation="split", random_state=0)
        .fit(X, y).result_.bound
        for d in ("kl", KLDivergence())
    ]  # fmt: skip
    assert fits[0] == fits[1]
    with pytest.raises(ValueError, match="divergence must be one of"):
        MajorityVoteClassifier(divergence=object()).fit(X, y)


class MomentWithFormula(MomentOfOrder):
    """The moment, with the linear bound's formula for explain() to show."""

    symbol = "M(q)"

    def formula(self, distance):
        return ("min_q  L(q) + c M(q)^(1/alpha)", None) if distance.name == "linear" else None


def test_explain_shows_a_users_divergence_by_its_own_expression():
    """explain() chose the terms it shows by our classes, so a user's divergence with a
    formula to show was shown as KL (sum q log(q/p)). It now asks the divergence
    (teaching_terms; by default its core's expression), and the constant line follows
    uses_constant, not the class."""
    problem = pb.BoundProblem(RISKS_20, m=400, distance="linear", divergence=MomentWithFormula(3.0))
    text = problem.explain()
    assert "rel_entr" not in text and "K(q) = " not in text
    assert "M(q) (its core)" in text and "I_linear(m=400, 1.5)" in text
    ours = pb.BoundProblem(RISKS_20, m=400, distance="linear", divergence="renyi", alpha=3.0)
    assert "I_linear(m=400, 1.5)" in ours.explain()
