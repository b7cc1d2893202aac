"""``Minimize((bound_1, bound_2, ...))``: the least of several declared bounds.

A union bound over a grid (the shifts ``mu`` of the Chebyshev-Cantelli bounds, the
grid of unexpected Bernstein) holds at every grid point at once, so its value at a
posterior is the least of the parts' values there, and its minimum over the posterior
the least of the parts' minima. Each part is minimized on its own (a sum of their
searches, not one search over every part's terms), and the certificate combines
theirs: the least of the parts' lower bounds is a lower bound on the least minimum, as
each part's minimum is at least its own.
"""

from __future__ import annotations

import dataclasses
import math
import time

from cvxpb.engine.declare.checks import check_tolerances, one_posterior
from cvxpb.engine.declare.expressions import DeclarationError
from cvxpb.engine.solvable import Solvable
from cvxpb.numerics.tolerances import gap_goal
from cvxpb.threads import one_blas_thread

STATUS_STRENGTH = ("local", "optimal_inaccurate", "optimal")  # weakest first


class LeastOf(Solvable):
    """The least of several declared bounds over one posterior (``Minimize`` of a tuple).

    Built by ``Minimize`` from a tuple of declarations, one ``Minimize`` per part.

    Parameters
    ----------
    parts : list of Minimize
        The parts' problems, all of the same :class:`cvxpb.Posterior`.

    Examples
    --------
    >>> import numpy as np, cvxpb as pb
    >>> from cvxpb.ensemble import bounds as mv
    >>> errors = (np.random.default_rng(0).random((400, 4)) < 0.2).astype(float)
    >>> q = pb.Posterior.uniform(4)
    >>> declared = mv.chebyshev_cantelli_tnd(q, errors.mean(0), 400, errors)
    >>> problem = pb.Minimize(declared)  # both signs of mu
    >>> res = problem.solve()
    >>> res.status, res.bound == min(pb.Minimize(d).solve().bound for d in declared)
    ('optimal', True)
    """

    def __init__(self, parts):
        if len(parts) == 0:
            raise DeclarationError("the least of no bounds: give at least one declaration")
        self.parts = list(parts)
        self.posterior = one_posterior([p.posterior for p in self.parts], "bound of a tuple")
        self.signs = {t: s for part in self.parts for t, s in part.signs.items()}
        self.terms = sorted(self.signs, key=lambda t: (t.divergence, t.name))

    def value_at(self, q) -> float:
        """The least of the parts' values at the posterior ``q``, each rounded up.

        Parameters
        ----------
        q : array_like of shape (H,)
            A distribution over the voters.

        Returns
        -------
        float
            A valid upper bound.
        """
        return min(part.value_at(q) for part in self.parts)

    def explain(self) -> str:
        """Explain each part's declaration and how their minima combine.

        Returns
        -------
        str
            The parts' own explanations, after a line on the union bound.
        """
        lines = [
            f"minimize the least of {len(self.parts)} declared bounds (a union bound): "
            "each is minimized on its own, the least minimum is the bound, and the least "
            "of their certified lower bounds proves it"
        ]
        for k, part in enumerate(self.parts):
            lines.append(f"part {k}:")
            lines += ["  " + line for line in part.explain().splitlines()]
        return "\n".join(lines)

    def standard_form(self):
        """Give no standard form: the least of several bounds is not one bound.

        Returns
        -------
        None
            The methods derived for one bound refuse it.
        """
        return None

    def declared(self) -> LeastOf:
        """Give the declaration the general search takes: this one.

        Returns
        -------
        LeastOf
            ``self``.
        """
        return self

    def scalarized(self, weights=None):
        """Refuse: each part has its scalarized programs, the union none of its own.

        Parameters
        ----------
        weights : sequence of float, optional
            Unused.

        Raises
        ------
        ValueError
            Pointing at the parts' programs.
        """
        raise ValueError(
            "the least of several bounds searches each part on its own: ask a part for its "
            "program, problem.parts[k].formulation(weights=...)"
        )

    supporting_weights = scalarized  # no program, so no weights of one either

    def kkt_residual(self, q) -> float:
        """Measure no KKT residual: the least of several bounds is not differentiable.

        Parameters
        ----------
        q : array_like of shape (H,)
            A posterior.

        Returns
        -------
        float
            NaN.
        """
        return math.nan

    def result_from_posterior(self, q, **fields):
        """Build the Result at ``q``: the part whose bound is least there.

        Parameters
        ----------
        q : array_like of shape (H,)
            A distribution over the voters.
        **fields
            The Result's other fields (method, status, seconds, iterations, ...).

        Returns
        -------
        Result
            That part's Result at ``q``.
        """
        return min((part.result_from_posterior(q, **fields) for part in self.parts), key=_bound)

    @one_blas_thread
    def solve(
        self,
        method="declared",
        *,
        tol=1e-7,
        max_solves=300,
        solver="CLARABEL",
        tighten=True,
        rtol=None,
    ):
        """Minimize every part; the least minimum, certified by the least lower bound.

        Each part is solved first without tightening its minorants, the one least at
        the prior first, each search stopped once its lower bound is above the least
        bound found before it (that part cannot hold the least minimum). The parts whose
        lower bound is below the least bound found by more than the gap asked (the ones
        that could hold the minimum) are solved again: made tight where "local" (with
        ``tighten``), at that gap where "optimal" at their own (a near tie). The result
        is the part with the least bound, its certificate's lower bound the least of all
        parts', and its status "optimal" where the combined gap is within the goal, else
        the weakest of the parts that could hold the minimum.

        Parameters
        ----------
        method : str or None, default="declared"
            The general search, the one method of ours that takes a union bound; a
            method registered from outside that accepts it runs through the registry.
        tol : float, default=1e-7
            The absolute gap, as for :meth:`cvxpb.Minimize.search` (each part's and the
            union's).
        max_solves : int, default=300
            Each part's scalarized programs at most.
        solver : str, default="CLARABEL"
            CVXPY's solver for the programs without a closed form.
        tighten : bool, default=True
            Whether the parts left "local" that could hold the minimum are solved again
            with their minorants made tight.
        rtol : float, optional
            The gap relative to the bound, as for :meth:`cvxpb.Minimize.solve`.

        Returns
        -------
        Result
            The chosen part's bound and posterior; the certificate, status, seconds and
            programs (``iterations``) are the union's.
        """
        if method not in (None, "declared"):  # a method of the registry: one of the user's
            from cvxpb.engine.methods import run

            return run(self, method, None, False, {})
        check_tolerances(tol, rtol, max_solves)
        how = {"max_solves": max_solves, "solver": solver}
        if len(self.parts) == 1:
            return self.parts[0].solve("declared", tol=tol, tighten=tighten, rtol=rtol, **how)
        start = time.perf_counter()
        results = self._first_pass(tol, rtol, how)
        best = min(r.bound for r in results)
        goal = gap_goal(tol, rtol, best)
        programs = sum(r.iterations for r in results)
        for k, part in enumerate(self.parts):
            if _lower(results[k]) >= best - goal:
                continue
            if results[k].status == "local" and tighten:
                results[k] = part.solve("declared", tol=tol, rtol=rtol, **how)
            elif results[k].status == "optimal":  # a near tie: its own gap is not enough
                results[k] = part.solve("declared", tol=goal, **how)
            else:
                continue
            programs += results[k].iterations
        chosen = min(results, key=lambda r: r.bound)
        lower = min(_lower(r) for r in results)
        gap = max(chosen.bound - lower, 0.0)
        goal = gap_goal(tol, rtol, chosen.bound)
        contenders = [r.status for r in results if _lower(r) < chosen.bound - goal]
        status = "optimal" if gap <= goal else _weakest(contenders + [chosen.status])
        certificate = dataclasses.replace(chosen.certificate, lower_bound=lower, gap=gap)
        part = results.index(chosen)
        message = (
            f"the least of {len(self.parts)} bounds, part {part}'s; {programs} scalarized "
            f"programs in all; certified gap {gap:.3g}"
        )
        return dataclasses.replace(
            chosen,
            status=status,
            certificate=certificate,
            seconds=time.perf_counter() - start,
            iterations=programs,
            message=message,
        )

    def _first_pass(self, tol, rtol, how) -> list:
        """Each part's result without tightening, in the parts' order; solved from the
        least value at the prior up, with the least bound so far as the cutoff."""
        prior = self.posterior.prior
        at_prior = [part.value_at(prior) for part in self.parts]
        order = sorted(range(len(self.parts)), key=lambda k: _or_inf(at_prior[k]))
        results, best = [None] * len(self.parts), math.inf
        for k in order:
            results[k] = self.parts[k].solve(
                "declared", tol=tol, tighten=False, rtol=rtol, cutoff=best, **how
            )
            best = min(best, results[k].bound)
        return results


def _bound(result) -> float:
    return result.bound


def _or_inf(value) -> float:
    return value if value == value else math.inf  # NaN last


def _lower(result) -> float:
    return result.certificate.lower_bound


def _weakest(statuses) -> str:
    """The status that proves least: "local" before "optimal_inaccurate" before
    "optimal"."""
    return min(statuses, key=lambda s: STATUS_STRENGTH.index(s) if s in STATUS_STRENGTH else -1)
