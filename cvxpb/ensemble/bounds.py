"""Bounds on the risk of the ``q``-weighted majority vote, as declarations.

Each function returns a declared bound (an expression for :class:`cvxpb.Minimize`),
valid with probability at least ``1 - delta`` over the sample of size ``n`` the
statistics were measured on:

* :func:`first_order`: ``MV <= 2 L(q)`` and a PAC-Bayes bound on the Gibbs risk ``L``,
  for every distance and divergence of :class:`cvxpb.Bound` (the factor 2: the vote
  errs only where at least half of ``q`` errs, Markov's inequality);
* :func:`tandem`: ``MV <= 4 T(q)`` with ``T`` the tandem risk (Masegosa, Lorenzen,
  Igel and Seldin, 2020: second-order Markov), bounded through the product posterior
  ``q x q`` against ``p x p`` on the {0, 1}-valued tandem loss. Its divergences are
  those of one ``q``: ``KL(q x q || p x p) = 2 KL(q || p)``,
  ``sum (q_i q_j)^2 / (p_i p_j) = (sum q_i^2 / p_i)^2`` and
  ``D_alpha(q x q || p x p) = 2 D_alpha(q || p)``. With KL and the kl distance this
  is Masegosa et al.'s TND bound; with chi2 and Renyi, Theorem 1 of Sahu &
  Hemachandra on pairs, with the same binomial constants (the tandem loss is
  {0, 1}-valued, so ``I_phi(n, alpha')`` is the one of a risk measured on ``n``).
* :func:`c_bound`: the C-bound ``1 - (1 - 2 L)^2 / (1 - 2 d)`` at an upper bound on the
  Gibbs risk ``L`` and a lower bound on the disagreement ``d`` (Germain, Lacasse,
  Laviolette, Marchand and Roy, 2015, their PAC-Bound 1, or PAC-Bound 0 when the
  disagreement is measured on a larger unlabeled sample), ``delta / 2`` each;
* :func:`pac_bound_2`: the C-bound's largest value over the joint error and disagreement
  one trinomial kl inequality allows (Germain et al., 2015, PAC-Bound 2);
* :func:`disagreement_bound`: ``MV <= 4 L - 2 d`` with the same two bounds
  (Masegosa et al., 2020, the DIS bound). These two are binary-class bounds of three
  terms (the Gibbs risk, the disagreement and KL), solved by a local search whose
  status says so (:mod:`cvxpb.engine.declare.local`);
* :func:`pac_bayes_lambda`: ``MV <= 2 min_lambda [L / (1 - lambda/2)
  + (KL + ln(xi(n) / delta)) / (lambda (1 - lambda/2) n)]`` (Thiemann, Igel,
  Wintenberger and Seldin, 2017), at the best ``lambda`` in (0, 2) (a closed form). It
  holds for every ``lambda`` at once with no union bound: from ``kl(L_hat || L) <= e`` follow
  ``L <= L_hat + sqrt(2 L e)`` and ``sqrt(2 L e) <= lambda L / 2 + e / lambda``, so it
  is a relaxation of the kl form (never below it) that Thiemann et al. minimize by
  alternating closed forms.
"""

from __future__ import annotations

import math

import numpy as np

from cvxpb.engine.declare import expressions as ex
from cvxpb.engine.declare.divergence_terms import KL, DivergenceTerm
from cvxpb.engine.declare.kl_atoms import kl_inverse, kl_inverse_lower
from cvxpb.engine.declare.quadratic import disagreement, pairwise_loss, tandem_risk
from cvxpb.engine.declare.terms import GibbsRisk, Posterior, gibbs_risk
from cvxpb.ensemble import atoms
from cvxpb.ensemble.pairs import PairErrors
from cvxpb.numerics.maurer import log_xi
from cvxpb.numerics.tolerances import EPS
from cvxpb.pac_bayes import check_distance
from cvxpb.pac_bayes.bounds import DISTANCES_BY_DIVERGENCE, Bound
from cvxpb.validation import (
    check_choice,
    check_count,
    check_delta,
    check_two_valued,
    real_array,
)


