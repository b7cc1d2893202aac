"""The supremum ``I = sup_l sum_k Bin(k; m, l) phi(k/m, l)^P`` in log space, certified from above.

``F(l) = sum_k f_k(l)``, ``f_k = Bin(k; m, l) phi(k/m, l)^P``, is symmetric about 1/2
for the three distances, so the supremum is taken over ``(0, 1/2]``:

1. **Search.** ``log F`` on a grid in ``log l``; the largest value is a lower bound.
2. **Certificate on a cell** ``[a, b]`` with centre ``c``: ``log Bin(k; m, .)`` is
   concave, so it lies below its tangent at ``c``; ``phi(x, .)`` is convex on a cell
   that does not hold ``x`` inside (``|x - l|`` is even linear there), so it lies below
   its chord, and the log of the chord below its tangent at ``c``. Hence
   ``f_k(c + h) <= exp(B_k + g_k h)`` for ``|h| <= (b - a)/2``, and the sum of these
   exponentials, convex in ``h``, is largest at an end of the cell. A ``k`` with
   ``x = k/m`` inside the cell takes ``max(phi(x, a), phi(x, b))``. Terms outside the
   summed window are bounded by Chernoff, ``P(K >= m y) <= exp(-m kl(y, l))``.
   The bound is second-order accurate, so the cells near the maximum close fast.
3. **Below the grid**, on ``[0, l_1]``, every ``f_k`` is increasing (see
   :meth:`MomentFunction.first_cell_end`), so ``F <= F(l_1)`` there.

Cells whose bound exceeds the best value found by more than ``RTOL`` are halved;
the returned upper end also carries the floating-point error of the sums.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.numerics.binomial import log_pmf
from cvxpb.numerics.kl import kl_unchecked as kl
from cvxpb.numerics.tolerances import EPS

RTOL = 1e-12  # relative width of the certified bracket
NEGLIGIBLE = 40.0  # terms below exp(-40) times the largest go to the tail bound
MAX_WINDOW = 2_000_000  # terms summed at one point at the most
MAX_ROUNDS = 80


def logsumexp(values) -> float:
    """Evaluate ``log sum exp(values)`` of a 1-D array or list.

    Parameters
    ----------
    values : array_like
        The exponents.

    Returns
    -------
    float
        The value; ``-inf`` if all are ``-inf``.
    """
    values = np.asarray(values, dtype=float)
    top = np.max(values)
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(np.sum(np.exp(values - top))))


class Gap:
    """A distance ``phi(x, l)`` between an empirical and a true risk, as the moments need it.

    The numerics know three, by the names of :data:`GAPS`; each says its value and where
    its moment's first cell ends (:meth:`MomentFunction.first_cell_end`).
    """

    max_power = math.inf
    """The largest power of ``phi`` whose moment is certified."""

    def phi(self, x, l):
        """Evaluate the distance.

        Parameters
        ----------
        x : array_like
            Empirical risks.
        l : array_like
            True risks.

        Returns
        -------
        ndarray
            ``phi(x, l)``.
        """
        raise NotImplementedError

    def first_cell_end(self, m: int, power: float) -> float:
        """An ``l_1`` below which every ``f_k`` of the moment increases.

        Parameters
        ----------
        m : int
            The sample size.
        power : float
            The power of ``phi``.

        Returns
        -------
        float
            ``l_1``.
        """
        raise NotImplementedError


class AbsoluteGap(Gap):
    """``|x - l|``: the linear distance."""

    def phi(self, x, l):
        return np.abs(x - l)

    def first_cell_end(self, m, power):
        return 1 / (m * (2 * power + 4))


class SquaredGap(Gap):
    """``(x - l)^2``: the squared distance."""

    def phi(self, x, l):
        return (x - l) ** 2

    def first_cell_end(self, m, power):
        return 1 / (m * (4 * power + 4))


class BinaryKL(Gap):
    """``kl(x, l)``: the binary kl divergence."""

    max_power = 101.0  # alpha' <= 101, that is alpha >= 1.01

    def phi(self, x, l):
        return kl(x, l)

    def first_cell_end(self, m, power):
        return math.exp(-(2 * power + 1)) / (4 * m)


GAPS = {"linear": AbsoluteGap(), "sq": SquaredGap(), "kl": BinaryKL()}
"""The distances the numerics know, by the names the constants take."""


class MomentFunction:
    """The moment ``F(l) = sum_k Bin(k; m, l) phi(k/m, l)^power`` of a distance.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    distance : {"linear", "sq", "kl"}
        The distance ``phi``.
    power : float
        The power ``alpha'`` of ``|phi|``.
    """

    def __init__(self, m: int, distance: str, power: float):
        self.m, self.distance, self.power = m, distance, float(power)
        self.gap = GAPS[distance]

    def phi(self, x, l):
        """Evaluate the distance: ``|x - l|``, ``(x - l)^2`` or ``kl(x, l)``.

        Parameters
        ----------
        x, l : array_like
            Empirical and true risks.

        Returns
        -------
        ndarray
            The distance.
        """
        return self.gap.phi(x, l)

    def log_terms(self, k, l):
        """Evaluate ``log f_k(l)`` for integer ``k``.

        Parameters
        ----------
        k : array_like
            Counts.
        l : float
            The success probability, in (0, 1).

        Returns
        -------
        ndarray
            ``log f_k(l)``, ``-inf`` where ``f_k = 0``.
        """
        with np.errstate(divide="ignore"):
            return log_pmf(k, self.m, l) + self.power * np.log(self.phi(k / self.m, l))

    def first_cell_end(self) -> float:
        """Find an ``l_1`` below which every ``f_k`` increases, so ``F(l) <= F(l_1)`` there.

        With ``d/dl log f_k = k/l - (m-k)/(1-l) + power (log phi)'``, times ``l(1-l)``:
        ``k - m l + power l(1-l) (log phi)'``. For ``k >= 1`` (``x >= 1/m``) this is
        positive once ``m l <= 1/4`` and the last term is at most 1/2: for
        ``phi = |x - l|^e`` that is ``l <= x / (2 e power + 1)``; for kl, with
        ``kl(x, l) >= x (log(x/l) - 1)`` and ``|kl'| <= x / (l(1-l))``, it is
        ``log(x/l) >= 2 power + 1``. For ``k = 0`` (``f_0 = (1-l)^m phi(0, l)^power``)
        it holds for ``l < power / (2m)``, which the same ``l_1`` satisfies.

        Returns
        -------
        float
            ``l_1``.
        """
        return self.gap.first_cell_end(self.m, self.power)

    # -- sums over a window of k, the rest bounded by Chernoff ---------------------

    def _reference(self, l):
        """A lower bound on ``log F(l)``: the largest of a few terms."""
        m = self.m
        spread = math.sqrt(m * l * (1 - l))
        k = np.unique(np.clip(np.round([0, m, m * l, m * l - spread, m * l + spread]), 0, m))
        return float(np.max(self.log_terms(k, l)))

    def _window(self, a, b):
        """``(k, log tail)``: the k summed for ``l in [a, b]`` and a bound on the rest.

        Above the window (``K >= m y``, ``y > b``): ``P <= exp(-m kl(y, b))`` for every
        ``l <= b``, and ``phi(x, l)`` grows with ``x > l``, so the rest is at most
        ``exp(-m kl(y, b)) phi(1, a)^power``; below, likewise with ``phi(0, b)``.
        """
        m, c = self.m, 0.5 * (a + b)
        with np.errstate(divide="ignore"):
            log_ends = self.power * np.log(self.phi(np.array([1.0, 0.0]), np.array([a, b])))
        log_top = float(np.max(log_ends))
        excess = max(log_top - self._reference(c), 0.0) + NEGLIGIBLE
        half = math.sqrt(2 * excess * m * c * (1 - c)) + 2 * excess + 2
        while True:
            k_lo = max(int(math.floor(m * a - half)), 0)
            k_hi = min(int(math.ceil(m * b + half)), m)
            y = np.array([min((k_hi + 1) / m, 1.0), max((k_lo - 1) / m, 0.0)])
            chernoff = -m * kl(y, np.array([b, a])) + log_ends
            tails = chernoff[[k_hi < m, k_lo > 0]]
            tail = logsumexp(tails) if tails.size else -np.inf
            if tail <= log_top - excess or (k_lo == 0 and k_hi == m) or half > MAX_WINDOW:
                return np.arange(k_lo, k_hi + 1, dtype=float), tail
            half *= 2

    def log_value(self, l: float) -> tuple[float, float]:
        """Evaluate ``log F(l)`` with a bound on its rounding error.

        Parameters
        ----------
        l : float
            The success probability, in (0, 1).

        Returns
        -------
        value : float
            An upper estimate of ``log F(l)``.
        error : float
            A bound on its rounding error.
        """
        k, tail = self._window(l, l)
        terms = self.log_terms(k, l)
        return float(np.logaddexp(logsumexp(terms), tail)), self._rounding(k, l, terms)

    def _rounding(self, k, l, terms) -> float:
        """A bound on the absolute error of ``log F``: each ``log f_k`` is a sum of a
        few terms as large as ``m kl(x, l)``, ``power |log phi|`` and ``log m``, each
        accurate to a few ulps; only terms within ``NEGLIGIBLE`` of the largest count."""
        top = np.max(terms)
        if not np.isfinite(top):
            return 0.0
        near = terms >= top - NEGLIGIBLE
        x = k[near] / self.m
        with np.errstate(divide="ignore", invalid="ignore"):
            size = self.m * kl(x, l) + self.power * np.abs(np.log(self.phi(x, l)))
        size = np.where(np.isfinite(size), size, 0.0)
        return float(64 * EPS * (np.max(size) + np.log(self.m) + 10))

    def log_cell_bound(self, a: float, b: float) -> float:
        """Bound ``log F`` above over ``[a, b]`` (module docstring, step 2).

        Parameters
        ----------
        a, b : float
            The cell's ends, ``0 < a < b <= 1/2``.

        Returns
        -------
        float
            An upper bound on ``log F`` over the cell.
        """
        m, c, r = self.m, 0.5 * (a + b), 0.5 * (b - a)
        k, tail = self._window(a, b)
        x = k / m
        slope_b = (k - m * c) / (c * (1 - c))  # d/dl log Bin(k; m, l) at c
        pa, pb = self.phi(x, np.array([[a], [b]]))
        inside = (x > a) & (x < b)
        mean = 0.5 * (pa + pb)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_phi = np.log(np.where(inside, np.maximum(pa, pb), mean))
            slope_phi = np.where(inside | (mean == 0), 0.0, (pb - pa) / (b - a) / mean)
            base = log_pmf(k, m, c) + self.power * log_phi
        slope = slope_b + self.power * slope_phi
        ends = max(logsumexp(base - r * slope), logsumexp(base + r * slope))
        return float(np.logaddexp(ends, tail))


def _grid(lo: float, n_per_decade: int = 8) -> np.ndarray:
    decades = math.log10(0.5 / lo)
    return np.geomspace(lo, 0.5, max(int(decades * n_per_decade), 16) + 1)


def log_supremum(m: int, distance: str, power: float) -> tuple[float, float, float]:
    """Bracket ``log sup_l F(l)``: ``[lower, upper]``, the upper end certified.

    ``lower`` is ``log F(l_star)`` (up to rounding); ``upper`` is certified: every
    cell of ``(0, 1/2]`` was shown to stay below it, rounding errors included.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    distance : {"linear", "sq", "kl"}
        The distance ``phi``.
    power : float
        The power ``alpha'`` of ``|phi|``.

    Returns
    -------
    upper : float
        The certified upper bound.
    lower : float
        ``log F(l_star)``.
    l_star : float
        The best point found.

    Raises
    ------
    ValueError
        If the cells do not close within ``MAX_ROUNDS`` halvings.
    """
    F = MomentFunction(m, distance, power)
    points = _grid(F.first_cell_end())
    values, errors = zip(*(F.log_value(l) for l in points), strict=True)
    values = np.asarray(values)
    best = int(np.argmax(values))
    best_value, best_l, error = float(values[best]), float(points[best]), max(errors)
    threshold = best_value + math.log1p(RTOL)
    cells = [(points[i], points[i + 1]) for i in range(points.size - 1)]
    ceiling = -np.inf  # the largest bound of a cell that was closed
    for _ in range(MAX_ROUNDS):
        bounds = np.array([F.log_cell_bound(a, b) for a, b in cells])
        open_ = bounds > threshold
        ceiling = max(ceiling, float(np.max(bounds[~open_], initial=-np.inf)))
        cells = [cell for cell, keep in zip(cells, open_, strict=True) if keep]
        if not cells:
            break
        halves = []
        for a, b in cells:
            mid = 0.5 * (a + b)
            value, err = F.log_value(mid)
            error = max(error, err)
            if value > best_value:
                best_value, best_l = value, mid
                threshold = best_value + math.log1p(RTOL)
            halves += [(a, mid), (mid, b)]
        cells = halves
    else:
        raise ValueError(
            f"the supremum over l for m={m}, distance={distance!r}, power={power:g} "
            f"was not certified within {MAX_ROUNDS} halvings"
        )
    upper = max(ceiling, best_value) + 2 * error
    return upper, best_value - error, best_l
