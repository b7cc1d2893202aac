"""The compiled kernels: numba loaded only when a kernel is first called, and its
machine code cached on disk, in numba's user-wide cache where the package's own folder
cannot be written (a read-only site-packages)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python(code, env=None, cwd=None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_and_the_command_line_do_not_load_numba():
    code = (
        "import sys, cvxpb; cvxpb.BoundProblem; cvxpb.kl; from cvxpb.app import cli\n"
        "from cvxpb.numerics import kl, trinomial, summation\n"
        "print('numba' in sys.modules)"
    )
    assert _python(code, cwd=ROOT) == "False"


def test_a_kernel_loads_numba_on_its_first_call():
    code = "import sys; from cvxpb import kl; kl(0.1, 0.2); print('numba' in sys.modules)"
    assert _python(code, cwd=ROOT) == "True"


@pytest.mark.slow
def test_where_the_package_folder_is_read_only_the_cache_is_the_users(tmp_path):
    """A copy of the package whose ``__pycache__`` cannot be made (a file stands there,
    as a read-only site-packages refuses it): the first process compiles into
    ``XDG_CACHE_HOME``, the second loads from there, and both give the same bits."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "cvxpb", site / "cvxpb", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "cvxpb" / "numerics" / "__pycache__").write_text("not a folder")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env |= {"PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    code = (
        "import numpy as np\n"
        "from cvxpb.numerics import kl\n"
        f"assert kl.__file__.startswith({str(site)!r})\n"
        "value = kl.kl_inv_upper(np.array([0.1, 0.2]), 0.05)[0]  # through inverse_many\n"
        "print(repr(value), sum(kl.KERNELS.inverse_many.stats.cache_hits.values()))"
    )
    first = _python(code, env=env, cwd=tmp_path).split()
    cached = list((tmp_path / "cache").rglob("*.nbi"))
    assert cached  # compiled into the user-wide cache, not beside the package
    second = _python(code, env=env, cwd=tmp_path).split()
    assert first[0] == second[0]
    assert first[1] == "0" and int(second[1]) >= 1