def first_order(q: Posterior, risks, n, delta, distance="kl", divergence="kl", alpha=None):
    """Declare the first-order bound: twice a PAC-Bayes bound on the Gibbs risk.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks.
    n : int
        The sample size they were measured on.
    delta : float
        The confidence.
    distance : {"kl", "linear", "sq", "catoni"}, default="kl"
        The distance of :class:`cvxpb.Bound` (the divergence's own list).
    divergence : {"kl", "chi2", "renyi"} or Divergence, default="kl"
        The divergence: a name, or an object (one of ours, a user's subclass of
        :class:`cvxpb.Divergence`, or any object with its protocol's members, adopted).
    alpha : float, optional
        The Renyi order (``divergence="renyi"``).

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.
    """
    return 2 * _pac_bayes(gibbs_risk(q, risks), q, n, delta, distance, divergence, alpha, 1)


def tandem(
    q: Posterior,
    errors=None,
    n=None,
    delta=0.05,
    distance="kl",
    divergence="kl",
    alpha=None,
    *,
    matrix=None,
):
    """Declare the tandem bound: four times a PAC-Bayes bound on the tandem risk.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    errors : array_like of shape (n, H), optional
        The voters' 0/1 errors on one sample.
    n : int, optional
        The sample size; with ``matrix=``, the least number of examples any pair's rate
        was measured on (required then).
    delta : float, default=0.05
        The confidence.
    distance : {"kl", "linear", "sq", "catoni"}, default="kl"
        The distance of :class:`cvxpb.Bound` (the divergence's own list).
    divergence : {"kl", "chi2", "renyi"} or Divergence, default="kl"
        The divergence: a name, or an object (one of ours, a user's subclass of
        :class:`cvxpb.Divergence`, or any object with its protocol's members, adopted).
    alpha : float, optional
        The Renyi order (``divergence="renyi"``).
    matrix : array_like of shape (H, H), optional
        The tandem rates instead of ``errors``.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.

    Raises
    ------
    ValueError
        With ``matrix=`` and no ``n``.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.ensemble import bounds as mv
    >>> errors = np.random.default_rng(0).random((200, 3)) < [0.1, 0.2, 0.3]
    >>> q = pb.Posterior.uniform(3)
    >>> res = pb.Minimize(mv.tandem(q, errors.astype(float))).solve()
    >>> res.status, sorted(res.terms)
    ('optimal', ['KL', 'tandem_risk'])
    """
    term, n = _tandem_term(q, errors, n, matrix, "tandem")
    return 4 * _pac_bayes(term, q, n, delta, distance, divergence, alpha, 2)


def c_bound(q: Posterior, risks, n, votes=None, delta=0.05, *, matrix=None, n_disagreement=None):
    """Declare the PAC-Bayesian C-bound of two kl bounds (Germain et al., 2015).

    An upper kl bound on the Gibbs risk and a lower one on the disagreement, each at
    ``delta / 2``, with Maurer's ``xi(n)`` computed (its upper bound ``2 sqrt(n)`` in the
    paper).

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks on ``n`` labeled examples.
    n : int
        The labeled sample's size.
    votes : array_like of shape (n', H), optional
        The voters' outputs in two classes (``n'`` may count unlabeled examples too).
    delta : float, default=0.05
        The confidence; each of the two kl bounds takes ``delta / 2``.
    matrix : array_like of shape (H, H), optional
        Pairwise disagreement rates instead of ``votes``.
    n_disagreement : int, optional
        The least number of examples any pair's rate in ``matrix`` was measured on.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.
    """
    upper, lower = _gibbs_and_disagreement(q, risks, n, votes, delta, matrix, n_disagreement)
    return atoms.c_bound(ex.minimum(upper, 0.5), lower)


def disagreement_bound(
    q: Posterior, risks, n, votes=None, delta=0.05, *, matrix=None, n_disagreement=None
):
    """Declare Masegosa et al.'s (2020) DIS bound ``4 L - 2 d``.

    With the two kl bounds of :func:`c_bound`.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks on ``n`` labeled examples.
    n : int
        The labeled sample's size.
    votes : array_like of shape (n', H), optional
        The voters' outputs in two classes (``n'`` may count unlabeled examples too).
    delta : float, default=0.05
        The confidence; each of the two kl bounds takes ``delta / 2``.
    matrix : array_like of shape (H, H), optional
        Pairwise disagreement rates instead of ``votes``.
    n_disagreement : int, optional
        The least number of examples any pair's rate in ``matrix`` was measured on.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.
    """
    upper, lower = _gibbs_and_disagreement(q, risks, n, votes, delta, matrix, n_disagreement)
    return 4 * upper - 2 * lower


