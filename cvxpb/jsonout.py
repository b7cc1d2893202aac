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
    """``value`` with NumPy types made plain and non-finite floats made ``None``."""
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
    """``json.dumps`` of :func:`plain` ``(payload)``, refusing anything non-finite."""
    return json.dumps(plain(payload), allow_nan=False, **kwargs)
