"""The SVM family: sigest's invariances, risks, and joblib backends (Dask included)."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.dummy import DummyClassifier

from cvxpb.svm.family import fit_family, sigest
from tests.synthetic import labelled_blobs


def test_sigest_scales_as_one_over_squared_length():
    X = np.random.default_rng(0).normal(size=(200, 5))
    assert sigest(3 * X, random_state=1) == pytest.approx(sigest(X, random_state=1) / 9)


def test_sigest_on_two_points_at_unit_distance():
    X = np.array([[0.0], [1.0]] * 50)
    assert sigest(X, random_state=0) == 1.0  # every nonzero squared distance is 1


def test_risks_are_validation_frequencies():
    X, y = labelled_blobs(200, 0, separation=4.0)
    fam = fit_family(X, y, [1e-4, 1e-2, 1.0], random_state=0)
    assert fam.m == 100 and fam.risks.shape == (3,)
    assert np.allclose(fam.risks * fam.m, np.round(fam.risks * fam.m))  # multiples of 1/m
    assert fam.risks[:2].max() <= 0.02  # well separated: lightly regularized SVMs are exact
    # lam = 1 gives C = 1/(lam m) = 0.01: the SVM predicts the majority class throughout
    assert fam.estimators[2].predict(X).tolist() == [fam.estimators[2].predict(X)[0]] * 200
    assert 0.3 < fam.risks[2] < 0.7
    noise = fit_family(
        X, np.random.default_rng(1).choice([-1, 1], 200), [1e-3] * 20, random_state=0
    )
    assert 0.4 < noise.risks.mean() < 0.6  # labels independent of X


def test_one_class_subsamples_become_constant_classifiers():
    X = np.arange(10.0)[:, None]
    y = np.array([1] * 9 + [-1])
    fam = fit_family(X, y, [0.1] * 8, train_fraction=0.3, random_state=0)
    constant = [e for e in fam.estimators if isinstance(e, DummyClassifier)]
    assert constant and all(np.all(e.predict(X) == 1) for e in constant)


def test_bad_split_is_a_value_error():
    with pytest.raises(ValueError, match="train_fraction must lie in"):
        fit_family(np.zeros((4, 1)), np.array([1, -1, 1, -1]), [0.1], train_fraction=1.5)


def test_dask_backend_gives_the_same_family():
    distributed = pytest.importorskip("distributed")
    X, y = labelled_blobs(120, 2, separation=1.0)
    lambdas = np.geomspace(1e-4, 1, 6)
    local = fit_family(X, y, lambdas, random_state=3)
    with (
        distributed.Client(
            processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
        ),
        parallel_config(backend="dask"),
    ):
        remote = fit_family(X, y, lambdas, random_state=3, n_jobs=2)
    assert np.array_equal(local.risks, remote.risks) and local.gamma == remote.gamma


def test_a_cluster_that_loses_its_workers_is_a_clear_error(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from cvxpb import parallel

    class DyingCluster:  # yields two results, then its futures are cancelled
        def __init__(self, **kwargs):
            pass

        def __call__(self, tasks):
            yield from (1, 2)
            raise distributed.client.FutureCancelledError("key", "lost")

    monkeypatch.setattr(parallel, "Parallel", DyingCluster)
    with pytest.raises(parallel.ClusterLostError, match="after 2 of 5 svm tasks"):
        parallel.run_parallel(iter(()), 5, desc="SVMs", unit="svm")


def test_a_lost_cluster_reaches_the_command_line_as_one_line(monkeypatch, capsys):
    from cvxpb import parallel
    from cvxpb.app.cli import main
    from cvxpb.app.experiments import stochastic_svm

    def lost(*args, **kwargs):
        raise parallel.ClusterLostError("the parallel backend dask lost its workers")

    monkeypatch.setattr(stochastic_svm, "run_dataset", lost)
    code = main(["experiment", "stochastic-svm", "--dataset", "haberman", "--no-plots"])
    err = capsys.readouterr().err
    assert code == 1 and "lost its workers" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["bupa", "haberman", "ionosphere"])
def test_appendix_grid_needs_kernlabs_cost(name):
    """On Sahu & Hemachandra's Appendix D grid (lam in [0.1, 20]) C = 1/(lam m) is at
    most 10/m: every SVM predicts one class. With C = 1/lam the small lam learn."""
    from cvxpb.app import datasets
    from cvxpb.app.experiments.stochastic_svm import split
    from cvxpb.svm import linear_grid

    X, y, X_test, _ = split(datasets.load(name))
    lambdas = linear_grid(1990)[::199]  # ten points from 0.1 to 18.01
    per_example = fit_family(X, y, lambdas, random_state=0)
    kernlab = fit_family(X, y, lambdas, random_state=0, cost="1/lam")
    assert all(np.unique(e.predict(X_test)).size == 1 for e in per_example.estimators)
    # C = 10 at lam = 0.1 learns; towards lam = 20 (C = 0.05) they fall to one class too
    assert np.unique(kernlab.estimators[0].predict(X_test)).size == 2
    assert np.unique(kernlab.estimators[-1].predict(X_test)).size == 1
    with pytest.raises(ValueError, match="cost must be one of"):
        fit_family(X, y, lambdas, cost="1/C")
