"""Distances ``phi(lhat, l)`` between the empirical and the true risk, each one class.

A bound of the form ``phi(L, R) <= rhs`` is turned into ``R <= inverse(L, rhs)``.
``rounding=+1`` rounds the result up (for reported bounds), ``-1`` down (for lower
certificates), ``0`` leaves it as computed (for searching). Each distance carries
what the bounds need of it: its value and CVXPY expression, its inverse, the constant
``I_phi(m, alpha')`` of Theorem 1 of Sahu & Hemachandra (:mod:`cvxpb.numerics.constants`)
where it has one, and its bound with the KL divergence: Seeger/Maurer's for ``kl``,
McAllester's (Pinsker on it) for ``sq``, and for ``linear`` and ``catoni`` the best
value of a parameter over a grid, paid for by a union bound.

:func:`as_distance` turns the user's words into these objects.
"""

from __future__ import annotations

import numpy as np

from cvxpb.numerics.constants import bound_constant, log_bound_constant
from cvxpb.numerics.kl import kl, kl_inv_upper_bracket, kl_inv_upper_newton, kl_unchecked
from cvxpb.numerics.tolerances import nudge
from cvxpb.pac_bayes.protocol import DISTANCE_MEMBERS, adopt, offers_protocol


class Distance:
    """The protocol of a distance ``phi(lhat, l)``; see the module's text.

    Attributes
    ----------
    name : str
        The word users pass (``distance="kl"``).
    moment_bound : bool
        Whether Theorem 1 (the chi-squared and Renyi bounds) applies: the distance has a
        constant ``I_phi``.
    concave_kl_bound : bool
        Whether the bound with the KL divergence, :meth:`kl_bound`, is jointly concave
        in ``(L, KL)`` where ``L >= 0`` and ``KL >= 0`` (the declared engine then
        certifies through it on a box, :mod:`cvxpb.engine.declare.pareto`). False unless
        proven.
    inverse_form : {"sum", "root", "kl"} or None
        The shape of :meth:`inverse`: ``L + rhs``, ``L + sqrt(rhs)``, or the upper
        inverse of ``kl(L, .)``; the methods that state the bound as a program of that
        shape (``cvx``, ``closed_form``, ``ccp``, ``fixed_point``) ask for it. None (by
        default) for any other.
    """

    name = ""
    moment_bound = True
    concave_kl_bound = False
    inverse_form = None

    def phi(self, lhat, l):
        """Evaluate the distance between the empirical risk ``lhat`` and the risk ``l``.

        Parameters
        ----------
        lhat, l : float or ndarray
            Risks in [0, 1].

        Returns
        -------
        float or ndarray
            ``phi(lhat, l)``.
        """
        raise NotImplementedError(f"{type(self).__name__} has no phi")

    def expr(self, lhat, l):
        """Write ``phi(lhat, l)`` with CVXPY atoms.

        Parameters
        ----------
        lhat, l : cvxpy.Expression or float
            The empirical and the true risk.

        Returns
        -------
        cvxpy.Expression
            The distance, jointly convex where the distance is.
        """
        raise NotImplementedError(f"{type(self).__name__} has no CVXPY expression")

    def inverse(self, L, rhs, rounding: int = 0):
        """Solve ``phi(L, R) <= rhs`` for the largest ``R``.

        Parameters
        ----------
        L : float or ndarray
            The Gibbs risk.
        rhs : float or ndarray
            The right side, at least 0.
        rounding : {+1, -1, 0}, default=0
            Up (for reported bounds), down (for certificates) or as computed.

        Returns
        -------
        float or ndarray
            The largest ``R``, rounded in the direction ``rounding``.
        """
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def at_least(self, bound, L, div, threshold):
        """Decide whether ``bound(L, div) >= threshold``, proven with downward rounding.

        Parameters
        ----------
        bound : cvxpb.pac_bayes.bounds.Bound
            The bound.
        L, div : ndarray
            The Gibbs risk and the divergence's argument.
        threshold : float
            The value to compare with.

        Returns
        -------
        ndarray of bool
            Where the bound is at least ``threshold``.
        """
        return bound(L, div, rounding=-1) >= threshold

    def log_constant(self, m: int, constants: str, alpha: float) -> float:
        """Evaluate ``log I_phi(m, alpha')``, rounded up.

        Parameters
        ----------
        m : int
            The sample size.
        constants : {"exact", "paper"}
            The route (:mod:`cvxpb.numerics.constants`).
        alpha : float
            The Renyi order (``alpha' = alpha / (alpha - 1)``).

        Returns
        -------
        float
            An upper bound on ``log I_phi(m, alpha')``.
        """
        return log_bound_constant(self.name, m, constants, alpha)

    def constant(self, m: int, constants: str, alpha: float) -> float:
        """Evaluate ``I_phi(m, alpha')``, rounded up.

        Parameters
        ----------
        m : int
            The sample size.
        constants : {"exact", "paper"}
            The route (:mod:`cvxpb.numerics.constants`).
        alpha : float
            The Renyi order.

        Returns
        -------
        float
            An upper bound on ``I_phi(m, alpha')``.
        """
        return bound_constant(self.name, m, constants, alpha)

    def teaching_form(self, L, second, r):
        """Write the bound (or its constraint) with CVXPY atoms, for ``explain``.

        Parameters
        ----------
        L : cvxpy.Expression
            The Gibbs risk.
        second : cvxpy.Expression
            The divergence's term as the bound takes it; constants are left at 1, as
            they do not change curvature.
        r : cvxpy.Variable
            The bound, for the distances whose bound is a constraint on it.

        Returns
        -------
        cvxpy.Expression
            The bound, or the left side of its constraint ``... <= 0``.
        """
        raise NotImplementedError(f"{type(self).__name__} has no teaching form")

    def default_grid(self, m: int):
        """Give the stated grid of the KL bound's free parameter.

        Parameters
        ----------
        m : int
            The sample size.

        Returns
        -------
        ndarray or None
            The grid; None where the KL bound has no free parameter.
        """
        return None

    def kl_right_side(self, K, m: int, delta: float, rounding: int = 0, log_xi=None):
        """Evaluate ``rhs`` in ``phi(L, R) <= rhs`` with the KL divergence ``K``.

        Parameters
        ----------
        K : float or ndarray
            ``KL(Q||P)``.
        m : int
            The sample size.
        delta : float
            The confidence parameter.
        rounding : {+1, -1, 0}, default=0
            The direction to round in.
        log_xi : float, optional
            ``ln xi(m)``, Maurer's confidence term rounded up
            (:func:`cvxpb.numerics.maurer.log_xi`); None for the papers' ``2 sqrt(m)``.

        Returns
        -------
        float or ndarray
            The right side.
        """
        raise NotImplementedError(f"the {self.name} distance has no KL bound of that form")

    def kl_bound(self, L, K, m: int, delta: float, grid, rounding: int = 0, log_xi=None):
        """Bound the true risk with the KL divergence: the inverse at the right side.

        Parameters
        ----------
        L, K : float or ndarray
            The Gibbs risk and ``KL(Q||P)``.
        m : int
            The sample size.
        delta : float
            The confidence parameter.
        grid : ndarray or None
            The free parameter's grid, for the bounds that have one.
        rounding : {+1, -1, 0}, default=0
            The direction to round in.
        log_xi : float, optional
            ``ln xi(m)`` for the bounds whose confidence term is Maurer's (the kl and
            squared distances); None for ``2 sqrt(m)``.

        Returns
        -------
        float or ndarray
            The bound.
        """
        rhs = self.kl_right_side(K, m, delta, rounding, log_xi)
        return self.inverse(L, rhs, rounding)


