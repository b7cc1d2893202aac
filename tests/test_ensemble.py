"""MajorityVoteClassifier: scikit-learn's estimator checks, the out-of-bag statistics
against a loop over the trees, the vote against a hand-written weighted vote, and each
bound's report."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from cvxpb.ensemble.classifier import MajorityVoteClassifier, _out_of_bag, _statistics
from tests.maurer_xi import xi


@parametrize_with_checks(
    [
        MajorityVoteClassifier(
            RandomForestClassifier(n_estimators=6, random_state=0),
            bound="first_order",
            validation="split",
            random_state=0,
        )
    ]
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _binary(n=400, seed=0):
    return make_classification(n_samples=n, n_features=8, flip_y=0.1, random_state=seed)


def test_out_of_bag_rates_match_a_loop_over_the_trees():
    X, y = _binary()
    forest = RandomForestClassifier(n_estimators=12, random_state=1).fit(X, y)
    model = MajorityVoteClassifier(forest, validation="prefit")
    model.ensemble_, model.estimators_ = forest, list(forest.estimators_)
    votes = model._member_votes(X)
    seen = _out_of_bag(forest, len(y))
    stats = _statistics(votes, y, seen)
    for h, g in [(0, 1), (3, 7), (5, 5)]:
        out_h = np.setdiff1d(np.arange(len(y)), forest.estimators_samples_[h])
        out_g = np.setdiff1d(np.arange(len(y)), forest.estimators_samples_[g])
        both = np.intersect1d(out_h, out_g)
        wrong_h = forest.estimators_[h].predict(X[both]) != y[both]
        wrong_g = forest.estimators_[g].predict(X[both]) != y[both]
        assert stats["tandem"][h, g] == pytest.approx(np.mean(wrong_h & wrong_g), abs=1e-15)
        differ = forest.estimators_[h].predict(X[both]) != forest.estimators_[g].predict(X[both])
        assert stats["disagreement"][h, g] == pytest.approx(np.mean(differ), abs=1e-15)
        own = np.mean(forest.estimators_[h].predict(X[out_h]) != y[out_h])
        assert stats["risks"][h] == pytest.approx(own, abs=1e-15)
    sizes = [len(np.setdiff1d(np.arange(len(y)), s)) for s in forest.estimators_samples_]
    assert stats["n_gibbs"] == min(sizes)


@pytest.mark.parametrize("validation", ["oob", "split"])
def test_binary_forest_every_bound_reported(validation):
    """Two classes: every bound, each own minimum at most its value at the chosen
    posterior, the chosen one's value there equal to its minimum, and every bound
    above the vote's risk on fresh data."""
    X, y = _binary(800)
    X_test, y_test = _binary(4000, seed=1)
    model = MajorityVoteClassifier(
        RandomForestClassifier(n_estimators=20, random_state=0),
        bound="tnd",
        validation=validation,
        random_state=0,
    ).fit(X[:400], y[:400])
    bounds = model.bounds(progress=False)
    assert set(bounds.index) == {
        "first_order", "tnd", "cctnd", "split_kl", "unexpected_bernstein", "ccpbb", "ctd",
        "lambda", "c_bound", "pac_bound_2", "dis",
    }  # fmt: skip
    assert bounds.loc["tnd", "at_posterior"] == model.result_.bound
    test_risk = np.mean(model.predict(X_test) != y_test)
    for name, row in bounds.iterrows():
        assert row["minimum"] <= row["at_posterior"] + 1e-9, name
        assert row["minimum"] <= row["at_uniform"] + 1e-9, name
        assert test_risk <= row["minimum"], name
    expected = {"oob": ("optimal", "local"), "split": ("optimal",)}[validation]
    assert model.result_.status in expected
    assert model.posterior_.sum() == pytest.approx(1, abs=1e-12)


