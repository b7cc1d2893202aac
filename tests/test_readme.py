"""Every Python block of the README runs as written, alone, and each comment that states
a result is checked here."""

import re
from pathlib import Path

import numpy as np
import pytest

import cvxpb as pb

README = (Path(__file__).parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def _run(block: str) -> dict:
    namespace: dict = {"__name__": "__readme__"}
    exec(compile(block, "README.md", "exec"), namespace)  # each alone, as a reader runs it
    return namespace


def test_the_readme_has_its_three_python_blocks():
    assert len(BLOCKS) == 3


def test_the_first_block_runs():
    ns = _run(BLOCKS[0])
    assert ns["res"].status == "optimal"


def test_the_declared_block_runs_alone_and_gives_the_kl_bounds_minimum():
    """'the minimum of distance="kl", divergence="kl" (1e-7)': the declared engine's
    gap is at most 1e-7, the exact method's 1e-9, both above the true minimum."""
    ns = _run(BLOCKS[1])
    declared = pb.Minimize(ns["bound"]).solve()
    exact = pb.BoundProblem(ns["risks"], m=1840, delta=0.05, distance="kl", divergence="kl")
    assert declared.status == "optimal"
    assert abs(declared.bound - exact.solve().bound) <= 1e-7 + 1e-9
    assert "1e-7" in BLOCKS[1] and "Maurer's xi(m)" in BLOCKS[1]


@pytest.mark.slow
def test_the_learning_systems_block_runs_alone():
    ns = _run(BLOCKS[2])
    assert 0 < ns["mv"].result_.bound <= 1
    assert np.isfinite(ns["clf"].bound_)


def test_the_forests_first_result_is_certified_and_its_comment_holds():
    """The README's forest, run as written on the README's data: held out, certified on
    199 of its 398 examples; out of bag, a few dozen per pair and fit's warning."""
    block = BLOCKS[2]
    data = block[: block.index("from cvxpb.svm")].split("clf = ")[0]  # imports and X, y
    forest = block[block.index("from sklearn.ensemble import RandomForestClassifier") :]
    forest = forest[: forest.index("mv.bounds()")]
    ns = _run(data + forest)
    mv = ns["mv"]
    assert len(ns["X"]) == 398 and mv.n_bound_ == 199 and mv.result_.status == "optimal"
    assert "398 examples" in block and "199 examples" in block
    from cvxpb.ensemble import MajorityVoteClassifier

    out_of_bag = MajorityVoteClassifier(ns["forest"], bound="tnd", random_state=0)
    with pytest.warns(UserWarning, match=r"share only \d+ examples; validation='split'"):
        out_of_bag.fit(ns["X"], ns["y"])
    assert 24 <= out_of_bag.n_bound_ < 100 and out_of_bag.result_.status != "optimal"


def test_every_experiment_command_is_in_the_readme():
    from cvxpb.app.cli import RUN_TIMES

    for name in RUN_TIMES:
        assert f"cvxpb experiment {name} " in README, name
