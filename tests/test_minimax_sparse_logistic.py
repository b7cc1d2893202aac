"""Binary minimax log loss with the lasso and group-lasso penalties: skglm's route against
the CVXPY program of eq. (21)."""

import numpy as np
import pytest

from cvxpb.minimax import MinimaxClassifier
from cvxpb.minimax import sparse_logistic as sl
from cvxpb.minimax.program import encode, minimax_program


def _data(n=120, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, :4] @ [1.0, -1.0, 0.5, 2.0] + rng.normal(size=n) > 0.3, "b", "a")
    return X, y


GROUPS = [list(range(k, k + 5)) for k in range(0, 40, 5)]


@pytest.mark.parametrize(
    ("norm", "eps", "groups", "fit_intercept"),
    [
        ("linf", 0.02, None, True),
        ("linf", 0.02, None, False),
        ("linf", 0.2, None, True),
        ("linf", 0.2, None, False),
        pytest.param("group", 0.05, GROUPS, True, marks=pytest.mark.slow),  # 18 s
        ("group", 0.05, GROUPS, False),
        ("group", 0.01, GROUPS, True),
        ("group", 0.01, GROUPS, False),
    ],
)
def test_skglm_reaches_the_conic_optimum_with_exact_zeros(norm, eps, groups, fit_intercept):
    X, y = _data()
    auto = MinimaxClassifier(
        loss="log", norm=norm, eps=eps, groups=groups, fit_intercept=fit_intercept
    ).fit(X, y)
    assert auto.route_ == "skglm"
    Xa = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    free = (X.shape[1],) if fit_intercept else ()
    problem, _ = minimax_program(Xa, y, "log", norm, eps, groups=groups, free=free)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-9, tol_gap_rel=1e-9, tol_feas=1e-9)
    assert auto.worst_case_loss_ == pytest.approx(problem.value, rel=1e-8)
    assert auto.worst_case_loss_ <= problem.value + 1e-9
    conic = MinimaxClassifier(
        loss="log",
        norm=norm,
        eps=eps,
        groups=groups,
        fit_intercept=fit_intercept,
        solver="CLARABEL",
    ).fit(X, y)
    assert np.array_equal(auto.A_ != 0, conic.A_ != 0)  # the polished conic support


def test_the_skglm_objective_is_eq_21():
    """skglm's logistic loss with y = 2 theta - 1 is F(z) - theta z for the log loss."""
    z = np.linspace(-30, 30, 61)
    for theta in (0.0, 1.0):
        ours = np.logaddexp(0, z) - theta * z
        assert np.logaddexp(0, -(2 * theta - 1) * z) == pytest.approx(ours, rel=1e-12)
    assert encode(np.array(["a", "b"]), np.array(["a", "b"])).ravel().tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("log", 1, "linf", 0.1, None, "l2", False, (9,), 10), True),
        (("log", 1, "linf", 0.1, None, "l2", False, (), 10), True),
        (("log", 2, "linf", 0.1, None, "l2", False, (9,), 10), False),  # multiclass
        (("brier", 1, "linf", 0.1, None, "l2", False, (9,), 10), False),
        (("log", 1, "l2", 0.1, None, "l2", False, (9,), 10), False),
        (("log", 1, "linf", 0.1, None, "l2", True, (9,), 10), False),  # squared
        (("log", 1, "group", 0.1, [[0]], "l2", False, (9,), 10), True),
        (("log", 1, "group", 0.1, [[0]], "linf", False, (9,), 10), False),
        (("log", 1, "linf", 0.1, None, "l2", False, (3,), 10), False),  # a free feature
    ],
)
def test_skglm_is_used_only_where_it_solves_the_same_problem(args, expected):
    assert sl.applicable(*args) is expected


def test_no_convergence_falls_back_to_the_conic_program(monkeypatch):
    monkeypatch.setattr(sl, "solve", lambda *args: None)
    X, y = _data(seed=1)
    clf = MinimaxClassifier(loss="log", norm="linf", eps=0.05).fit(X, y)
    assert clf.route_ == "CVXPY program, CLARABEL"
