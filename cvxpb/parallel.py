"""joblib with a progress bar that counts finished tasks (not dispatched ones)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib

import joblib
from joblib import Parallel, delayed

from cvxpb import jsonout
from cvxpb.files import write_atomically

# what a Dask cluster that lost its workers raises through joblib
_LOST = (concurrent.futures.CancelledError, asyncio.CancelledError)
_LOST_NAMES = ("KilledWorker", "FutureCancelledError", "CommClosedError")


class ClusterLostError(RuntimeError):
    """The parallel backend lost its workers before every task finished."""


def run_parallel(tasks, total: int, n_jobs=None, progress: bool = False, desc: str = "", unit="it"):
    """Run joblib ``delayed`` tasks and return their results in order.

    Any joblib backend (``parallel_config``) applies.

    Parameters
    ----------
    tasks : iterable
        The calls, made with joblib's ``delayed``.
    total : int
        Their number, for the progress bar.
    n_jobs : int, optional
        The number of workers (joblib's ``n_jobs``).
    progress : bool, default=False
        Show a tqdm bar that advances as each task finishes.
    desc : str, default=""
        The bar's label.
    unit : str, default="it"
        The bar's unit.

    Returns
    -------
    list
        The results, in the order of ``tasks``.

    Raises
    ------
    ClusterLostError
        When the backend loses its workers (a Dask cluster whose workers all died),
        naming the backend and how many tasks had finished.
    """
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    return _collect(results, total, progress, desc, unit)


def run_kept(tasks, keys, keep=None, resume=False, n_jobs=None, progress=False, desc="", unit="it"):
    """Run tasks as :func:`run_parallel` does, keeping finished work on disk.

    Each result is saved under ``keep`` as soon as its task finishes, named by its key;
    with ``resume`` the results already saved there for the same keys are taken instead
    of computed again, so an interrupted run loses only the tasks under way.

    Parameters
    ----------
    tasks : iterable
        The calls, made with joblib's ``delayed``.
    keys : iterable
        One JSON-able identity per task (the task and its settings).
    keep : str or path, optional
        The directory to keep results in; nothing is kept without it.
    resume : bool, default=False
        Take the results kept under the same keys.
    n_jobs : int, optional
        The number of workers (joblib's ``n_jobs``).
    progress : bool, default=False
        Show a tqdm bar.
    desc : str, default=""
        The bar's label.
    unit : str, default="it"
        The bar's unit.

    Returns
    -------
    list
        The results, in the order of ``tasks``.
    """
    tasks, keys = list(tasks), [jsonout.dumps(key, sort_keys=True) for key in keys]
    paths = [None] * len(keys) if keep is None else [_kept_path(keep, key) for key in keys]
    done = {}
    if keep is not None and resume:
        done = {i: joblib.load(path)["result"] for i, path in enumerate(paths) if path.exists()}
    todo = [i for i in range(len(tasks)) if i not in done]

    def saved(pairs):
        for i, result in pairs:
            if paths[i] is not None:
                kept = {"key": keys[i], "result": result}
                write_atomically(
                    paths[i], lambda temporary, kept=kept: joblib.dump(kept, temporary)
                )
            yield i, result

    indexed = (delayed(_indexed)(i, tasks[i]) for i in todo)
    pairs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(indexed)
    for i, result in _collect(saved(pairs), len(todo), progress, desc, unit):
        done[i] = result
    return [done[i] for i in range(len(tasks))]


def _indexed(i, task):
    function, args, kwargs = task
    return i, function(*args, **kwargs)


def _kept_path(keep, key: str):
    from pathlib import Path

    return Path(keep) / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.joblib"


def _collect(results, total, progress, desc, unit) -> list:
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
