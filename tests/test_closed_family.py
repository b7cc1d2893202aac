"""The two-term search's programs in closed form, solved together
(``ParetoSearch._solve_all``), and the terms' largest values known without
evaluating every vertex (``Term.largest``)."""

import mpmath
import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.declare import divergence_terms, quadratic
from cvxpb.engine.declare.pareto import ParetoSearch
from cvxpb.ensemble import bounds as mv
from tests.maurer_xi import xi


def _declared(kind, risks, prior):
    q = pb.Posterior(prior)
    if kind == "lambda":
        return mv.pac_bayes_lambda(q, risks, 300, 0.05)
    if kind == "chi2":
        return mv.first_order(q, risks, 300, 0.05, distance="sq", divergence="chi2")
    return mv.first_order(q, risks, 300, 0.05, distance=kind)


@pytest.mark.parametrize("kind", ["kl", "sq", "catoni", "lambda", "chi2"])
def test_programs_solved_together_carry_the_values_each_alone_would(kind):
    """Each program solved in a batch has the posterior, lower bound and value (the
    bound at its posterior, rounded up) of the same program solved alone."""
    rng = np.random.default_rng(3)
    risks = rng.uniform(0.05, 0.45, 30)
    prior = rng.dirichlet(np.ones(30))
    problem = pb.Minimize(_declared(kind, risks, prior))
    together = ParetoSearch(problem.bound, problem.terms, problem.signs)
    alone = ParetoSearch(problem.bound, problem.terms, problem.signs)
    mus = list(np.geomspace(1e-6, 10, 9)) + [0.0]
    together._solve_all(mus)
    for mu in mus:
        alone._solve(mu)
    for a, b in zip(together.solved, alone.solved, strict=True):
        assert a.mu == b.mu and a.lower == b.lower
        np.testing.assert_array_equal(a.q, b.q)
        assert a.value == b.value == together.value_at(a.q)
    if kind == "kl":  # and each value against the bound written out in 40 digits
        for solved in together.solved:
            exact = _first_order_in_digits(risks, prior, solved.q, n=300, delta=0.05)
            assert exact <= solved.value <= exact * (1 + 1e-12)


def _first_order_in_digits(risks, prior, q, n, delta):
    """2 kl^-1(L, (KL + ln(xi(n) / delta)) / n) at ``q``, in 40 digits."""
    from tests.test_split_kl_bernstein import mp_kl_inverse

    with mpmath.workdps(40):
        mq = [mpmath.mpf(float(x)) for x in q]
        L = sum(x * mpmath.mpf(float(r)) for x, r in zip(mq, risks, strict=True))
        KL = sum(
            x * mpmath.log(x / mpmath.mpf(float(p)))
            for x, p in zip(mq, prior, strict=True)
            if x > 0
        )
        side = (KL + mpmath.log(mpmath.mpf(xi(n)) / mpmath.mpf(delta))) / n
        return 2 * mp_kl_inverse(L, side, upper=True)


def test_a_bound_with_a_stand_in_or_a_third_term_is_not_a_closed_family():
    """Only an affine term beside a divergence with a closed-form minimum, alone in the
    bound and with no stand-ins, is solved in closed form together."""
    q = pb.Posterior.uniform(6)
    risks = np.linspace(0.1, 0.4, 6)
    first = pb.Minimize(mv.first_order(q, risks, 300, 0.05))
    assert ParetoSearch(first.bound, first.terms, first.signs).closed_family
    errors = (np.random.default_rng(0).uniform(size=(50, 6)) < 0.3).astype(float)
    tandem = pb.Minimize(mv.tandem(q, errors, delta=0.05))
    assert not ParetoSearch(tandem.bound, tandem.terms, tandem.signs).closed_family
    K = divergence_terms.divergence_term(q, "kl")
    L = pb.gibbs_risk(q, risks)
    stand_in = {L: L}
    replaced = ParetoSearch(first.bound, first.terms, first.signs, replace=stand_in)
    assert not replaced.closed_family
    assert K.closed_form_min


@pytest.mark.parametrize("sign", [1, -1])
def test_an_affine_terms_largest_value_is_its_greatest_vertex(sign):
    """The oriented Gibbs risk's largest value from one vertex equals the greatest of
    every vertex's (each rounded up), for either orientation."""
    risks = np.random.default_rng(1).uniform(0, 1, 40)
    L = pb.gibbs_risk(pb.Posterior.uniform(40), risks)
    every = max(sign * L.core(e, sign) for e in np.eye(40))
    assert L.largest(sign) >= every
    assert L.largest(sign) == pytest.approx(every, rel=1e-14, abs=1e-300)


