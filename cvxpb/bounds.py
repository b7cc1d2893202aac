"""PAC-Bayes bounds over a finite set of classifiers as functions ``g(L, div)``.

Every bound here is a function of the posterior-averaged empirical risk
``L = sum q_i l_i`` and of a divergence ``div``, increasing in both:

chi-squared divergence (Sahu & Hemachandra, Theorem 1 with alpha = 2), ``D = sum q^2/p``:

* ``linear``: ``R <= L + sqrt(D I_lin / delta)`` (eq. 8)
* ``sq``:     ``R <= L + (D I_sq / delta)^(1/4)`` (eq. 11)
* ``kl``:     ``kl(L, R) <= sqrt(D I_kl / delta)`` (eq. 13)

Renyi divergence of order ``alpha > 1`` (Theorem 1, after Begin et al., 2016),
``D_alpha = log(sum q^alpha p^(1-alpha)) / (alpha - 1)``:
``phi(L, R) <= exp((D_alpha + log I_phi(m, alpha') - log delta) / alpha')``,
``alpha' = alpha/(alpha-1)``, with ``I_phi`` taken of ``|phi|``; everything in log
space, since ``I_phi`` underflows and the moment overflows as ``alpha -> 1``.

KL divergence, ``K = KL(Q||P)``:

* ``kl``:     Seeger/Maurer, ``kl(L, R) <= (K + ln(2 sqrt(m)/delta)) / m``
* ``sq``:     McAllester's square root bound (Pinsker on the above),
  ``R <= L + sqrt((K + ln(2 sqrt(m)/delta)) / (2m))``
* ``linear``: ``R <= L + (K + ln(n/delta))/lam + lam/(8m)``, best ``lam`` of a grid of n
* ``catoni``: ``R <= (1 - exp(-C L - (K + ln(n/delta))/m)) / (1 - exp(-C))``,
  best ``C`` of a grid of n

A parameter chosen from a grid of n values is paid for by a union bound
(``delta/n``). ``rounding=+1`` gives a value rounded up, for reporting.
"""

from __future__ import annotations

import numpy as np

from cvxpb.distances import DISTANCES
from cvxpb.numerics.constants import bound_constant, conjugate, log_bound_constant
from cvxpb.numerics.kl import kl_unchecked
from cvxpb.numerics.tolerances import nudge
from cvxpb.pac_bayes.divergences import as_divergence
from cvxpb.validation import real_array

DISTANCES_BY_DIVERGENCE = {
    "chi2": ("linear", "sq", "kl"),
    "renyi": ("linear", "sq", "kl"),
    "kl": ("linear", "sq", "kl", "catoni"),
}


def default_grid(distance: str, m: int) -> np.ndarray | None:
    """The stated grid for the free parameter of a KL bound, or None.

    ``catoni``: ``C`` in 41 values from 0.01 to 100 (geometric);
    ``linear``: ``lam = sqrt(8m) * s`` with ``s`` in 41 values from 1/4 to 64.
    """
    if distance == "catoni":
        return np.geomspace(1e-2, 1e2, 41)
    if distance == "linear":
        return np.sqrt(8 * m) * np.geomspace(0.25, 64, 41)
    return None


