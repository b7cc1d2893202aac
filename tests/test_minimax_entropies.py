"""F_theta of Farnia & Tse (2016): NumPy against CVXPY, gradients against finite differences and
against the definition (eq. 20) maximized over the simplex, binary cases (eqs. 30, 36)."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cvxpb.minimax.entropies import (
    BrierEntropy,
    LogEntropy,
    QuadraticEntropy,
    ZeroOneEntropy,
    get_entropy,
)

CLASSIFIERS = [LogEntropy(), ZeroOneEntropy(), BrierEntropy()]


def entropy_of(name, p):
    """H(Y) of each loss from its definition (Farnia & Tse (2016), Section 2.2)."""
    if name == "log":
        return cp.sum(cp.entr(p))
    if name == "zero_one":
        return 1 - cp.max(p)
    return 1 - cp.sum_squares(p)


@pytest.mark.parametrize("entropy", CLASSIFIERS, ids=lambda e: e.name)
@pytest.mark.parametrize("t", [1, 2, 4])
def test_value_is_the_conjugate_of_the_entropy(entropy, t):
    """Eq. (20): F(z) = max_p H(p) + p^T z~, solved as a concave maximization."""
    Z = np.random.default_rng(t).normal(scale=2, size=(5, t))
    for z in Z:
        p = cp.Variable(t + 1, nonneg=True)
        objective = entropy_of(entropy.name, p) + p @ np.append(z, 0.0)
        problem = cp.Problem(cp.Maximize(objective), [cp.sum(p) == 1])
        problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        assert entropy.value(z[None, :])[0] == pytest.approx(problem.value, abs=1e-7)
        if entropy.name != "zero_one":  # a unique maximizer: E[theta(Y)] = gradient (eq. 22)
            accuracy = 1e-4 if entropy.name == "log" else 1e-6  # exponential cones: coarser
            assert entropy.gradient(z[None, :])[0] == pytest.approx(p.value[:-1], abs=accuracy)


@pytest.mark.parametrize("entropy", CLASSIFIERS, ids=lambda e: e.name)
@pytest.mark.parametrize("t", [1, 3])
def test_expression_agrees_with_numpy(entropy, t):
    Z = np.random.default_rng(10 + t).normal(scale=3, size=(7, t))
    problem = cp.Problem(cp.Minimize(cp.sum(entropy.expression(cp.Constant(Z)))))
    assert problem.is_dcp()
    problem.solve(solver="CLARABEL")
    assert problem.value == pytest.approx(entropy.value(Z).sum(), abs=1e-7)


@settings(max_examples=80, deadline=None)
@given(arrays(float, (3,), elements=st.floats(-5, 5)), st.sampled_from(CLASSIFIERS))
def test_gradient_matches_finite_differences(z, entropy):
    h = 1e-6
    values = []
    for j in range(3):
        step = np.zeros(3)
        step[j] = h
        values.append((entropy.value(z + step) - entropy.value(z - step))[0] / (2 * h))
    grad = entropy.gradient(z[None, :])[0]
    if entropy.name == "zero_one":  # piecewise linear: compare away from the kinks only
        # a kink in any coordinate (ties such as z = (4, 4.5, 4.5) included) shows as
        # one-sided differences that disagree along that coordinate
        eye, f0 = np.eye(3) * 1e-4, entropy.value(z)[0]
        ahead = [entropy.value(z + e)[0] - f0 for e in eye]
        behind = [f0 - entropy.value(z - e)[0] for e in eye]
        if not np.allclose(ahead, behind, atol=1e-12):
            return
    assert grad == pytest.approx(values, abs=1e-5)
    assert np.all(grad >= 0) and grad.sum() <= 1 + 1e-12  # probabilities of the t classes


def test_binary_zero_one_is_eq_30_and_brier_is_eq_36_plus_a_half():
    z = np.linspace(-5, 5, 101)
    zero_one = ZeroOneEntropy().value(z[:, None])
    assert zero_one == pytest.approx(np.maximum.reduce([0 * z, (z + 1) / 2, z]))
    huber = np.where(np.abs(z) <= 2, z**2 / 8, np.abs(z) / 2 - 0.5)
    # eq. (36) leaves out the constant: F(0) = H(uniform) = 1/2
    assert BrierEntropy().value(z[:, None]) - z / 2 == pytest.approx(huber + 0.5)


def test_quadratic_is_huber_and_its_gradient_is_eq_33():
    q = QuadraticEntropy(rho=1.5)
    z = np.linspace(-8, 8, 33)
    assert q.value(z) == pytest.approx(
        1.5**2 + np.where(np.abs(z) <= 3, z**2 / 4, 1.5 * (np.abs(z) - 1.5))
    )
    assert q.gradient(z)[:, 0] == pytest.approx(np.clip(z / 2, -1.5, 1.5))
    assert QuadraticEntropy().value(z) == pytest.approx(z**2 / 4)


def test_bad_names():
    with pytest.raises(ValueError, match="loss must be one of"):
        get_entropy("hinge")
    with pytest.raises(ValueError, match="rho must be positive"):
        get_entropy("quadratic", rho=0)
