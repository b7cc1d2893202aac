"""The public API in numpydoc form, checked by numpydoc's own validator.

Every module of the package is held to it (but ``cvxpb.__main__``, which runs the command
line when imported).
Examples, See Also and extended summaries are optional (EX01, SA01, ES01). The summary starts
on the line of the opening quotes (PEP 257), which numpydoc before 1.11 flags as GL01. A method that
overrides a documented method of a base class without a docstring of its own inherits
that documentation, as Sphinx shows it, and is checked there.
"""

import importlib
import inspect
import pkgutil

import pytest
from numpydoc import validate as numpydoc_validate

import cvxpb

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(cvxpb.__path__, "cvxpb.")
    if not m.name.endswith("__main__")  # runs the command line on import
)
OPTIONAL = {"EX01", "SA01", "ES01", "GL01"}


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


def test_every_layer_is_checked():
    """The walk finds the modules of every layer, so none escapes the check."""
    layers = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert {"numerics", "pac_bayes", "engine", "svm", "minimax", "gp", "ensemble", "app"} <= layers
    assert len(DEFINITIONS) > 550
