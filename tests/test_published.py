"""Wu et al.'s (2021) published out-of-bag bounds beside the experiment's own: the
comparison's arithmetic, which rows it takes, and the command line that prints it."""

import numpy as np
import pandas as pd
import pytest

from cvxpb.app.cli import main
from cvxpb.app.experiments import published


def _summary(rows):
    columns = ["dataset", "mode", "bound", "bound value", "bound sd"]
    table = pd.DataFrame(rows, columns=columns)
    return table.assign(**{"test risk": 0.0, "test risk sd": 0.0})


def test_a_row_is_ours_against_theirs_in_their_combined_deviation():
    table = _summary(
        [
            ("letter", "oob", "tnd", 0.4504 + 0.005, 0.004),
            ("letter", "split", "tnd", 0.1, 0.0),  # held out: not their setting
            ("letter", "oob", "lambda", 0.4, 0.0),  # a bound they do not report
            ("spambase", "oob", "tnd", 0.3, 0.0),  # a dataset they do not report
            ("splice", "oob", "ccpbb", 0.7, 0.01),
        ]
    )
    beside = published.beside_published(table)
    pairs = beside[["dataset", "bound"]].values.tolist()
    assert pairs == [["letter", "tnd"], ["splice", "ccpbb"]]
    letter = beside.iloc[0]
    assert letter["published"] == 0.4504 and letter["published sd"] == 0.0032
    assert letter["difference"] == pytest.approx(0.005)
    assert letter["in sd"] == pytest.approx(0.005 / (0.004**2 + 0.0032**2) ** 0.5)
    assert letter["same data"] == "yes"
    splice = beside.iloc[1]
    assert (splice["published"], splice["same data"]) == (0.6575, "no")


def test_nothing_in_common_is_an_empty_table_with_its_columns():
    beside = published.beside_published(_summary([("twonorm", "oob", "tnd", 0.3, 0.01)]))
    assert beside.empty and "in sd" in beside.columns


def test_test_risks_beside_theirs_and_no_ratio_where_both_spreads_are_zero():
    table = _summary([("mushroom", "oob", "uniform", 0.0, 0.0), ("letter", "oob", "lambda", 0, 0)])
    table.loc[1, ["test risk", "test risk sd"]] = [0.15, 0.03]
    beside = published.beside_published(table, "test risk").set_index("dataset")
    assert beside.loc["mushroom", "difference"] == 0 and np.isnan(beside.loc["mushroom", "in sd"])
    assert beside.loc["letter", "published"] == 0.1408  # their PAC-Bayes-lambda posterior's
    assert beside.loc["letter", "in sd"] == pytest.approx(0.0092 / (0.03**2 + 0.0356**2) ** 0.5)
    with pytest.raises(ValueError, match="column must be one of"):
        published.beside_published(table, "seconds")


def test_every_published_row_names_a_keel_dataset_and_four_bounds():
    from cvxpb.app.datasets import KEEL

    for name, values in published.WU_2021.items():
        assert name in KEEL
        assert len(values) == len(published.BOUNDS)
        means = [mean for mean, _ in values]
        assert all(0 < m < 1 for m in means)
        assert means[0] == min(means)  # the first-order bound is their least on these
        risks = [mean for mean, _ in published.WU_2021_RISKS[name]]
        assert len(risks) == len(published.POSTERIORS)
        assert all(r < m for r, m in zip(risks[2:], means[1:], strict=True))  # bounds hold
    assert set(published.WU_2021_RISKS) == set(published.WU_2021)
    assert set(published.OTHER_DATA) <= set(published.WU_2021)


def test_the_command_line_prints_and_writes_the_comparison(tmp_path, capsys):
    args = ["experiment", "majority-vote", "--dataset", "mushroom", "--trees", "6"]
    args += ["--runs", "2", "--modes", "oob", "--bounds", "first_order,tnd"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    assert (tmp_path / "majority_vote_bounds.png").stat().st_size > 0  # with their markers
    out = capsys.readouterr().out
    assert "beside Wu et al. (2021)" in out
    written = pd.read_csv(tmp_path / "majority_vote_published.csv")
    assert written[["dataset", "bound"]].values.tolist() == [
        ["mushroom", "first_order"],
        ["mushroom", "tnd"],
    ]
    summary = pd.read_csv(tmp_path / "majority_vote.csv").set_index(["mode", "bound"])
    ours = summary.loc[("oob", "tnd"), "bound value"]
    assert written.loc[1, "cvxpb"] == pytest.approx(ours, abs=5e-5)  # written to 4 decimals
    assert written.loc[1, "published"] == 0.0353
    risks = pd.read_csv(tmp_path / "majority_vote_published_risks.csv")
    assert risks["bound"].tolist() == ["uniform", "tnd"]  # the posteriors this run has


def test_bounds_at_the_uniform_posterior_beside_masegosa_et_al():
    """The bounds at the uniform posterior beside Masegosa et al.'s (2020): the rows
    both have (out of bag only, none where they report nothing, as for satimage's
    two-class bounds, and none where our value is missing, as in runs written before
    the column), the difference in their combined deviation, and the source named."""
    table = _summary(
        [
            ("satimage", "oob", "first_order", 0.1, 0.0),
            ("satimage", "oob", "c_bound", 0.2, 0.0),  # two classes only: not theirs
            ("satimage", "split", "tnd", 0.3, 0.0),  # held out: not their setting
            ("mushroom", "oob", "dis", 0.2, 0.0),
            ("mushroom", "oob", "tnd", 0.2, 0.0),
        ]
    )
    table["at uniform"] = [0.41, 0.5, 0.6, 0.018, np.nan]
    table["at uniform sd"] = [0.003, 0.0, 0.0, 0.001, np.nan]
    beside = published.beside_published(table, "at uniform")
    assert beside[["dataset", "bound"]].values.tolist() == [
        ["satimage", "first_order"],
        ["mushroom", "dis"],
    ]
    first = beside.iloc[0]
    assert (first["published"], first["published sd"]) == (0.40328, 0.00413)
    assert first["in sd"] == pytest.approx((0.41 - 0.40328) / (0.003**2 + 0.00413**2) ** 0.5)
    assert (first["same data"], beside.iloc[1]["same data"]) == ("yes", "no")
    assert "Masegosa et al. (2020)" in published.SOURCES["at uniform"]
    assert set(published.SOURCES) == set(published.PUBLISHED)


def test_every_uniform_row_is_a_keel_dataset_with_a_number_per_bound_or_none():
    from cvxpb.app.datasets import KEEL

    for name, values in published.MASEGOSA_2020_UNIFORM.items():
        assert name in KEEL and len(values) == len(published.UNIFORM_BOUNDS)
        means = {b: v[0] for b, v in zip(published.UNIFORM_BOUNDS, values, strict=True) if v}
        assert means["first_order"] < means["tnd"] <= means["ctd"] <= 1  # as they report
