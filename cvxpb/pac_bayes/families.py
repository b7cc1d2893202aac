"""The one-parameter families that contain every optimal posterior.

Each bound is increasing in ``L(q)`` and in a convex divergence, so an optimal
``q`` minimizes ``L + mu * div`` for some ``mu``:

* chi-squared: ``q_i(nu) = p_i (nu - l_i)_+ / sum_j p_j (nu - l_j)_+``, ``nu > min l``;
* KL:          ``q_i(beta) = p_i exp(-beta l_i) / sum_j p_j exp(-beta l_j)`` (Gibbs).

Both are parametrized by ``v`` with ``t = scale * exp(v)`` (``nu = min l + t``,
``beta = t``); ``v = -V_MAX`` and ``v = V_MAX`` are the two limits ``t = 0`` and ``inf``.
Along the chi-squared family ``L`` rises and ``D`` falls with ``x``; along the
Gibbs family ``L`` falls and ``KL`` rises. That monotonicity is what makes the
interval lower bounds of the branch and bound valid.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from cvxpb.numerics.summation import PREFIX_BLOCK, prefix_sums
from cvxpb.numerics.tolerances import EPS

CHUNK = 1 << 21  # numbers in a points x classifiers block of GibbsFamily.stats (16 MB)
FRONTIER_CELLS = 128  # cells of L an interval is cut into by frontier_cells
GIBBS_GRID = 65  # first points of the Gibbs search: each costs O(H); the frontier closes fast
V_MAX = 800.0  # exp(-800) = 0 and exp(800) = inf in floating point: the two limits


def scaled_parameter(v, scale):
    """Map ``v`` to ``t = scale * exp(v)``; ``v = -V_MAX`` is ``t = 0``, ``V_MAX`` is ``inf``.

    Searching in ``v = log(t / scale)`` keeps the relative resolution of ``t`` at a
    few ulps everywhere (a logistic ``x = t / (scale + t)`` loses it as ``x -> 1``).

    Parameters
    ----------
    v : float or ndarray
        Points of ``v``.
    scale : float
        The family's scale.

    Returns
    -------
    float or ndarray
        ``t``.
    """
    with np.errstate(over="ignore"):
        return scale * np.exp(np.asarray(v, dtype=float))


def distinct_risks(risks, prior):
    """Sort the distinct risks that carry prior mass.

    Parameters
    ----------
    risks, prior : ndarray of shape (H,)
        The classifiers' empirical risks and the prior.

    Returns
    -------
    u_1 : float
        The smallest risk with prior mass.
    d : ndarray
        The sorted distinct risks' gaps ``d = u - u_1`` above it.
    w : ndarray
        The prior mass on each (zero-mass risks dropped).
    """
    support = prior > 0
    values, inverse = np.unique(risks[support], return_inverse=True)
    return values[0], values - values[0], np.bincount(inverse, weights=prior[support])


def segment_of(d, t):
    """Find the segment ``k`` (``d_k < t <= d_{k+1}``) of each ``t``.

    Parameters
    ----------
    d : ndarray
        The sorted gaps of the distinct risks.
    t : ndarray
        Values of ``t >= 0``.

    Returns
    -------
    ndarray of int
        The segments; 0 for ``t = 0``.
    """
    return np.maximum(np.searchsorted(d, t, side="left"), 1) - 1


def initial_grid(breaks=None, n=257):
    """Give the first points of ``v`` in ``[-V_MAX, V_MAX]``.

    Parameters
    ----------
    breaks : ndarray, optional
        Points to include (where the family's support changes).
    n : int, default=257
        Points spread evenly over 26 decades of ``t``.

    Returns
    -------
    ndarray
        The sorted points, the two ends and ``breaks`` included.
    """
    points = [np.array([-V_MAX, V_MAX]), np.linspace(-30, 30, n)]
    if breaks is not None:
        points.append(breaks)
    return np.unique(np.clip(np.concatenate(points), -V_MAX, V_MAX))


class Family:
    """The protocol of a one-parameter family of posteriors; see the module's text.

    ``method="exact"`` searches the family by branch and bound over ``v`` in
    ``[-V_MAX, V_MAX]``; ``L`` is monotone along it (``L_increasing``) and the
    divergence's argument the other way, which is what makes the lower bounds on its
    intervals valid.

    Attributes
    ----------
    parameter : {"nu", "beta"}
        The family's parameter, as the certificate names it.
    L_increasing : bool
        Whether ``L`` rises with ``v`` (the divergence then falls).
    frontier_pairs : callable or None
        ``frontier_pairs(a, b)``, the second-order lower bounds of the families on a
        convex frontier (:func:`frontier_cells`); None for the others.
    """

    parameter = ""
    L_increasing = True
    frontier_pairs = None

    def breaks(self):
        """Give the points of ``v`` where the family's support changes.

        Returns
        -------
        ndarray or None
            The points; None where the support never changes.
        """
        return None

    def grid(self):
        """Give the first points of the search.

        Returns
        -------
        ndarray
            Points of ``v`` (:func:`initial_grid` with :meth:`breaks`).
        """
        return initial_grid(self.breaks())

    def parameter_value(self, x):
        """Evaluate the family's parameter (``nu`` or ``beta``) at ``v = x``.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v``.

        Returns
        -------
        float or ndarray
            The parameter.
        """
        raise NotImplementedError

    def program_weight(self, parameter: float) -> float:
        """Give the ``mu`` at which the member at ``parameter`` solves the family's program.

        The program is ``min l @ q + mu core(q)`` on the simplex, ``core`` the
        divergence's (:meth:`cvxpb.Divergence.expr`).

        Parameters
        ----------
        parameter : float
            The family's parameter (``nu`` or ``beta``), as a certificate reports it.

        Returns
        -------
        float
            The weight, at least 0 (0 and inf at the family's two limits).
        """
        raise NotImplementedError

    def support_size(self, x):
        """Count the distinct risk values the posterior at ``v = x`` puts mass on.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v``.

        Returns
        -------
        ndarray of int
            The support sizes.
        """
        raise NotImplementedError

    def stats(self, x):
        """Evaluate ``(L, div)`` along the family, vectorized over ``x``.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v``.

        Returns
        -------
        L : ndarray
            The Gibbs risk.
        div : ndarray
            The divergence's argument.
        """
        raise NotImplementedError

    def stats_segment(self, k, s):
        """Evaluate ``(L, div)`` at ``t = d_k + s`` on segment ``k``, ``s`` apart from ``d_k``.

        Parameters
        ----------
        k : ndarray of int
            Segments of the sorted distinct risks.
        s : ndarray
            Offsets ``s >= 0`` from ``d_k``, which may be far below the resolution of
            ``t``.

        Returns
        -------
        L : ndarray
            The Gibbs risk.
        div : ndarray
            The divergence's argument.
        """
        raise NotImplementedError(f"{type(self).__name__} has no segments")

    def lower_terms(self, x, L, div):
        """Move ``(L, div)`` down by their rounding error, for lower bounds.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v`` they were evaluated at.
        L, div : ndarray
            The statistics there.

        Returns
        -------
        L : ndarray
            ``L`` rounded down.
        div : ndarray
            ``div`` rounded down.
        """
        raise NotImplementedError

    def posterior(self, x) -> np.ndarray:
        """Give the posterior at ``v = x`` over all H classifiers, computed directly.

        Parameters
        ----------
        x : float
            A point of ``v``.

        Returns
        -------
        ndarray of shape (H,)
            The posterior (the limits ``t = 0`` and ``t = inf`` included).
        """
        raise NotImplementedError


class NuFamily(Family):
    """The families ``q ∝ p (nu - l)_+^e`` of the chi-squared and Renyi divergences.

    Notes
    -----
    ``nu = u_1 + t``, ``t = scale * exp(v)``; the support is the distinct risks below
    ``nu``, and it changes where ``nu`` crosses one (:meth:`breaks`).
    """

    parameter = "nu"
    L_increasing = True
    e = 1.0  # the exponent of (nu - l)_+ in the family

    def breaks(self):
        # the v at which nu crosses a distinct risk value (the first is t = 0)
        with np.errstate(divide="ignore"):
            return np.maximum(np.log(self.d / self.scale), -V_MAX)

    def parameter_value(self, x):
        return self.nu(x)

    def program_weight(self, parameter: float) -> float:
        # q = p (nu - l)_+^e / Z is stationary for l @ q + mu sum p^(1-a) q^a, a = 1 + 1/e,
        # where l_i + mu a (nu - l_i) / Z^(a-1) is constant: mu = Z^(a-1) / a
        a = 1 + 1 / self.e
        with np.errstate(divide="ignore"):
            gaps = np.log(np.clip(parameter - self.risks, 0, None))
            log_z = logsumexp(np.log(self.prior) + self.e * gaps)
        return float(np.exp((a - 1) * log_z) / a)

    def nu(self, x):
        """Evaluate ``nu = u_1 + scale exp(x)``.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v``.

        Returns
        -------
        float or ndarray
            ``nu``.
        """
        return self.u1 + scaled_parameter(x, self.scale)

    def support_size(self, x):
        # how many distinct risk values lie strictly below nu(x)
        t = scaled_parameter(x, self.scale)
        return np.maximum(np.searchsorted(self.d, t, side="left"), 1)

    def posterior(self, x) -> np.ndarray:
        # q(nu(x)) ∝ p (1 - (l - u_1)/t)_+^e over all H classifiers, computed directly
        # (not by cumulative sums), with the limits t = 0 and t = inf
        t = float(scaled_parameter(x, self.scale))
        gap = self.risks - self.u1
        if t == 0:
            weights = np.where(gap == 0, self.prior, 0.0)
        elif np.isinf(t):
            weights = self.prior.copy()
        else:
            weights = self.prior * np.clip((t - gap) / t, 0.0, None) ** self.e
        return weights / weights.sum()


class Chi2Family(NuFamily):
    """The chi-squared family ``q(nu) ∝ p (nu - l)_+``, minimizers of ``L + mu sum q^2/p``.

    Parameters
    ----------
    risks, prior : ndarray of shape (H,)
        The classifiers' empirical risks and the prior.

    Notes
    -----
    On segment ``k`` of the sorted distinct risks (``d_k < t <= d_{k+1}``, with
    ``d = u - u_1``, ``t = nu - u_1`` and ``s = t - d_k >= 0``), every sum is written
    with non-negative terms only, so that prior weights of very different sizes
    cannot cancel (cumulative sums of ``p d^j`` did, just above a breakpoint)::

        t Z        = sum w (t - d)       = s W_k + B_k
        t Z (L-u1) = sum w (t - d) d     = s M_k + C_k
        t^2 Z^2 D  = sum w (t - d)^2     = s^2 W_k + 2 s B_k + E_k

    with ``W_k = sum_{j<=k} w_j``, ``M_k = sum w_j d_j`` and, by recursions of
    non-negative terms over ``Delta_k = d_{k+1} - d_k``,
    ``B_{k+1} = B_k + W_k Delta_k``, ``C_{k+1} = C_k + M_k Delta_k``,
    ``E_{k+1} = E_k + 2 Delta_k B_k + Delta_k^2 W_k``.
    """

    def __init__(self, risks, prior):
        self.risks, self.prior = risks, prior
        self.u1, self.d, w = distinct_risks(risks, prior)
        self.scale = max(float(self.d[-1]), 1e-12)
        W, M = prefix_sums(w), prefix_sums(w * self.d)
        step = np.diff(self.d)
        B = np.concatenate([[0.0], prefix_sums(W[:-1] * step)])
        C = np.concatenate([[0.0], prefix_sums(M[:-1] * step)])
        E = np.concatenate([[0.0], prefix_sums(step * (2 * B[:-1] + step * W[:-1]))])
        self.sums = (W, M, B, C, E)
        # each prefix sum of non-negative terms is within (PREFIX_BLOCK + 2) eps of its
        # value, whatever H; the factor 8 covers the chain W -> B -> E and the formulas
        n = min(self.d.size, PREFIX_BLOCK)
        self.relative_error = 8 * (n + 8) * EPS

    def stats(self, x):
        # ``(L, D)`` along the family, vectorized over ``x``.
        t = np.atleast_1d(scaled_parameter(x, self.scale))
        k = segment_of(self.d, t)
        finite = np.isfinite(t)
        L, D = Chi2Family.stats_segment(self, k, np.where(finite, t - self.d[k], 1.0))
        total_W, total_M = self.sums[0][-1], self.sums[1][-1]
        L = np.where(finite, L, self.u1 + total_M / total_W)
        D = np.where(finite, D, 1 / total_W)
        zero = t == 0
        return np.where(zero, self.u1, L), np.where(zero, 1 / self.sums[0][0], D)

    def stats_segment(self, k, s):
        # ``(L, D)`` at ``t = d_k + s`` on segment ``k`` (``0 <= s``), with ``s`` given
        # apart from ``d_k``, so that it can be far below the resolution of ``t``.
        k, s = np.broadcast_arrays(np.asarray(k), np.asarray(s, dtype=float))
        W, M, B, C, E = (v[k] for v in self.sums)
        # divided through by W: M/W, B/W <= d_k and C/W, E/W <= d_k^2, so with a = s + B/W
        # every ratio is bounded (s/a <= 1, (s + 2B/W)/a <= 2) and nothing under- or
        # overflows, whatever the sizes of s and of the prior weights
        m_, b_, c_, e_ = M / W, B / W, C / W, E / W
        with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
            a = s + b_
            L = self.u1 + (s / a) * m_ + c_ / a
            D = ((s / a) * ((s + 2 * b_) / a) + (e_ / a) / a) / W
        at_break = a == 0  # s = 0 on the first segment: the lowest risks alone
        return np.where(at_break, self.u1, L), np.where(at_break, 1 / W, D)

    def lower_terms(self, x, L, D):
        # ``(L, D)`` moved down by their rounding error, for lower bounds.
        shrink = 1 - 4 * self.relative_error
        return self.u1 + (L - self.u1) * shrink, D * shrink

    def frontier_pairs(self, a, b, cells: int = FRONTIER_CELLS):
        """Give pairs ``(L, D)`` that bound ``g`` from below on intervals of ``v``.

        See :func:`frontier_cells`. With ``q_i / p_i = (nu - l_i) / Z`` on the support,
        ``D = (nu - L) / Z``, and the frontier's slope is ``-2/Z = -2 D / (nu - L)``;
        ``L`` rises and ``D`` falls with ``nu``. The slope is computed, so each line also
        gives way by its relative error times the interval's width in ``L``.

        Parameters
        ----------
        a, b : tuple of ndarray
            ``(x, L, div)`` at the intervals' ends.
        cells : int, default=FRONTIER_CELLS
            Cells of ``L`` each interval is cut into.

        Returns
        -------
        L : ndarray
            The cells' left ends in ``L``.
        div : ndarray
            The least divergence argument on each cell.
        """
        (xa, La, Da), (xb, Lb, Db) = a, b
        La_low, Da_low = self.lower_terms(xa, La, Da)
        Lb_low, Db_low = self.lower_terms(xb, Lb, Db)
        Lb_high = Lb + (Lb - Lb_low) + 4 * EPS * np.abs(Lb)
        width = Lb_high - La_low
        lines = []
        for x, L, D, L_low, D_low in ((xa, La, Da, La_low, Da_low), (xb, Lb, Db, Lb_low, Db_low)):
            t, gap = scaled_parameter(x, self.scale), L - self.u1
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                room = t - gap  # nu - L
                slope = 2 * D / room
                error = (gap - (L_low - self.u1) + 2 * EPS * t) / room + 8 * self.relative_error
                usable = (room > 0) & (error < 0.5)
                lines.append(
                    (
                        np.where(usable, D_low + slope * L_low, np.nan),
                        np.where(usable, slope, np.nan),
                        slope * error * width,
                    )
                )
        return frontier_cells(La_low, Lb_high, lines, Db_low, cells)


class Chi2AsRenyi(Chi2Family):
    """The chi-squared family, reporting the order-2 Renyi divergence ``log(sum q^2/p)``.

    Parameters
    ----------
    risks, prior : ndarray of shape (H,)
        The classifiers' empirical risks and the prior.
    """

    frontier_pairs = None  # its divergence, log D, is not convex along the frontier

    def stats(self, x):
        L, D = super().stats(x)
        with np.errstate(divide="ignore"):
            return L, np.log(D)

    def stats_segment(self, k, s):
        L, D = super().stats_segment(k, s)
        with np.errstate(divide="ignore"):
            return L, np.log(D)

    def lower_terms(self, x, L, D):
        L, _ = super().lower_terms(x, L, 1.0)
        return L, D - 4 * self.relative_error


class RenyiFamily(NuFamily):
    """The Renyi family ``q(nu) ∝ p (nu - l)_+^(1/(alpha-1))``, of ``L + mu sum q^a p^(1-a)``.

    Parameters
    ----------
    risks, prior : ndarray of shape (H,)
        The classifiers' empirical risks and the prior.
    alpha : float
        The order, > 1.

    Notes
    -----
    With ``t = nu - u_1``, ``d = u - u_1``, ``z = (t - d)_+ / t in [0, 1]`` and
    ``e = 1/(alpha - 1)``, in log space (``z^e`` underflows as ``alpha -> 1`` and the
    weights may be tiny): ``L = u_1 + sum w z^e d / sum w z^e`` and
    ``D_alpha = (log sum w z^(alpha e) - alpha log sum w z^e) / (alpha - 1)``.
    Evaluated directly, ``O(points x distinct risks)``.
    """

    def __init__(self, risks, prior, alpha):
        self.risks, self.prior, self.alpha = risks, prior, alpha
        self.u1, self.d, self.w = distinct_risks(risks, prior)
        self.log_w = np.log(self.w)
        self.scale = max(float(self.d[-1]), 1e-12)
        self.e = 1 / (alpha - 1)

    def stats(self, x):
        # ``(L, D_alpha)`` along the family, vectorized over ``x``.
        t = np.atleast_1d(scaled_parameter(x, self.scale))
        positive = t > 0
        tp = np.where(positive & np.isfinite(t), t, 1.0)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.clip((tp - self.d[None, :]) / tp, 0.0, None)
            z = np.where(np.isinf(t)[:, None], 1.0, z)
            z = np.where(positive[:, None], z, (self.d == 0)[None, :].astype(float))
        return self._stats_of(z)

    def stats_segment(self, k, s):
        # ``(L, D_alpha)`` at ``t = d_k + s``, with ``s`` apart from ``d_k`` (it may be
        # far below the resolution of ``t``): classifier ``k`` enters with
        # ``z_k = s / t``.
        k, s = np.broadcast_arrays(np.atleast_1d(k), np.atleast_1d(np.asarray(s, dtype=float)))
        t = (self.d[k] + s)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.clip((t - self.d[None, :]) / t, 0.0, None)
            z = np.where(np.arange(self.d.size)[None, :] > k[:, None], 0.0, z)
            entering = np.where(t[:, 0] > 0, s / t[:, 0], 0.0)
        z[np.arange(k.size), k] = np.where(k > 0, entering, 1.0)
        return self._stats_of(z)

    def _stats_of(self, z):
        with np.errstate(divide="ignore"):
            log_z = np.log(z)
        log_base = self.log_w + self.e * log_z
        log_total = logsumexp(log_base, axis=1)
        weights = np.exp(log_base - log_total[:, None])
        L = self.u1 + weights @ self.d
        log_moment = logsumexp(self.log_w + self.alpha * self.e * log_z, axis=1)
        D = (log_moment - self.alpha * log_total) / (self.alpha - 1)
        return L, np.maximum(D, 0.0)

    def lower_terms(self, x, L, D):
        # Rounding: the log-sum-exps are accurate to a few ulps of their size.
        size = np.max(np.abs(self.log_w)) * (1 + self.alpha) + 1
        margin = 64 * EPS * size / (self.alpha - 1)
        return self.u1 + (L - self.u1) * (1 - 64 * EPS), D - margin


class GibbsFamily(Family):
    """The Gibbs family ``q(beta) ∝ p exp(-beta l)``, the minimizers of ``L + KL / beta``.

    Parameters
    ----------
    risks, prior : ndarray of shape (H,)
        The classifiers' empirical risks and the prior.
    """

    parameter = "beta"
    L_increasing = False

    def __init__(self, risks, prior):
        self.risks, self.prior = risks, prior
        self.u1, self.d, weights = distinct_risks(risks, prior)
        self.log_w = np.log(weights)
        self.scale = 1.0 / max(float(self.d[-1]), 1e-12)

    def grid(self):
        return initial_grid(None, GIBBS_GRID)

    def parameter_value(self, x):
        return self.beta(x)

    def program_weight(self, parameter: float) -> float:
        # p exp(-beta l) / Z minimizes l @ q + KL(q, p) / beta
        return float(np.inf if parameter == 0 else 1 / parameter)

    def beta(self, x):
        """Evaluate ``beta = scale exp(x)``.

        Parameters
        ----------
        x : float or ndarray
            Points of ``v``.

        Returns
        -------
        float or ndarray
            ``beta``.
        """
        return scaled_parameter(x, self.scale)

    def support_size(self, x):
        t = np.atleast_1d(scaled_parameter(x, self.scale))
        return np.where(np.isinf(t), 1, self.d.size)

    def stats(self, x):
        # ``(L, KL)`` along the family, vectorized over ``x`` (log-sum-exp), in chunks
        # of points so that memory stays near ``CHUNK`` numbers whatever ``H``.
        x = np.atleast_1d(np.asarray(x, dtype=float))
        step = max(CHUNK // self.d.size, 1)
        if x.size <= step:
            return self._stats(x)
        parts = [self._stats(x[i : i + step]) for i in range(0, x.size, step)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _stats(self, x):
        beta = np.atleast_1d(scaled_parameter(x, self.scale))
        finite = np.isfinite(beta)
        b = np.where(finite, beta, 0.0)[:, None]
        weights = np.multiply(b, self.d[None, :])  # one block, worked in place
        np.subtract(self.log_w[None, :], weights, out=weights)  # the logits
        top = weights.max(axis=1, keepdims=True)
        weights -= top
        np.exp(weights, out=weights)
        total = weights.sum(axis=1)
        mean_gap = (weights @ self.d) / total
        log_z = top[:, 0] + np.log(total)
        L = self.u1 + mean_gap
        K = np.maximum(-b[:, 0] * mean_gap - log_z, 0.0)  # KL = -beta (L - u_1) - log Z
        L = np.where(finite, L, self.u1)
        K = np.where(finite, K, -self.log_w[0])
        return L, K

    def lower_terms(self, x, L, K):
        # Rounding: ``KL = -beta (L - u_1) - log Z`` is a difference; allow for its size.
        eps = EPS
        beta = np.where(np.isfinite(self.beta(x)), self.beta(x), 0.0)
        size = beta * (L - self.u1) + np.max(np.abs(self.log_w)) + np.abs(K) + 1
        margin = 64 * eps * size
        return self.u1 + (L - self.u1) * (1 - 64 * eps), K - margin

    def frontier_pairs(self, a, b, cells: int = FRONTIER_CELLS):
        """Give pairs ``(L, KL)`` that bound ``g`` from below on intervals of ``v``.

        See :func:`frontier_cells`: ``dKL/dbeta = -beta dL/dbeta``, so the frontier's
        slope at ``beta`` is ``-beta``, exactly; ``L`` falls and ``KL`` rises with
        ``beta``.

        Parameters
        ----------
        a, b : tuple of ndarray
            ``(x, L, div)`` at the intervals' ends.
        cells : int, default=FRONTIER_CELLS
            Cells of ``L`` each interval is cut into.

        Returns
        -------
        L : ndarray
            The cells' left ends in ``L``.
        div : ndarray
            The least divergence argument on each cell.
        """
        (xa, La, Ka), (xb, Lb, Kb) = a, b
        beta_a = np.where(np.isfinite(self.beta(xa)), self.beta(xa), 0.0)
        beta_b = self.beta(xb)
        La_low, Ka_low = self.lower_terms(xa, La, Ka)
        Lb_low, Kb_low = self.lower_terms(xb, Lb, Kb)
        La_high = La + (La - La_low) + 4 * EPS * np.abs(La)
        zero = np.zeros_like(La)
        lines = [
            (Ka_low + beta_a * La_low, beta_a, zero),
            (Kb_low + beta_b * Lb_low, beta_b, zero),
        ]
        return frontier_cells(Lb_low, La_high, lines, Ka_low, cells)

    def posterior(self, x) -> np.ndarray:
        beta = float(scaled_parameter(x, self.scale))
        gap = self.risks - self.u1
        if np.isinf(beta):
            weights = np.where(gap == 0, self.prior, 0.0)
            return weights / weights.sum()
        with np.errstate(divide="ignore"):
            logits = np.log(self.prior) - beta * gap
        return np.exp(logits - logsumexp(logits))


def frontier_cells(left, right, lines, floor, cells: int = FRONTIER_CELLS):
    """Give pairs ``(L, div)`` below which no posterior with ``L`` in ``[left, right]`` lies.

    The families trace the frontier ``div*(L) = min {div(q) : L(q) <= L}`` of a
    divergence convex in ``q``; it is convex and decreasing, so it lies above its
    tangent at each end of an interval, ``div >= c - s L`` for each ``(c, s, margin)``
    in ``lines`` (less ``margin`` and the lines' own rounding), and above ``floor``.
    On each of ``cells`` cells ``[l_j, l_j+1]``, a bound ``g`` increasing in both is
    at least ``g(l_j, tau(l_j+1))``, ``tau`` the largest of those lines. This is
    second-order accurate in the interval's width, where the ends' pair is first-order.

    Parameters
    ----------
    left, right : ndarray
        Each interval's range of ``L``.
    lines : list of tuple of ndarray
        ``(intercept, slope, margin)`` of the tangents.
    floor : ndarray
        A lower bound on the divergence's argument on each interval.
    cells : int, default=FRONTIER_CELLS
        Cells each interval is cut into.

    Returns
    -------
    L : ndarray
        The cells' left ends.
    div : ndarray
        The least divergence argument on each cell.
    """
    grid = np.linspace(0.0, 1.0, cells + 1)
    ells = left[:, None] + grid * (right - left)[:, None]
    ends = ells[:, 1:]
    tau = np.broadcast_to(floor[:, None], ends.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        for intercept, slope, margin in lines:
            usable = np.isfinite(intercept) & np.isfinite(slope) & np.isfinite(margin)
            c = np.where(usable, intercept, 0.0)[:, None]
            s = np.where(usable, slope, 0.0)[:, None]
            line = c - s * ends - 8 * EPS * (np.abs(c) + np.abs(s * ends)) - margin[:, None]
            tau = np.maximum(tau, np.where(usable[:, None], line, -np.inf))
    return ells[:, :-1], tau
