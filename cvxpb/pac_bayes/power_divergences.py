"""The power divergences: chi-squared (``M - 1``) and Renyi (``log(M) / (alpha - 1)``),
both of the moment ``M = sum_i q_i^alpha p_i^(1 - alpha)``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cvxpb.numerics.constants import conjugate
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, LARGEST, nudge
from cvxpb.pac_bayes.distances import KLDistance, Linear, Squared

if TYPE_CHECKING:
    import cvxpy as cp

from cvxpb.pac_bayes.divergence import _LEAST_NORMAL, Divergence, _least, _root_of_total


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
