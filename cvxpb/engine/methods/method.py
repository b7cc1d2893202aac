"""What a method of solution is: it accepts a problem by its features, solves it, and
shows the convex program it solves.

As CVXPY's solvers accept a problem by what it holds (cones, integer variables), a
:class:`Method` looks at a problem's structure and at the members its concepts offer
(a family of optimal posteriors, a second-order cone, a CVXPY expression of the change
of measure), never at their classes: :meth:`Method.refusal` names, in one line, what
is missing. A problem is a declaration (:class:`cvxpb.Minimize`, which
:func:`cvxpb.BoundProblem` writes for one bound); the methods derived for one bound of a
Gibbs risk and a divergence take the data its standard form gives
(:class:`~cvxpb.engine.declare.standard.ToStandardForm`), the others the declaration.

A method written outside the package subclasses :class:`Method` and is registered with
:func:`cvxpb.engine.methods.register_method`; it then works through ``solve``,
``methods`` and ``compare``.
"""

from __future__ import annotations

from importlib import import_module
from inspect import Parameter, signature
from numbers import Real

from cvxpb.engine.declare.standard import TO_STANDARD_FORM


class Method:
    """A method of solution.

    Attributes
    ----------
    name : str
        The word users pass (``method="exact"``).
    handles : str
        What it solves, as a phrase for messages ("searches the divergence's family of
        optimal posteriors").
    fallback : str
        The method a refusal suggests instead.
    certifies : bool
        Whether it proves a lower bound on the minimum (the reference of ``compare``).
    statuses : tuple of str
        The statuses its Results may have, each a key of
        :data:`cvxpb.engine.result.STATUSES` (what it claims) or
        :data:`cvxpb.engine.result.STOPPED` (what stopped it).
    """

    name = ""
    handles = ""
    fallback = "declared"
    certifies = False
    statuses = ()  # unstated: a user's method may say what its statuses mean in message

    def refusal(self, problem) -> str | None:
        """Say what ``problem`` lacks for this method, in one line.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The problem.

        Returns
        -------
        str or None
            None where the method accepts the problem; else the member or the shape
            that is missing.
        """
        return None

    def accepts(self, problem) -> bool:
        """Say whether this method solves ``problem``.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The problem.

        Returns
        -------
        bool
            Whether :meth:`refusal` finds nothing missing.
        """
        return self.refusal(problem) is None

    def check(self, problem) -> None:
        """Raise unless this method accepts ``problem``.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The problem.

        Raises
        ------
        ValueError
            Saying what the method handles, what is missing and what to use instead.
        """
        self._raise(self.refusal(problem))

    def _raise(self, why: str | None) -> None:
        """Raise the one-line refusal ``why`` (nothing where it is None)."""
        if why is not None:
            raise ValueError(
                f'method="{self.name}" {self.handles}: {why}; use method="{self.fallback}"'
            )

    def solve(self, problem, **options):
        """Solve ``problem``.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The problem, accepted.
        **options
            The method's options.

        Returns
        -------
        cvxpb.Result
            The posterior, its bound rounded outward and what the method proves.
        """
        raise NotImplementedError(f"method {self.name!r} does not say how it solves")

    def __call__(self, problem, **options):
        return self.solve(problem, **options)

    def options(self) -> set | None:
        """Name the keyword options :meth:`solve` takes (None: any, passed on unchecked).

        Returns
        -------
        set of str or None
            The names.
        """
        return keywords(self.solve)

    def solver_options(self, solver, verbose: bool) -> dict:
        """Turn ``solver=`` and ``verbose=`` into options of :meth:`solve`.

        Parameters
        ----------
        solver : str or None
            A solver library's solver (None unless :meth:`calls_solver`).
        verbose : bool
            Whether the method prints its solver's log.

        Returns
        -------
        dict
            The options; none by default.
        """
        return {}

    def calls_solver(self) -> bool:
        """Say whether the method takes ``solver=`` (it calls a solver library).

        Returns
        -------
        bool
            True where :meth:`solver_options` is the method's own.
        """
        return type(self).solver_options is not Method.solver_options

    def formulation(self, problem, **at):
        """Give the convex program this method solves, as a ``cvxpy.Problem``.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The problem, accepted.
        **at
            Where the program is taken (an iterate, a weight), for the methods that
            solve a sequence of programs.

        Returns
        -------
        cvxpy.Problem
            The program, DCP.

        Raises
        ------
        ValueError
            For a method that solves no convex program, saying what it does instead.
        """
        raise ValueError(f"method {self.name!r} states no convex program")

    def __repr__(self):
        return f"<method {self.name!r}>"


