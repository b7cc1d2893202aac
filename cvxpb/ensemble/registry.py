"""The majority-vote bounds by name: one registry that the classifier, the command line,
the experiments' tables and the docs read.

Each entry says how to declare its bound on a fitted forest's :class:`Statistics`
(:mod:`cvxpb.ensemble.bounds`), whether it needs two classes, and what it is. A bound
of your own joins with :func:`register`, or goes to
:class:`~cvxpb.ensemble.classifier.MajorityVoteClassifier` as ``bound=`` directly: any
callable that takes the :class:`Statistics` and returns a declaration (or a tuple of
them, a union bound). The module imports nothing numerical, so the command line can
list the names at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class MajorityVoteBound:
    """One bound of the registry.

    Parameters
    ----------
    name : str
        The word users pass (``bound="tnd"``).
    declare : callable
        ``declare(statistics)``: the declaration on a :class:`Statistics`.
    binary : bool
        Whether it needs two classes.
    description : str
        What it is, with its paper.
    """

    name: str
    declare: Callable
    binary: bool
    description: str


class Statistics:
    """What a fitted vote's bounds are declared on: the voters' rates and their counts.

    Parameters
    ----------
    q : cvxpb.Posterior
        The posterior over the voters (its prior the bounds' prior).
    rates : dict
        ``risks``, ``n_gibbs``, ``n``, ``errors``, ``seen``, ``votes``, ``tandem``,
        ``disagreement`` and ``all_seen`` of the classifier's measurement (see
        :attr:`~cvxpb.ensemble.classifier.MajorityVoteClassifier.statistics_`).
    delta : float
        The confidence.
    divergence : str or Divergence
        For the bounds that take one (first order, tandem).
    alpha : float or None
        The Renyi order.
    """

    def __init__(self, q, rates, delta, divergence="kl", alpha=None):
        self.q, self.delta, self.divergence, self.alpha = q, delta, divergence, alpha
        for key in ("risks", "n_gibbs", "n", "errors", "seen", "votes", "tandem"):
            setattr(self, key, rates[key])
        self.disagreement_rates, self.all_seen = rates["disagreement"], rates["all_seen"]

    @property
    def one_sample(self) -> dict:
        """The errors of one sample (``errors=``), or the tandem rates out of bag
        (``matrix=``), as the tandem bounds take them."""
        return {"errors": self.errors} if self.all_seen else {"matrix": self.tandem}

    @property
    def pairwise(self) -> dict:
        """The votes of one sample, or the disagreement rates and their least count out
        of bag, as the C-bound and DIS take them."""
        if self.all_seen:
            return {"votes": self.votes}
        return {"matrix": self.disagreement_rates, "n_disagreement": self.n}

    @functools.cached_property
    def pairs(self):
        """The errors counted in pairs (:class:`~cvxpb.ensemble.pairs.PairErrors`), made
        once for the bounds that take them (split-kl, unexpected Bernstein, CCPBB)."""
        from cvxpb.ensemble.pairs import PairErrors

        return PairErrors(self.errors, self.seen)


REGISTRY: dict[str, MajorityVoteBound] = {}
"""The bounds by name, in the order tables show them."""


def register(name: str, declare: Callable, binary: bool = False, description: str = ""):
    """Add a bound to the registry (or replace one of the same name).

    Parameters
    ----------
    name : str
        Its word.
    declare : callable
        ``declare(statistics)`` returning a declaration, or a tuple of them.
    binary : bool, default=False
        Whether it needs two classes.
    description : str, default=""
        What it is.

    Returns
    -------
    MajorityVoteBound
        The entry.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a word (letters, digits, _), got {name!r}")
    if not callable(declare):
        raise ValueError(f"declare must be callable, got {declare!r}")
    entry = MajorityVoteBound(name, declare, bool(binary), description)
    REGISTRY[name] = entry
    return entry


def _bounds():
    from cvxpb.ensemble import bounds

    return bounds


def _pac_bound_2(s):
    if s.all_seen:
        return _bounds().pac_bound_2(s.q, s.errors, s.votes, s.delta)
    rates = {"tandem_matrix": s.tandem, "disagreement_matrix": s.disagreement_rates}
    return _bounds().pac_bound_2(s.q, delta=s.delta, n=s.n, **rates)


for _entry in (
    (
        "first_order",
        lambda s: _bounds().first_order(
            s.q, s.risks, s.n_gibbs, s.delta, divergence=s.divergence, alpha=s.alpha
        ),
        False,
        "twice a kl bound on the Gibbs risk",
    ),
    (
        "tnd",
        lambda s: _bounds().tandem(
            s.q, n=s.n, delta=s.delta, divergence=s.divergence, alpha=s.alpha, **s.one_sample
        ),
        False,
        "Masegosa et al.'s (2020) tandem bound",
    ),
    (
        "cctnd",
        lambda s: _bounds().chebyshev_cantelli_tnd(
            s.q, s.risks, s.n_gibbs, n=s.n, delta=s.delta, **s.one_sample
        ),
        False,
        "Wu et al.'s (2021) Chebyshev-Cantelli bound with TND",
    ),
    (
        "split_kl",
        lambda s: _bounds().split_kl(s.q, s.pairs, s.delta),
        False,
        "Wu and Seldin's (2022) Chebyshev-Cantelli bound with split-kl",
    ),
    (
        "unexpected_bernstein",
        lambda s: _bounds().unexpected_bernstein(s.q, s.pairs, s.delta),
        False,
        "Wu and Seldin's (2022) Chebyshev-Cantelli bound with the unexpected Bernstein inequality",
    ),
    (
        "ccpbb",
        lambda s: _bounds().chebyshev_cantelli_bennett(s.q, s.pairs, s.delta),
        False,
        "Wu et al.'s (2021) Chebyshev-Cantelli bound with PAC-Bayes-Bennett",
    ),
    (
        "ctd",
        lambda s: _bounds().c_tandem(s.q, s.risks, s.n_gibbs, n=s.n, delta=s.delta, **s.one_sample),
        False,
        "Masegosa et al.'s (2020) C-tandem bound",
    ),
    (
        "lambda",
        lambda s: _bounds().pac_bayes_lambda(s.q, s.risks, s.n_gibbs, s.delta),
        False,
        "twice Thiemann et al.'s (2017) PAC-Bayes-lambda bound",
    ),
    (
        "c_bound",
        lambda s: _bounds().c_bound(s.q, s.risks, s.n_gibbs, delta=s.delta, **s.pairwise),
        True,
        "Germain et al.'s (2015) C-bound, their PAC-Bound 1",
    ),
    ("pac_bound_2", _pac_bound_2, True, "Germain et al.'s (2015) PAC-Bound 2"),
    (
        "dis",
        lambda s: _bounds().disagreement_bound(
            s.q, s.risks, s.n_gibbs, delta=s.delta, **s.pairwise
        ),
        True,
        "Masegosa et al.'s (2020) DIS bound 4L - 2d",
    ),
):
    register(*_entry)
