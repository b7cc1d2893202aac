"""Newton's method for ``min 1/2 q @ S @ q + b @ q + mu KL(q || p)`` on the simplex.

This is the scalarized program of every declared bound whose terms are quadratic
(Gibbs risk, tandem risk, disagreement, or a pairwise matrix's convex minorant) and
whose divergence is KL: the tandem (TND) bound, the C-bound and DIS. The entropy keeps
the minimizer inside the simplex, so Newton's method with the constraint ``sum q = 1``
and a step that stays positive converges quadratically, in about a millisecond at
``H = 100`` where a conic solver takes tens.

The Newton step ``d`` minimizes ``g @ d + 1/2 d @ (S + mu diag(1/q)) @ d`` subject to
``sum d = 0``. In the scaled variable ``d = diag(sqrt q) y`` its matrix is
``diag(sqrt q) S diag(sqrt q) + mu I``, well conditioned however small some ``q_i``
are (a ``q_i`` that has underflowed to zero stays there). A step that would take some
``q_i`` to or below zero divides it by at most ``1 / SHRINK`` instead, and the point
is renormalized, with a backtracking (Armijo) search along that path: one step size
for all coordinates would be cut to the smallest ``q_i``'s reach, which is what stalls
a plain damped Newton method at small ``mu``, where the minimizer has coordinates
like ``exp(-1/mu)``. Near the minimum the decrease falls below the objective's
rounding while the stationarity condition, which the certificate amplifies by
``1 / mu``, is not yet met to the last bit: there ``POLISH`` full steps are taken
as long as the objective does not rise beyond its rounding.

Nothing here is trusted: the caller certifies the minimum by weak duality at
whatever ``q`` this returns (:mod:`cvxpb.engine.declare.pareto`). The iteration is
compiled once (:mod:`cvxpb.engine.declare.newton_kernels`); this module checks its
arguments' types and counts the objective's evaluations.
"""

from __future__ import annotations

import numpy as np

from cvxpb.numerics.compiled import Kernels

KERNELS = Kernels("cvxpb.engine.declare.newton_kernels")
evaluations = 0  # the objective's evaluations in this process so far (for measuring)


def minimize_quadratic_kl(S, b, mu, prior, start):
    """Minimize ``1/2 q @ S @ q + b @ q + mu KL(q || prior)`` over the simplex by Newton's method.

    Parameters
    ----------
    S : ndarray of shape (H, H)
        Positive semidefinite on the plane ``sum q = 0``.
    b : ndarray of shape (H,)
        The linear part.
    mu : float
        The weight of KL (positive).
    prior : ndarray of shape (H,)
        The prior of KL; its zeros stay zeros.
    start : array_like of shape (H,)
        Where the iteration starts.

    Returns
    -------
    ndarray of shape (H,) or None
        A posterior near the minimizer, or None if the iteration fails (a non-finite value
        or a singular system). The caller certifies it; nothing here is trusted.
    """
    global evaluations
    arrays = (np.array(x, dtype=float, order="C") for x in (S, b, prior, start))
    S, b, prior, start = arrays  # fresh: numba would compile apart for a read-only view
    q, ok, count = KERNELS.minimize(S, b, float(mu), prior, start)
    evaluations += count
    return q if ok else None
