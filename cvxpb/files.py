"""Files written whole: one file through a temporary name, a run's files as one set.

An interrupted write leaves the file it replaces as it was, never a part of it (SIGINT
as the first CSV appeared left a header alone); a run's outputs are written into a
hidden folder beside them and moved into place together, so the folder holds one run's
files, or says in ``<experiment>.incomplete`` that a move was cut short.
"""

from __future__ import annotations

import functools
import inspect
import os
import shutil
import tempfile
from pathlib import Path


def write_atomically(path, write) -> Path:
    """Call ``write(temporary)``, then move the temporary file to ``path``.

    Parameters
    ----------
    path : str or path
        Where the file goes.
    write : callable
        Writes the file's content to the path it is given.

    Returns
    -------
    Path
        ``path``, holding the whole file (or, if ``write`` raised, what it held before).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_atomically(folder / "a.txt", lambda p: Path(p).write_text("1")).read_text()
    '1'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".partial", dir=path.parent
    )
    os.close(handle)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def written_together(experiment: str):
    """Make an experiment's ``write(..., out, ...)`` write its files as one set.

    The decorated function writes into a hidden folder inside ``out``; its files are then
    moved into ``out`` (each move atomic), the files named ``experiment*`` that an
    earlier run left and this one did not write are removed (they would describe other
    settings), and the hidden folder is deleted. Interrupted while writing, ``out`` is
    left as it was; interrupted while moving, ``out/<experiment>.incomplete`` says so.

    Parameters
    ----------
    experiment : str
        The prefix of the experiment's file names (``"stochastic_svm"``).

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(write):
        where = inspect.signature(write)

        @functools.wraps(write)
        def wrapper(*args, **kwargs):
            bound = where.bind(*args, **kwargs)
            out = Path(bound.arguments["out"])
            out.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{experiment}-writing-", dir=out))
            try:
                bound.arguments["out"] = staging
                names = [Path(p).relative_to(staging) for p in write(*bound.args, **bound.kwargs)]
                _move_in(staging, out, names, experiment)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            return [out / name for name in names]

        return wrapper

    return decorate


def _move_in(staging: Path, out: Path, names, experiment: str) -> None:
    marker = out / f"{experiment}.incomplete"
    marker.write_text(
        f"A run of {experiment} was being moved into this folder and was stopped: its "
        "files here may mix two runs. Run it again.\n"
    )
    stale = {p for p in out.glob(f"{experiment}*") if p.is_file() and p != marker}
    for path in stale - {out / name for name in names}:
        path.unlink()
    for name in names:
        os.replace(staging / name, out / name)
    marker.unlink()
