"""The package's methods, each an object of the kind a user writes.

Each states as data what it handles, what it needs (``requires``), whether it certifies
and where a refusal sends the user; its module (``cvxpb.engine.methods.<module>``) holds
the numerical work and is imported the first time the method solves, so ``exact`` runs
without loading CVXPY (which ``cvx`` and ``ccp`` need, and which takes 0.6 s).
"""

from __future__ import annotations

from importlib import import_module

from cvxpb.engine.methods.method import Method, OneBoundMethod, keywords, vacuous_result
from cvxpb.engine.methods.requirements import Needs

FORMS = ("sum", "root", "kl")  # the distances' inverses the CCP and fixed-point forms take
SOCP = (
    Needs("distance", "inverse_form", "R = L + rhs", values=("sum",)),
    Needs(
        "divergence",
        "cone",
        "states its change of measure as no second-order cone",
        gives=True,
    ),
)


class _InModule:
    """A method whose numerical work is the functions of a module of ours."""

    module_name = ""
    passes_options = False  # True: the options go to a solver library unchecked
    no_program = ""  # what it does instead of solving a convex program, if it solves none

    @property
    def module(self):
        """module: the method's module, imported on first use."""
        return import_module(f"cvxpb.engine.methods.{self.module_name}")

    @property
    def statuses(self) -> tuple:
        # the module's, stated beside the code that returns them, and "optimal": a
        # bound 1 at every posterior is certified at once by any method
        return tuple(dict.fromkeys((*self.module.STATUSES, "optimal")))

    def options(self):
        if self.passes_options:
            return None
        if "_options" not in self.__dict__:  # read once: a signature takes 50 us
            further = getattr(self.module, "further_options", set)
            self._options = frozenset(keywords(self.module.solve) | further())
        return self._options

    def solver_options(self, solver, verbose: bool) -> dict:
        if not self.calls_solver():
            return Method.solver_options(self, solver, verbose)
        return self.module.solver_options(solver, bool(verbose))

    def calls_solver(self) -> bool:
        return hasattr(self.module, "solver_options")


class _OneBoundInModule(_InModule, OneBoundMethod):
    """One of our methods derived for one bound: its module solves the data."""

    def solve_one(self, data, **options):
        return self.module.solve(data, **options)

    def formulate_one(self, data, **at):
        if self.no_program:
            raise ValueError(f'method="{self.name}" solves no convex program: {self.no_program}')
        return self.module.formulation(data, **at)


class Exact(_OneBoundInModule):
    """``method="exact"``: the branch and bound over the divergence's family.

    Its numerical work: :mod:`cvxpb.engine.methods.exact`.
    """

    name, module_name, certifies, fallback = "exact", "exact", True, "declared"
    handles = "searches the divergence's family of optimal posteriors"
    requires = (
        Needs("divergence", "has_family", "offers no family of optimal posteriors", also="family"),
    )


class Cvx(_OneBoundInModule):
    """``method="cvx"``: the SOCP of a linear distance and a conic change of measure.

    Its numerical work: :mod:`cvxpb.engine.methods.cvx`.
    """

    name = module_name = "cvx"
    passes_options = True
    handles = "states the bound L(q) + sqrt(c2) ||q / sqrt(r)||_2 as an SOCP"
    requires = SOCP


class ClosedForm(_OneBoundInModule):
    """``method="closed_form"``: Sahu & Hemachandra's Algorithm 2 and Theorem 11.

    Its numerical work: :mod:`cvxpb.engine.methods.closed_form`.
    """

    name = module_name = "closed_form"
    handles = "gives Sahu & Hemachandra's closed forms for L(q) + sqrt(c2 sum q_i^2 / r_i)"
    requires = SOCP  # the SOCP's problems, whose KKT system the closed forms solve


class Ccp(_OneBoundInModule):
    """``method="ccp"``: the convex-concave procedure.

    Its numerical work: :mod:`cvxpb.engine.methods.ccp_bounds`.
    """

    name, module_name = "ccp", "ccp_bounds"
    handles = "handles the bounds it states as difference-of-convex programs"
    requires = (
        Needs("distance", "inverse_form", "the programs are written for these", values=FORMS),
        Needs(
            "divergence",
            "right_side_expr",
            "gives no convex CVXPY expression of its change of measure",
            gives=True,
        ),
    )


class FixedPoint(_OneBoundInModule):
    """``method="fixed_point"``: Sahu & Hemachandra's Algorithm 1, fixed-point equations.

    Its numerical work: :mod:`cvxpb.engine.methods.fixed_point`.
    """

    name = module_name = "fixed_point"
    handles = "iterates Sahu & Hemachandra's fixed-point equations (eqs. 12, 15, 49, 63)"
    no_program = (
        "it iterates the map q <- F(q) of Sahu & Hemachandra's fixed-point equations (eqs. "
        "12, 15, 49, 63) on the ordered subsets of their Algorithm 1, with damping"
    )
    requires = (
        Needs("distance", "inverse_form", "the equations are derived for these", values=FORMS),
        SOCP[1],
    )


class Nlp(_OneBoundInModule):
    """``method="nlp"``: SciPy's SLSQP or trust-constr.

    Its numerical work: :mod:`cvxpb.engine.methods.nlp`.
    """

    name = module_name = "nlp"
    handles = "runs a local nonlinear solver on the bound"
    no_program = (
        "it runs SciPy's SLSQP or trust-constr on the bound's formula from a uniform start, "
        "a nonlinear program (not convex in q for the sq and kl distances), as Ipopt ran "
        "in Sahu & Hemachandra's Table 6"
    )
    requires = (Needs("divergence", "gradient", "gives no gradient of its argument"),)


class Declared(_InModule, Method):
    """``method="declared"``: the declared engine's search, for any declaration.

    Its numerical work: :mod:`cvxpb.engine.methods.declared`.
    """

    name = module_name = "declared"
    certifies = True
    handles = "searches any declaration"
    requires = (
        Needs(
            "divergence",
            "linear_min",
            "has neither a closed-form program nor a CVXPY expression of its core: the "
            "search's programs need one",
            instead="expr",
            each_term=True,
        ),
    )

    def solve(self, problem, **options):
        vacuous = vacuous_result(problem, self.name)
        return vacuous if vacuous is not None else self.module.solve(problem, **options)

    def formulation(self, problem, **at):
        self.check(problem)
        return self.module.formulation(problem, **at)


PACKAGE_METHODS = (Exact(), Cvx(), ClosedForm(), Ccp(), FixedPoint(), Nlp(), Declared())