def pac_bound_2(
    q: Posterior,
    errors=None,
    votes=None,
    delta=0.05,
    *,
    tandem_matrix=None,
    disagreement_matrix=None,
    n=None,
):
    """Declare Germain et al.'s (2015) PAC-Bound 2: the C-bound over a trinomial kl region.

    The joint error (tandem risk) and the disagreement of two voters drawn from ``q``,
    measured on the same ``n`` examples, are bounded together by one trinomial kl
    inequality of side ``(2 KL + ln((xi(n) + n) / delta)) / n``, with Maurer's ``xi(n)``
    computed (the paper writes its upper bound ``2 sqrt(n)``), and the bound is the
    largest C-bound over the rates it allows with ``d <= 2 (sqrt(e) - e)``
    (:mod:`cvxpb.numerics.trinomial`: the paper's value wherever its region has a point,
    else 1). It is declared in
    the pair's Gibbs risk (joint error plus half the disagreement; on one sample, the
    posterior's Gibbs risk) and the disagreement, in which it is monotone. For two
    classes.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    errors : array_like of shape (n, H), optional
        0/1 error indicators on one sample.
    votes : array_like of shape (n, H), optional
        The voters' outputs in two classes on the same sample.
    delta : float, default=0.05
        The confidence.
    tandem_matrix, disagreement_matrix : array_like of shape (H, H), optional
        Pairwise joint-error and disagreement rates, each pair's two on the same
        examples (out of bag), instead of ``errors`` and ``votes``.
    n : int, optional
        With the matrices: the least number of examples any pair's rates were measured on.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.
    """
    delta = check_delta(delta)
    if errors is not None and votes is not None:
        if tandem_matrix is not None or disagreement_matrix is not None:
            raise ValueError("give errors and votes, or the two matrices with n, not both")
        if np.shape(errors)[0] != np.shape(votes)[0]:
            raise ValueError(
                f"errors and votes must count the same examples, got {np.shape(errors)[0]} "
                f"and {np.shape(votes)[0]} rows"
            )
        if len(np.unique(np.asarray(votes))) > 2:
            raise ValueError("votes must hold two classes: PAC-Bound 2 is a binary bound")
        n = np.shape(errors)[0]
        risk = gibbs_risk(q, np.mean(check_two_valued(errors, q.size, "errors"), axis=0))
        disagree = disagreement(q, votes)
    elif tandem_matrix is not None and disagreement_matrix is not None and n is not None:
        pair_risk = np.asarray(tandem_matrix, float) + np.asarray(disagreement_matrix, float) / 2
        risk = pairwise_loss(q, matrix=pair_risk, name="pair_gibbs_risk")
        disagree = disagreement(q, matrix=disagreement_matrix)
    else:
        raise ValueError(
            "pac_bound_2 needs errors and votes (n x H, one sample), or tandem_matrix=, "
            "disagreement_matrix= and n="
        )
    n = check_count(n, "n")
    confidence = np.logaddexp(log_xi(n), np.log(n)) - np.log(delta)  # ln((xi(n) + n) / delta)
    side = (2 * KL(q) + _up(confidence)) / n
    return atoms.pac_bound_two(risk, disagree, side)


