"""A catalogue of hostile inputs: each is a ValueError whose message names the argument.

One case per input, over ``BoundProblem``, ``solve`` and its options, ``evaluate``,
``kl`` and its inverses, and ``bound_constant``; a case passes only if the exception
is a ValueError raised before any work and its message contains the expected words.
"""

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC

import cvxpb as pb
from cvxpb.numerics.kl import kl_inv_lower, kl_inv_upper
from cvxpb.svm import StochasticSVM, svm_pac_bayes_bound
from cvxpb.svm.cv import LambdaSVC

R = [0.1, 0.2, 0.3]


def problem(**changes):
    args = {"risks": R, "m": 100, "delta": 0.05, "distance": "kl", "divergence": "chi2"}
    args.update(changes)
    return pb.BoundProblem(**args)


def solve(method, distance="kl", divergence="chi2", alpha=None, **options):
    return problem(distance=distance, divergence=divergence, alpha=alpha).solve(method, **options)


CASES = {
    # risks
    "risks empty": (lambda: problem(risks=[]), "risks"),
    "risks 2-D": (lambda: problem(risks=[[0.1, 0.2]]), "risks"),
    "risks NaN": (lambda: problem(risks=[0.1, math.nan]), "risks"),
    "risks above 1": (lambda: problem(risks=[1.5]), "risks"),
    "risks negative": (lambda: problem(risks=[-0.1, 0.2]), "risks"),
    "risks strings": (lambda: problem(risks=["0.1", "0.2"]), "risks"),
    "risks complex": (lambda: problem(risks=[0.1 + 1j, 0.2]), "risks"),
    "risks booleans": (lambda: problem(risks=[True, False]), "risks"),
    "risks None": (lambda: problem(risks=None), "risks"),
    "risks infinite": (lambda: problem(risks=[math.inf]), "risks"),
    # m
    "m string": (lambda: problem(m="100"), "m must"),
    "m zero": (lambda: problem(m=0), "m must"),
    "m negative": (lambda: problem(m=-5), "m must"),
    "m fraction": (lambda: problem(m=1.5), "m must"),
    "m NaN": (lambda: problem(m=math.nan), "m must"),
    "m infinite": (lambda: problem(m=math.inf), "m must"),
    "m bool": (lambda: problem(m=True), "m must"),
    "m None": (lambda: problem(m=None), "m must"),
    "m 2^60": (lambda: problem(m=2**60), "m must"),
    "m complex": (lambda: problem(m=100 + 0j), "m must"),
    "m above the summed limit (kl)": (lambda: problem(m=10**7), "m=10000000"),
    # delta
    "delta string": (lambda: problem(delta="0.05"), "delta"),
    "delta zero": (lambda: problem(delta=0), "delta"),
    "delta one": (lambda: problem(delta=1), "delta"),
    "delta NaN": (lambda: problem(delta=math.nan), "delta"),
    "delta negative": (lambda: problem(delta=-0.1), "delta"),
    "delta above 1": (lambda: problem(delta=1.5), "delta"),
    "delta None": (lambda: problem(delta=None), "delta"),
    "delta complex": (lambda: problem(delta=0.05j), "delta"),
    "delta bool": (lambda: problem(delta=True), "delta"),
    # distance and divergence
    "distance unknown": (lambda: problem(distance="foo"), "distance"),
    "distance list": (lambda: problem(distance=["kl"]), "distance"),
    "distance None": (lambda: problem(distance=None), "distance"),
    "divergence unknown": (lambda: problem(divergence="foo"), "divergence"),
    "divergence list": (lambda: problem(divergence=["chi2"]), "divergence"),
    "divergence None": (lambda: problem(divergence=None), "divergence"),
    "catoni with chi2": (lambda: problem(distance="catoni"), "distance"),
    "catoni with renyi": (
        lambda: problem(distance="catoni", divergence="renyi", alpha=3),
        "distance",
    ),
    # prior
    "prior wrong length": (lambda: problem(prior=[0.5, 0.5]), "prior"),
    "prior negative": (lambda: problem(prior=[1.5, -0.25, -0.25]), "prior"),
    "prior NaN": (lambda: problem(prior=[math.nan, 0.5, 0.5]), "prior"),
    "prior sums to 2": (lambda: problem(prior=[1, 0.5, 0.5]), "prior"),
    "prior complex": (lambda: problem(prior=[0.5 + 0j, 0.25, 0.25]), "prior"),
    "prior strings": (lambda: problem(prior=["a", "b", "c"]), "prior"),
    "prior 2-D": (lambda: problem(prior=[[0.5, 0.25, 0.25]]), "prior"),
    "prior infinite": (lambda: problem(prior=[math.inf, 0, 0]), "prior"),
    # constants
    "constants unknown": (lambda: problem(constants="foo"), "constants"),
    "constants paper with renyi": (
        lambda: problem(divergence="renyi", alpha=3, constants="paper"),
        "paper",
    ),
    "constants paper kl below m = 50": (lambda: problem(m=10, constants="paper"), "m < 50"),
    # grid
    "grid with chi2": (lambda: problem(grid=[1.0]), "grid"),
    "grid empty": (lambda: problem(distance="catoni", divergence="kl", grid=[]), "grid"),
    "grid negative": (lambda: problem(distance="catoni", divergence="kl", grid=[-1.0]), "grid"),
    "grid NaN": (lambda: problem(distance="catoni", divergence="kl", grid=[math.nan]), "grid"),
    "grid 2-D": (lambda: problem(distance="catoni", divergence="kl", grid=[[1.0, 2.0]]), "grid"),
    "grid strings": (lambda: problem(distance="linear", divergence="kl", grid=["1"]), "grid"),
    # alpha
    "alpha 3 with chi2": (lambda: problem(alpha=3), "alpha"),
    "alpha with kl": (lambda: problem(divergence="kl", alpha=2), "alpha"),
    "alpha missing for renyi": (lambda: problem(divergence="renyi"), "alpha"),
    "alpha 1": (lambda: problem(divergence="renyi", alpha=1), "alpha"),
    "alpha below 1": (lambda: problem(divergence="renyi", alpha=0.5), "alpha"),
    "alpha NaN": (lambda: problem(divergence="renyi", alpha=math.nan), "alpha"),
    "alpha infinite": (lambda: problem(divergence="renyi", alpha=math.inf), "alpha"),
    "alpha string": (lambda: problem(divergence="renyi", alpha="2"), "alpha"),
    "alpha bool": (lambda: problem(divergence="renyi", alpha=True), "alpha"),
    "alpha too near 1 for kl": (lambda: problem(divergence="renyi", alpha=1.001), "alpha"),
    # solve: methods and options
    "method unknown": (lambda: solve("foo"), "method"),
    "exact unknown option": (lambda: solve("exact", foo=1), "'foo'"),
    "exact tol zero": (lambda: solve("exact", tol=0), "tol"),
    "exact tol negative": (lambda: solve("exact", tol=-1e-9), "tol"),
    "exact tol NaN": (lambda: solve("exact", tol=math.nan), "tol"),
    "exact tol string": (lambda: solve("exact", tol="1e-9"), "tol"),
    "exact max_rounds negative": (lambda: solve("exact", max_rounds=-1), "max_rounds"),
    "exact max_rounds fraction": (lambda: solve("exact", max_rounds=1.5), "max_rounds"),
    "exact max_rounds bool": (lambda: solve("exact", max_rounds=True), "max_rounds"),
    "fixed_point max_iter zero": (lambda: solve("fixed_point", max_iter=0), "max_iter"),
    "fixed_point max_iter negative": (lambda: solve("fixed_point", max_iter=-3), "max_iter"),
    "fixed_point tol NaN": (lambda: solve("fixed_point", tol=math.nan), "tol"),
    "fixed_point search unknown": (lambda: solve("fixed_point", search="foo"), "search"),
    "fixed_point unknown option": (lambda: solve("fixed_point", bar=2), "'bar'"),
    "fixed_point with KL": (lambda: solve("fixed_point", divergence="kl"), "fixed_point"),
    "nlp solver unknown": (lambda: solve("nlp", solver="foo"), "solver"),
    "nlp max_iter zero": (lambda: solve("nlp", max_iter=0), "max_iter"),
    "nlp tol negative": (lambda: solve("nlp", tol=-1.0), "tol"),
    "nlp max_seconds zero": (lambda: solve("nlp", max_seconds=0), "max_seconds"),
    "nlp max_seconds NaN": (lambda: solve("nlp", max_seconds=math.nan), "max_seconds"),
    "nlp initial unknown": (lambda: solve("nlp", initial="foo"), "initial"),
    "nlp unknown option": (lambda: solve("nlp", verbosity=2), "'verbosity'"),
    "ccp n_starts zero": (lambda: solve("ccp", n_starts=0), "n_starts"),
    "ccp n_starts negative": (lambda: solve("ccp", n_starts=-1), "n_starts"),
    "ccp n_starts fraction": (lambda: solve("ccp", n_starts=1.5), "n_starts"),
    "ccp max_iter negative": (lambda: solve("ccp", max_iter=-1), "max_iter"),
    "ccp tol NaN": (lambda: solve("ccp", tol=math.nan), "tol"),
    "ccp initial unknown": (lambda: solve("ccp", initial="foo"), "initial"),
    "ccp initial wrong length": (lambda: solve("ccp", initial=[0.5, 0.5]), "initial"),
    "ccp unknown option": (lambda: solve("ccp", foo=1), "'foo'"),
    "ccp SCS option out of range": (
        lambda: solve("ccp", solver_options={"SCS": {"eps_abs": -1}}),
        "eps_abs",
    ),
    "ccp with renyi": (lambda: solve("ccp", divergence="renyi", alpha=3), "ccp"),
    "cvx solver unknown": (lambda: solve("cvx", distance="linear", solver="foo"), "solver"),
    "cvx ECOS unknown option": (
        lambda: solve("cvx", distance="linear", solver="ECOS", foo=1),
        "foo",
    ),
    "cvx SCS option out of range": (
        lambda: solve("cvx", distance="linear", solver="SCS", eps_abs=-1),
        "eps_abs",
    ),
    "cvx CLARABEL unknown option": (
        lambda: solve("cvx", distance="linear", solver="CLARABEL", bar=2),
        "bar",
    ),
    "cvx with the kl distance": (lambda: solve("cvx"), "cvx"),
    "closed_form rule unknown": (
        lambda: solve("closed_form", distance="linear", rule="foo"),
        "rule",
    ),
    "closed_form unknown option": (
        lambda: solve("closed_form", distance="linear", foo=1),
        "'foo'",
    ),
    # evaluate
    "q wrong length": (lambda: problem().value_at([0.5, 0.5]), "q must"),
    "q negative": (lambda: problem().value_at([1.5, -0.25, -0.25]), "q must"),
    "q NaN": (lambda: problem().value_at([math.nan, 0.5, 0.5]), "q must"),
    "q not summing to 1": (lambda: problem().value_at([0.5, 0.5, 0.5]), "q must"),
    "q off the prior's support": (
        lambda: problem(prior=[1, 0, 0]).value_at([0, 1, 0]),
        "prior is zero",
    ),
    # kl and its inverses
    "kl p negative": (lambda: pb.kl(-0.1, 0.5), "p must"),
    "kl p above 1": (lambda: pb.kl(1.5, 0.5), "p must"),
    "kl p NaN": (lambda: pb.kl(math.nan, 0.5), "p must"),
    "kl q above 1": (lambda: pb.kl(0.5, 1 + 1e-12), "q must"),
    "kl q NaN": (lambda: pb.kl(0.5, math.nan), "q must"),
    "kl string": (lambda: pb.kl("0.5", 0.5), "p must"),
    "kl complex": (lambda: pb.kl(0.5, 0.5j), "q must"),
    "kl_inv_upper eps negative": (lambda: kl_inv_upper(0.1, -1.0), "eps"),
    "kl_inv_upper eps NaN": (lambda: kl_inv_upper(0.1, math.nan), "eps"),
    "kl_inv_upper p above 1": (lambda: kl_inv_upper(2.0, 0.1), "p must"),
    "kl_inv_lower eps negative": (lambda: kl_inv_lower(0.1, -1.0), "eps"),
    "kl_inv_lower p NaN": (lambda: kl_inv_lower(math.nan, 0.1), "p must"),
    # bound_constant
    "constant alpha 0.5": (lambda: pb.bound_constant("linear", 100, alpha=0.5), "alpha"),
    "constant alpha NaN": (lambda: pb.bound_constant("linear", 100, alpha=math.nan), "alpha"),
    "constant alpha -1": (lambda: pb.bound_constant("linear", 100, alpha=-1), "alpha"),
    "constant alpha 1": (lambda: pb.bound_constant("linear", 100, alpha=1), "alpha"),
    "constant alpha string": (lambda: pb.bound_constant("linear", 100, alpha="2"), "alpha"),
    "constant distance unknown": (lambda: pb.bound_constant("foo", 100), "distance"),
    "constant m zero": (lambda: pb.bound_constant("linear", 0), "m must"),
    "constant m 2^60": (lambda: pb.bound_constant("sq", 2**60), "m must"),
    "constant m string": (lambda: pb.bound_constant("linear", "10"), "m must"),
    "constant m above the summed limit": (
        lambda: pb.bound_constant("kl", 10**7),
        "m=10000000",
    ),
    "constant route unknown": (lambda: pb.bound_constant("sq", 100, constants="x"), "constants"),
    "constant kl alpha too near 1": (lambda: pb.bound_constant("kl", 100, alpha=1.001), "alpha"),
}


