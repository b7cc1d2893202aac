"""The declared engine's searches of three or more terms, each a method of its own.

``method="declared"`` picks the search a declaration's terms call for: the Pareto
branch and bound over ``mu`` in ``min A + mu B`` for one or two terms
(:mod:`cvxpb.engine.declare.pareto`; ``declared`` is that search there, so it has no
second name), and for more one of these two, which run by name so that ``compare()``
can set them side by side:

* ``vertex``: for three or more terms where the bound is proven concave (or
  quasiconcave) in them on their box, cuts at weights of the scalarization and the
  least vertex of the outer polytope (:mod:`cvxpb.engine.declare.vertices`), certified;
* ``weight``: for three or more terms, a local search over the weights of the
  scalarization (:mod:`cvxpb.engine.declare.local`), status ``"local"`` where its lower
  bound (the bound at the terms' separate minima) leaves a gap.

A union bound (the least of several declarations) is searched part by part by
``declared`` alone.
"""

from __future__ import annotations

from cvxpb.engine.declare.vertices import VertexSearch
from cvxpb.engine.methods.method import Method, keywords
from cvxpb.engine.methods.requirements import Shape


def _searched(problem) -> str | None:
    if hasattr(problem.declared(), "search"):
        return None
    return "a union bound: each part is searched by method='declared'"


def _three_or_more(problem) -> str | None:
    n = len(problem.declared().terms)
    if n > 2:
        return None
    return f"the declaration has {n} terms; the Pareto search (declared) takes them"


def _concave(problem) -> str | None:
    declared = problem.declared()
    if VertexSearch(declared.bound, declared.terms, declared.signs).certifiable():
        return None
    return "the bound is not proven concave in its terms on their box"


ONE_DECLARATION = Shape("one declaration, not the least of several", _searched)
THREE_TERMS = Shape("three or more terms", _three_or_more)
CONCAVE = Shape("a bound proven concave in its terms on their box", _concave)


class Search(Method):
    """One of the declared engine's searches, as a method.

    Parameters
    ----------
    name : {"vertex", "weight"}
        The search.
    """

    fallback = "declared"

    def __init__(self, name: str):
        self.name = name
        self.certifies = name != "weight"
        self.handles = {
            "vertex": "cuts the box of three or more terms in which the bound is concave",
            "weight": "searches the weights of three or more terms locally",
        }[name]
        shapes = (ONE_DECLARATION, THREE_TERMS)
        self.requires = (*shapes, CONCAVE) if name == "vertex" else shapes

    def solve(self, problem, **options):
        return _declared().solve(problem, kind=self.name, **options)

    def options(self):
        return keywords(_declared().solve) - {"kind"}  # the search's own, but which search

    def solver_options(self, solver, verbose: bool) -> dict:
        return _declared().solver_options(solver, verbose)

    def calls_solver(self) -> bool:
        return True

    def formulation(self, problem, **at):
        self.check(problem)
        return _declared().formulation(problem, **at)


def _declared():
    from cvxpb.engine.methods import declared

    return declared


SEARCHES = (Search("vertex"), Search("weight"))
