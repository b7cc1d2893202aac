"""Methods of solution, one module each, in one registry.

``METHODS`` maps a name to its :class:`~cvxpb.engine.methods.method.Method`, in the
order :meth:`cvxpb.Minimize.compare` lists them (exact before the general searches);
:func:`applicable` keeps those that accept a problem by its features, as CVXPY's
solving chain keeps the solvers that accept a problem. :func:`register_method` adds a
method written outside the package. This is the only list of the methods' names.

Each method states what it needs as data (its ``requires``); :func:`requirement_rows`
gives those statements as the docs' tables show them.
"""

from collections.abc import Mapping

from cvxpb.engine.methods.method import Method, OneBoundMethod
from cvxpb.engine.methods.ours import PACKAGE_METHODS
from cvxpb.engine.methods.requirements import Needs, Shape
from cvxpb.engine.methods.searches import SEARCHES
from cvxpb.pac_bayes.protocol import list_table

_REGISTERED = {method.name: method for method in (*PACKAGE_METHODS, *SEARCHES)}
_OWN = frozenset(_REGISTERED)  # the package's methods, which stay


class _Methods(Mapping):
    """``name -> Method``, our methods first, then the ones registered."""

    def __getitem__(self, name):
        return _REGISTERED[name]

    def __iter__(self):
        return iter(_REGISTERED)

    def __len__(self):
        return len(_REGISTERED)

    def __repr__(self):
        return f"METHODS{tuple(_REGISTERED)}"


METHODS = _Methods()


def register_method(method: Method) -> Method:
    """Add a method written outside the package to the registry.

    Parameters
    ----------
    method : Method
        Its ``name`` must be new; ``refusal`` says which problems it accepts and
        ``solve`` solves them.

    Returns
    -------
    Method
        ``method``, registered: ``solve(method=name)``, ``methods()`` and ``compare()``
        of every problem now know it.

    Raises
    ------
    ValueError
        For a name already taken or an object that is not a method.
    """
    if not isinstance(method, Method):
        raise ValueError(
            f"method must be a cvxpb.engine.methods.Method, got {type(method).__name__}"
        )
    if not method.name or method.name in _REGISTERED:
        raise ValueError(f"method name must be new and not empty; {method.name!r} is taken")
    _REGISTERED[method.name] = method
    return method


def unregister_method(name: str) -> None:
    """Take a method added by :func:`register_method` out of the registry.

    Parameters
    ----------
    name : str
        Its name.

    Raises
    ------
    ValueError
        For one of the package's own methods or an unknown name.
    """
    if name in _OWN or name not in _REGISTERED:
        raise ValueError(f"{name!r} is not a method registered from outside the package")
    del _REGISTERED[name]


def applicable(problem) -> list[str]:
    """List the methods that accept ``problem``, in registry order.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.

    Returns
    -------
    list of str
        The methods whose ``accepts`` is true (the others' ``refusal`` says why not).
    """
    return [name for name, method in _REGISTERED.items() if method.accepts(problem)]


def refusals(problem) -> dict:
    """Say why each method that does not accept ``problem`` refuses it.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.

    Returns
    -------
    dict
        ``{name: one line}`` for the methods that refuse it.
    """
    found = {name: method.refusal(problem) for name, method in _REGISTERED.items()}
    return {name: why for name, why in found.items() if why is not None}


def requirement_rows() -> list[dict]:
    """State what each registered method needs, as the docs' table of methods shows it.

    Returns
    -------
    list of dict
        One per method, in registry order: ``method``, ``takes`` (what it handles),
        ``needs`` (each of its ``requires`` written out) and ``certifies``.
    """
    return [
        {
            "method": name,
            "takes": method.handles,
            "needs": [need.written() for need in method.requires],
            "certifies": method.certifies,
        }
        for name, method in _REGISTERED.items()
    ]


def methods_table() -> str:
    """Write :func:`requirement_rows` as a reStructuredText list-table, for the docs.

    Returns
    -------
    str
        One row per method: its name, what it handles, what it needs, and whether it
        certifies its minimum.
    """
    rows = [("method", "what it does", "what it needs", "certifies")]
    for row in requirement_rows():
        needs = "; ".join(f"``{need}``" if "." in need else need for need in row["needs"])
        rows.append(
            (f"``{row['method']}``", row["takes"], needs, "yes" if row["certifies"] else "")
        )
    return list_table(rows)


