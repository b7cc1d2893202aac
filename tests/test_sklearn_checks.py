"""scikit-learn's estimator checks, run as scikit-learn runs them on its own estimators.

Every check passes but where a method cannot meet it, for a stated reason: the majority
vote's default measures its voters out of bag, and on the checks' 20 to 30 examples 100
bootstrap trees leave pairs of voters with no common out-of-bag example, whose tandem
rate cannot be measured; the fit refuses, naming the pair and what to do. A check that
meets that refusal is an expected failure (which checks do depends on the data each
release of scikit-learn draws); any other failure fails. The same vote measured on a
held-out split passes them all.
"""

import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.ensemble import MajorityVoteClassifier, MinCqClassifier
from cvxpb.gp import GPClassifierEP, GPCPlusClassifier, SLTGPClassifier
from cvxpb.minimax import MinimaxClassifier, MinimaxRegressor
from cvxpb.minimax.mpm import MinimaxProbabilityMachine
from cvxpb.svm import EtaPriorSVM, PriorSVM, StochasticSVM

OUT_OF_BAG_ON_FEW_EXAMPLES = (
    "out of bag on the check's few examples: a pair of the 100 trees shares no "
    "out-of-bag example, and fit says so (validation='split' passes this check)"
)
REFUSAL = "share no out-of-bag example"  # fit's words for it


def _refused_out_of_bag(err: BaseException) -> bool:
    """Whether ``err`` (or what it was raised from) is fit's refusal of such a pair."""
    while err is not None:
        if REFUSAL in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False


QUICK = [
    MinCqClassifier(),
    MajorityVoteClassifier(random_state=0),  # out of bag, on one forest: the same each run
    MajorityVoteClassifier(validation="split"),
    SLTGPClassifier(),
    GPClassifierEP(),
    PriorSVM(),
    EtaPriorSVM(),
    MinimaxClassifier(),
    MinimaxRegressor(),
    MinimaxProbabilityMachine(),
]
LONG = [GPCPlusClassifier(), StochasticSVM()]  # a minute and 20 s of fits


def _run(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fits' convergence notes on tiny data
        check(estimator)


@parametrize_with_checks(QUICK)
def test_sklearn_checks(estimator, check):
    """Every check passes, but where the out-of-bag vote's fit refuses the check's few
    examples (which checks meet that depends on the data each release of scikit-learn
    draws): an expected failure, for that reason only."""
    try:
        _run(estimator, check)
    except Exception as err:
        out_of_bag = isinstance(estimator, MajorityVoteClassifier) and estimator.validation == "oob"
        if out_of_bag and _refused_out_of_bag(err):
            pytest.xfail(OUT_OF_BAG_ON_FEW_EXAMPLES)
        raise


@pytest.mark.slow
@parametrize_with_checks(LONG)
def test_sklearn_checks_of_the_long_fits(estimator, check):
    _run(estimator, check)


@pytest.mark.parametrize(
    ("estimator", "words"),
    [
        ("LogisticRegression", "LogisticRegression, not a bagging ensemble"),
        ("forest without bootstrap", "RandomForestClassifier with bootstrap=False"),
        ("list", "a list of classifiers"),
    ],
)
def test_out_of_bag_without_bootstrap_samples_is_refused_before_any_fit(estimator, words):
    """It raised "'LogisticRegression' object has no attribute 'estimators_'" after
    fitting the voter."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    from cvxpb.ensemble.classifier import _check_bagging

    voters = {
        "LogisticRegression": LogisticRegression(),
        "forest without bootstrap": RandomForestClassifier(bootstrap=False),
        "list": [LogisticRegression(), LogisticRegression()],
    }[estimator]
    X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1]
    with pytest.raises(ValueError, match=words) as info:
        MajorityVoteClassifier(voters).fit(X, y)
    assert "validation='split'" in str(info.value) and "\n" not in str(info.value)
    _check_bagging(None)  # the default forest draws bootstrap samples
