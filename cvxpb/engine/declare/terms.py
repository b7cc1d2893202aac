"""The posterior and the terms a declared bound is built from.

A term is a function of the posterior ``q`` on the simplex. Each one is an increasing
``transform`` of a ``core`` whose curvature it declares (the transform is the
identity but for the Renyi divergence, ``log(M) / (alpha - 1)`` of the convex moment
``M``):

* :func:`gibbs_risk` ``l @ q``, affine;
* :func:`tandem_risk` ``q @ T @ q``, convex when ``T`` is positive semidefinite
  (``T = E.T @ E / n`` for an error-indicator matrix ``E``);
* :func:`disagreement` ``q @ D @ q``, concave for votes in {-1, +1}
  (``D = (1 - K) / 2`` with ``K = V.T @ V / n``, and ``q @ 1 1^T @ q = 1``);
* :func:`KL`, :func:`chi2` (``sum q^2 / p - 1``; the chi-squared bounds take it plus
  one) and :func:`renyi` against the posterior's prior.

Each gives its value rounded outward, its gradient, and its CVXPY expression; the
divergences also minimize ``g @ q + mu * core(q)`` over the simplex in closed form
with a lower bound from weak duality (:meth:`Divergence.linear_min`), which is what
certifies the scalarized programs of :mod:`cvxpb.engine.declare.pareto`; they are written
once, in :mod:`cvxpb.pac_bayes.divergences`, and :func:`divergence_term` takes any
divergence object there, a user's own included.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from cvxpb.engine.declare.dnn import nonnegative_part
from cvxpb.engine.declare.expressions import Expression
from cvxpb.engine.declare.plane import on_plane
from cvxpb.numerics.constants import check_order
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, PSD_TOLERANCE, nudge
from cvxpb.pac_bayes.divergences import Chi2, Divergence, KLDivergence, Renyi, as_divergence
from cvxpb.validation import (
    check_distribution,
    check_two_valued,
    check_unit_interval,
    real_array,
)


class Posterior:
    """The posterior ``q`` over ``H`` voters (or classifiers), with its ``prior``.

    Every term of a declaration is a function of one posterior; the divergences are
    taken from its prior.

    Parameters
    ----------
    prior : array_like of shape (H,)
        A distribution over the voters (non-negative, summing to 1).

    Examples
    --------
    >>> import cvxpb as pb
    >>> pb.Posterior([0.5, 0.25, 0.25]), pb.Posterior.uniform(4).prior
    (Posterior(H=3), array([0.25, 0.25, 0.25, 0.25]))
    """

    def __init__(self, prior):
        prior = real_array(prior, "prior")
        if prior.ndim != 1 or prior.size == 0:
            raise ValueError(f"prior must be a non-empty 1-d array, got shape {prior.shape}")
        self.prior = check_distribution(prior, prior.size, "prior")
        self.size = prior.size

    @classmethod
    def uniform(cls, H: int) -> Posterior:
        """The posterior over ``H`` voters with the uniform prior.

        Parameters
        ----------
        H : int
            The number of voters (at least 1).

        Returns
        -------
        Posterior
            With prior ``1 / H`` everywhere.
        """
        if isinstance(H, bool) or not isinstance(H, (int, np.integer)) or H < 1:
            raise ValueError(f"H must be a positive integer, got {H!r}")
        return cls(np.full(int(H), 1.0 / H))

    def __repr__(self) -> str:
        return f"Posterior(H={self.size})"


class Term(Expression):
    """A posterior term: a leaf of a declared bound.

    A term is an increasing ``transform`` of a ``core`` whose ``curvature`` it declares
    (``"affine"``, ``"convex"``, ``"concave"`` or ``"indefinite"``). A subclass gives the
    core's value (:meth:`core`), gradient and CVXPY expression.

    Parameters
    ----------
    posterior : Posterior
        The posterior the term is a function of.
    name : str
        The term's name (the key of its value in :attr:`cvxpb.Result.terms`).
    """

    curvature = "affine"  # of the core: affine, convex, concave or indefinite
    divergence = False
    closed_form_min = False  # whether linear_min gives min g @ q + mu core(q) in closed form
    floor = None  # a value the term is never below on the simplex, known without solving
    ceiling = None  # and one it is never above

    def __init__(self, posterior: Posterior, name: str):
        if not isinstance(posterior, Posterior):
            raise ValueError(f"{name} needs a cvxpb Posterior, got {type(posterior).__name__}")
        self.posterior = posterior
        self.name = name

    @property
    def args(self):
        return ()

    def __repr__(self) -> str:
        return self.name

    def transform(self, core, rounding: int = 0):
        """The term's value from its core (increasing); the identity by default.

        Parameters
        ----------
        core : float or ndarray
            The core's value.
        rounding : {-1, 0, 1}, default=0
            ``+1`` for a value at least the exact one, ``-1`` at most, ``0`` to nearest.

        Returns
        -------
        ndarray
            The term's value.
        """
        return np.asarray(core, dtype=float)

    def value(self, q, rounding: int = 0) -> float:
        """The term at ``q``, rounded in the direction ``rounding``.

        Parameters
        ----------
        q : ndarray of shape (H,)
            A posterior.
        rounding : {-1, 0, 1}, default=0
            ``+1`` for a value at least the exact one, ``-1`` at most, ``0`` to nearest.

        Returns
        -------
        float
            ``transform(core(q))``.
        """
        q = np.asarray(q, dtype=float)
        return float(self.transform(self.core(q, rounding), rounding))

    def core(self, q, rounding: int = 0) -> float:
        """The core at ``q``, rounded in the direction ``rounding``.

        Parameters
        ----------
        q : ndarray of shape (H,)
            A posterior.
        rounding : {-1, 0, 1}, default=0
            ``+1`` for a value at least the exact one, ``-1`` at most, ``0`` to nearest.

        Returns
        -------
        float
            The core's value.
        """
        raise NotImplementedError

    def gradient(self, q):
        """The gradient of the core at ``q``.

        Parameters
        ----------
        q : ndarray of shape (H,)
            A posterior.

        Returns
        -------
        ndarray of shape (H,)
            The gradient.
        """
        raise NotImplementedError

    def expr(self, q):
        """The core as a CVXPY expression of ``q``, with the declared curvature.

        Parameters
        ----------
        q : cvxpy.Variable of shape (H,)
            The posterior variable.

        Returns
        -------
        cvxpy.Expression
            The core.
        """
        raise NotImplementedError

    def evaluate(self, values, rounding: int):
        return self.transform(values(self, rounding), rounding)

    def affine(self) -> bool:
        return True  # the transform is the identity; divergences say otherwise

    def minorant(self, sign: int):
        """A convex stand-in for the core where its curvature does not fit the bound.

        Parameters
        ----------
        sign : {-1, 1}
            The direction the bound depends on the term in: ``+1`` increasing (the term
            itself), ``-1`` decreasing (its negative).

        Returns
        -------
        Term or None
            A convex term at most ``sign *`` this core on the simplex, where the core is not
            known to be convex in that direction; ``None`` where it is.
        """
        return None

    def least_curvature(self, sign: int):
        """The least curvature of the oriented core on the simplex, proven.

        A number ``m`` with ``z @ H @ z >= m |z|^2`` for the Hessian ``H`` of
        ``sign *`` the core at every posterior and every direction ``z`` summing to 0:
        0 where the core's curvature fits the direction, negative for a quadratic form
        against it, positive for a divergence that lends curvature
        (:meth:`cvxpb.pac_bayes.divergences.Divergence.least_curvature`).

        Parameters
        ----------
        sign : {-1, 1}
            The orientation.

        Returns
        -------
        float or None
            ``m``, rounded down; None where it is not known.
        """
        fits = "convex" if sign > 0 else "concave"
        return 0.0 if self.curvature in ("affine", fits) else None

    def largest(self, sign: int):
        """The oriented core's largest value on the simplex, where one vertex tells it.

        Parameters
        ----------
        sign : {-1, 1}
            The orientation.

        Returns
        -------
        float or None
            ``max sign * core`` rounded up: for an affine core its value at the vertex
            where ``sign * gradient`` is greatest. None where every vertex would have to
            be evaluated.
        """
        if self.curvature != "affine":
            return None
        g = sign * np.asarray(self.gradient(None), dtype=float)
        vertex = np.zeros(g.size)
        vertex[int(np.argmax(g))] = 1.0
        return float(nudge(sign * self.core(vertex, sign), +1))

    def pair_matrix(self):
        """The matrix ``A`` with the term equal to ``q @ A @ q`` on the simplex, if any.

        Returns
        -------
        ndarray of shape (H, H) or None
            ``A``: the term averages its entries with weights ``q_j q_k``; None where
            the term is not such a form.
        """
        return None

    def pair_extremes(self):
        """The least, largest and largest magnitude of :meth:`pair_matrix`'s entries.

        What :func:`weighted_floor` needs of a form that is alone, found once per term;
        None where the term is no such form.

        Returns
        -------
        tuple of float or None
            The three numbers.
        """
        if not hasattr(self, "_pair_extremes"):
            A = self.pair_matrix()
            found = None if A is None else (float(np.min(A)), float(np.max(A)))
            self._pair_extremes = None if found is None else (*found, max(map(abs, found)))
        return self._pair_extremes

    def quadratic(self):
        """The core as a quadratic, for the Newton solver.

        Returns
        -------
        tuple of ndarray or None
            ``(S, b)`` with the core ``1/2 q @ S @ q + b @ q`` plus a constant
            (:mod:`cvxpb.engine.declare.newton`); ``None`` if it is not quadratic.
        """
        return None

    def leaves(self):
        return {self: {+1}}


class GibbsRisk(Term):
    """``L(q) = risks @ q``: the Gibbs classifier's empirical risk (affine).

    Parameters
    ----------
    posterior : Posterior
        The posterior.
    risks : array_like of shape (H,)
        Each voter's empirical risk, in [0, 1].
    name : str, default="gibbs_risk"
        The term's name.
    """

    curvature = "affine"

    def __init__(self, posterior, risks, name="gibbs_risk"):
        super().__init__(posterior, name)
        self.risks = _vector(risks, posterior.size, "risks")
        self.floor = float(np.min(self.risks))  # the least risk: the exact minimum

    def core(self, q, rounding=0):
        return float(nudge(exact_sum(self.risks * q), rounding))

    def gradient(self, q):
        return self.risks

    def expr(self, q):
        return self.risks @ q

    def quadratic(self):
        return np.zeros((self.risks.size, self.risks.size)), self.risks

    def pair_matrix(self):
        return (self.risks[:, None] + self.risks[None, :]) / 2  # r @ q = q @ A @ q there

    def pair_extremes(self):
        least, largest = float(np.min(self.risks)), float(np.max(self.risks))
        return least, largest, max(abs(least), abs(largest))  # (r + r) / 2 = r exactly


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


def _least_entry(forms, signs):
    """``(least, size)``: the least entry of ``sum w sign A`` over the forms and the
    largest of ``sum |w A|``. One form alone needs only its extremes (a positive or
    negative factor is monotone in floating point too, so the same numbers); several
    are summed entry by entry, where their parts can cancel."""
    if not forms:
        return 0.0, 0.0
    if len(forms) == 1:
        ((term, w),) = forms
        low, high, magnitude = term.pair_extremes()
        factor = w * signs[term]
        return factor * (low if factor > 0 else high), abs(w) * magnitude
    combined = sum(w * signs[term] * term.pair_matrix() for term, w in forms)
    scale = sum(np.abs(w * term.pair_matrix()) for term, w in forms)
    return float(np.min(combined)), float(np.max(scale))


def weighted_floor(weighted, signs) -> float:
    """A lower bound on ``min_q sum_t w_t sign_t t(q)`` over the simplex, without solving.

    The terms that are forms ``q @ A_t @ q`` on the simplex (:meth:`Term.pair_matrix`)
    add up to one form, which averages its matrix's entries with weights ``q_j q_k``: its
    least entry bounds it. Each other term adds its weight times its floor (where the
    sum increases in it) or minus its ceiling (where it decreases).

    Parameters
    ----------
    weighted : list of (Term, float)
        The terms and their weights (at least 0).
    signs : dict
        ``{term: +1 or -1}``: the orientation of each term.

    Returns
    -------
    float
        The bound, rounded down; ``-inf`` where a term has no known floor (or ceiling).
    """
    present = [(term, w) for term, w in weighted if w != 0]
    forms = [(term, w) for term, w in present if term.pair_extremes() is not None]
    rest = 0.0
    for term, w in present:
        if term.pair_extremes() is None:
            known = term.floor if signs[term] > 0 else term.ceiling
            if known is None:
                return -math.inf
            rest += w * signs[term] * known
    least, size = _least_entry(forms, signs)
    # each entry: a sum of len(weighted) products, each rounded (and (r_j + r_k) / 2 once)
    margin = 4 * (len(weighted) + 2) * EPS * (size + abs(rest)) + 1e-300
    return float(nudge(least + rest - margin, -1))


def gibbs_risk(q: Posterior, risks) -> GibbsRisk:
    """Declare the Gibbs classifier's empirical risk ``L(q) = risks @ q`` (affine).

    Parameters
    ----------
    q : Posterior
        The posterior.
    risks : array_like of shape (H,)
        Each voter's empirical risk, in [0, 1].

    Returns
    -------
    GibbsRisk
        The term.

    Examples
    --------
    >>> import cvxpb as pb
    >>> q = pb.Posterior.uniform(2)
    >>> pb.gibbs_risk(q, [0.1, 0.3]).value([0.5, 0.5])
    0.2
    """
    return GibbsRisk(q, risks)


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
    >>> from cvxpb.engine.declare.terms import pairwise_loss
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


class DivergenceTerm(Term):
    """A divergence of the posterior from its prior, as a term.

    Takes any :class:`cvxpb.pac_bayes.divergences.Divergence` (ours or a user's), whose
    convex core, transform, gradient, CVXPY expression and closed-form ``linear_min`` it
    uses.

    Parameters
    ----------
    posterior : Posterior
        The posterior (its prior is the divergence's reference).
    measure : Divergence
        The divergence.
    """

    curvature = "convex"
    divergence = True

    def __init__(self, posterior, measure: Divergence):
        try:
            measure = as_divergence(measure)  # ours, or a user's object adopted
        except ValueError as error:
            raise ValueError(
                "a divergence term needs a cvxpb Divergence or an object with a name and "
                f"core(q, p, rounding); {error}"
            ) from None
        super().__init__(posterior, measure.term_name())
        self.measure = measure
        self.floor = measure.least

    @property
    def prior(self):
        """ndarray of shape (H,): the prior the divergence is taken from."""
        return self.posterior.prior

    @property
    def entropic(self) -> bool:
        """bool: whether the divergence is KL (its minimizers are Gibbs posteriors)."""
        return self.measure.entropic

    @property
    def closed_form_min(self) -> bool:
        """bool: whether the divergence has ``linear_min``.

        Without it the scalarized programs are solved by CVXPY and certified by the
        Frank-Wolfe bound.
        """
        return hasattr(self.measure, "linear_min")

    def core(self, q, rounding=0):
        return self.measure.core(q, self.prior, rounding)

    def transform(self, core, rounding=0):
        return self.measure.transform(core, rounding)

    def affine(self) -> bool:
        return self.measure.transform_is_affine()

    def gradient(self, q):
        return self.measure.core_gradient(q, self.prior)

    def expr(self, q):
        return self.measure.expr(q, self.prior)

    def least_curvature(self, sign: int):
        # the divergence's own, where the bound increases in it
        return self.measure.least_curvature(self.prior) if sign > 0 else None

    def largest(self, sign: int):
        # the divergence's own largest value over the vertices where it has one
        if sign > 0 and hasattr(self.measure, "largest"):
            return self.measure.largest(self.prior)
        return None

    def linear_min(self, g, mu):
        """Minimize ``g @ q + mu core(q)`` over the simplex in closed form.

        Parameters
        ----------
        g : ndarray of shape (H,)
            The linear part.
        mu : float
            The weight of the core (positive).

        Returns
        -------
        q : ndarray of shape (H,)
            The minimizer.
        lower : float
            A lower bound on the minimum (weak duality), rounded down.
        """
        return self.measure.linear_min(self.prior, g, mu)


def divergence_term(q: Posterior, measure) -> DivergenceTerm:
    """Declare the divergence ``measure`` of ``q`` from its prior.

    Parameters
    ----------
    q : Posterior
        The posterior.
    measure : Divergence or str
        A :class:`~cvxpb.pac_bayes.divergences.Divergence` object (a user's own subclass
        works as ours do) or a name in :func:`~cvxpb.pac_bayes.divergences.as_divergence`'s
        vocabulary.

    Returns
    -------
    DivergenceTerm
        The term (convex core).
    """
    return DivergenceTerm(q, as_divergence(measure))


def KL(q: Posterior) -> DivergenceTerm:
    """Declare ``KL(q || p)`` against the posterior's prior (convex).

    Parameters
    ----------
    q : Posterior
        The posterior.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, KLDivergence())


def chi2(q: Posterior) -> DivergenceTerm:
    """Declare the chi-squared divergence ``chi2(q || p) = sum_i q_i^2 / p_i - 1``.

    An increasing transform of a convex moment. The chi-squared bounds of Sahu &
    Hemachandra (Theorem 1 with alpha = 2) take ``chi2(q) + 1 = sum_i q_i^2 / p_i``.

    Parameters
    ----------
    q : Posterior
        The posterior.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, Chi2())


def renyi(q: Posterior, alpha) -> DivergenceTerm:
    """Declare the Renyi divergence ``D_alpha(q || p)`` of order ``alpha > 1``.

    ``D_alpha(q || p) = log(sum q^alpha p^(1-alpha)) / (alpha - 1)``, an increasing
    transform of a convex moment.

    Parameters
    ----------
    q : Posterior
        The posterior.
    alpha : float
        The order, greater than 1.

    Returns
    -------
    DivergenceTerm
        The term.
    """
    return DivergenceTerm(q, Renyi(check_order(alpha)))


def _vector(values, size, name):
    values = real_array(values, name)
    if values.shape != (size,):
        raise ValueError(f"{name} must have one entry per voter ({size}), got shape {values.shape}")
    check_unit_interval(values, name)
    return values


def _labels(values, size, name):
    V = np.asarray(values)
    if V.ndim != 2 or V.shape[1] != size or V.shape[0] == 0:
        raise ValueError(f"{name} must be an n x H matrix with H = {size}, got shape {V.shape}")
    if V.dtype.kind == "f" and not np.all(np.isfinite(V)):
        raise ValueError(f"{name} must hold class labels, got non-finite values")
    return V


def _extreme_eigenvalues(M):
    if M.size == 0:  # one voter: no direction within the simplex
        return 0.0, 0.0
    eigenvalues = np.linalg.eigvalsh(M)
    return float(eigenvalues[0]), float(eigenvalues[-1])
