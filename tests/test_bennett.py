"""Wu et al.'s (2021) CCPBB: Chebyshev-Cantelli with the PAC-Bayes-Bennett inequality.

Independent routes: the pairs' unbiased variances against numpy's ``var(ddof=1)`` on
each pair's common examples; the atom against the least value over both grids in 40
digits (mpmath); each declaration at random posteriors against the bound recomputed
from per-example losses in 40 digits; Bennett's lemma checked in 40 digits, with the
range (ours) and with the top of the loss (the authors' code) as its constant; the
minimum against a Nelder-Mead multistart.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvxpb as pb
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.atoms import pac_bayes_bennett
from cvxpb.ensemble.classifier import MajorityVoteClassifier
from cvxpb.ensemble.pairs import PairErrors
from tests.brute_force import formula_at, formula_of
from tests.maurer_xi import xi
from tests.test_declare import _multistart
from tests.test_split_kl_bernstein import errors_and_mask, mp_posterior_kl, posterior


@pytest.fixture(autouse=True)
def forty_digits():
    with mp.workdps(40):
        yield


def mp_phi_over(x):
    """``phi(x) / x`` with ``phi(x) = e^x - x - 1``."""
    x = mp.mpf(x)
    return (mp.expm1(x) - x) / x


def mp_excess(V, D, n, b, ts, cost_v, xs, cost):
    """The least over both grids of the PAC-Bayes-Bennett excess, in mpmath, written out
    from the inequalities (not from the atom)."""
    V, D, b = mp.mpf(V), mp.mpf(D), mp.mpf(b)
    variance = min(
        V / (1 - mp.mpf(t)) + b**2 * (D + cost_v) / (2 * (n - 1) * mp.mpf(t) * (1 - mp.mpf(t)))
        for t in ts
    )
    variance = min(variance, b**2 / 4)
    return min(
        mp_phi_over(x) / b * variance + b * (D + cost) / (mp.mpf(x) * n)  # gamma = x / b
        for x in xs
    )


# --- the pairs' variances ---------------------------------------------------------------


@pytest.mark.parametrize("mu", [-0.3, 0.0, 0.15, 0.4])
def test_pair_variances_are_numpys_unbiased_variances(mu):
    E, seen = errors_and_mask(11)
    H = E.shape[1]
    q = posterior(12, H)
    term = PairErrors(E, seen).shifted_variance(pb.Posterior.uniform(H), mu)
    expected = 0.0
    for i in range(H):
        for j in range(H):
            common = seen[:, i] & seen[:, j]
            z = (E[common, i] - mu) * (E[common, j] - mu)
            expected += q[i] * q[j] * np.var(z, ddof=1)
    assert term.value(q) >= expected
    assert term.value(q) == pytest.approx(expected, rel=1e-12, abs=1e-15)


# --- the atom ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 57, 2000, 10**6])
def test_atom_is_the_least_over_both_grids_in_forty_digits(n):
    rng = np.random.default_rng(n)
    ts, xs = mv.bennett_grids(n, 0.01)
    for _ in range(5):
        V, D, b = rng.random() * 0.3, rng.random() * 5, rng.uniform(0.5, 1.8)
        cost, cost_v = math.log(xs.size / 0.01), math.log(ts.size / 0.01)
        atom = pac_bayes_bennett(V, D, n=n, spread=b, gammas=xs, cost=cost, ts=ts,
                                 variance_cost=cost_v)  # fmt: skip
        reference = mp_excess(V, D, n, b, ts, cost_v, xs, cost)
        above, below = atom.evaluate(None, +1), atom.evaluate(None, -1)
        assert below <= reference <= above
        assert above == pytest.approx(float(reference), rel=1e-12)


def test_grids_are_fixed_by_n_and_delta_and_span_their_ranges():
    for n, delta in [(2, 0.5), (100, 0.05), (10**6, 1e-9)]:
        ts, xs = mv.bennett_grids(n, delta)
        c = math.log(1 / delta)
        assert ts[0] == pytest.approx(1 / (math.sqrt((n - 1) / c + 1) + 1))
        assert ts[-1] == 0.5 and np.all(np.diff(ts) > 0) and np.all(ts > 0)
        assert xs[0] == pytest.approx(min(math.sqrt(8 * c / n), 1.0)) and xs[-1] >= 4
        assert np.allclose(xs[1:] / xs[:-1], 1.05)


@settings(max_examples=80, deadline=None)
@given(
    st.floats(0, 0.6), st.floats(0, 20), st.floats(0, 0.3), st.floats(0, 3),
    st.floats(0.5, 2.0), st.sampled_from([3, 200, 10**5]),
)  # fmt: skip
def test_atom_is_increasing_and_concave(V, D, dV, dD, b, n):
    ts, xs = mv.bennett_grids(n, 0.05)

    def f(v, d):
        atom = pac_bayes_bennett(v, d, n=n, spread=b, gammas=xs, cost=3.0, ts=ts,
                                 variance_cost=2.0)  # fmt: skip
        return atom.evaluate(None, 0)

    assert f(V + dV, D + dD) >= f(V, D) - 1e-15
    middle = f(V + dV / 2, D + dD / 2)
    assert middle >= (f(V, D) + f(V + dV, D + dD)) / 2 - 1e-12 * (1 + middle)


# --- Bennett's constant -------------------------------------------------------------------


def test_bennetts_lemma_needs_the_range_not_the_top_of_the_loss():
    """``E exp(gamma (E Z - Z)) <= exp(phi(gamma b) / b^2 Var Z)`` needs ``E Z - Z <= b``.
    For the shifted tandem loss at mu = 1/4 that is the range ``K = 3/4``; the top of the
    loss, ``(3/4)^2``, is smaller, and the lemma fails with it for pairs that both err 95%
    of the time (so the authors' constant is not covered by Bennett's lemma; the range is,
    at every gamma of a wide grid)."""
    mu = mp.mpf("0.25")
    values = [mu**2, -mu * (1 - mu), (1 - mu) ** 2]  # neither, one, both err
    probabilities = [mp.mpf("0.001"), mp.mpf("0.049"), mp.mpf("0.95")]
    mean = mp.fsum(p * v for p, v in zip(probabilities, values, strict=True))
    variance = mp.fsum(p * (v - mean) ** 2 for p, v in zip(probabilities, values, strict=True))

    def excess(gamma, b):  # ln of the moment generating function over the lemma's side
        mgf = mp.fsum(
            p * mp.e ** (gamma * (mean - v)) for p, v in zip(probabilities, values, strict=True)
        )
        return mp.log(mgf) - (mp.expm1(gamma * b) - gamma * b) / b**2 * variance

    top, spread = (1 - mu) ** 2, max(1 - mu, 1 - 2 * mu)
    assert excess(mp.mpf(3), top) > mp.mpf("0.01")
    assert all(excess(mp.mpf(g) / 4, spread) <= 0 for g in range(1, 200))


# --- the declarations -------------------------------------------------------------------


@pytest.mark.parametrize("out_of_bag", [False, True])
def test_declarations_at_random_posteriors_against_forty_digits(out_of_bag):
    """Each mu's bound from per-example losses: the pairs' means and unbiased variances
    on their common examples, both grids and the union bound over all of them."""
    E, seen = errors_and_mask(13, n=250)
    seen = seen if out_of_bag else np.ones_like(seen)
    H, delta, mus = E.shape[1], 0.05, (-0.2, 0.0, 0.1, 0.3)
    declared = mv.chebyshev_cantelli_bennett(
        pb.Posterior.uniform(H), E, delta, seen=seen, mu_grid=mus
    )
    n = PairErrors(E, seen).n
    share = delta / (2 * len(mus))
    c = math.log(1 / share)
    t0 = 1 / (math.sqrt((n - 1) / c + 1) + 1)
    ts = [min(t0 * 1.05**k, 0.5) for k in range(math.ceil(math.log(0.5 / t0) / math.log(1.05)) + 1)]
    x0 = min(math.sqrt(8 * c / n), 1.0)
    xs = [x0 * 1.05**k for k in range(math.ceil(math.log(4 / x0) / math.log(1.05)) + 1)]
    for seed in range(2):
        q = posterior(30 + seed, H)
        D = 2 * mp_posterior_kl(q)
        for mu, part in zip(mus, declared, strict=True):
            mean = variance = mp.mpf(0)
            for i in range(H):
                for j in range(H):
                    common = seen[:, i] & seen[:, j]
                    z = [
                        (mp.mpf(a) - mu) * (mp.mpf(b) - mu)
                        for a, b in zip(E[common, i], E[common, j], strict=True)
                    ]
                    m = mp.fsum(z) / len(z)
                    weight = mp.mpf(q[i]) * mp.mpf(q[j])
                    mean += weight * m
                    variance += weight * mp.fsum((x - m) ** 2 for x in z) / (len(z) - 1)
            spread = max(1 - mu, 1 - 2 * mu)
            excess = mp_excess(variance, D, n, spread, ts, mp.log(len(ts) / share), xs,
                               mp.log(len(xs) / share))  # fmt: skip
            reference = max(mean + excess, 0) / (mp.mpf(0.5) - mp.mpf(mu)) ** 2
            value = formula_at(part, q)
            assert value >= reference
            assert value == pytest.approx(float(reference), rel=1e-10)


def test_minimum_is_a_true_bound_at_its_posterior_and_its_lower_bound_holds():
    """Three terms, one of them indefinite (the variances): the status says 'local' or
    'optimal'; the bound is the bound at the posterior returned, no multistart goes below
    the lower bound, and the minimum is within 1e-4 of the multistart's best."""
    E, _ = errors_and_mask(14, n=600, H=4, rates=(0.1, 0.2, 0.3, 0.25))
    (part,) = mv.chebyshev_cantelli_bennett(pb.Posterior.uniform(4), E, mu_grid=[0.05])
    problem = pb.Minimize(part)
    res = problem.solve()
    assert res.status in ("optimal", "local")
    assert res.bound == problem.value_at(res.posterior)
    best = _multistart(part, 4, np.random.default_rng(0), starts=6)
    assert res.certificate.lower_bound <= best
    assert res.bound <= best + 1e-4


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_all_zero_and_all_one_errors(rate):
    """No variance at all: each mu's bound is the shifted loss plus the complexity at the
    largest gamma of the grid (the variance inequality's floor times phi's weight)."""
    n, H = 400, 3
    E = np.full((n, H), rate)
    declared = mv.chebyshev_cantelli_bennett(pb.Posterior.uniform(H), E, mu_grid=(0.0, 0.2))
    share = 0.05 / 4
    ts, xs = mv.bennett_grids(n, share)
    for mu, part in zip((0.0, 0.2), declared, strict=True):
        z = (rate - mu) ** 2
        spread = max(1 - mu, 1 - 2 * mu)
        excess = mp_excess(
            0, 0, n, spread, ts, mp.log(ts.size / share), xs, mp.log(xs.size / share)
        )
        reference = (z + excess) / (mp.mpf(0.5) - mu) ** 2
        res = pb.Minimize(part).solve()
        value = formula_of(res)
        assert value >= reference and value == pytest.approx(float(reference), rel=1e-9)
        if rate == 1:
            assert value >= 1 and res.bound == 1


