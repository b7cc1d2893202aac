"""The majority-vote benchmark takes the published optimizers from an authors'
checkout when given one, and says when it stands in for them."""

import sys

import numpy as np
import pytest

from benchmarks import bench_majority_vote as bench

STUB = """
import numpy as np

def optimizeLamb(emp_risks, n, delta=0.05):
    rho = np.zeros(len(emp_risks)); rho[int(np.argmin(emp_risks))] = 1.0
    return 0.5, rho, 1.0

def optimizeTND(tandem_risks, n, delta=0.05):
    rho = np.arange(1.0, len(tandem_risks) + 1); rho /= rho.sum()
    return 0.7, rho

def optimizeCCTND(tandem_risks, gibbs_risks, n, n2, delta=0.05):
    rho = np.zeros(len(gibbs_risks)); rho[-1] = 1.0
    return 0.6, rho, 0.1, 0.5, 0.5
"""


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A stand-in checkout whose optimizers return recognizable posteriors."""
    (tmp_path / "mvb" / "bounds").mkdir(parents=True)
    (tmp_path / "mvb" / "__init__.py").write_text("")
    (tmp_path / "mvb" / "bounds" / "__init__.py").write_text(STUB)
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in ("mvb", "mvb.bounds"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


def test_a_checkout_supplies_the_posteriors(checkout):
    optimizers, source = bench.published_optimizers(checkout)
    assert str(checkout) in source
    risks = np.array([0.3, 0.1, 0.2])
    assert np.array_equal(optimizers["lambda"](risks, 100), [0, 1, 0])
    assert np.allclose(optimizers["tandem"](np.eye(3) * 0.1, 100), [1 / 6, 2 / 6, 3 / 6])
    assert np.array_equal(optimizers["cctnd"](np.eye(3) * 0.1, risks, 100, 90), [0, 0, 1])


def test_without_a_checkout_the_benchmark_says_what_stands_in():
    optimizers, source = bench.published_optimizers(None)
    assert "no --authors checkout given" in source
    assert "cctnd" not in optimizers  # no stand-in: no row
    risks = np.array([0.3, 0.1, 0.2])
    rho = optimizers["lambda"](risks, 200)
    assert rho.sum() == pytest.approx(1) and np.argmax(rho) == 1
    assert optimizers["tandem"](np.diag(risks), 200).shape == (3,)


def test_an_optimizer_without_one_posterior_is_refused():
    with pytest.raises(ValueError, match="no single posterior of 3 weights"):
        bench._posterior((0.5, np.ones(3) / 3, np.ones(3) / 3), 3, "optimizeTND")
