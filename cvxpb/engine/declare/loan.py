"""Curvature lent by the divergence: the true scalarized program, where it is convex.

A quadratic form that is not convex on the simplex (the pairs' variances in Wu et al.'s
(2021) CCPBB, a tandem matrix of out-of-bag estimates) enters the scalarized programs
through a convex minorant (:class:`cvxpb.engine.declare.quadratic.ShiftedQuadratic`), which
falls short of it. Yet the program ``min_q sum_i w_i t_i(q) + mu D(q)`` may be convex
as a whole: with ``m_i`` the oriented terms' least curvatures on the simplex
(:meth:`cvxpb.engine.declare.terms.Term.least_curvature`, negative for such a form)
and ``m_D`` the divergence's (:meth:`cvxpb.pac_bayes.divergences.Divergence.least_curvature`:
KL's Hessian ``diag(1/q)`` is at least twice the identity on the simplex's plane), it
is convex once ``k = -sum_i w_i min(m_i, 0) <= mu m_D``.

Then the weight ``a = k / m_D`` of the divergence is lent to the terms: at any
posterior ``p``, with ``g`` the gradient of ``sum_i w_i t_i + a D`` at ``p``,

    sum_i w_i t_i(q) + a D(q) >= sum_i w_i t_i(p) + a D(p) + g @ (q - p)

for every posterior ``q`` (the Taylor remainder is at least ``(a m_D - k) |q - p|^2 / 2
>= 0``), and the rest, ``(mu - a) D``, keeps its closed-form minimum: the lower bound
is the tangent bound of :mod:`cvxpb.engine.declare.pareto` with the lent weight moved
into the tangent. It is exact at the program's minimizer, which Newton's method finds
on the true forms, so the certificate no longer carries the minorant's shortfall.

A posterior in floating point sums to 1 only to rounding: the directions ``q - p``
then leave the plane ``sum z = 0`` on which the curvatures hold by at most a few
units in the last place, which :attr:`Loan.allowance` covers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cvxpb.numerics.tolerances import EPS


@dataclass(frozen=True)
class Loan:
    """The weight of the divergence lent to the other terms, and the rounding allowed.

    Parameters
    ----------
    weight : float
        ``a``, in ``[0, mu]``.
    allowance : float
        What the tangent bound gives up for a posterior that sums to 1 only to rounding.
    """

    weight: float
    allowance: float


def loan(weighted, signs, relaxed) -> Loan | None:
    """The loan that makes the weighted sum of the true terms convex, if there is one.

    Parameters
    ----------
    weighted : list of (Term, float)
        The scalarized program's terms and weights; the last one lends.
    signs : dict
        ``{term: +1 or -1}``: each term's orientation.
    relaxed : callable
        ``relaxed(term)``: whether a term stands in the program through a minorant
        (the terms the loan lets in as they are).

    Returns
    -------
    Loan or None
        None where no term is relaxed, a relaxed term's curvature or scale is unknown,
        or the last term cannot lend enough.
    """
    lender, mu = weighted[-1]
    borrowers = [(t, w) for t, w in weighted[:-1] if w > 0 and relaxed(t)]
    if not borrowers or signs[lender] < 0 or not mu > 0:
        return None
    lends = lender.least_curvature(+1)
    if lends is None or not lends > 0:
        return None
    need, scale = 0.0, 0.0
    for term, w in borrowers:
        curvature, parts = term.least_curvature(signs[term]), term.quadratic()
        if curvature is None or parts is None:
            return None
        need -= w * min(curvature, 0.0)
        scale += w * float(np.max(np.abs(parts[0])))
    weight = need / lends * (1 + 4 * EPS)
    if not weight <= mu:
        return None
    # for z = q - p with |sum z| <= eps (p normalized by one division): the borrowers'
    # z @ S @ z / 2 is short of its part on the plane's by at most 2 |sum z| max|S|, and
    # the lender's curvature of m (|z|^2 - (sum z)^2) by m (sum z)^2
    return Loan(weight, 4 * EPS * scale + need * EPS * EPS)