def chebyshev_cantelli_tnd(
    q: Posterior, risks, n_gibbs, errors=None, n=None, delta=0.05, *, matrix=None
):
    """Declare Wu et al.'s (2021) CCTND bound, one declaration for each sign of ``mu``.

    ``MV <= (T - 2 mu L + mu^2) / (1/2 - mu)^2`` for every ``mu < 1/2`` (a parametric
    Chebyshev-Cantelli inequality on the weighted error ``Z``, with ``E[Z^2] = T`` the
    tandem risk and ``E[Z] = L`` the Gibbs risk). ``T`` is bounded above by the kl
    inequality on ``q x q`` (``2 KL``) and ``L`` by the kl inequality on ``q``, each at
    ``delta / 2``; one kl inequality bounds ``L`` from both sides, so every ``mu`` holds
    at once and the bound is the least over ``mu``, in closed form on each side
    (:func:`cvxpb.ensemble.atoms.chebyshev_cantelli`). For ``mu >= 0`` the
    lower kl bound on ``L`` enters, for ``mu < 0`` the upper one: ``Minimize`` of the
    pair minimizes both and takes the lesser minimum.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks.
    n_gibbs : int
        The least number of examples a voter's risk was measured on.
    errors : array_like of shape (n, H), optional
        The voters' 0/1 errors on one sample.
    n : int, optional
        The tandem rates' sample size; with ``matrix=``, the least number of examples
        any pair's rate was measured on (required then).
    delta : float, default=0.05
        The confidence.
    matrix : array_like of shape (H, H), optional
        The tandem rates instead of ``errors``.

    Returns
    -------
    tuple of Expression
        The declarations for ``mu >= 0`` and for ``mu < 0``.
    """
    n_gibbs, delta = check_count(n_gibbs, "n_gibbs"), check_delta(delta)
    T, n = _tandem_term(q, errors, n, matrix, "chebyshev_cantelli_tnd")
    n, K = check_count(n, "n"), KL(q)
    tandem_upper = kl_inverse(T, _kl_slack(2 * K, n, delta))
    slack = _kl_slack(K, n_gibbs, delta)
    L = gibbs_risk(q, risks)
    return (
        atoms.chebyshev_cantelli(tandem_upper, kl_inverse_lower(L, slack), mu_nonnegative=True),
        atoms.chebyshev_cantelli(tandem_upper, kl_inverse(L, slack), mu_nonnegative=False),
    )


def c_tandem(q: Posterior, risks, n_gibbs, errors=None, n=None, delta=0.05, *, matrix=None):
    """Declare Masegosa et al.'s (2020) CTD bound, the C-bound written with the tandem risk.

    ``MV <= (T - L^2) / (T - L + 1/4)`` where ``L < 1/2`` (Chebyshev-Cantelli on the
    weighted error, whose second moment is the tandem risk ``T``); Masegosa et al. bound
    the numerator above and the denominator below with the kl inequalities of
    :func:`chebyshev_cantelli_tnd` (each two-sided, at ``delta / 2``)
    (:func:`cvxpb.ensemble.atoms.c_tandem`). The tandem risk enters the atom
    once, which takes both sides of its inequality and still increases in it; the Gibbs
    risk enters on both sides, so it is declared twice, once for each side (an affine
    term, exact either way). Four terms, quasi-concave: with errors measured on one
    sample (a Gram tandem matrix) the minimum is certified globally by the vertex search
    of :mod:`cvxpb.engine.declare.vertices`; out of bag the tandem risk goes through its
    convex minorant and the status is ``"local"`` where a gap remains. On the same two
    inequalities the least value over their box, which is
    :func:`chebyshev_cantelli_tnd`'s (the least over ``mu`` of the Chebyshev-Cantelli
    bound is this ratio), is never above this one. Any number of classes.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks.
    n_gibbs : int
        The least number of examples a voter's risk was measured on.
    errors : array_like of shape (n, H), optional
        The voters' 0/1 errors on one sample.
    n : int, optional
        The tandem rates' sample size (required with ``matrix=``).
    delta : float, default=0.05
        The confidence.
    matrix : array_like of shape (H, H), optional
        The tandem rates instead of ``errors``.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.ensemble import bounds as mv
    >>> errors = (np.random.default_rng(0).random((400, 3)) < 0.2).astype(float)
    >>> q = pb.Posterior.uniform(3)
    >>> ctd = mv.c_tandem(q, errors.mean(axis=0), 400, errors)
    >>> sorted(t.name for t in pb.Minimize(ctd).terms)
    ['KL', 'gibbs_risk', 'gibbs_risk (numerator)', 'tandem_risk']
    """
    n_gibbs, delta = check_count(n_gibbs, "n_gibbs"), check_delta(delta)
    T, n = _tandem_term(q, errors, n, matrix, "c_tandem")
    n, K = check_count(n, "n"), KL(q)
    L, L_copy = gibbs_risk(q, risks), GibbsRisk(q, risks, name="gibbs_risk (numerator)")
    gibbs_slack = _kl_slack(K, n_gibbs, delta)
    return atoms.c_tandem(
        T,
        _kl_slack(2 * K, n, delta),
        kl_inverse_lower(L_copy, gibbs_slack),
        kl_inverse(L, gibbs_slack),
    )


