"""Maurer's ``xi(n)`` for the tests' own formulas, by a route independent of the package's.

``xi(n) = sum_k C(n, k) (k/n)^k (1 - k/n)^(n - k)`` (Maurer, 2004), each term SciPy's
binomial probability ``Bin(k; n, k/n)`` (Boost's), summed with ``math.fsum``; the
package's :func:`cvxpb.numerics.maurer.log_xi` uses Loader's saddle-point form and an
exact sum. Beyond :data:`cvxpb.numerics.maurer.EXACT_UP_TO` examples the package takes
the papers' ``2 sqrt(n)``, and so does this.
"""

import math
from functools import lru_cache

import numpy as np
from scipy.stats import binom

from cvxpb.numerics.maurer import EXACT_UP_TO


@lru_cache(maxsize=64)
def xi(n) -> float:
    """Maurer's ``xi(n)`` (``2 sqrt(n)`` past the package's exact range)."""
    n = int(n)
    if n > EXACT_UP_TO:
        return 2 * math.sqrt(n)
    k = np.arange(n + 1)
    return math.fsum(binom.pmf(k, n, k / n))