class UnionBoundDistance(Distance):
    """A distance whose KL bound has a free parameter, chosen from a grid.

    The bound is the least value over a grid of ``n`` (:meth:`default_grid`), each at
    ``delta / n`` (``ln(n/delta)``), evaluated by :meth:`grid_values`.
    """

    def grid_values(self, L, penalty, m: int, grid, rounding: int = 0):
        """Evaluate the bound at each grid value.

        Parameters
        ----------
        L : float or ndarray
            The Gibbs risk (broadcast against ``grid``).
        penalty : float or ndarray
            ``K + ln(n/delta)``.
        m : int
            The sample size.
        grid : ndarray
            The free parameter's values.
        rounding : {+1, -1, 0}, default=0
            The direction to round in.

        Returns
        -------
        ndarray
            The bound at each grid value.
        """
        raise NotImplementedError

    def kl_bound(self, L, K, m, delta, grid, rounding: int = 0, log_xi=None):
        # a union bound over the grid, each at delta / n: Maurer's xi has no part here
        penalty = nudge(K + np.log(grid.size / delta), rounding)[..., None]
        values = self.grid_values(L[..., None], penalty, m, grid, rounding)
        return np.min(nudge(nudge(values, rounding), rounding), axis=-1)


class Linear(UnionBoundDistance):
    """The linear distance ``phi(lhat, l) = l - lhat``, so ``R <= L + rhs``.

    Notes
    -----
    With KL: ``R <= L + (K + ln(n/delta))/lam + lam/(8m)``, the best ``lam`` of a grid
    of n (``lam = sqrt(8m) s``, ``s`` in 41 values from 1/4 to 64).
    """

    name = "linear"
    inverse_form = "sum"
    concave_kl_bound = True  # the least over the grid of functions affine in (L, K)

    def phi(self, lhat, l):
        return np.asarray(l) - np.asarray(lhat)

    def teaching_form(self, L, second, r):
        return L + second

    def expr(self, lhat, l):
        return l - lhat

    def inverse(self, L, rhs, rounding: int = 0):
        return nudge(nudge(L, rounding) + nudge(rhs, rounding), rounding)

    def default_grid(self, m: int):
        # ``lam = sqrt(8m) * s`` with ``s`` in 41 values from 1/4 to 64 (geometric).
        return np.sqrt(8 * m) * np.geomspace(0.25, 64, 41)

    def grid_values(self, L, penalty, m: int, grid, rounding: int = 0):
        return L + penalty / grid + grid / (8 * m)


