"""One BLAS thread for the many small factorizations and products of an iterative fit.

On matrices of a few hundred to a few thousand rows OpenBLAS's threads cost more than
they bring: on a 2-core machine a GPClassifierEP fit on make_moons(200) runs 25x faster
on one thread (GPy's EP 7x, scikit-learn's GPC 5.5x), a PriorSVM fit on 2000 waveform
points 2.3x, and one on 5000 points still 1.3x.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

SMALL = 3000  # below this many rows BLAS runs on one thread


@functools.cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads_for(rows: int):
    """A context with BLAS on one thread for a matrix of fewer than ``SMALL`` rows.

    Parameters
    ----------
    rows : int
        The rows of the largest matrix of the work.

    Returns
    -------
    contextlib.AbstractContextManager
        The limit to one BLAS thread (threadpoolctl's), or a context that changes nothing.
    """
    if rows >= SMALL:
        return contextlib.nullcontext()
    return _controller().limit(limits=1, user_api="blas")


def one_blas_thread(function):
    """Decorate ``function`` to run under :func:`blas_threads_for` its first matrix's rows.

    Parameters
    ----------
    function : callable
        A function one of whose positional arguments is a 2-D array.

    Returns
    -------
    callable
        The wrapped function.
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        rows = next(np.shape(a)[0] for a in args if np.ndim(a) == 2)
        with blas_threads_for(rows):
            return function(*args, **kwargs)

    return wrapper
