"""Reproducible experiment runners: the seeds' tables and figures, written to files."""

import numpy as np


def check_plan(runs, methods, allowed) -> None:
    """A positive number of runs and methods among ``allowed``, or a ValueError."""
    unknown = [m for m in methods if m not in allowed]
    if unknown:
        raise ValueError(f"methods must be among {allowed}, got {unknown}")
    if not (isinstance(runs, int | np.integer) and runs >= 1):
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