def test_bad_input_is_refused():
    E, seen = errors_and_mask(1)
    q = pb.Posterior.uniform(5)
    with pytest.raises(ValueError, match="mu_grid"):
        mv.chebyshev_cantelli_bennett(q, E, mu_grid=[0.5])
    with pytest.raises(ValueError, match="two examples"):
        mv.chebyshev_cantelli_bennett(pb.Posterior.uniform(2), np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="delta"):
        mv.chebyshev_cantelli_bennett(q, E, delta=1.5)


def test_classifier_minimizes_ccpbb_for_three_classes():
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=6, random_state=0)
    clf = MajorityVoteClassifier(forest, bound="ccpbb", validation="split", random_state=0)
    clf.fit(X, y)
    parts = clf.declarations_["ccpbb"]
    assert len(parts) == mv.MU_GRID.size
    at = [pb.Minimize(p).value_at(clf.posterior_) for p in parts]
    assert clf.result_.bound == pytest.approx(min(at), rel=1e-12)


# --- Masegosa et al.'s (2020) CTD ---------------------------------------------------------


def test_ctd_at_random_posteriors_against_forty_digits():
    """The authors' form: the numerator above at (T_hi, L_lo), the denominator below at
    (T_lo, L_hi), each pair of sides from one kl inequality at delta / 2."""
    from tests.test_split_kl_bernstein import mp_kl_inverse, pair_mean

    E, _ = errors_and_mask(15, n=3000, H=4, rates=(0.05, 0.1, 0.08, 0.12))
    seen = np.ones_like(E, dtype=bool)
    n, H, delta = E.shape[0], E.shape[1], 0.05
    risks = E.mean(axis=0)
    for matrix in (False, True):
        if matrix:
            ctd = mv.c_tandem(pb.Posterior.uniform(H), risks, n, None, n, delta, matrix=E.T @ E / n)
        else:
            ctd = mv.c_tandem(pb.Posterior.uniform(H), risks, n, E, None, delta)
        for seed in range(3):
            q = posterior(40 + seed, H)
            K = mp_posterior_kl(q)
            e_t = (2 * K + mp.log(2 * mp.mpf(xi(n)) / mp.mpf(delta))) / n
            e_l = (K + mp.log(2 * mp.mpf(xi(n)) / mp.mpf(delta))) / n
            T = pair_mean(E, seen, q, lambda a, b: a * b)
            L = mp.fsum(mp.mpf(x) * mp.mpf(r) for x, r in zip(q, risks, strict=True))
            T_hi, T_lo = mp_kl_inverse(T, e_t, True), mp_kl_inverse(T, e_t, False)
            L_hi, L_lo = mp_kl_inverse(L, e_l, True), mp_kl_inverse(L, e_l, False)
            reference = min(1, (T_hi - L_lo**2) / (T_lo - L_hi + mp.mpf(1) / 4))
            assert L_hi < 0.5 and reference < 1  # a case where the bound says something
            value = formula_at(ctd, q)
            assert value >= reference - 1e-15
            assert value == pytest.approx(float(reference), rel=1e-9)


