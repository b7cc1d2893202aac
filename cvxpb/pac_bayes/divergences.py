"""Divergences between a discrete posterior ``q`` and a prior ``p``, each one class.

A divergence is an increasing ``transform`` of a ``core`` convex in ``q``: KL is its
own core; the chi-squared divergence is ``M - 1`` and the Renyi divergence of order
``alpha`` is ``log(M) / (alpha - 1)``, both of the moment
``M = sum_i q_i^alpha p_i^(1 - alpha)``. Each class carries everything the engines
need of it, so that no other module knows a divergence by its name:

* for the bounds (:func:`cvxpb.BoundProblem`): :meth:`~Divergence.value`, the
  argument the bound's formula takes (``sum q^2/p`` for chi-squared, as in Theorem 1
  of Sahu & Hemachandra; the divergence itself otherwise), its
  :meth:`~Divergence.rounding_error` and :meth:`~Divergence.gradient`, and
  :meth:`~Divergence.reported`, the divergence by its own definition;
* for the declared engine (:class:`cvxpb.Minimize`): :meth:`~Divergence.core` rounded
  outward, :meth:`~Divergence.transform`, :meth:`~Divergence.core_gradient`,
  :meth:`~Divergence.expr` (the core's CVXPY expression) and
  :meth:`~Divergence.linear_min`, the closed-form minimum of ``g @ q + mu core(q)``
  over the simplex with a lower bound from weak duality;
* for ``method="exact"``: :meth:`~Divergence.family`, the one-parameter family of
  posteriors that holds every optimum (:mod:`cvxpb.pac_bayes.families`);
* for teaching: :attr:`~Divergence.symbol`.

:func:`as_divergence` turns the user's words (``"kl"``, ``"chi2"``, ``"renyi"`` with
``alpha``) into one of these objects; past it no code compares a divergence's name.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cvxpb.numerics.constants import check_order, conjugate
from cvxpb.numerics.derivatives import central_difference
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, LARGEST, nudge
from cvxpb.pac_bayes.distances import Catoni, KLDistance, Linear, Squared
from cvxpb.pac_bayes.protocol import (
    DIVERGENCE_MEMBERS,
    adopt,
    offers_protocol,
    own,
    placeholder,
)

if TYPE_CHECKING:
    import cvxpy as cp

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
        term : cvxpb.engine.declare.terms.DivergenceTerm
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


class KLDivergence(Divergence):
    """The Kullback-Leibler divergence ``KL(Q||P) = sum_i q_i log(q_i / p_i)``.

    Notes
    -----
    With ``0 log 0 = 0``; it is its own core and the bound's argument. Its value is
    summed exactly, with a rounding error bound for its terms of both signs; its
    gradient is ``log(q/p) + 1``, its CVXPY expression ``sum rel_entr(q, p)`` (the
    exponential cone). Its bounds are Seeger/Maurer's (kl), McAllester's (sq) and the
    union-bounded grids (linear, Catoni); its family the Gibbs posteriors
    ``q ∝ p exp(-beta l)``.
    """

    name = "kl"
    symbol = "K(q)"
    entropic = True
    has_family = True
    additive = True
    formulas = {
        KLDistance: (
            "min_{q,r}  r  s.t.  kl(L(q), r) <= (K(q) + ln(xi(m)/delta))/m  (Seeger)",
            "the constraint is convex <= convex, a difference of convex functions",
        ),
        Squared: (
            "min_q  L(q) + sqrt((K(q) + ln(xi(m)/delta))/(2m))  (McAllester)",
            "the square root of a convex function is neither convex nor concave",
        ),
        Linear: (
            "min_q min_lam  L(q) + (K(q) + ln(n/delta))/lam + lam/(8m)   (grid of n)",
            None,
        ),
        Catoni: (
            "min_q min_C  (1 - exp(-C L(q) - (K(q) + ln(n/delta))/m))/(1 - e^-C)",
            "1 - exp(-x) is concave increasing, so of a convex x it is quasiconvex (DQCP) "
            "but not DCP; for fixed C, minimizing it means minimizing the DCP x",
        ),
    }

    def term_name(self) -> str:
        return "KL"

    def value(self, q, p) -> float:
        # Exactly summed ``sum q log(q/p)``; ``inf`` if ``q_i > 0 = p_i``.
        from scipy.special import rel_entr  # SciPy loads when a divergence is first valued

        terms = rel_entr(np.asarray(q, dtype=float), np.asarray(p, dtype=float))
        return exact_sum(terms) if np.all(np.isfinite(terms)) else math.inf

    def rounding_error(self, q, p) -> float:
        # A bound on the absolute rounding error of :meth:`value` (terms of both signs):
        # each term's logarithm is off by its ratio's rounding (``q_i`` times EPS, which
        # is all there is where q_i = p_i to a few ulps) and its own (relative to the
        # sizes of ``log q_i`` and ``log p_i``)
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        size = q[on] + np.abs(q[on] * np.log(q[on])) + np.abs(q[on] * np.log(p[on]))
        return 16 * EPS * exact_sum(size) + 1e-300

    def core(self, q, p, rounding: int = 0) -> float:
        # KL itself, rounded in the direction ``rounding``.
        value = self.value(q, p)
        if not math.isfinite(value):
            return math.inf
        return float(nudge(value + rounding * self.rounding_error(q, p), rounding))

    def gradient(self, q, p) -> np.ndarray:
        # ``log(q/p) + 1``.
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(q, dtype=float) / np.asarray(p, dtype=float)) + 1

    core_gradient = gradient

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        # ``sum rel_entr(q, p)`` (exponential cone).
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        return cp.sum(cp.rel_entr(q, np.asarray(p, dtype=float)))

    def teaching_terms(self, q, p) -> dict:
        # KL itself, the exponential cone's.
        return {"K(q) = sum_i q_i log(q_i / p_i)": self.expr(q, p)}

    def linear_min(self, p, g, mu):
        """Minimize ``g @ q + mu KL(q||p)`` over the simplex, in closed form.

        Parameters
        ----------
        p : ndarray of shape (H,)
            The prior.
        g : ndarray of shape (H,)
            The linear part.
        mu : float
            The weight of the divergence, at least 0.

        Returns
        -------
        q : ndarray of shape (H,)
            The minimizer, the Gibbs posterior ``q ~ p exp(-g/mu)`` (for ``mu = 0``,
            uniform on the least entries of ``g``).
        lower : float
            The minimum ``-mu log sum p e^(-g/mu)``, rounded down: a proven lower bound.
        """
        g = np.asarray(g, dtype=float)
        if mu == 0:
            return _least(g)
        with np.errstate(divide="ignore"):
            logits = np.log(p) - g / mu
        top = np.max(logits)  # logsumexp as SciPy's, without its checks (a fifth of the time)
        lse = top + math.log(np.sum(np.exp(logits - top)))
        q = np.exp(logits - lse)
        margin = 8 * EPS * (abs(mu * lse) + np.max(np.abs(g)) + mu * (abs(lse) + math.log(g.size)))
        return q, float(nudge(-mu * lse - margin, -1))

    uses_grid = True
    least = 0.0  # Gibbs' inequality
    least_value = 0.0

    def least_curvature(self, p) -> float:
        # z @ diag(1/q) @ z >= |z|_1^2 / sum(q) (Cauchy-Schwarz), and with U, V the sums
        # of z's positive and negative parts, |z|_1^2 = (U + V)^2 = 2 (U^2 + V^2) - (U - V)^2
        # >= 2 |z|^2 - (sum z)^2: so m = 2, less the rounding of sum(q)
        return 2 * (1 - 8 * EPS)

    def largest(self, p) -> float:
        """The greatest KL from ``p`` over the simplex.

        Parameters
        ----------
        p : ndarray of shape (H,)
            The prior.

        Returns
        -------
        float
            ``-log min p`` (at a vertex), rounded up; ``inf`` where ``p`` has a zero.
        """
        with np.errstate(divide="ignore"):
            return float(nudge(-np.log(np.min(p)), +1))

    def concave_bound(self, distance) -> bool:
        return distance.concave_kl_bound

    def accepts(self, distance) -> bool:
        return True  # Seeger/Maurer (kl), McAllester (sq), the grid bounds (linear, catoni)

    def right_side(self, bound, K, rounding: int = 0):
        return bound.metric.kl_right_side(K, bound.m, bound.delta, rounding, bound.log_xi)

    def bound_value(self, bound, L, K, rounding: int = 0):
        metric = bound.metric
        return metric.kl_bound(L, K, bound.m, bound.delta, bound.grid, rounding, bound.log_xi)

    def right_side_expr(self, bound, q, p):
        # (K + ln(xi(m)/delta)) / m or / (2m); none for a union bound over a grid, nor
        # for a distance with no KL bound of that form
        if bound.grid is not None:
            return None
        try:
            K = self.expr(q, p)
            return bound.metric.kl_right_side(K, bound.m, bound.delta, 0, bound.log_xi)
        except NotImplementedError:
            return None

    def family(self, risks, prior):
        # The Gibbs posteriors ``q ∝ p exp(-beta l)``.
        from cvxpb.pac_bayes.families import GibbsFamily

        return GibbsFamily(risks, prior)


class PowerDivergence(Divergence):
    """A divergence that is an increasing transform of a moment of order ``alpha``.

    The moment ``M = sum_i p_i^(1 - alpha) q_i^alpha`` is convex in ``q``; its gradient
    is ``alpha (q/p)^(alpha - 1)`` and its CVXPY expression a weighted sum of powers.
    Its bounds are Theorem 1 of Sahu & Hemachandra, with every distance that has a
    constant ``I_phi``.

    Parameters
    ----------
    alpha : float
        The order, finite and > 1.
    """

    uses_constant = True
    has_family = True

    def __init__(self, alpha: float):
        self.alpha = alpha

    def accepts(self, distance) -> bool:
        return distance.moment_bound  # Theorem 1 needs the distance's constant

    def core(self, q, p, rounding: int = 0) -> float:
        # The moment ``M``, rounded in the direction ``rounding``.
        raise NotImplementedError

    def least_curvature(self, p) -> float:
        # the Hessian diag(alpha (alpha - 1) q^(alpha - 2) p^(1 - alpha)): for alpha <= 2
        # at least alpha (alpha - 1) max(p)^(1 - alpha) in every direction, as q_i <= 1
        # and p_i <= max(p); above 2 it vanishes where q_i does
        if self.alpha > 2:
            return 0.0
        least = self.alpha * (self.alpha - 1) * float(np.max(p)) ** (1 - self.alpha)
        return float(nudge(least * (1 - 4 * EPS), -1))

    def core_gradient(self, q, p) -> np.ndarray:
        # ``alpha (q/p)^(alpha - 1)``, the gradient of ``M``.
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        return self.alpha * (q / p) ** (self.alpha - 1)

    def expr(self, q: cp.Expression, p) -> cp.Expression:
        # ``sum_i p_i^(1-alpha) q_i^alpha``, the convex moment (needs ``p > 0``).
        import cvxpy as cp  # loaded when a program is built: it takes 0.6 s

        weights = np.asarray(p, dtype=float) ** (1 - self.alpha)
        if self.alpha == 2:
            return cp.sum(cp.multiply(weights, cp.square(q)))
        return cp.sum(cp.multiply(weights, cp.power(q, self.alpha)))

    def linear_min(self, p, g, mu):
        """Minimize ``g @ q + mu M(q)`` over the simplex, with a dual certificate.

        The dual function ``h(nu) = nu - (1 - 1/alpha) sum_i (nu - g_i)_+ q_i(nu)``, with
        ``q_i(nu) = p_i ((nu - g_i)_+ / (mu alpha))^(1/(alpha - 1))``, is a lower bound
        at every ``nu`` (weak duality); ``nu`` solves ``sum q(nu) = 1`` by bisection.

        Parameters
        ----------
        p : ndarray of shape (H,)
            The prior.
        g : ndarray of shape (H,)
            The linear part.
        mu : float
            The weight of the moment, at least 0.

        Returns
        -------
        q : ndarray of shape (H,)
            The minimizer (normalized ``q(nu)``).
        lower : float
            ``h(nu)`` less its rounding error: a proven lower bound on the minimum.
        """
        g = np.asarray(g, dtype=float)
        if mu == 0:
            return _least(g)
        # total(min g) = 0 and total(max g + mu alpha) >= sum p = 1
        nu = _root_of_total(lambda v: self._mass(p, g, mu, v), g.min(), g.max() + mu * self.alpha)
        q = self._mass(p, g, mu, nu, each=True)
        gap = np.maximum(nu - g, 0.0)
        lower = nu - (1 - 1 / self.alpha) * exact_sum(gap * q)
        power = 1 + 1 / (self.alpha - 1)  # relative errors of q grow by this exponent
        margin = 16 * EPS * power * (abs(nu) + np.max(np.abs(g)) + exact_sum(gap * q))
        return q / exact_sum(q), float(nudge(lower - margin, -1))

    def _mass(self, p, g, mu, nu, each=False):
        scaled = np.maximum(nu - g, 0.0) / (mu * self.alpha)
        with np.errstate(over="ignore"):
            q = p * scaled ** (1 / (self.alpha - 1))
        return q if each else float(np.sum(q))


class Chi2(PowerDivergence):
    """The chi-squared divergence ``chi2(Q||P) = sum_i q_i^2 / p_i - 1``.

    Notes
    -----
    The bounds of Sahu & Hemachandra (Theorem 1, alpha = 2) take
    ``D = sum_i q_i^2 / p_i`` (:meth:`value`, summed exactly from ``q (q / p)``: two
    roundings a term, no underflow above the least normal float), with the change of
    measure ``sqrt(D I / delta)``; ``D`` multiplies over a product posterior. The
    family is ``q ∝ p (nu - l)_+``.
    """

    name = "chi2"
    least_value = 1.0  # sum q^2/p >= (sum q)^2 / sum p = 1 (Cauchy-Schwarz)
    formulas = {
        Linear: (
            "min_q  L(q) + c sqrt(D(q)),  c = sqrt(I_lin/delta)  (Sahu & Hemachandra, eq. 8)",
            None,
        ),
        Squared: (
            "min_q  L(q) + c^(1/2) D(q)^(1/4),  c = sqrt(I_sq/delta)  (Sahu & Hemachandra, eq. 11)",
            "the fourth root of a convex function is neither convex nor concave "
            "(Sahu & Hemachandra, Theorem 7)",
        ),
        KLDistance: (
            "min_{q,r}  r  s.t.  kl(L(q), r) <= c sqrt(D(q))  (Sahu & Hemachandra, eq. 14)",
            "the constraint is convex <= convex, a difference of convex functions",
        ),
    }

    def __init__(self):
        super().__init__(2.0)

    def core(self, q, p, rounding: int = 0) -> float:
        # ``M = sum q^2/p`` summed exactly from ``q (q / p)`` (two roundings a term, no
        # underflow above the least normal float), rounded in the direction ``rounding``;
        # ``inf`` if ``q_i > 0 = p_i``.
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        if np.any(on & (p == 0)):
            return math.inf
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            terms = q * (q / p)  # the same products where q > 0; zeros add nothing exactly
        value = exact_sum(np.where(on, terms, 0.0))
        if rounding == 0:
            return value
        margin = 4 * EPS * value + _LEAST_NORMAL * np.count_nonzero(on)
        return float(nudge(value + rounding * margin, rounding))

    def value(self, q, p) -> float:
        # ``D = sum q^2/p``, the argument of Theorem 1.
        return self.core(q, p)

    def rounding_error(self, q, p) -> float:
        # Two roundings a term and the least normal float for each underflow.
        return 4 * EPS * self.core(q, p) + _LEAST_NORMAL * np.count_nonzero(np.asarray(q) > 0)

    def reported(self, value: float) -> float:
        # ``chi2(Q||P) = D - 1``.
        return value - 1.0

    affine_transform = True  # M - 1

    def transform(self, core, rounding: int = 0):
        # M - 1 is exact for M in [1/2, 2] (Sterbenz) and within half an ulp beyond
        return nudge(np.asarray(core, dtype=float) - 1.0, rounding)

    def gradient(self, q, p) -> np.ndarray:
        # ``2 q / p``, the gradient of ``D``.
        return 2 * np.asarray(q, dtype=float) / np.asarray(p, dtype=float)

    def right_side(self, bound, D, rounding: int = 0):
        # Theorem 1 at alpha = 2: ``sqrt(D I / delta)``.
        return nudge(np.sqrt(nudge(D * bound.constant / bound.delta, rounding)), rounding)

    def cone(self, bound, p):
        # ``sqrt(D I / delta)`` with ``D = sum q^2 / p``
        return bound.constant / bound.delta, np.asarray(p, dtype=float)

    def bound_argument(self, term, copies: int = 1):
        # ``(chi2 + 1)^copies``: ``sum q^2/p`` multiplies over a product.
        argument = term + 1
        return argument if copies == 1 else argument**copies

    def family(self, risks, prior):
        # The posteriors ``q ∝ p (nu - l)_+``.
        from cvxpb.pac_bayes.families import Chi2Family

        return Chi2Family(risks, prior)

    def teaching_terms(self, q, p) -> dict:
        # sqrt(D) = ||q / sqrt(p)||_2, the second-order cone the linear bound needs, and D.
        import cvxpy as cp

        p = np.asarray(p, dtype=float)
        weights = np.where(p > 0, 1 / np.sqrt(np.where(p > 0, p, 1.0)), 0.0)
        return {
            "sqrt(D(q)) = ||q / sqrt(p)||_2": cp.norm(cp.multiply(weights, q), 2),
            "D(q) = sum_i q_i^2 / p_i": cp.sum(cp.multiply(weights**2, cp.square(q))),
        }


class Renyi(PowerDivergence):
    """The Renyi divergence ``D_alpha(Q||P) = log(sum_i q_i^alpha p_i^(1-alpha)) / (alpha-1)``.

    Parameters
    ----------
    alpha : float
        The order, finite and > 1.

    Notes
    -----
    Theorem 1 of Sahu & Hemachandra (after Begin et al., 2016) has
    ``(sum q^alpha p^(1-alpha))^(1/alpha) = exp(D_alpha / alpha')``; the sum itself
    overflows for small prior weights, so :meth:`value` never forms it: with
    ``t_i = (alpha - 1) log(q_i / p_i)``, ``log sum q e^t`` is ``log1p(sum q expm1(t))``
    when every ``t_i <= 1`` (accurate as ``alpha -> 1``) and a log-sum-exp otherwise.
    ``alpha = 2`` gives ``log(sum q^2/p)``; ``divergence="chi2"`` keeps the sum itself.
    The core is the moment, ``exp`` of that logarithm (the largest float where it
    overflows, rounded down); the change of measure is
    ``exp((D_alpha + log I - log delta) / alpha')``, in log space; the family is
    ``q ∝ p (nu - l)_+^(1/(alpha - 1))``.
    """

    name = "renyi"
    least_value = 0.0  # log M / (alpha - 1) with M >= (sum q)^alpha = 1 (Jensen)
    symbol = "S(q)"
    additive = True
    formulas = {
        Linear: (
            "min_q  L(q) + c S(q)^(1/alpha),  c = (I_lin/delta)^(1/alpha')  "
            "(Sahu & Hemachandra, Theorem 1)",
            None,
        ),
        Squared: (
            "min_q  L(q) + (c S(q)^(1/alpha))^(1/2),  c = (I_sq/delta)^(1/alpha')",
            "the square root of a convex function is neither convex nor concave",
        ),
        KLDistance: (
            "min_{q,r}  r  s.t.  kl(L(q), r) <= c S(q)^(1/alpha),  c = (I_kl/delta)^(1/alpha')",
            "the constraint is convex <= convex, a difference of convex functions",
        ),
    }

    def term_name(self) -> str:
        return f"renyi_{self.alpha:g}"

    def _scaled_log_ratios(self, q, p):
        on = q > 0
        return on, (self.alpha - 1) * (np.log(q[on]) - np.log(p[on]))

    def log_moment(self, q, p) -> float:
        """Evaluate ``log sum_i q_i^alpha p_i^(1 - alpha)`` without forming the sum.

        Parameters
        ----------
        q, p : ndarray of shape (H,)
            The posterior and the prior.

        Returns
        -------
        float
            The logarithm of the moment; ``inf`` where ``q_i > 0 = p_i``.
        """
        from scipy.special import logsumexp

        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        if np.any((q > 0) & (p == 0)):
            return math.inf
        on, t = self._scaled_log_ratios(q, p)
        if t.size and np.max(t) <= 1:
            terms = np.concatenate([q[on] * np.expm1(t), q[on]])
            return math.log1p(exact_sum([*terms, -1.0]))
        return float(logsumexp(np.log(q[on]) + t))

    def value(self, q, p) -> float:
        return self.log_moment(q, p) / (self.alpha - 1)

    def rounding_error(self, q, p) -> float:
        # A bound on the absolute rounding error of :meth:`value`.
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        size = np.max(np.abs(np.log(q[on])) + np.abs(np.log(p[on])), initial=0.0)
        return 32 * EPS * (size + abs(self.value(q, p))) + 1e-300

    def core(self, q, p, rounding: int = 0) -> float:
        # ``M = exp(log M)`` from :meth:`log_moment`, rounded in the direction
        # ``rounding`` (its error is that of :meth:`value` times ``alpha - 1``). A moment
        # beyond the largest float (small prior weights, large orders) is ``inf`` rounded
        # up and the largest float rounded down: :meth:`value` keeps it in log space.
        log_moment = self.log_moment(q, p)
        if not math.isfinite(log_moment):
            return math.inf
        error = (self.alpha - 1) * self.rounding_error(q, p)
        exponent = nudge(log_moment + rounding * error, rounding)
        with np.errstate(over="ignore"):
            moment = np.exp(exponent)
        if moment == math.inf:  # past the largest float: inf rounded up, it rounded down
            return LARGEST if rounding < 0 else math.inf
        return float(nudge(moment, rounding))

    def transform(self, core, rounding: int = 0):
        with np.errstate(divide="ignore"):
            log_moment = nudge(np.log(nudge(np.asarray(core, dtype=float), rounding)), rounding)
            return nudge(log_moment / (self.alpha - 1), rounding)

    def right_side(self, bound, D, rounding: int = 0):
        # Theorem 1 in log space: ``exp((D_alpha + log I - log delta) / alpha')``.
        exponent = nudge(nudge(D, rounding) + (bound.log_constant - np.log(bound.delta)), rounding)
        with np.errstate(over="ignore"):
            return nudge(np.exp(nudge(exponent / conjugate(self.alpha), rounding)), rounding)

    def gradient(self, q, p) -> np.ndarray:
        # ``alpha/(alpha-1) (q_i/p_i)^(alpha-1) / sum_j q_j^alpha p_j^(1-alpha)``.
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        with np.errstate(divide="ignore"):
            t = (self.alpha - 1) * (np.log(q) - np.log(p))
        scale = self.alpha / (self.alpha - 1)
        return scale * np.exp(t - self.log_moment(q, p))

    def family(self, risks, prior):
        # The posteriors ``q ∝ p (nu - l)_+^(1/(alpha - 1))``.
        from cvxpb.pac_bayes.families import Chi2AsRenyi, RenyiFamily

        if self.alpha == 2:
            return Chi2AsRenyi(risks, prior)
        return RenyiFamily(risks, prior, self.alpha)

    def teaching_terms(self, q, p) -> dict:
        # S^(1/alpha) = (sum q^alpha p^(1-alpha))^(1/alpha) = ||q p^(-1/alpha')||_alpha,
        # a norm, and the moment S itself.
        import cvxpy as cp

        p = np.asarray(p, dtype=float)
        on = p > 0
        weights = np.where(on, np.where(on, p, 1.0) ** ((1 - self.alpha) / self.alpha), 0.0)
        return {
            "S(q)^(1/alpha) = ||q p^(-1/alpha')||_alpha": cp.pnorm(
                cp.multiply(weights, q), self.alpha
            ),
            "S(q) = sum_i q_i^alpha p_i^(1-alpha)": self.expr(q, np.where(on, p, 1.0)),
        }


DIVERGENCES = ("chi2", "kl", "renyi")
_BY_NAME = {"chi2": Chi2, "kl": KLDivergence, "renyi": Renyi}


def as_divergence(divergence, alpha=None) -> Divergence:
    """Turn the user's word for a divergence into its object.

    The words are :data:`DIVERGENCES` (``"renyi"`` with a finite ``alpha > 1``); a
    :class:`Divergence` passes through.

    Parameters
    ----------
    divergence : {"chi2", "kl", "renyi"} or Divergence
        The user's word, or an object (one of ours, or the user's own subclass).
    alpha : float or None
        The Renyi order: needed with ``"renyi"``, 2 or None with ``"chi2"``, None with
        ``"kl"``.

    Returns
    -------
    Divergence
        The divergence object.

    Raises
    ------
    ValueError
        For any other name, or an ``alpha`` the divergence does not take.

    Examples
    --------
    >>> from cvxpb.pac_bayes.divergences import as_divergence
    >>> as_divergence("renyi", alpha=3).term_name()
    'renyi_3'
    """
    if offers_protocol(divergence, Divergence):  # a user's, not subclassing ours
        divergence = adopt(divergence, Divergence, DIVERGENCE_MEMBERS)
    if isinstance(divergence, Divergence):
        if alpha is not None and alpha != divergence.alpha:
            raise ValueError(f"alpha={alpha!r} does not match the divergence's order")
        return divergence
    kind = _BY_NAME.get(divergence) if isinstance(divergence, str) else None
    if kind is None:
        raise ValueError(f"divergence must be one of {DIVERGENCES}, got {divergence!r}")
    if kind is Renyi:
        if alpha is None:
            raise ValueError('divergence="renyi" needs alpha > 1, a finite number; got None')
        return Renyi(check_order(alpha))
    if kind is Chi2 and alpha is not None and (isinstance(alpha, bool) or alpha != 2):
        raise ValueError(f'alpha is 2 for divergence="chi2"; use "renyi" for alpha={alpha!r}')
    if kind is KLDivergence and alpha is not None:
        raise ValueError('alpha is only used with divergence="renyi" or "chi2"')
    return kind()


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
