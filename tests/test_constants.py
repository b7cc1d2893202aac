"""I_phi(m, 2) against an independent high-precision supremum computed with mpmath."""

import mpmath as mp
import pytest

from cvxpb.numerics.constants import (
    PAPER_KL_TABLE,
    bound_constant,
    kl_constant,
    kl_supremum,
    linear_constant,
    moment_supremum,
    squared_constant,
)
from tests.mp_references import mp_kl

mp.mp.dps = 40


def mp_moment(m, l, phi, ks=None):
    """sum_k Bin(k; m, l) phi(k/m, l) in mpmath."""
    l = mp.mpf(l)
    ks = range(m + 1) if ks is None else ks
    return mp.fsum(
        mp.binomial(m, k) * l**k * (1 - l) ** (m - k) * phi(mp.mpf(k) / m, l) for k in ks
    )


def mp_sup(f, grid):
    """Global sup of f: best point of a grid, refined by a golden-section search in mpmath."""
    values = [f(x) for x in grid]
    i = max(range(len(grid)), key=lambda j: values[j])
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    golden = (mp.sqrt(5) - 1) / 2
    for _ in range(90):
        x1, x2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
        if f(x1) > f(x2):
            hi = x2
        else:
            lo = x1
    return f((lo + hi) / 2)


def mp_grid(m, n=120):
    """Linear and logarithmic points of (0, 1/2], chosen independently of cvxpb's grid."""
    linear = [mp.mpf(j) / (2 * n) for j in range(1, n + 1)]
    logs = [mp.mpf(10) ** (-mp.mpf(j) / 10) / m for j in range(-int(10 * mp.log10(m / 2)), 40)]
    return sorted(set(linear + [x for x in logs if 0 < x <= 0.5]))


@pytest.mark.parametrize("m", [1, 3, 10, 50])
def test_linear_constant_is_the_sup_of_the_variance(m):
    value = mp_sup(lambda l: mp_moment(m, l, lambda a, b: (a - b) ** 2), mp_grid(m))
    assert linear_constant(m) == pytest.approx(float(value), rel=1e-13)


@pytest.mark.parametrize("m", [1, 2, 5, 20, 100])
def test_squared_constant_is_the_sup_of_the_fourth_moment(m):
    value = mp_sup(lambda l: mp_moment(m, l, lambda a, b: (a - b) ** 4), mp_grid(m))
    assert squared_constant(m) == pytest.approx(float(value), rel=1e-13)


@pytest.mark.parametrize("m", [2, 10, 1000])
def test_paper_squared_constant_is_lemma_2_and_about_four_times_larger(m):
    assert squared_constant(m, "paper") == (12 * m - 11) / (16 * m**3)
    assert 3.2 < squared_constant(m, "paper") / squared_constant(m) < 4.01
    if m >= 1000:
        assert squared_constant(m, "paper") / squared_constant(m) == pytest.approx(4, rel=1e-3)


@pytest.mark.parametrize("m", [1, 2, 10, 50, pytest.param(200, marks=pytest.mark.slow)])
def test_kl_constant_matches_an_independent_mpmath_global_sup(m):
    value = mp_sup(lambda l: mp_moment(m, l, lambda a, b: mp_kl(a, b) ** 2), mp_grid(m))
    ours = kl_constant(m)
    assert ours >= float(value) * (1 - 1e-14)  # rounded up, never below the supremum
    assert ours == pytest.approx(float(value), rel=1e-11)


@pytest.mark.slow
def test_kl_constant_at_one_million_samples():
    m = 10**6
    ours, l_star = kl_supremum(m)
    # Poisson-like mass near k ~ 2.6: the terms beyond k = 400 are below 1e-600.
    ks = range(400)

    def f(l):
        return mp_moment(m, l, lambda a, b: mp_kl(a, b) ** 2, ks)

    grid = [mp.mpf(l_star) * mp.mpf(2) ** (mp.mpf(j) / 8) for j in range(-16, 17)]
    value = mp_sup(f, grid)
    assert ours >= float(value) * (1 - 1e-14)
    assert ours == pytest.approx(float(value), rel=1e-11)
    assert 0.90 < ours * m**2 < 0.91  # about 0.905 / m^2, not the 0.73 / m^2 quoted before