def svm_bound(**changes):

    X, y = make_classification(60, 4, random_state=0)
    args = {"svc": SVC().fit(X, y), "X": X, "y": y}
    args.update(changes)
    return svm_pac_bayes_bound(args.pop("svc"), args.pop("X"), args.pop("y"), **args)


def lambda_svc(lam):
    return LambdaSVC(lam=lam).fit(np.eye(4), [0, 1, 0, 1])


CASES |= {
    # estimators
    "svm bound etas empty": (lambda: svm_bound(etas=[]), "etas"),
    "svm bound etas NaN": (lambda: svm_bound(etas=[math.nan]), "etas"),
    "svm bound labels not the SVC's": (lambda: svm_bound(y=np.full(60, 7)), "classes"),
    "svm bound unfitted SVC": (lambda: svm_bound(svc=SVC()), "fit"),
    "svm bound prior unknown": (lambda: svm_bound(prior="foo"), "prior"),
    "svm bound delta above 1": (lambda: svm_bound(delta=2.0), "delta"),
    "LambdaSVC lam zero": (lambda: lambda_svc(0.0), "lam"),
    "LambdaSVC lam negative": (lambda: lambda_svc(-1.0), "lam"),
    "StochasticSVM divergence unknown": (
        lambda: StochasticSVM(divergence="foo").fit(np.eye(6), [0, 1] * 3),
        "divergence",
    ),
}


