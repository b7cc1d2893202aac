"""Warnings that point at the user's line: the call into cvxpb that led to them.

A warning's ``stacklevel`` counted by hand breaks whenever a frame is added between the
user and the ``warnings.warn`` call (a decorator such as :func:`cvxpb.threads.one_blas_thread`,
a helper, an optimizer's callback). :func:`warn_user` attributes the warning to the caller
of the outermost cvxpb frame instead, as pandas's ``find_stack_level`` does.
"""

from __future__ import annotations

import os
import sys
import warnings

PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue ``message`` as a warning attributed to the user's call into cvxpb.

    Parameters
    ----------
    message : str
        The warning's text.
    category : type, default=UserWarning
        The warning's class.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_user("a note")
    >>> caught[0].filename.startswith(PACKAGE)
    False
    """
    warnings.warn(message, category, stacklevel=_user_level())


def _user_level() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` in :func:`warn_user`) of the frame
    that called the outermost cvxpb frame on the stack."""
    frame, level, outermost = sys._getframe(1), 1, 1
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE):
            outermost = level
        frame, level = frame.f_back, level + 1
    return outermost + 1
