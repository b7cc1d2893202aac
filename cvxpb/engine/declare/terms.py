"""The posterior and the terms a declared bound is built from.

A term is a function of the posterior ``q`` on the simplex. Each one is an increasing
``transform`` of a ``core`` whose curvature it declares (the transform is the
identity but for the Renyi divergence, ``log(M) / (alpha - 1)`` of the convex moment
``M``):

* :func:`gibbs_risk` ``l @ q``, affine (here, with the posterior, the terms' base
  class and the floor of a weighted sum of terms);
* the quadratic forms, :func:`~cvxpb.engine.declare.quadratic.tandem_risk` and
  :func:`~cvxpb.engine.declare.quadratic.disagreement` among them
  (:mod:`cvxpb.engine.declare.quadratic`);
* the divergences against the posterior's prior, :func:`~cvxpb.KL`, :func:`~cvxpb.chi2`
  and :func:`~cvxpb.renyi` (:mod:`cvxpb.engine.declare.divergence_terms`).

Each gives its value rounded outward, its gradient, and its CVXPY expression.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.engine.declare.expressions import Expression
from cvxpb.numerics.summation import exact_sum
from cvxpb.numerics.tolerances import EPS, nudge
from cvxpb.validation import (
    check_distribution,
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
