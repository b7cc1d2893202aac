"""The majority-vote bounds' atoms, written against the engine's public atom protocol.

Each atom subclasses :class:`cvxpb.engine.declare.expressions.Expression` as a user's
own atom would: it declares its ``monotonicity`` in each argument, evaluates with
outward rounding in ``_apply(arguments, rounding)``, and states where it is concave or
convex in ``_curvature(kinds, ranges)`` through the composition rule
(:func:`~cvxpb.engine.declare.expressions.composes`) and the terms' box
(:func:`~cvxpb.engine.declare.expressions.within`). Nothing in the engine knows them by
name. :mod:`cvxpb.ensemble.bounds` declares the bounds with them:

* :func:`c_bound` (Germain et al., 2015) and :func:`pac_bound_two` (their PAC-Bound 2);
* :func:`lambda_bound` (Thiemann et al., 2017);
* :func:`chebyshev_cantelli` and :func:`split_cantelli` (Wu et al., 2021; Wu and
  Seldin, 2022) with :func:`split_cantelli_below`;
* :func:`c_tandem` (Masegosa et al., 2020) and :func:`pac_bayes_bennett` (Wu et al., 2021).
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.expressions import Expression, composes, within
from cvxpb.engine.declare.kl_atoms import kl_lower_rounded, kl_upper_rounded
from cvxpb.numerics.tolerances import EPS, nudge
from cvxpb.numerics.trinomial import pac_bound_two as _pac_bound_two

RAISE = 1e-12  # PAC-Bound 2's joint error is raised by this (see PacBoundTwo)


class CBound(Expression):
    """The C-bound of Germain et al. (2015) as an atom.

    ``1 - (1 - 2 min(R, 1/2))^2 / (1 - 2 D)`` of a bound ``R`` on the Gibbs risk and
    ``D`` on the disagreement: increasing in ``R``, decreasing in ``D``. ``R >= 1/2``
    gives 1; ``D`` is clipped into ``[0, 1/2)`` (where ``R < 1/2`` holds, the true
    disagreement is below ``2 R (1 - R) < 1/2``).

    Parameters
    ----------
    *args : Expression or float
        ``(R, D)``: an upper bound on the Gibbs risk and a lower bound on the
        disagreement.
    """

    monotonicity = (1, -1)

    def _apply(self, arguments, rounding):
        R, D = np.broadcast_arrays(*arguments)
        margin = nudge(1 - 2 * np.minimum(R, 0.5), -rounding)
        squared = nudge(np.maximum(margin, 0.0) ** 2, -rounding)
        spread = nudge(1 - 2 * np.clip(D, 0.0, 0.5), rounding)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = nudge(np.where(squared > 0, squared / spread, 0.0), -rounding)
        return np.where(R >= 0.5, 1.0, nudge(1 - ratio, rounding))

    def _curvature(self, kinds, ranges):
        """Concave where ``D < 1/2``: ``x^2 / y`` is jointly convex for ``y > 0`` and
        increasing in ``x >= 0``, with ``x = max(1 - 2R, 0)`` convex in ``R`` and
        ``y = 1 - 2 max(D, 0)`` concave in ``D``."""
        below = ranges[1][1] < 0.5
        return "concave" if below and composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"c_bound({self.args[0]!r}, {self.args[1]!r})"


class PacBoundTwo(Expression):
    """Germain et al.'s (2015) PAC-Bound 2 as an atom.

    The largest C-bound ``1 - (1 - 2e - d)^2 / (1 - 2d)`` over the true joint error and
    disagreement ``(d, e)`` within trinomial kl ``s`` of the empirical ones, with ``d <=
    2 (sqrt(e) - e)`` (:mod:`cvxpb.numerics.trinomial`), written in the pair's empirical
    Gibbs risk ``L = e_S + d_S / 2`` and disagreement ``D``, in which it is monotone:
    increasing in ``L`` and ``s``, decreasing in ``D``. The joint error ``L - D/2`` is
    raised by ``RAISE = 1e-12`` first: the bound rises by less than 1e-9 (a test), and a
    point an ulp past the edge ``D = 2L`` (a vertex of the vertex search's polytope on
    its cut there, rounded down) keeps a value, where no finite concave extension exists
    (the slope in the joint error is infinite at 0). Rates no sample gives (a joint error
    below ``-RAISE``, or ``L + D/2 > 1``) give 1 from above and ``-inf`` from below.

    Parameters
    ----------
    *args : Expression or float
        ``(L, D, s)``: the empirical Gibbs risk of the pair, the empirical disagreement
        (on the same examples) and the kl inequality's side.
    """

    monotonicity = (1, -1, 1)
    domain = ((2.0, -1.0, 0.0),)  # a joint error 2L - D of at least 0

    def _apply(self, arguments, rounding):
        L, D, s = np.broadcast_arrays(*arguments)
        # D / 2 is exact and the difference rounded once, to half an ulp of itself (exact
        # where L is within a factor 2 of D / 2, Sterbenz): a computed 0 is exact
        e = L - D / 2
        e = e + rounding * 2 * EPS * np.abs(e) + RAISE
        possible = (e >= 0) & (e + D <= 1)
        value = _pac_bound_two(np.where(possible, e, 0.0), D, s, rounding)
        return np.where(possible, value, -np.inf if rounding < 0 else 1.0)

    def _curvature(self, kinds, ranges):
        """Jointly concave: the largest value of a concave function over the slices of a
        convex set (:mod:`cvxpb.numerics.trinomial`), ``-inf`` (from below) at rates no
        sample gives, where no clip that breaks it acts: ``D <= 1`` (below 0 it is raised
        to 0: a concave function decreasing in ``D`` of ``max(D, 0)``, convex) and
        ``s >= 0``."""
        _, D, s = ranges
        inside = within(D, high=1.0) and within(s, 0.0)
        return "concave" if inside and composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"pac_bound_two({', '.join(map(repr, self.args))})"


class LambdaBound(Expression):
    """The PAC-Bayes-lambda bound at its best lambda, in closed form.

    ``min over lambda in (0, 2) of (L + e / lambda) / (1 - lambda / 2)`` for ``L >= 0``,
    ``e > 0``: at ``lambda* = (s - e) / L``, ``s = sqrt(e^2 + 2 L e)`` (in (0, 2)), the
    least value is ``(2L + e + s)^2 / (2 (2L + e))``. Increasing in both.

    Parameters
    ----------
    *args : Expression or float
        ``(L, e)``: the empirical risk and the complexity term
        ``(KL + log(xi(n) / delta)) / n``.
    """

    monotonicity = (1, 1)

    def _apply(self, arguments, rounding):
        L, e = np.broadcast_arrays(*arguments)
        L, e = np.maximum(L, 0.0), np.maximum(e, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            twice = 2 * L + e
            value = (twice + np.sqrt(e * e + 2 * L * e)) ** 2 / (2 * twice)
        value = np.where(twice > 0, value, 0.0)
        value = np.where(np.isposinf(twice), np.inf, value)  # a divergence of inf: vacuous
        return nudge(value * (1 + rounding * 16 * EPS), rounding)

    def _curvature(self, kinds, ranges):
        """Concave for ``L, e >= 0``: the least over lambda of functions affine in both."""
        inside = within(ranges[0], 0.0) and within(ranges[1], 0.0)
        return "concave" if inside and composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"lambda_bound({self.args[0]!r}, {self.args[1]!r})"


class ChebyshevCantelli(Expression):
    """Wu et al.'s (2021) parametric Chebyshev-Cantelli bound at its best ``mu`` on one side.

    ``MV <= (T - 2 mu L + mu^2) / (1/2 - mu)^2`` for every ``mu < 1/2``, with ``T`` the
    tandem risk and ``L`` the Gibbs risk. With ``v = 1/(1/2 - mu)`` the right side is
    ``q(v) = 1 - (1 - 2L) v + (T - L + 1/4) v^2``, a quadratic in ``v``; ``mu >= 0`` is
    ``v >= 2`` and ``mu < 0`` is ``0 < v < 2``. On ``v >= 2`` the slope in ``L``,
    ``v (2 - v)``, is at most 0, so that side is decreasing in ``L`` (give a lower bound
    on the Gibbs risk); on ``v <= 2`` it is increasing (give an upper bound). Both are
    increasing in ``T``. The least value over the side is at the vertex
    ``v* = (1 - 2L) / (2 (T - L + 1/4))`` when it lies there, ``(T - L^2) / (T - L + 1/4)``,
    else at the side's end (``4 T`` at ``mu = 0``; 1 as ``mu -> -inf``). On the
    ``mu >= 0`` side ``L``, a lower bound on the Gibbs risk, is lowered to at most 1/2
    and to ``sqrt(T)`` (the Gibbs risk is at most the square root of the tandem risk,
    by Jensen): neither changes a valid bound, and they keep that side monotone
    everywhere, not only where ``T >= L^2``.

    Parameters
    ----------
    *args : Expression or float
        ``(T, L)``: an upper bound on the tandem risk and a bound on the Gibbs risk
        (lower for ``mu_nonnegative``, upper otherwise); both clipped into [0, 1].
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.
    """

    clipped = True  # the safeguards on T and L (bounding_form drops them: unclipped below)

    def __init__(self, *args, mu_nonnegative=True):
        super().__init__(*args)
        self.nonnegative = mu_nonnegative
        self.monotonicity = (1, -1) if mu_nonnegative else (1, 1)

    def _apply(self, arguments, rounding):
        return self._least(*np.broadcast_arrays(*arguments), rounding)

    def _curvature(self, kinds, ranges):
        """Without the safeguards, concave: the least over ``v`` of functions affine in
        ``(T, L)``; where ``T`` is in [0, 1] and ``L`` in the range no clip changes."""
        T, L = ranges
        inside = within(T, 0.0, 1.0) and within(L, 0.0, np.inf if self.nonnegative else 1.0)
        concave = composes(kinds, self.monotonicity, "concave")
        return "concave" if not self.clipped and inside and concave else None

    def unclipped(self, T, L, rounding):
        """Evaluate the least value over the side without the safeguards.

        That is ``inf over the side's v of 1 - (1 - 2L) v + (T - L + 1/4) v^2`` at any
        ``T``, ``L``, rounded in ``rounding``: ``-inf`` where it is unbounded below (on
        ``mu >= 0`` where the square's weight ``a`` is negative, or zero with a rising
        slope). Where no safeguard acts it is the atom's value; elsewhere below it.

        Parameters
        ----------
        T, L : ndarray
            The arguments.
        rounding : {-1, 0, 1}
            The direction to round in.

        Returns
        -------
        ndarray
            The value.
        """
        if not self.nonnegative:
            return self._least(T, L, rounding)
        T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
        b, a = 1 - 2 * L, T - L + 0.25
        slack = 4 * EPS * (np.abs(T) + np.abs(L) + 0.25)  # a's and b's rounding, at most
        a_out = a + rounding * slack  # each moves the value in the rounding's direction
        b_out = np.maximum(np.abs(b) - rounding * slack, 0.0)
        two = 1 - 2 * b + 4 * a  # at v = 2, the side's end
        two = two + rounding * 16 * EPS * (1 + 2 * np.abs(b) + 4 * np.abs(a))
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = 1 - b_out * b_out / (4 * a_out)  # at v* = b / 2a
            vertex = vertex + rounding * 16 * EPS * (1 + np.abs(vertex))
        # v* >= 2; where rounding cannot tell, below takes the vertex too, above not
        inside = (b > -slack) & (b - 4 * a > rounding * 1e-9 * (1 + np.abs(a))) & (a_out > 0)
        value = np.where(inside, np.minimum(vertex, two), two)
        unbounded = (a_out < 0) | ((a_out <= 0) & (b > rounding * slack))
        return nudge(np.where(unbounded, -np.inf, value), rounding)

    def _least(self, T, L, rounding):
        """The least value over the side at ``(T, L)``, rounded in ``rounding``."""
        if self.nonnegative and not self.clipped:
            return self.unclipped(T, L, rounding)
        T, L = np.clip(T, 0.0, 1.0), np.clip(L, 0.0, 1.0)
        if self.nonnegative:  # a lower bound on the Gibbs risk may be lowered
            L = np.minimum(L, np.minimum(0.5, np.sqrt(T)))
        lo, hi = (2.0, np.inf) if self.nonnegative else (0.0, 2.0)
        b, a = 1 - 2 * L, T - L + 0.25

        def q(v):
            return 1 - b * v + a * v * v, 16 * EPS * (1 + np.abs(b) * v + np.abs(a) * v * v)

        ends = [q(lo)] + ([q(hi)] if np.isfinite(hi) else [])
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = np.where(a > 0, b / (2 * a), -np.inf)
            slack = 1e-9 * (1 + np.abs(vertex))  # the computed vertex is within this
            inside = (vertex > lo - slack) & (vertex < hi + slack)
            least = np.where(a > 0, 1 - b * b / (4 * a), np.inf)
        _, vertex_margin = q(np.where(np.isfinite(vertex), np.abs(vertex), 0.0))
        candidates = [*ends, (np.where(inside, least, np.inf), vertex_margin)]
        values = [value + rounding * margin for value, margin in candidates]
        return nudge(np.minimum.reduce(values), rounding)

    def __repr__(self):
        side = "mu >= 0" if self.nonnegative else "mu < 0"
        return f"chebyshev_cantelli[{side}]({self.args[0]!r}, {self.args[1]!r})"


class SplitCantelli(ChebyshevCantelli):
    """The Chebyshev-Cantelli bound with the split-kl bound on the shifted tandem loss.

    Wu and Seldin (2022) split the ``mu``-shifted tandem loss ``Z``, which takes three
    values ``a < m < b`` by how many of two voters err, as
    ``Z = m + (b - m) 1[Z = b] - (m - a) 1[Z = a]``, and bound the two rates by kl
    inequalities: ``U`` above the rate at which both err (the tandem risk), ``V`` below
    the rate of ``Z = a``. For ``mu >= 0`` that is the rate at which exactly one errs
    and ``(a, m, b) = (-mu (1 - mu), mu^2, (1 - mu)^2)``; for ``mu < 0`` the rate at
    which neither errs and ``(a, m, b) = (mu^2, -mu (1 - mu), (1 - mu)^2)``. Then
    ``E[Z] <= U - 2 mu l + mu^2`` with ``l = U + V / 2`` (``mu >= 0``) or
    ``l = (1 + U - V) / 2`` (``mu < 0``), which is :class:`ChebyshevCantelli`'s
    numerator at ``(U, l)``, so the least value over the side is its closed form there.
    At each ``mu`` the numerator's slope is ``1 - 2 mu >= 0`` (``mu >= 0``) or
    ``1 - mu > 0`` in ``U`` and ``-mu`` in ``V``, so the atom increases in ``U`` and
    decreases in ``V`` on both sides.

    Parameters
    ----------
    *args : Expression or float
        ``(U, V)``: an upper bound on the tandem risk and a lower bound on the rate of
        exactly one error (``mu >= 0``) or of none (``mu < 0``).
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.
    """

    def __init__(self, *args, mu_nonnegative=True):
        super().__init__(*args, mu_nonnegative=mu_nonnegative)
        self.monotonicity = (1, -1)

    def _apply(self, arguments, rounding):
        U, V = (np.clip(x, 0.0, 1.0) for x in np.broadcast_arrays(*arguments))
        if self.nonnegative:  # the bound decreases in l here: round l the other way
            level = nudge(U + 0.5 * V, -rounding)
        else:
            level = nudge(0.5 * nudge(1 + U - V, rounding), rounding)
        return self._least(U, level, rounding)

    def __repr__(self):
        side = "mu >= 0" if self.nonnegative else "mu < 0"
        return f"split_cantelli[{side}]({self.args[0]!r}, {self.args[1]!r})"


_SPLIT_BELOW_SIDE = ChebyshevCantelli(0.0, 0.0, mu_nonnegative=False)  # its least value


class SplitCantelliBelow(Expression):
    """The ``mu < 0`` side of the split-kl Chebyshev-Cantelli bound on one shared sample.

    For ``mu < 0`` the split of the ``mu``-shifted tandem loss needs an upper bound on
    the rate at which at least one of two voters errs (:class:`SplitCantelli` takes a
    lower bound on its complement). On one sample that rate is ``2 L - T`` at the
    posterior, with ``L`` the Gibbs risk and ``T`` the tandem risk, so with
    ``U(t) = kl^-1(t, e)`` and ``R(t) = kl^-1(2 L - t, e)`` the side's value is
    ``g(T)``, ``g(t) = CC(U(t), (U(t) + R(t)) / 2)`` (:class:`ChebyshevCantelli`'s least
    value over ``mu < 0``). ``g`` is concave but not monotone in ``t``; this atom is its
    increasing envelope ``G = max {g(t) : 0 <= t <= min(T, 2 L)}``, at least ``g(T)``
    (so a valid bound), equal to it wherever ``g`` rises at ``T``, as it does at the
    posteriors of forests (the tandem risk's inverse rises faster than the other's), and
    concave and increasing in ``(T, L, e)`` (a partial maximum of a jointly concave
    function over a convex set): three convex terms, certified by
    :mod:`cvxpb.engine.declare.vertices`.

    Where a secant from the end one step on proves ``g`` rising there, every secant
    before has a greater slope (``g`` is concave), so ``G`` is ``g`` at the end.
    Elsewhere, rounded down, ``g`` at its peak found by golden sections (at most ``G``);
    rounded up, ``CC`` at ``U`` of the end and ``R`` of 0, which bounds ``g`` on the whole
    interval.

    Parameters
    ----------
    *args : Expression or float
        ``(T, L, e)``: the empirical tandem risk, the empirical Gibbs risk on the same
        sample, and the kl inequalities' right-hand side.
    """

    monotonicity = (1, 1, 1)

    def _apply(self, arguments, rounding):
        T, L, e = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(*arguments))
        end = np.clip(np.minimum(T, 2 * L), 0.0, 1.0)
        L, e = np.clip(L, 0.0, 1.0), np.maximum(e, 0.0)
        value = self._g(end, L, e, rounding)
        step = np.maximum(1e-7 * end, 1e-12)
        ahead = end + step
        room = ahead <= np.minimum(2 * L, 1.0)  # g is defined a step past the end
        after = self._g(np.where(room, ahead, end), L, e, -1)
        rising = (end == 0) | (room & (after >= self._g(end, L, e, +1)))
        if np.all(rising):
            return value
        if rounding > 0:  # g on [0, end] is at most its parts' ends
            far = _SPLIT_BELOW_SIDE._least(
                kl_upper_rounded(end, e, +1),
                self._level(end, np.minimum(2 * L, 1.0), e, +1),
                +1,
            )
            return np.where(rising, value, np.maximum(value, far))
        peak = self._g(self._argmax(end, L, e), L, e, rounding)  # g there is at most G
        return np.where(rising, value, np.maximum(value, peak))

    def _argmax(self, end, L, e, steps=40):
        """Where ``g`` peaks on ``[0, end]``, by golden sections (``g`` is concave)."""
        low, high = np.zeros_like(end), end.copy()
        ratio = (np.sqrt(5.0) - 1) / 2
        for _ in range(steps):
            left, right = high - ratio * (high - low), low + ratio * (high - low)
            falling = self._g(left, L, e, 0) >= self._g(right, L, e, 0)
            low, high = np.where(falling, low, left), np.where(falling, right, high)
        return (low + high) / 2

    @staticmethod
    def _level(t, r, e, rounding):
        """``(U(t) + kl^-1(r, e)) / 2`` rounded in ``rounding``."""
        U = kl_upper_rounded(t, e, rounding)
        R = kl_upper_rounded(np.clip(r, 0.0, 1.0), e, rounding)
        return nudge(0.5 * nudge(U + R, rounding), rounding)

    def _g(self, t, L, e, rounding):
        """``g(t)`` rounded in ``rounding``."""
        U = kl_upper_rounded(t, e, rounding)
        level = self._level(t, np.minimum(2 * L - t, 1.0), e, rounding)
        return _SPLIT_BELOW_SIDE._least(U, level, rounding)

    def _curvature(self, kinds, ranges):
        """Concave where ``T``, ``L`` and ``e`` are at least 0 (the class's text)."""
        inside = all(within(r, 0.0) for r in ranges)
        concave = composes(kinds, self.monotonicity, "concave")
        return "concave" if inside and concave else None

    def __repr__(self):
        return f"split_cantelli_below({', '.join(map(repr, self.args))})"


class CTandem(Expression):
    """Masegosa et al.'s (2020) C-tandem bound as an atom of the empirical tandem risk.

    Chebyshev-Cantelli for the weighted error ``Z`` of the vote (``E Z = L``, the Gibbs
    risk; ``E Z^2 = T``, the tandem risk): where ``L < 1/2`` the vote's risk is at most
    ``(T - L^2) / (T - L + 1/4)``. Masegosa et al. bound the numerator above at
    ``(T_hi, L_lo)`` and the denominator below at ``(T_lo, L_hi)``, with
    ``T_hi, T_lo = kl^-1(T_hat, e)`` the two sides of one kl inequality on the empirical
    tandem risk ``T_hat``: the value is ``N / D``, ``N = T_hi - L_lo^2``,
    ``D = T_lo - L_hi + 1/4``, capped at 1, and 1 where ``D <= 0``, ``L_hi >= 1/2`` or
    ``T_hi > 1/2``. Where ``N < 0`` the two inequalities cannot both hold (the tandem risk
    is at least the Gibbs risk squared, by Jensen): the value is 0 there, as any value
    is true on an event that has failed.

    ``T_hat`` enters both ``N`` and ``D``, and the value still increases in it: where
    ``T_hi <= 1/2``, ``dT_hi / dT_hat >= 1 >= dT_lo / dT_hat`` (each slope is
    ``f``'s mean between ``T_hat`` and the inverse over ``f`` at the inverse,
    ``f(s) = 1 / (s (1 - s))`` falling on (0, 1/2]), so ``N - lam D`` increases in it
    for every ``lam`` in [0, 1], and the value is the largest ``lam <= 1`` with
    ``N - mu D >= 0`` for every ``mu`` in ``[0, lam]`` (0 where there is none); above,
    it is 1. It increases in ``e`` and ``L_hi`` and decreases in ``L_lo`` the same
    way. Without the caps at 1 for ``L_hi >= 1/2`` and ``T_hi > 1/2`` (its
    :meth:`bounding_form` below, with ``clipped`` off) it is **quasi-concave**: each
    ``N - mu D`` is concave (``kl^-1`` is jointly concave above and convex below), so
    each set where the value is at least ``lam`` is an intersection of convex sets; the
    least value over a polytope is then at a vertex, which is what
    :mod:`cvxpb.engine.declare.vertices` needs.

    Parameters
    ----------
    *args : Expression or float
        ``(T, e, L_lo, L_hi)``: the empirical tandem risk, its kl inequality's right-hand
        side, and bounds below and above on the Gibbs risk.
    """

    monotonicity = (1, 1, -1, 1)
    clipped = True  # the caps at 1 for L_hi >= 1/2 and T_hi > 1/2 (bounding_form drops them)

    def _apply(self, arguments, rounding):
        T, e, L_lo, L_hi = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(*arguments))
        T, e = np.clip(T, 0.0, 1.0), np.maximum(e, 0.0)
        L_lo, L_hi = np.clip(L_lo, 0.0, 1.0), np.clip(L_hi, 0.0, 1.0)
        T_hi = kl_upper_rounded(T, e, rounding)
        T_lo = kl_lower_rounded(T, e, -rounding)
        numerator = nudge(T_hi - nudge(L_lo * L_lo, -rounding), rounding)
        spread = nudge(nudge(T_lo - L_hi, -rounding) + 0.25, -rounding)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.minimum(nudge(numerator / spread, rounding), 1.0)
        value = np.where(numerator < 0, 0.0, np.where(spread <= 0, 1.0, ratio))
        if self.clipped:
            value = np.where((L_hi >= 0.5) | (T_hi > 0.5), 1.0, value)
        return value

    def _curvature(self, kinds, ranges):
        """Without the caps, quasi-concave (the class's text) where ``T`` is affine in
        the terms, ``e`` and ``L_hi`` concave, ``L_lo`` convex, no clip acts, and
        ``T_hi <= 1/2`` over the box (where the value increases in ``T``)."""
        T, e, L_lo, L_hi = ranges
        shapes = (("affine",), ("affine", "concave"), ("affine", "convex"), ("affine", "concave"))
        fits = all(kind in allowed for kind, allowed in zip(kinds, shapes, strict=True))
        inside = within(T, 0.0, 1.0) and within(e, 0.0) and within(L_lo, 0.0, 1.0)
        inside = inside and within(L_hi, 0.0, 1.0)
        if self.clipped or not (fits and inside):
            return None
        top = float(kl_upper_rounded(np.float64(T[1]), np.float64(e[1]), +1))
        return "quasiconcave" if top <= 0.5 else None

    def __repr__(self):
        return f"c_tandem({', '.join(map(repr, self.args))})"


