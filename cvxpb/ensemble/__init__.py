"""Majority votes: :class:`~cvxpb.ensemble.classifier.MajorityVoteClassifier`, a vote
whose weights minimize a PAC-Bayesian bound on its risk, the bounds it minimizes,
declared with the engine's atoms (:mod:`cvxpb.ensemble.bounds`), and
:class:`~cvxpb.ensemble.mincq.MinCqClassifier`, Germain et al.'s (2015) MinCq."""

__all__ = ["MajorityVoteClassifier", "MinCqClassifier"]

_WHERE = {
    "MajorityVoteClassifier": "cvxpb.ensemble.classifier",
    "MinCqClassifier": "cvxpb.ensemble.mincq",
}


def __getattr__(name: str):
    """Load the classifiers (and scikit-learn) on first use, so that the bounds alone
    import without it."""
    if name not in _WHERE:
        raise AttributeError(f"module 'cvxpb.ensemble' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)
