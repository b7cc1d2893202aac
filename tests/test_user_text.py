"""What users read names papers as researchers do and points at nothing they do not have."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = re.compile(
    r"seed 0\d\d|seeds? \d{3}|DESIGN\.md|design notes|DESIGN item|\bthe seeds?\b|seed's", re.I
)
USER_FILES = [
    ROOT / "README.md",
    *sorted((ROOT / "cvxpb").rglob("*.py")),
    *sorted((ROOT / "docs").glob("*.rst")),
    *sorted((ROOT / "examples").glob("*.py")),
    *sorted((ROOT / "benchmarks").glob("*.py")),
]


@pytest.mark.parametrize("path", USER_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_internal_names_in_what_users_read(path):
    hits = [
        f"{path.name}:{n}: {line.strip()}"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if INTERNAL.search(line)
    ]
    assert not hits, "\n".join(hits)


def test_the_pattern_catches_what_it_is_for():
    for text in ("seed 000, Table 1", "see DESIGN.md item 3", "as the seed says", "Seed 003's"):
        assert INTERNAL.search(text)
    for text in ("--seed 0", "random seed of the split", "Sahu & Hemachandra, Table 1"):
        assert not INTERNAL.search(text)


def test_no_internal_names_in_the_help_of_any_command():
    from cvxpb.app.cli import build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        texts.append(sub.format_help())
        if name == "experiment":
            texts += [e.format_help() for e in sub._subparsers._group_actions[0].choices.values()]
    assert not [t for t in texts if INTERNAL.search(t)]


def test_explain_names_papers():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cvxpb as pb; print(pb.BoundProblem([0.1, 0.2], 50).explain())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert not INTERNAL.search(done.stdout)


def test_the_readmes_python_runs_as_written():
    """Every ```python block of the README, in order, in one namespace: nothing undefined
    (the learning-systems block used X, y, X_test, t, svc and X_privileged unset)."""
    import warnings

    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the README says where a bound warns
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["mv"].result_.bound <= 1 and "slt" in namespace


def test_the_readmes_run_times_are_the_commands_own():
    """The README's run time of each experiment is the one its --help states (both
    measured on a quiet 2-core machine)."""
    from cvxpb.app.cli import RUN_TIMES

    readme = (ROOT / "README.md").read_text()
    for name, text in RUN_TIMES.items():
        line = re.search(rf"^cvxpb experiment {name} .*: (\d+(?:\.\d+)?) (s|min)$", readme, re.M)
        if name.endswith("appendix"):
            continue
        number, unit = line.groups()
        assert re.search(rf"about {number} {'s' if unit == 's' else 'minute'}", text), name