def test_the_c_tandem_oracle_is_the_least_chebyshev_cantelli_bound():
    """With exact risks, CTD's atom is (T - L^2) / (T - L + 1/4), which is the least over
    mu < 1/2 of (T - 2 mu L + mu^2) / (1/2 - mu)^2 (scipy's scalar minimizer)."""
    from scipy.optimize import minimize_scalar

    from cvxpb.ensemble.atoms import c_tandem

    rng = np.random.default_rng(16)
    for _ in range(20):
        L = rng.uniform(0.01, 0.45)
        T = rng.uniform(L * L, L)  # Jensen and e^2 = e
        atom = float(c_tandem(T, 0.0, L, L).evaluate(None, 0))
        best = minimize_scalar(lambda mu, T=T, L=L: (T - 2 * mu * L + mu * mu) / (0.5 - mu) ** 2,
                               bounds=(-50, 0.5 - 1e-9), method="bounded",
                               options={"xatol": 1e-12})  # fmt: skip
        assert atom == pytest.approx(best.fun, rel=1e-7)
        assert atom <= best.fun + 1e-12


def test_cctnd_is_never_above_ctd_on_the_same_inequalities():
    """Both rest on the same two kl inequalities: CCTND (least of its two sides) is the
    least over mu of the Chebyshev-Cantelli bound at the worst point of their box, CTD
    bounds the same ratio's numerator and denominator apart, so CCTND <= CTD."""
    for seed in range(4):
        E, _ = errors_and_mask(50 + seed, n=2000, H=4, rates=(0.05, 0.15, 0.1, 0.2))
        q = pb.Posterior.uniform(4)
        risks = E.mean(axis=0)
        ctd = pb.Minimize(mv.c_tandem(q, risks, 2000, E))
        sides = [pb.Minimize(d) for d in mv.chebyshev_cantelli_tnd(q, risks, 2000, E)]
        for k in range(5):
            w = posterior(60 + 5 * seed + k, 4)
            assert min(s.value_at(w) for s in sides) <= ctd.value_at(w) + 1e-12


