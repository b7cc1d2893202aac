"""How a posterior spreads over the classifiers (Sahu & Hemachandra, Appendix D.2 and Figure 1).

* support size ``H*``: the classifiers with positive weight;
* ``N(alpha) = min{i : F_Q(i) >= alpha}`` (eq. 68), with ``F_Q`` the posterior's CDF over
  the classifiers ordered by empirical risk (ties by weight, heaviest first). Optimal
  posteriors are non-increasing in the risk, so ``N(alpha)`` is also the fewest classifiers
  that carry posterior mass ``alpha``;
* the Herfindahl-Hirschman index, which Sahu & Hemachandra takes as the l2 norm ``||Q||_2``: from
  ``1/sqrt(H)`` (uniform) to 1 (one classifier);
* the bound on ordered subsets: the best bound among posteriors supported on the ``H'``
  smallest risks, as ``H'`` grows (Figure 1; Theorem 9 says these subsets suffice for
  the uniform prior).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cvxpb.engine.methods.exact import restricted_minimum

ALPHAS = (0.8, 0.9, 0.95)


def _check_posterior(posterior, risks=None) -> np.ndarray:
    q = np.asarray(posterior, dtype=float)
    if q.ndim != 1 or q.size == 0 or np.any(~np.isfinite(q)) or np.any(q < 0):
        raise ValueError("posterior must be a non-empty 1-D array of non-negative weights")
    if not np.isclose(q.sum(), 1, atol=1e-8):
        raise ValueError(f"posterior must sum to 1, sums to {q.sum()!r}")
    if risks is not None and np.shape(risks) != q.shape:
        raise ValueError(f"risks must have the posterior's shape {q.shape}")
    return q


def risk_order(posterior, risks) -> np.ndarray:
    """Classifier indices by increasing risk, ties broken by decreasing weight.

    Parameters
    ----------
    posterior : array_like of shape (H,)
        The posterior.
    risks : array_like of shape (H,)
        The classifiers' risks.

    Returns
    -------
    ndarray of shape (H,)
        The order.
    """
    return np.lexsort((-np.asarray(posterior), np.asarray(risks)))


def posterior_cdf(posterior, risks) -> np.ndarray:
    """``F_Q(i)``, ``i = 1..H``: the mass on the ``i`` classifiers of smallest risk.

    Parameters
    ----------
    posterior : array_like of shape (H,)
        The posterior.
    risks : array_like of shape (H,)
        The classifiers' risks.

    Returns
    -------
    ndarray of shape (H,)
        The CDF.
    """
    q = _check_posterior(posterior, risks)
    return np.cumsum(q[risk_order(q, risks)])


def n_alpha(posterior, risks, alpha: float) -> int:
    """``N(alpha) = min{i : F_Q(i) >= alpha}`` (Sahu & Hemachandra, eq. 68).

    Parameters
    ----------
    posterior : array_like of shape (H,)
        The posterior.
    risks : array_like of shape (H,)
        The classifiers' risks.
    alpha : float
        The mass, in (0, 1].

    Returns
    -------
    int
        ``N(alpha)``.
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must lie in (0, 1], got {alpha!r}")
    cdf = posterior_cdf(posterior, risks)
    return int(min(np.searchsorted(cdf, alpha - 1e-12, side="left") + 1, cdf.size))


def hhi(posterior) -> float:
    """The Herfindahl-Hirschman index as Sahu & Hemachandra use it: ``||Q||_2``.

    Parameters
    ----------
    posterior : array_like of shape (H,)
        The posterior.

    Returns
    -------
    float
        The index.
    """
    return float(np.linalg.norm(_check_posterior(posterior)))


def summary(posterior, risks, alphas=ALPHAS) -> dict:
    """Support size, ``N(alpha)`` for each ``alpha`` and HHI, as a flat dict.

    Parameters
    ----------
    posterior : array_like of shape (H,)
        The posterior.
    risks : array_like of shape (H,)
        The classifiers' risks.
    alphas : sequence of float, default=ALPHAS
        The masses of ``N(alpha)``.

    Returns
    -------
    dict
        The statistics by name.
    """
    q = _check_posterior(posterior, risks)
    row = {"support": int(np.count_nonzero(q))}
    row.update({f"N({a:g})": n_alpha(q, risks, a) for a in alphas})
    row["HHI"] = hhi(q)
    return row


def ordered_subset_bounds(problem, sizes=None, progress: bool = False) -> pd.DataFrame:
    """The best bound over posteriors supported on the ``H'`` smallest risks, per ``H'``.

    The bound cannot rise with ``H'`` (the subsets are nested); at ``H' = H`` it is the
    global optimum.

    Parameters
    ----------
    problem : cvxpb.Minimize
        One bound of a Gibbs risk and a divergence (:func:`cvxpb.BoundProblem`, or a
        declaration with that standard form).
    sizes : sequence of int, optional
        The ``H'``; every one from 1 to the number of classifiers with prior mass by
        default.
    progress : bool, default=False
        Show a bar over the subsets.

    Returns
    -------
    pandas.DataFrame
        Columns ``H'``, ``bound`` (rounded outward), ``E_Q[risk]`` and ``divergence``.

    Raises
    ------
    ValueError
        For a declaration that is not one such bound (a multiple of one included).
    """
    from tqdm.auto import tqdm

    form = problem.standard_form()
    if form is None or form.scale != 1:
        raise ValueError(
            "problem must be one bound of a Gibbs risk and a divergence (cvxpb.BoundProblem)"
        )
    problem = form.problem
    with_mass = np.flatnonzero(problem.prior > 0)
    order = with_mass[np.argsort(problem.risks[with_mass], kind="stable")]
    sizes = np.arange(1, order.size + 1) if sizes is None else np.asarray(sizes, dtype=int)
    if sizes.ndim != 1 or np.any((sizes < 1) | (sizes > order.size)):
        raise ValueError(f"sizes must lie in [1, {order.size}]")
    rows = []
    for size in tqdm(sizes, desc="subsets H'", leave=False, disable=not progress):
        value, q = restricted_minimum(problem, order[:size])
        L, div = problem.terms(q)
        rows.append({"H'": int(size), "bound": value, "E_Q[risk]": L, "divergence": div})
    return pd.DataFrame(rows)
