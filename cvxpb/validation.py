"""Input checks shared by the public entry points: clear ValueErrors, nothing silent."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from cvxpb.numerics.tolerances import PRIOR_SUM_TOLERANCE


def real_array(values, name: str) -> np.ndarray:
    """Take ``values`` as a float array, if they are real numbers.

    Parameters
    ----------
    values : array_like
        The values.
    name : str
        The argument's name, for the message.

    Returns
    -------
    ndarray
        ``values`` as floats.

    Raises
    ------
    ValueError
        Naming ``name``, for complex numbers, strings, booleans or objects, and for a
        masked array with masked entries (a masked value is no value to use).
    """
    if np.ma.isMaskedArray(values) and np.ma.getmaskarray(values).any():
        count = int(np.ma.getmaskarray(values).sum())
        raise ValueError(
            f"{name} has {count} masked {'entry' if count == 1 else 'entries'}; pass the "
            "values to use (a masked value is not one)"
        )
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must be real numbers, got an array of dtype {array.dtype} ({values!r:.60})"
        )
    return array.astype(float)


def real_number(value, name: str) -> float:
    """Take ``value`` as a float, if it is a real number.

    Parameters
    ----------
    value : object
        The value.
    name : str
        The argument's name, for the message.

    Returns
    -------
    float
        ``value``.

    Raises
    ------
    ValueError
        Naming ``name``, unless ``value`` is a real number (not a bool).
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    return float(value)


def check_risks(risks) -> np.ndarray:
    """Check empirical risks: a non-empty 1-D array in [0, 1].

    Parameters
    ----------
    risks : array_like
        The risks.

    Returns
    -------
    ndarray
        The risks as floats.

    Raises
    ------
    ValueError
        For another shape, an empty array, NaN or a value outside [0, 1].
    """
    risks = real_array(risks, "risks")
    if risks.ndim != 1:
        raise ValueError(f"risks must be one-dimensional, got shape {risks.shape}")
    if risks.size == 0:
        raise ValueError("risks must not be empty")
    check_unit_interval(risks, "risks")
    return risks


def check_unit_interval(values: np.ndarray, name: str) -> None:
    """Check that every entry of ``values`` lies in [0, 1], naming the first that does not.

    Parameters
    ----------
    values : ndarray
        The values.
    name : str
        Their argument's name, for the message.

    Raises
    ------
    ValueError
        Naming the first entry outside [0, 1] or NaN by its index and value, and how many
        there are; a hint where they look like percentages.
    """
    values = np.asarray(values, dtype=float)
    bad = np.flatnonzero(~((values >= 0) & (values <= 1)))  # NaN fails both
    if bad.size == 0:
        return
    index = tuple(int(i) for i in np.unravel_index(bad[0], values.shape))
    index = index[0] if len(index) == 1 else index
    more = f" ({bad.size} such entries)" if bad.size > 1 else ""
    finite = values[np.isfinite(values)]
    percent = np.all((finite >= 0) & (finite <= 100)) and np.any(finite >= 2)
    hint = "; they look like percentages: divide by 100" if percent else ""
    raise ValueError(
        f"{name} must lie in [0, 1] with no NaN: entry {index} (counting from 0) is "
        f"{float(values.flat[bad[0]])!r}{more}{hint}"
    )


def check_two_valued(values, size: int, name: str, allowed=(0, 1)) -> np.ndarray:
    """Check an n x H matrix that holds only two values (error indicators, votes).

    Parameters
    ----------
    values : array_like of shape (n, H)
        The matrix.
    size : int
        ``H``, its number of columns.
    name : str
        The argument's name, for the message.
    allowed : tuple of two numbers, default=(0, 1)
        The values it may hold.

    Returns
    -------
    ndarray
        ``values`` as floats.

    Raises
    ------
    ValueError
        Naming ``name``: a matrix of another shape, or with other values.
    """
    M = real_array(values, name)
    if M.ndim != 2 or M.shape[1] != size or M.shape[0] == 0:
        raise ValueError(f"{name} must be an n x H matrix with H = {size}, got shape {M.shape}")
    if not np.all(np.isin(M, allowed)):
        raise ValueError(f"{name} must hold only {allowed[0]} and {allowed[1]}")
    return M


def check_delta(delta) -> float:
    """Check a confidence parameter: a number in the open interval (0, 1).

    Parameters
    ----------
    delta : float
        The confidence.

    Returns
    -------
    float
        ``delta``.

    Raises
    ------
    ValueError
        Unless ``delta`` is a real number in (0, 1).
    """
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}")
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return delta