class PacBayesBennett(Expression):
    """The PAC-Bayes-Bennett excess of a loss over its empirical mean, at its best grid point.

    Wu, Masegosa, Lorenzen, Igel and Seldin (2021) combine Bennett's inequality with the
    PAC-Bayesian change of measure. For a loss ``Z`` with ``E[Z] - Z <= b`` (here ``b`` is
    the loss's range) and any ``gamma > 0``,
    ``E[exp(gamma (E[Z] - Z))] <= exp(phi(gamma b) / b^2 Var[Z])`` with
    ``phi(u) = e^u - u - 1`` (Bennett's lemma), so with probability ``1 - delta``, for
    every posterior at once, ``E[Z] <= Z_hat + phi(gamma b) / (gamma b^2) V + (D + c) /
    (gamma n)``, with ``V`` the posterior's average variance, ``D`` its divergence and
    ``c = ln(1 / delta)``. ``V`` is itself bounded by Tolstikhin and Seldin's (2013)
    PAC-Bayes-empirical-Bernstein inequality for the variance, at every ``t`` in (0, 1):
    ``V <= V_hat / (1 - t) + b^2 (D + c_V) / (2 (n - 1) t (1 - t))``, with ``V_hat`` the
    average of unbiased empirical variances, and by ``b^2 / 4`` (Popoviciu). Both hold
    on grids fixed before the data by the union bound (the costs ``c`` and ``c_V`` carry
    the grids' sizes), so the atom is the least value over both grids of functions
    affine in ``(V_hat, D)`` with nonnegative slopes: increasing in both, and concave.

    Parameters
    ----------
    *args : Expression or float
        ``(V_hat, D)``: the empirical variance and the divergence.
    n : int
        The sample size (at least 2).
    spread : float
        ``b``: the loss's range.
    gammas : array_like
        The grid of ``gamma b`` (positive).
    cost : float
        ``c``: ``ln`` of the Bennett grid's size over its confidence.
    ts : array_like
        The grid of ``t`` in (0, 1) of the variance bound.
    variance_cost : float
        ``c_V``: ``ln`` of that grid's size over its confidence.
    """

    monotonicity = (1, 1)

    def __init__(self, *args, n, spread, gammas, cost, ts, variance_cost):
        super().__init__(*args)
        self.n, self.spread, self.cost, self.variance_cost = n, spread, cost, variance_cost
        self.gammas = np.asarray(gammas, dtype=float)
        self.ts = np.asarray(ts, dtype=float)

    def _apply(self, arguments, rounding):
        V, D = (np.maximum(x, 0.0)[..., None] for x in np.broadcast_arrays(*arguments))
        b, n, t = self.spread, self.n, self.ts
        variance = np.min(
            V / (1 - t) + b * b * (D + self.variance_cost) / (2 * (n - 1) * t * (1 - t)), axis=-1
        )
        variance = np.minimum(variance, b * b / 4)[..., None]
        x = self.gammas  # gamma b
        weight = (np.expm1(x) - x) / (x * b)  # phi(gamma b) / (gamma b^2), by expm1
        value = np.min(weight * variance + b * (D + self.cost) / (x * n), axis=-1)
        return nudge(value * (1 + rounding * 64 * EPS), rounding)

    def _curvature(self, kinds, ranges):
        """Concave: the least over the grids of functions affine in ``(V_hat, D)``."""
        inside = within(ranges[0], 0.0) and within(ranges[1], 0.0)
        return "concave" if inside and composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"pac_bayes_bennett({self.args[0]!r}, {self.args[1]!r})"


