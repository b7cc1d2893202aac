"""The minorant of a quadratic form made tight at a posterior (``dnn.py``): a
non-negative part taken out of the matrix before the eigenvalue shift."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

import cvxpb as pb
from cvxpb.engine.declare import problem, programs
from cvxpb.engine.declare.dnn import nonnegative_part
from cvxpb.engine.declare.plane import tangent_basis
from cvxpb.engine.declare.quadratic import PairwiseLoss
from cvxpb.ensemble import bounds as mv
from tests.maurer_xi import xi


def _exact_form(M, x, sign):
    """``sign * x @ M @ x`` in 50 digits."""
    with mpmath.workdps(50):
        total = mpmath.fsum(
            mpmath.mpf(float(x[i])) * mpmath.mpf(float(M[i, j])) * mpmath.mpf(float(x[j]))
            for i in range(len(x))
            for j in range(len(x))
        )
        return sign * total


def _out_of_bag_tandem(seed, H, n):
    """Pairwise out-of-bag tandem rates of ``H`` voters on ``n`` examples: voters that
    err on hard examples more often, each seeing a bootstrap sample's left-out third;
    each pair's rate is counted on the examples both left out (indefinite)."""
    rng = np.random.default_rng(seed)
    hardness = rng.uniform(size=n)
    skill = rng.uniform(0.1, 0.4, H)
    errors = rng.uniform(size=(n, H)) < np.clip(skill[None, :] + hardness[:, None] - 0.5, 0, 1)
    seen = np.stack([~np.isin(np.arange(n), rng.integers(0, n, n)) for _ in range(H)], axis=1)
    E, S = (errors & seen).astype(float), seen.astype(float)
    pairs = S.T @ S
    return np.clip(E.T @ E / pairs, 0, 1), int(pairs.min())


@settings(max_examples=40, deadline=None)
@given(
    H=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
    sign=st.sampled_from([-1, 1]),
    spread=st.sampled_from([0.05, 1.0, 20.0]),
)
def test_the_minorant_is_never_above_the_form(H, seed, sign, spread):
    """At vertices, at the posterior it is tight at, and at random points dense and
    sparse, the minorant rounded down is at most the form in 50 digits, for indefinite
    matrices of any sign; the part taken out is symmetric and non-negative."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(H, H))
    M = (A + A.T) / 2
    at = rng.dirichlet(np.full(H, spread))
    form = PairwiseLoss(pb.Posterior.uniform(H), M, "loss")
    C = nonnegative_part(sign * form.matrix, at)
    assert np.all(C >= 0) and np.array_equal(C, C.T)
    minorant = form.minorant(sign, at=at)
    points = [*np.eye(H), at, *rng.dirichlet(np.full(H, 0.1), 8), *rng.dirichlet(np.ones(H), 8)]
    for x in points:
        assert minorant.core(x, -1) <= _exact_form(form.matrix, x, sign)


def test_the_part_taken_out_matches_the_semidefinite_program():
    """On six voters' out-of-bag tandem rates the shortfall at the posterior (the part's
    value there plus the remaining shift) is within 1e-5 of the doubly nonnegative
    program's optimum solved by CVXPY with Clarabel, and far below the plain shift's."""
    import cvxpy as cp

    T, _ = _out_of_bag_tandem(0, 6, 60)
    at = np.random.default_rng(1).dirichlet(np.ones(6) * 3)
    basis = tangent_basis(6)
    assert np.linalg.eigvalsh(basis.T @ T @ basis)[0] < -1e-3
    C = cp.Variable((6, 6), symmetric=True)
    program = cp.Problem(cp.Minimize(at @ C @ at), [C >= 0, basis.T @ (T - C) @ basis >> 0])
    program.solve(solver="CLARABEL")
    form = pb.tandem_risk(pb.Posterior.uniform(6), matrix=T)
    shifted, tight = form.minorant(+1), form.minorant(+1, at=at)
    shortfall = form.core(at) - tight.core(at)
    assert program.value - 1e-9 <= shortfall <= program.value + 1e-5
    assert shortfall < 0.5 * (form.core(at) - shifted.core(at))


def _tandem_bound(T, n, delta):
    """TND at softmax weights ``z``: ``4 kl^-1(q T q, (2 KL + ln(xi(n) / delta)) / n)``
    with the kl inverse by bisection (independent of cvxpb)."""

    def value(z):
        q = np.exp(z - z.max())
        q /= q.sum()
        kl = float(np.sum(q * np.log(np.maximum(q * q.size, 1e-300))))
        p, eps = float(q @ T @ q), (2 * kl + np.log(xi(n) / delta)) / n
        lo, hi = p, 1.0
        for _ in range(80):
            mid = (lo + hi) / 2
            kl_mid = p * np.log(p / mid) + (1 - p) * np.log((1 - p) / (1 - mid)) if p > 0 else 0
            lo, hi = (mid, hi) if kl_mid <= eps else (lo, mid)
        return 4 * hi

    return value


def test_out_of_bag_tandem_bound_is_certified_within_a_tenth_of_a_percent(monkeypatch):
    """Thirty voters with out-of-bag tandem rates: the proven lower bound is below the
    best of a BFGS multistart and the bound at most 1e-7 above it; the gap is below
    1e-3, where the plain shift alone leaves more than 0.05."""
    T, n = _out_of_bag_tandem(3, 30, 1000)
    basis = tangent_basis(30)
    assert np.sum(np.linalg.eigvalsh(basis.T @ T @ basis) < 0) >= 3
    bound = mv.tandem(pb.Posterior.uniform(30), None, n, 0.05, matrix=T)
    res = pb.Minimize(bound).solve()
    objective = _tandem_bound(T, n, 0.05)
    rng = np.random.default_rng(0)
    starts = [np.zeros(30), *(rng.normal(size=30) * s for s in (0.5, 1, 2) for _ in range(3))]
    best = min(minimize(objective, z, method="BFGS").fun for z in starts)
    assert res.certificate.lower_bound <= best
    assert res.bound <= best + 1e-7
    assert res.certificate.gap < 1e-3
    monkeypatch.setattr(problem, "TIGHTEN_ROUNDS", 0)
    assert pb.Minimize(bound).solve().certificate.gap > 0.05


@pytest.fixture(scope="module")
def forest():
    """Ten trees on breast_cancer, errors out of bag (two negative directions)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    X, y = load_breast_cancer(return_X_y=True)
    trees = RandomForestClassifier(10, random_state=0)
    return MajorityVoteClassifier(trees, validation="oob", random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "bound_name", ["cctnd", pytest.param("unexpected_bernstein", marks=pytest.mark.slow)]
)
def test_more_terms_get_the_tighter_lower_bound_too(monkeypatch, forest, bound_name):
    """CCTND (three terms, the vertex search, one part for each sign of mu) and
    unexpected Bernstein (45 parts of two terms) on the forest's out-of-bag rates, with
    KL's loan off (it certifies unexpected Bernstein here with no tightening, at least as
    tightly: checked too): the tightened lower bound is at least 0.05 above the plain
    shift's and never above a multistart of the bound."""
    from tests.test_declare import _multistart

    on_loan = forest.solve_bound(bound_name)
    monkeypatch.setattr(programs, "loan", lambda *args: None)
    res = forest.solve_bound(bound_name)
    assert on_loan.certificate.lower_bound >= res.certificate.lower_bound - 1e-7
    rng = np.random.default_rng(0)
    sides = forest.declarations_[bound_name]  # its parts
    best = min(_multistart(side, 10, rng, starts=3) for side in sides)
    assert res.certificate.lower_bound <= min(best, res.bound)
    monkeypatch.setattr(problem, "TIGHTEN_ROUNDS", 0)
    plain = forest.solve_bound(bound_name)
    assert res.certificate.lower_bound >= plain.certificate.lower_bound + 0.05


