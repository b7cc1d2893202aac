"""The vertex search's cuts at an atom's domain, and the entrywise floor that proves them.

PAC-Bound 2 has a value only where the pair's joint error ``L - D/2`` is at least 0, and
no finite concave extension past that edge: a vertex of the outer polytope beyond it
certifies nothing. The atom says so (``domain``), the search cuts there once a vertex is
past it, and the cut's offset comes from the least entry of the terms' forms summed
(:func:`cvxpb.engine.declare.terms.weighted_floor`).
"""

import math

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.declare import vertices
from cvxpb.engine.declare.quadratic import pairwise_loss
from cvxpb.engine.declare.terms import gibbs_risk, weighted_floor
from cvxpb.engine.declare.vertices import VertexSearch
from cvxpb.ensemble import bounds as mv
from cvxpb.numerics.trinomial import pac_bound_two


def _forms(seed, H=5):
    rng = np.random.default_rng(seed)
    q = pb.Posterior.uniform(H)
    A = rng.uniform(-1, 1, (H, H))
    risks = rng.uniform(0, 1, H)
    return q, pairwise_loss(q, matrix=(A + A.T) / 2), gibbs_risk(q, risks), pb.KL(q)


@pytest.mark.parametrize("seed", range(5))
def test_the_floor_is_below_every_posterior_and_reached_where_the_least_entry_is(seed):
    """Against 20000 Dirichlet posteriors and the simplex's vertices: never above the
    weighted sum of the oriented terms (a decreasing term enters with its ceiling); equal
    to it, within 1e-12, at the vertex of a least diagonal entry."""
    q, form, risk, kl = _forms(seed)
    signs = {form: 1, risk: -1, kl: 1}
    weighted = [(form, 0.7), (risk, 0.3), (kl, 0.0)]
    floor = weighted_floor(weighted, signs)
    points = np.vstack([np.random.default_rng(seed).dirichlet(np.full(5, 0.3), 20000), np.eye(5)])
    values = np.einsum("ij,jk,ik->i", points, 0.7 * form.matrix, points) - 0.3 * points @ risk.risks
    assert floor <= values.min()
    combined = 0.7 * form.matrix - 0.3 * (risk.risks[:, None] + risk.risks[None, :]) / 2
    if np.argmin(combined) % 6 == 0:  # the least entry on the diagonal: a vertex's value
        assert floor == pytest.approx(values.min(), abs=1e-12)
    # a divergence with weight enters with its floor (0); one with no ceiling, decreasing: -inf
    with_kl = weighted_floor([(form, 1.0), (kl, 0.5)], signs)
    assert with_kl == pytest.approx(weighted_floor([(form, 1.0)], signs), abs=1e-14)
    assert weighted_floor([(form, 1.0), (kl, 0.5)], {form: 1, kl: -1}) == -math.inf


@pytest.mark.parametrize("seed", range(20))
def test_a_form_alone_gives_the_floor_of_its_summed_matrix_bit_for_bit(seed):
    """A single form (the Gibbs risk's or a pairwise loss's) enters through its
    extremes, without its matrix: the same bits as the least entry of the weighted
    matrix summed entry by entry, for either sign, any weight, and a zero weight in the
    list (which still counts in the rounding margin)."""
    from cvxpb.numerics.tolerances import EPS, nudge

    q, form, risk, kl = _forms(seed, H=7)
    rng = np.random.default_rng(seed)
    for term in (form, risk):
        for sign in (1, -1):
            w, mu = float(rng.uniform(0, 3)), float(rng.uniform(0, 2))
            weighted = [(term, w), (kl, mu), (risk if term is form else form, 0.0)]
            least = float(np.min(0.0 + w * sign * term.pair_matrix()))
            size = float(np.max(0.0 + np.abs(w * term.pair_matrix())))
            rest = mu * 1 * kl.floor
            margin = 4 * (len(weighted) + 2) * EPS * (size + abs(rest)) + 1e-300
            expected = float(nudge(least + rest - margin, -1))
            signs = {term: sign, kl: 1, risk: 1, form: 1} | {term: sign}
            assert weighted_floor(weighted, signs) == expected


