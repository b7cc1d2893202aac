"""The KL divergence, its own core, with the closed forms the engines use."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, nudge
from cvxpb.pac_bayes.distances import Catoni, KLDistance, Linear, Squared

if TYPE_CHECKING:
    import cvxpy as cp

from cvxpb.pac_bayes.divergence import Divergence, _least


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
