"""The plane sum q = 0 by one reflection: an orthonormal basis of it, and a form's
restriction and its way back against the products with that basis and, independently,
the spectrum on a basis from a QR factorization."""

import numpy as np
import pytest

from cvxpb.engine.declare.plane import from_plane, on_plane, tangent_basis


@pytest.mark.parametrize("H", [1, 2, 3, 17, 120])
def test_the_basis_is_orthonormal_and_on_the_plane(H):
    B = tangent_basis(H)
    assert B.shape == (H, H - 1)
    assert np.allclose(B.T @ B, np.eye(H - 1), atol=1e-14)
    assert np.allclose(B.sum(axis=0), 0.0, atol=1e-14)


@pytest.mark.parametrize("H", [2, 3, 17, 120])
def test_restriction_and_extension_match_the_products(H):
    rng = np.random.default_rng(H)
    M = rng.normal(size=(H, H))
    M = M + M.T
    N = rng.normal(size=(H - 1, H - 1))
    N = N + N.T
    B = tangent_basis(H)
    assert np.allclose(on_plane(M), B.T @ M @ B, atol=1e-12)
    extended = from_plane(N)
    assert np.allclose(extended, B @ N @ B.T, atol=1e-12)
    assert np.allclose(extended @ np.ones(H), 0.0, atol=1e-12)  # nothing along 1
    assert np.allclose(on_plane(extended), N, atol=1e-12)


@pytest.mark.parametrize("H", [2, 9, 60])
def test_the_restriction_has_the_spectrum_of_any_basis_of_the_plane(H):
    """The eigenvalues on the plane do not depend on the basis: a QR basis gives the
    same (the route before the reflection)."""
    rng = np.random.default_rng(7)
    M = rng.random((H, H))
    M = M + M.T
    Q = np.linalg.qr(np.vstack([np.ones(H), np.eye(H)[:-1]]).T)[0][:, 1:]
    expected = np.linalg.eigvalsh(Q.T @ M @ Q)
    assert np.allclose(np.linalg.eigvalsh(on_plane(M)), expected, atol=1e-12)


def test_one_voter_has_no_plane():
    assert on_plane(np.array([[0.3]])).shape == (0, 0)
    assert from_plane(np.zeros((0, 0))).tolist() == [[0.0]]
