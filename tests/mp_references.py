"""Independent references in mpmath, written once for the tests that check against them."""

import mpmath as mp


def mp_kl(a, b):
    """The binary kl divergence ``kl(a || b)`` in mpmath, at its current precision, with
    ``0 log 0 = 0`` (written from the definition, not from cvxpb's code)."""
    a, b = mp.mpf(a), mp.mpf(b)
    left = a * mp.log(a / b) if a > 0 else mp.mpf(0)
    right = (1 - a) * (mp.log1p(-a) - mp.log1p(-b)) if a < 1 else mp.mpf(0)
    return left + right
