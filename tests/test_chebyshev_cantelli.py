"""Wu et al.'s (2021) Chebyshev-Cantelli tandem bound (CCTND): the atom against a
one-dimensional minimizer over mu, and the declaration against the bound evaluated as
the authors state it, on a grid of mu."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import cvxpb as pb
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.atoms import chebyshev_cantelli
from cvxpb.numerics.kl import kl_inv_lower, kl_inv_upper
from tests.maurer_xi import xi
from tests.mp_references import mp_kl


def oracle(T, L, mu):
    """The parametric Chebyshev-Cantelli bound at one mu < 1/2."""
    return (T - 2 * mu * L + mu * mu) / (0.5 - mu) ** 2


def least_over(T, L, nonnegative):
    """min over mu on one side of 0, by scipy's bounded scalar minimizer (mu >= 0) or
    on a log grid plus a bounded search (mu < 0), with the side's ends."""
    if nonnegative:
        found = minimize_scalar(
            lambda mu: oracle(T, L, mu), bounds=(0, 0.5 - 1e-9), method="bounded",
            options={"xatol": 1e-12},
        )  # fmt: skip
        return min(found.fun, oracle(T, L, 0.0))
    grid = -np.geomspace(1e-12, 1e8, 4001)
    best = grid[np.argmin(oracle(T, L, grid))]
    found = minimize_scalar(
        lambda mu: oracle(T, L, mu), bounds=(min(best * 2, best / 2), max(best * 2, best / 2)),
        method="bounded", options={"xatol": 1e-13},
    )  # fmt: skip
    return min(found.fun, oracle(T, L, grid).min(), 4 * T)  # 4T: mu -> 0 from below


@pytest.mark.parametrize("nonnegative", [True, False])
def test_the_closed_form_is_the_least_over_mu(nonnegative):
    rng = np.random.default_rng(5)
    for _ in range(300):
        L = rng.uniform(0, 0.6)
        T = rng.uniform(L * L, min(1.0, L + 0.05)) if nonnegative else rng.uniform(0, 1)
        atom = chebyshev_cantelli(T, L, mu_nonnegative=nonnegative)
        low, mid, high = (float(atom.evaluate(None, r)) for r in (-1, 0, 1))
        assert low <= mid <= high
        reference = min(least_over(T, L, nonnegative), 1.0 if not nonnegative else np.inf)
        assert low <= reference + 1e-12
        assert mid == pytest.approx(reference, abs=1e-7)


@pytest.mark.parametrize("nonnegative", [True, False])
def test_monotone_as_declared(nonnegative):
    """Increasing in T; in L decreasing for mu >= 0 and increasing for mu < 0."""
    rng = np.random.default_rng(6)
    sign = -1 if nonnegative else 1
    for _ in range(200):
        T, L, step = rng.uniform(0, 0.6), rng.uniform(0, 0.6), rng.uniform(1e-4, 0.05)

        def value(t, l):
            return float(chebyshev_cantelli(t, l, mu_nonnegative=nonnegative).evaluate(None, 0))

        assert value(T + step, L) >= value(T, L) - 1e-12
        assert sign * (value(T, L + step) - value(T, L)) >= -1e-12


def test_mu_zero_is_the_tandem_bound_and_a_better_mu_only_lowers_it():
    for T, L in [(0.05, 0.2), (0.1, 0.3), (0.2, 0.45)]:
        plus = float(chebyshev_cantelli(T, L).evaluate(None, 0))
        assert plus <= 4 * T + 1e-15
    assert float(chebyshev_cantelli(0.3, 0.6).evaluate(None, 0)) == pytest.approx(4 * 0.3)


def test_the_declaration_is_the_authors_bound_at_its_best_mu():
    """At random posteriors: the tandem rate bounded by the kl inequality on q x q
    (2 KL, delta / 2), the Gibbs risk by the kl inequality on q from below (mu >= 0) or
    above (mu < 0), then the least over a fine grid of mu, against the two declarations'
    lesser value."""
    rng = np.random.default_rng(8)
    H, n, delta = 10, 400, 0.05
    errors = (rng.random((n, H)) < rng.uniform(0.1, 0.4, H)).astype(float)
    risks = errors.mean(axis=0)
    q = pb.Posterior.uniform(H)
    plus, minus = mv.chebyshev_cantelli_tnd(q, risks, n, errors, n, delta)
    mus_plus = np.linspace(0, 0.499, 20_000)
    mus_minus = -np.geomspace(1e-6, 1e4, 20_000)
    for _ in range(10):
        rho = rng.dirichlet(np.ones(H))
        kl_div = float(np.sum(rho * np.log(rho * H)))
        tandem = rho @ (errors.T @ errors / n) @ rho
        gibbs = rho @ risks
        t_upper = kl_inv_upper(tandem, (2 * kl_div + np.log(2 * xi(n) / delta)) / n)
        slack = (kl_div + np.log(2 * xi(n) / delta)) / n
        l_lower, l_upper = kl_inv_lower(gibbs, slack), kl_inv_upper(gibbs, slack)
        authors = min(
            oracle(t_upper, l_lower, mus_plus).min(), oracle(t_upper, l_upper, mus_minus).min()
        )
        ours = min(pb.Minimize(plus).value_at(rho), pb.Minimize(minus).value_at(rho))
        assert ours <= authors + 1e-9
        assert ours == pytest.approx(authors, abs=2e-5)  # the grid's resolution


