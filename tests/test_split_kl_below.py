"""Split-kl's side mu < 0 on one shared sample, in the tandem and Gibbs risks: the atom
against a 40-digit evaluation (kl inverses by bisection, the envelope's peak by golden
sections), its concavity and monotonicity, the declaration against the rate-of-no-error
one it replaces, and its certified minimum against random posteriors."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.engine.declare.kl_atoms import kl_inverse, kl_inverse_lower
from cvxpb.engine.declare.vertices import VertexSearch
from cvxpb.ensemble import MajorityVoteClassifier
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.atoms import split_cantelli, split_cantelli_below
from tests.test_split_kl_bernstein import mp_kl_inverse


def _least_below(U, level):
    """min over mu < 0 of (U - 2 mu l + mu^2) / (1/2 - mu)^2, in v = 1/(1/2 - mu) in (0, 2)."""
    b, a = 1 - 2 * level, U - level + mpmath.mpf(1) / 4
    candidates = [mpmath.mpf(1), 1 - 2 * b + 4 * a]  # v -> 0 (mu -> -inf), v = 2 (mu = 0)
    if a > 0 and 0 < b / (2 * a) < 2:
        candidates.append(1 - b * b / (4 * a))
    return min(candidates)


def _g(t, L, e):
    with mpmath.workdps(40):
        U = mp_kl_inverse(t, e, upper=True)
        R = mp_kl_inverse(min(2 * mpmath.mpf(L) - t, 1), e, upper=True)
        return _least_below(U, (U + R) / 2)


def _envelope(T, L, e):
    """max {g(t) : 0 <= t <= min(T, 2L)}: g at the end where it rises there, else at its
    peak by golden sections (g is concave)."""
    with mpmath.workdps(40):
        end = max(min(mpmath.mpf(T), 2 * mpmath.mpf(L)), mpmath.mpf(0))
        step = mpmath.mpf(10) ** -12
        if end <= step or _g(end, L, e) >= _g(end - step, L, e):
            return _g(end, L, e)
        low, high, ratio = mpmath.mpf(0), end, (mpmath.sqrt(5) - 1) / 2
        for _ in range(60):
            left, right = high - ratio * (high - low), low + ratio * (high - low)
            low, high = (low, right) if _g(left, L, e) >= _g(right, L, e) else (left, high)
        return max(_g((low + high) / 2, L, e), _g(end, L, e))


@settings(max_examples=30, deadline=None)
@given(
    st.floats(0.0, 0.6),
    st.floats(0.0, 0.6),
    st.floats(1e-4, 0.2),
)
def test_the_atom_brackets_its_envelope_in_forty_digits(T, L, e):
    """Rounded down at most the envelope, rounded up at least it, to nearest within
    1e-9 of it (the envelope: g at the end where it rises there, as at any posterior's
    pair, else its peak)."""
    atom = split_cantelli_below(T, L, e)
    low, mid, high = (float(atom.evaluate(None, r)) for r in (-1, 0, 1))
    assert low <= mid <= high
    envelope = float(_envelope(T, L, e))
    assert low <= envelope + 1e-12
    assert high >= envelope - 1e-12
    assert mid == pytest.approx(envelope, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(st.floats(0.0, 0.5), st.floats(0.0, 0.5), st.floats(1e-4, 0.1)),
    st.tuples(st.floats(0.0, 0.5), st.floats(0.0, 0.5), st.floats(1e-4, 0.1)),
)
def test_the_atom_is_concave_and_increasing(first, second):
    """Along a segment the midpoint is at least the ends' mean; raising any argument
    never lowers it."""

    def value(x):
        return float(split_cantelli_below(*x).evaluate(None, 0))

    middle = tuple((a + b) / 2 for a, b in zip(first, second, strict=True))
    assert value(middle) >= (value(first) + value(second)) / 2 - 1e-9
    for k in range(3):
        raised = list(first)
        raised[k] = max(first[k], second[k])
        assert value(raised) >= value(first) - 1e-12


def test_at_a_posterior_it_is_the_no_error_form_it_replaces():
    """With held-out errors, at random posteriors the new side equals the old one
    (through the rate at which neither voter errs, and kl's symmetry)."""
    rng = np.random.default_rng(3)
    errors = (rng.random((500, 12)) < rng.uniform(0.05, 0.4, 12)).astype(float)
    q = pb.Posterior.uniform(12)
    _, below = mv.split_kl(q, errors)
    pairs = mv.PairErrors(errors)
    slack = mv._kl_slack(2 * pb.KL(q), pairs.n, 0.05, parts=3)
    none = mv.pairwise_loss(q, pairs.no_error(), name="no_error_rate")
    old = split_cantelli(
        kl_inverse(pairs.tandem_term(q), slack), kl_inverse_lower(none, slack), mu_nonnegative=False
    )
    new_problem, old_problem = pb.Minimize(below), pb.Minimize(old)
    for posterior in rng.dirichlet(np.full(12, 0.5), size=50):
        assert new_problem.value_at(posterior) == pytest.approx(
            old_problem.value_at(posterior), abs=1e-12
        )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_side_is_certified_and_below_random_posteriors(seed):
    """Status "optimal" with a gap within 1e-7; its lower bound below the side at 1000
    random posteriors (some near the minimizer), its bound at most the least of them."""
    rng = np.random.default_rng(seed)
    H = 15
    errors = (rng.random((800, H)) < rng.uniform(0.05, 0.35, H)).astype(float)
    _, below = mv.split_kl(pb.Posterior.uniform(H), errors)
    problem = pb.Minimize(below)
    result = problem.solve()
    assert result.status == "optimal" and result.certificate.gap <= 1e-7
    posteriors = list(rng.dirichlet(np.full(H, 0.3), size=700))
    posteriors += [0.9 * result.posterior + 0.1 * p for p in rng.dirichlet(np.ones(H), 300)]
    values = [problem.value_at(p) for p in posteriors]
    assert result.certificate.lower_bound <= min(values)
    assert result.bound <= min(values) + 1e-9


def test_the_classifier_certifies_split_kl_on_held_out_errors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    model = MajorityVoteClassifier(bound="split_kl", validation="split", random_state=0)
    model.fit(X, y)
    assert model.result_.status == "optimal"
    assert model.result_.certificate.gap <= 1e-7


def test_out_of_bag_the_side_is_certifiable_through_the_rates_ceiling():
    """Out of bag the no-error rates' matrix is indefinite and its concave majorant can
    pass 1 on the simplex, where the lower kl inverse is not proven convex; a rate is at
    most its largest entry, and with the majorant lowered to it the vertex certificate
    applies. The lower bound stays below the side at 600 random posteriors and the bound
    at most their least value."""
    rng = np.random.default_rng(3)
    H, n = 20, 300  # the majorant reaches 1.2 (with 12 voters 0.96: certifiable anyway)
    hard = rng.random(n) < 0.3
    errors = (hard[:, None] ^ (rng.random((n, H)) < 0.2)).astype(float)
    seen = rng.random((n, H)) < 0.37
    _, below = mv.split_kl(pb.Posterior.uniform(H), errors, seen=seen)
    problem = pb.Minimize(below)
    search = VertexSearch(problem.bound, problem.terms, problem.signs)
    none = next(t for t in problem.terms if problem.signs[t] < 0)
    assert search.convex[none] is not None  # the rates go through their majorant
    assert search.certifiable()
    assert search.box.lo[none] >= -none.ceiling
    result = problem.solve()
    posteriors = list(rng.dirichlet(np.full(H, 0.3), size=400))
    posteriors += [0.9 * result.posterior + 0.1 * p for p in rng.dirichlet(np.ones(H), 200)]
    values = [problem.value_at(p) for p in posteriors]
    assert result.certificate.lower_bound <= min(values)
    assert result.bound <= min(values) + 1e-9
