"""The regularization grid of Sahu & Hemachandra, Section 7."""

from __future__ import annotations

import numpy as np

RATIOS = (1 / 2, 1 / 3, 1 / 5)
# How lam becomes libsvm's C for an SVM fitted on n examples. Sahu & Hemachandra do not
# say; "1/(lam n)" is the regularized-risk form (lam ||w||^2 / 2 + mean hinge loss),
# "1/lam" gives kernlab's C directly, under which their Appendix D grid on [0.1, 20]
# trains SVMs that are not all constant.
COSTS = ("1/(lam n)", "1/lam")


def lambda_grid(
    top: float = 0.1,
    floor: float = 1e-10,
    step: float = 0.05,
    stop: float = 5.0,
    ratios=RATIOS,
) -> np.ndarray:
    """The arithmetic-geometric progression of Sahu & Hemachandra, Section 7, sorted.

    The union of the geometric series ``top * r^k`` (``r`` in ``ratios``) kept in
    ``[floor, top]``, and the arithmetic series ``top + step, top + 2 step, ...`` up to
    ``stop``. The defaults give 60 geometric values (30, 19 and 13, sharing 0.1) and
    98 arithmetic ones: 158 in all.

    Parameters
    ----------
    top : float, default=0.1
        The geometric series' first value and the arithmetic one's start.
    floor : float, default=1e-10
        The least geometric value kept.
    step : float, default=0.05
        The arithmetic step.
    stop : float, default=5.0
        The largest arithmetic value.
    ratios : sequence of float, default=RATIOS
        The geometric ratios.

    Returns
    -------
    ndarray
        The grid, ascending, without repeats.
    """
    if not 0 < floor < top < stop or step <= 0:
        raise ValueError("need 0 < floor < top < stop and step > 0")
    if any(not 0 < r < 1 for r in ratios):
        raise ValueError(f"ratios must lie in (0, 1), got {ratios}")
    geometric = [
        top * r ** np.arange(int(np.floor(np.log(floor / top) / np.log(r) + 1e-9)) + 1)
        for r in ratios
    ]
    count = int(np.floor((stop - top) / step + 1e-9))
    arithmetic = np.round(top + step * np.arange(1, count + 1), 12)  # 0.15, not 0.150...02
    return np.unique(np.concatenate([*geometric, arithmetic]))


def linear_grid(size: int, start: float = 0.1, step: float = 0.01) -> np.ndarray:
    """The grid ``start, start + step, ...`` of Sahu & Hemachandra's Appendix D.

    "Lambda = {0.1, 0.11, ...}" (Table 8), whose ``H = 50, 200, 500, 1000, 1990``
    families (Tables 3, 6, 7 and 9) are its prefixes; ``H = 1990`` ends at 19.99
    (Figures 4 and 5 write the set as {0.01, ..., 20}).

    Parameters
    ----------
    size : int
        The number of values.
    start : float, default=0.1
        The first value.
    step : float, default=0.01
        The step.

    Returns
    -------
    ndarray of shape (size,)
        The grid.
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    if not (np.isfinite(start) and start > 0 and np.isfinite(step) and step > 0):
        raise ValueError(f"start and step must be finite and positive, got {start}, {step}")
    return np.round(start + step * np.arange(size), 12)


def check_cost(cost: str) -> str:
    """Check that ``cost`` is one of :data:`COSTS`.

    Parameters
    ----------
    cost : str
        The rule from ``lam`` to ``C``.

    Returns
    -------
    str
        ``cost``.

    Raises
    ------
    ValueError
        Naming the rules allowed.
    """
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
    return cost


def svm_C(lam: float, n: int, cost: str = COSTS[0]) -> float:
    """The ``C`` of libsvm for regularization ``lam`` and ``n`` training examples.

    Parameters
    ----------
    lam : float
        The regularization parameter.
    n : int
        The training examples.
    cost : {"1/(lam n)", "1/lam"}, default="1/(lam n)"
        The rule (:data:`COSTS`).

    Returns
    -------
    float
        ``1 / (lam n)`` or ``1 / lam``.
    """
    return 1 / (lam * n) if cost == COSTS[0] else 1 / lam


def check_lambdas(lambdas) -> np.ndarray:
    """Check regularization parameters: a non-empty 1-D array of finite positive values.

    Parameters
    ----------
    lambdas : array_like
        The parameters.

    Returns
    -------
    ndarray
        They, as floats.

    Raises
    ------
    ValueError
        For another shape, an empty array, or a value not finite and positive.
    """
    lambdas = np.asarray(lambdas, dtype=float)
    if lambdas.ndim != 1 or lambdas.size == 0:
        raise ValueError(f"lambdas must be a non-empty 1-D grid, got shape {lambdas.shape}")
    if not np.all(np.isfinite(lambdas) & (lambdas > 0)):
        bad = lambdas[~(np.isfinite(lambdas) & (lambdas > 0))]
        raise ValueError(f"lambdas must be finite and positive, got {bad[:5].tolist()}")
    return lambdas
