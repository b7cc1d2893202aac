"""The regularization grid of Sahu & Hemachandra, Section 7."""

from __future__ import annotations

import numpy as np

RATIOS = (1 / 2, 1 / 3, 1 / 5)


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


def check_lambdas(lambdas) -> np.ndarray:
    """A non-empty 1-D array of finite, positive regularization parameters."""
    lambdas = np.asarray(lambdas, dtype=float)
    if lambdas.ndim != 1 or lambdas.size == 0:
        raise ValueError(f"lambdas must be a non-empty 1-D grid, got shape {lambdas.shape}")
    if not np.all(np.isfinite(lambdas) & (lambdas > 0)):
        bad = lambdas[~(np.isfinite(lambdas) & (lambdas > 0))]
        raise ValueError(f"lambdas must be finite and positive, got {bad[:5].tolist()}")
    return lambdas
