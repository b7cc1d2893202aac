"""The oriented terms' box ``lo <= t <= hi``: where a bound's curvature is proven.

A search certifies through the bound's concavity only over the box its terms can
reach (:meth:`cvxpb.engine.declare.pareto.ParetoSearch.certifiable`); each atom states
its curvature from its arguments' ranges over the box.
"""

from __future__ import annotations

import numpy as np

from cvxpb.engine.declare.values import Values


class Box:
    """The oriented terms' box ``lo <= t <= hi``, and each node's range over it.

    Parameters
    ----------
    lo, hi : dict
        ``{term: value}``: the box's corners in oriented coordinates.
    signs : dict
        ``{term: +1 or -1}``: each term's orientation.
    """

    def __init__(self, lo, hi, signs):
        self.lo, self.hi, self.signs = lo, hi, signs

    def range(self, node):
        """An enclosure of ``node``'s values over the box.

        A declared node is monotone in each term, so its least and largest values are
        at two corners; each is evaluated with outward rounding.

        Parameters
        ----------
        node : Expression
            A node of the bound.

        Returns
        -------
        tuple of float
            ``(low, high)``.
        """
        low, high = {}, {}
        for term, found in node.leaves().items():
            up = next(iter(found)) * self.signs[term] > 0
            low[term] = self.lo[term] if up else self.hi[term]
            high[term] = self.hi[term] if up else self.lo[term]
        at = [Values(coordinates=c, signs=self.signs) for c in (low, high)]
        return float(np.min(node.evaluate(at[0], -1))), float(np.max(node.evaluate(at[1], +1)))
