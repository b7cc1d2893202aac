"""Bounds of three terms, certified: the outer polytope, the concavity rules, the search.

Each part is checked by a route of its own: the polytope's vertices against every
triple of constraints solved by numpy; the unclipped Chebyshev-Cantelli value against
40 digits; each claim of concavity against midpoints at random pairs of the box; the
certified minimum against a grid over the simplex (the bound written out with kl
inverses by bisection) and against a Nelder-Mead multistart.
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.engine.declare.expressions import Constant
from cvxpb.engine.declare.kl_atoms import kl_inverse
from cvxpb.engine.declare.pareto import Values
from cvxpb.engine.declare.polytope import Polytope
from cvxpb.engine.declare.vertices import VertexSearch
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.atoms import ChebyshevCantelli
from tests.brute_force import formula_of
from tests.maurer_xi import xi
from tests.test_declare import _multistart


def _brute_vertices(lo, hi, cuts):
    """Every point where ``d`` constraints meet and all hold (numpy, no cvxpb)."""
    d = len(lo)
    A = [row for i in range(d) for row in (np.eye(d)[i], -np.eye(d)[i])]
    b = [v for i in range(d) for v in (lo[i], -hi[i])]
    A, b = np.array(A + [w for w, _ in cuts]), np.array(b + [c for _, c in cuts])
    found = set()
    for rows in itertools.combinations(range(len(A)), d):
        M = A[list(rows)]
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        x = np.linalg.solve(M, b[list(rows)])
        if np.all(A @ x >= b - 1e-9):
            found.add(tuple(np.round(x, 7) + 0.0))
    return found


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.sampled_from([2, 3, 4]), flat=st.booleans())
def test_polytope_vertices_are_every_feasible_meeting_of_constraints(seed, d, flat):
    """The double description keeps exactly the vertices a brute-force enumeration
    finds, with weights rounded to one digit (ties and degenerate vertices) and a box
    flat in one coordinate."""
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-1, 0, d)
    hi = lo + rng.uniform(0.5, 2, d)
    if flat:
        hi[0] = lo[0]
    P, cuts = Polytope(lo, hi), []
    for k in range(10 if d < 4 else 6):
        w = rng.dirichlet(np.ones(d))
        w = np.round(w, 1) if k % 3 == 0 else w
        # a hair below the point, so that no vertex is within the enumeration's 1e-9
        c = float(w @ (lo + rng.uniform(0, 1, d) * (hi - lo))) - 1e-12
        P.cut(w, c)
        cuts.append((w, c))
    mine = {tuple(np.round(v, 7) + 0.0) for v in P.lower_vertices()}
    assert mine == _brute_vertices(lo, hi, cuts)


def test_polytope_rounds_vertices_down_and_refuses_a_bad_box():
    """Vertices are exact; as floats each coordinate is at most the exact one."""
    P = Polytope([0.0, 0.0], [1.0, 1.0])
    assert P.cut([0.3, 0.7], 0.1)
    assert not P.cut([0.5, 0.5], -1.0)  # removes nothing: not kept
    for exact, low in zip(P.vertices, P.lower_vertices(), strict=True):
        assert all(float(x) >= y and x >= type(x)(y) for x, y in zip(exact, low, strict=True))
    with pytest.raises(ValueError, match="lo <= hi"):
        Polytope([1.0], [0.0])


def _true_cantelli(T, L):
    """``inf over v >= 2 of 1 - (1 - 2L) v + (T - L + 1/4) v^2`` in 40 digits."""
    with mp.workdps(40):
        T, L = mp.mpf(T), mp.mpf(L)
        b, a = 1 - 2 * L, T - L + mp.mpf(1) / 4
        if a < 0 or (a == 0 and b > 0):
            return -mp.inf
        if a > 0 and b / (2 * a) >= 2:
            return 1 - b * b / (4 * a)
        return 1 - 2 * b + 4 * a


@settings(max_examples=300, deadline=None)
@given(
    T=st.floats(0, 1),
    L=st.floats(-0.5, 1.5),
    near=st.sampled_from([None, 0.0, 1e-15, -1e-15, 1e-9]),
)
def test_unclipped_cantelli_encloses_the_40_digit_value(T, L, near):
    """The atom without its safeguards, rounded down and up, encloses the least value
    over ``mu >= 0`` computed in 40 digits, also where the square's weight is near zero
    (``-inf`` below it); where no safeguard acts it is the atom's own value."""
    if near is not None:
        L = T + 0.25 + near
    atom = ChebyshevCantelli(0.0, 0.0, mu_nonnegative=True)
    low, high = (float(atom.unclipped(np.array(T), np.array(L), r)) for r in (-1, 1))
    true = _true_cantelli(T, L)
    assert low <= true <= high
    if abs(T - L + 0.25) > 1e-6 and np.isfinite(low):  # away from a vanishing square, tight
        assert high - low <= 1e-9 * (1 + abs(low))
    if 0 <= L <= min(0.5, np.sqrt(T)):
        clipped = float(atom._least(np.array(T), np.array(L), 0))
        assert abs(clipped - float(true)) <= 1e-9
    if 0 <= L <= 1:
        assert low <= float(atom._least(np.array(T), np.array(L), +1))


