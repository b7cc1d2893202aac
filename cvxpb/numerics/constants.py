"""The constant ``I_phi(m, alpha')`` of Theorem 1 of Sahu & Hemachandra (Begin et al., 2016).

``I_phi(m, alpha') = sup_{l in [0, 1]} sum_k Bin(k; m, l) |phi(k/m, l)|^alpha'``,
``alpha' = alpha / (alpha - 1)``.

``constants="exact"`` computes it from this definition; ``constants="paper"``
uses Sahu & Hemachandra's own numbers for ``alpha = 2``, to reproduce their tables:

========  ==========================  ==============================================
distance  exact                       paper
========  ==========================  ==============================================
linear    ``1/(4m)``                  the same
sq        ``(3m-2)/(16 m^3)``         ``(12m-11)/(16 m^3)`` (Lemma 2; about 4x larger)
kl        certified sup over ``l``    Table 5, with ``I(1028)`` for ``m > 1028``
========  ==========================  ==============================================

Every other order is a certified supremum (:mod:`cvxpb.numerics.supremum`), computed in log
space: :func:`log_bound_constant` is what the bounds use, since ``I`` under- or
overflows for orders near 1 (``alpha' -> inf``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from numbers import Integral, Real

import numpy as np

from cvxpb.numerics import CONSTANTS
from cvxpb.numerics.supremum import GAPS, MomentFunction, log_supremum
from cvxpb.numerics.tolerances import exp_up, nudge
from cvxpb.validation import check_choice

DISTANCES = tuple(GAPS)

# Sahu & Hemachandra, Table 5: m -> I_kl(m) as printed.
PAPER_KL_TABLE = {
    50: 0.0074799,
    100: 0.0037092,
    200: 0.0018470,
    500: 0.0007369,
    1000: 0.0003682,
    1020: 0.0003609,
    1028: 0.0003580,
}
MAX_SAMPLE_SIZE = 2**53  # every integer up to here is a float, exactly
MAX_SUMMED_SIZE = 10**6  # the largest m whose constant is computed by binomial sums
KL_MAX_POWER = GAPS["kl"].max_power  # alpha' for the kl distance at most this


def check_sample_size(m) -> int:
    """Check a sample size and return it as an int.

    Parameters
    ----------
    m : int or float
        The sample size.

    Returns
    -------
    int
        ``m``.

    Raises
    ------
    ValueError
        Unless ``m`` is an integer in ``[1, 2^53]`` (a real number, not a string or a bool).
    """
    if isinstance(m, bool) or not isinstance(m, Integral | float | np.floating):
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    if not (math.isfinite(m) and float(m).is_integer()) or m < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    if m > MAX_SAMPLE_SIZE:
        raise ValueError(f"m must be at most 2^53 = {MAX_SAMPLE_SIZE}, got {m!r}")
    return int(m)


def check_order(alpha) -> float:
    """Check a Renyi order.

    Parameters
    ----------
    alpha : float
        The order.

    Returns
    -------
    float
        ``alpha``, a real number, finite and > 1.

    Raises
    ------
    ValueError
        For anything else.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise ValueError(
            f"alpha (the Renyi order) must be a real number, a finite alpha > 1; got {alpha!r}"
        )
    alpha = float(alpha)
    if not (math.isfinite(alpha) and alpha > 1):
        raise ValueError(f"alpha (the Renyi order) must be a finite alpha > 1, got {alpha!r}")
    return alpha


def conjugate(alpha: float) -> float:
    """Give the conjugate exponent ``alpha' = alpha / (alpha - 1)``.

    Parameters
    ----------
    alpha : float
        The order, > 1.

    Returns
    -------
    float
        ``alpha'``.
    """
    return alpha / (alpha - 1)


def linear_constant(m: int) -> float:
    """Evaluate ``I_lin(m, 2) = sup_l l(1-l)/m = 1/(4m)``.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).

    Returns
    -------
    float
        The constant.
    """
    return 1.0 / (4 * check_sample_size(m))


def squared_constant(m: int, constants: str = "exact") -> float:
    """Evaluate ``I_sq(m, 2)``, the 4th central moment of Binomial(m, 1/2) over ``m^4``.

    ``E(k - m l)^4 = m l(1-l) [1 + 3(m-2) l(1-l)]`` grows with ``l(1-l)``, so the
    supremum is at ``l = 1/2`` for ``m >= 2``: ``(3m-2)/(16 m^3)``. For ``m = 1`` it is
    ``u(1 - 3u)`` with ``u = l(1-l)``, largest at ``u = 1/6``: ``1/12``. The paper's
    Lemma 2 writes ``l(1-l)`` where ``l^2(1-l)^2`` belongs and gets ``(12m-11)/(16 m^3)``.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    constants : {"exact", "paper"}, default="exact"
        The route: from the definition, or Sahu & Hemachandra's own numbers.

    Returns
    -------
    float
        The constant.
    """
    m = check_sample_size(m)
    check_choice(constants, "constants", CONSTANTS)
    if constants == "paper":
        return (12 * m - 11) / (16 * m**3)
    if m == 1:
        return 1 / 12
    return (3 * m - 2) / (16 * m**3)


