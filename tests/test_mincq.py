"""MinCq (Germain et al., 2015): its quadratic program against scipy's SLSQP on the same
program, its optimality along every feasible direction, the moments and bounds it
reports against per-example margins and 40-digit kl inverses."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import RandomForestClassifier

from cvxpb.ensemble.mincq import MinCqClassifier, largest_margin, margin_moments, solve_mincq
from tests.maurer_xi import xi
from tests.test_split_kl_bernstein import mp_kl_inverse


def moments(seed, n=300, H=8):
    """Voters that agree with the labels at rates 0.55 to 0.8, with shared noise."""
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], n)
    shared = rng.random(n) < 0.2
    right = rng.random((n, H)) < np.linspace(0.55, 0.8, H)
    right = right & ~shared[:, None] | (shared[:, None] & (rng.random((n, H)) < 0.3))
    votes = np.where(right, signs[:, None], -signs[:, None])
    return signs, votes


def objective(Q, m, M):
    H = m.size
    return Q @ M @ Q - (M.sum(axis=0) / H) @ Q


@pytest.mark.parametrize("mu", [0.02, 0.1, 0.2])
def test_the_program_against_scipy_slsqp(mu):
    signs, votes = moments(1)
    m, M = margin_moments(signs, votes)
    status, Q, _ = solve_mincq(m, M, mu)
    assert status == "optimal"
    H = m.size
    target = mu / 2 + m.sum() / (2 * H)
    assert m @ Q == pytest.approx(target, abs=1e-8)
    assert np.all(Q >= 0) and np.all(Q <= 1 / H)
    start = np.full(H, 0.5 / H) + (target - m.sum() / (2 * H)) * m / (m @ m)
    peer = minimize(
        objective, np.clip(start, 0, 1 / H), args=(m, M), method="SLSQP",
        bounds=[(0, 1 / H)] * H, constraints=[{"type": "eq", "fun": lambda q: m @ q - target}],
        options={"ftol": 1e-14, "maxiter": 500},
    )  # fmt: skip
    assert peer.success
    assert objective(Q, m, M) <= peer.fun + 1e-8
    assert objective(Q, m, M) == pytest.approx(peer.fun, abs=1e-7)


def test_no_feasible_direction_lowers_the_second_moment():
    """Along any direction that keeps the margin's mean (orthogonal to m) and the box,
    the objective does not fall: the first-order condition checked directly."""
    signs, votes = moments(2)
    m, M = margin_moments(signs, votes)
    _, Q, _ = solve_mincq(m, M, 0.1)
    H, rng = m.size, np.random.default_rng(3)
    base = objective(Q, m, M)
    for _ in range(200):
        d = rng.normal(size=H)
        d -= (d @ m) / (m @ m) * m
        steps = [t for t in (1e-3, 1e-4, 1e-5) if np.all((Q + t * d >= 0) & (Q + t * d <= 1 / H))]
        for t in steps:
            assert objective(Q + t * d, m, M) >= base - 1e-9


def test_moments_and_the_empirical_c_bound_from_per_example_margins():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=12, max_depth=2, random_state=0)
    model = MinCqClassifier(forest, mu=0.08, random_state=0).fit(X, y)
    r = model.result_
    # the sample MinCq ran on: the held-out half of the split
    from sklearn.model_selection import train_test_split

    _, X_b, _, y_b = train_test_split(X, y, test_size=0.5, random_state=0)
    votes = np.where(model.votes(X_b) == model.classes_[1], 1.0, -1.0)
    margins = np.where(y_b == model.classes_[1], 1.0, -1.0) * (votes @ model.weights_)
    assert r.first_moment == pytest.approx(np.mean(margins), abs=1e-12)
    assert r.first_moment == pytest.approx(0.08, abs=1e-8)
    assert r.second_moment == pytest.approx(np.mean(margins**2), rel=1e-12)
    assert r.empirical_c_bound == pytest.approx(1 - np.mean(margins) ** 2 / np.mean(margins**2))
    # the vote errs only where the margin is at most 0: its empirical risk is below the C-bound
    assert np.mean(margins <= 0) <= r.empirical_c_bound
    assert model.posterior_.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(model.weights_, model.posterior_[:12] - model.posterior_[12:])


def test_pac_bound_one_against_forty_digits():
    """Germain et al.'s PAC-Bound 1 over the voters and their complements: an upper kl
    bound on the Gibbs risk (KL), a lower one on the disagreement (2 KL), delta / 2 each,
    with Maurer's xi(n), rebuilt from per-example votes."""
    signs, votes = moments(4, n=2000, H=5)
    X = np.arange(2000.0)[:, None]  # the voters are given: their votes are read off

    class Fixed(ClassifierMixin, BaseEstimator):
        def __init__(self, column=0):
            self.column = column
            self.classes_ = np.array([-1.0, 1.0])

        def fit(self, X, y):
            return self

        def predict(self, X):
            return votes[X[:, 0].astype(int), self.column]

        def __sklearn_is_fitted__(self):
            return True

    voters = [Fixed(h) for h in range(5)]
    model = MinCqClassifier(voters, mu=0.1, validation="prefit").fit(X, signs)
    doubled = np.hstack([votes, -votes])
    rho, n = model.posterior_, 2000
    with mp.workdps(40):
        KL = mp.fsum(mp.mpf(r) * mp.log(mp.mpf(r) * 10) for r in rho if r > 0)
        risk = mp.fsum(
            mp.mpf(r) * mp.mpf(np.mean(doubled[:, i] != signs)) for i, r in enumerate(rho)
        )
        dis = mp.fsum(
            mp.mpf(rho[i]) * mp.mpf(rho[j]) * mp.mpf(np.mean(doubled[:, i] != doubled[:, j]))
            for i in range(10) for j in range(10)
        )  # fmt: skip
        eps_r = (KL + mp.log(2 * mp.mpf(xi(n)) / mp.mpf(0.05))) / n
        eps_d = (2 * KL + mp.log(2 * mp.mpf(xi(n)) / mp.mpf(0.05))) / n
        R = min(mp_kl_inverse(risk, eps_r, True), mp.mpf(0.5))
        D = mp_kl_inverse(dis, eps_d, False)
        reference = 1 - (1 - 2 * R) ** 2 / (1 - 2 * D)
    assert model.result_.pac_bound >= reference
    assert model.result_.pac_bound == pytest.approx(float(reference), rel=1e-9)
    assert model.result_.pac_bound < 1


def test_predictions_follow_the_weighted_sum():
    X, y = load_breast_cancer(return_X_y=True)
    model = MinCqClassifier(RandomForestClassifier(n_estimators=7, max_depth=2, random_state=1),
                            mu=0.05, random_state=1).fit(X, y)  # fmt: skip
    scores = model.decision_function(X)
    assert np.array_equal(model.predict(X), model.classes_[(scores > 0).astype(int)])
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(proba[:, 1] > 0.5, scores > 0)
    assert clone(model).get_params()["mu"] == 0.05


def test_bad_input_is_refused_before_any_work():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=5, max_depth=1, random_state=0)
    with pytest.raises(ValueError, match="mu must lie in"):
        MinCqClassifier(forest, mu=0.999, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="mu must lie in"):
        solve_mincq(np.array([0.2, -0.1]), np.eye(2), 0.0)
    with pytest.raises(ValueError, match="two-class"):
        MinCqClassifier(forest).fit(*load_iris(return_X_y=True))
    with pytest.raises(ValueError, match="validation must be 'split' or 'prefit'"):
        MinCqClassifier(forest, validation="oob").fit(X, y)
    assert largest_margin([0.2, -0.4]) == pytest.approx(0.3)
    assert math.isfinite(largest_margin([0.0]))
