"""Maurer's ``xi(n)``, the confidence term of the kl bounds, computed and rounded up.

Maurer (2004) proves ``E exp(n kl(L_hat, L)) <= xi(n)`` for the empirical mean of ``n``
independent variables in [0, 1], with

``xi(n) = sum_{k=0}^{n} C(n, k) (k/n)^k (1 - k/n)^(n - k)``,

so Seeger's kl bound holds with ``ln(xi(n) / delta)``; ``sqrt(n) <= xi(n) <= 2 sqrt(n)``
(the papers' ``2 sqrt(n)`` is that upper bound), and ``xi(n) ~ sqrt(pi n / 2)``.
Each term is the binomial probability of its own mean, ``Bin(k; n, k/n)``, which
Loader's saddle-point form gives to a few ulps with no cancellation
(:func:`cvxpb.numerics.binomial.stirling_error`):
``Bin(k; n, k/n) = sqrt(n / (2 pi k (n - k))) exp(s(n) - s(k) - s(n - k))``.
The terms are summed exactly (``math.fsum``, fast here: the terms run from about
``1/e`` next to the ends down to about ``sqrt(2 / (pi n))`` in the middle) and the
sum moved up by ``1e-13`` of itself, far above their rounding (a few ulps each) and the
series' error (below 1e-17). Beyond
:data:`EXACT_UP_TO` the sum would take seconds, and ``2 sqrt(n)``, still valid, is used.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from cvxpb.numerics.binomial import stirling_error
from cvxpb.numerics.tolerances import nudge

EXACT_UP_TO = 1_000_000  # sample sizes summed term by term (0.1 s at the largest)
MARGIN = 1e-13  # the relative step up that covers the terms' rounding (1e-15 at most)


@lru_cache(maxsize=256)
def _log_xi(n: int) -> float:
    if n > EXACT_UP_TO:
        return float(nudge(math.log(2.0) + 0.5 * math.log(n), +1))
    k = np.arange(1, n, dtype=float)
    exponent = stirling_error(n) - stirling_error(k) - stirling_error(n - k)
    terms = np.sqrt(n / (2 * np.pi * k * (n - k))) * np.exp(exponent)
    total = math.fsum(np.append(terms, 2.0))  # k = 0 and k = n: 1 each
    return float(nudge(math.log(total) + MARGIN, +1))


def log_xi(n) -> float:
    """Give ``ln xi(n)``, rounded up: a valid confidence term for the kl bounds.

    Parameters
    ----------
    n : int
        The sample size, at least 1.

    Returns
    -------
    float
        At least the exact ``ln xi(n)``, above it by about 1e-13; ``ln(2 sqrt(n))``
        beyond :data:`EXACT_UP_TO`.

    Raises
    ------
    ValueError
        Unless ``n`` is an integer at least 1.

    Examples
    --------
    >>> import math
    >>> from cvxpb.numerics.maurer import log_xi
    >>> round(math.exp(log_xi(1)), 9), round(math.exp(log_xi(2)), 9)
    (2.0, 2.5)
    >>> bool(math.exp(log_xi(1000)) < 2 * math.sqrt(1000))
    True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer at least 1, got {n!r}")
    return _log_xi(int(n))
