"""``Minimize(bound)``: a declared bound, checked on construction, solved by declaration."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from cvxpb.engine.declare.ball import BallBound
from cvxpb.engine.declare.checks import check_tolerances, one_posterior
from cvxpb.engine.declare.expressions import DeclarationError, as_expression
from cvxpb.engine.declare.least import LeastOf
from cvxpb.engine.declare.local import WeightSearch
from cvxpb.engine.declare.pareto import ParetoSearch, Values
from cvxpb.engine.declare.polish import polish
from cvxpb.engine.declare.segment import SegmentSearch
from cvxpb.engine.declare.standard import TO_STANDARD_FORM
from cvxpb.engine.declare.terms import GibbsRisk
from cvxpb.engine.declare.vertices import VertexSearch
from cvxpb.engine.result import Certificate, Result, clipped_lower
from cvxpb.engine.solvable import Solvable
from cvxpb.numerics.tolerances import gap_goal
from cvxpb.threads import one_blas_thread
from cvxpb.validation import check_distribution, real_array

ALLOWED = {+1: ("affine", "convex"), -1: ("affine", "concave")}
CCP_ROUNDS = 20  # rounds of the convex-concave procedure at most
TIGHTEN_ROUNDS = 1  # searches with minorants made tight at the best posterior, at most


@dataclasses.dataclass(frozen=True)
class Found:
    """What the declared search found (:meth:`Minimize.search`).

    Parameters
    ----------
    value : float
        The declared formula at ``q``, rounded up (above 1 where it is vacuous).
    q : ndarray
        The best posterior.
    lower : float
        A proven lower bound on the minimum.
    solves : int
        The scalarized programs solved.
    mu : float or None
        The weight of the second term in ``min A + mu B`` at ``q`` (two terms).
    local : bool
        Whether the search proves no global minimum where a gap remains (three or
        more terms searched locally, or a quadratic form through its minorant).
    seconds : float
        Wall-clock time.
    terms : int
        The declaration's terms.
    method : str
        The method that searched (``declared``, or the search it was asked for).
    steps : str
        What ``solves`` counts.
    """

    value: float
    q: np.ndarray
    lower: float
    solves: int
    mu: float | None
    local: bool
    seconds: float
    terms: int
    method: str = "declared"
    steps: str = "scalarized programs"


class Minimize(Solvable):
    """The least value of a declared bound over the posterior.

    ``bound`` is built from posterior terms (:func:`cvxpb.gibbs_risk`,
    :func:`cvxpb.tandem_risk`, :func:`cvxpb.disagreement`, :func:`cvxpb.KL`,
    :func:`cvxpb.chi2`, :func:`cvxpb.renyi`) with the atoms of
    :mod:`cvxpb.engine.declare.expressions`. It must be monotone in each term: increasing in
    convex terms, decreasing in concave ones (a :class:`DeclarationError` says which
    atom or term breaks it). The general search (``method="declared"``) finds the global
    minimum with a certificate for one or two terms (:mod:`cvxpb.engine.declare.pareto`)
    and for more where the bound is proven concave in them
    (:mod:`cvxpb.engine.declare.vertices`); else :mod:`cvxpb.engine.declare.local` finds a
    local one and says so (status ``"local"``). A quadratic form against its curvature,
    or given as pairwise estimates, is accepted too: its convex minorant proves the
    lower bound and the convex-concave procedure improves the posterior (status
    ``"local"`` where a gap remains). A declaration of one bound of a Gibbs risk and a
    divergence (:meth:`standard_form`) is solved by ``method="exact"`` by default; every
    method that accepts a declaration is in :meth:`methods`.

    A tuple (or list) of declared bounds is the least of them, a union bound over a
    grid: ``Minimize`` of it minimizes each and takes the least minimum
    (:class:`cvxpb.engine.declare.least.LeastOf`).

    Parameters
    ----------
    bound : Expression or tuple of Expression
        The declared bound; a :class:`DeclarationError` if it breaks the rule, or if
        its terms do not share one :class:`cvxpb.Posterior`.
    """

    def __new__(cls, bound):
        if isinstance(bound, (tuple, list)):  # another object, so no __init__ follows
            return LeastOf([Minimize(part) for part in bound])
        return super().__new__(cls)

    def __init__(self, bound):
        self.bound = as_expression(bound)
        self.signs = _signs(self.bound)
        self.posterior = one_posterior([t.posterior for t in self.signs], "term of a bound")
        self.terms = sorted(self.signs, key=lambda t: (t.divergence, t.name))
        self._segment_proves_nothing = False  # set once a segment search proved nothing
        self._segment_best = None  # that search's best posterior

    def __repr__(self):
        return f"Minimize({self.bound!r})"

    def value_at(self, q) -> float:
        """Evaluate the bound at the posterior ``q``, rounded up.

        Parameters
        ----------
        q : array_like of shape (H,)
            Weights over the voters (a distribution).

        Returns
        -------
        float
            The bound at ``q``, a valid upper bound on a risk: at most 1 (the trivial
            bound, where the formula is above it).

        Raises
        ------
        ValueError
            Where the formula is below 0 or not a number at ``q``: its statistics
            contradict each other there (see :meth:`solve`).
        """
        one = self._one_bound()
        if one is not None:  # as the methods of its standard form evaluate it
            return one.evaluate(q)
        q = check_distribution(real_array(q, "q"), self.posterior.size, "q")
        return min(_checked(self._value(q), "q"), 1.0)

    def _one_bound(self):
        """The data of this declaration's standard form where it is the bound itself
        (scale 1), which evaluates and reports it as its methods do; else None."""
        form = self.standard_form()
        return form.problem if form is not None and form.scale == 1 else None

    def _value(self, q) -> float:
        """The declared formula at ``q``, rounded up (above 1 where it is vacuous)."""
        return float(self.bound.evaluate(Values(q), +1))

    def scalarized(self, weights=None):
        """The convex program the search solves at given weights of the terms.

        ``min sum_t w_t t(q)`` over the simplex, with the terms in the order of
        :attr:`terms`, each oriented (a term the bound decreases in enters negated) and a
        quadratic form against its curvature by its convex minorant. With two terms and
        ``weights=(1, mu)`` it is the Pareto search's program at ``mu``; with more, the
        vertex and weight searches' at those weights. Newton's method solves it where
        the terms are quadratic but for one KL; a conic solver solves it as returned.

        Parameters
        ----------
        weights : sequence of float, optional
            One weight (at least 0) per term; 1 for each by default.

        Returns
        -------
        cvxpy.Problem
            The program, DCP; its variable is ``problem.variables()[0]``.

        Examples
        --------
        >>> import numpy as np, cvxpb as pb
        >>> q = pb.Posterior.uniform(3)
        >>> bound = pb.kl_inverse(pb.gibbs_risk(q, [0.1, 0.2, 0.3]), (pb.KL(q) + 3) / 100)
        >>> program = pb.Minimize(bound).scalarized([1.0, 0.05])
        >>> program.is_dcp(), round(float(program.solve(solver="CLARABEL")), 4)
        (True, 0.1478)
        """
        weights = np.ones(len(self.terms)) if weights is None else real_array(weights, "weights")
        if weights.shape != (len(self.terms),) or not np.all(weights >= 0):
            raise ValueError(
                f"weights must hold {len(self.terms)} numbers at least 0 (one per term: "
                f"{', '.join(t.name for t in self.terms)}), got {weights!r}"
            )
        search = ParetoSearch(self.bound, self.terms, self.signs)
        return search.program(list(zip(self.terms, weights.tolist(), strict=True)))[0]

    def supporting_weights(self, q) -> np.ndarray:
        """Give the bound's slopes in its oriented terms at ``q``.

        At these weights :meth:`scalarized` is the bound's linearization at ``q``. A
        minimizer of the bound over the convex set its terms reach satisfies the
        first-order condition, so it minimizes the terms weighted by these slopes.

        Parameters
        ----------
        q : array_like
            A posterior over the voters.

        Returns
        -------
        ndarray
            One weight per term, at least 0, in the order of :attr:`terms`.
        """
        q = check_distribution(real_array(q, "q"), self.posterior.size, "q")
        return ParetoSearch(self.bound, self.terms, self.signs).slopes(q, self.terms)

    def explain(self) -> str:
        """Explain the declaration: its terms, the composition rule and the method.

        Where the declaration has a standard form, that form's account follows: the
        bound's terms as CVXPY sees them, the DCP verdict and the cones
        (:func:`cvxpb.engine.explain.explain`).

        Returns
        -------
        str
            Each term with its curvature and the direction the bound takes in it, the
            verdict of the composition rule, and the method ``solve`` will use.
        """
        lines = [f"minimize {self.bound!r}", "terms:"]
        for term in self.terms:
            sign = self.signs[term]
            direction = "increasing" if sign > 0 else "decreasing"
            lines.append(f"  {term.name}: {term.curvature} in q; the bound is {direction} in it")
            minorant = term.minorant(sign)
            if minorant is not None:
                factored = term.factor_source is not None
                what = "against its curvature" if factored else "pairwise estimates"
                lines.append(
                    f"    a quadratic form ({what}): its convex minorant on the simplex (short "
                    f"by at most {-minorant.lam:.3g} (1 - |q|^2)) proves the lower bound, the "
                    "convex-concave procedure (tangent majorants) improves the posterior, and "
                    "where a gap remains the minorant is made tight at the best posterior (a "
                    "non-negative part of the matrix taken out first) and the search rerun"
                    + self._loan_note(term)
                )
        lines.append(
            "rule: monotone in each term, increasing in convex, decreasing in concave "
            "(quadratic forms either way, through their convex minorant): OK"
        )
        lines.append(f"method: {self._method_note()}")
        form = self.standard_form()
        if form is not None:  # the methods derived for one bound take it too
            from cvxpb.engine.explain import explain
            from cvxpb.engine.methods import default_method

            lines += [
                f"standard form: {form.scale:g} x one bound of the Gibbs risk and a "
                f"divergence; solve() takes method {default_method(self, {})!r} by "
                "default (method='declared' is the search above), and these methods "
                "accept it: " + ", ".join(self.methods()),
                *(f"  {line}".rstrip() for line in explain(form.problem).splitlines()),
            ]
        return "\n".join(lines)

    def _loan_note(self, term) -> str:
        """How much of a divergence's weight lets ``term`` into the programs as it is
        (the weight :func:`cvxpb.engine.declare.loan.loan` lends it, per unit of its own)."""
        for lender in self.terms:
            lends = lender.least_curvature(+1) if self.signs[lender] > 0 else None
            if lender is not term and lends and lends > 0:
                ratio = -term.least_curvature(self.signs[term]) / lends
                return (
                    f"; a program whose weight of {lender.name} is at least {ratio:.3g} times "
                    f"this form's is convex with the form itself, which it then takes "
                    f"({lender.name} lends its curvature; see cvxpb.engine.declare.loan)"
                )
        return ""

    def _certified_note(self) -> str:
        """What a certified search proves: a global minimum, or, where a quadratic form
        enters through its convex minorant, a lower bound that may leave a gap."""
        if all(t.minorant(self.signs[t]) is None for t in self.terms):
            return "a certified global minimum"
        return (
            "a proven lower bound; a certified global minimum where the quadratic forms' "
            "minorants or KL's lent curvature close the gap, else status 'local' with the "
            "gap in the certificate"
        )

    def _method_note(self) -> str:
        n = len(self.terms)
        if n == 0:
            return "none: the bound does not depend on the posterior"
        if n == 1:
            return "one convex program in q (its dual bound certifies the minimum)"
        if n == 2:
            return (
                "Pareto branch and bound over mu in min A + mu B ("
                + self._certified_note()
                + "; see cvxpb.engine.declare.pareto)"
            )
        search = VertexSearch(self.bound, self.terms, self.signs)
        if search.certifiable():
            shape = search.curvature.replace("quasi", "quasi-")
            return (
                f"{n} terms, the bound {shape} in them on their box: cuts at weights of "
                "the scalarization and the least vertex of the outer polytope ("
                + self._certified_note()
                + "; see cvxpb.engine.declare.vertices)"
            )
        return (
            f"{n} terms, the bound not proven concave in them: a local search over the "
            "weights of the scalarization; the status is 'local' (the bound holds at the "
            "posterior returned; its lower bound is the bound at the terms' separate "
            "minima; see cvxpb.engine.declare.local)"
        )

    @one_blas_thread
    def solve(
        self, method: str | None = None, *, solver: str | None = None, verbose=False, **options
    ) -> Result:
        """Minimize the bound by ``method``, the best that accepts it by default.

        Parameters
        ----------
        method : str, optional
            One of :meth:`methods`; by default the first method that certifies its
            minimum, accepts this declaration and takes the options given
            (:func:`cvxpb.engine.methods.default_method`): ``exact`` for one bound of a
            Gibbs risk and a divergence with a family of optimal posteriors (the
            first-order bound, say), else ``declared``, the general search
            (:meth:`search`).
        solver : str, optional
            The solver library's solver, for the methods that call one (``declared``:
            CVXPY's solver for the scalarized programs without a closed form).
        verbose : bool, default=False
            Print the solver's log, where the method calls one, and a closing line.
        **options
            The method's own options; ``declared`` takes those of :meth:`search`
            (``tol``, ``max_solves``, ``tighten``, ``rtol``, ``cutoff``).

        Returns
        -------
        Result
            The posterior, its bound (the declared formula at it, rounded outward, at
            most 1) and what the method proves; for ``declared`` the certificate's
            ``lower_bound`` is proven and the status is ``"optimal"`` when the gap is
            within ``tol`` (and within ``rtol`` times the bound, where given), else
            ``"optimal_inaccurate"``, or ``"local"`` (a true bound at the posterior
            returned, not proven least) for three or more terms, or where the convex
            minorant of a quadratic form leaves a gap.

        Raises
        ------
        ValueError
            For an unknown method or option, a method that refuses the declaration
            (saying what it lacks), or a formula below 0 or not a number at the prior.
        """
        from cvxpb.engine.methods import run

        return run(self, method, solver, verbose, options)

    def kkt_residual(self, q) -> float:
        """Measure how far ``q`` is from a KKT point of the bound on the simplex.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        float
            That of the standard form's bound, times its scale
            (:meth:`cvxpb.engine.one_bound.OneBound.kkt_residual`); NaN for a declaration of any
            other shape, whose terms need not be differentiable.
        """
        form = self.standard_form()
        return np.nan if form is None else form.scale * form.problem.kkt_residual(q)

    def declared(self) -> Minimize:
        """Give the declaration the general search takes: this one.

        Returns
        -------
        Minimize
            ``self``.
        """
        return self

    def standard_form(self):
        """Give the declaration as the methods derived for one bound take it, if it is one.

        That is ``c * pac_bayes(bound, gibbs_risk(q, risks), D)`` with ``c > 0`` and ``D``
        the bound's argument of one divergence term of ``q`` (the first-order bound,
        or :func:`cvxpb.BoundProblem`): the reduction
        :class:`~cvxpb.engine.declare.standard.ToStandardForm` applied.

        Returns
        -------
        cvxpb.engine.declare.standard.StandardForm or None
            ``c`` and the :class:`~cvxpb.engine.one_bound.OneBound` of that bound; None
            for any other declaration (only ``declared`` then accepts it).
        """
        return TO_STANDARD_FORM.apply(self)

    def use_standard_form(self, form) -> None:
        """Take ``form`` as this declaration's standard form, instead of recognizing one.

        :func:`cvxpb.BoundProblem` gives the data it declares, so that no recognition
        rebuilds it.

        Parameters
        ----------
        form : cvxpb.engine.declare.standard.StandardForm
            The scale and the data; its bound must be this declaration's.
        """
        self._standard = form

    def result_from_posterior(self, q, certificate=None, **fields) -> Result:
        """Build the Result at the posterior ``q``: the declared formula there, rounded up.

        Parameters
        ----------
        q : array_like of shape (H,)
            A distribution over the voters.
        certificate : Certificate, optional
            A proven lower bound, clipped at 1 as the bound is, its gap taken against
            the bound.
        **fields
            The Result's other fields (method, status, seconds, iterations, ...).

        Returns
        -------
        Result
            With each term's value at ``q`` by name; the bound at most 1 (the formula
            in ``unclipped_bound`` where it is above).

        Raises
        ------
        ValueError
            Where the formula is below 0 or not a number at ``q``.
        """
        one = self._one_bound()
        if one is not None and certificate is None:  # as the methods of its standard form
            return one.result_from_posterior(q, **fields)
        q = check_distribution(real_array(q, "q"), self.posterior.size, "q")
        value = _checked(self._value(q), "the posterior found")
        bound = min(value, 1.0)
        if certificate is not None:
            lower = clipped_lower(certificate.lower_bound)
            certificate = dataclasses.replace(certificate, lower_bound=lower, gap=bound - lower)
        values = {t.name: t.value(q) for t in self.terms}
        risk, divergence = _named(self.terms)
        return Result.from_terms(
            bound,
            q,
            values,
            risk,
            divergence,
            certificate=certificate,
            unclipped_bound=value if value > 1 else None,
            **fields,
        )

    def search(
        self,
        tol: float = 1e-7,
        max_solves: int = 300,
        solver: str = "CLARABEL",
        tighten: bool = True,
        rtol: float | None = None,
        cutoff: float | None = None,
        kind: str | None = None,
    ) -> Found:
        """Search the bound's minimum, with a proven lower bound (``method="declared"``).

        Parameters
        ----------
        tol : float, default=1e-7
            The absolute gap between the bound at the posterior returned (rounded
            outward) and the proven lower bound at which the search stops.
        max_solves : int, default=300
            The scalarized programs at most (at least the 21 first ones).
        solver : str, default="CLARABEL"
            CVXPY's solver for the scalarized programs that have no closed form.
        tighten : bool, default=True
            Where a quadratic form's minorant leaves a gap in a certified search (two
            terms, or the vertex search), search once more with the minorant made
            tight at the best posterior (:mod:`cvxpb.engine.declare.dnn`). The weight
            search's lower bound (the bound at the terms' separate minima) gains little
            from it for the cost of a second search, so it is left out there.
        rtol : float, optional
            The gap relative to the bound: where given, a certified search stops only
            once the gap is within ``rtol`` times the bound as well as within ``tol``
            (a bound near 0.01 with ``rtol=1e-6`` is searched to a gap of 1e-8); None
            or ``inf`` for ``tol`` alone.
        cutoff : float, optional
            A value found elsewhere (another part of a union bound): the search stops
            once its proven lower bound is above it, as the minimum then is too, and
            the posterior is not improved further; the status says what the gap
            proves, as always.
        kind : {"vertex", "weight"}, optional
            The search asked for (its method of :mod:`cvxpb.engine.methods.searches`);
            by default the Pareto search for one or two terms, the vertex search for
            more where the bound is proven concave in them, else the weight search.
            ``"weight"`` runs the local weight search where the vertex search would
            certify; ``"vertex"`` is what the default picks where it applies.

        Returns
        -------
        Found
            The best posterior, the declared formula at it, the proven lower bound and
            what the search was (:meth:`report_search` makes the Result of it).
        """
        check_tolerances(tol, rtol, max_solves, cutoff)
        n = len(self.terms)
        if n == 0:
            value = _checked(float(self.bound.evaluate(Values(), +1)), "the bound")
            return Found(value, np.array([]), value, 0, None, False, 0.0, n)
        _checked(self._value(self.posterior.prior), "the prior")  # before any work
        start = time.perf_counter()
        vertex = kind != "weight"  # the weight search where asked, else the certified one
        how = {"rtol": rtol, "cutoff": cutoff, "vertex": vertex}
        best, lower, search = self._search(n, tol, max_solves, solver, **how)
        if self._segment_best is not None and self._segment_best.value < best.value:
            best = self._segment_best  # no posterior found on the segment is lost
        on_segment = isinstance(search, SegmentSearch)
        certified = n <= 2 or isinstance(search, (VertexSearch, SegmentSearch))
        solves = len(search.solved)
        relaxed = [t for t in self.terms if search.convex[t] is not None]

        def open_gap():
            above = cutoff is not None and lower > cutoff
            return not above and best.value - lower > gap_goal(tol, rtol, best.value)

        if relaxed and open_gap():
            best, more = self._convex_concave(best, relaxed, n, tol, max_solves, solver, search)
            solves += more
        if tighten and relaxed and certified and open_gap():
            earlier = search if n == 2 else None
            best, lower, more = self._tighten(
                best, lower, relaxed, n, tol, max_solves, solver, earlier, rtol, vertex
            )
            solves += more
        local = not certified or bool(relaxed)
        if local:
            best = self._polished(best, search, tol)
        if open_gap() and BallBound.applies(self.terms, self.signs):
            goal = best.value - gap_goal(tol, rtol, best.value)
            lower = max(lower, BallBound(self.bound, self.terms, self.signs).lower(goal))
        _checked(best.value, "the posterior found")
        # the weight of the second term in min A + mu B
        mu = best.mu if n == 2 and not on_segment else None
        seconds = time.perf_counter() - start
        steps = "posteriors on the segment" if on_segment else "scalarized programs"
        how = (mu, local, seconds, n, kind or "declared", steps)
        return Found(best.value, best.q, lower, solves, *how)

    def _polished(self, best, search, tol):
        """``best`` moved by mirror descent on the bound where that lowers it, rounded
        up (:mod:`cvxpb.engine.declare.polish`): a local search's posterior polished."""

        def gradient(q):
            slopes = search.slopes(q, self.terms)
            pairs = zip(slopes, self.terms, strict=True)
            parts = [s * self.signs[t] * t.gradient(q) for s, t in pairs]
            with np.errstate(invalid="ignore"):  # 0 * -inf off the support: not used
                return np.sum(parts, axis=0)

        q = polish(lambda q: float(self.bound.evaluate(Values(q), 0)), gradient, best.q, tol)
        value = self._value(q)
        return dataclasses.replace(best, q=q, value=value) if value < best.value else best

    def report_search(self, found: Found, tol: float = 1e-7, rtol=None) -> Result:
        """Make the Result of what :meth:`search` found.

        Parameters
        ----------
        found : Found
            The search's.
        tol, rtol : float
            The gap asked, absolute and relative (:meth:`search`).

        Returns
        -------
        Result
            ``status="optimal"`` when the gap is within the goal, else ``"local"`` where
            the search proves no global minimum or no finite lower bound, else
            ``"optimal_inaccurate"``; the certificate's ``lower_bound`` is proven either
            way.
        """
        if found.terms == 0:
            return _constant_result(found.value)
        form = self.standard_form()
        if form is not None and form.scale == 1:  # reported as its methods report it
            return form.problem.report_search(found, tol, rtol)
        parameter = "mu" if found.mu is not None else None  # one program, or several weights
        result = self.result_from_posterior(  # the formula at the posterior, as value_at
            found.q,
            certificate=Certificate(parameter, found.mu, None, found.lower, 0.0),
            method=found.method,
            status="optimal",
            seconds=found.seconds,
            iterations=found.solves,
        )
        gap = result.certificate.gap
        optimal = gap <= gap_goal(tol, rtol, result.bound)
        proven = bool(np.isfinite(found.lower))
        local = found.local or not proven
        status = "optimal" if optimal else "local" if local else "optimal_inaccurate"
        gap_note = f"certified gap {gap:.3g}" if proven else "no finite lower bound proven"
        message = f"{found.solves} {found.steps}; {gap_note}"
        return dataclasses.replace(result, status=status, message=message)

    def _search(
        self,
        n,
        tol,
        max_solves,
        solver,
        replace=None,
        certify=True,
        begin=(),
        minorants=None,
        earlier=None,
        rtol=None,
        cutoff=None,
        vertex=True,
    ):
        """``(best, lower, search)``: on two voters the segment search where it proves a
        finite lower bound (three or more terms, or a term through its minorant,
        :mod:`cvxpb.engine.declare.segment`), else the Pareto search (one or two
        terms), the vertex search (more, where the bound is concave in them, unless
        ``vertex`` is false) or the weight search (else),
        through ``replace``'s majorants and ``minorants`` if given. Without ``certify``
        (a round of the convex-concave procedure, which needs a posterior, not a proof)
        the weight search stands in for the vertex search; it begins at the log-weights
        ``begin`` where given (the last round's), else on its grid; a Pareto search
        begins at the ``mu`` in ``begin`` where given (the last round's near its best).
        A Pareto search goes on from ``earlier``'s programs where given. A certified
        search stops at ``rtol`` times the bound as well as ``tol`` where ``rtol`` is
        given, and once its lower bound is above ``cutoff`` where that is given."""
        if certify and vertex and self._on_segment():
            search = SegmentSearch(self.bound, self.terms, self.signs)
            best, lower, _ = search.run(tol, rtol, cutoff)
            if lower > -np.inf:
                return best, lower, search
            self._segment_proves_nothing = True  # not tried again (a tightening's search)
            self._segment_best = best  # its best posterior, which search() keeps if least
        how = (self.bound, self.terms, self.signs, solver, replace, minorants)
        if n > 2 and certify and vertex:
            search = VertexSearch(*how)
            if search.certifiable():
                best, lower, _ = search.run(tol, max_solves, rtol, cutoff)
                return best, lower, search
        if n > 2:
            search = WeightSearch(*how)
            best, lower, _ = search.run(tol, max_solves, begin, cutoff)
            return best, lower, search
        search = ParetoSearch(*how)
        if n == 1:
            best, lower, _ = search.run_single()
        else:
            best, lower, _ = search.run(tol, max_solves, earlier, begin or None, rtol, cutoff)
        return best, lower, search

    def _on_segment(self) -> bool:
        """Whether the segment search certifies what the others may not: two voters,
        and three or more terms or a term through its minorant."""
        if self._segment_proves_nothing:
            return False
        if not SegmentSearch.applies(self.posterior, self.terms, self.signs):
            return False
        relaxed = any(t.minorant(self.signs[t]) is not None for t in self.terms)
        return len(self.terms) > 2 or relaxed

    def _convex_concave(self, best, relaxed, n, tol, max_solves, solver, earlier=None):
        """The convex-concave procedure from ``best``: each round replaces the
        ``relaxed`` terms by their convex majorants touching them at the current
        posterior (:class:`cvxpb.engine.declare.quadratic.TangentMajorant`) and solves that bound
        globally; the true bound at its minimizer is at most the majorized one, which is
        at most the current value. Rounds go on while the bound falls by more than a
        tenth of ``tol`` (at most ``CCP_ROUNDS``); with two terms each round's search begins at
        the ``mu`` near the best posterior of the search before (``earlier``'s first),
        as the majorants change little from round to round. Returns the best posterior
        and the programs."""
        solves = 0
        for _ in range(CCP_ROUNDS):
            replace = {t: t.majorant(self.signs[t], best.q) for t in relaxed}
            # where the last round ended: its log-weights (a weight search) or its mu
            begin = earlier.mus_near_best() if n == 2 and earlier else best.log_weights
            # a tenth of tol: the round's minimizer, not a certificate, is what counts
            how = (n, tol / 10, max_solves, solver, replace, False, begin)
            candidate, _, search = self._search(*how)
            earlier = search
            solves += len(search.solved)
            value = self._value(candidate.q)
            if not value < best.value - tol / 10:
                break
            best = dataclasses.replace(candidate, value=value)
        return best, solves

    def _tighten(
        self, best, lower, relaxed, n, tol, max_solves, solver, earlier=None, rtol=None, vertex=True
    ):
        """The search again with the ``relaxed`` forms' minorants made tight at the best
        posterior (a non-negative part taken out before the shift,
        :mod:`cvxpb.engine.declare.dnn`), for ``TIGHTEN_ROUNDS`` rounds at most while
        the gap is above ``tol`` (or ``rtol`` times the bound) and the lower bound
        rises; a Pareto search goes on from the ``earlier`` one's programs. Returns the
        best posterior, the greater lower bound and the programs."""
        solves = 0
        for _ in range(TIGHTEN_ROUNDS):
            minorants = {t: t.minorant(self.signs[t], at=best.q) for t in relaxed}
            found, tighter, search = self._search(
                n,
                tol,
                max_solves,
                solver,
                minorants=minorants,
                earlier=earlier,
                rtol=rtol,
                vertex=vertex,
            )
            earlier = search if earlier is not None else None
            solves += len(search.solved)
            best = min(best, found, key=lambda s: s.value)
            if not tighter > lower:
                break
            lower = tighter
            if best.value - lower <= gap_goal(tol, rtol, best.value):
                break
        return best, lower, solves