def c_bound(R, D) -> Expression:
    """Declare the C-bound on the majority vote's risk (Germain et al., 2015).

    ``1 - (1 - 2 R)^2 / (1 - 2 D)`` for ``R < 1/2``, else 1.

    Parameters
    ----------
    R : Expression or float
        An upper bound on the Gibbs risk.
    D : Expression or float
        A lower bound on the disagreement.

    Returns
    -------
    Expression
        The atom: increasing in ``R``, decreasing in ``D``.
    """
    return CBound(R, D)


def pac_bound_two(L, D, s) -> Expression:
    """Declare Germain et al.'s (2015) PAC-Bound 2.

    Parameters
    ----------
    L : Expression or float
        The pair's empirical Gibbs risk, joint error plus half the disagreement (on one
        sample, the posterior's Gibbs risk).
    D : Expression or float
        The empirical disagreement, on the same examples.
    s : Expression or float
        The trinomial kl inequality's side ``(2 KL + ln((xi(m) + m) / delta)) / m``.

    Returns
    -------
    Expression
        The atom: increasing in ``L`` and ``s``, decreasing in ``D``.
    """
    return PacBoundTwo(L, D, s)


def lambda_bound(L, e) -> Expression:
    """Declare Thiemann et al.'s (2017) PAC-Bayes-lambda bound at its best lambda.

    ``min over lambda in (0, 2) of (L + e / lambda) / (1 - lambda / 2)``, in closed form.

    Parameters
    ----------
    L : Expression or float
        The empirical risk.
    e : Expression or float
        The complexity term ``(KL + log(xi(n) / delta)) / n``.

    Returns
    -------
    Expression
        The atom, increasing in both.
    """
    return LambdaBound(L, e)


