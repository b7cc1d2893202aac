"""The committed majority-vote runs, rerun in part by today's code (the compiled kernels,
issue 49): each bound's minimum, status and test risk as the committed tables print them
(six decimals). A change of arithmetic that moved a reported number would fail here."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cvxpb.app import datasets
from cvxpb.app.experiments.majority_vote import one_run

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
FIRST_SEED = int(np.random.default_rng(0).integers(2**31))  # run_experiment's first job


@pytest.mark.slow
@pytest.mark.parametrize(
    ("folder", "dataset", "mode", "bounds"),
    [
        ("majority_vote_uniform", "satimage", "oob", ("pac_bound_2", "tnd", "ctd", "c_bound")),
        ("majority_vote_held_out", "mushroom", "split", ("cctnd", "split_kl", "ccpbb", "ctd")),
    ],
)
def test_the_first_committed_run_is_reproduced_to_the_printed_digit(folder, dataset, mode, bounds):
    committed = pd.read_csv(RESULTS / folder / "majority_vote_runs.csv")
    committed = committed[(committed.dataset == dataset) & (committed["mode"] == mode)]
    committed = committed[committed.run == 0].set_index("bound")
    rows, _ = one_run(datasets.keel(dataset), mode, 100, bounds, FIRST_SEED)
    for row in rows:
        if row["bound"] == "uniform":
            continue
        expected = committed.loc[row["bound"]]
        assert row["status"] == expected["status"], row["bound"]
        for column in ("value", "test risk"):
            assert round(row[column], 6) == round(expected[column], 6), (row["bound"], column)
