"""Files as ``cvxpb solve`` reads them: every value kept, or the file refused in one line.

Each case was read wrongly or silently before: a UTF-8 byte-order mark made the first
risk unreadable and that row was dropped as a header; a 2-D .npy was flattened; a .npy
of strings ended in a traceback; a text file named .npy got numpy's advice to unpickle
it. A masked array's masked values were used as risks.
"""

import codecs
import json

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.app.cli import main

RISKS = [0.05, 0.2, 0.31]


def solved_risks(capsys, path, *extra):
    """The risks ``cvxpb solve`` read, from its --json (the Gibbs risk at each vertex
    is not reported, so read H and compare with a solve of the same numbers)."""
    code = main(["solve", str(path), "--m", "100", "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def expected(capsys, tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(map(str, RISKS)) + "\n")
    return solved_risks(capsys, plain)


def refused(capsys, path):
    code = main(["solve", str(path), "--m", "100"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "encoded",
    [
        codecs.BOM_UTF8 + b"0.05\n0.2\n0.31\n",  # the fuzz's case
        codecs.BOM_UTF8 + b"risk\r\n0.05\r\n0.2\r\n0.31\r\n",
        "0.05\n0.2\n0.31\n".encode("utf-16"),  # with its mark
        b"0.05;0.2;0.31",
        b"risk\n0.05\n0.2\n0.31",
    ],
)
def test_every_number_of_a_text_file_is_read(capsys, tmp_path, encoded):
    path = tmp_path / "risks.csv"
    path.write_bytes(encoded)
    got = solved_risks(capsys, path)
    assert got["problem"] == expected(capsys, tmp_path)["problem"]
    assert got["results"][0]["bound"] == expected(capsys, tmp_path)["results"][0]["bound"]


def test_a_row_that_is_not_names_is_never_a_header(capsys, tmp_path):
    path = tmp_path / "typo.csv"
    path.write_text("0.05x\n0.2\n")
    assert "line 1: '0.05x' is not a number" in refused(capsys, path)
    path.write_text("nan\n0.2\n")  # a number (refused as a risk), not a header
    assert "risk 0 (counting from 0) is nan" in refused(capsys, path)


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.array([[0.1, 0.2], [0.3, 0.4]]), "shape (2, 2); one column"),
        (np.zeros((2, 2, 1)), "shape (2, 2, 1)"),
        (np.array(["0.1", "0.2"]), "holds <U3 values, not real numbers"),
        (np.array([0.1 + 0j, 0.2]), "holds complex128 values"),
        (np.array([{"risk": 0.1}], dtype=object), "holds Python objects"),
    ],
)
def test_an_npy_that_is_not_one_column_of_numbers_is_refused(capsys, tmp_path, array, message):
    path = tmp_path / "risks.npy"
    np.save(path, array, allow_pickle=True)
    assert message in refused(capsys, path)


def test_an_npy_column_is_read_whole(capsys, tmp_path):
    path = tmp_path / "risks.npy"
    np.save(path, np.array(RISKS)[:, None])
    assert solved_risks(capsys, path)["problem"] == expected(capsys, tmp_path)["problem"]


def test_a_text_file_named_npy_is_refused_without_pickle_advice(capsys, tmp_path):
    path = tmp_path / "risks.npy"
    path.write_text("0.1\n0.2\n")
    err = refused(capsys, path)
    assert "not a NumPy .npy file" in err and "allow_pickle" not in err


def test_a_file_that_is_not_text_is_refused(capsys, tmp_path):
    path = tmp_path / "risks.csv"
    path.write_bytes(b"\xff\xfe\xfa\x00\x81risk")
    path.write_bytes(b"0.1\n\x81\x82\n")
    assert "not UTF-8 or UTF-16 text" in refused(capsys, path)


def test_the_prior_file_is_read_by_the_same_reader(capsys, tmp_path):
    risks, prior = tmp_path / "risks.csv", tmp_path / "prior.csv"
    risks.write_text("\n".join(map(str, RISKS)))
    prior.write_bytes(codecs.BOM_UTF8 + b"0.5\n0.25\n0.25\n")  # the mark dropped a weight
    got = solved_risks(capsys, risks, "--prior", str(prior))
    want = pb.BoundProblem(RISKS, m=100, prior=[0.5, 0.25, 0.25]).solve()
    assert got["results"][0]["bound"] == pytest.approx(want.bound, abs=1e-12)


@pytest.mark.parametrize("name", ["risks", "prior"])
def test_a_masked_value_is_refused_not_used(name):
    values = np.ma.masked_array([0.1, 0.9, 0.2], mask=[False, True, False])
    kwargs = {"risks": [0.1, 0.2, 0.3], "m": 100, "prior": None, name: values}
    if name == "prior":
        kwargs["prior"] = np.ma.masked_array([0.5, 0.3, 0.2], mask=[False, True, False])
    with pytest.raises(ValueError, match=f"{name} has 1 masked"):
        pb.BoundProblem(**kwargs)


def test_a_masked_array_with_nothing_masked_is_its_values():
    values = np.ma.masked_array([0.1, 0.2, 0.3], mask=False)
    assert (
        pb.BoundProblem(values, m=100).solve().bound
        == pb.BoundProblem([0.1, 0.2, 0.3], m=100).solve().bound
    )
