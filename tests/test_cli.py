"""The cvxpb command: solve from files and stdin, --json, errors, and the demo."""

import io
import json

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.app.cli import main

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
        ("0.1\n1.5\n", ["--m", "100"], "risk 1 (counting from 0) is 1.5; risks must lie in [0, 1]"),
        ("0.1\n0.2\n", ["--m", "0"], "m must be an integer >= 1"),
        ("0.1\n0.2\n", ["--m", "10", "--delta", "2"], "delta must lie in (0, 1)"),
        ("0.1 0.2\n0.3 0.4\n", ["--m", "10"], "choose one with --column"),
        ("0.1\nabc\n", ["--m", "10"], "line 2: 'abc' is not a number"),
        ("0.1\n0.2\n", ["--m", "10", "--method", "magic"], "--method must be among"),
        ("0.1\n0.2\n", ["--m", "10", "--method", "cvx"], "use --method exact"),
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
    assert code == 2 and "--divergence renyi needs --alpha" in err


def test_solve_compare_prints_every_method(capsys, risks_csv):
    code, out, _ = run(
        capsys, "solve", str(risks_csv), "--m", "500", "--distance", "kl", "--compare", "--json"
    )
    rows = json.loads(out)["rows"]
    assert code == 0 and [r["method"] for r in rows] == [
        "exact",
        "ccp",
        "fixed_point",
        "nlp",
        "declared",
    ]
    assert all(r["gap"] >= -1e-9 for r in rows)
    code, out, _ = run(capsys, "solve", str(risks_csv), "--m", "500", "--compare")
    header = out.splitlines()[2].split()
    assert code == 0 and header == ["method", "status", "reached", "bound", "gap", "seconds"]
    assert "fixed_point" in out and "more columns with --json: posterior_l1" in out


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ("0.1\n", ["--distance", "catoni"], "--distance catoni needs --divergence kl"),
        ("0.1\n", ["--alpha", "3"], "--alpha is the Renyi order: use it with --divergence renyi"),
        ("0.1\n", ["--solver", "ECOS"], "--solver is the CVXPY solver of --method cvx"),
        ("0.1\n", ["--divergence", "chi2", "--alpha", "2"], "--alpha is the Renyi order"),
        ("name,risk\na,0.1\nb,0.2\n", ["--column", "loss"], "or one of name, risk"),
        ("name,risk\na,0.1\nb,0.2\n", [], "2 columns (name, risk); choose one with --column"),
        ("0.1\n0.2\n-0.5\n", [], "risk 2 (counting from 0) is -0.5"),
    ],
)
def test_errors_speak_in_flags(capsys, tmp_path, content, argv, message):
    path = tmp_path / "risks.csv"
    path.write_text(content)
    code, out, err = run(capsys, "solve", str(path), "--m", "100", *argv)
    assert code == 2 and out == "" and message in err
    assert "=" not in err.replace("==", "")  # no Python keyword syntax


def test_a_labelled_csv_is_read_by_column_name_or_index(capsys, tmp_path):
    path = tmp_path / "named.csv"
    path.write_text("name,risk\n" + "".join(f"svm{i},{r}\n" for i, r in enumerate(RISKS)))
    expected = pb.BoundProblem(RISKS, 100).solve().bound
    for column in ("risk", "1"):
        code, out, _ = run(capsys, "solve", str(path), "--m", "100", "--column", column, "--json")
        assert code == 0 and json.loads(out)["results"][0]["bound"] == expected


def test_the_prior_file_is_checked_and_can_be_normalized(capsys, tmp_path, risks_csv):
    prior = tmp_path / "prior.csv"
    prior.write_text("name,weight\n" + "".join(f"svm{i},{w}\n" for i, w in enumerate([1, 1, 1, 2])))
    base = ["solve", str(risks_csv), "--m", "100", "--prior", str(prior)]
    code, _, err = run(capsys, *base)
    assert code == 2 and "choose one with --prior-column" in err
    code, _, err = run(capsys, *base, "--prior-column", "weight")
    assert code == 2 and "--prior weights sum to 5.0, not 1" in err and "--normalize-prior" in err
    code, out, _ = run(capsys, *base, "--prior-column", "weight", "--normalize-prior", "--json")
    expected = pb.BoundProblem(RISKS, 100, prior=np.array([1, 1, 1, 2]) / 5).solve().bound
    assert code == 0 and json.loads(out)["results"][0]["bound"] == expected
    prior.write_text("0.5\n0.5\n")
    code, _, err = run(capsys, "solve", str(risks_csv), "--m", "100", "--prior", str(prior))
    assert code == 2 and "--prior has 2 weights for 4 risks" in err


def test_top_must_not_be_negative(capsys, risks_csv):
    with pytest.raises(SystemExit) as exit_:
        main(["solve", str(risks_csv), "--m", "100", "--top", "-1"])
    assert exit_.value.code == 2 and "must be >= 0" in capsys.readouterr().err


def test_every_option_says_what_it_does_and_its_default(capsys):
    from cvxpb.app.cli import build_parser

    parser = build_parser()
    commands = [["solve"], ["demo"], *[["experiment", e] for e in ("stochastic-svm", "minimax")]]
    commands += [["experiment", "prior-svm"], ["experiment", "slt-gp"]]
    for command in commands:
        with pytest.raises(SystemExit):
            parser.parse_args([*command, "--help"])
        text = capsys.readouterr().out
        assert "(default: 0.05)" in text or command[-1] not in ("solve", "demo")
        sub = parser._subparsers._group_actions[0].choices[command[0]]
        if len(command) == 2:
            sub = sub._subparsers._group_actions[0].choices[command[1]]
        for action in sub._actions:
            assert action.help, f"{command} {action.option_strings} has no help"
        if command[0] == "experiment":
            assert "Run time on a quiet 2-core machine" in text
    with pytest.raises(SystemExit):
        parser.parse_args(["experiment", "minimax", "--help"])
    assert "breast_cancer" in capsys.readouterr().out  # --dataset lists the names


def test_python_dash_m_runs_the_command():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cvxpb", "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"cvxpb {pb.__version__}"


def heavy_modules_after(code: str, names=("cvxpy", "scipy", "pandas", "sklearn")) -> str:
    """Which of ``names`` a fresh interpreter has loaded after running ``code``."""
    import subprocess
    import sys

    probe = f"import sys; {code}; print(sorted(m for m in {names!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_help_and_version_load_no_numerical_library():
    assert heavy_modules_after("from cvxpb.app.cli import build_parser; build_parser()") == "[]"


def test_importing_bound_problem_loads_no_cvxpy_or_pandas():
    code = "import cvxpb; cvxpb.BoundProblem([0.1, 0.2], 100).solve()"
    assert heavy_modules_after(code, ("cvxpy", "pandas", "sklearn")) == "[]"


def test_demo_says_what_a_bound_is_and_marks_the_tightest(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    assert "upper bound on the true risk of the stochastic classifier" in out
    assert "1 - delta = 0.95" in out and "support: classifiers with weight above 1e-06/H" in out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["chi2"], ["kl"])]
    marked = [row for row in rows if "*" in row]
    assert len(rows) == 7 and len(marked) == 1
    assert float(marked[0][2]) == min(float(row[2]) for row in rows)


def test_the_package_docstring_is_an_overview():
    for name in ("BoundProblem", "cvxpb.svm", "cvxpb.minimax", "cvxpb.gp", "python -m cvxpb"):
        assert name in pb.__doc__
    assert set(pb.__all__) <= set(dir(pb))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pb.nothing  # noqa: B018
