"""Newton's method for quadratic + mu KL on the simplex, against Clarabel and its own
dual certificate."""

import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.special import rel_entr

import cvxpb as pb
from cvxpb.engine.declare import pareto, programs
from cvxpb.engine.declare.divergence_terms import KL
from cvxpb.engine.declare.newton import minimize_quadratic_kl
from cvxpb.engine.declare.terms import Posterior
from cvxpb.ensemble import bounds as mv


def _objective(S, b, mu, prior, q):
    return 0.5 * q @ S @ q + b @ q + mu * float(np.sum(rel_entr(q, prior)))


def _certified_lower(S, b, mu, prior, q):
    """Weak duality at ``q``: the objective's linearization plus the closed-form
    minimum of ``g @ q' + mu KL(q')`` (convexity on the simplex)."""
    g = S @ q + b
    linear_min = KL(Posterior(prior)).linear_min(g, mu)[1]
    return 0.5 * q @ S @ q + b @ q - g @ q + linear_min


def _clarabel(F, shift, b, mu, prior):
    """min |F q|^2 + shift (q @ 1)^2 / 2 + b @ q + mu KL on the simplex, where the
    shift is a constant there (written as such for CVXPY)."""
    q = cp.Variable(prior.size, nonneg=True)
    objective = cp.sum_squares(F @ q) + b @ q + mu * cp.sum(cp.rel_entr(q, prior)) + shift / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cp.Problem(cp.Minimize(objective), [cp.sum(q) == 1]).solve(solver="CLARABEL")
    x = np.maximum(q.value, 0.0)
    return x / x.sum()


def _case(seed, H, mu, shift, tiny_prior):
    rng = np.random.default_rng(seed)
    F = (rng.uniform(size=(3 * H, H)) < 0.3) / np.sqrt(3 * H)
    S = 2 * F.T @ F + shift * np.ones((H, H))  # shift < 0: indefinite, PSD on sum q = 0
    b = rng.uniform(0, 0.5, H)
    prior = rng.dirichlet(np.ones(H))
    if tiny_prior:
        prior[0] = 1e-12
        prior /= prior.sum()
    return F, S, b, mu, prior


@pytest.mark.parametrize("mu", [1e-8, 1e-4, 1e-2, 1.0, 100.0])
@pytest.mark.parametrize(
    ("H", "shift", "tiny_prior"),
    [(1, 0.0, False), (6, 0.0, False), (40, -2.0, True), (120, 0.0, False)],
)
def test_newton_meets_its_certificate_and_is_never_above_clarabel(H, shift, tiny_prior, mu):
    """Its objective is within 1e-12 of the certified lower bound (so within that of
    the minimum), and never above Clarabel's solution of the same program; also for a
    matrix that is indefinite but semidefinite on the plane sum q = 0 (the
    disagreement's direction), priors near 0, one voter and small mu."""
    F, S, b, mu, prior = _case(H + int(mu * 1e6) % 97, H, mu, shift, tiny_prior)
    q = minimize_quadratic_kl(S, b, mu, prior, prior)
    assert q is not None and np.all(q >= 0) and q.sum() == pytest.approx(1, abs=1e-14)
    value = _objective(S, b, mu, prior, q)
    lower = _certified_lower(S, b, mu, prior, q)
    assert value - lower <= 1e-12 * max(1.0, abs(value))
    reference = _clarabel(F, shift, b, mu, prior)
    assert value <= _objective(S, b, mu, prior, reference) + 1e-13


@pytest.mark.parametrize(("seed", "H", "mu"), [(31, 3, 1e-8), (38, 10, 1e-7), (86, 28, 1e-7)])
def test_polishing_steps_meet_the_certificate_at_small_mu(seed, H, mu):
    """At small mu the objective is flat to its last bits before the stationarity
    condition (which the certificate divides by mu) is met: the polishing steps take
    the certified gap from about 1e-9 to about 1e-14 on these programs."""
    _, S, b, mu, prior = _case(seed, H, mu, 0.0, False)
    q = minimize_quadratic_kl(S, b, mu, prior, prior)
    assert _objective(S, b, mu, prior, q) - _certified_lower(S, b, mu, prior, q) <= 1e-13


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    H=st.integers(1, 12),
    log_mu=st.floats(-9, 3),
    shift=st.sampled_from([0.0, -1.0]),
)
def test_newton_returns_a_posterior_no_worse_than_its_start(seed, H, log_mu, shift):
    _, S, b, mu, prior = _case(seed, H, 10.0**log_mu, shift, False)
    q = minimize_quadratic_kl(S, b, mu, prior, prior)
    assert q is not None
    assert np.all(q >= 0) and abs(q.sum() - 1) <= 1e-14
    start = _objective(S, b, mu, prior, prior)
    assert _objective(S, b, mu, prior, q) <= start + 1e-14 * max(1.0, abs(start), mu)


