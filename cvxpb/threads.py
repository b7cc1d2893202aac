"""One BLAS thread for cvxpb's work: its parallelism is ``n_jobs``, never BLAS's.

cvxpb's matrices are small (a few hundred to a few thousand rows) and its solvers
factor many of them in a row. There OpenBLAS's threads cost more than they bring, and
on a machine shared with another busy job they cost far more: with one other busy
process on a 2-core machine, a TND fit on breast_cancer took 47.7 s on OpenBLAS's
default threads against 1.1 s on one, and the majority-vote experiment on two data
sets 196-273 s against 35-37 s (the same tables). On a quiet machine one thread is as
fast or faster too (a GPClassifierEP fit on make_moons(200) 25x, a PriorSVM fit on
2000 waveform points 2.3x).

So every public entry point that computes (the estimators' ``fit``, ``Minimize.solve``,
``Minimize.solve``, the command line) runs under :func:`one_blas_thread`, which
limits every BLAS library loaded in the process (NumPy's and SciPy's OpenBLAS are two)
through threadpoolctl and restores the user's setting on return. BLAS limits belong to
the process, not to a thread: where several threads call cvxpb at once, the first to
enter sets the limit, the last to leave restores what the user had, and in between
every thread of the process (the user's too) runs BLAS on one thread. The command line also
sets ``OPENBLAS_NUM_THREADS=1`` (and MKL's, BLIS's) for the processes it starts, unless
the user set them. Several cores are used through ``n_jobs`` (joblib), one process or
thread per task.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading

BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


@functools.cache
def _controller():
    """threadpoolctl's view of the loaded libraries, made once NumPy's and SciPy's BLAS
    are loaded (it sees only what is loaded when it is made; making one takes ms)."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _local_setters() -> list:
    """OpenBLAS's ``openblas_set_num_threads_local`` of each loaded OpenBLAS that has one
    (0.3.27 and later). Called from a thread other than the main one,
    ``openblas_set_num_threads`` (threadpoolctl's way) leaves the count this one sets,
    so BLAS ran on two threads inside a limit to one, and SLSQP's iterates, which hang
    on BLAS's rounding, came out different from a thread than from the main one."""
    return [
        lib.dynlib.openblas_set_num_threads_local
        for lib in _controller().lib_controllers
        if lib.internal_api == "openblas"
        and hasattr(getattr(lib, "dynlib", None), "openblas_set_num_threads_local")
    ]


class _SharedLimit:
    """One BLAS thread while any caller holds the limit; the user's limits back when the
    last lets go, whatever the order in which threads come and go (two nested
    threadpoolctl limits from two threads restore each other's values: 8 solves in 4
    threads left a user's 2 threads at 1)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._holders = 0
        self._limiter = None  # threadpoolctl's, holding the user's limits
        self._local = []  # (setter, the count it had)

    def _take(self):
        self._local = [(setter, setter(1)) for setter in _local_setters()]  # before: the
        self._limiter = _controller().limit(limits=1, user_api="blas")  # limit sets it too

    def _give_back(self):
        self._limiter.restore_original_limits()
        for setter, count in self._local:
            setter(count)
        self._limiter, self._local = None, []

    @contextlib.contextmanager
    def held(self):
        with self._lock:
            if self._holders == 0:
                self._take()
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0:
                    self._give_back()


_LIMIT = _SharedLimit()


def one_blas_thread(function=None):
    """BLAS on one thread: a context, or a decorator of ``function``.

    Parameters
    ----------
    function : callable, optional
        The function to run under the limit.

    Returns
    -------
    contextlib.AbstractContextManager or callable
        The limit (threadpoolctl's) of every loaded BLAS to one thread (the user's limits
        come back when the last caller in the process leaves), or ``function`` wrapped
        to run under it.

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     print(np.linalg.cholesky(4 * np.eye(3)).trace())
    6.0
    """
    if function is None:
        return _LIMIT.held()

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with _LIMIT.held():
            return function(*args, **kwargs)

    return wrapper


def one_blas_thread_for_children() -> None:
    """Set the BLAS libraries' thread variables to 1 for the processes started from here.

    Those are joblib's and Dask's workers; a variable the user set is left as it is.
    """
    for name in BLAS_VARIABLES:
        os.environ.setdefault(name, "1")
