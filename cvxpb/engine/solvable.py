"""What every problem offers: the methods that accept it, all of them side by side, and
the convex program each solves (:class:`cvxpb.Minimize` and the least of several, through
the one registry of :mod:`cvxpb.engine.methods`)."""

from __future__ import annotations

from cvxpb.engine.result import failed_result
from cvxpb.threads import one_blas_thread
from cvxpb.validation import check_choice


class Solvable:
    """A problem the registry's methods solve.

    What a method (:class:`cvxpb.engine.methods.method.Method`) may call on the problem
    it is given (a :class:`cvxpb.Minimize`, or the least of several):

    * ``declared()``: the problem as a :class:`cvxpb.Minimize` (itself, for one), whose
      ``bound``, ``terms``, ``signs`` and ``posterior`` (its ``prior``) state it;
    * ``value_at(q)``: the bound at a posterior, rounded up, clipped at 1;
    * ``result_from_posterior(q, method=, status=, seconds=, iterations=, ...)``: the
      :class:`cvxpb.Result` of a posterior, its bound re-evaluated (a solver's objective
      is never the bound reported), ``status`` one of the method's ``statuses``;
    * ``failed_result(method, status, message, seconds)``: the Result of a method that
      found no posterior (bound NaN, the solver's words in ``message``);
    * ``standard_form()``: the one PAC-Bayes bound it is, where it is one (else None):
      its factor ``scale`` and its data ``problem``
      (:class:`cvxpb.engine.one_bound.OneBound`).
    """

    def failed_result(self, method: str, status: str, message: str, seconds: float, **fields):
        """Build the Result of a solve that produced no posterior.

        :func:`cvxpb.engine.result.failed_result` over this problem's voters.

        Parameters
        ----------
        method, status, message : str
            What ran, how it ended and the solver's own words.
        seconds : float
            Wall-clock time.
        **fields
            The Result's other fields.

        Returns
        -------
        Result
            With bound, posterior and the terms' values NaN.
        """
        size = self.declared().posterior.size
        return failed_result(size, method, status, message, seconds, **fields)

    def methods(self) -> list[str]:
        """List the methods that accept this problem, in the order :meth:`compare` runs them.

        Returns
        -------
        list of str
            Names of :data:`cvxpb.engine.methods.METHODS` (``declared`` always;
            :func:`cvxpb.engine.methods.refusals` says why the others refuse).
        """
        from cvxpb.engine.methods import applicable

        return applicable(self)

    @one_blas_thread
    def compare(self, methods=None, options: dict | None = None):
        """Run every method that accepts this problem side by side.

        Parameters
        ----------
        methods : sequence of str, optional
            Default: every method of :meth:`methods`.
        options : dict, optional
            Keyword arguments per method, e.g. ``{"nlp": {"max_seconds": 30}}``.

        Returns
        -------
        cvxpb.engine.compare.Comparison
            One row per method, against the certified optimum
            (:func:`cvxpb.engine.compare.compare`).
        """
        from cvxpb.engine.compare import compare

        return compare(self, methods, options)

    def formulation(self, method: str | None = None, **at):
        """Give the convex program ``method`` solves, as a CVXPY problem.

        Parameters
        ----------
        method : str, optional
            A method of :meth:`methods`; by default the one ``solve(method=None)`` runs
            (:func:`cvxpb.engine.methods.default_method`). ``cvx``
            and ``closed_form`` give the SOCP (the linear-distance chi2 bound, eq. 8,
            with parameters: DPP); ``ccp`` its subproblem at an iterate (``at=``);
            ``exact`` the program at ``mu=`` whose minimizers its family traces;
            ``declared`` the scalarized program at ``weights=``
            (:meth:`cvxpb.Minimize.scalarized`). A declaration reaches the methods
            derived for one bound through its standard form (a positive factor of the
            bound does not move its minimizers).
        **at
            Where the program is taken, as the method states it; by default at the
            method's own optimum (the problem is solved first), where the program's
            minimizer is the method's posterior.

        Returns
        -------
        cvxpb.engine.formulation.Formulation
            The program, DCP: a ``cvxpy.Problem`` whose ``bound()``, once it is solved,
            maps its minimizer back to the bound (the program's own value is a weighted
            sum or an epigraph, not the bound).

        Raises
        ------
        ValueError
            For a method that refuses the problem, or one that solves no convex
            program (``fixed_point``, ``nlp``), saying what it does instead.
        """
        from cvxpb.engine.methods import METHODS, default_method

        method = default_method(self, {}) if method is None else method
        check_choice(method, "method", METHODS)
        return METHODS[method].formulation(self, **at)
