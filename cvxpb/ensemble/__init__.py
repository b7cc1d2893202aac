"""Majority votes: :class:`~cvxpb.ensemble.classifier.MajorityVoteClassifier`, a vote
whose weights minimize a PAC-Bayesian bound on its risk, and the bounds it minimizes,
declared with the engine's atoms (:mod:`cvxpb.ensemble.bounds`)."""

__all__ = ["MajorityVoteClassifier"]


def __getattr__(name: str):
    """Load the classifier (and scikit-learn) on first use, so that the bounds alone
    import without it."""
    if name != "MajorityVoteClassifier":
        raise AttributeError(f"module 'cvxpb.ensemble' has no attribute {name!r}")
    from cvxpb.ensemble.classifier import MajorityVoteClassifier

    return MajorityVoteClassifier
