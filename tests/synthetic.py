"""Synthetic data the tests share, each drawn the one way."""

import numpy as np


def labelled_blobs(n, seed, separation, d=2):
    """Two Gaussian blobs labelled -1 and +1, ``separation`` apart along every axis."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    return rng.normal(size=(n, d)) + separation * y[:, None], y


def gaussian_classes(n, classes, d=3, seed=0, apart=0.8, intercept=True):
    """``classes`` Gaussian classes, class k shifted by ``apart`` along axis k, with a
    column of ones appended where ``intercept``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    X = rng.normal(size=(n, d)) + apart * np.eye(classes, d)[y]
    return (np.hstack([X, np.ones((n, 1))]) if intercept else X), y
