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

* ``kl``:     Seeger/Maurer, ``kl(L, R) <= (K + ln(xi(m)/delta)) / m``, with Maurer's
  ``xi(m) = sum_k C(m, k) (k/m)^k (1 - k/m)^(m-k)`` computed
  (:mod:`cvxpb.numerics.maurer`; the papers' ``2 sqrt(m)`` with ``constants="paper"``)
* ``sq``:     McAllester's square root bound (Pinsker on the above),
  ``R <= L + sqrt((K + ln(xi(m)/delta)) / (2m))``
* ``linear``: ``R <= L + (K + ln(n/delta))/lam + lam/(8m)``, best ``lam`` of a grid of n
* ``catoni``: ``R <= (1 - exp(-C L - (K + ln(n/delta))/m)) / (1 - exp(-C))``,
  best ``C`` of a grid of n

A parameter chosen from a grid of n values is paid for by a union bound
(``delta/n``). ``rounding=+1`` gives a value rounded up, for reporting.

:class:`Bound` holds no formula of its own: the divergence object states its change of
measure (:meth:`cvxpb.pac_bayes.divergences.Divergence.right_side`) and the distance
object its inverse, constant and KL bound (:mod:`cvxpb.pac_bayes.distances`).
"""

from __future__ import annotations

import functools

import numpy as np

from cvxpb.pac_bayes import DISTANCES_BY_DIVERGENCE, check_distance
from cvxpb.pac_bayes.distances import as_distance
from cvxpb.pac_bayes.divergences import Divergence, as_divergence
from cvxpb.pac_bayes.protocol import DIVERGENCE_MEMBERS, bound_refusal
from cvxpb.validation import real_array


class Bound:
    """The bound ``g(L, div)`` of one (distance, divergence) pair.

    Parameters
    ----------
    distance : {"linear", "sq", "kl", "catoni"} or Distance
        The distance's name or object (:mod:`cvxpb.pac_bayes.distances`).
    divergence : {"chi2", "renyi", "kl"} or Divergence
        The divergence's name or object (:mod:`cvxpb.pac_bayes.divergences`).
    m : int
        Sample size the empirical risks were measured on.
    delta : float in (0, 1)
        The bound holds with probability at least ``1 - delta``.
    constants : {"exact", "paper"}, default="exact"
        Route for ``I_phi`` (chi-squared and Renyi bounds) and for the KL bounds'
        confidence term: Maurer's ``xi(m)`` computed, or the papers' ``2 sqrt(m)``.
    grid : array_like, optional
        Grid of the free parameter (KL ``linear`` and ``catoni`` only).
    alpha : float > 1, optional
        The Renyi order (``divergence="renyi"``).

    Attributes
    ----------
    measure : Divergence
        The divergence object (a user's, adopted).
    metric : Distance
        The distance object, whose ``inverse``, ``kl_right_side`` and ``kl_bound`` a
        divergence's ``right_side`` and ``bound_value`` call.
    m : int
        The sample size.
    delta : float
        The confidence.
    alpha : float or None
        The divergence's order.
    log_xi : float or None
        ``ln xi(m)``, Maurer's term of the kl bounds, rounded up (None with
        ``constants="paper"``).
    log_constant, constant : float
        Theorem 1's ``log I_phi(m, alpha')`` (rounded up) and ``I_phi(m, alpha')``,
        computed when first asked for.
    grid : ndarray or None
        The union-bounded grid of the KL ``linear`` and ``catoni`` bounds.
    """

    def __init__(self, distance, divergence, m, delta, constants="exact", grid=None, alpha=None):
        # the divergence and distance objects
        self.measure, self.metric = check_bound_choice(distance, divergence, alpha)
        self.distance, self.divergence = self.metric.name, self.measure.name
        self.m, self.delta, self.constants = m, delta, constants
        self.alpha = self.measure.alpha
        if self.measure.uses_constant:  # computed now, so that a bad order fails here
            _ = self.log_constant, self.constant
        self.grid = self._grid(grid)

    @functools.cached_property
    def log_constant(self) -> float:
        """float: ``log I_phi(m, alpha')`` of Theorem 1, the distance's
        (:meth:`cvxpb.pac_bayes.distances.Distance.log_constant`), rounded up; computed
        when first asked for."""
        return self.metric.log_constant(self.m, self.constants, self.alpha)

    @functools.cached_property
    def constant(self) -> float:
        """float: ``I_phi(m, alpha')`` of Theorem 1 (the distance's), computed when
        first asked for."""
        return self.metric.constant(self.m, self.constants, self.alpha)

    @functools.cached_property
    def log_xi(self) -> float | None:
        """float or None: ``ln xi(m)``, Maurer's confidence term of the kl bounds, rounded
        up (:mod:`cvxpb.numerics.maurer`); None with ``constants="paper"``, whose bounds
        take the papers' ``2 sqrt(m)``."""
        from cvxpb.numerics.maurer import log_xi

        return None if self.constants == "paper" else log_xi(self.m)

    def _grid(self, grid):
        default = self.metric.default_grid(self.m)
        if not self.measure.uses_grid or default is None:
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
        return self.measure.bound_value(self, L, div, rounding)

    def complexity(self, D, rounding: int = 0):
        """Evaluate the right side ``rhs`` of ``phi(L, R) <= rhs``.

        Parameters
        ----------
        D : float or ndarray
            The divergence's argument: ``sum q^2/p`` for chi2, ``D_alpha`` for Renyi, KL.
        rounding : {+1, -1, 0}, default=0
            The direction to round in.

        Returns
        -------
        float or ndarray
            Theorem 1's ``sqrt(D I / delta)`` for chi2,
            ``exp((D_alpha + log I - log delta) / alpha')`` for Renyi, the distance's
            KL right side for KL.
        """
        return self.measure.right_side(self, D, rounding)

    def at_least(self, L, div, threshold):
        """Decide whether ``g(L, div) >= threshold``, vectorized and proven.

        Parameters
        ----------
        L, div : float or ndarray
            The Gibbs risk and the divergence's argument.
        threshold : float
            The value to compare with.

        Returns
        -------
        ndarray of bool
            Where the bound is at least ``threshold`` (the kl distance needs no
            inversion: :meth:`cvxpb.pac_bayes.distances.KLDistance.at_least`).
        """
        L, div = np.broadcast_arrays(np.asarray(L, dtype=float), np.asarray(div, dtype=float))
        return self.metric.at_least(self, L, div, threshold)

    def best_grid_value(self, L, div):
        """Find the grid value (lam or C) attaining the minimum at ``(L, div)``.

        Parameters
        ----------
        L, div : float
            The Gibbs risk and KL.

        Returns
        -------
        float or None
            The grid value; None for the bounds without a grid.
        """
        if self.grid is None:
            return None
        penalty = div + np.log(self.grid.size / self.delta)
        values = self.metric.grid_values(L, penalty, self.m, self.grid)
        return float(self.grid[int(np.argmin(values))])


def check_bound_choice(distance, divergence, alpha=None):
    """Check a distance and a divergence, as names or objects, before any work.

    Parameters
    ----------
    distance : str or Distance
        The distance.
    divergence : str or Divergence
        The divergence.
    alpha : float, optional
        The Renyi order.

    Returns
    -------
    measure : Divergence
        The divergence object.
    metric : Distance
        The distance object.

    Raises
    ------
    ValueError
        Naming the argument and what is allowed: an unknown name, a Renyi order
        missing or out of range, or a distance the divergence has no bound with.
    """
    measure, metric = as_divergence(divergence, alpha), as_distance(distance)
    lacking = bound_refusal(measure, DIVERGENCE_MEMBERS, Divergence)
    if lacking is not None:
        raise ValueError(lacking)
    if isinstance(divergence, str) and isinstance(distance, str):
        check_distance(distance, divergence)  # says which divergence the distance needs
    if not measure.accepts(metric):
        every = DISTANCES_BY_DIVERGENCE["kl"]
        allowed = tuple(name for name in every if measure.accepts(as_distance(name)))
        raise ValueError(
            f"distance must be one of {allowed} with divergence={measure.name!r}, "
            f"got {metric.name!r}"
        )
    return measure, metric