def test_ctd_is_one_where_the_gibbs_risk_may_reach_one_half():
    E = np.zeros((100, 2))
    E[:55] = 1.0  # both voters err on 55% of the examples
    ctd = mv.c_tandem(pb.Posterior.uniform(2), E.mean(axis=0), 100, E)
    assert pb.Minimize(ctd).value_at([0.5, 0.5]) == 1.0


def test_ccpbb_with_priors_near_zero_and_a_huge_sample_against_forty_digits():
    """n = 200000, prior and posterior weights of 1e-12: each pair's mean and unbiased
    variance rebuilt in 40 digits from its four outcome counts (both err, one, the other,
    neither), not from PairErrors' rates."""
    rng = np.random.default_rng(17)
    n = 200_000
    E = (rng.random((n, 3)) < [0.05, 0.1, 0.2]).astype(float)
    prior = np.array([1e-12, 0.4, 0.6 - 1e-12])
    q = np.array([1e-12, 0.7, 0.3 - 1e-12])
    mus, delta = (-0.2, 0.1), 0.05
    declared = mv.chebyshev_cantelli_bennett(pb.Posterior(prior), E, delta, mu_grid=mus)
    share = delta / (2 * len(mus))
    ts, xs = mv.bennett_grids(n, share)
    K = mp.fsum(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(b)) for a, b in zip(q, prior, strict=True))
    for mu, part in zip(mus, declared, strict=True):
        mu = mp.mpf(mu)
        values = {
            (1, 1): (1 - mu) ** 2,
            (1, 0): -mu * (1 - mu),
            (0, 1): -mu * (1 - mu),
            (0, 0): mu**2,
        }
        mean = variance = mp.mpf(0)
        for i in range(3):
            for j in range(3):
                counts = {k: int(np.sum((E[:, i] == k[0]) & (E[:, j] == k[1]))) for k in values}
                m = mp.fsum(c * values[k] for k, c in counts.items()) / n
                v = mp.fsum(c * (values[k] - m) ** 2 for k, c in counts.items()) / (n - 1)
                mean += mp.mpf(q[i]) * mp.mpf(q[j]) * m
                variance += mp.mpf(q[i]) * mp.mpf(q[j]) * v
        spread = max(1 - mu, 1 - 2 * mu)
        excess = mp_excess(variance, 2 * K, n, spread, ts, mp.log(ts.size / mp.mpf(share)), xs,
                           mp.log(xs.size / mp.mpf(share)))  # fmt: skip
        reference = max(mean + excess, 0) / (mp.mpf(0.5) - mu) ** 2
        value = formula_at(part, q)
        assert value >= reference
        assert value == pytest.approx(float(reference), rel=1e-9)


