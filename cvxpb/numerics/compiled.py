"""Compiled kernels: numba, imported on first use and cached on disk.

A kernel module (``cvxpb.numerics.kl_kernels``, ...) is written in plain Python and
compiled by :func:`kernel`: ``numba.njit`` with ``cache=True`` (the machine code is kept
beside the module in ``__pycache__``, or where that is read-only, in numba's user-wide
cache directory, ``NUMBA_CACHE_DIR`` if set), ``error_model="numpy"`` (a division by
zero gives ``inf`` or NaN, as numpy's arrays do, never an exception) and no fast-math
(IEEE arithmetic: the kernels' rounding margins assume it). A module that calls
kernels holds them through :class:`Kernels`, which imports the kernel module, and numba
with it, on the first call: ``import cvxpb`` and ``cvxpb --version`` never load numba.
"""

from __future__ import annotations

import importlib


def kernel(function):
    """``function`` compiled with numba (nopython, cached on disk, numpy's error model).

    Parameters
    ----------
    function : callable
        Plain Python on floats, ints and numpy arrays.

    Returns
    -------
    numba.core.registry.CPUDispatcher
        Compiled on its first call for each type signature (or loaded from the cache).
    """
    import numba

    return numba.njit(cache=True, error_model="numpy")(function)


class Kernels:
    """The kernels of one module, imported on first use.

    Parameters
    ----------
    module : str
        The kernel module's dotted name.

    Examples
    --------
    >>> from cvxpb.numerics.compiled import Kernels
    >>> kernels = Kernels("cvxpb.numerics.kl_kernels")
    >>> round(kernels.kl(0.1, 0.2), 8)
    0.03669001
    """

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name):
        value = getattr(importlib.import_module(self._module), name)
        setattr(self, name, value)  # later look-ups: the instance's own dict
        return value
