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

from cvxpb.engine.methods.method import Method, keywords


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

    def refusal(self, problem) -> str | None:
        declared = problem.declared()
        if not hasattr(declared, "search"):
            return "a union bound: each part is searched by method='declared'"
        n = len(declared.terms)
        if n <= 2:
            return f"the declaration has {n} terms; the Pareto search (declared) takes them"
        if self.name == "vertex" and not _vertex_search(declared).certifiable():
            return "the bound is not proven concave in its terms on their box"
        return None

    def solve(self, problem, **options):
        from cvxpb.engine.methods import declared

        return declared.solve(problem, kind=self.name, **options)

    def options(self):
        from cvxpb.engine.methods import declared

        return keywords(declared.solve) - {"kind"}  # the search's own, but which search

    def solver_options(self, solver, verbose: bool) -> dict:
        from cvxpb.engine.methods import declared

        return declared.solver_options(solver, verbose)

    def calls_solver(self) -> bool:
        return True

    def formulation(self, problem, **at):
        from cvxpb.engine.methods import declared

        self.check(problem)
        return declared.formulation(problem, **at)


def _vertex_search(declared):
    from cvxpb.engine.declare.vertices import VertexSearch

    return VertexSearch(declared.bound, declared.terms, declared.signs)