def test_a_zero_in_the_prior_stays_zero():
    _, S, b, mu, prior = _case(3, 5, 0.1, 0.0, False)
    prior[2] = 0.0
    prior /= prior.sum()
    q = minimize_quadratic_kl(S, b, mu, prior, np.full(5, 0.2))
    assert q[2] == 0.0
    assert _objective(S, b, mu, prior, q) - _certified_lower(S, b, mu, prior, q) <= 1e-12


def test_the_conic_route_gives_the_same_certified_tandem_bound(monkeypatch):
    """Where Newton's method fails, CVXPY solves the programs: the same bound within
    the tolerance, still certified."""
    rng = np.random.default_rng(4)
    E = (rng.uniform(size=(300, 8)) < rng.uniform(0.1, 0.4, 8)).astype(float)
    q = pb.Posterior.uniform(8)
    newton = pb.Minimize(mv.tandem(q, E, delta=0.05)).solve()
    monkeypatch.setattr(programs, "minimize_quadratic_kl", lambda *args: None)
    conic = pb.Minimize(mv.tandem(q, E, delta=0.05)).solve()
    assert newton.status == conic.status == "optimal"
    assert newton.bound == pytest.approx(conic.bound, abs=2e-7)
    assert newton.certificate.lower_bound <= conic.bound
    assert conic.certificate.lower_bound <= newton.bound


@settings(max_examples=30, deadline=None)
@given(
    H=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), shift=st.sampled_from([1e-6, 1.0, -3.0])
)
def test_the_newton_system_by_cholesky_matches_the_bordered_system(H, seed, shift):
    """``A y + lam c = r``, ``c @ y = 0``: the Cholesky route (A positive definite) and
    the bordered system it falls back to (A indefinite, shift -3) against numpy's
    solve of the whole bordered matrix."""
    from cvxpb.engine.declare.newton import KERNELS

    rng = np.random.default_rng(seed)
    F = rng.normal(size=(H, H))
    A = F @ F.T / H + shift * np.eye(H)
    r, c = rng.normal(size=H), rng.uniform(0.1, 1.0, H)
    bordered = np.block([[A, c[:, None]], [c[None, :], np.zeros((1, 1))]])
    if abs(np.linalg.det(bordered)) < 1e-8:
        return  # singular: nothing to compare
    expected = np.linalg.solve(bordered, np.append(r, 0.0))[:H]
    y, solved = KERNELS.constrained_solve(A, r, c)
    assert solved
    assert np.allclose(y, expected, rtol=1e-6, atol=1e-8 * (1 + np.abs(expected).max()))
    assert abs(c @ y) <= 1e-9 * (1 + np.abs(y).max())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_quadratic_alone_is_solved_through_the_continuation(monkeypatch, seed):
    """A program of the tandem risk alone (no KL: the vertex search's weights without
    it) goes to the entropy floor through CONTINUATION: a Frank-Wolfe gap within 1e-11,
    no worse than straight at the floor, in at most a third of the objective's
    evaluations (straight at the floor, coordinates bound for 0 fall a hundredfold a
    step and the line search cuts most steps short)."""
    from cvxpb.engine.declare import newton

    rng = np.random.default_rng(seed)
    E = (rng.random((400, 60)) < rng.uniform(0.05, 0.4, 60)).astype(float)
    problem = pb.Minimize(mv.tandem(pb.Posterior.uniform(60), E))
    search = pareto.ParetoSearch(problem.bound, problem.terms, problem.signs)
    tandem = next(t for t in problem.terms if t.name == "tandem_risk")
    S = tandem.quadratic()[0]
    evaluations = []
    gaps = []
    for stages in (programs.CONTINUATION, ()):
        monkeypatch.setattr(programs, "CONTINUATION", stages)
        before = newton.evaluations
        q = search._newton([(tandem, 1.0)])
        evaluations.append(newton.evaluations - before)
        g = S @ q
        gaps.append(g @ q - g.min())
    assert gaps[0] <= max(gaps[1], 1e-11)
    assert evaluations[0] <= evaluations[1] / 3