def _out_of_bag_bound(n=300, H=6, seed=0):
    """PAC-Bound 2 from out-of-bag pair rates: H voters, each with its own examples
    left out (a third of them), each pair's joint error and disagreement on the
    examples both left out; voters 0 and 1 never wrong together (a pair with joint error
    0, as accurate trees often have). The matrices are not Gram matrices, so the
    quadratic forms enter through their minorants."""
    rng = np.random.default_rng(seed)
    errors = (rng.uniform(size=(n, H)) < rng.uniform(0.02, 0.1, H)).astype(float)
    errors[errors[:, 0] == 1, 1] = 0.0
    out = (rng.uniform(size=(n, H)) < 1 / 3).astype(float)
    counts = out.T @ out
    wrong = errors * out
    both = wrong.T @ wrong
    tandem, differ = both / counts, out.T @ wrong + wrong.T @ out - 2 * both
    q = pb.Posterior.uniform(H)
    return mv.pac_bound_2(
        q, tandem_matrix=tandem, disagreement_matrix=differ / counts, n=int(counts.min())
    )


def test_the_domain_cut_gives_pac_bound_2_a_lower_bound(monkeypatch):
    """From pairwise matrices with a zero joint error: a finite lower bound, below the
    least value of 300 Dirichlet posteriors and the bound found; without the cut at the
    domain the least vertex lies past the edge and no lower bound is proven."""
    bound = _out_of_bag_bound()
    problem = pb.Minimize(bound)
    found = problem.solve()
    points = np.random.default_rng(1).dirichlet(np.full(6, 0.5), 300)
    least = min(problem.value_at(p) for p in points)
    assert 0 < found.certificate.lower_bound <= min(least, found.bound)
    monkeypatch.setattr(vertices, "domain_weights", lambda bound, terms, signs: [])
    # no lower bound proven: the certificate holds only what every risk has, 0
    assert pb.Minimize(bound).solve().certificate.lower_bound == 0.0


def test_the_raised_joint_error_moves_the_bound_by_less_than_1e9():
    """The atom raises the joint error by 1e-12 (so that a vertex an ulp past ``D = 2L``
    keeps a value); at a joint error of 0, where the bound is steepest, over a grid of
    disagreements and sides, the value from above there is within 1e-9 of the value from
    below without it, wherever the region has a point."""
    from cvxpb.ensemble.atoms import RAISE, PacBoundTwo

    d, s = np.meshgrid(np.linspace(0, 0.45, 10), np.geomspace(1e-5, 1, 11))
    d, s = d.ravel(), s.ravel()
    atom = PacBoundTwo(0.0, 0.0, 0.0)
    raised = atom._apply([d / 2, d, s], +1)
    exact = pac_bound_two(np.zeros_like(d), d, s, -1)
    assert RAISE == 1e-12
    region = exact >= 0  # a point with a C-bound of 0 or more: the paper's region has one
    assert region.sum() >= 40
    assert np.all(raised[region] >= exact[region])
    assert np.max(raised[region] - exact[region]) < 1e-9
    # a point an ulp past the edge has a value; one well past it none
    assert np.isfinite(atom._apply([0.05 - 1e-17, 0.1, 0.01], -1))
    assert atom._apply([0.05 - 1e-9, 0.1, 0.01], -1) == -np.inf


def test_the_joint_bound_is_below_every_posterior():
    """The scalarized programs' lower bound with the forms summed before their minorant
    (:meth:`cvxpb.engine.declare.programs.ScalarizedPrograms._joint_bound`), at 12 random
    weights of the out-of-bag PAC-Bound 2's three terms: never above the weighted sum of
    the oriented terms at 4000 Dirichlet posteriors and the simplex's vertices, and
    above the least of them by at most 0.05 (the bound the search proves with it)."""
    bound = _out_of_bag_bound()
    problem = pb.Minimize(bound)
    search = VertexSearch(bound, problem.terms, problem.signs)
    rng = np.random.default_rng(2)
    points = np.vstack([rng.dirichlet(np.full(6, a), 2000) for a in (0.3, 3.0)] + [np.eye(6)])
    oriented = np.array([[problem.signs[t] * t.value(p) for t in problem.terms] for p in points])
    for w in rng.dirichlet(np.ones(3), 12):
        weighted = list(zip(problem.terms, w, strict=True))
        q, c = search.certified(weighted)
        joint = search._joint_bound(weighted, q)
        least = float(np.min(oriented @ w))
        assert -math.inf < joint <= least
        assert c >= joint and c > least - 0.05


def test_the_joint_bound_certifies_the_out_of_bag_minimum(monkeypatch):
    """With it the synthetic out-of-bag minimum is certified (gap within 1e-7); with the
    forms' minorants taken one by one the gap stays above 0.01."""
    from cvxpb.engine.declare.pareto import ParetoSearch

    bound = _out_of_bag_bound()
    found = pb.Minimize(bound).solve()
    assert found.status == "optimal" and found.certificate.gap <= 1e-7
    monkeypatch.setattr(ParetoSearch, "_joint_bound", lambda self, weighted, q: -math.inf)
    assert pb.Minimize(bound).solve().certificate.gap > 0.01
