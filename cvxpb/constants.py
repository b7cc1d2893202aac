"""The constant ``I_phi(m, alpha')`` of Theorem 1 of seed 000, for alpha = 2.

``I_phi(m, 2) = sup_{l in [0, 1]} sum_k Bin(k; m, l) phi(k/m, l)^2``.

``constants="exact"`` computes it from this definition; ``constants="paper"``
uses the seed's own numbers, to reproduce its tables (DESIGN.md item 1):

========  ==========================  ==============================================
distance  exact                       paper
========  ==========================  ==============================================
linear    ``1/(4m)``                  the same
sq        ``(3m-2)/(16 m^3)``         ``(12m-11)/(16 m^3)`` (Lemma 2; about 4x larger)
kl        global sup over log l       Table 5, with ``I(1028)`` for ``m > 1028``
========  ==========================  ==============================================
"""

from __future__ import annotations

from functools import lru_cache
from numbers import Integral

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import binom

from cvxpb.kl import kl
from cvxpb.validation import check_choice

DISTANCES = ("linear", "sq", "kl")
CONSTANTS = ("exact", "paper")

# Seed 000, Table 5: m -> I_kl(m) as printed.
PAPER_KL_TABLE = {
    50: 0.0074799,
    100: 0.0037092,
    200: 0.0018470,
    500: 0.0007369,
    1000: 0.0003682,
    1020: 0.0003609,
    1028: 0.0003580,
}
# Relative margin added to the numerically found kl supremum: it covers the
# optimizer's tolerance (second order at a smooth maximum) and summation error.
KL_SUP_MARGIN = 1e-12
_WINDOW_STD = 60.0


def check_sample_size(m) -> int:
    """Return ``m`` as an int, or raise ValueError if it is not an integer >= 1."""
    if isinstance(m, bool) or not isinstance(m, Integral | float | np.floating):
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    if not float(m).is_integer() or m < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    return int(m)


def linear_constant(m: int) -> float:
    """``I_lin(m, 2) = sup_l l(1-l)/m = 1/(4m)``."""
    return 1.0 / (4 * check_sample_size(m))


def squared_constant(m: int, constants: str = "exact") -> float:
    """``I_sq(m, 2)``: the 4th central moment of Binomial(m, 1/2) over ``m^4``.

    ``E(k - m l)^4 = m l(1-l) [1 + 3(m-2) l(1-l)]`` grows with ``l(1-l)``, so the
    supremum is at ``l = 1/2`` for ``m >= 2``: ``(3m-2)/(16 m^3)``. For ``m = 1`` it is
    ``u(1 - 3u)`` with ``u = l(1-l)``, largest at ``u = 1/6``: ``1/12``. The seed's
    Lemma 2 writes ``l(1-l)`` where ``l^2(1-l)^2`` belongs and gets ``(12m-11)/(16 m^3)``.
    """
    m = check_sample_size(m)
    check_choice(constants, "constants", CONSTANTS)
    if constants == "paper":
        return (12 * m - 11) / (16 * m**3)
    if m == 1:
        return 1 / 12
    return (3 * m - 2) / (16 * m**3)


def _k_window(m: int, l: float) -> np.ndarray:
    """Values of k carrying all but a negligible (< 1e-300) binomial mass."""
    if m <= 20000:
        return np.arange(m + 1)
    spread = _WINDOW_STD * np.sqrt(m * l * (1 - l)) + _WINDOW_STD
    lo, hi = max(0, int(m * l - spread)), min(m, int(m * l + spread) + 1)
    return np.arange(lo, hi + 1)


def _phi_power(distance: str, k, m: int, l: float, power: float):
    """``|phi(k/m, l)|^power``: ``|k/m - l|``, ``(k/m - l)^2`` or ``kl(k/m, l)``."""
    if distance == "linear":
        return np.abs(k / m - l) ** power
    if distance == "sq":
        return np.abs(k / m - l) ** (2 * power)
    return kl(k / m, l) ** power


