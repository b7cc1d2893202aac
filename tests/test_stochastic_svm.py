"""StochasticSVM: scikit-learn's common checks, and the bound against test errors."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
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


def brute_force_vote(clf, X):
    """Every SVM's own ``predict``, weighted by the posterior: the definition."""
    votes = np.column_stack([est.predict(X) for est in clf.family_.estimators])
    positive = (votes == 1) @ clf.posterior_
    return clf.classes_[(positive > 0.5).astype(int)], positive


@pytest.mark.parametrize(("distance", "divergence"), [("sq", "chi2"), ("kl", "kl")])
def test_predict_is_the_weighted_vote_of_every_svm(wdbc, distance, divergence):
    X, y, X_test, _ = wdbc
    clf = StochasticSVM(distance=distance, divergence=divergence, random_state=0).fit(X, y)
    labels, positive = brute_force_vote(clf, X_test)
    assert np.array_equal(clf.predict(X_test), labels)
    assert np.allclose(clf.predict_proba(X_test)[:, 1], positive, atol=1e-12)
    assert np.array_equal(
        clf.family_.votes(X_test),
        np.column_stack([est.predict(X_test) for est in clf.family_.estimators]),
    )


def test_predict_asks_the_light_svms_where_they_could_turn_the_vote(wdbc):
    X, y, X_test, _ = wdbc
    clf = StochasticSVM(distance="sq", divergence="chi2", random_state=0).fit(X, y)
    votes = clf.family_.votes(X_test)
    # a posterior whose heavy part ties exactly: half on an SVM voting +1 on the first
    # point and half on one voting -1, and a light 1e-9 on a third that breaks the tie
    plus, minus = np.flatnonzero(votes[0] == 1), np.flatnonzero(votes[0] == -1)
    if plus.size < 2 or minus.size < 1:
        pytest.skip("the family does not split on this point")
    q = np.zeros(votes.shape[1])
    q[plus[0]], q[minus[0]], q[plus[1]] = 0.5 - 5e-10, 0.5 - 5e-10, 1e-9
    clf.posterior_ = q
    labels, positive = brute_force_vote(clf, X_test[:1])
    assert positive[0] > 0.5 and np.array_equal(clf.predict(X_test[:1]), labels)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ({"divergence": "renyi"}, "needs alpha > 1"),
        ({"divergence": "chi2", "distance": "catoni"}, "needs divergence='kl'"),
        ({"divergence": "nope"}, "divergence must be one of"),
        ({"distance": "l2"}, "distance must be one of"),
    ],
)
def test_the_bounds_words_are_checked_before_any_svm_is_trained(words, message, monkeypatch):
    from cvxpb.svm import stochastic

    monkeypatch.setattr(stochastic, "fit_family", lambda *a: pytest.fail("SVMs trained"))
    X, y = make_classification(n_samples=60, random_state=0)
    with pytest.raises(ValueError, match=message):
        StochasticSVM(**words).fit(X, y)


def test_a_divergence_object_and_a_renyi_order():
    """It took no alpha (divergence="renyi" could not be fit) and refused no object."""
    from cvxpb.pac_bayes.divergences import Renyi

    X, y = make_classification(n_samples=120, random_state=0)
    lambdas = [0.01, 0.1, 1.0]
    by_name = StochasticSVM(lambdas=lambdas, divergence="renyi", alpha=3.0, random_state=0)
    by_object = StochasticSVM(lambdas=lambdas, divergence=Renyi(3.0), random_state=0)
    assert by_name.fit(X, y).bound_ == by_object.fit(X, y).bound_