SIDES = ("nonnegative", "negative")


def split_kl(q: Posterior, errors, delta=0.05, *, seen=None, side=None):
    """Declare Wu and Seldin's (2022) split-kl Chebyshev-Cantelli bound, one side each.

    The vote's risk is at most ``E[Z] / (1/2 - mu)^2`` for the ``mu``-shifted tandem
    loss ``Z`` of two voters drawn from ``q`` (:func:`chebyshev_cantelli_tnd`). ``Z``
    takes three values, so ``E[Z]`` is bounded by splitting it into two 0/1 rates
    (:func:`cvxpb.ensemble.atoms.split_cantelli`): an upper kl bound on the
    tandem risk and a lower one on the rate at which exactly one of the two voters errs
    (``mu >= 0``) or neither does (``mu < 0``), all on ``q x q`` (``2 KL``). Neither rate
    depends on ``mu``, so the three kl inequalities, at ``delta / 3`` each, hold for every
    ``mu`` at once and each side is least over its ``mu`` in closed form. On one shared
    sample the side ``mu < 0`` is declared in the tandem and Gibbs risks instead (at
    least one voter errs at rate ``2 L - T``;
    :func:`cvxpb.ensemble.atoms.split_cantelli_below`), three convex terms,
    so both sides are certified. Any number of classes.

    With ``side`` chosen before the errors are seen, that side alone needs its two
    inequalities, at ``delta / 2`` each, as Wu and Seldin state it: at or below their
    bound at every ``mu`` of the side (Maurer's ``xi(n)`` for their ``2 sqrt(n)``). Both
    sides at ``delta / 3`` put ``ln(3 xi(n) / (4 sqrt(n))) / n`` more in the kl
    inequalities' side than one side of theirs: more below 72 examples per pair, less
    from 72 on.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    errors : array_like of shape (n, H) or PairErrors
        The voters' 0/1 errors, or their pairs already counted.
    delta : float, default=0.05
        The confidence.
    seen : array_like of shape (n, H), optional
        Which examples count for each voter (out of bag); all by default. Each pair
        counts the examples both voters have, and ``n`` is the least such count.
    side : {"nonnegative", "negative"}, optional
        The sign of ``mu``, chosen in advance; both by default.

    Returns
    -------
    tuple of Expression or Expression
        The declarations for ``mu >= 0`` and for ``mu < 0``: ``Minimize`` of the pair
        minimizes both and takes the lesser minimum; with ``side``, that side's alone.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.ensemble import bounds as mv
    >>> errors = (np.random.default_rng(0).random((400, 3)) < 0.2).astype(float)
    >>> plus, minus = mv.split_kl(pb.Posterior.uniform(3), errors)
    >>> res = pb.Minimize(plus).solve()
    >>> res.status, sorted(res.terms)
    ('optimal', ['KL', 'one_error_rate', 'tandem_risk'])
    """
    delta = check_delta(delta)
    if side is not None:
        check_choice(side, "side", SIDES)
    pairs = _pairs(errors, seen)
    slack = _kl_slack(2 * KL(q), pairs.n, delta, parts=3 if side is None else 2)
    tandem = pairs.tandem_term(q)
    tandem_upper = kl_inverse(tandem, slack)
    one = pairwise_loss(q, pairs.one_error(), name="one_error_rate")
    plus = atoms.split_cantelli(tandem_upper, kl_inverse_lower(one, slack), mu_nonnegative=True)
    if side == "nonnegative":
        return plus
    if pairs.shared:  # at least one errs at rate 2 L - T: three convex terms
        gibbs = gibbs_risk(q, np.diag(pairs.own))
        minus = atoms.split_cantelli_below(tandem, gibbs, slack)
    else:
        none = pairwise_loss(q, pairs.no_error(), name="no_error_rate")
        minus = atoms.split_cantelli(
            tandem_upper, kl_inverse_lower(none, slack), mu_nonnegative=False
        )
    return minus if side == "negative" else (plus, minus)


