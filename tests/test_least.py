"""``Minimize`` of a tuple of declarations: the least of their minima (a union bound),
against the parts minimized one by one."""

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.declare.expressions import DeclarationError
from cvxpb.engine.declare.least import LeastOf
from cvxpb.ensemble import bounds as mv


def _errors(seed=0, n=400, H=5):
    rng = np.random.default_rng(seed)
    return (rng.random((n, H)) < rng.uniform(0.1, 0.35, H)).astype(float)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_least_of_the_parts_minima_with_their_least_lower_bound(seed):
    """CCTND's two sides of mu and CCPBB's grid of three shifts: the union's bound is
    the least part's, proven within tol by the least of the parts' lower bounds; at
    any posterior its value is the least of theirs."""
    E = _errors(seed)
    q = pb.Posterior.uniform(E.shape[1])
    for declared in (
        mv.chebyshev_cantelli_tnd(q, E.mean(0), E.shape[0], E),
        mv.chebyshev_cantelli_bennett(q, E, mu_grid=[-0.1, 0.0, 0.2]),
    ):
        problem = pb.Minimize(declared)
        assert isinstance(problem, LeastOf) and len(problem.parts) == len(declared)
        union = problem.solve()
        alone = [pb.Minimize(d).solve() for d in declared]
        assert union.bound == min(r.bound for r in alone)
        assert union.status == "optimal" and union.certificate.gap <= 1e-7
        least = min(r.bound - r.certificate.gap for r in alone)
        assert union.certificate.lower_bound <= union.bound
        assert abs(union.certificate.lower_bound - least) <= 1e-7
        assert problem.value_at(union.posterior) == pytest.approx(union.bound, abs=1e-12)
        assert union.iterations >= len(declared)
        assert union.message.startswith(f"the least of {len(declared)} bounds, part ")
        assert union.message.endswith(f"certified gap {union.certificate.gap:.3g}")
        posterior = np.random.default_rng(seed).dirichlet(np.ones(E.shape[1]))
        values = [pb.Minimize(d).value_at(posterior) for d in declared]
        assert problem.value_at(posterior) == min(values) >= union.bound


def test_a_tie_is_certified_and_one_part_is_the_part_itself():
    """The same declaration twice (a tie): "optimal" with the part's value. One part:
    exactly the part's own result."""
    E = _errors(3)
    q = pb.Posterior.uniform(E.shape[1])
    tnd = mv.tandem(q, E)
    alone = pb.Minimize(tnd).solve()
    twice = pb.Minimize((tnd, tnd)).solve()
    assert twice.status == "optimal" and twice.bound == alone.bound
    assert twice.certificate.gap <= 1e-7
    once = pb.Minimize([tnd]).solve()
    assert (once.bound, once.certificate.gap) == (alone.bound, alone.certificate.gap)


def test_the_parts_share_one_posterior_and_there_is_at_least_one():
    E = _errors(4)
    first = mv.tandem(pb.Posterior.uniform(5), E)
    other = mv.tandem(pb.Posterior.uniform(5), E)
    with pytest.raises(DeclarationError, match="same Posterior"):
        pb.Minimize((first, other))
    with pytest.raises(DeclarationError, match="at least one"):
        pb.Minimize(())
    with pytest.raises(ValueError, match="rtol must be"):
        pb.Minimize((first,)).solve(rtol=-1.0)


def test_explain_names_the_union_and_each_part():
    E = _errors(5)
    q = pb.Posterior.uniform(E.shape[1])
    text = pb.Minimize(mv.chebyshev_cantelli_tnd(q, E.mean(0), E.shape[0], E)).explain()
    assert text.startswith("minimize the least of 2 declared bounds (a union bound)")
    assert "part 0:" in text and "part 1:" in text and text.count("method:") == 2


@pytest.mark.parametrize("seed", [0, 1])
def test_a_part_stops_once_its_lower_bound_passes_the_cutoff(seed):
    """A cutoff below a bound's minimum: the search stops with its proven lower bound
    above the cutoff (so the minimum is too, checked against the search to 1e-7 without
    one) in fewer programs; a cutoff above it changes nothing."""
    E = _errors(seed)
    q = pb.Posterior.uniform(E.shape[1])
    for declared in (
        mv.chebyshev_cantelli_bennett(q, E, mu_grid=[0.2])[0],  # the vertex search
        mv.tandem(q, E),  # the Pareto search
    ):
        problem = pb.Minimize(declared)
        full = problem.solve()
        cutoff = full.bound * 0.9
        stopped = problem.solve(cutoff=cutoff)
        assert cutoff < stopped.certificate.lower_bound <= full.bound <= stopped.bound
        assert stopped.iterations < full.iterations
        same = problem.solve(cutoff=full.bound + 1.0)
        assert (same.bound, same.iterations) == (full.bound, full.iterations)


def test_the_union_solves_fewer_programs_than_its_parts_alone():
    """CCPBB's whole grid of 15 shifts: the union's bound, posterior and lower bound are
    those the parts give minimized one by one without a cutoff, in fewer programs."""
    E = _errors(3, n=600, H=6)
    q = pb.Posterior.uniform(E.shape[1])
    declared = mv.chebyshev_cantelli_bennett(q, E)
    union = pb.Minimize(declared).solve()
    alone = [pb.Minimize(d).solve(tighten=False) for d in declared]
    best = min(alone, key=lambda r: r.bound)
    assert union.bound == best.bound and np.array_equal(union.posterior, best.posterior)
    assert union.certificate.lower_bound == min(r.certificate.lower_bound for r in alone)
    assert union.iterations < sum(r.iterations for r in alone)


@pytest.mark.parametrize("cutoff", [float("nan"), "1", True])
def test_a_bad_cutoff_is_refused(cutoff):
    problem = pb.Minimize(mv.tandem(pb.Posterior.uniform(3), _errors(H=3)))
    with pytest.raises(ValueError, match="cutoff"):
        problem.solve(cutoff=cutoff)