def cli(*argv):
    """The command line's answer to ``argv``: a ValueError with its stderr line if it
    exits 2 (a clear refusal), so the CLI cases share the catalogue's test."""
    import contextlib
    import io

    from cvxpb.app.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    if code == 2:
        raise ValueError(err.getvalue())
    return code


CLI_CASES = {
    "cli m zero": (("solve", "RISKS", "--m", "0"), "m must"),
    "cli delta 2": (("solve", "RISKS", "--m", "100", "--delta", "2"), "delta"),
    "cli renyi without alpha": (("solve", "RISKS", "--m", "100", "--divergence", "renyi"), "alpha"),
    "cli alpha 1": (
        ("solve", "RISKS", "--m", "100", "--divergence", "renyi", "--alpha", "1"),
        "alpha",
    ),
    "cli missing file": (("solve", "/nonexistent/risks.csv", "--m", "100"), "nonexistent"),
    "cli experiment unknown dataset": (
        ("experiment", "stochastic-svm", "--dataset", "nope"),
        "datasets must be among",
    ),
    "cli experiment method cvx": (
        ("experiment", "stochastic-svm", "--dataset", "haberman", "--method", "cvx"),
        "--method cvx",
    ),
}


@pytest.mark.parametrize("case", list(CLI_CASES), ids=list(CLI_CASES))
def test_command_line_refuses_with_one_line_naming_the_option(case, tmp_path):
    argv, words = CLI_CASES[case]
    risks = tmp_path / "risks.csv"
    risks.write_text("0.1\n0.2\n0.3\n")
    argv = [str(risks) if a == "RISKS" else a for a in argv]
    with pytest.raises(ValueError) as info:
        cli(*argv)
    message = str(info.value)
    assert words in message and "Traceback" not in message and message.count("\n") == 1


