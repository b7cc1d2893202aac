"""BLAS on one thread in every entry point that computes, the user's setting back after."""

import os

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import cvxpb as pb
from cvxpb.ensemble import bounds as mv
from cvxpb.threads import one_blas_thread


def _blas_threads():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_every_loaded_blas_is_limited_and_restored():
    """NumPy's and SciPy's OpenBLAS are two libraries: both go to one thread."""
    import scipy.linalg  # noqa: F401

    with threadpool_limits(2, "blas"):
        before = _blas_threads()
        with one_blas_thread():
            assert set(_blas_threads().values()) == {1}
            assert len(_blas_threads()) >= 2
        assert _blas_threads() == before


def test_minimize_runs_its_programs_on_one_thread(monkeypatch):
    """The Newton programs' factorizations (LAPACK through SciPy) see one thread."""
    from cvxpb.engine.declare import pareto

    seen = []
    newton = pareto.minimize_quadratic_kl

    def spy(*args):
        seen.append(max(_blas_threads().values()))
        return newton(*args)

    monkeypatch.setattr(pareto, "minimize_quadratic_kl", spy)
    errors = (np.random.default_rng(0).random((200, 5)) < 0.3).astype(float)
    with threadpool_limits(2, "blas"):
        pb.Minimize(mv.tandem(pb.Posterior.uniform(5), errors)).solve()
        assert max(_blas_threads().values()) == 2
    assert seen and set(seen) == {1}


def test_estimators_fit_on_one_thread(monkeypatch):
    from sklearn.ensemble import RandomForestClassifier

    from cvxpb.ensemble import MajorityVoteClassifier, classifier

    seen = []
    statistics = classifier._statistics

    def spy(*args):
        seen.append(max(_blas_threads().values()))
        return statistics(*args)

    monkeypatch.setattr(classifier, "_statistics", spy)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    with threadpool_limits(2, "blas"):
        MajorityVoteClassifier(forest, bound="tnd").fit(X, y)
    assert seen == [1]


@pytest.mark.parametrize("preset", [None, "2"])
def test_the_command_line_sets_one_thread_for_its_workers_unless_the_user_did(
    preset, tmp_path, monkeypatch, capsys
):
    from cvxpb.app import cli

    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    if preset:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    risks = tmp_path / "risks.csv"
    risks.write_text("0.1\n0.2\n0.3\n")
    assert cli.main(["solve", str(risks), "--m", "100"]) == 0
    assert "bound" in capsys.readouterr().out
    assert os.environ["OPENBLAS_NUM_THREADS"] == (preset or "1")
    assert os.environ["MKL_NUM_THREADS"] == "1"


def test_warnings_point_at_the_users_line_through_the_decorator():
    """A decorated entry point adds a frame: a stacklevel counted by hand then named
    cvxpb/threads.py as the warning's place. warn_user names the caller's line."""
    import warnings

    from cvxpb.gp import GPClassifierEP

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = GPClassifierEP().fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.pac_bayes_bound(delta=0.05, sigma0_sq=1e-6)  # condition (28) fails
    assert caught and {w.filename for w in caught} == {__file__}
