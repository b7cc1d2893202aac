"""The cvxpb command: solve from files and stdin, --json, errors, and the demo."""

import io
import json

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.cli import main

RISKS = [0.1, 0.12, 0.3, 0.05]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def risks_csv(tmp_path):
    path = tmp_path / "risks.csv"
    path.write_text("risk\n" + "\n".join(map(str, RISKS)) + "\n")
    return path


def test_solve_prints_a_table_with_the_exact_bound(capsys, risks_csv):
    code, out, _ = run(capsys, "solve", str(risks_csv), "--m", "1840", "--distance", "sq")
    expected = pb.BoundProblem(RISKS, 1840, distance="sq").solve().bound
    assert code == 0 and "exact" in out and "top posterior weights" in out
    assert f"{expected:.6f}" in out


def test_solve_json_compares_methods(capsys, risks_csv):
    code, out, _ = run(
        capsys,
        "solve",
        str(risks_csv),
        "--m",
        "500",
        "--distance",
        "linear",
        "--method",
        "exact,cvx,closed_form",
        "--json",
    )
    payload = json.loads(out)
    bounds = {r["method"]: r["bound"] for r in payload["results"]}
    assert code == 0 and payload["problem"]["H"] == 4
    assert bounds["exact"] <= bounds["cvx"] + 1e-12
    assert bounds["closed_form"] == pytest.approx(bounds["exact"], abs=1e-12)
    assert sum(payload["results"][0]["posterior"]) == pytest.approx(1)


def test_solve_reads_npy_columns_and_stdin(capsys, tmp_path, monkeypatch):
    npy = tmp_path / "r.npy"
    np.save(npy, np.array(RISKS))
    table = tmp_path / "r.txt"
    table.write_text("".join(f"{i} {r}\n" for i, r in enumerate(RISKS)))
    monkeypatch.setattr("sys.stdin", io.StringIO("0.1, 0.12, 0.3, 0.05\n"))
    outs = [
        run(capsys, "solve", src, "--m", "100", "--json", *extra)[1]
        for src, extra in [(str(npy), []), (str(table), ["--column", "1"]), ("-", [])]
    ]
    bounds = {json.loads(out)["results"][0]["bound"] for out in outs}
    assert len(bounds) == 1


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ("0.1\n1.5\n", ["--m", "100"], "risks must lie in [0, 1]"),
        ("0.1\n0.2\n", ["--m", "0"], "m must be an integer >= 1"),
        ("0.1\n0.2\n", ["--m", "10", "--delta", "2"], "delta must lie in (0, 1)"),
        ("0.1 0.2\n0.3 0.4\n", ["--m", "10"], "choose one with --column"),
        ("0.1\nabc\n", ["--m", "10"], "'abc' is not a number"),
        ("0.1\n0.2\n", ["--m", "10", "--method", "magic"], "--method must be among"),
        ("0.1\n0.2\n", ["--m", "10", "--method", "cvx"], 'use method="exact"'),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, content, argv, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run(capsys, "solve", str(path), *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("cvxpb: error:") and message in err


def test_demo_bounds_every_distance_and_divergence(capsys):
    code, out, _ = run(capsys, "demo", "--json")
    payload = json.loads(out)
    rows = payload["rows"]
    assert code == 0 and len(rows) == 7 and payload["m"] == 228
    for row in rows:
        assert row["status"] == "optimal"
        assert row["E_Q[val risk]"] <= row["bound"] < 1
    by_name = {(r["divergence"], r["distance"]): r["bound"] for r in rows}
    assert by_name[("chi2", "kl")] < by_name[("chi2", "sq")] < by_name[("chi2", "linear")]


def test_solve_renyi_with_alpha(capsys, risks_csv):
    argv = [
        "solve",
        str(risks_csv),
        "--m",
        "500",
        "--divergence",
        "renyi",
        "--alpha",
        "3",
        "--json",
    ]
    code, out, _ = run(capsys, *argv)
    expected = pb.BoundProblem(RISKS, 500, divergence="renyi", alpha=3).solve().bound
    assert code == 0 and json.loads(out)["results"][0]["bound"] == expected
    code, _, err = run(capsys, "solve", str(risks_csv), "--m", "500", "--divergence", "renyi")
    assert code == 2 and "needs alpha > 1" in err


def test_solve_compare_prints_every_method(capsys, risks_csv):
    code, out, _ = run(
        capsys, "solve", str(risks_csv), "--m", "500", "--distance", "kl", "--compare", "--json"
    )
    rows = json.loads(out)["rows"]
    assert code == 0 and [r["method"] for r in rows] == ["exact", "ccp", "fixed_point", "nlp"]
    assert all(r["gap"] >= -1e-9 for r in rows)
    code, out, _ = run(capsys, "solve", str(risks_csv), "--m", "500", "--compare")
    assert code == 0 and "kkt_residual" in out and "fixed_point" in out
