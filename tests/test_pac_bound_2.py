"""Germain et al.'s (2015) PAC-Bound 2: the trinomial region's supremum and its declaration."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import RandomForestClassifier

import cvxpb as pb
from cvxpb.engine.declare.pareto import Values
from cvxpb.ensemble import MajorityVoteClassifier
from cvxpb.ensemble import bounds as mv
from cvxpb.numerics.trinomial import pac_bound_two, trinomial_kl


def _kl3(a, b, d, e):
    """The trinomial kl written out (independent of cvxpb)."""
    return sum(p * math.log(p / r) for p, r in ((a, d), (b, e), (1 - a - b, 1 - d - e)) if p > 0)


def _slsqp_supremum(e_S, d_S, s, seed=0, starts=12):
    """The largest C-bound over the points within trinomial kl ``s`` of the quadrant
    ``d' >= d_S, e' <= e_S`` (with ``d <= 1/2``), by SLSQP over ``(d', e', d, e)``
    from several starts."""
    rng = np.random.default_rng(seed)

    def c_bound(x):
        return 1 - (1 - 2 * x[3] - x[2]) ** 2 / (1 - 2 * x[2])

    constraints = [
        {"type": "ineq", "fun": lambda x: s - _kl3(*x)},
        {"type": "ineq", "fun": lambda x: x[0] - d_S},
        {"type": "ineq", "fun": lambda x: e_S - x[1]},
        {"type": "ineq", "fun": lambda x: 1 - 2 * x[3] - x[2]},
    ]
    bounds = [(1e-12, 0.5), (1e-12, 0.5), (1e-12, 0.499), (1e-12, 0.5)]
    best = -np.inf
    for _ in range(starts):
        x0 = [
            d_S * rng.uniform(1, 1.3),
            e_S * rng.uniform(0.5, 1),
            d_S * rng.uniform(0.7, 1.3),
            e_S * rng.uniform(0.8, 1.6),
        ]
        run = minimize(
            lambda x: -c_bound(x),
            np.clip(x0, 1e-9, 0.49),
            method="SLSQP",
            bounds=bounds,
            constraints=constraints,
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if min(c["fun"](run.x) for c in constraints) > -1e-12:
            best = max(best, c_bound(run.x))
    return best


def _consistent(rng):
    """A joint error and disagreement one sample can give (``d <= 2 (sqrt(e) - e)``,
    Jensen) and a side."""
    e_S = rng.uniform(0.0, 0.15)
    return e_S, rng.uniform(0, 2 * (math.sqrt(e_S) - e_S)), rng.uniform(1e-3, 0.05)


@pytest.mark.parametrize("seed", range(6))
def test_the_supremum_matches_a_multistart_over_the_region(seed):
    """The value from above and from below against SLSQP over the four rates (the
    region's own description, with no chain rule or profile): the two sides within
    1e-9, the multistart never above the upper value by more than its constraint
    tolerance, and reaching it."""
    e_S, d_S, s = _consistent(np.random.default_rng(seed))
    upper, lower = float(pac_bound_two(e_S, d_S, s, 1)), float(pac_bound_two(e_S, d_S, s, -1))
    best = _slsqp_supremum(e_S, d_S, s, seed)
    assert lower <= upper <= lower + 1e-9
    assert best <= upper + 1e-9
    assert best >= lower - 1e-6


@pytest.mark.parametrize("steps", [0, 3])
def test_the_upper_value_holds_when_the_search_stops_early(monkeypatch, steps):
    """With the golden-section search cut to a few steps (its best point far from the
    supremum), the chords still bound the supremum: the upper value never below the
    multistart's, only looser."""
    import cvxpb.numerics.trinomial as trinomial

    monkeypatch.setattr(trinomial, "GOLDEN_STEPS", steps)
    for seed in range(3):
        e_S, d_S, s = _consistent(np.random.default_rng(seed))
        assert _slsqp_supremum(e_S, d_S, s, seed) <= float(pac_bound_two(e_S, d_S, s, 1)) + 1e-9


def _quadrant_kl(d, e, d_S, e_S):
    """The least trinomial kl to ``(d, e)`` from ``d' >= d_S, e' <= e_S``, by bounded
    L-BFGS from three starts."""
    from scipy.optimize import minimize as run

    starts = [(d_S + 1e-3, e_S - 1e-3), (max(d, d_S), min(e, e_S)), (d_S + 0.05, e_S / 2)]
    bounds = [(d_S, 1 - 1e-9), (1e-12, e_S)]
    return min(
        run(
            lambda x: _kl3(x[0], x[1], d, e) if x[0] + x[1] < 1 else np.inf,
            x0,
            bounds=bounds,
            method="L-BFGS-B",
            options={"ftol": 1e-15, "gtol": 1e-12},
        ).fun
        for x0 in starts
    )


def test_the_least_disagreement_at_each_joint_error_matches_a_direct_search():
    """``d_lo(e)`` (corner, edge and the quadrant's own points) against a bisection on
    ``d`` of the divergence minimized over the quadrant numerically, at joint errors
    below, at and above ``e_S``: the value from below and the one from above bracket it."""
    from cvxpb.numerics.kl import kl_inv_lower_bracket
    from cvxpb.numerics.trinomial import lowest_disagreement

    e_S, d_S, s = 0.06, 0.3, 0.02
    d_L = kl_inv_lower_bracket(np.array([d_S]), np.array([s]))
    for e in (0.02, 0.05, 0.06, 0.07, 0.09, 0.11):
        lo, hi = 0.0, d_S
        for _ in range(45):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _quadrant_kl(mid, e, d_S, e_S) > s else (lo, mid)
        args = [np.array([x]) for x in (e, d_S, e_S, s)]
        below = float(lowest_disagreement(*args, d_L[0], 1)[0])
        above = float(lowest_disagreement(*args, d_L[1], -1)[0])
        assert below <= hi + 1e-9 and lo - 1e-9 <= above
        assert above - below < 1e-9


def _original_supremum(e_S, d_S, s, size=1200):
    """PAC-Bound 2 as Germain et al. state it, on a grid: the largest C-bound over the
    rates within trinomial kl ``s`` of ``(d_S, e_S)`` with ``d <= 2 (sqrt(e) - e)``."""
    e, d = np.meshgrid(np.linspace(1e-9, 0.5, size), np.linspace(1e-9, 0.5, size), indexing="ij")
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = sum(
            np.where(p > 0, p * np.log(p / r), 0.0)
            for p, r in ((d_S, d), (e_S, e), (1 - d_S - e_S, 1 - d - e))
        )
        value = 1 - (1 - 2 * e - d) ** 2 / (1 - 2 * d)
    inside = (kl <= s) & (d <= 2 * (np.sqrt(e) - e)) & (2 * e + d < 1)
    return float(np.max(np.where(inside, value, -np.inf)))


@pytest.mark.parametrize("seed", range(4))
def test_the_bound_is_at_least_pac_bound_2_and_equal_where_the_disagreement_is_high(seed):
    """Against the original region on a 1200 x 1200 grid: never below it; and where the
    disagreement exceeds twice the joint error's upper kl bound (the region's
    low-disagreement edge holds the supremum) within the grid's resolution of it."""
    rng = np.random.default_rng(seed)
    e_S, s = rng.uniform(0.02, 0.06), rng.uniform(2e-3, 0.01)
    d_S = rng.uniform(0.8, 1.0) * 2 * (math.sqrt(e_S) - e_S)  # above 2 e_top for these
    ours = float(pac_bound_two(e_S, d_S, s, 1))
    grid = _original_supremum(e_S, d_S, s)
    assert grid <= ours
    assert ours - grid < 2e-3
    e_low, d_low, s_low = _consistent(rng)
    assert _original_supremum(e_low, d_low, s_low) <= float(pac_bound_two(e_low, d_low, s_low, 1))


def test_the_trinomial_kl_splits_by_the_chain_rule_in_50_digits():
    """``kl(a, b || d, e) = kl(b, e) + (1 - b) kl(a / (1 - b), d / (1 - e))``, the
    identity the profile uses, against mpmath; and trinomial_kl against it."""
    mp.mp.dps = 50
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b, d, e = (mp.mpf(float(x)) for x in rng.uniform(0.01, 0.45, 4))

        def binary(p, r):
            return p * mp.log(p / r) + (1 - p) * mp.log((1 - p) / (1 - r))

        whole = (
            a * mp.log(a / d) + b * mp.log(b / e) + (1 - a - b) * mp.log((1 - a - b) / (1 - d - e))
        )
        split = binary(b, e) + (1 - b) * binary(a / (1 - b), d / (1 - e))
        assert abs(whole - split) < mp.mpf(10) ** -45
        assert float(trinomial_kl(float(a), float(b), float(d), float(e))) == pytest.approx(
            float(whole), rel=1e-12
        )


def test_xi_is_at_most_twice_the_root_in_50_digits():
    """Maurer's ``xi(m) = sum_k C(m, k) (k/m)^k (1 - k/m)^(m - k)`` against the
    ``2 sqrt(m)`` the side uses, in mpmath, for m = 1 to 60 and some large m."""
    mp.mp.dps = 50
    for m in [*range(1, 61), 200, 1000]:
        xi = mp.fsum(
            mp.binomial(m, k) * (mp.mpf(k) / m) ** k * (1 - mp.mpf(k) / m) ** (m - k)
            for k in range(m + 1)
        )
        assert xi <= 2 * mp.sqrt(m)


@settings(max_examples=40, deadline=None)
@given(
    e=st.floats(0.0, 0.3),
    d=st.floats(0.0, 0.45),
    s=st.floats(0.0, 0.2),
    step=st.floats(1e-4, 0.05),
)
def test_monotone_and_rounded_outward(e, d, s, step):
    """Lower value at most the upper one; nondecreasing in the joint error and the side
    and nonincreasing in the disagreement (the value from below at the smaller point
    never above the value from above at the larger); at most 1."""
    d = min(d, 1 - e)
    low, high = pac_bound_two(e, d, s, -1), pac_bound_two(e, d, s, 1)
    assert low <= high <= 1.0
    assert low <= pac_bound_two(e + step, d, s, 1)
    assert low <= pac_bound_two(e, d, s + step, 1)
    assert pac_bound_two(e, d + step, s, -1) <= high


@settings(max_examples=30, deadline=None)
@given(x=st.tuples(*[st.floats(0, 1)] * 3), y=st.tuples(*[st.floats(0, 1)] * 3))
def test_concave_along_segments(x, y):
    """At the midpoint of two points of ``(e, d, s)`` (``d < 1/2``, ``d + e <= 1``) the
    value from above is at least the mean of the two values from below."""
    scale = np.array([0.4, 0.45, 0.1])
    p, q = np.array(x) * scale, np.array(y) * scale
    mid = (p + q) / 2
    ends = [float(pac_bound_two(*z, -1)) for z in (p, q)]
    assert float(pac_bound_two(*mid, 1)) >= np.mean(ends) - 1e-12


def test_edges_against_closed_forms():
    """At ``s = 0`` the region is the quadrant: ``F(max(2 e_S, d_S), e_S)``. With no
    errors and no disagreement, ``4 e_top`` with ``e_top = 1 - exp(-s)`` (or 1 past
    ``e_top = 1/4``); all errors give 1, and so does an infinite side."""
    for e_S, d_S in ((0.1, 0.3), (0.05, 0.05), (0.2, 0.45)):
        d = max(2 * e_S, d_S)
        expected = 1 - (1 - 2 * e_S - d) ** 2 / (1 - 2 * d)
        for rounding in (1, -1):
            assert float(pac_bound_two(e_S, d_S, 0.0, rounding)) == pytest.approx(
                expected, abs=1e-12
            )
    for s in (1e-6, 0.01, 0.1, 0.5):
        top = -math.expm1(-s)
        expected = min(4 * top, 1.0)
        assert float(pac_bound_two(0.0, 0.0, s, 1)) == pytest.approx(expected, rel=1e-9)
        assert float(pac_bound_two(0.0, 0.0, s, -1)) <= expected
    assert float(pac_bound_two(1.0, 0.0, 0.01, -1)) == 1.0
    assert float(pac_bound_two(0.1, 0.3, np.inf, -1)) == 1.0
    values = pac_bound_two([0.01, 0.05, 0.1], [0.2, 0.2, 0.2], [0.01, 0.01, 0.01], 1)
    assert values.shape == (3,) and np.all(np.diff(values) > 0)


def _forest_votes(n_estimators=6, seed=0):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    order = rng.permutation(y.size)
    fit, held = order[:250], order[250:450]
    forest = RandomForestClassifier(n_estimators, max_depth=2, random_state=seed)
    forest.fit(X[fit], y[fit])
    votes = np.stack([t.predict(X[held]) for t in forest.estimators_], axis=1)
    return votes, (votes != y[held, None]).astype(float)


def test_the_declaration_equals_the_bound_rebuilt_from_each_example():
    """At random posteriors, the declared bound equals PAC-Bound 2's value computed from
    the per-example votes: the joint error ``mean_x w(x)^2`` and disagreement
    ``mean_x 2 w(x) (1 - w(x))`` (``w`` the posterior's weight on the voters that err),
    the side with KL in mpmath."""
    votes, errors = _forest_votes()
    n, H = errors.shape
    q = pb.Posterior.uniform(H)
    declared = mv.pac_bound_2(q, errors, votes, 0.05)
    mp.mp.dps = 40
    for seed in range(3):
        w = np.random.default_rng(seed).dirichlet(np.ones(H))
        wrong = errors @ w
        e_S, d_S = np.mean(wrong**2), np.mean(2 * wrong * (1 - wrong))
        kl = float(mp.fsum(mp.mpf(x) * mp.log(mp.mpf(x) * H) for x in w))
        side = (2 * kl + math.log((2 * math.sqrt(n) + n) / 0.05)) / n
        expected = float(pac_bound_two(e_S, d_S, side, 1))
        assert float(declared.evaluate(Values(w), 1)) == pytest.approx(expected, rel=1e-9)


def _values(errors, votes, weights, delta=0.05):
    """PAC-Bound 2 at each row of ``weights``, from the per-example votes (vectorized)."""
    n, H = errors.shape
    wrong = errors @ weights.T  # n x k
    e_S, d_S = np.mean(wrong**2, axis=0), np.mean(2 * wrong * (1 - wrong), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.sum(np.where(weights > 0, weights * np.log(weights * H), 0.0), axis=1)
    side = (2 * kl + math.log((2 * math.sqrt(n) + n) / delta)) / n
    return pac_bound_two(e_S, d_S, side, 0)


def _random_search(errors, votes, rng, rounds=25, size=400):
    """The least value over Dirichlet posteriors of several concentrations, then over
    shrinking multiplicative perturbations of the best."""
    H = errors.shape[1]
    points = np.vstack([rng.dirichlet(np.full(H, a), size) for a in (0.3, 1.0, 5.0)])
    values = _values(errors, votes, points)
    best, value = points[np.argmin(values)], values.min()
    for k in range(rounds):
        moved = best * np.exp(rng.normal(size=(size, H)) * 2.0 * 0.75**k)
        moved /= moved.sum(axis=1, keepdims=True)
        values = _values(errors, votes, moved)
        if values.min() < value:
            best, value = moved[np.argmin(values)], values.min()
    return value


def test_the_minimum_is_certified_and_below_a_random_search():
    """On held-out votes (the tandem matrix a Gram matrix, the disagreement concave) the
    vertex search certifies the minimum: status "optimal", a gap of at most 1e-7, the
    lower bound below the least value a random search finds (the bound rebuilt from the
    votes) and the bound at most that."""
    votes, errors = _forest_votes()
    q = pb.Posterior.uniform(errors.shape[1])
    res = pb.Minimize(mv.pac_bound_2(q, errors, votes, 0.05)).solve()
    best = _random_search(errors, votes, np.random.default_rng(0))
    assert res.status == "optimal" and res.certificate.gap <= 1e-7
    assert res.certificate.lower_bound <= best
    assert res.bound <= best + 1e-9


def test_bad_input_is_refused():
    votes, errors = _forest_votes()
    q = pb.Posterior.uniform(errors.shape[1])
    with pytest.raises(ValueError, match="two classes"):
        mv.pac_bound_2(q, errors, votes + np.arange(votes.shape[0])[:, None] % 3, 0.05)
    with pytest.raises(ValueError, match="same examples"):
        mv.pac_bound_2(q, errors, votes[:-1], 0.05)
    with pytest.raises(ValueError, match="tandem_matrix"):
        mv.pac_bound_2(q, errors, None, 0.05)
    with pytest.raises(ValueError, match="delta"):
        mv.pac_bound_2(q, errors, votes, 1.5)


def test_the_classifier_minimizes_it_on_two_classes_only():
    """``bound="pac_bound_2"`` on held-out votes of two classes: certified, at most its
    value at the uniform posterior, in [0, 1]; three classes raise a ValueError naming
    the bound."""
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(8, max_depth=3, random_state=0)
    clf = MajorityVoteClassifier(forest, bound="pac_bound_2", validation="split", random_state=0)
    clf.fit(X, y)
    uniform = pb.Minimize(clf.declarations_["pac_bound_2"]).value_at(np.full(8, 1 / 8))
    assert clf.result_.status == "optimal"
    assert 0 <= clf.result_.bound <= uniform
    X3, y3 = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="pac_bound_2"):
        MajorityVoteClassifier(forest, bound="pac_bound_2").fit(X3, y3)