def test_each_bound_says_its_certified_gap_and_seconds():
    """``bounds()`` rows carry the search's certified gap (the certificate's own, at
    most the goal where optimal) and its seconds (the fit's own for the fitted bound)."""
    X, y = _binary(600)
    model = MajorityVoteClassifier(
        RandomForestClassifier(n_estimators=10, random_state=0), bound="first_order"
    ).fit(X, y)
    bounds = model.bounds(progress=False)
    for name, row in bounds.iterrows():
        result = model.solve_bound(name)
        gap = result.certificate.gap if result.certificate else np.inf
        assert row["gap"] == gap >= 0, name
        assert 0 < row["seconds"] < 60, name
        if row["status"] == "optimal":
            assert row["gap"] <= 1e-7, name  # the classifier's TOL
    assert bounds.loc["first_order", "seconds"] == model.result_.seconds


def test_the_vote_is_the_posterior_weighted_majority():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    model = MajorityVoteClassifier(
        BaggingClassifier(
            DecisionTreeClassifier(max_depth=2), n_estimators=9, random_state=0, max_features=0.5
        ),
        bound="first_order",
        divergence="chi2",
    ).fit(X, labels)
    assert set(model.bounds(progress=False).index) == {  # three classes: no C-bound, no DIS
        "first_order", "tnd", "cctnd", "split_kl", "unexpected_bernstein", "ccpbb", "ctd",
        "lambda",
    }  # fmt: skip
    votes = np.stack([labels_of(model, h, X) for h in range(9)], axis=1)
    shares = np.stack([(votes == c) @ model.posterior_ for c in model.classes_], axis=1)
    assert np.array_equal(model.predict(X), model.classes_[np.argmax(shares, axis=1)])
    assert model.predict_proba(X) == pytest.approx(shares, abs=1e-12)


def labels_of(model, h, X):
    """Voter h's labels, by hand: bagging trees see their features, answer in indices."""
    bagging = model.ensemble_
    index = bagging.estimators_[h].predict(X[:, bagging.estimators_features_[h]])
    return bagging.classes_[index.astype(int)]


