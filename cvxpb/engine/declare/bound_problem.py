"""``BoundProblem(risks, m, ...)``: the short way to declare one PAC-Bayes bound."""

from __future__ import annotations

from cvxpb.engine.declare.problem import Minimize
from cvxpb.engine.declare.standard import StandardForm, declaration
from cvxpb.engine.one_bound import OneBound


def BoundProblem(
    risks,
    m,
    delta=0.05,
    distance="kl",
    divergence="chi2",
    prior=None,
    constants="exact",
    grid=None,
    alpha=None,
):
    """Declare a PAC-Bayes bound of the Gibbs risk over ``H`` classifiers, to minimize.

    The declaration ``pac_bayes(bound, gibbs_risk(q, risks), D(q))`` written out; its
    standard form (:class:`cvxpb.engine.declare.standard.ToStandardForm`) is the data
    stated here, so every method derived for one bound takes it, ``exact`` by default.

    Parameters
    ----------
    risks : array_like of shape (H,)
        Empirical risks in [0, 1], measured on ``m`` examples.
    m : int
        Sample size (an integer >= 1).
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    distance : {"linear", "sq", "kl", "catoni"}, default="kl"
        ``catoni`` only with ``divergence="kl"``; see :mod:`cvxpb.pac_bayes.bounds`.
    divergence : {"chi2", "renyi", "kl"}, default="chi2"
        ``renyi`` is Theorem 1 of Sahu & Hemachandra (after Begin et al., 2016) for
        any order ``alpha > 1``; the divergence reported is then ``D_alpha``.
    prior : array_like of shape (H,), optional
        Prior weights (non-negative, summing to 1); ``None`` is uniform.
    constants : {"exact", "paper"}, default="exact"
        Route for the chi-squared bounds' constant ``I_phi(m, 2)``.
    grid : array_like, optional
        Grid of ``lam`` (KL linear) or ``C`` (Catoni), union-bounded.
    alpha : float > 1, optional
        Renyi order (``divergence="renyi"`` only; chi2 is ``alpha = 2``).

    Returns
    -------
    cvxpb.Minimize
        The declared bound; ``standard_form().problem`` is its data
        (:class:`cvxpb.engine.one_bound.OneBound`).

    Raises
    ------
    ValueError
        For an argument out of range, naming it, before any work.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> prob = pb.BoundProblem([0.1, 0.12, 0.3], m=500, delta=0.05, distance="sq")
    >>> res = prob.solve()
    >>> res.status, round(res.bound, 4)
    ('optimal', 0.1773)
    """
    data = OneBound(risks, m, delta, distance, divergence, prior, constants, grid, alpha)
    problem = Minimize(declaration(data))
    problem.use_standard_form(StandardForm(1.0, data))
    return problem