def test_a_bound_that_starts_at_its_lower_bound_takes_one_program():
    """CTD is 1 everywhere here (the Gibbs risk may reach 1/2): the weight search's first
    program meets the lower bound and the grid of 4^4 programs stops there."""
    E = np.zeros((100, 3))
    E[:55] = 1.0
    ctd = mv.c_tandem(pb.Posterior.uniform(3), E.mean(axis=0), 100, E)
    res = pb.Minimize(ctd).solve()
    assert res.bound == 1.0 and res.status == "optimal" and res.iterations == 1


@pytest.mark.parametrize("n", [20_000, 100_000])
def test_held_out_bounds_hold_at_large_samples_against_the_pairs_counts(n):
    """One sample of 20000 and 100000 examples: the shifted loss's matrix is its
    factor's Gram matrix, summed in floating point over every example, so its rounding
    grows with ``n``. CCPBB at random posteriors is at least its value from the pairs'
    counts in 40 digits (each pair's loss takes three values, so its mean and unbiased
    variance are sums of three counts) for every shift of the grid."""
    rng = np.random.default_rng(n)
    H, delta = 6, 0.05
    E = (rng.random((n, H)) < rng.uniform(0.05, 0.4, H)).astype(float)
    mus = (-0.25, 0.0, 0.2, 0.45)
    declared = mv.chebyshev_cantelli_bennett(pb.Posterior.uniform(H), E, delta, mu_grid=mus)
    share = delta / (2 * len(mus))
    ts, xs = mv.bennett_grids(n, share)
    both = (E.T @ E).astype(int)
    alone = E.sum(axis=0).astype(int)
    for seed in range(3):
        q = posterior(70 + seed, H)
        D = 2 * mp_posterior_kl(q)
        for mu, part in zip(mus, declared, strict=True):
            mu_ = mp.mpf(mu)
            values = ((1 - mu_) ** 2, -mu_ * (1 - mu_), mu_**2)
            mean = variance = mp.mpf(0)
            for i in range(H):
                for j in range(H):
                    one = alone[i] + alone[j] - 2 * both[i, j]
                    counts = (both[i, j], one, n - one - both[i, j])
                    m = mp.fsum(c * v for c, v in zip(counts, values, strict=True)) / n
                    s = mp.fsum(c * v * v for c, v in zip(counts, values, strict=True)) / n
                    weight = mp.mpf(q[i]) * mp.mpf(q[j])
                    mean += weight * m
                    variance += weight * (s - m * m) * n / (n - 1)
            spread = max(1 - mu, 1 - 2 * mu)
            excess = mp_excess(variance, D, n, spread, ts, mp.log(len(ts) / share), xs,
                               mp.log(len(xs) / share))  # fmt: skip
            reference = max(mean + excess, 0) / (mp.mpf(0.5) - mu_) ** 2
            value = formula_at(part, q)
            assert value >= reference
            assert value == pytest.approx(float(reference), rel=1e-9)