def split_cantelli_below(T, L, e) -> Expression:
    """Declare the ``mu < 0`` side of the split-kl bound on one shared sample.

    See :class:`SplitCantelliBelow`.

    Parameters
    ----------
    T : Expression or float
        The empirical tandem risk.
    L : Expression or float
        The empirical Gibbs risk, on the same sample.
    e : Expression or float
        The kl inequalities' right-hand side.

    Returns
    -------
    Expression
        The atom: increasing in each argument, concave where they are at least 0.

    Examples
    --------
    >>> from cvxpb.ensemble.atoms import split_cantelli_below
    >>> round(float(split_cantelli_below(0.05, 0.2, 0.01).evaluate(None, 0)), 4)
    0.3476
    """
    return SplitCantelliBelow(T, L, e)


def chebyshev_cantelli(T, L, mu_nonnegative=True) -> Expression:
    """Declare Wu et al.'s (2021) Chebyshev-Cantelli bound at its best ``mu`` on one side.

    ``min over mu of (T - 2 mu L + mu^2) / (1/2 - mu)^2``, over ``mu >= 0`` or over
    ``mu < 0``, in closed form (:class:`ChebyshevCantelli`).

    Parameters
    ----------
    T : Expression or float
        An upper bound on the tandem risk.
    L : Expression or float
        A lower bound on the Gibbs risk for ``mu_nonnegative``, an upper bound otherwise.
    mu_nonnegative : bool, default=True
        Which side of 0 ``mu`` ranges over.

    Returns
    -------
    Expression
        The atom: increasing in ``T``; decreasing in ``L`` for ``mu >= 0``, increasing
        for ``mu < 0``.

    Examples
    --------
    At ``mu = 0`` the bound is the tandem bound ``4 T``; a better ``mu`` only lowers it:

    >>> float(chebyshev_cantelli(0.05, 0.2).evaluate(None, 0)) < 4 * 0.05
    True
    """
    return ChebyshevCantelli(T, L, mu_nonnegative=mu_nonnegative)