def _voters(seed, H, n=400, top=0.45):
    """0/1 errors of ``H`` voters on one sample, correlated through a difficulty (base
    rates from 0.1 to ``top``)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(size=n)
    rates = rng.uniform(0.1, top, H)
    chance = np.clip(rates[None, :] * (0.4 + 1.2 * difficulty[:, None]), 0, 1)
    return (rng.uniform(size=(n, H)) < chance).astype(float)


def _declared(name, q, E):
    n, risks, votes = E.shape[0], E.mean(axis=0), 1 - 2 * E
    return {
        "c_bound": lambda: mv.c_bound(q, risks, n, votes),
        "dis": lambda: mv.disagreement_bound(q, risks, n, votes),
        "cctnd+": lambda: mv.chebyshev_cantelli_tnd(q, risks, n, E)[0],
        "cctnd-": lambda: mv.chebyshev_cantelli_tnd(q, risks, n, E)[1],
        "split_kl+": lambda: mv.split_kl(q, E)[0],
        "split_kl-": lambda: mv.split_kl(q, E)[1],
        "ccpbb0": lambda: mv.chebyshev_cantelli_bennett(q, E, mu_grid=[0.0])[0],
        "ccpbb-": lambda: mv.chebyshev_cantelli_bennett(q, E, mu_grid=[-0.1])[0],
        "ctd": lambda: mv.c_tandem(q, risks, n, E),
    }[name]()


NAMES = ["c_bound", "dis", "cctnd+", "cctnd-", "split_kl+", "split_kl-", "ccpbb0", "ccpbb-"]
SLOW = pytest.mark.slow


def _in_the_box(E, name):
    """The declared bound on errors ``E``, its certifiable vertex search, the terms'
    box, 400 random pairs of points in it and an evaluator ``at(form, points)``."""
    problem = pb.Minimize(_declared(name, pb.Posterior.uniform(E.shape[1]), E))
    search = VertexSearch(problem.bound, problem.terms, problem.signs)
    assert search.certifiable()
    rng = np.random.default_rng(1)
    lo = np.array([search.box.lo[t] for t in problem.terms])
    hi = np.array([search.box.hi[t] for t in problem.terms])
    x, y = (lo + rng.uniform(size=(400, lo.size)) * (hi - lo) for _ in range(2))

    def at(form, points):
        coordinates = {t: points[:, i] for i, t in enumerate(problem.terms)}
        return form.evaluate(Values(coordinates=coordinates, signs=problem.signs), 0)

    return problem, search, (lo, hi), (x, y), at


@pytest.mark.parametrize("name", NAMES)
def test_claimed_concavity_holds_at_midpoints(name):
    """Where the rules call a bound's minorant concave on its box, it is: at 400 random
    pairs of the box, the value at the midpoint is at least the mean of the ends; the
    minorant is never above the bound."""
    problem, search, (lo, hi), (x, y), at = _in_the_box(_voters(0, 5), name)
    form = search.form
    ends = (at(form, x) + at(form, y)) / 2
    middle = at(form, (x + y) / 2)
    finite = np.isfinite(ends)
    assert np.all(middle[finite] >= ends[finite] - 1e-12 * (1 + np.abs(ends[finite])))
    assert np.all(at(form, x) <= at(problem.bound, x) + 1e-12)


def test_a_maximum_is_its_argument_where_that_argument_dominates_the_box():
    """``maximum(x, 0)`` with ``x`` concave is concave where ``x >= 0`` over the whole box
    (it is ``x`` there), and unproven where ``x``'s range crosses 0; ``minimum(y, 1)``
    with ``y`` convex likewise; the composition rule still decides the rest."""
    q = pb.Posterior.uniform(3)
    L, K = pb.gibbs_risk(q, [0.1, 0.2, 0.3]), pb.KL(q)
    concave, convex = pb.minimum(L, K), pb.maximum(L, K)

    class Ranges:  # a box that states the ranges of ``x`` and ``y`` outright
        def __init__(self, low, high):
            self.low, self.high = low, high

        def range(self, node):
            if node is concave or node is convex:
                return (self.low, self.high)
            if isinstance(node, Constant):
                return (node.value, node.value)
            return (0.0, 1.0)

    assert pb.maximum(concave, 0.0).curvature_over(Ranges(0.1, 0.5)) == "concave"
    assert pb.maximum(concave, 0.0).curvature_over(Ranges(-0.1, 0.5)) is None
    assert pb.maximum(concave, 0.0).curvature_over(Ranges(0.0, 0.5)) == "concave"
    assert pb.minimum(convex, 1.0).curvature_over(Ranges(0.2, 0.9)) == "convex"
    assert pb.minimum(convex, 1.0).curvature_over(Ranges(0.2, 1.5)) is None
    assert pb.maximum(convex, 0.0).curvature_over(Ranges(-1.0, 1.0)) == "convex"
    assert pb.minimum(concave, 1.0).curvature_over(Ranges(0.0, 2.0)) == "concave"
    # against another term (range 0 to 1): it must dominate that term's whole range,
    # not only its low end
    assert pb.maximum(concave, L).curvature_over(Ranges(1.0, 2.0)) == "concave"
    assert pb.maximum(concave, L).curvature_over(Ranges(0.5, 2.0)) is None
    assert pb.minimum(convex, L).curvature_over(Ranges(-1.0, 0.0)) == "convex"
    assert pb.minimum(convex, L).curvature_over(Ranges(-1.0, 0.5)) is None


def test_a_bound_the_rules_cannot_prove_concave_is_searched_locally():
    """The square of a kl inverse is convex in it, not concave: the rules say so, and the
    bound is solved by the local search (status "local" unless the bounds happen to meet)."""
    E = _voters(2, 4)
    q = pb.Posterior.uniform(4)
    L, T, K = pb.gibbs_risk(q, E.mean(axis=0)), pb.tandem_risk(q, E), pb.KL(q)
    bound = kl_inverse(L, (K + 3) / 400) ** 2 + kl_inverse(T, (2 * K + 3) / 400)
    problem = pb.Minimize(bound)
    assert not VertexSearch(problem.bound, problem.terms, problem.signs).certifiable()
    assert "not proven concave" in problem.explain()


def _kl_up(p, e):
    lo, hi = p, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _kl(p, mid) > e else (mid, hi)
    return lo


def _kl_down(p, e):
    if p == 0:
        return 0.0
    lo, hi = 0.0, p
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _kl(p, mid) > e else (lo, mid)
    return hi


def _kl(p, r):
    """The binary kl divergence ``kl(p || r)`` (``0 log 0 = 0``)."""
    a = p * np.log(p / r) if p > 0 else 0.0
    b = (1 - p) * np.log((1 - p) / (1 - r)) if p < 1 else 0.0
    return a + b


def _written_out(name, w, E, delta=0.05):
    """The bound at posteriors ``w`` (rows) from its formula, with no cvxpb."""
    n, H = E.shape
    kl = np.sum(np.where(w > 0, w * np.log(np.where(w > 0, w * H, 1.0)), 0.0), axis=1)
    L = w @ E.mean(axis=0)
    T = np.einsum("ki,ij,kj->k", w, E.T @ E / n, w)
    d = 2 * (L - T)  # two classes: the voters disagree where exactly one errs
    up = np.vectorize(_kl_up)
    down = np.vectorize(_kl_down)
    e1 = (kl + np.log(2 * xi(n) / delta)) / n
    e2 = (2 * kl + np.log(2 * xi(n) / delta)) / n
    if name == "c_bound":
        R, D = np.minimum(up(L, e1), 0.5), down(d, e2)
        return 1 - (1 - 2 * R) ** 2 / (1 - 2 * D)
    if name == "dis":
        return 4 * up(L, e1) - 2 * down(d, e2)
    if name == "ctd":
        T_hi, T_lo, L_lo, L_hi = up(T, e2), down(T, e2), down(L, e1), up(L, e1)
        N, D = T_hi - L_lo**2, T_lo - L_hi + 0.25
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(N < 0, 0.0, np.where(D <= 0, 1.0, np.minimum(N / D, 1.0)))
        return np.where((L_hi >= 0.5) | (T_hi > 0.5), 1.0, value)
    Tu = up(T, e2)
    Ll = down(L, e1) if name == "cctnd+" else up(L, e1)
    mus = np.linspace(0, 0.4999, 5000) if name == "cctnd+" else -np.geomspace(1e-4, 1e3, 5000)
    values = (Tu[:, None] - 2 * mus * Ll[:, None] + mus**2) / (0.5 - mus) ** 2
    return np.minimum(values.min(axis=1), 4 * Tu)


@pytest.mark.parametrize("name", ["c_bound", "dis", "cctnd+", "cctnd-"])
def test_certified_minimum_against_a_grid_of_the_written_out_bound(name):
    """Three voters: the certified lower bound is below the least value on a 61 x 61
    grid of the simplex of the bound written out (kl inverses by bisection, mu on a fine
    grid), and the bound returned is at most that value: status "optimal"."""
    E = _voters(3, 3, n=300)
    q = pb.Posterior.uniform(3)
    res = pb.Minimize(_declared(name, q, E)).solve()
    a, b = np.meshgrid(np.linspace(0, 1, 61), np.linspace(0, 1, 61))
    w = np.stack([a.ravel(), b.ravel(), 1 - a.ravel() - b.ravel()], axis=1)
    w = np.clip(w[w[:, 2] >= -1e-12], 0, 1)
    grid = _written_out(name, w, E).min()
    assert res.status == "optimal" and res.certificate.gap <= 1e-7
    assert res.certificate.lower_bound <= grid
    assert res.bound <= grid + 1e-9


@pytest.mark.parametrize("name", [pytest.param(n, marks=SLOW) for n in NAMES])
def test_certified_minimum_is_below_a_multistart_and_its_lower_bound_too(name):
    """Five voters: the certified minimum is within 1e-7 of, or below, the best of a
    Nelder-Mead multistart, and the proven lower bound is below it."""
    E = _voters(4, 5)
    bound = _declared(name, pb.Posterior.uniform(5), E)
    res = pb.Minimize(bound).solve()
    best = _multistart(bound, 5, np.random.default_rng(0))
    assert res.status == "optimal"
    assert res.certificate.lower_bound <= best
    assert res.bound <= best + 1e-7
    assert formula_of(res) == float(bound.evaluate(Values(res.posterior), +1))


@pytest.mark.parametrize(
    "name",
    [
        "cctnd+",
        "dis",
        "split_kl-",
        "ccpbb-",
        *(pytest.param(n, marks=SLOW) for n in ("c_bound", "cctnd-", "split_kl+", "ccpbb0")),
    ],
)
def test_a_hundred_voters_on_one_sample_are_certified_within_1e_6(name):
    """The issue's target: 100 voters, one sample (the tandem matrix a Gram matrix):
    status "optimal" with a certified gap of at most 1e-6 of the bound."""
    E = _voters(5, 100, n=1000)
    res = pb.Minimize(_declared(name, pb.Posterior.uniform(100), E)).solve()
    assert res.status == "optimal"
    assert res.certificate.gap <= 1e-6 * res.bound
    small = pb.Minimize(_declared(name, pb.Posterior.uniform(3), E[:, :3]))
    assert "outer polytope" in small.explain()


@pytest.mark.parametrize(
    ("prior", "errors"),
    [
        pytest.param([1e-12, 0.5, 0.5 - 1e-12], None, marks=pytest.mark.slow),  # prior near 0
        (None, "zeros"),  # no voter ever errs
        pytest.param(None, "ones", marks=pytest.mark.slow),  # every voter always errs
    ],
)
def test_edges_stay_valid(prior, errors):
    """Near-zero prior weights, all-zero and all-one errors: the C-bound and CCTND stay
    certified, with the lower bound below the written-out grid minimum."""
    E = _voters(6, 3, n=200)
    if errors == "zeros":
        E = np.zeros_like(E)
    elif errors == "ones":
        E = np.ones_like(E)
    q = pb.Posterior(prior) if prior is not None else pb.Posterior.uniform(3)
    a, b = np.meshgrid(np.linspace(0, 1, 31), np.linspace(0, 1, 31))
    w = np.stack([a.ravel(), b.ravel(), 1 - a.ravel() - b.ravel()], axis=1)
    w = np.clip(w[w[:, 2] >= -1e-12], 0, 1)
    for name in ("c_bound", "cctnd+"):
        res = pb.Minimize(_declared(name, q, E)).solve()
        values = [float(_declared(name, q, E).evaluate(Values(x), 0)) for x in w]
        assert res.certificate.lower_bound <= min(values)
        assert res.bound <= min(values) + 1e-9
        assert res.status in ("optimal", "optimal_inaccurate", "local")


def test_a_prior_with_a_zero_weight_falls_back_to_the_local_search():
    """A divergence is infinite at a vertex the prior leaves out, so the box has no cap:
    the search is the local one, and says so."""
    E = _voters(7, 3, n=200)
    q = pb.Posterior([0.0, 0.5, 0.5])
    problem = pb.Minimize(_declared("c_bound", q, E))
    assert not VertexSearch(problem.bound, problem.terms, problem.signs).certifiable()
    assert problem.solve().status in ("local", "optimal")


# CTD: voters with base error rates up to 0.2 on 3000 examples, so that the tandem risk's
# kl bound stays at most 1/2 over the terms' box (where the atom is proven
# quasi-concave) and the bound is below 1
CTD_TOP, CTD_N = 0.2, 3000


def test_claimed_quasi_concavity_of_ctd_holds_at_midpoints():
    """Where the rules call CTD's minorant quasi-concave on its box, it is: at 400
    random pairs of the box the value at the midpoint is at least the lesser end (not
    their mean: the mean fails, as the ratio is not concave); it rises along each
    oriented term; it is never above the bound."""
    E = _voters(0, 5, n=CTD_N, top=CTD_TOP)
    problem, search, (lo, hi), (x, y), at = _in_the_box(E, "ctd")
    assert problem.bound.bounding_form(+1).curvature_over(search.box) == "quasiconcave"
    assert "the bound quasi-concave in them" in problem.explain()
    rng = np.random.default_rng(2)
    form = search.form
    least_end = np.minimum(at(form, x), at(form, y))
    middle = at(form, (x + y) / 2)
    assert np.all(middle >= least_end - 1e-12)
    assert np.any(middle < (at(form, x) + at(form, y)) / 2 - 1e-6)  # not concave
    for i in range(lo.size):
        step = np.zeros(lo.size)
        step[i] = 1.0
        higher = np.minimum(x + rng.uniform(size=(400, 1)) * (hi - x) * step, hi)
        assert np.all(at(form, higher) >= at(form, x) - 1e-12)
    assert np.all(at(form, x) <= at(problem.bound, x) + 1e-12)


def test_ctd_is_not_proven_quasi_concave_where_the_tandem_bound_passes_one_half():
    """The atom rises in the tandem risk only where its kl bound is at most 1/2: on a
    box reaching past that the rule proves nothing, and the bound is searched locally."""
    from cvxpb.ensemble.atoms import CTandem

    unclipped = CTandem(0.0, 0.0, 0.0, 0.0).bounding_form(+1)
    kinds = ("affine", "affine", "convex", "concave")
    fits = [(0.0, 0.3), (0.0, 0.01), (0.0, 0.2), (0.0, 0.4)]
    assert unclipped._curvature(kinds, fits) == "quasiconcave"
    assert unclipped._curvature(kinds, [(0.0, 0.45), *fits[1:]]) is None
    assert CTandem(0.0, 0.0, 0.0, 0.0)._curvature(kinds, fits) is None  # the caps on
    assert unclipped._curvature(("affine", "affine", "concave", "concave"), fits) is None
    E = _voters(3, 3, n=300)
    E[:, 0] = np.random.default_rng(0).uniform(size=300) < 0.48  # its bound passes 1/2
    problem = pb.Minimize(_declared("ctd", pb.Posterior.uniform(3), E))
    assert not VertexSearch(problem.bound, problem.terms, problem.signs).certifiable()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
    st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
)
# N < 0 and D <= 0 at T = 0.01 (L_lo = L_hi = 0.3), N / D = 0.73 at T = 0.2
@example([0.01, 0.0, 0.6, 0.5], [0.2, 0.0, 0.0, 0.0])
def test_ctd_atom_is_monotone_in_each_argument_everywhere(point, other):
    """The value rises in the tandem risk, its kl slack and the Gibbs risk's upper
    bound and falls in its lower bound, at any arguments (the caps at 1 included):
    the directions the atom declares, which outward rounding relies on."""
    from cvxpb.ensemble.atoms import c_tandem

    T, e, L_lo, L_hi = point[0], point[1] * 0.05, point[2] * 0.5, point[3] * 0.6
    base = float(c_tandem(T, e, L_lo, L_hi).evaluate(None, 0))
    up = [max(T, other[0]), max(e, other[1] * 0.05), L_lo, max(L_hi, other[3] * 0.6)]
    assert float(c_tandem(up[0], e, L_lo, L_hi).evaluate(None, 0)) >= base - 1e-12
    assert float(c_tandem(T, up[1], L_lo, L_hi).evaluate(None, 0)) >= base - 1e-12
    assert float(c_tandem(T, e, L_lo, up[3]).evaluate(None, 0)) >= base - 1e-12
    lower = min(L_lo, other[2] * 0.5)
    assert float(c_tandem(T, e, lower, L_hi).evaluate(None, 0)) >= base - 1e-12
    assert float(c_tandem(T, e, L_lo, L_hi).evaluate(None, +1)) >= base
    assert float(c_tandem(T, e, L_lo, L_hi).evaluate(None, -1)) <= base


def test_ctd_certified_against_a_grid_of_the_written_out_bound():
    """Three voters on one sample: the certified lower bound is below the least value
    on a 61 x 61 grid of the simplex of CTD written out (kl inverses by bisection), the
    bound returned is at most that value, and it is the written-out value at the
    posterior returned."""
    E = _voters(3, 3, n=2000, top=0.25)
    res = pb.Minimize(_declared("ctd", pb.Posterior.uniform(3), E)).solve()
    a, b = np.meshgrid(np.linspace(0, 1, 61), np.linspace(0, 1, 61))
    w = np.stack([a.ravel(), b.ravel(), 1 - a.ravel() - b.ravel()], axis=1)
    w = np.clip(w[w[:, 2] >= -1e-12], 0, 1)
    grid = _written_out("ctd", w, E).min()
    assert 0.2 < grid < 1  # a case where the bound says something
    assert res.status == "optimal" and res.certificate.gap <= 1e-7
    assert res.certificate.lower_bound <= grid
    assert res.bound <= grid + 1e-9
    written = _written_out("ctd", res.posterior[None, :], E)[0]  # the same formula, apart
    assert abs(res.bound - written) <= 1e-9


@pytest.mark.parametrize("H", [5, pytest.param(100, marks=SLOW)])
def test_ctd_certified_against_a_multistart_and_within_1e_6_at_100_voters(H):
    """CTD on one sample: "optimal", within 1e-6 of the bound at 100 voters (the issue's
    target), at or below the best of a Nelder-Mead multistart and its lower bound below
    it; its value is its own at the posterior returned."""
    E = _voters(0, H, n=CTD_N, top=CTD_TOP)
    bound = _declared("ctd", pb.Posterior.uniform(H), E)
    res = pb.Minimize(bound).solve()
    assert res.status == "optimal" and res.certificate.gap <= 1e-6 * res.bound
    assert res.bound < 1
    if H <= 5:
        best = _multistart(bound, H, np.random.default_rng(0))
        assert res.certificate.lower_bound <= best
        assert res.bound <= best + 1e-7
    assert formula_of(res) == float(bound.evaluate(Values(res.posterior), +1))
