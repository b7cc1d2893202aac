"""The terms' values at which a declared bound is evaluated: at a posterior, or at given
oriented coordinates (:meth:`cvxpb.engine.declare.expressions.Expression.evaluate`)."""

from __future__ import annotations


class Values:
    """The terms' cores for :meth:`Expression.evaluate`.

    At a posterior (each core rounded as asked, and cached) or at given oriented
    coordinates (exact).

    Parameters
    ----------
    q : ndarray of shape (H,), optional
        The posterior.
    coordinates : dict, optional
        ``{term: oriented value}`` instead of a posterior.
    signs : dict, optional
        ``{term: +1 or -1}``: each term's orientation.
    replace : dict, optional
        ``{term: stand-in}``: oriented stand-ins (majorants) whose values are used
        instead of the terms'.
    """

    def __init__(self, q=None, coordinates=None, signs=None, replace=None):
        self.q, self.coordinates, self.signs, self._cache = q, coordinates, signs, {}
        self.replace = replace or {}

    def __call__(self, term, rounding):
        if self.coordinates is not None:
            return self.signs[term] * self.coordinates[term]
        key = (term, rounding)
        if key not in self._cache:
            stand_in = self.replace.get(term)
            if stand_in is None:
                self._cache[key] = term.core(self.q, rounding)
            else:
                sign = self.signs[term]
                self._cache[key] = sign * stand_in.core(self.q, sign * rounding)
        return self._cache[key]
