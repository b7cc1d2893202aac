"""A method's convex program, with the map from its solution back to the bound.

:meth:`cvxpb.Minimize.formulation` returns one: a ``cvxpy.Problem`` to read, change
and solve, whose :meth:`Formulation.posterior` reads the posterior off its solution and
whose :meth:`Formulation.bound` is the problem's bound there, as a Result reports it.
Taken where the method's own optimum lies (each method's default), the program's
minimizer is that optimum, so :meth:`Formulation.bound` is the method's bound.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np


class Formulation(cp.Problem):
    """A CVXPY problem whose variables hold a posterior of ``problem``.

    Parameters
    ----------
    program : cvxpy.Problem
        The program (its objective and constraints are taken over).
    problem : cvxpb.Minimize
        The problem whose bound the posterior is evaluated by.
    posterior : cvxpy.Expression
        The posterior on ``support`` as an expression of the program's variables.
    support : ndarray of bool of shape (H,)
        The classifiers ``posterior`` covers (the others get 0).
    """

    def __init__(self, program: cp.Problem, problem, posterior: cp.Expression, support):
        super().__init__(program.objective, program.constraints)
        self.problem = problem
        self.posterior_expression = posterior
        self.support = np.asarray(support, dtype=bool)

    def posterior(self) -> np.ndarray:
        """Read the posterior off the program's solution.

        Returns
        -------
        ndarray of shape (H,)
            The solution's weights, negative rounding clipped to 0 and scaled to sum 1.

        Raises
        ------
        ValueError
            Before the program is solved.
        """
        value = self.posterior_expression.value
        if value is None:
            raise ValueError("solve the program first: its variables have no value yet")
        q = np.zeros(self.support.size)
        q[self.support] = np.clip(np.asarray(value, dtype=float).reshape(-1), 0.0, None)
        return q / q.sum()

    def bound(self) -> float:
        """Map the solution back to the bound: the bound at :meth:`posterior`.

        Returns
        -------
        float
            The problem's bound at the program's posterior, rounded outward as every
            Result's (``result_from_posterior``).
        """
        fields = {"method": "formulation", "status": "optimal", "seconds": 0.0, "iterations": 0}
        return self.problem.result_from_posterior(self.posterior(), **fields).bound