def _check_power(distance: str, power: float) -> None:
    largest = GAPS[distance].max_power
    if power > largest:
        raise ValueError(
            f"the {distance} distance's constant is computed for alpha' <= {largest:g} "
            f"(alpha >= {largest / (largest - 1):.4f}), got alpha'={power:g}; "
            f"as alpha tends to 1 the {distance} bound tends to the vacuous value 1"
        )


def check_summed_size(m: int) -> int:
    """Check that the supremum's binomial sums are within reach.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).

    Returns
    -------
    int
        ``m``, at most ``MAX_SUMMED_SIZE``.

    Raises
    ------
    ValueError
        Above it.
    """
    if m > MAX_SUMMED_SIZE:
        raise ValueError(
            f"m={m} is above {MAX_SUMMED_SIZE:.0e}, the largest sample size for which cvxpb "
            "certifies a constant computed by binomial sums (the kl distance, and every "
            "distance with a Renyi order other than 2); the linear and sq distances with "
            "chi2 have closed forms for any m"
        )
    return m


def moment(m: int, l: float, distance: str = "kl", power: float = 2.0) -> float:
    """Evaluate ``sum_k Bin(k; m, l) |phi(k/m, l)|^power``.

    Log space inside; the value may underflow to 0.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    l : float
        The success probability, in (0, 1).
    distance : {"linear", "sq", "kl"}, default="kl"
        The distance ``phi``.
    power : float, default=2.0
        The power of ``|phi|``.

    Returns
    -------
    float
        The moment.
    """
    if l <= 0 or l >= 1:
        return 0.0
    return math.exp(MomentFunction(check_sample_size(m), distance, power).log_value(l)[0])


def kl_moment(m: int, l: float) -> float:
    """Evaluate ``sum_k Bin(k; m, l) kl(k/m, l)^2``.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    l : float
        The success probability, in (0, 1).

    Returns
    -------
    float
        The moment.
    """
    return moment(m, l, "kl", 2.0)


@lru_cache(maxsize=256)
def log_moment_supremum(m: int, distance: str = "kl", power: float = 2.0) -> tuple[float, float]:
    """Bound ``log sup_l sum_k Bin(k; m, l) |phi(k/m, l)|^power`` above, certified.

    See :mod:`cvxpb.numerics.supremum`: the bound holds on every cell of ``(0, 1/2]``,
    with the floating-point error of the sums added. It exceeds the supremum by at most
    the certified bracket's width (:func:`cvxpb.numerics.supremum.log_supremum` returns
    both ends): the cells close at ``RTOL`` (1e-12) relative, and the sums' rounding
    error, which grows with the power, comes on top, so near ``alpha = 1`` (``alpha'``
    large) the bracket is wider.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    distance : {"linear", "sq", "kl"}, default="kl"
        The distance ``phi``.
    power : float, default=2.0
        The power of ``|phi|``.

    Returns
    -------
    log_value : float
        The certified upper bound on ``log I``.
    l_star : float
        A maximizer, ``l_star <= 1/2`` (``1 - l_star`` mirrors it).
    """
    m = check_summed_size(check_sample_size(m))
    check_choice(distance, "distance", DISTANCES)
    _check_power(distance, power)
    upper, _, l_star = log_supremum(m, distance, power)
    return upper, l_star


def moment_supremum(m: int, distance: str = "kl", power: float = 2.0) -> tuple[float, float]:
    """Bound the supremum above: :func:`log_moment_supremum` exponentiated, rounded up.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    distance : {"linear", "sq", "kl"}, default="kl"
        The distance ``phi``.
    power : float, default=2.0
        The power of ``|phi|``.

    Returns
    -------
    value : float
        The upper bound on ``I``.
    l_star : float
        A maximizer.
    """
    log_value, l_star = log_moment_supremum(m, distance, power)
    return exp_up(log_value), l_star


def kl_supremum(m: int) -> tuple[float, float]:
    """Bound ``sup_l sum_k Bin(k; m, l) kl(k/m, l)^2`` above, with its maximizer.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).

    Returns
    -------
    value : float
        The certified upper bound.
    l_star : float
        A maximizer, ``l_star <= 1/2``.
    """
    return moment_supremum(m, "kl", 2.0)


