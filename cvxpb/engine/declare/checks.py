"""The checks a declared problem makes before any work: one posterior for all its terms
(or parts), and the tolerances ``solve`` is given."""

from __future__ import annotations

import math
import numbers

from cvxpb.engine.declare.expressions import DeclarationError
from cvxpb.engine.declare.pareto import FIRST_MUS
from cvxpb.validation import check_count, check_positive


def one_posterior(posteriors, what):
    """The one :class:`cvxpb.Posterior` among ``posteriors`` (None where there is none).

    Parameters
    ----------
    posteriors : list of Posterior or None
        The posteriors of a declaration's terms, or of a tuple's parts.
    what : str
        What holds them, for the message.

    Returns
    -------
    Posterior or None
        The posterior.

    Raises
    ------
    DeclarationError
        Where there are two or more.
    """
    found = {id(p): p for p in posteriors if p is not None}
    if len(found) > 1:
        raise DeclarationError(f"every {what} must use the same Posterior")
    return next(iter(found.values()), None)


def check_tolerances(tol, rtol, max_solves, cutoff=None) -> None:
    """Check :meth:`cvxpb.Minimize.solve`'s tolerances before any work starts.

    Parameters
    ----------
    tol : float
        The absolute gap: a finite number above 0.
    rtol : float or None
        The relative gap: a finite number above 0, or None or ``inf`` for none.
    max_solves : int
        The programs at most: at least the first ones' count.
    cutoff : float or None, default=None
        A value to stop above: a number (``inf`` for none), or None.

    Raises
    ------
    ValueError
        Naming the argument and what is allowed.
    """
    check_positive(tol, "tol")
    if rtol is not None and rtol != math.inf:  # None and inf ask no relative gap
        check_positive(rtol, "rtol")
    check_count(max_solves, "max_solves", minimum=FIRST_MUS.size)
    real = isinstance(cutoff, numbers.Real) and not isinstance(cutoff, bool)
    if cutoff is not None and not (real and not math.isnan(cutoff)):
        raise ValueError(f"cutoff must be a number (inf for none) or None, got {cutoff!r}")