def who_asks(of: str) -> dict:
    """Name, per member of the distance or divergence protocol, the methods that need it.

    Parameters
    ----------
    of : {"distance", "divergence"}
        The protocol.

    Returns
    -------
    dict
        ``{member: [method, ...]}``, from the methods' ``requires``: the protocol
        table's "who asks" column adds them to the engines' own uses.
    """
    asked = {}
    for name, method in _REGISTERED.items():
        for need in method.requires:
            if getattr(need, "of", None) == of:
                for member in need.members():
                    asked.setdefault(member, []).append(name)
    return asked


def method_options(method: str) -> set | None:
    """Name the keyword options ``method`` takes.

    A method whose options go to a solver library unchecked (``cvx``: CVXPY passes
    them to Clarabel, ECOS or SCS) gives None; ``ccp`` adds its driver's options.

    Parameters
    ----------
    method : str
        A name of :data:`METHODS`.

    Returns
    -------
    set of str or None
        The options; None where they go on unchecked.
    """
    return _REGISTERED[method].options()


def certifies(method: str) -> bool:
    """Say whether ``method`` proves a lower bound on the minimum (a certificate).

    Parameters
    ----------
    method : str
        A name of :data:`METHODS`.

    Returns
    -------
    bool
        Its ``certifies`` (``exact``, ``declared``).
    """
    return _REGISTERED[method].certifies


def solver_methods() -> list[str]:
    """List the methods that call a solver library.

    Returns
    -------
    list of str
        The methods that take ``solver=``.
    """
    return [name for name, method in _REGISTERED.items() if method.calls_solver()]


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
    found = _REGISTERED[method]
    if not found.calls_solver() and solver is not None:
        raise ValueError(
            f"method {method!r} calls no solver library; solver= applies to "
            f"{', '.join(solver_methods())}"
        )
    return found.solver_options(solver, bool(verbose))


def default_method(problem, options) -> str:
    """Choose the method ``solve(method=None)`` runs.

    It is the first in the registry's order that certifies its minimum, accepts
    ``problem`` and takes every option given.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    options : dict
        The options given to ``solve``.

    Returns
    -------
    str
        ``exact`` where it applies (a bound of one Gibbs risk and a divergence with a
        family), else ``declared``.
    """
    for name, method in _REGISTERED.items():  # no module is imported for the others
        if method.certifies and method.accepts(problem):
            allowed = method.options()
            if allowed is None or set(options) <= allowed:
                return name
    return "declared"


def run(problem, method, solver, verbose: bool, options: dict):
    """Solve ``problem`` by ``method``: every problem's ``solve``.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    method : str or None
        A name of :data:`METHODS`; None for :func:`default_method`.
    solver : str or None
        The solver library's solver, for the methods that call one.
    verbose : bool
        Print the solver's log and a closing line.
    options : dict
        The method's own options.

    Returns
    -------
    Result
        The method's, built once.

    Raises
    ------
    ValueError
        For an unknown method, solver or option, or a problem the method refuses,
        before any work.
    """
    from cvxpb.validation import check_choice, check_options

    if method is None:
        method = default_method(problem, options)
    check_choice(method, "method", METHODS)
    options = {**options, **solver_options(method, solver, verbose)}
    allowed = method_options(method)
    if allowed is not None:
        check_options(options, allowed, method)
    _REGISTERED[method].check(problem)
    result = _REGISTERED[method].solve(problem, **options)
    if verbose:
        print(result.summary())
    return result


__all__ = [
    "METHODS",
    "Method",
    "Needs",
    "OneBoundMethod",
    "Shape",
    "applicable",
    "methods_table",
    "requirement_rows",
    "who_asks",
    "default_method",
    "run",
    "certifies",
    "method_options",
    "refusals",
    "register_method",
    "solver_methods",
    "solver_options",
    "unregister_method",
]