def test_a_list_of_classifiers_and_prefit_voters():
    X, y = _binary(600)
    voters = [LogisticRegression(C=c) for c in (0.01, 0.1, 1.0)] + [
        DecisionTreeClassifier(max_depth=3)
    ]
    split = MajorityVoteClassifier(voters, bound="c_bound", validation="split").fit(X, y)
    assert split.result_.status in ("local", "optimal")
    fitted = [v.fit(X[:300], y[:300]) for v in voters]
    prefit = MajorityVoteClassifier(fitted, bound="dis", validation="prefit").fit(X[300:], y[300:])
    assert prefit.n_bound_ == 300
    assert prefit.estimators_[0] is fitted[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bound": "second"}, "bound must be one of"),
        ({"validation": "cv"}, "validation must be one of"),
        ({"delta": 1.5}, "delta must lie in"),
        ({"test_size": 1.0}, "test_size must lie in"),
        ({"estimator": [LogisticRegression()]}, "needs a bagging ensemble"),
        ({"estimator": RandomForestClassifier(bootstrap=False, n_estimators=3)}, "bootstrap"),
        ({"bound": "c_bound", "estimator": RandomForestClassifier(n_estimators=3)}, "two-class"),
    ],
)
def test_bad_parameters_are_named(kwargs, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        MajorityVoteClassifier(**kwargs).fit(X, y)


@pytest.mark.parametrize(
    ("estimator", "which"),
    [
        (RandomForestClassifier(n_estimators=3), "the ensemble"),
        ([LogisticRegression(), DecisionTreeClassifier()], "voter 0"),
    ],
)
def test_prefit_voters_that_are_not_fitted_are_named(estimator, which):
    """Not an AttributeError from deep inside: a ValueError naming validation='prefit'
    and the voter, before any work."""
    X, y = _binary(100)
    model = MajorityVoteClassifier(estimator, validation="prefit")
    with pytest.raises(ValueError, match=f"validation='prefit' needs fitted voters, but {which}"):
        model.fit(X, y)


def test_prefit_names_the_first_unfitted_voter_of_a_list():
    X, y = _binary(100)
    voters = [LogisticRegression().fit(X, y), DecisionTreeClassifier()]
    with pytest.raises(ValueError, match="voter 1 \\(DecisionTreeClassifier\\) is not fitted"):
        MajorityVoteClassifier(voters, validation="prefit").fit(X, y)


def test_a_fit_declares_only_its_bound_and_the_rest_when_read():
    """declarations_ names every bound at once; a fit declares only the one it
    minimizes, membership declares nothing, and reading a name declares it once."""
    from cvxpb.app import datasets

    data = datasets.keel("housevotes")
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    model = MajorityVoteClassifier(forest, bound="tnd", validation="split", random_state=0)
    model.fit(data.X, data.y)
    declared = model.declarations_
    assert list(declared)[:3] == ["first_order", "tnd", "cctnd"] and "dis" in declared
    assert set(declared._made) == {"tnd"}
    assert declared["ccpbb"] is declared["ccpbb"]
    assert set(declared._made) == {"tnd", "ccpbb"}
    with pytest.raises(KeyError):
        declared["no_such_bound"]
    again = pickle.loads(pickle.dumps(model))
    assert again.solve_bound("first_order").bound == model.solve_bound("first_order").bound


def test_a_bound_at_a_posterior_is_its_declarations_value_there():
    """``bound_at`` against the declared bound's own value at the posterior (the fitted
    one by default, the uniform one as given, a union's least part for CCTND), and a
    ValueError naming the argument for an unknown bound or a posterior of the wrong
    size."""
    from cvxpb import Minimize

    X, y = _binary()
    forest = RandomForestClassifier(n_estimators=8, random_state=0)
    model = MajorityVoteClassifier(forest, bound="tnd", validation="split").fit(X, y)
    uniform = np.full(8, 1 / 8)
    assert model.bound_at("tnd") == Minimize(model.declarations_["tnd"]).value_at(model.posterior_)
    assert model.bound_at("tnd") == model.result_.bound
    assert (
        model.bound_at("first_order", uniform)
        == model.bounds(progress=False).loc["first_order", "at_uniform"]
    )
    # and independently: at the uniform posterior (KL = 0) the first-order bound is
    # 2 kl^-1(mean risk, ln(xi(n) / delta) / n), in 40 digits
    import mpmath

    from tests.test_split_kl_bernstein import mp_kl_inverse

    stats = model.statistics_
    n = stats["n_gibbs"]
    with mpmath.workdps(40):
        risk = sum(mpmath.mpf(float(r)) for r in stats["risks"]) / 8
        side = mpmath.log(mpmath.mpf(xi(n)) / mpmath.mpf(0.05)) / n
        exact = 2 * mp_kl_inverse(risk, side, upper=True)
        assert exact <= model.bound_at("first_order", uniform) <= exact * (1 + 1e-12)
    parts = model.declarations_["cctnd"]
    assert model.bound_at("cctnd", uniform) == min(Minimize(p).value_at(uniform) for p in parts)
    with pytest.raises(ValueError, match="bound"):
        model.bound_at("nope")
    with pytest.raises(ValueError, match="posterior"):
        model.bound_at("tnd", np.full(7, 1 / 7))


def test_a_small_bound_is_certified_within_1e_6_of_itself():
    """Bounds near 0.03 (rare, correlated errors): at 1e-7 absolute CCTND and CTD stop
    at 1.3e-6 and 2.1e-6 of the bound; the classifier's search goes on to 1e-6 of it,
    "optimal", never above the first value; TND is there already and is not searched
    again."""
    import cvxpb as pb
    from cvxpb.ensemble import bounds as mv
    from cvxpb.ensemble.classifier import _minimize

    rng = np.random.default_rng(0)
    n, H = 3000, 8
    hard = rng.random((n, 1)) < 0.004
    E = ((hard & (rng.random((n, H)) < 0.7)) | (rng.random((n, H)) < 0.002)).astype(float)
    q = pb.Posterior.uniform(H)
    for declared in (
        mv.chebyshev_cantelli_tnd(q, E.mean(0), n, E),
        mv.c_tandem(q, E.mean(0), n, E),
    ):
        absolute, relative = _minimize(declared, rtol=np.inf), _minimize(declared)
        assert absolute.status == "optimal" and absolute.certificate.gap > 1e-6 * absolute.bound
        assert relative.status == "optimal" and relative.certificate.gap <= 1e-6 * relative.bound
        assert relative.bound <= absolute.bound
        assert relative.certificate.lower_bound <= relative.bound
    tnd = _minimize(mv.tandem(q, E))
    assert tnd.certificate.gap <= 1e-6 * tnd.bound


def test_explain_links_the_gap_to_the_pairs_counts():
    """breast_cancer out of bag: "local" with a gap of 0.023 and pairs counted on 59 of
    569 examples; explain says where the rates come from, on how many examples, what
    the gap means and why it is there. Held out, the minimum is certified: no gap note."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    clf = MajorityVoteClassifier(forest, bound="tnd").fit(X, y)
    text, res = clf.explain(), clf.result_
    assert res.status == "local" and res.certificate.gap > 1e-3
    assert f"at least {clf.n_bound_} (n_bound_)" in text and "of 569 examples" in text
    assert f"between {res.certificate.lower_bound:.6g} and {res.bound:.6g}" in text
    assert "out of bag" in text and "validation='split'" in text
    assert str(res).splitlines()[0] in text
    held_out = MajorityVoteClassifier(forest, bound="tnd", validation="split", random_state=0)
    held_out.fit(X, y)
    assert held_out.result_.status == "optimal" and "gap:" not in held_out.explain()


def test_bounds_is_a_table_with_progress_shown(capsys):
    """``bounds()``: a DataFrame, one row per bound, the columns it documents; the
    progress bar names the bounds as it goes (off a terminal too); a second call returns
    the same table without searching again."""
    X, y = _binary(300)
    model = MajorityVoteClassifier(
        RandomForestClassifier(n_estimators=6, random_state=0), validation="split", random_state=0
    ).fit(X, y)
    table = model.bounds()
    err = capsys.readouterr().err
    assert "bounds" in err and "11/11" in err and "pac_bound_2" in err
    assert table.index.name == "bound" and len(table) == 11
    assert list(table.columns) == [
        "at_posterior", "at_uniform", "minimum", "status", "gap", "method", "seconds",
    ]  # fmt: skip
    assert table.loc["tnd", "minimum"] == model.result_.bound
    assert (table["method"] == "declared").all()
    again = model.bounds(progress=False)
    assert capsys.readouterr().err == "" and again.equals(table)


def test_the_classifier_takes_any_registered_method():
    """``method=``: ours (exact for the first-order bound, within the two certificates'
    gaps of declared's), a user's registered one, and a ValueError naming the methods
    that accept the bound where the one asked does not."""
    from cvxpb.engine.methods import register_method, unregister_method
    from tests.users_own import AtThePrior

    X, y = _binary(300)
    forest = RandomForestClassifier(n_estimators=8, random_state=0)
    how = {"validation": "split", "random_state": 0}
    declared = MajorityVoteClassifier(forest, bound="first_order", **how).fit(X, y)
    exact = MajorityVoteClassifier(forest, bound="first_order", method="exact", **how).fit(X, y)
    assert exact.result_.method == "exact" and exact.result_.status == "optimal"
    assert abs(exact.result_.bound - declared.result_.bound) <= 1e-7 + 1e-9
    table = exact.bounds(progress=False)
    assert (
        table.loc["first_order", "method"] == "exact" and table.loc["tnd", "method"] == "declared"
    )
    with pytest.raises(ValueError, match="method='exact' does not accept bound='tnd'.*declared"):
        MajorityVoteClassifier(forest, bound="tnd", method="exact", **how).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        MajorityVoteClassifier(forest, method="newton", **how).fit(X, y)
    method = register_method(AtThePrior())
    try:
        model = MajorityVoteClassifier(forest, bound="tnd", method="at_the_prior", **how)
        with pytest.warns(UserWarning, match="not proven least.*explain"):
            model.fit(X, y)
        uniform = np.full(8, 1 / 8)
        assert model.result_.bound == model.bound_at("tnd", uniform)
        assert model.result_.method == "at_the_prior"
        assert "method 'at_the_prior' proves no lower bound" in model.explain()
    finally:
        unregister_method(method.name)