def kl_constant(m: int, constants: str = "exact") -> float:
    """Evaluate ``I_kl(m, 2)``; ``constants="paper"`` follows the paper's Table 5 route.

    The paper tabulates ``m`` in {50, 100, 200, 500, 1000, 1020, 1028} and uses
    ``I(1028)`` beyond, arguing that ``I`` decreases with ``m``; by the same
    argument we use the value at the largest tabulated ``m' <= m`` in between.
    The paper gives no value below ``m = 50``.

    Parameters
    ----------
    m : int
        The sample size (an integer >= 1).
    constants : {"exact", "paper"}, default="exact"
        The route: from the definition, or Sahu & Hemachandra's own numbers.

    Returns
    -------
    float
        The constant.

    Raises
    ------
    ValueError
        For ``constants="paper"`` below ``m = 50``.
    """
    m = check_sample_size(m)
    check_choice(constants, "constants", CONSTANTS)
    if constants == "exact":
        return kl_supremum(m)[0]
    tabulated = [k for k in PAPER_KL_TABLE if k <= m]
    if not tabulated:
        raise ValueError(
            f'constants="paper" has no kl constant for m < 50 (Table 5 of Sahu & Hemachandra), '
            f'got m={m}; use constants="exact"'
        )
    return PAPER_KL_TABLE[max(tabulated)]


CLOSED_FORMS = {
    "linear": lambda m, constants: linear_constant(m),
    "sq": squared_constant,
}
"""The distances whose order-two constant has a closed form, by name."""

ORDER_TWO = {**CLOSED_FORMS, "kl": kl_constant}
"""Each distance's constant at ``alpha = 2`` (``alpha' = 2``): the closed forms, and
kl's certified supremum or the paper's Table 5."""


def log_bound_constant(
    distance: str, m: int, constants: str = "exact", alpha: float = 2.0
) -> float:
    """Evaluate ``log I_phi(m, alpha')``, rounded up: what the bounds use.

    ``alpha = 2`` takes the closed forms (linear, sq) or Table 5 (``"paper"``);
    every other case the certified supremum of :func:`log_moment_supremum`.

    Parameters
    ----------
    distance : {"linear", "sq", "kl"}
        The distance ``phi``.
    m : int
        The sample size (an integer >= 1).
    constants : {"exact", "paper"}, default="exact"
        The route: from the definition, or Sahu & Hemachandra's own numbers.
    alpha : float, default=2.0
        The Renyi order, finite and > 1 (``alpha' = alpha / (alpha - 1)``).

    Returns
    -------
    float
        An upper bound on ``log I_phi(m, alpha')``.
    """
    check_choice(distance, "distance", DISTANCES)
    check_choice(constants, "constants", CONSTANTS)
    alpha = check_order(alpha)
    m = check_sample_size(m)
    if alpha != 2:
        if constants == "paper":
            raise ValueError(f'constants="paper" exists only for alpha = 2, got alpha={alpha}')
        return log_moment_supremum(m, distance, conjugate(alpha))[0]
    if distance not in CLOSED_FORMS and constants == "exact":  # kl: from the definition
        return log_moment_supremum(m, distance, 2.0)[0]
    return float(nudge(math.log(_order_two_constant(distance, m, constants)), +1))


def _order_two_constant(distance: str, m: int, constants: str) -> float:
    return ORDER_TWO[distance](m, constants)


def bound_constant(distance: str, m: int, constants: str = "exact", alpha: float = 2.0) -> float:
    """Evaluate ``I_phi(m, alpha')`` for ``distance`` in ``("linear", "sq", "kl")``.

    ``alpha' = alpha / (alpha - 1)``. For ``alpha = 2`` (chi-squared) the closed
    forms above; for other Renyi orders the certified supremum over ``l`` of
    ``sum_k Bin(k; m, l) |phi(k/m, l)|^alpha'``. Sahu & Hemachandra give no values
    there, so ``constants="paper"`` needs ``alpha = 2``. The value is rounded up:
    where ``I`` is below the smallest float (orders near 1) it is that float, never
    0; :func:`log_bound_constant` keeps every digit.

    Parameters
    ----------
    distance : {"linear", "sq", "kl"}
        The distance ``phi``.
    m : int
        The sample size (an integer >= 1).
    constants : {"exact", "paper"}, default="exact"
        The route: from the definition, or Sahu & Hemachandra's own numbers.
    alpha : float, default=2.0
        The Renyi order, finite and > 1 (``alpha' = alpha / (alpha - 1)``).

    Returns
    -------
    float
        An upper bound on ``I_phi(m, alpha')``, at least the smallest positive float.

    Examples
    --------
    The linear distance's constant is ``sup_l l(1 - l)/m = 1/(4m)``:

    >>> from cvxpb import bound_constant
    >>> bound_constant("linear", 100)
    0.0025
    """
    log_value = log_bound_constant(distance, m, constants, alpha)
    if check_order(alpha) == 2:
        return _order_two_constant(distance, check_sample_size(m), constants)
    return exp_up(log_value)