class ModuleMethod(Method):
    """One of our methods, whose module is imported the first time it is asked.

    The module gives ``solve``, and where it has them ``refusal``, ``HANDLES``,
    ``FALLBACK``, ``solver_options``, ``further_options``,
    ``PASSES_OPTIONS`` and ``formulation``. Unless its ``TAKES_DECLARATIONS`` is true,
    the module solves the data of one bound alone
    (:class:`~cvxpb.engine.one_bound.OneBound`): a declaration reaches it through the
    reduction to its standard form, whose ``invert`` reports the module's Result as the
    declaration's. A standard form whose bound is 1 at every posterior
    (:meth:`cvxpb.engine.one_bound.OneBound.vacuous`) is certified at once, whatever the
    method.

    Parameters
    ----------
    name : str
        The method's word.
    module : str
        The module's name in :mod:`cvxpb.engine.methods`.
    certifies : bool
        Whether it proves a lower bound on the minimum, known without importing the
        module, so that choosing a method imports no module it does not take.
    """

    def __init__(self, name: str, module: str, certifies: bool):
        self.name, self._module_name, self._certifies = name, module, certifies
        self._options = ()  # not yet read off the module

    @property
    def module(self):
        """module: the method's module, imported on first use."""
        return import_module(f"cvxpb.engine.methods.{self._module_name}")

    @property
    def handles(self) -> str:
        return getattr(self.module, "HANDLES", "")

    @property
    def fallback(self) -> str:
        return getattr(self.module, "FALLBACK", "exact")

    @property
    def certifies(self) -> bool:
        return self._certifies

    @property
    def statuses(self) -> tuple:
        # and "optimal": a bound 1 at every posterior is certified at once by any method
        return tuple(dict.fromkeys((*self.module.STATUSES, "optimal")))

    def _declarations(self) -> bool:
        return getattr(self.module, "TAKES_DECLARATIONS", False)

    def refusal(self, problem):
        if self._declarations():
            return self.module.refusal(problem) if hasattr(self.module, "refusal") else None
        form = TO_STANDARD_FORM.apply(problem)
        if form is None:
            return (
                "the declaration is not one PAC-Bayes bound of a Gibbs risk and a divergence "
                "(c * pac_bayes(bound, gibbs_risk(q, risks), D(q)), c > 0)"
            )
        return self.data_refusal(form.problem)

    def data_refusal(self, data) -> str | None:
        """Say what the data of one bound lacks for this method, in one line.

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            A declaration's standard form.

        Returns
        -------
        str or None
            The module's ``refusal`` of it; None where it has none.
        """
        own = getattr(self.module, "refusal", None)
        return own(data) if own is not None else None

    def check_data(self, data) -> None:
        """Raise unless this method takes the data of one bound (each module's first check).

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            A declaration's standard form.

        Raises
        ------
        ValueError
            What :meth:`Method.check` says.
        """
        self._raise(self.data_refusal(data))

    def solve(self, problem, **options):
        form = TO_STANDARD_FORM.apply(problem)
        if form is not None and form.scale >= 1 and form.problem.vacuous():  # 1 everywhere
            vacuous = form.problem.vacuous_result(self.name)
            return TO_STANDARD_FORM.invert(problem, form, vacuous)
        if self._declarations():
            return self.module.solve(problem, **options)
        tol = options.get("tol")
        if self.certifies and form.scale != 1 and isinstance(tol, Real) and tol > 0:
            options = {**options, "tol": tol / form.scale}  # the gap asked is the declared's
        result = self.module.solve(form.problem, **options)
        return TO_STANDARD_FORM.invert(problem, form, result)

    def options(self):
        if self._options == ():  # read once: inspecting a signature takes 50 us
            if getattr(self.module, "PASSES_OPTIONS", False):
                self._options = None
            else:
                further = getattr(self.module, "further_options", set)
                self._options = frozenset(keywords(self.module.solve) | further())
        return self._options

    def solver_options(self, solver, verbose: bool) -> dict:
        if not hasattr(self.module, "solver_options"):
            return {}
        return self.module.solver_options(solver, bool(verbose))

    def calls_solver(self) -> bool:
        return hasattr(self.module, "solver_options")

    def formulation(self, problem, **at):
        self.check(problem)
        if hasattr(self.module, "NO_PROGRAM"):
            raise ValueError(
                f'method="{self.name}" solves no convex program: {self.module.NO_PROGRAM}'
            )
        if not hasattr(self.module, "formulation"):
            return Method.formulation(self, problem, **at)
        if self._declarations():
            return self.module.formulation(problem, **at)
        program = self.module.formulation(TO_STANDARD_FORM.apply(problem).problem, **at)
        program.problem = problem  # the posterior maps back to the declared bound
        return program


def refuse(data, name: str) -> None:
    """Raise unless the method ``name`` takes the data of one bound.

    Each module's first check, as the module may be called on the data directly.

    Parameters
    ----------
    data : cvxpb.engine.one_bound.OneBound
        A declaration's standard form.
    name : str
        The method.

    Raises
    ------
    ValueError
        What :meth:`Method.check` says.
    """
    from cvxpb.engine.methods import METHODS

    METHODS[name].check_data(data)


def keywords(function) -> set:
    """Name the parameters ``function`` takes by keyword.

    Parameters
    ----------
    function : callable
        A method's ``solve``.

    Returns
    -------
    set of str
        Its keyword parameters but ``problem`` and ``self``.
    """
    kinds = (Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY)
    parameters = signature(function).parameters
    return {name for name, p in parameters.items() if p.kind in kinds} - {"problem", "self"}