def check_distribution(values, size: int, name: str) -> np.ndarray:
    """Check a distribution: ``size`` non-negative finite values summing to 1.

    Parameters
    ----------
    values : array_like
        The values.
    size : int
        Their number.
    name : str
        The argument's name, for the message.

    Returns
    -------
    ndarray
        The values as floats.

    Raises
    ------
    ValueError
        For another length, a non-finite or negative entry, or a sum off 1 by more than
        ``PRIOR_SUM_TOLERANCE``.
    """
    values = real_array(values, name)
    if values.shape != (size,):
        raise ValueError(f"{name} must have length {size} (one entry per risk), got {values.shape}")
    if np.any(~np.isfinite(values)):
        raise ValueError(f"{name} must not contain NaN or infinite entries")
    if np.any(values < 0):
        raise ValueError(f"{name} must have non-negative entries")
    total = float(np.sum(values))
    if abs(total - 1) > PRIOR_SUM_TOLERANCE:
        raise ValueError(f"{name} must sum to 1 (within {PRIOR_SUM_TOLERANCE}), sums to {total!r}")
    return values


def check_choice(value, name: str, allowed) -> str:
    """Check that ``value`` is one of ``allowed``.

    Parameters
    ----------
    value : str
        The value.
    name : str
        The argument's name, for the message.
    allowed : iterable of str
        The values allowed.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        Listing ``allowed``.
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return value


def binary_classes(y, estimator: str) -> np.ndarray:
    """The two classes of a binary target.

    Parameters
    ----------
    y : array_like
        The target.
    estimator : str
        The estimator's name, for the message.

    Returns
    -------
    ndarray of shape (2,)
        The classes.

    Raises
    ------
    ValueError
        The messages scikit-learn's estimator checks expect, for a target that is not binary.
    """
    from sklearn.utils.multiclass import check_classification_targets, type_of_target

    check_classification_targets(y)
    target = type_of_target(y)
    if target != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {target}: "
            f"{estimator} is a two-class method."
        )
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"{estimator} needs two classes in y, got 1 class")
    return classes


def check_privileged(X, X_star) -> np.ndarray:
    """Check the privileged features of SLT-GP and GPC+.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The (checked) examples.
    X_star : array_like of shape (n_samples, n_privileged)
        Their privileged features.

    Returns
    -------
    ndarray
        ``X_star`` as a finite 2-D array.

    Raises
    ------
    ValueError
        Unless ``X_star`` is finite, 2-D and has one row per row of ``X``.
    """
    from sklearn.utils.validation import check_array

    X_star = check_array(X_star)
    if X_star.shape[0] != X.shape[0]:
        raise ValueError(
            f"X_star must have one row per example of X ({X.shape[0]}), got {X_star.shape[0]}"
        )
    return X_star


class BinaryOnly:
    """Tells scikit-learn's checks that the classifier is binary only."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def check_count(value, name: str, minimum: int = 1) -> int:
    """Check a count: an integer (not a bool) at least ``minimum``.

    Parameters
    ----------
    value : int
        The count.
    name : str
        The argument's name, for the message.
    minimum : int, default=1
        The least value allowed.

    Returns
    -------
    int
        ``value``.

    Raises
    ------
    ValueError
        Naming ``name`` and ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_positive(value, name: str, allow_none: bool = False) -> float | None:
    """Check a finite real number greater than 0 (or None where allowed).

    Parameters
    ----------
    value : float or None
        The value.
    name : str
        The argument's name, for the message.
    allow_none : bool, default=False
        Whether None is allowed.

    Returns
    -------
    float or None
        ``value``.

    Raises
    ------
    ValueError
        Naming ``name`` and what is allowed.
    """
    if value is None and allow_none:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not (math.isfinite(value) and value > 0)
    ):
        allowed = "a finite number > 0" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return float(value)


def check_options(options: dict, allowed, method: str) -> None:
    """Check that ``method`` takes every option in ``options``.

    Parameters
    ----------
    options : dict
        The options given.
    allowed : iterable of str
        The options the method takes.
    method : str
        The method's name, for the message.

    Raises
    ------
    ValueError
        Naming the first option the method does not take, and those it takes.
    """
    for name in options:
        if name not in allowed:
            raise ValueError(
                f"method={method!r} has no option {name!r}; its options are {sorted(allowed)}"
            )
