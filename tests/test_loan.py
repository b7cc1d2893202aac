"""The divergence's curvature lent to quadratic forms that are not convex.

Each claim against an independent route: a divergence's curvature against its
Bregman divergence written out (and, for KL, the two-point case where the claim is
tight), a form's curvature against SciPy's basis of the plane, a scalarized program's
lower bound against a dense grid of the true objective, and a whole certificate
(CCPBB on a held-out forest's errors, whose variance matrix is indefinite) against
random posteriors.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space
from scipy.special import rel_entr

import cvxpb as pb
from cvxpb.engine.declare.divergence_terms import KL, divergence_term
from cvxpb.engine.declare.loan import loan
from cvxpb.engine.declare.pareto import ParetoSearch
from cvxpb.engine.declare.quadratic import pairwise_loss
from cvxpb.ensemble import bounds as mv
from cvxpb.pac_bayes.divergences import Chi2, KLDivergence, Renyi


def _simplex(draw, H, floor=0.0):
    x = np.array(draw(st.lists(st.floats(floor, 1.0), min_size=H, max_size=H)))
    x = x + 1e-300
    return x / x.sum()


@st.composite
def _points(draw):
    H = draw(st.integers(2, 6))
    prior = _simplex(draw, H, floor=1e-9)
    return prior, _simplex(draw, H, 1e-12), _simplex(draw, H)


@settings(max_examples=200, deadline=None)
@given(_points(), st.sampled_from(["kl", "chi2", "renyi1.01", "renyi1.5", "renyi2"]))
def test_each_divergence_has_the_curvature_it_claims(points, name):
    """``D(q) >= D(p) + grad D(p) @ (q - p) + m/2 |q - p|^2`` on the simplex, with
    ``m`` the divergence's least curvature, at random priors (down to 1e-9), points
    and orders near 1."""
    prior, p, q = points
    measure = {
        "kl": KLDivergence(),
        "chi2": Chi2(),
        "renyi1.01": Renyi(1.01),
        "renyi1.5": Renyi(1.5),
        "renyi2": Renyi(2.0),
    }[name]
    m = measure.least_curvature(prior)
    assert m > 0
    if name == "kl":  # the Bregman divergence of KL is KL(q || p), summed as it is
        remainder = float(np.sum(rel_entr(q, p)))
    else:
        core = measure.core(q, prior) - measure.core(p, prior)
        remainder = core - measure.core_gradient(p, prior) @ (q - p)
    scale = 1e-12 * (1 + abs(measure.core(q, prior)) + abs(measure.core(p, prior)))
    assert remainder >= m / 2 * np.sum((q - p) ** 2) - scale


def test_kl_claims_no_more_than_its_curvature():
    """Two voters near the uniform posterior: KL's remainder is ``2 t^2`` to within
    ``t^4``, so a claimed curvature of 2.01 fails there and 2 holds."""
    p = np.array([0.5, 0.5])
    t = 1e-3
    q = np.array([0.5 + t, 0.5 - t])
    remainder = float(np.sum(rel_entr(q, p)))
    distance = np.sum((q - p) ** 2)
    assert remainder >= KLDivergence().least_curvature(p) / 2 * distance
    assert remainder < 2.01 / 2 * distance


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6), st.floats(1e-9, 1.0))
def test_kl_curvature_holds_off_the_plane_as_claimed(H, seed, spread):
    """``z @ diag(1/q) @ z >= m (|z|^2 - (sum z)^2)`` for any ``z`` and any ``q >= 0``
    summing to at most ``1 + 4 eps``: the rounding the loan's allowance covers."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(H, spread)) + 1e-300
    q *= (1 + 4 * np.finfo(float).eps) / q.sum()
    z = rng.normal(size=H)
    m = KLDivergence().least_curvature(q)
    assert np.sum(z * z / q) >= m * (z @ z - z.sum() ** 2) * (1 - 1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_a_forms_curvature_is_its_least_eigenvalue_on_the_plane(seed):
    """Twice the least eigenvalue of ``sign * M`` on ``sum z = 0`` (SciPy's orthonormal
    basis of it), less at most 1e-12: never more, for either orientation."""
    rng = np.random.default_rng(seed)
    H = 8
    X = rng.normal(size=(H, H))
    M = (X + X.T) / 2
    term = pairwise_loss(pb.Posterior.uniform(H), M)
    basis = null_space(np.ones((1, H)))
    for sign in (1, -1):
        exact = 2 * np.linalg.eigvalsh(basis.T @ (sign * M) @ basis)[0]
        claimed = term.least_curvature(sign)
        assert exact - 1e-12 <= claimed <= exact


def _program(c, mu):
    """``-c |q|^2 + mu KL(q || uniform)`` on two voters: one term, concave, whose
    program is convex exactly when ``mu >= c``."""
    q = pb.Posterior.uniform(2)
    problem = pb.Minimize(pairwise_loss(q, -c * np.eye(2), name="concave") + KL(q))
    search = ParetoSearch(problem.bound, problem.terms, problem.signs)
    form, divergence = problem.terms
    return search, [(form, 1.0), (divergence, mu)]


def _grid_minimum(c, mu):
    t = np.linspace(0, 1, 200001)
    q = np.stack([t, 1 - t], axis=1)
    values = -c * np.sum(q * q, axis=1) + mu * np.sum(rel_entr(q, 0.5), axis=1)
    return float(values.min())


@pytest.mark.parametrize("mu", [0.5, 0.9, 0.999, 1.000001, 1.001, 1.5, 4.0])
def test_a_program_on_loan_is_certified_against_a_grid(mu):
    """``-|q|^2 + mu KL``: convex for ``mu >= 1``, with two minima apart and a maximum at
    the uniform posterior (where Newton's method starts) below. The loan is granted
    where the program is convex (from a relative 1e-6 past the edge, for the rounding
    allowed); the lower bound is at most the minimum on a
    grid of 200001 points either way, and within 1e-9 of it on loan (a loan granted at
    ``mu = 0.9`` would certify the maximum)."""
    search, weighted = _program(1.0, mu)
    granted = loan(weighted, search.signs, search.relaxed)
    assert (granted is not None) == (mu > 1.0)
    q, lower = search.certified(weighted)
    least = _grid_minimum(1.0, mu)
    assert lower <= least
    if granted is not None:
        assert least - lower <= 1e-9


def test_no_loan_without_a_relaxed_term_or_a_lender():
    """Nothing to lend to (a Gram tandem matrix needs no minorant), or no one to lend
    (a decreasing divergence): no loan."""
    q = pb.Posterior.uniform(3)
    E = np.eye(3)
    problem = pb.Minimize(mv.tandem(q, E))
    search = ParetoSearch(problem.bound, problem.terms, problem.signs)
    weighted = [(problem.terms[0], 1.0), (problem.terms[-1], 10.0)]
    assert loan(weighted, search.signs, search.relaxed) is None
    search, weighted = _program(1.0, 4.0)
    signs = {**search.signs, weighted[-1][0]: -1}
    assert loan(weighted, signs, search.relaxed) is None


def test_ccpbb_on_a_held_out_forest_is_certified_although_its_variances_are_indefinite():
    """Mushroom, a 100-tree forest's errors on a held-out half: the pairs' variance
    matrix has negative directions on the simplex's plane, so each program goes through
    its minorant unless KL lends its curvature; with the loan the search is "optimal"
    within 1e-6 of the bound (it was "local", gaps 2e-6 to 6e-5), and the bound is
    below its value at 300 random posteriors and at the uniform one."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    from cvxpb import datasets

    data = datasets.keel("mushroom")
    X_fit, X_out, y_fit, y_out = train_test_split(
        data.X, data.y, test_size=0.3, random_state=0, stratify=data.y
    )
    forest = RandomForestClassifier(100, random_state=0, n_jobs=1).fit(X_fit, y_fit)
    votes = [forest.classes_[tree.predict(X_out).astype(int)] for tree in forest.estimators_]
    errors = (np.array(votes) != y_out).T.astype(float)
    q = pb.Posterior.uniform(100)
    (part,) = mv.chebyshev_cantelli_bennett(q, errors, mu_grid=[0.0])
    problem = pb.Minimize(part)
    variance = next(t for t in problem.terms if t.name.startswith("shifted_variance"))
    assert variance.curvature == "indefinite"
    res = problem.solve(rtol=1e-6)
    assert res.status == "optimal"
    assert res.certificate.gap <= 1e-6 * res.bound
    draws = np.random.default_rng(0).dirichlet(np.full(100, 0.5), 300)
    least = min(problem.value_at(x) for x in [*draws, np.full(100, 0.01)])
    assert res.certificate.lower_bound <= res.bound <= least


def test_explain_says_from_which_weight_the_form_goes_on_loan():
    """``-|q|^2`` on two voters: least eigenvalue -1 on the plane (curvature -2), so a
    KL weight of at least once the form's makes the program convex, and explain says so."""
    q = pb.Posterior.uniform(2)
    text = pb.Minimize(pairwise_loss(q, -np.eye(2), name="concave") + KL(q)).explain()
    assert "weight of KL is at least 1 times this form's" in text
    assert "cvxpb.engine.declare.loan" in text


def _true_minimum(objective):
    """The least of 20001 grid points of ``t`` in [0, 1] (``objective`` takes them all
    at once), refined by a bounded scalar search between its neighbours: a value the
    objective attains, so at least its minimum (up to its own rounding)."""
    from scipy.optimize import minimize_scalar

    t = np.linspace(0, 1, 20001)
    values = objective(t)
    k = int(np.argmin(values))
    lo, hi = t[max(k - 1, 0)], t[min(k + 1, t.size - 1)]
    refined = minimize_scalar(
        lambda x: float(objective(np.array([x]))[0]),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-15},
    )
    return min(float(values[k]), float(refined.fun))