def test_any_solver_exception_is_a_status_with_the_solvers_message(monkeypatch):
    from cvxpb.engine.methods import cvx, nlp

    def out_of_memory(*args, **kwargs):
        raise MemoryError("13 GiB")

    monkeypatch.setattr(cvx, "build", out_of_memory)  # what a solve builds its program with
    monkeypatch.setattr(cvx, "_PROGRAMS", cvx._Programs())  # none kept from other tests
    res = problem(distance="linear").solve("cvx")
    assert res.status == "solver_failed" and "MemoryError: 13 GiB" in res.message
    assert math.isnan(res.bound)

    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(nlp, "minimize", singular)
    res = problem().solve("nlp")
    assert res.status == "solver_failed" and "LinAlgError: Singular matrix" in res.message


def test_explain_covers_the_renyi_bounds():
    for distance in ("linear", "sq", "kl"):
        text = problem(distance=distance, divergence="renyi", alpha=3).explain()
        assert "S(q)^(1/alpha)" in text
    assert "DCP: yes" in problem(distance="linear", divergence="renyi", alpha=3).explain()


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_hostile_input_is_a_value_error_naming_the_argument(case):
    call, words = CASES[case]
    with pytest.raises(ValueError) as info:
        call()
    assert words in str(info.value)


def test_the_catalogue_has_at_least_a_hundred_cases():
    assert len(CASES) + len(CLI_CASES) >= 100


def test_closed_form_constants_take_any_m_up_to_2_to_the_53():
    assert pb.bound_constant("linear", 2**53) == 1 / (4 * 2**53)
    assert pb.bound_constant("sq", 2**40) == pytest.approx(3 / (16 * 2.0**80), rel=1e-9)
    assert np.isfinite(problem(distance="linear", m=2**50).solve().bound)
