"""Two-term bounds certified through their concavity: the KL bounds' joint concavity in
(risk, KL), the PAC-Bayes atom's curvature rule, the least value on an edge of the
outer region at one of its ends (against the bound on 2001 points of the edge), and
the searches that use it against ``method="exact"``."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.engine.declare.pareto import ParetoSearch
from cvxpb.engine.declare.values import Values
from cvxpb.ensemble import bounds as mv
from cvxpb.pac_bayes.bounds import Bound
from cvxpb.pac_bayes.distances import DISTANCES, Distance

KL_DISTANCES = ("kl", "sq", "linear", "catoni")


@settings(max_examples=300, deadline=None)
@given(
    distance=st.sampled_from(KL_DISTANCES),
    m=st.sampled_from([1, 30, 1000, 10**6]),
    ends=st.lists(st.floats(0, 1), min_size=2, max_size=2),
    divergences=st.lists(st.floats(0, 20), min_size=2, max_size=2),
    t=st.floats(0, 1),
)
def test_every_kl_bound_marked_concave_is_concave_along_segments(distance, m, ends, divergences, t):
    """``g((1-t) x + t y) >= (1-t) g(x) + t g(y)`` for the KL bounds that say they are
    jointly concave in (L, KL), at risks in [0, 1] and KL >= 0 (rounding allowed)."""
    assert DISTANCES[distance].concave_kl_bound
    g = Bound(distance, "kl", m, 0.05)
    L, K = np.array(ends), np.array(divergences)
    at_ends = g(L, K)
    middle = g((1 - t) * L[0] + t * L[1], (1 - t) * K[0] + t * K[1])
    chord = (1 - t) * at_ends[0] + t * at_ends[1]
    assert middle >= chord - 1e-12 * (1 + abs(chord))


def test_a_kl_bound_is_not_concave_unless_its_distance_says_so():
    """A user's distance is not assumed concave, nor is a bound of another divergence."""

    class Mine(Distance):
        name = "mine"

    assert not Mine.concave_kl_bound
    assert not Bound("sq", "chi2", 100, 0.05).measure.concave_bound(DISTANCES["sq"])
    assert Bound("kl", "kl", 100, 0.05).measure.concave_bound(DISTANCES["kl"])


def _search(bound):
    problem = pb.Minimize(bound)
    return ParetoSearch(problem.bound, problem.terms, problem.signs)


def _first_order(H=30, seed=0, distance="kl", n=400):
    risks = np.random.default_rng(seed).uniform(0.1, 0.45, H)
    return risks, mv.first_order(pb.Posterior.uniform(H), risks, n, 0.05, distance)


def test_the_pac_bayes_atom_is_concave_on_a_box_where_no_clip_acts():
    """The first-order bound's form is concave on its box (the KL's least value 0 is
    its floor, so the box does not reach below it); with the box's divergence end
    below 0 (where the clip at 0 bends the bound) the rule proves nothing, and for the
    chi-squared bound it proves nothing either."""
    search = _search(_first_order()[1])
    assert search.certifiable()
    assert search.box.lo[search.B] == 0.0
    search.box.lo[search.B] = -1e-12
    assert search.form.curvature_over(search.box) is None
    chi2 = _search(mv.first_order(pb.Posterior.uniform(5), [0.1] * 5, 100, 0.05, "sq", "chi2"))
    assert not chi2.certifiable()


def test_a_zero_divergence_times_a_factor_stays_zero_rounded_down():
    """``2 KL`` at ``KL = 0`` is exactly 0 rounded either way (a box's corner at the
    divergence's floor), and a product that is not exact is still rounded outward."""
    q = pb.Posterior.uniform(3)
    K = pb.KL(q)
    doubled = 2 * K
    at = lambda x, r: float(doubled.evaluate(Values(coordinates={K: x}, signs={K: 1}), r))  # noqa: E731
    assert at(0.0, -1) == 0.0 and at(0.0, +1) == 0.0
    assert at(0.1, -1) < 0.2 < at(0.1, +1)
    assert K.floor == 0.0


