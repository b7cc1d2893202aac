"""Input checks shared by the public entry points: clear ValueErrors, nothing silent."""

from __future__ import annotations

import numpy as np

PRIOR_SUM_TOLERANCE = 1e-9


def check_risks(risks) -> np.ndarray:
    """A 1-D float array of empirical risks in [0, 1]."""
    risks = np.asarray(risks, dtype=float)
    if risks.ndim != 1:
        raise ValueError(f"risks must be one-dimensional, got shape {risks.shape}")
    if risks.size == 0:
        raise ValueError("risks must not be empty")
    if np.any(np.isnan(risks)) or np.any((risks < 0) | (risks > 1)):
        raise ValueError("risks must lie in [0, 1] with no NaN")
    return risks


def check_delta(delta) -> float:
    """A confidence parameter in the open interval (0, 1)."""
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}") from None
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return delta


def check_distribution(values, size: int, name: str) -> np.ndarray:
    """A length-``size`` array of non-negative finite values summing to 1 (within 1e-9)."""
    values = np.asarray(values, dtype=float)
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
    """``value`` if it is one of ``allowed``, else a ValueError listing them."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return value


def binary_classes(y, estimator: str) -> np.ndarray:
    """The two classes of a binary target, or the ValueError scikit-learn's checks expect."""
    from sklearn.utils.multiclass import check_classification_targets, type_of_target

    check_classification_targets(y)
    target = type_of_target(y)
    if target != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {target}."
        )
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"{estimator} needs two classes in y, got 1 class")
    return classes


class BinaryOnly:
    """Tells scikit-learn's checks that the classifier is binary only."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