def moment(m: int, l: float, distance: str = "kl", power: float = 2.0) -> float:
    """``sum_k Bin(k; m, l) |phi(k/m, l)|^power``.

    ``scipy.stats.binom.pmf`` (Boost's algorithm) neither overflows nor loses
    accuracy at large ``m``: at ``m = 10^6`` it is within 4e-15 of mpmath, whereas
    ``exp(binom.logpmf)``, a difference of log-gammas, is off by 2e-9.
    """
    if l <= 0 or l >= 1:
        return 0.0
    k = _k_window(m, l)
    return float(np.sum(binom.pmf(k, m, l) * _phi_power(distance, k, m, l, power)))


def kl_moment(m: int, l: float) -> float:
    """``sum_k Bin(k; m, l) kl(k/m, l)^2``."""
    return moment(m, l, "kl", 2.0)


def _log_grid(m: int) -> np.ndarray:
    # The kl supremum sits near l = 2.6/m (and its mirror); a second mode sits at 1/2.
    return np.geomspace(1e-3 / m, 0.5, 600)


@lru_cache(maxsize=256)
def moment_supremum(m: int, distance: str = "kl", power: float = 2.0) -> tuple[float, float]:
    """Global ``sup_l sum_k Bin(k; m, l) |phi(k/m, l)|^power`` and its maximizer.

    Each function is symmetric about 1/2 and may be multimodal, so a grid in
    ``log l`` over ``(0, 1/2]`` finds the global mode and a bounded Brent search
    refines it. Returns ``(value, l_star)`` with ``l_star <= 1/2`` (``1 - l_star``
    is the mirror maximizer); the value is rounded up by ``KL_SUP_MARGIN``.
    """
    m = check_sample_size(m)
    check_choice(distance, "distance", DISTANCES)
    grid = _log_grid(m)
    values = np.array([moment(m, l, distance, power) for l in grid])
    best = int(np.argmax(values))
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    res = minimize_scalar(
        lambda t: -moment(m, float(np.exp(t)), distance, power),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-12},
    )
    l_star, value = float(np.exp(res.x)), -float(res.fun)
    if values[best] > value:
        l_star, value = float(grid[best]), float(values[best])
    return value * (1 + KL_SUP_MARGIN), l_star


def kl_supremum(m: int) -> tuple[float, float]:
    """Global ``sup_l sum_k Bin(k; m, l) kl(k/m, l)^2`` and its maximizer ``l* <= 1/2``."""
    return moment_supremum(m, "kl", 2.0)


def kl_constant(m: int, constants: str = "exact") -> float:
    """``I_kl(m, 2)``; ``constants="paper"`` follows the seed's Table 5 route.

    The paper tabulates ``m`` in {50, 100, 200, 500, 1000, 1020, 1028} and uses
    ``I(1028)`` beyond, arguing that ``I`` decreases with ``m``; by the same
    argument we use the value at the largest tabulated ``m' <= m`` in between.
    The paper gives no value below ``m = 50``.
    """
    m = check_sample_size(m)
    check_choice(constants, "constants", CONSTANTS)
    if constants == "exact":
        return kl_supremum(m)[0]
    tabulated = [k for k in PAPER_KL_TABLE if k <= m]
    if not tabulated:
        raise ValueError(
            f'constants="paper" has no kl constant for m < 50 (Table 5 of seed 000), '
            f'got m={m}; use constants="exact"'
        )
    return PAPER_KL_TABLE[max(tabulated)]


def bound_constant(distance: str, m: int, constants: str = "exact", alpha: float = 2.0) -> float:
    """``I_phi(m, alpha')`` for ``distance`` in ``("linear", "sq", "kl")``.

    ``alpha' = alpha / (alpha - 1)``. For ``alpha = 2`` (chi-squared) the closed
    forms above; for other Renyi orders the supremum over ``l`` of
    ``sum_k Bin(k; m, l) |phi(k/m, l)|^alpha'``, found globally. The paper has no
    values there, so ``constants="paper"`` needs ``alpha = 2``.
    """
    check_choice(distance, "distance", DISTANCES)
    check_choice(constants, "constants", CONSTANTS)
    if alpha != 2:
        if constants == "paper":
            raise ValueError(f'constants="paper" exists only for alpha = 2, got alpha={alpha}')
        return moment_supremum(check_sample_size(m), distance, alpha / (alpha - 1))[0]
    if distance == "linear":
        return linear_constant(m)
    if distance == "sq":
        return squared_constant(m, constants)
    return kl_constant(m, constants)