def unexpected_bernstein(q: Posterior, errors, delta=0.05, *, seen=None, mu_grid=None):
    """Declare the Chebyshev-Cantelli bound with the PAC-Bayes-unexpected-Bernstein inequality.

    Wu and Seldin's (2022) CCPBUB. For ``Z <= b`` and ``gamma`` in ``(0, 1/b)``,
    Mhammedi, Grunwald and Guedj's (2019) inequality gives, for every posterior at once,
    ``E[Z] <= Z_hat + psi(-gamma b) / (gamma b^2) Z2_hat + (2 KL + ln(1/delta)) /
    (gamma n)`` on pairs (``2 KL``), with ``Z2_hat`` the empirical mean of ``Z^2`` and
    ``psi(u) = u - ln(1 + u)``. For the ``mu``-shifted tandem loss ``b = (1 - mu)^2``,
    and ``Z_hat + c Z2_hat`` is one quadratic form in ``q``
    (:meth:`cvxpb.ensemble.pairs.PairErrors.shifted_loss`), convex on one sample. The
    inequality holds at one ``(mu, gamma)``: the grid is ``mu_grid`` times Wu and
    Seldin's ``gamma_k = 1 / (2^(k+1) b)``, ``k < ceil(log2(sqrt(n / ln(1/delta')) / 2))``
    sized, as they size it, at the confidence ``delta' = delta / |mu_grid|`` each shift
    gets, and each point at ``delta`` over the grid's size (the union bound): at every
    shift, the authors' bound at ``delta'``. Each grid point is a
    convex program in ``q``, so the least of their minima is the global minimum.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    errors : array_like of shape (n, H) or PairErrors
        The voters' 0/1 errors, or their pairs already counted.
    delta : float, default=0.05
        The confidence, shared by the grid.
    seen : array_like of shape (n, H), optional
        Which examples count for each voter (out of bag); all by default.
    mu_grid : array_like, optional
        The shifts, each finite and below 1/2; by default ``MU_GRID``.

    Returns
    -------
    tuple of Expression
        One declaration per ``(mu, gamma)``: ``Minimize`` of the tuple minimizes each and
        takes the least minimum.

    Raises
    ------
    ValueError
        For a shift of 1/2 or more, or a non-finite one.
    """
    delta = check_delta(delta)
    mus = _shifts(MU_GRID if mu_grid is None else mu_grid)
    pairs = _pairs(errors, seen)
    n = pairs.n
    # each shift's gamma grid sized at the confidence that shift gets, delta / |mu grid|
    steps = max(1, math.ceil(math.log2(math.sqrt(n / math.log(mus.size / delta)) / 2)))
    cost = math.log(mus.size * steps / delta)
    declared = []
    for mu in mus:
        b = (1 - mu) ** 2
        for k in range(steps):
            x = 2.0 ** -(k + 1)  # gamma b
            weight = (-x - math.log1p(-x)) / (x * b) * (1 + 8 * EPS)
            shifted = pairs.shifted_loss(q, mu, weight)
            rounding = 64 + pairs.summed(square=True)  # the matrix's own, in EPS
            margin = rounding * EPS * (b + weight * b * b)
            gamma_n = x / b * n
            numerator = shifted + (2 * KL(q) + cost) / gamma_n + margin
            declared.append(ex.maximum(numerator, 0.0) * (_up(1 / (0.5 - mu) ** 2)))
    return tuple(declared)