def test_a_bound_of_several_parts_is_certified_by_all_of_them(monkeypatch):
    """A tuple of declarations (the first-order bound, and TND on out-of-bag rates):
    the first-order bound is least, TND's plain lower bound is below it, so only TND
    is solved again with its minorant made tight, and then both parts' lower bounds
    clear the least bound: "optimal". Without the tightening the result reports TND's
    lower bound, the least of the parts', and "local"."""
    from cvxpb.ensemble.classifier import _minimize

    T, n = _out_of_bag_tandem(3, 30, 1000)
    q = pb.Posterior.uniform(30)
    tnd = mv.tandem(q, None, n, 0.05, matrix=T)
    first = mv.first_order(q, np.diag(T).copy(), n, 0.05)
    calls = []
    solve = pb.Minimize.solve

    def spy(self, *args, **kwargs):
        calls.append((self.bound is tnd, kwargs.get("tighten", True)))
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(pb.Minimize, "solve", spy)
    alone = {
        name: solve(pb.Minimize(d), "declared") for name, d in (("first", first), ("tnd", tnd))
    }
    assert alone["first"].bound < alone["tnd"].bound
    result = _minimize((first, tnd))
    assert sorted(calls) == [(False, False), (True, False), (True, True)]
    assert result.bound == alone["first"].bound and result.status == "optimal"
    monkeypatch.setattr(problem, "TIGHTEN_ROUNDS", 0)
    plain = _minimize((first, tnd))
    tnd_lower = solve(pb.Minimize(tnd)).certificate.lower_bound
    assert plain.bound == alone["first"].bound and plain.status == "local"
    assert plain.certificate.lower_bound == tnd_lower < alone["first"].bound - 0.01


@pytest.fixture(scope="module")
def twenty_trees():
    """Twenty trees on breast_cancer, errors out of bag."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    X, y = load_breast_cancer(return_X_y=True)
    trees = RandomForestClassifier(20, random_state=0)
    return MajorityVoteClassifier(trees, validation="oob", random_state=0).fit(X, y)


def test_a_minorant_below_zero_keeps_the_vertex_certificate(twenty_trees):
    """The tandem term's convex minorant dips below 0 on the simplex, where the
    Chebyshev-Cantelli atom's concavity is not proven; the term itself is a rate (at
    least 0), so the box starts at 0 (the minorant raised to 0 is still one, and the
    programs' cuts still hold for it), and the vertex certificate applies to CCTND."""
    from cvxpb.engine.declare.vertices import VertexSearch

    for side in twenty_trees.declarations_["cctnd"]:
        problem = pb.Minimize(side)
        search = VertexSearch(problem.bound, problem.terms, problem.signs)
        tandem = next(t for t in problem.terms if t.name == "tandem_risk")
        assert search._least(tandem) < 0
        assert search.certifiable()


@pytest.mark.slow
def test_the_certificate_through_a_raised_minorant_holds(twenty_trees):
    """CCTND on the twenty trees: certified within 0.02 (without the box's floor the
    weight search left 0.16), its lower bound below a multistart's least value."""
    from tests.test_declare import _multistart

    res = twenty_trees.solve_bound("cctnd")
    rng = np.random.default_rng(0)
    sides = twenty_trees.declarations_["cctnd"]
    best = min(_multistart(side, 20, rng, starts=3) for side in sides)
    assert res.certificate.lower_bound <= min(best, res.bound)
    assert res.certificate.gap < 0.02