def split_cantelli(U, V, mu_nonnegative=True) -> Expression:
    """Declare the split-kl Chebyshev-Cantelli bound at its best ``mu`` on one side.

    Wu and Seldin's (2022) bound on the vote's risk from the split of the ``mu``-shifted
    tandem loss (:class:`SplitCantelli`), least over ``mu >= 0`` or over ``mu < 0``.

    Parameters
    ----------
    U : Expression or float
        An upper bound on the tandem risk.
    V : Expression or float
        A lower bound on the rate at which exactly one of two voters errs
        (``mu_nonnegative``), or neither does (otherwise).
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.

    Returns
    -------
    Expression
        The atom: increasing in ``U``, decreasing in ``V``.

    Examples
    --------
    >>> from cvxpb.ensemble.atoms import split_cantelli
    >>> float(split_cantelli(0.05, 0.3).evaluate(None, 0)) < 4 * 0.05
    True
    """
    return SplitCantelli(U, V, mu_nonnegative=mu_nonnegative)


def c_tandem(T, e, L_lo, L_hi) -> Expression:
    """Masegosa et al.'s (2020) C-tandem bound at the empirical tandem risk.

    See :class:`CTandem`.

    Parameters
    ----------
    T : Expression or float
        The empirical tandem risk.
    e : Expression or float
        The right-hand side of its kl inequality.
    L_lo, L_hi : Expression or float
        Bounds below and above on the Gibbs risk.

    Returns
    -------
    Expression
        The atom: increasing in ``T``, ``e`` and ``L_hi``, decreasing in ``L_lo``.

    Examples
    --------
    With exact risks (``e = 0``) it is ``(T - L^2) / (T - L + 1/4)``:

    >>> round(float(c_tandem(0.05, 0.0, 0.1, 0.1).evaluate(None, 0)), 6)  # 0.04 / 0.2
    0.2
    """
    return CTandem(T, e, L_lo, L_hi)


def pac_bayes_bennett(V, D, *, n, spread, gammas, cost, ts, variance_cost) -> Expression:
    """The PAC-Bayes-Bennett excess ``E[Z] - Z_hat`` at its best grid point.

    See :class:`PacBayesBennett` for the inequalities and the parameters.

    Parameters
    ----------
    V, D : Expression or float
        The posterior's average unbiased empirical variance and its divergence.
    n : int
        The sample size (at least 2).
    spread : float
        The loss's range ``b``.
    gammas : array_like
        The grid of ``gamma b``.
    cost : float
        ``ln`` of the Bennett grid's size over its confidence.
    ts : array_like
        The grid of ``t`` in (0, 1) of the variance bound.
    variance_cost : float
        ``ln`` of that grid's size over its confidence.

    Returns
    -------
    Expression
        The atom, increasing and concave in both arguments.
    """
    return PacBayesBennett(
        V, D, n=n, spread=spread, gammas=gammas, cost=cost, ts=ts, variance_cost=variance_cost
    )