def chebyshev_cantelli_bennett(q: Posterior, errors, delta=0.05, *, seen=None, mu_grid=None):
    """Declare Wu et al.'s (2021) CCPBB bound: Chebyshev-Cantelli with PAC-Bayes-Bennett.

    The vote's risk is at most ``E[Z] / (1/2 - mu)^2`` for the ``mu``-shifted tandem loss
    ``Z`` (:func:`chebyshev_cantelli_tnd`). ``E[Z]`` is bounded by the PAC-Bayes-Bennett
    inequality on pairs (``2 KL``) with the pairs' empirical variances bounded by
    Tolstikhin and Seldin's (2013) inequality
    (:func:`cvxpb.ensemble.atoms.pac_bayes_bennett`). Bennett's lemma bounds
    ``E[Z] - Z``, so its constant is ``Z``'s range, ``K_mu = max(1 - mu, 1 - 2 mu)``, not
    the loss's top ``(1 - mu)^2`` (smaller for ``mu`` in (0, 1/2)), which the authors' code
    uses. Half of ``delta`` goes to the variance inequalities and half to Bennett's, each
    shared by the ``mu`` grid and its own grid (``t``: from
    ``1 / (sqrt((n - 1) / ln(1 / delta') + 1) + 1)`` to 1/2; ``gamma K_mu``: from
    ``sqrt(8 ln(1 / delta') / n)`` to 4; both geometric with ratio 1.05). Each ``mu`` is a
    declaration of three terms (the shifted loss, its variance and ``KL``); the least of
    their minima is the bound. Any number of classes.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    errors : array_like of shape (n, H) or PairErrors
        The voters' 0/1 errors, or their pairs already counted.
    delta : float, default=0.05
        The confidence, shared by the grids.
    seen : array_like of shape (n, H), optional
        Which examples count for each voter (out of bag); all by default.
    mu_grid : array_like, optional
        The shifts, each finite and below 1/2; by default ``MU_GRID``.

    Returns
    -------
    tuple of Expression
        One declaration per ``mu``: ``Minimize`` of the tuple minimizes each and takes
        the least minimum.

    Raises
    ------
    ValueError
        For a shift of 1/2 or more, or a pair of voters counted on fewer than two
        examples.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.ensemble import bounds as mv
    >>> errors = (np.random.default_rng(0).random((400, 3)) < 0.2).astype(float)
    >>> declared = mv.chebyshev_cantelli_bennett(pb.Posterior.uniform(3), errors, mu_grid=[0.1])
    >>> res = pb.Minimize(declared[0]).solve()
    >>> sorted(res.terms)
    ['KL', 'shifted_tandem[mu=0.1]', 'shifted_variance[mu=0.1]']
    """
    delta = check_delta(delta)
    mus = _shifts(MU_GRID if mu_grid is None else mu_grid)
    pairs = _pairs(errors, seen)
    n, share = pairs.n, delta / (2 * mus.size)
    if n < 2:
        raise ValueError(
            f"chebyshev_cantelli_bennett needs pairs counted on two examples or more; one has {n}"
        )
    ts, gammas = bennett_grids(n, share)
    declared = []
    for mu in mus:
        spread = max(1 - mu, 1 - 2 * mu)
        excess = atoms.pac_bayes_bennett(
            pairs.shifted_variance(q, mu),
            2 * KL(q),
            n=n,
            spread=spread,
            gammas=gammas,
            cost=math.log(gammas.size / share),
            ts=ts,
            variance_cost=math.log(ts.size / share),
        )
        margin = (64 + pairs.summed()) * EPS * spread * spread  # the shifted loss's rounding
        numerator = pairs.shifted_loss(q, mu) + excess + margin
        declared.append(ex.maximum(numerator, 0.0) * _up(1 / (0.5 - mu) ** 2))
    return tuple(declared)


def bennett_grids(n, delta, ratio=1.05):
    """The grids of CCPBB, fixed by ``n`` and ``delta`` alone (before the data).

    Parameters
    ----------
    n : int
        The sample size (at least 2).
    delta : float
        The confidence of one ``mu``'s inequalities of each kind.
    ratio : float, default=1.05
        The grids' geometric step.

    Returns
    -------
    ts : ndarray
        ``t`` of the variance inequality, in (0, 1/2].
    gammas : ndarray
        ``gamma`` times the loss's range.
    """
    c = math.log(1 / delta)
    t_low = 1 / (math.sqrt((n - 1) / c + 1) + 1)
    ts = np.minimum(t_low * ratio ** np.arange(math.ceil(math.log(0.5 / t_low, ratio)) + 1), 0.5)
    x_low = min(math.sqrt(8 * c / n), 1.0)
    gammas = x_low * ratio ** np.arange(math.ceil(math.log(4 / x_low, ratio)) + 1)
    return ts, gammas


def _pairs(errors, seen):
    """The errors counted in pairs, unless they already are."""
    if isinstance(errors, PairErrors):
        if seen is not None:
            raise ValueError("give seen with raw errors, not with a PairErrors")
        return errors
    return PairErrors(errors, seen)