class Bound:
    """The bound ``g(L, div)`` of one (distance, divergence) pair.

    Parameters
    ----------
    distance : {"linear", "sq", "kl", "catoni"}
    divergence : {"chi2", "kl"}
    m : int
        Sample size the empirical risks were measured on.
    delta : float in (0, 1)
    constants : {"exact", "paper"}, default="exact"
        Route for ``I_phi`` (chi-squared bounds only).
    grid : array_like, optional
        Grid of the free parameter (KL ``linear`` and ``catoni`` only).
    """

    def __init__(self, distance, divergence, m, delta, constants="exact", grid=None, alpha=None):
        allowed = DISTANCES_BY_DIVERGENCE[divergence]
        if distance not in allowed:
            raise ValueError(
                f"distance must be one of {allowed} with divergence={divergence!r}, "
                f"got {distance!r}"
            )
        self.distance, self.divergence = distance, divergence
        self.m, self.delta = m, delta
        self.measure = as_divergence(divergence, alpha)  # the divergence object
        self.alpha = self.measure.alpha
        self.log_constant = (
            None if divergence == "kl" else log_bound_constant(distance, m, constants, self.alpha)
        )
        self.constant = (
            None if divergence == "kl" else bound_constant(distance, m, constants, self.alpha)
        )
        self.grid = self._grid(grid)

    def _grid(self, grid):
        default = default_grid(self.distance, self.m)
        if self.divergence != "kl" or default is None:
            if grid is not None:
                raise ValueError("grid is only used by the KL 'linear' and 'catoni' bounds")
            return None
        grid = default if grid is None else real_array(grid, "grid")
        if grid.ndim != 1:
            raise ValueError(f"grid must be one-dimensional, got shape {grid.shape}")
        if grid.size == 0 or np.any(~np.isfinite(grid)) or np.any(grid <= 0):
            raise ValueError("grid must be a non-empty array of finite values > 0")
        return grid

    def __call__(self, L, div, rounding: int = 0):
        """``g(L, div)``, vectorized; ``rounding=+1`` rounds up, ``-1`` down."""
        L, div = np.broadcast_arrays(np.asarray(L, dtype=float), np.asarray(div, dtype=float))
        if self.divergence == "kl":
            return self._kl(L, div, rounding)
        return self._renyi(L, div, rounding)

    def complexity(self, D, rounding: int = 0):
        """Theorem 1's right side: ``sqrt(D I / delta)`` for chi2 (``D = sum q^2/p``),
        ``exp((D_alpha + log I - log delta) / alpha')`` for Renyi (``D`` is ``D_alpha``)."""
        if self.divergence == "chi2":
            return nudge(np.sqrt(nudge(D * self.constant / self.delta, rounding)), rounding)
        exponent = nudge(nudge(D, rounding) + (self.log_constant - np.log(self.delta)), rounding)
        with np.errstate(over="ignore"):
            return nudge(np.exp(nudge(exponent / conjugate(self.alpha), rounding)), rounding)

    def _renyi(self, L, D, rounding):
        return DISTANCES[self.distance].inverse(L, self.complexity(D, rounding), rounding)

    def _kl(self, L, K, rounding):
        m = self.m
        if self.distance in ("kl", "sq"):
            complexity = nudge(K + np.log(2 * np.sqrt(m) / self.delta), rounding)
            scale = m if self.distance == "kl" else 2 * m
            return DISTANCES[self.distance].inverse(L, complexity / scale, rounding)
        penalty = nudge(K + np.log(self.grid.size / self.delta), rounding)[..., None]
        if self.distance == "linear":
            lam = self.grid
            values = L[..., None] + penalty / lam + lam / (8 * m)
        else:
            C = self.grid
            exponent = C * L[..., None] + penalty / m
            values = -np.expm1(-nudge(exponent, rounding)) / -np.expm1(-C)
        return np.min(nudge(nudge(values, rounding), rounding), axis=-1)

    def at_least(self, L, div, threshold):
        """Whether ``g(L, div) >= threshold``, vectorized.

        For the kl distance this needs no inversion:
        ``kl^{-1}(L, e) >= t  <=>  t <= L  or  kl(L, t) <= e``.
        """
        if self.distance != "kl":
            return self(L, div, rounding=-1) >= threshold
        L, div = np.broadcast_arrays(np.asarray(L, dtype=float), np.asarray(div, dtype=float))
        if self.divergence != "kl":
            rhs = self.complexity(div)
        else:
            rhs = (div + np.log(2 * np.sqrt(self.m) / self.delta)) / self.m
        t = np.clip(threshold, 0.0, 1.0)
        with np.errstate(invalid="ignore"):  # a NaN statistic keeps its interval open
            return (t <= L) | (kl_unchecked(np.minimum(L, t), t) <= rhs)

    def best_grid_value(self, L, div):
        """The grid value (lam or C) attaining the minimum at ``(L, div)``, or None."""
        if self.grid is None:
            return None
        penalty = div + np.log(self.grid.size / self.delta)
        if self.distance == "linear":
            values = L + penalty / self.grid + self.grid / (8 * self.m)
        else:
            values = -np.expm1(-(self.grid * L + penalty / self.m)) / -np.expm1(-self.grid)
        return float(self.grid[int(np.argmin(values))])