def test_the_kl_divergences_largest_value_is_its_greatest_vertex():
    """KL's largest value over the simplex, ``-log min p``, at least the greatest of
    every vertex's KL in 40 digits and within 1e-13 of it, for a prior with weights
    down to 1e-300; inf where the prior has a zero; a decreasing orientation has none."""
    prior = np.array([0.5, 0.3, 0.2, 1e-300])
    K = divergence_terms.divergence_term(pb.Posterior(prior), "kl")
    with mpmath.workdps(40):  # KL(e_j || p) = -log p_j
        every = max(-mpmath.log(mpmath.mpf(float(p))) for p in K.prior)
        assert K.largest(+1) >= every
        assert K.largest(+1) <= every * (1 + mpmath.mpf(1e-13))
    assert K.largest(+1) <= max(K.core(e, +1) for e in np.eye(4))
    assert K.largest(-1) is None
    zero = divergence_terms.divergence_term(pb.Posterior(np.array([0.5, 0.5, 0.0])), "kl")
    assert zero.largest(+1) == np.inf


def test_a_quadratic_forms_largest_value_is_its_greatest_diagonal_entry_where_convex():
    """A tandem risk on one sample (a Gram matrix, convex): its largest value from the
    diagonal is at least the greatest vertex value (exact), at most its rounded-up
    core there, and bounds the form at 2000 random posteriors; a disagreement (concave)
    taken with sign -1 likewise; and none where the oriented form needs a minorant
    (pairwise estimates, or the wrong direction)."""
    from cvxpb.ensemble import bounds as mv

    rng = np.random.default_rng(4)
    errors = (rng.uniform(size=(120, 9)) < rng.uniform(0.1, 0.5, 9)).astype(float)
    q = pb.Posterior.uniform(9)
    T = next(t for t in pb.Minimize(mv.tandem(q, errors, delta=0.05)).terms if "tandem" in t.name)
    exact = max(float(e @ T.matrix @ e) for e in np.eye(9))  # one product each: exact
    assert exact <= T.largest(+1) <= max(T.core(e, +1) for e in np.eye(9))
    assert T.largest(+1) == pytest.approx(exact, rel=1e-14)
    draws = rng.dirichlet(np.full(9, 0.3), 2000)
    assert max(T.core(d, 0) for d in draws) <= T.largest(+1)
    assert T.largest(-1) is None  # -T is concave: a minorant stands in
    votes = rng.integers(0, 2, size=(120, 9)) * 2 - 1
    c_bound = pb.Minimize(mv.c_bound(q, errors.mean(axis=0), 120, votes))
    D = next(t for t in c_bound.terms if "disagreement" in t.name)
    assert c_bound.signs[D] == -1 and D.minorant(-1) is None  # concave, as it enters
    exact = max(-float(e @ D.matrix @ e) for e in np.eye(9))
    assert exact <= D.largest(-1) <= max(-D.core(e, -1) for e in np.eye(9))
    pairwise = quadratic.PairwiseLoss(q, T.matrix, "pairwise")  # no factor: estimates
    assert pairwise.largest(+1) is None


def test_a_convex_stand_ins_largest_value_is_its_greatest_vertex():
    """The shifted minorant of a pairwise matrix (and the minorant made tight at a
    posterior) and a tangent majorant: the largest value from their diagonals is at
    least the greatest vertex value in exact arithmetic, within 1e-14 of it, and at
    least the stand-in at 2000 random posteriors; none for a decreasing orientation."""
    from fractions import Fraction

    rng = np.random.default_rng(5)
    errors = (rng.uniform(size=(80, 7)) < rng.uniform(0.1, 0.5, 7)).astype(float)
    seen = rng.uniform(size=(80, 7)) < 0.6
    q = pb.Posterior.uniform(7)
    both = seen.T.astype(float) @ seen  # each pair's errors on the examples both saw
    pairwise = ((errors * seen).T @ (errors * seen)) / np.maximum(both, 1)
    form = quadratic.PairwiseLoss(q, pairwise, "pairwise")
    at = rng.dirichlet(np.ones(7))
    draws = rng.dirichlet(np.full(7, 0.3), 2000)
    for stand_in in (form.minorant(+1), form.minorant(+1, at=at), form.majorant(-1, at)):
        exact = max(
            Fraction(float(stand_in.matrix[j, j]))
            + Fraction(float(stand_in.linear[j]))
            + Fraction(stand_in.constant)
            for j in range(7)
        )
        largest = stand_in.largest(+1)
        assert Fraction(largest) >= exact and largest == pytest.approx(float(exact), abs=1e-14)
        assert max(stand_in.core(d, 0) for d in draws) <= largest
        assert stand_in.largest(-1) is None
