"""Quadratic forms of the posterior: the tandem risk, the disagreement, pairwise losses,
and the convex quadratics the searches build from them.

:func:`tandem_risk` ``q @ T @ q`` is convex where ``T`` is positive semidefinite
(``T = E.T @ E / n`` for an error-indicator matrix ``E``); :func:`disagreement`
``q @ D @ q`` is concave for votes in {-1, +1} (``D = (1 - K) / 2`` with
``K = V.T @ V / n``); :func:`pairwise_loss` takes pairwise estimates, definite or not.
A form against its curvature enters the programs through its convex minorant
(:mod:`cvxpb.engine.declare.dnn`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from cvxpb.engine.declare.dnn import nonnegative_part
from cvxpb.engine.declare.plane import on_plane
from cvxpb.engine.declare.terms import Posterior, Term, _labels
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, PSD_TOLERANCE, nudge
from cvxpb.validation import check_two_valued, real_array


class QuadraticForm(Term):
    """``q @ M @ q`` for a symmetric ``M`` with entries in [0, 1] (pairwise rates).

    Parameters
    ----------
    posterior : Posterior
        The posterior the term is a function of.
    matrix : array_like of shape (H, H)
        A symmetric matrix of rates in [0, 1].
    name : str
        The term's name.
    """

    rates = True  # entries are rates in [0, 1]; else any finite numbers

    def __init__(self, posterior, matrix, name):
        super().__init__(posterior, name)
        M = real_array(matrix, name)
        H = posterior.size
        if M.shape != (H, H):
            raise ValueError(f"{name} needs an H x H matrix ({H} x {H}), got shape {M.shape}")
        if np.any(~np.isfinite(M)):
            raise ValueError(f"{name}'s matrix must hold finite numbers")
        if self.rates and (np.any(M < 0) or np.any(M > 1)):
            raise ValueError(f"{name}'s matrix must hold rates in [0, 1]")
        if not np.allclose(M, M.T, rtol=0, atol=1e-12):
            raise ValueError(f"{name}'s matrix must be symmetric")
        self.matrix = (M + M.T) / 2
        self.curvature = self._curvature()
        if self.rates:  # q @ M @ q >= 0 for M >= 0 entrywise and q >= 0
            self.floor = 0.0
        else:  # q @ M @ q averages the entries with weights q_i q_j: at least the least
            self.floor = float(np.min(self.matrix))
        self.ceiling = float(np.max(self.matrix))  # and at most the largest

    def _curvature(self) -> str:
        raise NotImplementedError

    factor_source = None  # a function giving F (k x H) with q @ M @ q an affine function
    # of |F q|^2, when one is known: the form is then a sum of squares in CVXPY

    @property
    def factor(self):
        """``F``, compacted to at most ``H`` rows (``R`` of ``F = Q R``), or None: made
        on first use (only CVXPY's programs take it; a QR of an ``n x H`` factor is the
        costliest step of declaring a bound on a large sample)."""
        if self.factor_source is None:
            return None
        if "_factor" not in self.__dict__:
            self._factor = _compact(self.factor_source())
        return self._factor

    def core(self, q, rounding=0):
        return _quadratic(self.matrix, q, rounding)

    def gradient(self, q):
        return 2 * self.matrix @ q

    def quadratic(self):
        return 2 * self.matrix, np.zeros(self.matrix.shape[0])

    def pair_matrix(self):
        return self.matrix

    def minorant(self, sign, at=None):
        """The convex minorant of ``sign * q @ M @ q`` on the simplex, where needed.

        Needed for a matrix given as pairwise estimates (no factor), or where the form's
        curvature does not fit the direction (a concave form in an increasing bound).

        Parameters
        ----------
        sign : {-1, 1}
            The direction the bound depends on the term in: ``+1`` increasing (the term
            itself), ``-1`` decreasing (its negative).
        at : ndarray of shape (H,), optional
            A posterior to make the minorant tight at: a non-negative part is taken out
            of the matrix first (:mod:`cvxpb.engine.declare.dnn`). Without it, the
            matrix is only shifted.

        Returns
        -------
        ShiftedQuadratic or None
            The minorant (made once per sign without ``at``), or None where the form
            itself fits.
        """
        fits = self.curvature == ("convex" if sign > 0 else "concave")
        if self.factor_source is not None and fits:
            return None
        if at is not None:
            return ShiftedQuadratic(self, sign, nonnegative_part(sign * self.matrix, at))
        cache = self.__dict__.setdefault("_minorants", {})
        if sign not in cache:
            cache[sign] = ShiftedQuadratic(self, sign)
        return cache[sign]

    def least_curvature(self, sign: int):
        # twice the shift of the (cached) minorant: the least eigenvalue of sign * M on
        # the plane, less the eigenvalue solver's error
        minorant = self.minorant(sign)
        return 0.0 if minorant is None else 2 * minorant.lam

    def largest(self, sign: int):
        # where the oriented form is convex (no minorant), its largest value on the simplex
        # is at a vertex e_j, where it is sign * M_jj exactly
        if self.minorant(sign) is not None:
            return None
        return float(nudge(np.max(sign * np.diag(self.matrix)), +1))

    def majorant(self, sign, at):
        """The convex majorant of ``sign * q @ M @ q`` touching it at ``at``.

        The step of the convex-concave procedure (:class:`TangentMajorant`).

        Parameters
        ----------
        sign : {-1, 1}
            The direction the bound depends on the term in: ``+1`` increasing (the term
            itself), ``-1`` decreasing (its negative).
        at : array_like of shape (H,)
            The posterior where the majorant touches the form.

        Returns
        -------
        TangentMajorant
            The majorant.
        """
        return TangentMajorant(self, sign, np.asarray(at, dtype=float))

    def expr(self, q):
        import cvxpy as cp

        convex = self.curvature == "convex"
        return cp.quad_form(q, cp.psd_wrap(self.matrix) if convex else self.matrix)


class TandemRisk(QuadraticForm):
    """The tandem risk ``q @ T @ q``: convex when ``T`` is positive semidefinite.

    Parameters
    ----------
    posterior : Posterior
        The posterior the term is a function of.
    matrix : array_like of shape (H, H)
        A symmetric matrix of rates in [0, 1].
    name : str
        The term's name.
    """

    def _curvature(self) -> str:
        lowest, highest = _extreme_eigenvalues(self.matrix)
        return "convex" if lowest >= -PSD_TOLERANCE * max(highest, 1.0) else "indefinite"

    def expr(self, q):
        import cvxpy as cp

        if self.factor is not None:  # E.T E / n: a sum of squares, exactly DCP
            return cp.sum_squares(self.factor @ q)
        return super().expr(q)


class Disagreement(QuadraticForm):
    """The disagreement ``q @ D @ q``: concave on the simplex for votes of one sample.

    Parameters
    ----------
    posterior : Posterior
        The posterior the term is a function of.
    matrix : array_like of shape (H, H)
        A symmetric matrix of rates in [0, 1].
    name : str
        The term's name.
    """

    def _curvature(self) -> str:
        # concave on the simplex: -M is positive semidefinite on the plane sum q = 0
        lowest, highest = _extreme_eigenvalues(-on_plane(self.matrix))
        return "concave" if lowest >= -PSD_TOLERANCE * max(highest, 1.0) else "indefinite"

    def expr(self, q):
        import cvxpy as cp

        if self.factor is not None:  # 1 - sum_c |V_c q|^2 / n on the simplex
            return 1 - cp.sum_squares(self.factor @ q)
        return super().expr(q)


class PairwiseLoss(QuadraticForm):
    """``q @ M @ q``: the average under ``q x q`` of a pairwise loss of any sign.

    ``M[i, j]`` is the empirical mean of a loss of the pair ``(i, j)``, such as Wu et
    al.'s (2021) ``mu``-shifted tandem loss ``(e_i - mu)(e_j - mu)``. The curvature is
    that of ``M`` on the plane ``sum q = 0`` (the simplex's directions): convex,
    concave or indefinite.

    Parameters
    ----------
    posterior : Posterior
        The posterior the term is a function of.
    matrix : array_like of shape (H, H)
        A symmetric matrix of finite numbers.
    name : str
        The term's name.
    """

    rates = False

    def _curvature(self) -> str:
        lowest, highest = _extreme_eigenvalues(on_plane(self.matrix))
        scale = max(abs(lowest), abs(highest), 1.0)
        if lowest >= -PSD_TOLERANCE * scale:
            return "convex"
        return "concave" if highest <= PSD_TOLERANCE * scale else "indefinite"

    def expr(self, q):
        import cvxpy as cp

        if self.factor is not None:  # F.T F: a sum of squares, exactly DCP
            return cp.sum_squares(self.factor @ q)
        return super().expr(q)


class ConvexQuadratic(Term):
    """The convex stand-in of a quadratic form (a minorant or a majorant).

    ``q @ matrix @ q + linear @ q + constant`` with a positive semidefinite ``matrix``;
    subclasses set the three.

    Parameters
    ----------
    posterior : Posterior
        The posterior.
    name : str
        The term's name.
    """

    curvature = "convex"

    def core(self, q, rounding=0):
        linear = exact_sum(self.linear * q)
        margin = 4 * EPS * (np.abs(self.linear) @ np.abs(q) + abs(self.constant))
        value = _quadratic(self.matrix, q, rounding) + linear + self.constant
        return float(nudge(value + rounding * margin, rounding))

    def gradient(self, q):
        return 2 * self.matrix @ q + self.linear

    def largest(self, sign: int):
        # convex: the largest value on the simplex is at a vertex e_j, where the core is
        # matrix_jj + linear_j + constant (two additions: within eps of their sizes)
        if sign < 0:
            return None
        diagonal = np.diag(self.matrix)
        values = diagonal + self.linear + self.constant
        sizes = np.abs(diagonal) + np.abs(self.linear) + abs(self.constant)
        return float(nudge(np.max(values + 4 * EPS * sizes), +1))

    def quadratic(self):
        return 2 * self.matrix, self.linear

    def expr(self, q):
        import cvxpy as cp

        return cp.quad_form(q, cp.psd_wrap(self.matrix)) + self.linear @ q + self.constant


class ShiftedQuadratic(ConvexQuadratic):
    """A convex minorant of ``N(q) = sign * q @ M @ q`` on the simplex.

    With ``P = I - 1 1^T / H`` and ``sum q = 1``, ``q = P q + 1 / H``, so
    ``N(q) = (Pq) @ N @ (Pq) + l @ q + k`` with ``l = 2 P N 1 / H``, ``k = 1 N 1 / H^2``.
    Let ``lam <= min(0, least eigenvalue of N on the plane sum q = 0)``. Then
    ``Q = P (N - lam I) P`` is positive semidefinite and, as ``|Pq|^2 <= 1 - 1/H``,
    ``N(q) = q @ Q @ q + lam |Pq|^2 + l @ q + k >= q @ Q @ q + l @ q + k + lam (1 - 1/H)``,
    which is the minorant; it falls short by ``-lam (1 - |q|^2)``, nothing where ``N``
    is convex on the simplex (``lam`` is then only the eigenvalue solver's error
    margin) and little for pairwise estimates of a semidefinite matrix.

    Parameters
    ----------
    form : QuadraticForm
        The form ``q @ M @ q``.
    sign : {-1, 1}
        ``N = sign * M``.
    nonnegative : ndarray of shape (H, H), optional
        A symmetric ``C`` with entries at least 0, taken out of ``N`` before the shift:
        ``q @ C @ q >= 0`` on the simplex, so a minorant of ``N - C`` is one of ``N``
        (:mod:`cvxpb.engine.declare.dnn`).
    """

    def __init__(self, form, sign, nonnegative=None):
        super().__init__(form.posterior, f"minorant of {'-' if sign < 0 else ''}{form.name}")
        H = form.matrix.shape[0]
        N = sign * form.matrix
        if nonnegative is not None:
            N = N - nonnegative
        P = np.eye(H) - 1.0 / H
        eigenvalues = np.linalg.eigvalsh(on_plane(N)) if H > 1 else np.zeros(1)
        error = 8 * H * EPS * max(float(np.max(np.abs(eigenvalues))), float(np.max(np.abs(N))))
        self.lam = min(float(eigenvalues[0]), 0.0) - error
        self.matrix = P @ (N - self.lam * np.eye(H)) @ P
        self.matrix = (self.matrix + self.matrix.T) / 2
        self.linear = 2 * P @ N.sum(axis=1) / H
        self.constant = float(N.sum()) / H**2 + self.lam * (1 - 1 / H)


class TangentMajorant(ConvexQuadratic):
    """A convex majorant of ``N(q) = sign * q @ M @ q`` that touches it at ``at``.

    With ``N = N+ + N-`` (the positive and negative parts of its eigendecomposition), the
    concave ``q @ N- @ q`` is at most its tangent at ``at``, so
    ``N(q) <= q @ N+ @ q + 2 (N- at) @ q - at @ N- @ at``. Minimizing a bound through
    it never raises the bound: the step of the convex-concave procedure.

    Parameters
    ----------
    form : QuadraticForm
        The form ``q @ M @ q``.
    sign : {-1, 1}
        ``N = sign * M``.
    at : ndarray of shape (H,)
        The posterior where the majorant touches ``N``.
    """

    def __init__(self, form, sign, at):
        super().__init__(form.posterior, f"majorant of {'-' if sign < 0 else ''}{form.name}")
        values, vectors = np.linalg.eigh(sign * form.matrix)
        self.matrix = (vectors * np.maximum(values, 0.0)) @ vectors.T
        self.matrix = (self.matrix + self.matrix.T) / 2
        negative = (vectors * np.minimum(values, 0.0)) @ vectors.T
        self.linear = 2 * negative @ at
        self.constant = -float(at @ negative @ at)


def _quadratic(M, q, rounding):
    """``q @ M @ q`` rounded outward; for ``M`` with non-negative entries each entry of
    ``M @ q`` is within ``H eps`` relative and the exact sum adds two more. With
    negative entries the margin is on ``|q| @ |M| @ |q|``."""
    inner = M @ q
    value = exact_sum(q * inner)
    size = value if np.all(M >= 0) else float(np.abs(q) @ np.abs(M) @ np.abs(q))
    margin = (q.size + 4) * EPS * size
    return float(nudge(value + rounding * margin, rounding))


def tandem_risk(q: Posterior, errors=None, *, matrix=None) -> TandemRisk:
    """Declare the tandem risk ``T(q) = q @ T_hat @ q``.

    The rate at which two voters drawn from ``q`` err together (Masegosa et al., 2020).

    Parameters
    ----------
    q : Posterior
        The posterior.
    errors : array_like of shape (n, H), optional
        0/1 error indicators on one shared sample: ``T_hat = E.T @ E / n``, positive
        semidefinite, so the term is convex.
    matrix : array_like of shape (H, H), optional
        ``T_hat`` directly, for pairwise estimates on different samples (out-of-bag),
        which need not be semidefinite: the solver then proves its lower bound with the
        term's convex minorant (:class:`ShiftedQuadratic`) and reports the gap that
        leaves.

    Returns
    -------
    TandemRisk
        The term.

    Raises
    ------
    ValueError
        Unless exactly one of ``errors`` and ``matrix`` is given, of the right shape and
        values.
    """
    if (errors is None) == (matrix is None):
        raise ValueError("tandem_risk needs errors (n x H indicators) or matrix=, not both")
    if matrix is not None:
        return TandemRisk(q, matrix, "tandem_risk")
    E = check_two_valued(errors, q.size, "errors", (0, 1))
    term = TandemRisk(q, E.T @ E / E.shape[0], "tandem_risk")
    term.factor_source = functools.partial(_per_example, E)
    return term


def disagreement(q: Posterior, votes=None, *, matrix=None) -> Disagreement:
    """Declare the expected disagreement ``d(q) = q @ D_hat @ q`` of two voters drawn from ``q``.

    Parameters
    ----------
    q : Posterior
        The posterior.
    votes : array_like of shape (n, H), optional
        The voters' outputs, class labels of any kind: ``D_hat`` is the rate at which
        each pair disagrees, and ``d = 1 - sum_c |V_c q|^2 / n`` with ``V_c`` the
        indicators of voting ``c``, so ``d`` is concave.
    matrix : array_like of shape (H, H), optional
        ``D_hat`` directly (pairwise estimates, as for :func:`tandem_risk`).

    Returns
    -------
    Disagreement
        The term.

    Raises
    ------
    ValueError
        Unless exactly one of ``votes`` and ``matrix`` is given, of the right shape.
    """
    if (votes is None) == (matrix is None):
        raise ValueError("disagreement needs votes (n x H outputs) or matrix=, not both")
    if matrix is not None:
        return Disagreement(q, matrix, "disagreement")
    V = _labels(votes, q.size, "votes")
    F = _indicators(V)
    term = Disagreement(q, np.clip(1 - F.T @ F, 0.0, 1.0), "disagreement")
    term.factor_source = functools.partial(_indicators, V)
    return term


def _per_example(E):
    """``E / sqrt(n)``: each example's row, scaled so that ``F.T @ F`` averages."""
    return E / math.sqrt(E.shape[0])


def _indicators(V):
    """The indicators of each class's votes, one block of rows a class, over ``sqrt(n)``."""
    return np.vstack([(V == c).astype(float) for c in np.unique(V)]) / math.sqrt(V.shape[0])


def _given(F):
    """``F`` itself: the factor a caller gave."""
    return F


def pairwise_loss(q: Posterior, matrix=None, *, factor=None, name="pairwise_loss") -> PairwiseLoss:
    """Declare the average ``q @ M @ q`` of a pairwise loss under ``q x q``.

    Parameters
    ----------
    q : Posterior
        The posterior.
    matrix : array_like of shape (H, H), optional
        ``M``: each pair's mean loss, a symmetric matrix of finite numbers (estimates
        on different samples need not make it semidefinite: the solver then proves its
        lower bound with the term's convex minorant and reports the gap that leaves).
    factor : array_like of shape (k, H), optional
        ``F`` with ``M = F.T @ F`` instead of ``matrix``: the loss of ``(i, j)`` on
        example ``x`` is ``f_i(x) f_j(x)`` (rows ``f(x) / sqrt(n)``), so the term is
        convex and its CVXPY expression a sum of squares.
    name : str, default="pairwise_loss"
        The term's name (its key in :attr:`cvxpb.Result.terms`).

    Returns
    -------
    PairwiseLoss
        The term.

    Raises
    ------
    ValueError
        Unless exactly one of ``matrix`` and ``factor`` is given, of the right shape,
        with finite entries (and ``matrix`` symmetric).

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.engine.declare.quadratic import pairwise_loss
    >>> errors = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    >>> shifted = (errors - 0.25) / np.sqrt(3)  # (e_i - mu)(e_j - mu), mu = 1/4
    >>> term = pairwise_loss(pb.Posterior.uniform(2), factor=shifted)
    >>> term.curvature, round(term.value([0.5, 0.5]), 4)
    ('convex', 0.2292)
    """
    if (matrix is None) == (factor is None):
        raise ValueError(f"{name} needs matrix= (H x H) or factor= (k x H), not both")
    if matrix is not None:
        return PairwiseLoss(q, matrix, name)
    return factored_loss(q, functools.partial(_given, real_array(factor, "factor")), name)


def factored_loss(q: Posterior, source, name="pairwise_loss") -> PairwiseLoss:
    """Declare :func:`pairwise_loss` from a factor made on demand.

    ``source()`` gives ``F`` (``k x H``): it is called once here for ``F.T @ F`` and
    again only if a CVXPY program needs the factor, so that a large ``F`` is not kept.

    Parameters
    ----------
    q : Posterior
        The posterior.
    source : callable
        Returns the factor, the same array each call (picklable, as a fitted
        classifier holding the term is: a ``functools.partial`` of a module's function).
    name : str, default="pairwise_loss"
        The term's name.

    Returns
    -------
    PairwiseLoss
        The term, convex.

    Raises
    ------
    ValueError
        Unless the factor is a finite ``k x H`` matrix.
    """
    F = source()
    if F.ndim != 2 or F.shape[1] != q.size or not np.all(np.isfinite(F)):
        raise ValueError(f"factor must be a finite k x H matrix with H = {q.size}")
    term = PairwiseLoss(q, F.T @ F, name)
    term.factor_source = source
    term.curvature = "convex"
    return term


def _compact(F):
    """A factor with ``|R q|^2 = |F q|^2`` and at most ``H`` rows (``R`` of ``F = Q R``),
    for CVXPY programs of size ``H`` whatever ``n``."""
    if F.shape[0] <= F.shape[1]:
        return F
    return np.linalg.qr(F, mode="r")


def _extreme_eigenvalues(M):
    if M.size == 0:  # one voter: no direction within the simplex
        return 0.0, 0.0
    eigenvalues = np.linalg.eigvalsh(M)
    return float(eigenvalues[0]), float(eigenvalues[-1])
