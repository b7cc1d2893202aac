"""Methods of solution, one module each, in one registry.

``METHODS`` maps a name to its ``solve``, in the order :meth:`cvxpb.BoundProblem.compare`
lists them; :func:`applicable` keeps those whose module ``supports`` a problem (a module
with no ``supports`` applies to every problem), as CVXPY's solving chain keeps the
solvers that accept a problem. This is the only list of the methods' names.

A method's module is imported the first time it is looked up, so ``exact`` runs
without loading CVXPY (which ``cvx`` and ``ccp`` need, and which takes 0.6 s).
"""

from collections.abc import Mapping
from importlib import import_module
from inspect import Parameter, signature

_MODULES = {
    "exact": "exact",
    "cvx": "cvx",
    "closed_form": "closed_form",
    "ccp": "ccp_bounds",
    "fixed_point": "fixed_point",
    "nlp": "nlp",
    "declared": "declared",
}


class _Methods(Mapping):
    """``name -> solve``, importing each method's module on first use."""

    def __getitem__(self, name):
        if name not in _MODULES:
            raise KeyError(name)
        return _module(name).solve

    def __iter__(self):
        return iter(_MODULES)

    def __len__(self):
        return len(_MODULES)

    def __repr__(self):
        return f"METHODS{tuple(_MODULES)}"


METHODS = _Methods()


def _module(name: str):
    return import_module(f"cvxpb.engine.methods.{_MODULES[name]}")


def applicable(problem) -> list[str]:
    """List the methods that can solve ``problem``, in registry order.

    Parameters
    ----------
    problem : cvxpb.BoundProblem
        The problem.

    Returns
    -------
    list of str
        The methods whose module supports it (the others raise a ValueError saying why).
    """
    return [name for name in _MODULES if getattr(_module(name), "supports", _always)(problem)]


def _always(problem) -> bool:
    return True


def method_options(method: str) -> set | None:
    """Name the keyword options ``method`` takes.

    A module whose ``PASSES_OPTIONS`` is true hands its options to a solver library
    unchecked (``cvx``: CVXPY passes them to Clarabel, ECOS or SCS); a module's
    ``further_options()`` adds the options its ``solve`` hands on (``ccp``: the CCP
    driver's).

    Parameters
    ----------
    method : str
        A name of :data:`METHODS`.

    Returns
    -------
    set of str or None
        The options; None where they go on unchecked.
    """
    module = _module(method)
    if getattr(module, "PASSES_OPTIONS", False):
        return None
    further = getattr(module, "further_options", set)
    return _keywords(module.solve) | further()


def certifies(method: str) -> bool:
    """Say whether ``method`` proves a lower bound on the minimum (a certificate).

    Parameters
    ----------
    method : str
        A name of :data:`METHODS`.

    Returns
    -------
    bool
        Whether its module's ``CERTIFIES`` is true (``exact``, ``declared``).
    """
    return getattr(_module(method), "CERTIFIES", False)


def solver_methods() -> list[str]:
    """List the methods that call a solver library.

    Returns
    -------
    list of str
        The methods whose module has ``solver_options``.
    """
    return [name for name in _MODULES if hasattr(_module(name), "solver_options")]


def solver_options(method: str, solver, verbose: bool) -> dict:
    """Give the keyword options that pass ``solver`` and ``verbose`` to ``method``.

    Parameters
    ----------
    method : str
        A name of :data:`METHODS`.
    solver : str or None
        The solver library's solver; None for the method's default.
    verbose : bool
        Whether the solver prints its log.

    Returns
    -------
    dict
        The options, for the method's ``solve``.

    Raises
    ------
    ValueError
        If ``method`` calls no solver library and a solver is named.
    """
    module = _module(method)
    if not hasattr(module, "solver_options"):
        if solver is not None:
            raise ValueError(
                f"method {method!r} calls no solver library; solver= applies to "
                f"{', '.join(solver_methods())}"
            )
        return {}
    return module.solver_options(solver, bool(verbose))


def _keywords(function) -> set:
    kinds = (Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY)
    parameters = signature(function).parameters
    return {name for name, p in parameters.items() if p.kind in kinds} - {"problem"}


__all__ = [
    "METHODS",
    "applicable",
    "certifies",
    "method_options",
    "solver_methods",
    "solver_options",
]
