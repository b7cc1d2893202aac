"""The public API in numpydoc form, checked by numpydoc's own validator.

The modules listed are held to it; the list grows as modules are brought to the form.
Examples, See Also and extended summaries are optional (EX01, SA01, ES01). A method that
overrides a documented method of a base class without a docstring of its own inherits
that documentation, as Sphinx shows it, and is checked there.
"""

import importlib
import inspect

import pytest
from numpydoc import validate as numpydoc_validate

MODULES = [
    "cvxpb.numerics.tolerances",
    "cvxpb.numerics.kl",
    "cvxpb.numerics.summation",
    "cvxpb.numerics.binomial",
    "cvxpb.numerics.supremum",
    "cvxpb.numerics.constants",
    "cvxpb.numerics.derivatives",
    "cvxpb.pac_bayes.divergences",
    "cvxpb.pac_bayes.distances",
    "cvxpb.pac_bayes.bounds",
    "cvxpb.pac_bayes.families",
    "cvxpb.engine.result",
    "cvxpb.engine.methods",
    "cvxpb.engine.methods.ccp",
    "cvxpb.engine.methods.ccp_bounds",
    "cvxpb.engine.methods.closed_form",
    "cvxpb.engine.methods.cvx",
    "cvxpb.engine.methods.declared",
    "cvxpb.engine.methods.exact",
    "cvxpb.engine.methods.fixed_point",
    "cvxpb.engine.methods.nlp",
    "cvxpb.engine.problem",
    "cvxpb.engine.declare.expressions",
    "cvxpb.engine.declare.terms",
    "cvxpb.engine.declare.problem",
    "cvxpb.engine.declare.pareto",
    "cvxpb.engine.declare.local",
    "cvxpb.engine.declare.newton",
    "cvxpb.engine.compare",
    "cvxpb.engine.explain",
    "cvxpb.engine.conic",
    "cvxpb.svm.cv",
    "cvxpb.svm.family",
    "cvxpb.svm.gaussian",
    "cvxpb.svm.grid",
    "cvxpb.svm.prior_bounds",
    "cvxpb.svm.prior_qp",
    "cvxpb.svm.prior_svm",
    "cvxpb.svm.stochastic",
    "cvxpb.minimax.entropies",
    "cvxpb.minimax.estimators",
    "cvxpb.minimax.fista",
    "cvxpb.minimax.mpm",
    "cvxpb.minimax.program",
    "cvxpb.minimax.sparse_logistic",
    "cvxpb.minimax.zero_one",
    "cvxpb.gp.bound",
    "cvxpb.gp.classifier",
    "cvxpb.gp.ep",
    "cvxpb.gp.privileged_noise",
    "cvxpb.gp.slt",
    "cvxpb.ensemble.bounds",
    "cvxpb.ensemble.classifier",
    "cvxpb.app.cli",
    "cvxpb.app.commands",
    "cvxpb.app.datasets",
    "cvxpb.app.demo",
    "cvxpb.app.diagnostics",
    "cvxpb.app.plots",
    "cvxpb.app.texttable",
    "cvxpb.validation",
    "cvxpb.threads",
    "cvxpb.parallel",
    "cvxpb.jsonout",
]
OPTIONAL = {"EX01", "SA01", "ES01"}


def _public(module_name):
    """``(qualified name, object, owner class or None)`` for each public definition."""
    module = importlib.import_module(module_name)
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
            continue
        if inspect.isfunction(obj):
            yield f"{module_name}.{name}", obj, None
        elif inspect.isclass(obj):
            yield f"{module_name}.{name}", obj, None
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(member):
                    yield f"{module_name}.{name}.{attr}", member, obj


def _inherits_documentation(member, owner) -> bool:
    if member.__doc__ is not None or owner is None:
        return False
    bases = owner.__mro__[1:]
    return any(getattr(getattr(b, member.__name__, None), "__doc__", None) for b in bases)


DEFINITIONS = [d for m in MODULES for d in _public(m)]


@pytest.mark.parametrize(("name", "obj", "owner"), DEFINITIONS, ids=[d[0] for d in DEFINITIONS])
def test_numpydoc_form(name, obj, owner):
    if _inherits_documentation(obj, owner):
        return
    errors = [(code, text) for code, text in numpydoc_validate.validate(name)["errors"]]
    assert [e for e in errors if e[0] not in OPTIONAL] == []


def _undocumented_parameter(x):
    """Return ``x``."""
    return x


def test_the_check_catches_an_undocumented_parameter():
    """The validator, called as above, flags a function whose parameter is missing."""
    result = numpydoc_validate.validate(f"{__name__}._undocumented_parameter")
    assert {"PR01", "RT01"} <= {code for code, _ in result["errors"]}
