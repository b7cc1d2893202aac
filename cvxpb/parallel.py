"""joblib with a progress bar that counts finished tasks (not dispatched ones)."""

from __future__ import annotations

from joblib import Parallel


def run_parallel(tasks, total: int, n_jobs=None, progress: bool = False, desc: str = "", unit="it"):
    """The results of joblib ``delayed`` ``tasks``, in order; with ``progress`` a tqdm bar
    advances as each task finishes. Any joblib backend (``parallel_config``) applies."""
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=total, desc=desc, unit=unit)
    return list(results)