@pytest.mark.parametrize("weight", [1e-50, 1e-200, 1e-300])
@pytest.mark.parametrize("mu", [0.1, 1e-3, 1e-4, 1e-8])
def test_a_best_voter_of_prior_weight_near_zero_is_reached(weight, mu):
    """Voter 0 costs nothing and the others 0.3 to 0.5, its prior weight is ``weight``:
    Newton's step moves ``q_0`` by about ``q_0 g_0 / mu``, so from the prior it stalled
    with ``q_0`` near 1e-190 where the minimum puts almost all mass on voter 0 (a tandem
    bound of 0.59 reported where voter 0 alone gave 0.037). The mass transfer meets the
    certificate, and the value is never above voter 0's vertex nor the prior's."""
    rng = np.random.default_rng(7)
    H = 6
    F = (rng.uniform(size=(40, H)) < 0.4) / np.sqrt(40)
    F[:, 0] = 0.0
    S = 2 * F.T @ F
    b = np.r_[0.0, rng.uniform(0.3, 0.5, H - 1)]
    prior = np.r_[weight, np.full(H - 1, (1 - weight) / (H - 1))]
    q = minimize_quadratic_kl(S, b, mu, prior, prior)
    value = _objective(S, b, mu, prior, q)
    assert value - _certified_lower(S, b, mu, prior, q) <= 1e-12 * max(1.0, abs(value))
    vertex = np.eye(H)[0]
    assert value <= min(_objective(S, b, mu, prior, vertex), _objective(S, b, mu, prior, prior))


@pytest.mark.parametrize("mu", [0.003, 0.03, 0.3, 3.0])
@pytest.mark.parametrize("which", ["tnd", "tnd_pairwise", "c_bound", "dis"])
def test_the_program_a_search_solves_is_dcp_and_newton_meets_clarabel_on_it(which, mu):
    """Minimize.formulation(weights) is the scalarized program as a CVXPY problem: DCP,
    and its optimum by Clarabel is the objective of Newton's solution of the same
    program within 1e-6 (and never below the certified lower bound of that program);
    on a tandem matrix of pairwise estimates the program holds the form's convex
    minorant, as the search does."""
    rng = np.random.default_rng(11)
    n, H = 400, 6
    truth = rng.integers(0, 2, n)
    votes = np.where(rng.random((n, H)) < rng.uniform(0.1, 0.4, H), 1 - truth[:, None],
                     truth[:, None])  # fmt: skip
    errors = (votes != truth[:, None]).astype(float)
    q = pb.Posterior(rng.dirichlet(np.ones(H)))
    tandem = errors.T @ errors / n
    tandem[0, 1] = tandem[1, 0] = tandem[0, 1] + 0.05  # no longer a Gram matrix
    declared = {
        "tnd": lambda: mv.tandem(q, errors),
        "tnd_pairwise": lambda: mv.tandem(q, matrix=tandem, n=n),
        "c_bound": lambda: mv.c_bound(q, errors.mean(0), n, votes),
        "dis": lambda: mv.disagreement_bound(q, errors.mean(0), n, votes),
    }[which]()
    problem = pb.Minimize(declared)
    weights = [1.0] * (len(problem.terms) - 1) + [mu]
    program = problem.formulation(weights=weights)
    assert program.is_dcp()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clarabel = program.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10)
    search = pareto.ParetoSearch(problem.bound, problem.terms, problem.signs)
    weighted = list(zip(problem.terms, weights, strict=True))
    q_newton, lower = search.certified(weighted)
    x = program.variables()[0]
    x.value = np.maximum(q_newton, 0) / np.maximum(q_newton, 0).sum()
    newton = float(program.objective.value)
    assert newton == pytest.approx(clarabel, abs=1e-6)
    assert lower <= clarabel + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    H=st.integers(1, 40),
    log_mu=st.floats(-6, 2),
    tiny=st.sampled_from([None, 1e-12, 1e-100, 1e-300]),
)
# the voter of prior 1e-100 wants a thousandth of the mass and held 1e-78: the transfer
# went to the vertex that wanted the most mass, one that already held it
@example(seed=24, H=24, log_mu=-3.875, tiny=1e-100)
def test_the_compiled_newton_meets_its_certificate_with_priors_near_zero(seed, H, log_mu, tiny):
    """The compiled iteration against weak duality (the linearization plus KL's closed
    form, written in this file): within 1e-11 of its certified lower bound, with a prior
    weight down to 1e-300 on one voter."""
    _, S, b, mu, prior = _case(seed, H, 10.0**log_mu, 0.0, False)
    if tiny is not None and H > 1:
        prior[0] = tiny
        prior /= prior.sum()
    q = minimize_quadratic_kl(S, b, mu, prior, prior)
    assert q is not None and np.all(q >= 0)
    value = _objective(S, b, mu, prior, q)
    assert value - _certified_lower(S, b, mu, prior, q) <= 1e-11 * max(1.0, abs(value))
