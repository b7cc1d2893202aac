"""Every example script runs and prints what it promises."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script, capsys, recwarn):
    """It runs, prints its bounds with no NaN, and lets no bare warning through (the SLT-GP
    example printed three HyperparameterBoundWarnings where its table now says what
    they mean)."""
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "bound" in out and "nan" not in out
    assert not [str(w.message) for w in recwarn if not issubclass(w.category, DeprecationWarning)]