@pytest.mark.parametrize("distance", KL_DISTANCES)
def test_the_least_value_on_an_edge_is_at_one_of_its_ends(distance):
    """On edges of several slopes that reach past the box's top (the box is raised to
    them, where the bound is still concave), cut at its lower ends, the value from the
    two ends is at most the bound on 2001 points of the cut edge, and within 1e-12 of
    their least; an edge wholly below the box gives inf."""
    search = _search(_first_order(distance=distance)[1])
    search.a_lo, search.b_lo = search._least(search.A), search._least(search.B)
    assert search._ends_suffice(1.0)
    lo_a, hi_a = search.box.lo[search.A], search.box.hi[search.A]
    lo_b, hi_b = search.box.lo[search.B], search.box.hi[search.B]
    edges = []
    for mu in (0.003, 0.05, 1.0):
        c = Fraction(lo_a + 0.6 * (hi_a - lo_a)) + Fraction(mu) * Fraction(hi_b / 3)
        edges.append((Fraction(mu), c, Fraction(0), Fraction(2 * hi_b)))  # past the top
    below = (Fraction(1), Fraction(-1), Fraction(0), Fraction(1))  # a < 0 all along
    least = search._least_at_ends(edges + [below])
    assert least[-1] == np.inf
    assert search.box.hi[search.B] >= 2 * hi_b  # raised to the edges
    for (mu, c, lo, hi), value in zip(edges, least[:-1], strict=True):
        mu, c = float(mu), float(c)
        bottom, top = max(float(lo), lo_b), min(float(hi), (c - lo_a) / mu)
        b = np.linspace(bottom, top, 2001)
        coordinates = {search.A: c - mu * b, search.B: b}
        along = search.bound.evaluate(Values(coordinates=coordinates, signs=search.signs), 0)
        assert value <= along.min()
        assert value >= along.min() - 1e-12


@pytest.mark.parametrize("distance", KL_DISTANCES)
def test_a_first_order_bound_certified_by_its_edges_ends_matches_the_exact_method(distance):
    """Certified through the ends of its edges, the first-order bound's minimum agrees
    with ``method="exact"`` on the same risks: its lower bound is below the exact
    method's upper bound, its bound above the exact method's lower bound."""
    risks, bound = _first_order(H=60, seed=3, distance=distance)
    res = pb.Minimize(bound).solve("declared", tol=1e-9)
    exact = pb.BoundProblem(risks, 400, 0.05, distance, "kl").solve(method="exact", tol=1e-10)
    assert res.status == "optimal"
    assert res.certificate.lower_bound / 2 <= exact.bound
    assert res.bound / 2 >= exact.certificate.lower_bound
    assert res.bound / 2 <= exact.bound + 1e-9


def test_a_tandem_bound_certified_by_its_edges_ends_is_below_a_multistart():
    """The tandem bound on held-out errors (a Gram matrix), certified through its
    edges' ends: "optimal" and below the least of 2000 random posteriors' values. On
    these errors a warm start that kept the weights of a tiny ``mu``'s program at 0
    (Newton's method keeps its start's support) left the search "optimal_inaccurate"
    after 60 programs, gap 7e-6; with a little of the prior in every warm start it is
    certified after about 33."""
    rng = np.random.default_rng(1)
    errors = (rng.uniform(size=(300, 12)) < rng.uniform(0.15, 0.4, 12)).astype(float)
    q = pb.Posterior.uniform(12)
    problem = pb.Minimize(mv.tandem(q, errors, delta=0.05))
    search = ParetoSearch(problem.bound, problem.terms, problem.signs)
    search.a_lo, search.b_lo = search._least(search.A), search._least(search.B)
    assert search._ends_suffice(0.5)
    res = problem.solve()
    draws = rng.dirichlet(np.full(12, 0.3), 2000)
    least = min(problem.value_at(x) for x in draws)
    assert res.status == "optimal"
    assert res.certificate.lower_bound <= res.bound <= least


