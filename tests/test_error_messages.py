"""Errors that name the argument, the value and the fix (the day-one user's mistakes)."""

import cvxpy as cp
import numpy as np
import pytest

import cvxpb as pb
from cvxpb.app import cli
from cvxpb.ensemble import bounds as mv


def test_catoni_with_chi2_names_the_divergence_it_needs():
    with pytest.raises(ValueError, match=r"distance='catoni' needs divergence='kl'; with "):
        pb.BoundProblem(np.array([0.1, 0.2]), m=100, distance="catoni", divergence="chi2")
    with pytest.raises(ValueError, match="needs divergence='kl'"):
        mv.first_order(pb.Posterior.uniform(2), [0.1, 0.2], 100, 0.05, "catoni", "renyi", 2.0)
    with pytest.raises(ValueError, match=r"must be one of \('linear', 'sq', 'kl'\), got 'l2'"):
        pb.BoundProblem(np.array([0.1, 0.2]), m=100, distance="l2", divergence="chi2")


def test_cvxpy_atoms_on_cvxpb_terms_say_what_composes():
    q = pb.Posterior.uniform(3)
    L = pb.gibbs_risk(q, [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match=r"composes with cvxpb's own atoms \(pb.sqrt"):
        cp.sqrt(L)
    v = cp.Variable(3)
    for declared in (lambda: L + cp.norm(v), lambda: pb.Minimize(pb.sqrt(L) * cp.norm(v))):
        with pytest.raises((pb.DeclarationError, TypeError), match="CVXPY|cvxpb's own atoms"):
            declared()
    assert pb.Minimize(pb.sqrt(L)).value_at([1, 0, 0]) == pytest.approx(np.sqrt(0.1))


@pytest.mark.parametrize(
    ("risks", "message"),
    [
        ([0.1, np.nan, 0.3], r"entry 1 \(counting from 0\) is nan"),
        ([10.0, 12.0, 30.0], r"entry 0 .* is 10.0 \(3 such entries\); they look like percentages"),
        ([0.1, -0.2, 1.3], r"entry 1 .* is -0.2 \(2 such entries\)$"),
    ],
)
def test_bad_risks_are_named_by_index_and_value(risks, message):
    with pytest.raises(ValueError, match=message):
        pb.BoundProblem(np.array(risks), m=100)
    with pytest.raises(ValueError, match=message):
        pb.gibbs_risk(pb.Posterior.uniform(3), risks)


def test_a_missing_file_on_the_command_line_names_its_argument(tmp_path, capsys):
    missing = str(tmp_path / "risks.csv")
    assert cli.main(["solve", missing, "--m", "100"]) == 2
    assert f"cannot read '{missing}': No such file or directory (the file given as RISKS)" in (
        capsys.readouterr().err
    )
    risks = tmp_path / "here.csv"
    risks.write_text("0.1\n0.2\n")
    assert cli.main(["solve", str(risks), "--m", "100", "--prior", missing]) == 2
    assert "(the file given as --prior)" in capsys.readouterr().err
