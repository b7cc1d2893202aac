"""StochasticSVM: scikit-learn's common checks, and the bound against test errors."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb import BoundProblem, datasets
from cvxpb.svm import StochasticSVM
from cvxpb.svm.cv import LambdaSVC


@parametrize_with_checks(
    [StochasticSVM(lambdas=[1e-3, 1e-2, 0.1, 1.0], random_state=0), LambdaSVC(lam=0.01)]
)
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def wdbc():
    data = datasets.load("wdbc")
    X = (data.X - data.X.mean(0)) / data.X.std(0)
    rng = np.random.default_rng(0)
    order = rng.permutation(data.y.size)
    test, rest = order[:114], order[114:]
    return X[rest], data.y[rest], X[test], data.y[test]


@pytest.mark.parametrize(("distance", "divergence"), [("sq", "chi2"), ("kl", "chi2"), ("kl", "kl")])
def test_the_bound_holds_on_held_out_data_and_is_the_problems_optimum(wdbc, distance, divergence):
    X, y, X_test, y_test = wdbc
    clf = StochasticSVM(distance=distance, divergence=divergence, random_state=0).fit(X, y)
    assert clf.lambdas_.size == 158 and np.isclose(clf.posterior_.sum(), 1)
    validation = X.shape[0] - round(0.5 * X.shape[0])  # train_fraction = 0.5 of 455
    assert clf.family_.m == validation == 227
    prob = BoundProblem(clf.risks_, validation, 0.05, distance, divergence)
    assert clf.bound_ == prob.solve().bound  # the bound at the data's own sample size
    empirical = float(clf.risks_ @ clf.posterior_)
    assert empirical <= clf.bound_ < 0.5
    assert clf.gibbs_error(X_test, y_test) <= clf.bound_  # holds w.p. 1 - delta
    assert np.mean(clf.predict(X_test) != y_test) < 0.1


def test_binary_only():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        StochasticSVM(lambdas=[0.1]).fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="needs two classes in y, got 1 class"):
        StochasticSVM(lambdas=[0.1]).fit(X, np.ones(30))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lambdas": [0.1, -1.0]}, "lambdas must be finite and positive"),
        ({"lambdas": [0.1, np.inf]}, "lambdas must be finite and positive"),
        ({"lambdas": []}, "lambdas must be a non-empty 1-D grid"),
        ({"lambdas": [0.1], "delta": 1.5}, "delta must lie in"),
        ({"lambdas": [0.1], "delta": 0.0}, "delta must lie in"),
    ],
)
def test_bad_options_are_value_errors(options, message):
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.arange(30) % 2
    with pytest.raises(ValueError, match=message):
        StochasticSVM(**options).fit(X, y)


def test_nan_features_are_a_value_error():
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.arange(30) % 2
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        StochasticSVM(lambdas=[0.1]).fit(X, y)