def test_an_out_of_bag_tandem_bound_whose_minorant_dips_below_zero_keeps_a_valid_lower_bound():
    """Out of bag (mushroom's forest, where most trees are perfect) every program's cut
    through the tandem term's convex minorant lies below 0, the term's floor. The region's
    lower ends start at the floors, so the box's faces bound it; cutting its edges at
    the box instead lost those faces and proved a lower bound 4e-4 above the bound
    itself. Against 3000 random posteriors and the bound at the one returned."""
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb import datasets
    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    data = datasets.keel("mushroom")
    rng = np.random.default_rng(0)
    rows = rng.choice(len(data.y), 1500, replace=False)
    trees = RandomForestClassifier(30, random_state=0, n_jobs=1)
    model = MajorityVoteClassifier(trees, bound="first_order", validation="oob", random_state=0)
    stats = model.fit(data.X[rows], data.y[rows]).statistics_
    q = pb.Posterior.uniform(30)
    problem = pb.Minimize(mv.tandem(q, None, stats["n"], 0.05, matrix=stats["tandem"]))
    search = ParetoSearch(problem.bound, problem.terms, problem.signs)
    search.run(1e-7, 60)
    # every cut through the minorant below the floor (the programs at a KL weight of 0.012
    # or more are convex with the tandem term itself: cvxpb.engine.declare.loan)
    through_minorant = [s for s in search.solved if s.mu < 0.01]
    assert len(through_minorant) >= 10 and all(s.lower < 0 for s in through_minorant)
    res = problem.solve()
    draws = rng.dirichlet(np.full(30, 0.2), 3000)
    least = min(problem.value_at(x) for x in draws)
    assert res.certificate.lower_bound <= res.bound <= least


EDGE_RISKS = [[0.2], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.5, 1.0, 1.0], [1e-12, 0.4]]


@pytest.mark.parametrize("distance", KL_DISTANCES)
@pytest.mark.parametrize("risks", EDGE_RISKS, ids=["H=1", "all-zero", "all-one", "mixed", "tiny"])
@pytest.mark.parametrize("n", [1, 50, 10**6])
def test_first_order_bounds_at_the_edges_stay_valid(distance, risks, n):
    """One voter, all-zero and all-one risks, a perfect voter beside others, m = 1 and
    1e6: the certified lower bound is below the bound and below every one of 300
    random posteriors' values, and the bound is at most their least."""
    H = len(risks)
    problem = pb.Minimize(mv.first_order(pb.Posterior.uniform(H), risks, n, 0.05, distance))
    res = problem.solve("declared")
    draws = np.random.default_rng(0).dirichlet(np.full(H, 0.3), 300) if H > 1 else [[1.0]]
    least = min(problem.value_at(np.asarray(x)) for x in draws)
    assert res.certificate.lower_bound <= min(res.bound, least)
    assert res.bound <= least + 1e-9


@pytest.mark.parametrize(
    "errors",
    [np.zeros((50, 3)), np.ones((50, 3)), np.eye(3)[np.arange(50) % 3]],
    ids=["no errors", "all errors", "each example one voter's error"],
)
def test_tandem_bounds_at_the_edges_stay_valid(errors):
    """The tandem bound where no voter errs, where all do, and where every pair's
    tandem rate is 0 (each example is one voter's error): certified and valid."""
    H = errors.shape[1]
    problem = pb.Minimize(mv.tandem(pb.Posterior.uniform(H), errors, delta=0.05))
    res = problem.solve()
    draws = np.random.default_rng(1).dirichlet(np.full(H, 0.3), 300)
    least = min(problem.value_at(x) for x in draws)
    assert res.status == "optimal"
    assert res.certificate.lower_bound <= min(res.bound, least)
    assert res.bound <= least + 1e-9
