"""One registry of majority-vote bounds: the classifier, the command line and the tables
read it, and a bound of one's own joins by name or goes to bound= as a callable."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

import cvxpb as pb
from cvxpb.app.legend import METHODS
from cvxpb.ensemble import MajorityVoteClassifier
from cvxpb.ensemble import bounds as mv
from cvxpb.ensemble.registry import REGISTRY, register

X, Y = load_breast_cancer(return_X_y=True)


def _fit(bound, **kwargs):
    forest = RandomForestClassifier(n_estimators=8, random_state=0)
    return MajorityVoteClassifier(forest, bound=bound, random_state=0, **kwargs).fit(X, Y)


def test_everything_reads_the_registry(capsys):
    from cvxpb.app.cli import build_parser

    model = _fit("tnd")
    assert list(model.declarations_) == list(REGISTRY)  # two classes: all of them
    assert all(name in METHODS for name in REGISTRY)
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["experiment", "majority-vote", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(name in help_text for name in REGISTRY)


def test_a_registered_bound_is_a_bound_by_name(monkeypatch):
    """The tandem bound with chi2 registered as "tnd_chi2": the fit minimizes it on the
    fit's own statistics, as the declaration written by hand does."""

    def tnd_chi2(s):
        return mv.tandem(s.q, n=s.n, delta=s.delta, divergence="chi2", **s.one_sample)

    monkeypatch.setitem(REGISTRY, "tnd_chi2", REGISTRY["tnd"])  # restored after the test
    register("tnd_chi2", tnd_chi2, description="the tandem bound with chi2")
    model = _fit("tnd_chi2")
    stats = model.statistics_
    by_hand = mv.tandem(pb.Posterior.uniform(8), matrix=stats["tandem"], n=stats["n"],
                        divergence="chi2")  # fmt: skip
    assert model.result_.bound == pytest.approx(pb.Minimize(by_hand).solve(rtol=1e-6).bound,
                                                abs=1e-6)  # fmt: skip
    assert "tnd_chi2" in model.declarations_ and "tnd" in model.declarations_


def test_a_callable_is_a_bound_too():
    def first_order_by_me(s):
        return mv.first_order(s.q, s.risks, s.n_gibbs, s.delta)

    mine, ours = _fit(first_order_by_me), _fit("first_order")
    assert mine.result_.bound == ours.result_.bound
    assert np.array_equal(mine.posterior_, ours.posterior_)
    assert "first_order_by_me" in mine.declarations_
    assert mine.solve_bound("first_order_by_me") is mine.result_
    assert "bound 'first_order_by_me'" in mine.explain()


def test_bad_registrations_are_refused():
    with pytest.raises(ValueError, match="name must be a word"):
        register("two words", lambda s: None)
    with pytest.raises(ValueError, match="declare must be callable"):
        register("x", 3)
    with pytest.raises(ValueError, match="bound must be one of"):
        _fit("no_such_bound")
