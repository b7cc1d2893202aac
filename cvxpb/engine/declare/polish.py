"""Polishing a local search's best posterior by mirror descent on the bound.

A search that proves no optimum (status ``local``) stops where its scalarized programs
stop improving, which need not be where the bound does: the bound is not a weighted sum
of its terms. From the search's best posterior, :func:`polish` takes exponentiated
gradient steps, the mirror descent of the simplex in the geometry of KL,

    q  <-  q exp(-eta g) / sum(q exp(-eta g)),

along the bound's gradient ``g = sum_t (dB/dt) grad t(q)`` (its slopes in its terms by
central differences, each term's gradient exact). A step is kept only where the bound
falls; ``eta`` doubles after a kept step and halves after a refused one. Voters at
weight 0 stay there. The search's lower bound and status are untouched: polishing
changes which posterior is reported, and the bound there is re-evaluated with outward
rounding as always.
"""

from __future__ import annotations

import numpy as np

STEPS = 60  # gradient steps at most
HALVINGS = 30  # a step shorter than 2^-30 of the first is no step
STALL = 5  # kept steps in a row each lowering the bound by under tol / 10 end it


def polish(value, gradient, q, tol):
    """Mirror descent on ``value`` from ``q`` over the simplex.

    Parameters
    ----------
    value : callable
        ``q -> float``: the bound (to nearest, for searching).
    gradient : callable
        ``q -> ndarray``: its gradient in ``q``.
    q : ndarray of shape (H,)
        The posterior to start from.
    tol : float
        The search's tolerance: steps that lower the bound by less than a tenth of it
        for :data:`STALL` steps in a row end the descent.

    Returns
    -------
    ndarray of shape (H,)
        The posterior reached (``q`` itself if no step lowered the bound).
    """
    q = np.asarray(q, dtype=float)
    current = value(q)
    eta, small = None, 0
    for _ in range(STEPS):
        g = gradient(q)
        support = q > 0
        if not np.all(np.isfinite(g[support])) or support.sum() < 2:
            break
        spread = np.ptp(g[support])
        if spread <= 0:
            break
        eta = 1.0 / spread if eta is None else eta
        step = _step(value, q, g, current, eta)
        if step is None:
            break
        q, fallen, eta = step[0], current - step[1], step[2] * 2
        current = step[1]
        small = small + 1 if fallen < tol / 10 else 0
        if small >= STALL:
            break
    return q


def _step(value, q, g, current, eta):
    """``(q', value(q'), eta')``: the first of ``eta, eta/2, ...`` whose step lowers
    the bound, or None."""
    shift = g - np.min(g[q > 0])  # exp of at most 0: no overflow
    for _ in range(HALVINGS):
        moved = q * np.exp(-eta * np.where(q > 0, shift, 0.0))
        moved /= moved.sum()
        new = value(moved)
        if new < current:
            return moved, new, eta
        eta /= 2
    return None