class Squared(Distance):
    """The squared distance ``phi(lhat, l) = (l - lhat)^2``, so ``R <= L + sqrt(rhs)``.

    Notes
    -----
    With KL (McAllester, Pinsker on Seeger/Maurer):
    ``rhs = (K + ln(xi(m)/delta)) / (2m)``, Maurer's ``xi(m)`` (``2 sqrt(m)`` in the papers).
    """

    name = "sq"
    inverse_form = "root"
    concave_kl_bound = True  # L plus the square root of a function affine in K

    def phi(self, lhat, l):
        return (np.asarray(l) - np.asarray(lhat)) ** 2

    def teaching_form(self, L, second, r):
        import cvxpy as cp

        return L + cp.sqrt(second)

    def expr(self, lhat, l):
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        return cp.square(l - lhat)

    def inverse(self, L, rhs, rounding: int = 0):
        root = nudge(np.sqrt(nudge(rhs, rounding)), rounding)
        return nudge(nudge(L, rounding) + root, rounding)

    def kl_right_side(self, K, m, delta, rounding: int = 0, log_xi=None):
        return _outward(K + _confidence(m, delta, log_xi), rounding) / (2 * m)


class KLDistance(Distance):
    """The kl distance ``phi(lhat, l) = kl(lhat, l)``, so ``R <= kl^{-1}(L, rhs)``.

    Notes
    -----
    The upper inverse, from a verified bracket when rounding up. With KL
    (Seeger/Maurer): ``rhs = (K + ln(xi(m)/delta)) / m``. Whether the bound reaches
    a threshold needs no inversion: ``kl^{-1}(L, e) >= t  <=>  t <= L  or  kl(L, t) <= e``.
    """

    name = "kl"
    inverse_form = "kl"
    # kl^{-1}(L, e) is the largest r over a slice of the convex set kl(L, r) <= e, so it
    # is jointly concave in (L, e) (L clipped at 1 only from above), and e is affine in KL
    concave_kl_bound = True

    def phi(self, lhat, l):
        return kl(lhat, l)

    def teaching_form(self, L, second, r):
        return self.expr(L, r) - second  # kl(L, r) - rhs <= 0

    def expr(self, lhat, l):
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        # kl(L, r) = kl_div(L, r) + kl_div(1-L, 1-r): the linear terms cancel
        return cp.kl_div(lhat, l) + cp.kl_div(1 - lhat, 1 - l)

    def inverse(self, L, rhs, rounding: int = 0):
        L = np.clip(nudge(L, rounding), 0.0, 1.0)
        rhs = np.maximum(nudge(rhs, rounding), 0.0)
        if rounding > 0:
            return kl_inv_upper_bracket(L, rhs)[1]
        r, error = kl_inv_upper_newton(L, rhs)
        return np.maximum(r - error, L) if rounding < 0 else r

    def at_least(self, bound, L, div, threshold):
        # No inversion needed: ``kl^{-1}(L, e) >= t  <=>  t <= L  or  kl(L, t) <= e``.
        rhs = bound.measure.right_side(bound, div)
        t = np.clip(threshold, 0.0, 1.0)
        with np.errstate(invalid="ignore"):  # a NaN statistic keeps its interval open
            return (t <= L) | (kl_unchecked(np.minimum(L, t), t) <= rhs)

    def kl_right_side(self, K, m, delta, rounding: int = 0, log_xi=None):
        return _outward(K + _confidence(m, delta, log_xi), rounding) / m


