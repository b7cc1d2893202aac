"""Methods of solution, one module each; ``METHODS`` maps a name to its ``solve``."""

from cvxpb.solvers import ccp_bounds, closed_form, cvx, exact, fixed_point, nlp

METHODS = {
    "exact": exact.solve,
    "cvx": cvx.solve,
    "closed_form": closed_form.solve,
    "ccp": ccp_bounds.solve,
    "nlp": nlp.solve,
    "fixed_point": fixed_point.solve,
}

__all__ = ["METHODS"]
