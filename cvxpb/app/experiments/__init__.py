"""Reproducible experiment runners: the papers' tables and figures, written to files."""

import warnings
from contextlib import contextmanager

import numpy as np


def check_plan(runs, methods, allowed) -> None:
    """A positive number of runs and methods among ``allowed``, or a ValueError."""
    unknown = [m for m in methods if m not in allowed]
    if unknown:
        raise ValueError(f"methods must be among {allowed}, got {unknown}")
    if not (isinstance(runs, int | np.integer) and runs >= 1):
        raise ValueError(f"runs must be a positive integer, got {runs!r}")


def prepare_output(out, plots: bool) -> bool:
    """Before any work: ``out`` made and shown to be writable (a ValueError naming
    ``--out`` otherwise), and whether plots can be drawn: without matplotlib they are
    skipped with a one-line note on stderr. Returns whether to plot."""
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
    """Keep the rows so far, how many jobs are done and the random stream's state at
    ``path`` (nothing when ``path`` is None)."""
    import joblib

    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    state = rng.bit_generator.state
    joblib.dump({"settings": settings, "rows": rows, "done": done, "rng": state}, path)


def load_progress(path, settings, rng):
    """``(rows, jobs done)`` kept at ``path`` for these settings, with the random stream
    put back where it was; ``([], 0)`` if there is nothing to go on from."""
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
    """Every warning raised inside, kept in the list this yields (none printed): the
    runs record them in their rows instead of printing through the progress bar."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def first_warning(caught) -> str:
    """The first warning's category and message, without the file it came from."""
    if not caught:
        return ""
    first = caught[0]
    return f"{first.category.__name__}: {str(first.message).splitlines()[0]}"


def warning_report(rows) -> str:
    """One line per method that warned: how many warnings, and the first of them
    (they are collected during the runs, not printed through the progress bar)."""
    if "warnings" not in rows or not rows["warnings"].any():
        return "no solver warnings"
    lines = ["solver warnings (collected during the runs):"]
    for method, group in rows[rows["warnings"] > 0].groupby("method", sort=False):
        count, example = int(group["warnings"].sum()), group["warning"].iloc[0]
        lines.append(f"  {method}: {count} in {len(group)} runs, e.g. {example}")
    return "\n".join(lines)
