"""The nonnegative part to take out of a quadratic form before shifting it convex.

A quadratic form ``N(q) = q @ S @ q`` that is not convex on the simplex (a tandem
matrix of pairwise out-of-bag estimates, say) enters the scalarized programs through a
convex minorant. Shifting ``S`` by its least eigenvalue ``lam`` on the plane
``sum q = 0`` falls short by ``-lam (1 - |q|^2)``: near ``-lam`` wherever the posterior
is spread, as the posteriors of large votes are.

For any symmetric ``C`` with non-negative entries, ``q @ C @ q >= 0`` on the simplex,
so ``N(q) >= q @ (S - C) @ q``, and shifting ``S - C`` instead falls short by
``q @ C @ q - lam_C (1 - |q|^2)``. The best ``C`` at a posterior ``p`` solves

    min  p @ C @ p   over  C >= 0 (entrywise),  B^T (S - C) B positive semidefinite,

with ``B`` an orthonormal basis of the plane: the Lagrangian dual of the doubly
nonnegative relaxation (Shor's semidefinite relaxation with the products
``q_i q_j >= 0``) of ``N`` on the simplex, which is exact at ``p`` when ``N`` is.
:func:`nonnegative_part` solves it by the alternating direction method of
multipliers (Boyd, Parikh, Chu, Peleato and Eckstein, 2011) on the splitting
``C = Y`` with ``C`` in the non-negative matrices and ``Y`` in the set where
``S - Y`` is semidefinite on the plane, each a projection in closed form (the second
by one eigendecomposition). Whatever ``C`` it ends at, the minorant is valid: ``C``
is non-negative exactly and ``S - C`` is shifted by its own least eigenvalue.
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.plane import from_plane, on_plane

ITERATIONS = 300  # ADMM steps at most; the shortfall settles within them on 100-tree forests
SETTLED = 1e-9  # and they stop once both residuals' entries are below this (rates in [0, 1])
SCALE = 0.25  # ADMM's weight matrix is SCALE p p^T / |p|^2 (a step of |p|^2 / SCALE)


def nonnegative_part(S, at, iterations=ITERATIONS):
    """A non-negative part of ``S`` to take out before shifting it convex.

    A symmetric ``C`` with entries at least 0, ``S - C`` nearly semidefinite on the
    plane ``sum q = 0`` and ``at @ C @ at`` small (the program of the module's text).

    Parameters
    ----------
    S : ndarray of shape (H, H)
        A symmetric matrix.
    at : ndarray of shape (H,)
        The posterior where the minorant should be tight.
    iterations : int, default=ITERATIONS
        ADMM steps at most (fewer once both residuals are below ``SETTLED``).

    Returns
    -------
    ndarray of shape (H, H)
        ``C``: symmetric, every entry at least 0.
    """
    H = S.shape[0]
    weight = SCALE * np.outer(at, at) / (at @ at)
    Y, U = np.zeros((H, H)), np.zeros((H, H))
    C = Y
    for _ in range(iterations):
        C = np.maximum(Y - U - weight, 0.0)
        Y, before = _into_cone(S, C + U), Y
        U += C - Y
        if np.max(np.abs(C - Y)) <= SETTLED and np.max(np.abs(Y - before)) <= SETTLED:
            break  # primal and dual residuals: the splitting has met
    return np.maximum((C + C.T) / 2, 0.0)


def _into_cone(S, X):
    """The nearest ``Y`` to ``X`` (Frobenius) with ``S - Y`` semidefinite on the plane:
    ``S - X``'s negative part on the plane taken out of it."""
    values, vectors = np.linalg.eigh(on_plane(S - X))
    negative = values < 0
    part = (vectors[:, negative] * values[negative]) @ vectors[:, negative].T
    return X + from_plane(part)
