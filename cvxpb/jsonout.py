"""Strict JSON: what ``--json`` prints and experiments write, with no bare NaN or Infinity.

Python's ``json`` writes ``NaN`` and ``Infinity``, which no JSON parser is obliged to
read. Every non-finite number becomes ``null``; NumPy scalars and arrays become plain
numbers and lists; ``allow_nan=False`` then proves that nothing non-finite is left.
"""

from __future__ import annotations

import json
import math

import numpy as np


def plain(value):
    """Make NumPy types plain and non-finite floats ``None``, recursively.

    Parameters
    ----------
    value : object
        Dicts, lists, tuples, arrays and scalars, nested.

    Returns
    -------
    object
        The same structure of plain Python values (dict keys as strings).

    Examples
    --------
    >>> import numpy as np
    >>> plain({"bound": np.float64(0.25), "gap": float("nan"), 1: np.arange(2)})
    {'bound': 0.25, 'gap': None, '1': [0, 1]}
    """
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps(payload, **kwargs) -> str:
    """Strict JSON of ``payload``: :func:`plain`, then ``json.dumps`` refusing non-finite numbers.

    Parameters
    ----------
    payload : object
        What to write.
    **kwargs
        ``json.dumps``'s options (``indent``, ``sort_keys``, ...).

    Returns
    -------
    str
        The JSON text.
    """
    return json.dumps(plain(payload), allow_nan=False, **kwargs)