def test_the_classifier_solves_it_and_reports_it():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble import MajorityVoteClassifier

    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    model = MajorityVoteClassifier(forest, bound="cctnd", validation="split", random_state=0)
    model.fit(X, y)
    parts = model.declarations_["cctnd"]
    minima = [pb.Minimize(part).solve().bound for part in parts]
    assert model.result_.bound == min(minima)
    assert model.bounds(progress=False).loc["cctnd", "minimum"] == model.result_.bound


def test_bad_input_is_named():
    q = pb.Posterior.uniform(3)
    with pytest.raises(ValueError, match="needs n"):
        mv.chebyshev_cantelli_tnd(q, [0.1, 0.2, 0.3], 50, matrix=np.eye(3) * 0.1)
    with pytest.raises(ValueError, match="n_gibbs must be an integer"):
        mv.chebyshev_cantelli_tnd(q, [0.1, 0.2, 0.3], 0, np.zeros((5, 3)))


def _mp_kl_inverse(p, eps, upper):
    """sup (upper) or inf (lower) of {r : kl(p, r) <= eps}, by 200 bisections in 40 digits."""
    import mpmath

    p = min(max(p, mpmath.mpf(0)), mpmath.mpf(1))  # sums of weights may pass 1 by an ulp
    lo, hi = (p, mpmath.mpf(1)) if upper else (mpmath.mpf(0), p)
    if upper and mp_kl(p, hi - mpmath.mpf(10) ** -35) <= eps:
        return mpmath.mpf(1)
    if not upper and (p == 0 or mp_kl(p, mpmath.mpf(10) ** -35) <= eps):
        return mpmath.mpf(0)
    for _ in range(200):
        mid = (lo + hi) / 2
        inside = mp_kl(p, mid) <= eps
        lo, hi = (mid, hi) if inside == upper else (lo, mid)
    return lo if upper else hi


def _mp_side(T, L, nonnegative):
    """The least of the parametric bound over one side of mu, in 40 digits."""
    import mpmath

    if nonnegative:
        L = min(L, mpmath.mpf(1) / 2, mpmath.sqrt(T))
    b, a = 1 - 2 * L, T - L + mpmath.mpf(1) / 4
    lo, hi = (2, mpmath.inf) if nonnegative else (0, 2)
    values = [1 - b * lo + a * lo * lo] + ([1 - b * hi + a * hi * hi] if hi != mpmath.inf else [])
    if a > 0 and lo < b / (2 * a) < hi:
        values.append(1 - b * b / (4 * a))
    return min(values)


@pytest.mark.parametrize(
    "case",
    ["zero errors", "all errors", "one voter", "n = 1", "n = 10^6", "tiny prior", "delta edges"],
)
def test_a_true_upper_bound_at_the_edges(case):
    """Against the bound computed in 40 digits (mpmath kl inverses, exact KL): never
    below it, and within 1e-7 of it."""
    import mpmath

    mpmath.mp.dps = 40
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    H, n, deltas = 6, 200, [0.05]
    prior = np.full(H, 1 / H)
    errors = (rng.random((n, H)) < rng.uniform(0.05, 0.4, H)).astype(float)
    if case == "zero errors":
        errors[:] = 0
    elif case == "all errors":
        errors[:] = 1
    elif case == "one voter":
        H, prior, errors = 1, np.ones(1), errors[:, :1]
    elif case == "n = 1":
        n, errors = 1, errors[:1]
    elif case == "tiny prior":
        prior = np.array([1e-12, 1e-9, 0.2, 0.3, 0.3, 0.2 - 1e-9 - 1e-12])
    elif case == "delta edges":
        deltas = [1e-9, 0.999]
    matrix = None
    if case == "n = 10^6":  # pairwise rates as measured on a million examples
        n, matrix = 10**6, np.clip(errors.T @ errors / len(errors), 0, 1)
    risks = errors.mean(axis=0) if matrix is None else np.diag(matrix)
    q = pb.Posterior(prior)
    for delta in deltas:
        given = {"matrix": matrix} if matrix is not None else {"errors": errors}
        parts = mv.chebyshev_cantelli_tnd(q, risks, n, n=n, delta=delta, **given)
        for rho in [prior, np.eye(H)[-1], *rng.dirichlet(np.ones(H), 3)]:
            ours = min(pb.Minimize(part).value_at(rho) for part in parts)
            r = [mpmath.mpf(float(x)) for x in rho]
            p = [mpmath.mpf(float(x)) for x in prior]
            kl_div = sum(a * mpmath.log(a / b) for a, b in zip(r, p, strict=True) if a > 0)
            tandem_rates = errors.T @ errors / len(errors) if matrix is None else matrix
            T = sum(
                r[i] * r[j] * mpmath.mpf(float(tandem_rates[i, j]))
                for i in range(H)
                for j in range(H)
            )
            L = sum(a * mpmath.mpf(float(x)) for a, x in zip(r, risks, strict=True))
            big = (2 * kl_div + mpmath.log(2 * mpmath.mpf(xi(n)) / delta)) / n
            small = (kl_div + mpmath.log(2 * mpmath.mpf(xi(n)) / delta)) / n
            t_up = _mp_kl_inverse(min(T, mpmath.mpf(1)), big, upper=True)
            exact = min(
                _mp_side(t_up, _mp_kl_inverse(L, small, upper=False), True),
                _mp_side(t_up, _mp_kl_inverse(L, small, upper=True), False),
            )
            assert ours >= exact, (case, delta)
            assert ours - exact <= 1e-7, (case, delta)