class Catoni(UnionBoundDistance):
    """Catoni's bound, with the KL divergence only.

    Notes
    -----
    ``R <= (1 - exp(-C L - (K + ln(n/delta))/m)) / (1 - exp(-C))``, the best ``C`` of a
    grid of n (41 values from 0.01 to 100, geometric).
    """

    name = "catoni"
    moment_bound = False
    concave_kl_bound = True  # the least over the grid of 1 - exp(-affine), each concave

    def teaching_form(self, L, second, r):
        import cvxpy as cp

        return 1 - cp.exp(-(L + second))

    def default_grid(self, m: int):
        # ``C`` in 41 values from 0.01 to 100 (geometric).
        return np.geomspace(1e-2, 1e2, 41)

    def grid_values(self, L, penalty, m: int, grid, rounding: int = 0):
        exponent = grid * L + penalty / m
        return -np.expm1(-nudge(exponent, rounding)) / -np.expm1(-grid)


def _confidence(m, delta, log_xi):
    """``ln(xi(m) / delta)`` with Maurer's ``xi(m)`` (its log, rounded up) where given,
    else the papers' ``ln(2 sqrt(m) / delta)``."""
    return np.log(2 * np.sqrt(m) / delta) if log_xi is None else log_xi - np.log(delta)


def _outward(x, rounding: int):
    """``x`` rounded outward (:func:`nudge`); as it is, a CVXPY expression say, at 0."""
    return x if rounding == 0 else nudge(x, rounding)


DISTANCES = {"linear": Linear(), "sq": Squared(), "kl": KLDistance(), "catoni": Catoni()}


def as_distance(distance) -> Distance:
    """Turn the user's word for a distance into its object.

    Parameters
    ----------
    distance : {"linear", "sq", "kl", "catoni"} or Distance
        A key of :data:`DISTANCES`, or an object (ours or a user's), which passes
        through.

    Returns
    -------
    Distance
        The distance object.

    Raises
    ------
    ValueError
        For any other word, naming the known ones.
    """
    if offers_protocol(distance, Distance):  # a user's, not subclassing ours
        return adopt(distance, Distance, DISTANCE_MEMBERS)
    if isinstance(distance, Distance):
        return distance
    found = DISTANCES.get(distance) if isinstance(distance, str) else None
    if found is None:
        raise ValueError(f"distance must be one of {tuple(DISTANCES)}, got {distance!r}")
    return found
