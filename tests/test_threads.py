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
    from cvxpb.engine.declare import programs

    seen = []
    newton = programs.minimize_quadratic_kl

    def spy(*args):
        seen.append(max(_blas_threads().values()))
        return newton(*args)

    monkeypatch.setattr(programs, "minimize_quadratic_kl", spy)
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


def _problems():
    rng = np.random.default_rng(0)
    linear = [  # one size: they share a compiled program
        pb.BoundProblem(
            rng.uniform(0, 0.6, 50), m=500, distance="linear", prior=rng.dirichlet(np.ones(50))
        )
        for _ in range(16)
    ]
    others = [
        pb.BoundProblem(rng.uniform(0, 0.5, 30), m=300, distance=d, divergence=v, alpha=a)
        for d, v, a in [("kl", "kl", None), ("sq", "renyi", 3.0), ("kl", "chi2", None)] * 2
    ]
    return linear + others


def _in_threads(jobs, reps=3):
    """Each job's Result, solved in 4 threads, ``reps`` times over."""
    from concurrent.futures import ThreadPoolExecutor

    runs = []
    for _ in range(reps):
        with ThreadPoolExecutor(4) as pool:
            runs.append(list(pool.map(lambda job: job[0].solve(job[1]), jobs)))
    return runs


def test_same_size_cvx_solves_from_threads_are_the_serial_ones():
    """A compiled CVXPY program's Parameters hold one problem's data until its solution
    is read: shared between threads, 16 solves in 4 threads gave wrong posteriors
    labelled optimal (and solver failures)."""
    jobs = [(p, "cvx") for p in _problems()[:16]]
    exact = [p.solve("exact") for p, _ in jobs]
    for run in _in_threads(jobs):
        for threaded, best in zip(run, exact, strict=True):
            assert threaded.status == "optimal"
            assert threaded.bound == pytest.approx(best.bound, abs=1e-6)


def test_every_method_gives_its_serial_answer_from_several_threads():
    """Every method, solves of one method side by side in 4 threads, against the same
    solve alone in the main thread (SLSQP's iterates hang on BLAS's rounding, so BLAS
    must run on one thread in a worker thread too)."""
    problems = _problems()[::3]
    methods = sorted({m for p in problems for m in p.methods()})
    assert set(methods) >= {"exact", "cvx", "closed_form", "ccp", "fixed_point", "nlp", "declared"}
    jobs = [(p, m) for m in methods for p in problems if m in p.methods()]
    serial = [p.solve(m) for p, m in jobs]
    for run in _in_threads(jobs, reps=2):
        for threaded, alone, (_, method) in zip(run, serial, jobs, strict=True):
            assert threaded.status == alone.status, method
            assert threaded.bound == pytest.approx(alone.bound, abs=1e-9), method
            np.testing.assert_allclose(threaded.posterior, alone.posterior, atol=1e-6)


FRESH_PROCESS = """
import numpy as np, cvxpb as pb
from concurrent.futures import ThreadPoolExecutor
from threadpoolctl import threadpool_info

def blas():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

rng = np.random.default_rng(0)
problems = [
    pb.BoundProblem(rng.uniform(0, .6, 50), m=500, distance="linear",
                    prior=rng.dirichlet(np.ones(50)))
    for _ in range(8)
]
before = blas()
for _ in range(3):
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda p: p.solve("cvx"), problems))
after = blas()
print({path: after[path] for path in before} == before, before, after)
"""


def test_threads_give_back_the_users_blas_limits():
    """BLAS limits are the process's: nested limits from threads that end in another
    order than they began restored each other's values (8 solves in 4 threads left the
    user's 2 threads at 1). In a fresh process, as a user meets it."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS",)}
    env["OPENBLAS_NUM_THREADS"] = "2"  # what the user has, whatever the machine
    out = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.startswith("True"), out