MU_GRID = np.round(np.linspace(-0.25, 0.45, 15), 12)  # the default shifts of a union bound


def _shifts(grid):
    """The shifts of a union bound: finite, each below 1/2."""
    mus = np.asarray(real_array(grid, "mu_grid"), dtype=float).ravel()
    if mus.size == 0 or np.any(~np.isfinite(mus)) or np.any(mus >= 0.5):
        raise ValueError(f"mu_grid must hold finite shifts below 1/2, got {grid!r}")
    return mus


def _up(x):
    """``x`` raised by a few units in the last place: a factor rounded outward."""
    return float(x) * (1 + 4 * EPS)


def _gibbs_and_disagreement(q, risks, n, votes, delta, matrix, n_disagreement):
    """An upper kl bound on the Gibbs risk and a lower one on the disagreement (of
    ``q x q``, hence ``2 KL``), each at ``delta / 2``."""
    n, delta = check_count(n, "n"), check_delta(delta)
    if votes is not None:
        if len(np.unique(np.asarray(votes))) > 2:
            raise ValueError("votes must hold two classes: the C-bound and DIS are binary bounds")
        n_disagreement = np.shape(votes)[0]
    elif matrix is None or n_disagreement is None:
        raise ValueError("give votes (n' x H outputs) or matrix= with n_disagreement")
    m = check_count(n_disagreement, "n_disagreement")
    L, d, K = gibbs_risk(q, risks), disagreement(q, votes, matrix=matrix), KL(q)
    upper = kl_inverse(L, _kl_slack(K, n, delta))
    lower = kl_inverse_lower(d, _kl_slack(2 * K, m, delta))
    return upper, lower


def _tandem_term(q, errors, n, matrix, who):
    """The tandem risk term, and its sample size: ``n``, or the rows of ``errors``."""
    term = tandem_risk(q, errors, matrix=matrix)
    if n is None:
        if errors is None:
            raise ValueError(f"{who} needs n, the sample size of the tandem rates, with matrix=")
        n = np.shape(errors)[0]
    return term, n


def _kl_slack(divergence, n, delta, parts=2):
    """``(divergence + ln(parts xi(n) / delta)) / n``: the kl inequality's side at
    ``delta / parts``, with Maurer's ``xi(n)`` (:func:`cvxpb.numerics.maurer.log_xi`)."""
    return (divergence + _up(log_xi(n) + np.log(parts / delta))) / n


def pac_bayes_lambda(q: Posterior, risks, n, delta):
    """Declare twice Thiemann et al.'s (2017) PAC-Bayes-lambda bound at its best lambda.

    A closed form (:func:`cvxpb.ensemble.atoms.lambda_bound`); the bound holds
    for all ``lambda`` at once.

    Parameters
    ----------
    q : Posterior
        The posterior over the voters.
    risks : array_like of shape (H,)
        The voters' empirical risks.
    n : int
        The sample size they were measured on.
    delta : float
        The confidence.

    Returns
    -------
    Expression
        The declared bound, for :class:`cvxpb.Minimize`.
    """
    n, delta = check_count(n, "n"), check_delta(delta)
    complexity = (KL(q) + _up(log_xi(n) - np.log(delta))) / n
    return 2 * atoms.lambda_bound(gibbs_risk(q, risks), complexity)


def _pac_bayes(risk, q, n, delta, distance, divergence, alpha, copies):
    """A bound on the true value of ``risk`` (a {0, 1}-loss average under ``q`` or, for
    ``copies = 2``, under ``q x q``) as a declared expression: the
    :class:`cvxpb.pac_bayes.bounds.Bound` of :func:`cvxpb.BoundProblem`, at the divergence of
    ``q``'s copies (``2 KL``, the chi-squared sum squared, ``2 D_alpha``)."""
    n, delta = check_count(n, "n"), check_delta(delta)
    if isinstance(divergence, str):  # the user's words; an object is checked by Bound
        check_choice(divergence, "divergence", tuple(DISTANCES_BY_DIVERGENCE))
        check_distance(distance, divergence)
    function = Bound(distance, divergence, n, delta, alpha=alpha)
    term = DivergenceTerm(q, function.measure)
    return ex.pac_bayes(function, risk, function.measure.bound_argument(term, copies))
