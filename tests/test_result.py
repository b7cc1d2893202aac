"""One Result for every engine: each field means the same whatever solved the problem."""

import numpy as np
import pytest
from scipy.stats import entropy

import cvxpb as pb
from cvxpb.engine.result import STATUSES
from cvxpb.ensemble import bounds as mv

RISKS = np.array([0.10, 0.12, 0.30, 0.05, 0.21])
PRIOR = np.array([0.1, 0.3, 0.2, 0.25, 0.15])


def _chi2(q, p):
    """The chi-squared divergence by its definition, sum (q - p)^2 / p."""
    return float(np.sum((q - p) ** 2 / p))


def _renyi(q, p, alpha):
    return float(np.log(np.sum(q**alpha * p ** (1 - alpha))) / (alpha - 1))


DIVERGENCES = {
    "chi2": (dict(divergence="chi2"), "chi2", _chi2),
    "kl": (dict(divergence="kl"), "KL", lambda q, p: float(entropy(q, p))),
    "renyi": (dict(divergence="renyi", alpha=3.0), "renyi_3", lambda q, p: _renyi(q, p, 3.0)),
}


@pytest.mark.parametrize("name", DIVERGENCES)
@pytest.mark.parametrize("method", ["exact", "declared", "nlp"])
def test_terms_are_the_bounds_terms_by_their_own_definitions(name, method):
    options, term, definition = DIVERGENCES[name]
    prob = pb.BoundProblem(RISKS, m=500, distance="kl", prior=PRIOR, **options)
    res = prob.solve(method)
    q = res.posterior
    assert set(res.terms) == {"gibbs_risk", term}
    assert res.empirical_risk == res.terms["gibbs_risk"] == pytest.approx(RISKS @ q, rel=1e-14)
    assert res.divergence == res.terms[term] == pytest.approx(definition(q, PRIOR), rel=1e-9)


@pytest.mark.parametrize("name", DIVERGENCES)
def test_the_declared_engine_reports_what_the_exact_method_reports(name):
    options, _, _ = DIVERGENCES[name]
    prob = pb.BoundProblem(RISKS, m=500, distance="kl", prior=PRIOR, **options)
    exact, declared = prob.solve("exact"), pb.Minimize(prob.bound).solve("declared")
    assert declared.method == "declared" and set(declared.terms) == set(exact.terms)
    for key, value in exact.terms.items():
        assert declared.terms[key] == pytest.approx(value, rel=1e-4, abs=1e-7)
    assert declared.divergence == pytest.approx(exact.divergence, rel=1e-4, abs=1e-7)


def test_chi2_term_is_the_chi_squared_divergence():
    rng = np.random.default_rng(3)
    p, w = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    assert pb.chi2(pb.Posterior(p)).value(w) == pytest.approx(_chi2(w, p), rel=1e-12)
    assert pb.chi2(pb.Posterior(p)).value(p) == pytest.approx(0.0, abs=1e-14)


def _votes(seed=0, n=500, H=6):
    rng = np.random.default_rng(seed)
    votes = np.where(rng.uniform(size=(n, H)) < 0.7, 1, -1)
    return votes, (votes != 1).astype(float)


def test_a_three_term_bound_reports_its_divergence_not_another_term():
    """The C-bound has the Gibbs risk, the disagreement and KL: ``divergence`` is KL at the
    posterior (scipy's entropy), ``empirical_risk`` the Gibbs risk."""
    votes, errors = _votes()
    q = pb.Posterior.uniform(6)
    res = pb.Minimize(mv.c_bound(q, errors.mean(axis=0), 500, delta=0.05, votes=votes)).solve()
    w = res.posterior
    assert set(res.terms) == {"gibbs_risk", "disagreement", "KL"}
    assert res.divergence == pytest.approx(entropy(w, np.full(6, 1 / 6)), rel=1e-9, abs=1e-14)
    assert res.empirical_risk == pytest.approx(errors.mean(axis=0) @ w, rel=1e-12)
    disagreement = np.mean([np.sum(w[a != 1]) * np.sum(w[a == 1]) * 2 for a in votes])
    assert res.terms["disagreement"] == pytest.approx(disagreement, rel=1e-9)
    assert res.certificate.parameter is None and res.certificate.value is None


def test_fields_that_do_not_apply_are_none():
    """A tandem bound has no Gibbs risk; a bound of a risk alone has no divergence."""
    _, errors = _votes(1)
    q = pb.Posterior.uniform(6)
    tandem = pb.Minimize(mv.tandem(q, errors, delta=0.05)).solve()
    assert tandem.empirical_risk is None and tandem.divergence is not None
    assert tandem.certificate.parameter == "mu" and np.isfinite(tandem.certificate.value)
    alone = pb.Minimize(pb.gibbs_risk(q, errors.mean(axis=0)) + 0.1).solve()
    assert alone.divergence is None and alone.certificate.parameter is None
    assert alone.empirical_risk == pytest.approx(errors.mean(axis=0).min(), abs=1e-9)


def test_certificate_parameters_name_their_family():
    prob = pb.BoundProblem(RISKS, m=500, divergence="chi2")
    assert prob.solve().certificate.parameter == "nu"
    assert pb.BoundProblem(RISKS, m=500, divergence="kl").solve().certificate.parameter == "beta"
    assert prob.solve("declared").certificate.parameter == "mu"


def test_every_status_a_method_reports_on_success_is_defined():
    prob = pb.BoundProblem(RISKS, m=500, distance="linear")
    statuses = {prob.solve(method).status for method in prob.methods()}
    assert statuses <= set(STATUSES)


def test_compare_runs_every_applicable_method_the_declared_one_included():
    prob = pb.BoundProblem(RISKS, m=500, distance="sq", divergence="kl")
    table = prob.compare()
    assert list(table.method) == prob.methods()
    assert "declared" in set(table.method) and table.gap.abs().max() < 1e-6


def test_print_reads_as_text_not_as_the_dataclass():
    """``print(result)`` was the dataclass repr: one 592-character line for H = 4, forty
    lines for H = 200. Now: what the bound is, what the status proves, the proven lower
    bound, the five largest weights, the terms."""
    import cvxpb as pb
    from cvxpb.ensemble import bounds as mv

    errors = (np.random.default_rng(0).random((300, 200)) < 0.3).astype(float)
    res = pb.Minimize(mv.tandem(pb.Posterior.uniform(200), errors)).solve()
    text = str(res)
    lines = text.splitlines()
    assert lines[0] == res.summary() and len(lines) <= 8
    assert max(len(line) for line in lines) < 300
    assert f"status {res.status}: " in text and "no posterior has a bound below" in text
    assert text.count(" on ") == 5 and "tandem_risk" in text and "KL" in text
