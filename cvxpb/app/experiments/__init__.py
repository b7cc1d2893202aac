"""Reproducible experiment runners: the papers' tables and figures, written to files."""

import warnings
from contextlib import contextmanager

import numpy as np


def check_plan(runs, methods, allowed) -> None:
    """Check a run's plan before any work.

    Parameters
    ----------
    runs : int
        The repetitions (positive).
    methods : sequence of str
        The methods asked for.
    allowed : sequence of str
        The methods the experiment has.

    Raises
    ------
    ValueError
        For a count below 1 or an unknown method.
    """
    unknown = [m for m in methods if m not in allowed]
    if unknown:
        raise ValueError(f"methods must be among {allowed}, got {unknown}")
    if not (isinstance(runs, int | np.integer) and runs >= 1):
        raise ValueError(f"runs must be a positive integer, got {runs!r}")


def prepare_output(out, plots: bool) -> bool:
    """Make ``out`` and show it writable before any work; say whether plots can be drawn.

    Without matplotlib the plots are skipped with a one-line note on stderr.

    Parameters
    ----------
    out : str or path
        The output directory.
    plots : bool
        Whether plots were asked for.

    Returns
    -------
    bool
        Whether to plot.

    Raises
    ------
    ValueError
        Naming ``--out`` when it cannot be written.
    """
    import sys
    from pathlib import Path

    if out is not None:
        path = Path(out)
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / ".cvxpb-write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as err:
            raise ValueError(f"--out {out!r} is not a writable directory: {err}") from None
    if not plots:
        return False
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(
            'cvxpb: note: plots skipped, matplotlib is not installed (pip install "cvxpb[plot]")',
            file=sys.stderr,
        )
        return False
    return True


def save_progress(path, settings, rows, done, rng) -> None:
    """Keep the rows so far, the jobs done and the random stream's state.

    Parameters
    ----------
    path : path or None
        Where to keep them; nothing is kept when None.
    settings : dict
        The run's settings (a resumed run must match them).
    rows : list of dict
        The rows so far.
    done : int
        The jobs done.
    rng : numpy.random.Generator
        The run's random stream.
    """
    import joblib

    if path is None:
        return
    from cvxpb.files import write_atomically

    kept = {"settings": settings, "rows": rows, "done": done, "rng": rng.bit_generator.state}
    write_atomically(path, lambda temporary: joblib.dump(kept, temporary))


def load_progress(path, settings, rng):
    """Take back what :func:`save_progress` kept for these settings.

    Parameters
    ----------
    path : path or None
        Where it was kept.
    settings : dict
        The run's settings.
    rng : numpy.random.Generator
        The run's random stream, put back where it was.

    Returns
    -------
    rows : list of dict
        The rows kept (empty if there is nothing to go on from).
    done : int
        The jobs done (0 then).
    """
    import joblib

    if path is None or not path.exists():
        return [], 0
    saved = joblib.load(path)
    if saved["settings"] != settings:
        return [], 0
    rng.bit_generator.state = saved["rng"]
    return list(saved["rows"]), saved["done"]


@contextmanager
def recorded_warnings():
    """Record every warning raised inside, printing none.

    The runs record them in their rows instead of printing through the progress bar.

    Yields
    ------
    list of warnings.WarningMessage
        The warnings, as they are raised.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def first_warning(caught) -> str:
    """The first warning's category and message, without the file it came from.

    Parameters
    ----------
    caught : list of warnings.WarningMessage
        Recorded warnings.

    Returns
    -------
    str
        ``"<Category>: <first line of the message>"``, or ``""`` without one.
    """
    if not caught:
        return ""
    first = caught[0]
    return f"{first.category.__name__}: {str(first.message).splitlines()[0]}"


def warning_report(rows) -> str:
    """One line per method that warned: how many warnings, and the first of them.

    They are collected during the runs, not printed through the progress bar.

    Parameters
    ----------
    rows : pandas.DataFrame
        The runs' rows, with their warning counts and first warnings.

    Returns
    -------
    str
        The report (empty when nothing warned).
    """
    if "warnings" not in rows or not rows["warnings"].any():
        return "no solver warnings"
    lines = ["solver warnings (collected during the runs):"]
    for method, group in rows[rows["warnings"] > 0].groupby("method", sort=False):
        count, example = int(group["warnings"].sum()), group["warning"].iloc[0]
        lines.append(f"  {method}: {count} in {len(group)} runs, e.g. {example}")
    return "\n".join(lines)