def test_kl_supremum_is_away_from_one_half_and_bimodal():
    value, l_star = kl_supremum(50)
    assert 0.04 < l_star < 0.06  # and its mirror 1 - l_star; paper's Table 5 says 0.98
    half = float(mp_moment(50, 0.5, lambda a, b: mp_kl(a, b) ** 2))
    assert half < value  # the second mode at l = 1/2 is lower


def test_paper_kl_constants_follow_table_5():
    for m, value in PAPER_KL_TABLE.items():
        assert kl_constant(m, "paper") == value
    assert kl_constant(5000, "paper") == PAPER_KL_TABLE[1028]
    assert kl_constant(700, "paper") == PAPER_KL_TABLE[500]
    with pytest.raises(ValueError, match="m < 50"):
        kl_constant(49, "paper")
    assert kl_constant(50, "paper") / kl_constant(50) > 20  # Table 5 is far from its definition


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", None, True])
def test_bad_sample_size_is_a_value_error(bad):
    with pytest.raises(ValueError, match="m must be an integer"):
        bound_constant("kl", bad)


def test_unknown_distance_or_route_is_a_value_error():
    with pytest.raises(ValueError, match="distance must be one of"):
        bound_constant("hinge", 10)
    with pytest.raises(ValueError, match="constants must be one of"):
        bound_constant("sq", 10, "approximate")


@pytest.mark.parametrize("m", [1, 2, 5, 50, 1000])
@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_generic_supremum_at_order_two_reproduces_the_closed_forms(m, distance):
    assert moment_supremum(m, distance, 2.0)[0] == pytest.approx(
        bound_constant(distance, m), rel=2e-12
    )


@pytest.mark.parametrize("m", [3, 40])
@pytest.mark.parametrize("distance", ["linear", "sq", "kl"])
def test_renyi_constants_match_mpmath(m, distance):
    alpha = 3.0
    power = alpha / (alpha - 1)
    phis = {
        "linear": lambda a, b: abs(a - b) ** power,
        "sq": lambda a, b: abs(a - b) ** (2 * power),
        "kl": lambda a, b: mp_kl(a, b) ** power,
    }
    value = mp_sup(lambda l: mp_moment(m, l, phis[distance]), mp_grid(m))
    ours = bound_constant(distance, m, alpha=alpha)
    assert ours >= float(value) * (1 - 1e-14)
    assert ours == pytest.approx(float(value), rel=1e-10)


def test_paper_constants_exist_only_for_order_two():
    with pytest.raises(ValueError, match="only for alpha = 2"):
        bound_constant("sq", 100, "paper", alpha=3.0)


def _mp_log_linear_supremum(m, power):
    """``log sup_l E|K/m - l|^power`` by mpmath: a fine scan, then the largest term's root."""
    mp.mp.dps = 60
    power = mp.mpf(power)

    def log_F(l):
        terms = [
            mp.binomial(m, k) * l**k * (1 - l) ** (m - k) * abs(mp.mpf(k) / m - l) ** power
            for k in range(m + 1)
        ]
        return mp.log(mp.fsum(terms))

    grid = [mp.mpf(i) / 800 for i in range(1, 401)] + [mp.mpf(m) / (m + power)]
    start = max(grid, key=log_F)
    best = mp.findroot(lambda l: mp.diff(log_F, l), start)
    return float(max(log_F(best), log_F(start)))


@pytest.mark.parametrize("power", [2.0, 7.5, 1e3, 1e6, 1e9])
def test_the_bracket_holds_the_supremum_up_to_alpha_near_one(power):
    """alpha = 1 + 1e-9 is alpha' near 1e9: there the bracket, certified, is 3e-5 wide
    (the sums' rounding error grows with the power); at alpha' = 2 it closes to 1e-12."""
    from cvxpb.numerics.supremum import RTOL, log_supremum

    m = 7
    upper, lower, _ = log_supremum(m, "linear", power)
    true = _mp_log_linear_supremum(m, power)
    assert lower - 1e-12 * abs(true) <= true <= upper
    if power == 2.0:
        assert upper - true <= 10 * RTOL * abs(true) + 1e-14
