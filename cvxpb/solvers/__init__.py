"""Methods of solution, one module each; ``METHODS`` maps a name to its ``solve``."""

from inspect import Parameter, signature

from cvxpb.solvers import ccp, ccp_bounds, closed_form, cvx, exact, fixed_point, nlp

METHODS = {
    "exact": exact.solve,
    "cvx": cvx.solve,
    "closed_form": closed_form.solve,
    "ccp": ccp_bounds.solve,
    "nlp": nlp.solve,
    "fixed_point": fixed_point.solve,
}


def method_options(method: str) -> set | None:
    """The keyword options ``method`` takes, or None where they go on to a solver
    library unchecked (``cvx``: CVXPY passes them to Clarabel, ECOS or SCS)."""
    if method == "cvx":
        return None
    names = _keywords(METHODS[method])
    if method == "ccp":  # its options go on to the CCP driver
        names |= _keywords(ccp.solve) - {"initial", "sampler"}
    return names


def _keywords(function) -> set:
    kinds = (Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY)
    parameters = signature(function).parameters
    return {name for name, p in parameters.items() if p.kind in kinds} - {"problem"}


__all__ = ["METHODS", "method_options"]
