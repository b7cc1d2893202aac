"""``MajorityVoteClassifier``: a weighted majority vote with its posterior chosen to
minimize a PAC-Bayesian bound on the vote's risk.

The voters are the members of a scikit-learn ensemble (a random forest, bagging, any
fitted or unfitted ensemble with ``estimators_``) or a list of classifiers. Their
errors are measured either on a held-out part of the data (``validation="split"``:
the voters are fitted on the rest) or out of bag (``validation="oob"``: each voter on
the examples its bootstrap sample left out, each pair on the examples both left out,
as Masegosa, Lorenzen, Igel and Seldin (2020) do). ``validation="prefit"`` takes
fitted voters and measures them on all of ``X``, which must not be data they saw.

The prior is uniform over the voters. The bounds are those of
:mod:`cvxpb.ensemble.bounds`, each minimized by :class:`cvxpb.Minimize`:
``"first_order"``, ``"tnd"`` (tandem), the Chebyshev-Cantelli bounds ``"cctnd"``
and ``"ccpbb"`` (Wu et al., 2021), ``"split_kl"`` and ``"unexpected_bernstein"`` (Wu and
Seldin, 2022), ``"ctd"`` (the C-tandem bound of Masegosa et al., 2020), ``"lambda"``
(PAC-Bayes-lambda) for any number of classes, and ``"c_bound"``, ``"pac_bound_2"``
(Germain et al., 2015, PAC-Bounds 1 and 2) and ``"dis"`` for two classes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from cvxpb.engine.declare.problem import Minimize
from cvxpb.engine.declare.terms import Posterior
from cvxpb.engine.methods import METHODS
from cvxpb.engine.solvable import Solvable
from cvxpb.ensemble.explain import explain_fit
from cvxpb.ensemble.registry import REGISTRY, Statistics
from cvxpb.pac_bayes.divergences import as_divergence
from cvxpb.threads import one_blas_thread
from cvxpb.validation import check_choice, check_delta, check_distribution
from cvxpb.warn import warn_user

BOUNDS = tuple(REGISTRY)  # the package's bounds, the registry's names at import
TOL, RTOL = 1e-7, 1e-6  # each minimum's certified gap: at most TOL, and at most RTOL of
# the bound where that is less (bounds below 0.1)
VALIDATIONS = ("oob", "split", "prefit")


class VoterMixin:
    """The voters of a vote: fitted (or taken fitted) and asked for their labels.

    Uses the estimator's ``estimator``, ``validation``, ``test_size`` and
    ``random_state``; sets ``ensemble_`` and ``estimators_``.
    """

    def _check_test_size(self):
        """ValueError unless the held-out share ``test_size`` lies in (0, 1)."""
        if isinstance(self.test_size, bool) or not 0 < self.test_size < 1:
            raise ValueError(f"test_size must lie in (0, 1), got {self.test_size!r}")

    def votes(self, X):
        """Each voter's label for each row of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, H)
            The labels.
        """
        check_is_fitted(self)
        return self._member_votes(validate_data(self, X, reset=False))

    def _fit_voters(self, X, y):
        """Fit the voters (or take them fitted); return the bound sample and which of
        its votes count (``n x H``: all, or the out-of-bag ones)."""
        estimator = self.estimator
        if estimator is None:
            estimator = RandomForestClassifier(n_estimators=100, random_state=self.random_state)
        X_fit, y_fit, X_bound, y_bound = X, y, X, y
        if self.validation == "prefit":
            _check_fitted_voters(estimator)
        if self.validation == "split":
            X_fit, X_bound, y_fit, y_bound = train_test_split(
                X, y, test_size=self.test_size, random_state=self.random_state
            )
        if isinstance(estimator, (list, tuple)):
            self.ensemble_ = None
            self.estimators_ = (
                list(estimator)
                if self.validation == "prefit"
                else [clone(e).fit(X_fit, y_fit) for e in estimator]
            )
        else:
            self.ensemble_ = (
                estimator if self.validation == "prefit" else clone(estimator).fit(X_fit, y_fit)
            )
            self.estimators_ = list(self.ensemble_.estimators_)
        if not self.estimators_:
            raise ValueError("estimator has no voters")
        seen = np.ones((len(y_bound), len(self.estimators_)), dtype=bool)
        if self.validation == "oob":
            seen = _out_of_bag(self.ensemble_, len(y_bound))
        return X_bound, y_bound, seen

    def _member_votes(self, X):
        """Each voter's labels on ``X`` (``n x H``). Members of scikit-learn's bagging
        ensembles see their own features and answer in class indices."""
        ensemble, columns = self.ensemble_, []
        features = getattr(ensemble, "estimators_features_", None)
        for h, member in enumerate(self.estimators_):
            votes = member.predict(X if features is None else X[:, features[h]])
            labels = getattr(ensemble, "classes_", None)
            if labels is not None and not np.array_equal(member.classes_, labels):
                votes = labels[np.asarray(votes).astype(int)]
            columns.append(np.asarray(votes))
        return np.stack(columns, axis=1)


class MajorityVoteClassifier(VoterMixin, ClassifierMixin, BaseEstimator):
    """A weighted majority vote whose weights minimize a bound on its risk.

    Parameters
    ----------
    estimator : ensemble, list of classifiers, or None
        The voters: a scikit-learn ensemble (its ``estimators_``) or a list of
        classifiers, fitted or not (``"prefit"`` needs them fitted). ``None``: a random
        forest of 100 trees.
    bound : {"first_order", "tnd", "cctnd", "split_kl", "unexpected_bernstein", "ccpbb", \
"ctd", "lambda", "c_bound", "pac_bound_2", "dis"}
        The bound the posterior minimizes (the last three for two classes only;
        ``"cctnd"`` and ``"ccpbb"`` are Wu et al.'s (2021) Chebyshev-Cantelli bounds
        with the tandem bound and with PAC-Bayes-Bennett, ``"ctd"`` Masegosa et al.'s
        (2020) C-tandem bound (certified on one sample, where it is quasi-concave),
        ``"split_kl"`` and ``"unexpected_bernstein"`` Wu and Seldin's (2022)
        CCPBSkl and CCPBUB). Any name of :data:`cvxpb.ensemble.registry.REGISTRY`
        (a bound registered there too), or a callable that takes the fit's
        :class:`~cvxpb.ensemble.registry.Statistics` and returns a declaration (or a
        tuple of them, a union bound); its ``__name__`` is its name in :meth:`bounds`.
    divergence : {"kl", "chi2", "renyi"} or Divergence
        For ``"first_order"`` and ``"tnd"``; the others use KL. A name, or an object
        (one of ours, a user's subclass of :class:`cvxpb.Divergence`, or any object
        with its protocol's members, adopted).
    alpha : float or None
        The Renyi order (``divergence="renyi"``).
    delta : float
        Each bound holds with probability at least ``1 - delta``.
    validation : {"oob", "split", "prefit"}
        Where the voters' errors are measured (see the module's text).
    test_size : float
        The held-out share for ``"split"``.
    random_state : int or None
        Seeds the default forest and the split.
    method : str
        The method of solution (any name of :data:`cvxpb.engine.methods.METHODS`, a
        registered one too) that must accept ``bound`` (a ValueError at ``fit``
        otherwise, naming the methods that do). The other bounds of :meth:`bounds`
        use it where they accept it and ``"declared"`` where not.

    Attributes
    ----------
    estimators_ : list
        The voters.
    posterior_ : ndarray
        Their weights.
    result_ : cvxpb.Result
        The minimization of ``bound``, searched until its certified gap is at most
        1e-7 and at most 1e-6 of the bound where that is less (status "optimal"), or
        until its minorants hold the gap open (status "local").
    n_bound_ : int
        The least number of examples any pair's rates were measured on.
    statistics_ : dict
        ``risks`` (each voter's error rate), ``tandem`` and ``disagreement`` (pairwise
        rates), ``n_gibbs`` (the least count of a voter's rate), ``n`` (of a pair's),
        ``n_examples`` (the examples measured on) and ``all_seen`` (every voter measured
        on every one of them).
    declarations_ : Declarations
        Every bound that applies to these voters, by name (a mapping that declares each
        when first read), as a declared expression
        (:class:`cvxpb.Minimize` solves each), or a tuple of them where the bound is the
        least of their minima (``"cctnd"``, ``"split_kl"``: one for each sign of
        ``mu``; ``"unexpected_bernstein"``: one for each point of its grid; ``"ccpbb"``: one
        for each ``mu`` of its grid).
    """

    def __init__(
        self,
        estimator=None,
        bound="tnd",
        divergence="kl",
        alpha=None,
        delta=0.05,
        validation="oob",
        test_size=0.5,
        random_state=None,
        method="declared",
    ):
        self.estimator = estimator
        self.bound = bound
        self.divergence = divergence
        self.alpha = alpha
        self.delta = delta
        self.validation = validation
        self.test_size = test_size
        self.random_state = random_state
        self.method = method

    @one_blas_thread
    def fit(self, X, y):
        """Fit (or take) the voters, measure their errors, and minimize the bound.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.
        y : array_like of shape (n_samples,)
            The labels.

        Returns
        -------
        MajorityVoteClassifier
            The fitted classifier.

        Raises
        ------
        ValueError
            For a parameter out of range, a ``y`` of one class, or a two-class bound with
            more classes.
        """
        self._check_parameters()
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(
                f"y has one class ({self.classes_[0]!r}): a majority vote needs at least two "
                "to learn from, and a bound on its risk would say nothing"
            )
        entry = REGISTRY.get(self._bound_name)
        if entry is not None and entry.binary and self.classes_.size > 2:
            raise ValueError(f"bound={self.bound!r} is a two-class bound; y has more classes")
        X_bound, y_bound, seen = self._fit_voters(X, y)
        stats = _statistics(self._member_votes(X_bound), y_bound, seen)
        self.statistics_ = {
            k: stats[k]
            for k in ("risks", "tandem", "disagreement", "n_gibbs", "n", "n_examples", "all_seen")
        }
        self.n_bound_ = stats["n"]
        q = Posterior.uniform(len(self.estimators_))
        binary = self.classes_.size <= 2
        own = {} if isinstance(self.bound, str) else {self._bound_name: self.bound}
        declared = _declarations(q, stats, self.delta, self.divergence, self.alpha, binary, own)
        problem = Minimize(declared[self._bound_name])
        if not METHODS[self.method].accepts(problem):  # the others' modules not loaded
            raise ValueError(
                f"method={self.method!r} does not accept bound={self._bound_name!r}; "
                f"the methods that do: {', '.join(problem.methods())}"
            )
        self.result_ = _minimize(problem, self.method)
        self.posterior_ = self.result_.posterior
        self.declarations_, self._bounds = declared, None
        if self.result_.status != "optimal":
            warn_user(self._not_certified())
        return self

    def _not_certified(self) -> str:
        """One line: the fitted bound is not proven least, why, and what to do."""
        res = self.result_
        gap = res.certificate.gap if res.certificate else math.inf
        head = (
            f"bound={self._bound_name!r} is {res.bound:.4g} at the posterior found, not "
            f"proven least (status {res.status!r}, certified gap {gap:.2g})"
        )
        if self.validation == "oob" and not self.statistics_["all_seen"]:
            return head + (
                f": out of bag, some pairs of voters share only {self.n_bound_} examples; "
                "validation='split' or more data give a certified minimum "
                "(explain() says more)"
            )
        return head + "; explain() says why"

    @one_blas_thread
    def solve_bound(self, bound: str):
        """Minimize another of the bounds that apply, on the same voters and statistics.

        Parameters
        ----------
        bound : str
            One of :meth:`bounds`'s rows.

        Returns
        -------
        Result
            Its minimum by ``method`` where that accepts it, else by ``"declared"``
            (``result_`` itself for the fitted bound). Where the search is
            not proven optimal and the bound is lower at ``posterior_`` than at the
            search's best, the Result is the bound at ``posterior_``, with the search's
            status and certificate, so no minimum is reported above a value found.
        """
        check_is_fitted(self, "posterior_")
        check_choice(bound, "bound", tuple(self.declarations_))
        if bound == self._bound_name:
            return self.result_
        problem = Minimize(self.declarations_[bound])
        return _least_found(problem, self.posterior_, self._method_for(problem))

    def explain(self) -> str:
        """Explain the fitted bound: its statistics, what its status proves, any gap.

        Returns
        -------
        str
            The bound and its confidence; where the rates were measured and on how many
            examples; the result; and, where the certificate leaves a gap, what it
            means and why (:func:`cvxpb.ensemble.explain.explain_fit`).
        """
        check_is_fitted(self, "posterior_")
        return explain_fit(self)

    def bound_at(self, bound: str, posterior=None) -> float:
        """One of the bounds that apply, at a posterior (no search).

        Parameters
        ----------
        bound : str
            One of :meth:`bounds`'s rows.
        posterior : array_like of shape (n_voters,), optional
            The voters' weights; ``posterior_`` by default.

        Returns
        -------
        float
            The bound there, rounded up (of a union over shifts, the least part's).
        """
        check_is_fitted(self, "posterior_")
        check_choice(bound, "bound", tuple(self.declarations_))
        q = self.posterior_ if posterior is None else posterior
        q = check_distribution(q, self.posterior_.size, "posterior")
        return _value_at(self.declarations_[bound], q)

    @one_blas_thread
    def bounds(self, progress: bool = True) -> pd.DataFrame:
        """Every bound that applies, minimized on the fit's statistics, as a table.

        Parameters
        ----------
        progress : bool, default=True
            Show a progress bar (in a notebook, a terminal or a log) naming the bound
            being minimized.

        Returns
        -------
        pandas.DataFrame
            One row per bound (the index): its value at ``posterior_``
            (``at_posterior``) and at the uniform posterior (``at_uniform``), its own
            ``minimum``, that minimum's ``status`` and certified ``gap`` (``inf`` where
            no finite lower bound was proven), the ``method`` and the ``seconds`` its
            search took (the fitted bound's row is the fit's own search). Each search
            runs once per fit; later calls return the same table.
        """
        from tqdm.auto import tqdm

        check_is_fitted(self, "posterior_")
        if self._bounds is None:
            uniform = np.full(self.posterior_.size, 1.0 / self.posterior_.size)
            rows = {}
            names = tqdm(self.declarations_, desc="bounds", unit="bound", disable=not progress)
            for name in names:
                names.set_postfix_str(name)
                declared = self.declarations_[name]
                start = time.perf_counter()
                own = self.solve_bound(name)
                seconds = own.seconds if own is self.result_ else time.perf_counter() - start
                rows[name] = {
                    "at_posterior": _value_at(declared, self.posterior_),
                    "at_uniform": _value_at(declared, uniform),
                    "minimum": own.bound,
                    "status": own.status,
                    "gap": own.certificate.gap if own.certificate else math.inf,
                    "method": own.method,
                    "seconds": seconds,
                }
            self._bounds = pd.DataFrame.from_dict(rows, orient="index").rename_axis("bound")
        return self._bounds.copy()

    def _method_for(self, problem) -> str:
        """``method`` where it accepts ``problem``, else ``"declared"``."""
        return self.method if METHODS[self.method].accepts(problem) else "declared"

    @property
    def _bound_name(self) -> str:
        """``bound`` where it is a name; a callable's ``__name__``."""
        return self.bound if isinstance(self.bound, str) else getattr(self.bound, "__name__", "own")

    def _check_parameters(self):
        if not callable(self.bound):
            check_choice(self.bound, "bound", tuple(REGISTRY))
        check_choice(self.validation, "validation", VALIDATIONS)
        check_choice(self.method, "method", tuple(METHODS))
        if isinstance(self.divergence, str):
            check_choice(self.divergence, "divergence", ("kl", "chi2", "renyi"))
        else:  # an object: one of ours, or a user's Divergence
            as_divergence(self.divergence, self.alpha)
        check_delta(self.delta)
        self._check_test_size()
        if self.validation == "oob":
            _check_bagging(self.estimator)

    def predict_proba(self, X):
        """The posterior's share of the votes for each class.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1.
        """
        check_is_fitted(self)
        votes = self.votes(X)
        shares = np.stack([(votes == c) @ self.posterior_ for c in self.classes_], axis=1)
        return shares / shares.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The weighted majority vote (ties to the first class in ``classes_``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The examples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels.
        """
        check_is_fitted(self)
        shares = self.predict_proba(X)  # first: unfitted, NotFittedError
        return self.classes_[np.argmax(shares, axis=1)]


def _minimize(problem, method="declared", tol=TOL, rtol=RTOL):
    """The minimum of a declared bound (of a tuple, the least of its parts' minima) by
    ``method``, asked a certified gap within ``tol`` and within ``rtol`` of the bound
    where the method takes those options."""
    if not isinstance(problem, Solvable):
        problem = Minimize(problem)
    allowed = METHODS[method].options()
    asked = {"tol": tol, "rtol": rtol}
    options = {k: v for k, v in asked.items() if allowed is None or k in allowed}
    return problem.solve(method, **options)


def _least_found(problem, posterior, method="declared"):
    """``problem``'s minimum by ``method``, or the bound at ``posterior`` where that is
    lower and the search proved no optimum (a local search that stopped above a known
    point)."""
    result = _minimize(problem, method)
    if result.status == "optimal" or not problem.value_at(posterior) < result.bound:
        return result
    return problem.result_from_posterior(
        posterior,
        certificate=result.certificate,
        status=result.status,
        method=result.method,
        seconds=result.seconds,
        iterations=result.iterations,
        message=f"{result.message}; reported at the fitted posterior, below the search's best",
    )


def _value_at(declared, posterior) -> float:
    """A declared bound at ``posterior``; of a tuple, the least of its parts there."""
    return Minimize(declared).value_at(posterior)


def _check_fitted_voters(estimator):
    """ValueError unless every prefit voter (or the prefit ensemble) is fitted."""
    voters = list(estimator) if isinstance(estimator, (list, tuple)) else [estimator]
    for k, voter in enumerate(voters):
        try:
            check_is_fitted(voter)
        except NotFittedError:
            which = f"voter {k}" if isinstance(estimator, (list, tuple)) else "the ensemble"
            raise ValueError(
                f"validation='prefit' needs fitted voters, but {which} "
                f"({type(voter).__name__}) is not fitted: fit it first, or use "
                "validation='split' or 'oob'"
            ) from None


def _check_bagging(estimator) -> None:
    """ValueError, before any fit, unless ``estimator`` draws bootstrap samples (a random
    forest, or bagging, with ``bootstrap=True``): out of bag needs them."""
    if estimator is None:
        return  # the default forest does
    if isinstance(estimator, (list, tuple)):
        got = "a list of classifiers"
    elif not hasattr(estimator, "get_params") or "bootstrap" not in estimator.get_params():
        got = f"{type(estimator).__name__}, not a bagging ensemble"
    elif not estimator.get_params()["bootstrap"]:
        got = f"{type(estimator).__name__} with bootstrap=False"
    else:
        return
    raise ValueError(
        "validation='oob' needs a bagging ensemble fitted on bootstrap samples (a random "
        f"forest, or bagging with bootstrap=True), got {got}; give fitted classifiers with "
        "validation='prefit', or any classifiers with validation='split'"
    )


def _out_of_bag(ensemble, n):
    """``n x H``: whether example ``i`` was left out of voter ``h``'s bootstrap sample."""
    samples = getattr(ensemble, "estimators_samples_", None)
    if samples is None or not getattr(ensemble, "bootstrap", False):
        raise ValueError(
            "validation='oob' needs an ensemble fitted on bootstrap samples "
            "(a random forest or bagging with bootstrap=True); use validation='split'"
        )
    seen = np.ones((n, len(samples)), dtype=bool)
    for h, drawn in enumerate(samples):
        seen[drawn, h] = False
    return seen


def _statistics(votes, y, seen):
    """The voters' error and disagreement rates on the examples that count for them
    (each voter's own; each pair's common ones) and the least counts."""
    S = seen.astype(float)
    E = (votes != y[:, None]) & seen
    pairs = S.T @ S
    if np.min(pairs) < 1:
        h, g = np.unravel_index(np.argmin(pairs), pairs.shape)
        raise ValueError(
            f"voters {h} and {g} share no out-of-bag example, so their tandem rate cannot be "
            "estimated; use more data or validation='split'"
        )
    agreement = sum((S * (votes == c)).T @ (S * (votes == c)) for c in np.unique(votes))
    stats = {
        "risks": E.sum(axis=0) / S.sum(axis=0),
        "n_gibbs": int(S.sum(axis=0).min()),
        "n": int(pairs.min()),
        "n_examples": int(seen.shape[0]),
        "all_seen": bool(seen.all()),
        "errors": E.astype(float),
        "seen": None if seen.all() else seen,
        "votes": votes,
        "tandem": np.clip(E.T.astype(float) @ E / pairs, 0.0, 1.0),
        "disagreement": np.clip(1 - agreement / pairs, 0.0, 1.0),
    }
    return stats


class Declarations(Mapping):
    """The bounds that apply, by name, each declared when first read.

    A declaration can cost more than its minimization (the unexpected-Bernstein grid
    factors one pairwise matrix per grid point), so a fit declares only the bound it
    minimizes; the names are known at once.

    Parameters
    ----------
    names : sequence of str
        The bounds: the registry's, and the user's own.
    statistics : Statistics
        What they are declared on.
    own : dict, optional
        The user's bounds, ``{name: callable}``; the others are the registry's
        (looked up when declared, so a pickled fit keeps no function of ours).
    """

    def __init__(self, names, statistics, own=None):
        self._names, self._statistics, self._own = tuple(names), statistics, dict(own or {})
        self._made = {}

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        if name not in self._made:
            make = self._own.get(name) or REGISTRY[name].declare
            self._made[name] = make(self._statistics)
        return self._made[name]

    def __contains__(self, name):
        return name in self._names  # without declaring it

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


def _declarations(q, stats, delta, divergence, alpha, binary=True, own=None):
    """Every registered bound on these statistics (the two-class ones where ``binary``
    and the votes have two classes), and the user's ``own`` ({name: callable}),
    declared when first read."""
    two = binary and len(np.unique(stats["votes"])) <= 2
    names = [n for n, e in REGISTRY.items() if two or not e.binary]
    names += [n for n in own or {} if n not in names]
    return Declarations(names, Statistics(q, stats, delta, divergence, alpha), own)
