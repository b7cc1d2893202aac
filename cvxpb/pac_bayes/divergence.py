"""The divergence protocol's base class: what every divergence offers the engines.

A divergence is an increasing ``transform`` of a ``core`` convex in ``q``. The base
class :class:`Divergence` holds the defaults of the protocol's optional members
(:data:`cvxpb.pac_bayes.protocol.DIVERGENCE_MEMBERS`); KL
(:mod:`cvxpb.pac_bayes.kl_divergence`), chi-squared and Renyi
(:mod:`cvxpb.pac_bayes.power_divergences`) subclass it, and :mod:`cvxpb.pac_bayes.divergences`
turns the user's words into them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cvxpb.numerics.derivatives import central_difference
from cvxpb.pac_bayes.protocol import (
    own,
    placeholder,
)

if TYPE_CHECKING:
    pass


_LEAST_NORMAL = 2.3e-308  # a product below this may have lost its digits to underflow


class Divergence:
    """The protocol of a divergence ``D(q || p)``; see the module's text.

    A subclass, or any object with the members of
    :data:`cvxpb.pac_bayes.protocol.DIVERGENCE_MEMBERS` (adopted by
    :func:`as_divergence`), supplies what the engines it is used with ask for; the
    defaults here are those of a divergence that is its own core and its own bound
    argument. A subclass may also
    define ``linear_min(p, g, mu)``, the closed-form minimum of ``g @ q + mu core(q)``
    over the simplex with a lower bound (see :meth:`KLDivergence.linear_min`); without
    it the declared engine solves those programs with CVXPY and certifies them by the
    Frank-Wolfe bound.

    Attributes
    ----------
    name : str
        The word users pass (``divergence="kl"``).
    alpha : float or None
        The order, for divergences of the Renyi family.
    symbol : str
        How :meth:`cvxpb.Minimize.explain` writes the bound's argument.
    entropic : bool
        Whether the core is ``KL`` itself, whose Hessian ``diag(1/q)`` Newton's method
        of :mod:`cvxpb.engine.declare.newton` uses.
    has_family : bool
        Whether :meth:`family` gives the one-parameter family ``method="exact"``
        searches; without one the declared engine certifies the minimum.
    uses_constant : bool
        Whether the bounds need the distance's constant ``I_phi`` (Theorem 1).
    uses_grid : bool
        Whether the bounds may take a union-bounded grid (the KL bounds).
    additive : bool
        Whether the bound's argument adds up over a product posterior,
        ``D(q x q || p x p) = 2 D(q || p)`` (KL and the Renyi divergences): the tandem
        bounds then take ``2 D``. False by default: a divergence used on pairs must say
        how it behaves there (:meth:`bound_argument`), or the tandem bounds refuse it.
    least : float or None
        A value the core is never below, known without solving (0 for KL, Gibbs'
        inequality), or None; the declared engine's box starts there
        (:attr:`cvxpb.engine.declare.terms.Term.floor`).
    least_value : float or None
        A value the bound's argument (:meth:`value`) is never below, known without
        solving, or None. With it every method certifies at once a bound that is 1 at
        every posterior (its formula at the least risk and this value is at least 1).
    """

    name = ""
    alpha = None
    symbol = "D(q)"
    entropic = False
    has_family = False
    uses_constant = False
    uses_grid = False
    additive = False
    least = None
    least_value = None

    def least_curvature(self, p) -> float:
        """A curvature the core has everywhere on the simplex, proven.

        A number ``m >= 0`` with ``z @ H(q) @ z >= m (|z|^2 - (sum z)^2)`` for the
        core's Hessian ``H(q)`` at every ``q >= 0`` summing to at most ``1 + 4 eps``
        and every direction ``z`` (on the simplex's plane, ``sum z = 0``, the curvature
        is at least ``m``; the second term covers posteriors that sum to 1 only to
        rounding): the curvature the core lends a scalarized program whose other terms
        are not convex (:mod:`cvxpb.engine.declare.loan`). 0 (none claimed) by default.

        Parameters
        ----------
        p : ndarray of shape (H,)
            The prior.

        Returns
        -------
        float
            ``m``, rounded down.
        """
        return 0.0

    def concave_bound(self, distance) -> bool:
        """Say whether the bound with ``distance`` is jointly concave in its arguments.

        That is, in the risk and the bound's argument, where both are at least 0.

        Parameters
        ----------
        distance : Distance
            The distance.

        Returns
        -------
        bool
            False unless proven (the declared engine then certifies two terms through
            the bound's concavity).
        """
        return False

    def term_name(self) -> str:
        """Name the divergence's term in a declared bound and in ``Result.terms``.

        Returns
        -------
        str
            The name; :attr:`name` by default.
        """
        return self.name

    @placeholder
    def core(self, q, p, rounding: int = 0) -> float:
        """Evaluate the convex core at ``q``, rounded in the direction ``rounding``.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.
        rounding : {+1, -1, 0}, default=0
            Up (the result is at least the exact value), down, or as computed.

        Returns
        -------
        float
            The core; ``inf`` where ``q_i > 0 = p_i``.
        """
        raise NotImplementedError(f"{type(self).__name__} has no core")

    def transform(self, core, rounding: int = 0):
        """Map the core to the divergence (an increasing map), rounded outward.

        Parameters
        ----------
        core : float or ndarray
            Values of :meth:`core`.
        rounding : {+1, -1, 0}, default=0
            The direction to round in.

        Returns
        -------
        ndarray
            The divergence; the identity by default.
        """
        return np.asarray(core, dtype=float)

    @placeholder
    def core_gradient(self, q, p) -> np.ndarray:
        """Differentiate the core with respect to ``q``.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.

        Returns
        -------
        ndarray of shape (H,)
            The gradient.
        """
        raise NotImplementedError(f"{type(self).__name__} has no core gradient")

    @placeholder
    def expr(self, q, p):
        """Write the core as a CVXPY expression, convex in ``q``.

        Parameters
        ----------
        q : cvxpy.Expression of shape (H,)
            The posterior variable.
        p : ndarray of shape (H,)
            The prior.

        Returns
        -------
        cvxpy.Expression
            The core, DCP convex.
        """
        raise NotImplementedError(f"{type(self).__name__} has no CVXPY expression")

    def teaching_terms(self, q, p) -> dict:
        """Name the divergence's CVXPY expressions as ``explain()`` shows them.

        The first is the one the distance's teaching form takes (its curvature decides
        the DCP verdict); the last is the core's, which the family's subproblem
        ``min L + mu core`` takes (one entry may be both).

        Parameters
        ----------
        q : cvxpy.Variable of shape (H,)
            The posterior.
        p : ndarray of shape (H,)
            The prior, positive where the posterior may be.

        Returns
        -------
        dict
            ``{name: expression}``; by default the core's expression alone.
        """
        return {f"{self.symbol} (its core)": self.expr(q, p)}

    def value(self, q, p) -> float:
        """Evaluate the argument the bound's formula takes at ``q``.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.

        Returns
        -------
        float
            The argument (``sum q^2/p`` for chi-squared, the divergence otherwise),
            ``inf`` where ``q_i > 0 = p_i``; by default the transformed core.
        """
        return float(self.transform(self.core(q, p), 0))

    def rounding_error(self, q, p) -> float:
        """Bound the absolute rounding error of :meth:`value`.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.

        Returns
        -------
        float
            A bound on ``|value(q, p) - exact value|``; 0 by default.
        """
        return 0.0

    def gradient(self, q, p) -> np.ndarray:
        """Differentiate :meth:`value` with respect to ``q``.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.

        Returns
        -------
        ndarray of shape (H,)
            The gradient; by default the core's, times the transform's derivative at
            the core where the transform is not the identity (a central difference).
        """
        gradient = np.asarray(self.core_gradient(q, p), dtype=float)
        if not own(self, "transform", Divergence):
            return gradient
        core = float(self.core(q, p))
        step = 1e-6 * max(abs(core), 1e-3)
        slope = central_difference(lambda x: float(self.transform(x, 0)), core, step)
        return slope * gradient

    def reported(self, value: float) -> float:
        """Turn the bound's argument into the divergence by its own definition.

        Parameters
        ----------
        value : float
            A value of :meth:`value`.

        Returns
        -------
        float
            The divergence; ``value`` itself by default.
        """
        return value

    def bound_argument(self, term, copies: int = 1):
        """Write the bound's argument as a declared expression of this divergence's term.

        Parameters
        ----------
        term : cvxpb.engine.declare.divergence_terms.DivergenceTerm
            The divergence of the posterior ``q``.
        copies : int, default=1
            1 for ``q``; 2 for ``q x q`` against ``p x p`` (the tandem bounds).

        Returns
        -------
        cvxpb.engine.declare.expressions.Expression
            The argument: the term itself for ``q``; ``copies * term`` for a product
            where the divergence is :attr:`additive` (KL and the Renyi divergences).

        Raises
        ------
        ValueError
            For a product, where the divergence does not say how it behaves on one (a
            guess could make the tandem bounds too small to hold).
        """
        if copies == 1:
            return term
        if self.additive:
            return copies * term
        raise ValueError(
            f"the divergence {self.name!r} does not say how it behaves on a product "
            "posterior q x q, which the tandem bounds need: set additive = True where "
            "D(q x q || p x p) = 2 D(q || p), or define bound_argument(term, copies)"
        )

    def transform_is_affine(self) -> bool:
        """Say whether :meth:`transform` is affine, so that the divergence is convex.

        Returns
        -------
        bool
            True where the class keeps the identity, or says ``affine_transform = True``.
        """
        kind = type(self)
        return kind.transform is Divergence.transform or getattr(kind, "affine_transform", False)

    def cone(self, bound, p):
        """Write the change of measure as a second-order cone, where it is one.

        Parameters
        ----------
        bound : cvxpb.pac_bayes.bounds.Bound
            The bound (its constant and ``delta``).
        p : ndarray of shape (H,)
            The prior, positive.

        Returns
        -------
        tuple of (float, ndarray) or None
            ``(c2, r)`` with :meth:`right_side` at ``q`` equal to
            ``sqrt(c2 sum_i q_i^2 / r_i) = sqrt(c2) ||q / sqrt(r)||_2``; None by default
            (the methods built on that cone, ``cvx``, ``closed_form`` and
            ``fixed_point``, then refuse the divergence).
        """
        return None

    def right_side_expr(self, bound, q, p):
        """Write the change of measure as a convex CVXPY expression of ``q``.

        Parameters
        ----------
        bound : cvxpb.pac_bayes.bounds.Bound
            The bound.
        q : cvxpy.Expression of shape (H,)
            The posterior.
        p : ndarray of shape (H,)
            The prior, positive.

        Returns
        -------
        cvxpy.Expression or None
            ``rhs(q)``, DCP convex; by default ``sqrt(c2) ||q / sqrt(r)||_2`` from
            :meth:`cone`, None
            without one (``method="ccp"`` then refuses the divergence).
        """
        cone = self.cone(bound, p)
        if cone is None:
            return None
        import cvxpy as cp

        c2, r = cone
        return np.sqrt(c2) * cp.norm(cp.multiply(1 / np.sqrt(r), q), 2)

    def family(self, risks, prior):
        """Give the family of posteriors that contains every minimizer of ``L + mu D``.

        Parameters
        ----------
        risks, prior : ndarray of shape (H,)
            The classifiers' empirical risks and the prior.

        Returns
        -------
        object or None
            A family of :mod:`cvxpb.pac_bayes.families`; None by default (no family:
            ``method="exact"`` does not apply).
        """
        return None

    formulas: dict = {}  # distance class -> (the bound as a program, why not DCP or None)

    def formula(self, distance):
        """Give the bound with ``distance`` as a program, with its source, for ``explain``.

        Parameters
        ----------
        distance : cvxpb.pac_bayes.distances.Distance
            The distance.

        Returns
        -------
        tuple of (str, str or None) or None
            The program and, where it is not DCP, why; None where this divergence
            states none (a user's, say: ``explain`` then gives the declared engine's
            account).
        """
        found = [text for kind, text in self.formulas.items() if isinstance(distance, kind)]
        return found[0] if found else None

    @placeholder
    def accepts(self, distance) -> bool:
        """Say whether this divergence has a bound with ``distance``.

        Parameters
        ----------
        distance : cvxpb.pac_bayes.distances.Distance
            The distance.

        Returns
        -------
        bool
            False by default.
        """
        return False

    @placeholder
    def right_side(self, bound, value, rounding: int = 0):
        """Evaluate the change of measure: ``rhs`` in ``phi(L, R) <= rhs``.

        Parameters
        ----------
        bound : cvxpb.pac_bayes.bounds.Bound
            The bound (its distance, ``m``, ``delta``, constant and grid).
        value : float or ndarray
            The bound's argument (:meth:`value`).
        rounding : {+1, -1, 0}, default=0
            The direction to round in.

        Returns
        -------
        float or ndarray
            The right side.
        """
        raise NotImplementedError(f"{type(self).__name__} states no change of measure")

    def bound_value(self, bound, L, value, rounding: int = 0):
        """Bound the true risk: the distance's inverse at :meth:`right_side`.

        Parameters
        ----------
        bound : cvxpb.pac_bayes.bounds.Bound
            The bound.
        L : float or ndarray
            The Gibbs risk.
        value : float or ndarray
            The bound's argument (:meth:`value`).
        rounding : {+1, -1, 0}, default=0
            The direction to round in.

        Returns
        -------
        float or ndarray
            The bound on the true risk.
        """
        return bound.metric.inverse(L, self.right_side(bound, value, rounding), rounding)


def _least(g):
    """The minimizer of ``g @ q`` over the simplex (uniform on the least ``g``), exact."""
    q = (g == g.min()).astype(float)
    return q / q.sum(), float(g.min())


def _root_of_total(total, lo, hi):
    """The ``nu`` in ``[lo, hi]`` with ``total(nu) = 1`` (``total`` increasing,
    ``total(lo) <= 1 <= total(hi)``), to the last bit."""
    for _ in range(2200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if total(mid) < 1 else (lo, mid)
    return hi
