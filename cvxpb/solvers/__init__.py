"""Methods of solution, one module each; ``METHODS`` maps a name to its ``solve``."""

from cvxpb.solvers import ccp_bounds, closed_form, cvx, exact, nlp

METHODS = {
    "exact": exact.solve,
    "cvx": cvx.solve,
    "closed_form": closed_form.solve,
    "ccp": ccp_bounds.solve,
    "nlp": nlp.solve,
}

__all__ = ["METHODS"]