def _signs(bound) -> dict:
    signs = {}
    for term, found in bound.leaves().items():
        if len(found) > 1:
            raise DeclarationError(
                f"the bound increases in {term!r} in one place and decreases in it in another; "
                "it must be monotone in every posterior term"
            )
        sign = next(iter(found))
        if term.curvature not in ALLOWED[sign] and term.minorant(sign) is None:
            direction = "increasing" if sign > 0 else "decreasing"
            need = "convex" if sign > 0 else "concave"
            raise DeclarationError(
                f"the bound is {direction} in {term!r}, which is {term.curvature}; a bound "
                f"{direction} in a term needs it {need} (or affine, or a quadratic form)"
            )
        signs[term] = sign
    return signs


def _named(terms) -> tuple:
    """The names of the declaration's one Gibbs risk and one divergence (None where it
    has none or several), which a Result reports as ``empirical_risk`` and
    ``divergence``."""
    risks = [t.name for t in terms if isinstance(t, GibbsRisk)]
    divergences = [t.name for t in terms if t.divergence]
    return (
        risks[0] if len(risks) == 1 else None,
        divergences[0] if len(divergences) == 1 else None,
    )


def _checked(value: float, where: str) -> float:
    """``value``, a declared bound's formula, where it can be a bound on a risk: a
    ValueError where it is below 0 or not a number."""
    if not value >= 0:
        raise ValueError(
            f"the declared bound is {value:.6g} at {where}, which no bound on a risk can "
            "be: its statistics contradict each other (for the C-bound and DIS, a "
            "disagreement above what the Gibbs risks allow two-class votes, as rates "
            "measured on different samples or votes of more than two classes can give), "
            "or the declaration is not a bound on a risk; no bound is reported"
        )
    return value


def _constant_result(value) -> Result:
    """The Result of a bound that does not depend on the posterior: its value, at most 1
    (``unclipped_bound`` keeps a larger one), exact as it is."""
    return Result.from_terms(
        min(value, 1.0),
        np.array([]),
        {},
        None,
        None,
        status="optimal",
        method="declared",
        seconds=0.0,
        iterations=0,
        message="0 scalarized programs; certified gap 0",
        unclipped_bound=value if value > 1 else None,
    )