def _core(name, x, p):
    """Each divergence's core written out (the rows of ``x`` are posteriors)."""
    if name == "kl":
        return np.sum(rel_entr(x, p), axis=1)
    alpha = 2.0 if name == "chi2" else 1.01
    return np.sum(x**alpha * p ** (1 - alpha), axis=1)


@pytest.mark.parametrize("prior", [(0.5, 0.5), (1e-12, 1 - 1e-12)], ids=["uniform", "near 0"])
@pytest.mark.parametrize("name", ["kl", "chi2", "renyi1.01"])
def test_a_program_on_loan_holds_at_the_edges(name, prior):
    """``-|q|^2 + mu D(q)`` on two voters for KL, chi-squared and Renyi of order 1.01
    (as lenders), with a uniform prior and one of 1e-12: at every ``mu`` of a sweep the
    lower bound is at most the least value found by a grid and a refinement, and the
    sweep reaches weights where the loan is granted (Renyi of order 1.01 lends only
    0.0101 max(p)^-0.01, so from mu near 200); for KL on loan it is within 1e-9."""
    q = pb.Posterior(np.array(prior))
    divergence = divergence_term(q, {"kl": "kl", "chi2": "chi2", "renyi1.01": Renyi(1.01)}[name])
    problem = pb.Minimize(pairwise_loss(q, -np.eye(2), name="concave") + divergence)
    form, lender = problem.terms
    p = np.array(prior)
    granted = 0
    for mu in np.geomspace(0.05, 2000, 17):
        search = ParetoSearch(problem.bound, problem.terms, problem.signs)
        weighted = [(form, 1.0), (lender, float(mu))]
        on_loan = loan(weighted, search.signs, search.relaxed) is not None
        granted += on_loan
        _, lower = search.certified(weighted)

        def objective(t, mu=mu):
            x = np.stack([t, 1 - t], axis=1)
            return -np.sum(x * x, axis=1) + mu * _core(name, x, p)

        assert lower <= _true_minimum(objective) + 1e-15 * (1 + mu)
        if name == "kl" and on_loan:  # Newton's method on the true form: exact
            assert _true_minimum(objective) - lower <= 1e-9
    assert granted >= 3
