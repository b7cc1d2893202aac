"""Solving a CVXPY program with a conic solver, where every failure is a status.

Each place that hands a program to CVXPY (the ``cvx`` method, the convex-concave
procedure, the declared engine's scalarized programs, the minimax programs, the prior
SVMs and the minimum probability machine) goes through :func:`solve_program`: the
solvers are tried in order, a solver that raises or is not installed hands over to the
next, and what happened is said in one message.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import cvxpy as cp

SOLVERS = ("CLARABEL", "ECOS", "SCS")
"""The conic solvers cvxpb depends on, in the order it tries them."""

ACCEPTED = ("optimal", "optimal_inaccurate")
"""CVXPY's statuses that come with a solution."""


@dataclass(frozen=True)
class Outcome:
    """How a program's solve ended.

    Parameters
    ----------
    status : str
        CVXPY's status from the last solver tried, or ``"solver_failed"`` when the last
        one raised or was not installed.
    solver : str or None
        The solver whose solution the program holds; None when none was accepted.
    message : str
        Each solver's account, ``"; "``-separated: an exception as
        ``"<solver>: <type>: <words>"`` (CVXPY's ``SolverError`` without its type),
        a status as ``"<solver> returned status '<status>'"``.
    """

    status: str
    solver: str | None
    message: str

    @property
    def solved(self) -> bool:
        """Whether a solver was accepted (its solution is in the program's variables)."""
        return self.solver is not None


@functools.cache
def _installed() -> frozenset:
    """CVXPY's installed solvers, asked once (CVXPY takes a millisecond to list them)."""
    return frozenset(cp.installed_solvers())


def solve_program(
    program: cp.Problem,
    solvers: Sequence[str] = SOLVERS,
    accept_inaccurate: bool = True,
    options: dict | None = None,
    verbose: bool = False,
) -> Outcome:
    """Solve ``program`` with the first of ``solvers`` that reaches an accepted status.

    Parameters
    ----------
    program : cvxpy.Problem
        The program; its variables hold the solution afterwards.
    solvers : sequence of str, default=SOLVERS
        CVXPY solver names, tried in this order.
    accept_inaccurate : bool, default=True
        Whether ``"optimal_inaccurate"`` ends the search as well as ``"optimal"``.
    options : dict, optional
        ``{solver: {option: value}}``: each solver's own settings.
    verbose : bool, default=False
        Print CVXPY's and the solver's log.

    Returns
    -------
    Outcome
        The accepted solver and its status, or the last status with every solver's
        account. No exception of a solver escapes.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> outcome = solve_program(cp.Problem(cp.Minimize(cp.square(x - 1))))
    >>> outcome.status, outcome.solver, round(float(x.value), 6)
    ('optimal', 'CLARABEL', 1.0)
    >>> solve_program(cp.Problem(cp.Minimize(x)), ("ECOS",)).message
    "ECOS returned status 'unbounded'"
    """
    accepted = ACCEPTED if accept_inaccurate else ACCEPTED[:1]
    options = options or {}
    installed = _installed()
    notes, status = [], "solver_failed"
    for name in solvers:
        if name not in installed:
            notes.append(f"{name}: not installed")
            status = "solver_failed"
            continue
        try:
            program.solve(solver=name, verbose=verbose, **options.get(name, {}))
        except cp.error.SolverError as err:
            notes.append(f"{name}: {err}")
            status = "solver_failed"
            continue
        except Exception as err:  # noqa: BLE001 - any failure of a solver is a status
            notes.append(f"{name}: {type(err).__name__}: {err}")
            status = "solver_failed"
            continue
        status = program.status
        if status in accepted:
            return Outcome(status, name, "; ".join(notes))
        notes.append(f"{name} returned status {status!r}")
    return Outcome(status, None, "; ".join(notes))
