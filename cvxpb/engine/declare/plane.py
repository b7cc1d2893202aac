"""The plane ``sum q = 0`` that the simplex lies parallel to, by one reflection.

The Householder reflection ``P = I - 2 w w^T`` with ``w`` along ``1/sqrt(H) - e_1``
maps ``1/sqrt(H)`` to ``e_1``; ``P`` is symmetric and orthogonal, so its columns after
the first are an orthonormal basis ``B`` of the plane. A form's restriction to the
plane, ``B^T M B``, is then ``P M P`` without its first row and column, and
``P M P = M - 2 w m^T - 2 m w^T + 4 (w^T m) w w^T`` with ``m = M w``: ``O(H^2)``
operations where the products with ``B`` take ``O(H^3)``.
"""

from __future__ import annotations

import numpy as np


def _reflector(H: int) -> np.ndarray:
    """``w`` of the reflection (zero for ``H = 1``, where there is no plane)."""
    w = np.full(H, 1.0 / np.sqrt(H))
    w[0] -= 1.0
    norm = np.linalg.norm(w)
    return w / norm if norm > 0 else w


def _reflect(M, w):
    """``P M P`` for symmetric ``M``."""
    m = M @ w
    c = w @ m
    return M - 2 * np.outer(w, m) - 2 * np.outer(m, w) + 4 * c * np.outer(w, w)


def tangent_basis(H):
    """An orthonormal basis of the plane ``sum q = 0``.

    Parameters
    ----------
    H : int
        The dimension.

    Returns
    -------
    ndarray of shape (H, H - 1)
        Orthonormal columns, each summing to 0.
    """
    w = _reflector(H)
    return (np.eye(H) - 2 * np.outer(w, w))[:, 1:]


def on_plane(M):
    """``B^T M B``: a symmetric form on the plane, in :func:`tangent_basis`'s basis.

    Parameters
    ----------
    M : ndarray of shape (H, H)
        A symmetric matrix.

    Returns
    -------
    ndarray of shape (H - 1, H - 1)
        The restriction, symmetric.
    """
    reflected = _reflect(np.asarray(M, dtype=float), _reflector(M.shape[0]))[1:, 1:]
    return (reflected + reflected.T) / 2


def from_plane(N):
    """``B N B^T``: a form on the plane as an ``H x H`` matrix.

    Parameters
    ----------
    N : ndarray of shape (H - 1, H - 1)
        A symmetric matrix in the basis of :func:`tangent_basis`.

    Returns
    -------
    ndarray of shape (H, H)
        The form, symmetric, zero along ``1``.
    """
    H = N.shape[0] + 1
    padded = np.zeros((H, H))
    padded[1:, 1:] = N
    full = _reflect(padded, _reflector(H))
    return (full + full.T) / 2
