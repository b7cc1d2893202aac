"""Each method states what it needs as data; its refusal, the docs' table of methods and
the protocol table's "who asks" column all come from that one statement."""

import numpy as np
import pytest

import cvxpb as pb
from cvxpb.engine.methods import (
    METHODS,
    Needs,
    methods_table,
    refusals,
    register_method,
    requirement_rows,
    unregister_method,
    who_asks,
)
from cvxpb.engine.methods.requirements import ONE_BOUND
from cvxpb.pac_bayes import protocol
from cvxpb.pac_bayes.divergences import Divergence
from tests.users_own import ConeScan

RISKS = np.linspace(0.05, 0.45, 10)


class KLWithoutFamily(Divergence):
    """KL's core, transform and bounds, but no family and no CVXPY expression."""

    name = "kl_no_family"

    def __init__(self):
        self._kl = pb.Bound("kl", "kl", 100, 0.05).measure

    def core(self, q, p, rounding=0):
        return self._kl.core(q, p, rounding)

    def accepts(self, distance):
        return self._kl.accepts(distance)

    def right_side(self, bound, value, rounding=0):
        return self._kl.right_side(bound, value, rounding)

    def linear_min(self, p, g, mu):
        return self._kl.linear_min(p, g, mu)


def _why(method, problem):
    return refusals(problem).get(method)


def test_every_refusal_names_the_first_statement_the_problem_fails():
    """kl-kl: cvx needs inverse_form 'sum' first; linear-kl: it passes that and then
    needs the cone; a tandem bound fails the shape before any member."""
    kl = pb.BoundProblem(RISKS, 300, distance="kl", divergence="kl")
    linear = pb.BoundProblem(RISKS, 300, distance="linear", divergence="kl")
    assert "inverse_form 'kl'" in _why("cvx", kl)
    assert "cone(bound, p)" in _why("cvx", linear) and "inverse_form" not in _why("cvx", linear)
    q = pb.Posterior.uniform(4)
    errors = (np.random.default_rng(0).random((50, 4)) < 0.3).astype(float)
    tandem = pb.Minimize(4 * pb.kl_inverse(pb.tandem_risk(q, errors), (pb.KL(q) + 3) / 50))
    for name in ("exact", "cvx", "closed_form", "ccp", "fixed_point", "nlp"):
        assert _why(name, tandem) == ONE_BOUND.refusal(tandem)


def test_a_divergence_without_a_family_or_an_expression_is_refused_by_name():
    problem = pb.BoundProblem(RISKS, 300, distance="kl", divergence=KLWithoutFamily())
    assert "has_family and family(risks, prior)" in _why("exact", problem)
    assert "declared" in problem.methods()  # linear_min is there: the search takes it
    assert problem.solve().method == "declared"
    ours = pb.BoundProblem(RISKS, 300, distance="kl", divergence="kl").solve()
    assert problem.solve().bound == pytest.approx(ours.bound, abs=1e-7)


def test_the_table_of_methods_lists_every_statement():
    rows = {row["method"]: row for row in requirement_rows()}
    assert list(rows) == list(METHODS)
    text = methods_table()
    for name, method in METHODS.items():
        assert rows[name]["needs"] == [need.written() for need in method.requires]
        assert all(need in text for need in rows[name]["needs"])


@pytest.mark.parametrize("of", ["distance", "divergence"])
def test_who_asks_is_the_methods_statements(of):
    """The protocol table names a method beside a member exactly where the method's
    requirements name it (ccp's expr, stated by hand before, is not there)."""
    members = protocol.DIVERGENCE_MEMBERS if of == "divergence" else protocol.DISTANCE_MEMBERS
    asked = who_asks(of)
    table = protocol.table(members, asked)
    for name, method in METHODS.items():
        for need in method.requires:
            for member in getattr(need, "members", lambda: ())():
                if getattr(need, "of", None) == of:
                    assert name in asked[member]
    rows = {row.split("``")[1].split("(")[0]: row for row in table.split("   * - ")[2:]}
    if of == "divergence":
        assert "method ccp" not in rows["expr"] and "method declared" in rows["expr"]
        assert "method cvx" in rows["cone"] and "method fixed_point" in rows["cone"]


def test_a_users_method_is_refused_by_its_own_statement():
    """A method of one's own derived for one bound states that it needs a cone: the
    chi-squared bounds have one, KL's none, a tandem bound is no one bound."""
    method = register_method(ConeScan())
    try:
        chi2 = pb.BoundProblem(RISKS, 300, distance="linear", divergence="chi2")
        kl = pb.BoundProblem(RISKS, 300, distance="linear", divergence="kl")
        assert "cone_scan" in chi2.methods() and "cone_scan" not in kl.methods()
        assert _why("cone_scan", kl) == (
            "the divergence 'kl' states its change of measure as no cone (cone(bound, p))"
        )
        res = chi2.solve("cone_scan")
        assert res.bound == chi2.value_at(res.posterior)
        assert chi2.solve().bound <= res.bound <= chi2.value_at(chi2.posterior.prior)
        with pytest.raises(ValueError, match='method="cone_scan" scans .* no cone'):
            kl.solve("cone_scan")
    finally:
        unregister_method(method.name)


def test_a_statement_removed_lets_the_problem_in():
    """Mutation check: the refusal is the statement, nothing else."""
    kl = pb.BoundProblem(RISKS, 300, distance="linear", divergence="kl")
    method = ConeScan()
    assert method.refusal(kl) is not None
    method.requires = ()
    assert method.refusal(kl) is None
    method.requires = (Needs("distance", "inverse_form", "sums only", values=("root",)),)
    assert "inverse_form 'sum', not 'root' (sums only)" in method.refusal(kl)
