"""joblib with a progress bar that counts finished tasks (not dispatched ones)."""

from __future__ import annotations

import asyncio
import concurrent.futures

from joblib import Parallel

# what a Dask cluster that lost its workers raises through joblib
_LOST = (concurrent.futures.CancelledError, asyncio.CancelledError)
_LOST_NAMES = ("KilledWorker", "FutureCancelledError", "CommClosedError")


class ClusterLostError(RuntimeError):
    """The parallel backend lost its workers before every task finished."""


def run_parallel(tasks, total: int, n_jobs=None, progress: bool = False, desc: str = "", unit="it"):
    """The results of joblib ``delayed`` ``tasks``, in order; with ``progress`` a tqdm bar
    advances as each task finishes. Any joblib backend (``parallel_config``) applies.

    A backend that loses its workers (a Dask cluster whose workers all died) raises
    :class:`ClusterLostError`, naming the backend and how many tasks had finished.
    """
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=total, desc=desc, unit=unit)
    finished = []
    try:
        for result in results:
            finished.append(result)
    except BaseException as err:
        if not (isinstance(err, _LOST) or type(err).__name__ in _LOST_NAMES):
            raise
        raise ClusterLostError(
            f"the parallel backend {_backend_name()} lost its workers after {len(finished)} "
            f"of {total} {unit} tasks had finished ({desc or 'tasks'}): "
            f"{type(err).__name__}: {err}"
        ) from err
    return finished


def _backend_name() -> str:
    """The active joblib backend, with the Dask client's scheduler where there is one."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    client = getattr(backend, "client", None)
    address = getattr(getattr(client, "scheduler", None), "address", None)
    name = type(backend).__name__.replace("Backend", "").lower()
    return f"{name} (scheduler {address})" if address else name
