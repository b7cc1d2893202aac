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

Every method, ours (:mod:`cvxpb.engine.methods.ours`) and a user's, is a :class:`Method`:
it states what it needs as data (``requires``, :mod:`cvxpb.engine.methods.requirements`),
from which its refusal is derived. A method derived for one bound subclasses
:class:`OneBoundMethod` and solves the standard form's data; a user's is registered
with :func:`cvxpb.engine.methods.register_method` and then works through ``solve``,
``methods`` and ``compare``.
"""

from __future__ import annotations

from inspect import Parameter, signature
from numbers import Real

from cvxpb.engine.declare.standard import TO_STANDARD_FORM
from cvxpb.engine.methods import requirements


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
    requires : tuple of Shape or Needs
        What it needs of a problem, as data
        (:mod:`cvxpb.engine.methods.requirements`): :meth:`refusal` is the first
        statement a problem does not meet, and the docs' tables list them.
    """

    name = ""
    handles = ""
    fallback = "declared"
    certifies = False
    statuses = ()  # unstated: a user's method may say what its statuses mean in message
    requires = ()

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
            that is missing: the first of :attr:`requires` it does not meet.
        """
        return requirements.refusal(self.requires, problem)

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


class OneBoundMethod(Method):
    """A method derived for one bound of a Gibbs risk and a divergence.

    It takes a declaration through the reduction to its standard form
    (:class:`~cvxpb.engine.declare.standard.ToStandardForm`): :meth:`solve_one` solves
    the data (:class:`~cvxpb.engine.one_bound.OneBound`) and the reduction's
    ``invert`` reports its Result as the declaration's. A standard form whose bound is
    1 at every posterior is certified at once (:func:`vacuous_result`).
    """

    fallback = "exact"

    def refusal(self, problem) -> str | None:
        return requirements.refusal((requirements.ONE_BOUND, *self.requires), problem)

    def data_refusal(self, data) -> str | None:
        """Say what the data of one bound lacks for this method, in one line.

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            A declaration's standard form.

        Returns
        -------
        str or None
            The first member of :attr:`requires` it lacks; None where it has them all.
        """
        found = (need.data_refusal(data) for need in self.requires)
        return next((why for why in found if why), None)

    def check_data(self, data) -> None:
        """Raise unless this method takes the data of one bound.

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
        vacuous = vacuous_result(problem, self.name)
        if vacuous is not None:
            return vacuous
        form = TO_STANDARD_FORM.apply(problem)
        tol = options.get("tol")
        if self.certifies and form.scale != 1 and isinstance(tol, Real) and tol > 0:
            options = {**options, "tol": tol / form.scale}  # the gap asked is the declared's
        return TO_STANDARD_FORM.invert(problem, form, self.solve_one(form.problem, **options))

    def solve_one(self, data, **options):
        """Solve the data of one bound.

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            The standard form's data, accepted.
        **options
            The method's options.

        Returns
        -------
        cvxpb.Result
            The data's Result (``data.result_from_posterior``).
        """
        raise NotImplementedError(f"method {self.name!r} does not say how it solves")

    def formulation(self, problem, **at):
        self.check(problem)
        program = self.formulate_one(TO_STANDARD_FORM.apply(problem).problem, **at)
        program.problem = problem  # the posterior maps back to the declared bound
        return program

    def formulate_one(self, data, **at):
        """Give the convex program this method solves for the data of one bound.

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            The standard form's data, accepted.
        **at
            Where the program is taken.

        Returns
        -------
        cvxpb.engine.formulation.Formulation
            The program, DCP.

        Raises
        ------
        ValueError
            For a method that solves no convex program.
        """
        return Method.formulation(self, data, **at)


def vacuous_result(problem, method: str):
    """The Result of a standard form whose bound is 1 at every posterior, or None.

    Parameters
    ----------
    problem : cvxpb.Minimize
        The problem.
    method : str
        The method asked.

    Returns
    -------
    cvxpb.Result or None
        Certified at 1 (:meth:`cvxpb.engine.one_bound.OneBound.vacuous`) where the
        problem is at least its standard form's bound (factor at least 1) and that bound
        is proven 1 everywhere; else None.
    """
    form = TO_STANDARD_FORM.apply(problem)
    if form is None or form.scale < 1 or not form.problem.vacuous():
        return None
    return TO_STANDARD_FORM.invert(problem, form, form.problem.vacuous_result(method))


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
