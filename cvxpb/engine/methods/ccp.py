"""A convex-concave procedure (CCP) driver: a difference-of-convex problem as DCP subproblems.

The problem is ``minimize f_0(x)  s.t.  f_i(x) <= 0, x in C`` where each ``f_i``
is a :class:`DCFunction`, a convex CVXPY expression plus concave parts, and ``C``
is given by DCP constraints. At an iterate ``x_k`` each concave part ``h`` is
replaced by an affine over-estimator (its tangent, ``h(x) <= h(x_k) + grad h(x_k)
(x - x_k)``), which leaves a convex subproblem whose feasible set lies inside the
true one (Lipp & Boyd 2016, Algorithm 1.1). The penalty CCP (their Algorithm 3.1)
adds slacks ``s_i >= 0`` to the DC constraints with a weight ``tau`` that grows
by ``mu`` up to ``tau_max``, so an infeasible start can recover.

The linearizations enter the subproblem through CVXPY Parameters: the problem is
built (and compiled) once per start and each iteration only re-solves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from cvxpb.engine.conic import SOLVERS, solve_program
from cvxpb.engine.methods.cvx import check_solver_options
from cvxpb.validation import check_count, check_positive

STATUSES = ("converged", "max_iter", "stalled", "solver_failed", "infeasible")
STEADY = 3


@dataclass
class ConcavePart:
    """A concave function ``h`` of the variables, and how to linearize it.

    Give exactly one of ``expr``, ``value`` with ``gradient``, or ``linearize``.

    Parameters
    ----------
    expr : cvxpy.Expression, optional
        A concave expression; CVXPY supplies its value and gradient.
    value : callable, optional
        ``value(point)``: ``h`` at a point ``{variable: array}``.
    gradient : callable, optional
        ``gradient(point)``: ``{variable: array}``, with ``value``.
    linearize : callable, optional
        ``linearize(point)``: ``(constant, {variable: array})`` of an affine
        over-estimator ``constant + sum_v <a_v, v>`` (for example a tangent taken at a
        nearby point where ``h`` is differentiable).
    """

    expr: cp.Expression | None = None
    value: Callable | None = None
    gradient: Callable | None = None
    linearize: Callable | None = None

    def __post_init__(self):
        given = [self.expr is not None, self.value is not None, self.linearize is not None]
        if sum(given) != 1 or (self.value is not None) != (self.gradient is not None):
            raise ValueError("ConcavePart needs exactly one of expr, value+gradient, linearize")
        if self.expr is not None and not self.expr.is_concave():
            raise ValueError(f"ConcavePart.expr must be concave, got {self.expr.curvature}")

    def evaluate(self, point) -> float:
        """The value of ``h`` at ``point``.

        Parameters
        ----------
        point : dict
            ``{variable: value}``.

        Returns
        -------
        float
            ``h(point)`` (with ``linearize`` only: the over-estimator taken at the point).
        """
        if self.expr is not None:
            _assign(point)
            return float(self.expr.value)
        if self.value is not None:
            return float(self.value(point))
        constant, slopes = self.linearize(point)  # a tangent at the point itself
        return float(constant + sum(np.vdot(a, point[v]) for v, a in slopes.items()))

    def affine(self, point, variables):
        """The affine over-estimator of ``h`` at ``point``.

        Parameters
        ----------
        point : dict
            ``{variable: value}``.
        variables : list of cvxpy.Variable
            The problem's variables (for the slopes of an ``expr``).

        Returns
        -------
        constant : float
            Its constant.
        slopes : dict
            ``{variable: array}``: its slope in each variable.
        """
        if self.linearize is not None:
            return self.linearize(point)
        if self.expr is not None:
            _assign(point)
            value, grads = float(self.expr.value), self.expr.grad
            slopes = {v: _dense_gradient(grads.get(v), v) for v in variables}
        else:
            value, slopes = float(self.value(point)), self.gradient(point)
        constant = value - sum(np.vdot(a, point[v]) for v, a in slopes.items())
        return constant, slopes


@dataclass
class DCFunction:
    """``convex + sum(concave)``: a convex CVXPY expression and concave parts.

    Parameters
    ----------
    convex : cvxpy.Expression or float
        The convex part.
    concave : sequence of ConcavePart or ConcavePart, default=()
        The concave parts.
    """

    convex: cp.Expression
    concave: Sequence[ConcavePart] = ()

    def __post_init__(self):
        self.convex = cp.Expression.cast_to_const(self.convex)
        if not self.convex.is_convex():
            raise ValueError(f"DCFunction.convex must be convex, got {self.convex.curvature}")
        if isinstance(self.concave, ConcavePart):
            self.concave = (self.concave,)

    def evaluate(self, point) -> float:
        """The function's value at ``point``.

        Parameters
        ----------
        point : dict
            ``{variable: value}``.

        Returns
        -------
        float
            The convex part plus the concave parts at the point.
        """
        _assign(point)
        return float(self.convex.value) + sum(h.evaluate(point) for h in self.concave)


@dataclass
class DCProblem:
    """``minimize objective  s.t.  each dc_constraint <= 0  and the convex constraints``.

    Parameters
    ----------
    objective : DCFunction
        The objective.
    dc_constraints : sequence of DCFunction, default=()
        Functions constrained to be at most 0.
    constraints : sequence of cvxpy.Constraint, default=()
        DCP constraints.
    """

    objective: DCFunction
    dc_constraints: Sequence[DCFunction] = ()
    constraints: Sequence[cp.Constraint] = ()

    @property
    def variables(self) -> list[cp.Variable]:
        exprs = [self.objective.convex, *(f.convex for f in self.dc_constraints)]
        found = {v.id: v for e in exprs for v in e.variables()}
        found.update({v.id: v for c in self.constraints for v in c.variables()})
        for f in (self.objective, *self.dc_constraints):
            for h in f.concave:
                if h.expr is not None:
                    found.update({v.id: v for v in h.expr.variables()})
        return [found[k] for k in sorted(found)]


@dataclass(frozen=True, eq=False)
class CCPResult:
    """Outcome of :func:`solve`: the best feasible iterate over all starts.

    Parameters
    ----------
    status : str
        One of ``STATUSES``.
    point : dict or None
        ``{variable: value}`` of the best feasible iterate; None if there was none.
    objective : float
        The objective there (``inf`` without one).
    iterations : int
        The iterations of the start it came from.
    history : list of dict, default=[]
        That start's iterations (objective, surrogate, slack, tau, solver, status,
        violation).
    message : str, default=""
        The solvers' account.
    seconds : float, default=0.0
        Wall-clock time of all starts.
    starts : list of dict, default=[]
        Each start's status, iterations, objective and message.
    """

    status: str
    point: dict | None
    objective: float
    iterations: int
    history: list = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0
    starts: list = field(default_factory=list)

    def value(self, variable):
        """The value of ``variable`` at the best feasible iterate.

        Parameters
        ----------
        variable : cvxpy.Variable
            A variable of the problem.

        Returns
        -------
        ndarray or None
            Its value, or None without a feasible iterate.
        """
        return None if self.point is None else self.point[variable]


def _assign(point):
    for v, value in point.items():
        v.value = value


def _dense_gradient(grad, variable):
    if grad is None:
        return np.zeros(variable.shape)
    dense = grad.toarray() if hasattr(grad, "toarray") else np.asarray(grad)
    return dense.reshape(variable.shape, order="F")


class _Subproblem:
    """The convex subproblem, built once, with the linearizations as Parameters."""

    def __init__(self, problem: DCProblem, variables, penalty: bool):
        self.problem, self.variables = problem, variables
        self.tau = cp.Parameter(nonneg=True, value=1.0)
        self.params = []  # one (constant, {v: slope}) per concave part, in order
        objective = self._surrogate(problem.objective)
        constraints = list(problem.constraints)
        self.slack = (
            cp.Variable(len(problem.dc_constraints), nonneg=True)
            if (penalty and problem.dc_constraints)
            else None
        )
        for i, f in enumerate(problem.dc_constraints):
            extra = self.slack[i] if self.slack is not None else 0
            constraints.append(self._surrogate(f) <= extra)
        if self.slack is not None:
            objective = objective + self.tau * cp.sum(self.slack)
        self.cvx = cp.Problem(cp.Minimize(objective), constraints)

    def _surrogate(self, f: DCFunction):
        expr = f.convex
        for _ in f.concave:
            constant = cp.Parameter()
            slopes = {v: cp.Parameter(v.shape) for v in self.variables}
            self.params.append((constant, slopes))
            expr = expr + constant + sum(cp.sum(cp.multiply(a, v)) for v, a in slopes.items())
        return expr

    def update(self, point, tau):
        parts = [
            h for f in (self.problem.objective, *self.problem.dc_constraints) for h in f.concave
        ]
        for h, (constant, slopes) in zip(parts, self.params, strict=True):
            value, grads = h.affine(point, self.variables)
            constant.value = float(value)
            for v, a in slopes.items():
                a.value = np.broadcast_to(np.asarray(grads.get(v, 0.0), float), v.shape).copy()
        self.tau.value = tau


def subproblem(problem: DCProblem, point: dict) -> cp.Problem:
    """Give the convex subproblem the CCP solves at ``point``.

    Every concave part is replaced by its tangent there (plain CCP, no penalty).

    Parameters
    ----------
    problem : DCProblem
        The difference-of-convex program.
    point : dict
        ``{variable: value}``, the iterate.

    Returns
    -------
    cvxpy.Problem
        The subproblem, DCP; each tangent's constant and slopes are Parameters set at
        ``point``, so ``program.parameters()`` shows the linearization.
    """
    sub = _Subproblem(problem, problem.variables, penalty=False)
    sub.update(point, 1.0)
    return sub.cvx


class _StoppingRule:
    """Converged: a steady objective and a still point, or STEADY steady iterations
    (the point may keep moving at the subproblem solver's accuracy). Stalled: the
    objective rose ``patience`` times in a row."""

    def __init__(self, options):
        self.options, self.rises, self.steady = options, 0, 0

    def verdict(self, old, new, step):
        margin = self.options["tol"] * (1 + abs(new))
        self.rises = self.rises + 1 if new > old + margin else 0
        self.steady = self.steady + 1 if abs(new - old) <= margin else 0
        if self.steady and (step <= self.options["tol_x"] or self.steady >= STEADY):
            return "converged"
        if self.rises >= self.options["patience"]:
            return "stalled"
        return None


@dataclass
class _Run:
    """One start of the CCP."""

    problem: DCProblem
    variables: list
    options: dict
    history: list = field(default_factory=list)
    best: tuple = (np.inf, None)

    def violation(self, point) -> float:
        return max((f.evaluate(point) for f in self.problem.dc_constraints), default=0.0)

    def run(self, start):
        """Iterate from ``start``; returns ``(status, iterations, message)``."""
        opts = self.options
        sub = _Subproblem(self.problem, self.variables, opts["penalty"])
        point, tau = start, opts["tau"]
        objective = self.problem.objective.evaluate(point)
        self._record_best(point, objective)
        stop = _StoppingRule(opts)
        for k in range(1, opts["max_iter"] + 1):
            sub.update(point, tau)
            outcome = solve_program(
                sub.cvx,
                opts["solvers"],
                opts["accept_inaccurate"],
                opts["solver_options"],
                opts["verbose"],
            )
            if not outcome.solved:
                return "solver_failed", k, f"iteration {k}: {outcome.message}"
            status, solver, note = outcome.status, outcome.solver, outcome.message
            new = {v: np.array(v.value, dtype=float) for v in self.variables}
            new_objective = self.problem.objective.evaluate(new)
            slack = float(np.sum(sub.slack.value)) if sub.slack is not None else 0.0
            self._log(k, new, new_objective, sub, slack, tau, solver, status)
            self._record_best(new, new_objective)
            step = max(float(np.max(np.abs(new[v] - point[v]))) for v in self.variables)
            verdict = stop.verdict(objective, new_objective, step)
            point, objective, tau = new, new_objective, min(opts["mu"] * tau, opts["tau_max"])
            if verdict == "converged":
                feasible = slack <= opts["feas_tol"] and self.best[1] is not None
                return ("converged" if feasible else "infeasible"), k, note
            if verdict == "stalled":
                return "stalled", k, f"objective rose {stop.rises} times in a row"
        return "max_iter", opts["max_iter"], ""

    def _log(self, k, point, objective, sub, slack, tau, solver, status):
        self.history.append(
            {
                "iteration": k,
                "objective": objective,
                "surrogate": float(sub.cvx.value),
                "slack": slack,
                "tau": tau,
                "solver": solver,
                "solver_status": status,
                "inaccurate": status == "optimal_inaccurate",
                "violation": self.violation(point),
            }
        )

    def _record_best(self, point, objective):
        if self.violation(point) <= self.options["feas_tol"] and objective < self.best[0]:
            self.best = (objective, {v: np.array(x, dtype=float) for v, x in point.items()})


def _starts(initial, sampler, variables, n_starts, random_state):
    """Start points: ``initial`` first (if given), the rest drawn by ``sampler(rng)``
    (standard normal values by default), each generator seeded from ``random_state``."""
    rngs = [np.random.default_rng(c) for c in np.random.SeedSequence(random_state).spawn(n_starts)]
    draw = sampler or (lambda rng: {v: rng.standard_normal(v.shape) for v in variables})
    return [
        initial if (i == 0 and initial is not None) else draw(rng) for i, rng in enumerate(rngs)
    ]


def solve(
    problem: DCProblem,
    initial: dict | None = None,
    sampler: Callable | None = None,
    n_starts: int = 1,
    random_state=None,
    max_iter: int = 100,
    tol: float = 1e-9,
    tol_x: float = 1e-7,
    feas_tol: float = 1e-7,
    solvers: Sequence[str] = SOLVERS,
    solver_options: dict | None = None,
    accept_inaccurate: bool = False,
    penalty: bool = True,
    tau: float = 1.0,
    mu: float = 2.0,
    tau_max: float = 1e6,
    patience: int = 5,
    verbose: bool = False,
) -> CCPResult:
    """Run the (penalty) convex-concave procedure from one or several starts.

    Parameters
    ----------
    problem : DCProblem
        The difference-of-convex program.
    initial : dict, optional
        The first start ``{variable: value}``.
    sampler : callable, optional
        ``rng -> start`` for the other starts (and the first if ``initial`` is None);
        by default standard normal values.
    n_starts : int, default=1
        Number of starts; each one's random generator derives from ``random_state``.
    random_state : int, SeedSequence or None, default=None
        Seeds the starts' generators.
    max_iter : int, default=100
        Iterations at most from each start (0 returns the start).
    tol : float, default=1e-9
        Converged when the objective changes by at most ``tol * (1 + |f|)`` and no
        variable entry moves by more than ``tol_x``, or when the objective has been
        that steady for ``STEADY`` iterations in a row.
    tol_x : float, default=1e-7
        See ``tol``.
    feas_tol : float, default=1e-7
        Largest DC constraint violation (and total slack) counted as feasible.
    solvers : sequence of str, default=("CLARABEL", "ECOS", "SCS")
        Tried in this order for each subproblem (:func:`cvxpb.engine.conic.solve_program`).
    solver_options : dict, optional
        ``{solver: {option: value}}``.
    accept_inaccurate : bool, default=False
        Whether an ``optimal_inaccurate`` subproblem counts as solved.
    penalty : bool, default=True
        Penalty CCP: slacks on the DC constraints with weight ``tau``, multiplied by
        ``mu`` each iteration up to ``tau_max``.
    tau : float, default=1.0
        The first penalty weight.
    mu : float, default=2.0
        The penalty weight's growth (greater than 1).
    tau_max : float, default=1e6
        The largest penalty weight.
    patience : int, default=5
        Consecutive rises of the objective after which the run is ``stalled``.
    verbose : bool, default=False
        Print each subproblem solver's log (CVXPY's ``verbose``).

    Returns
    -------
    CCPResult
        The best feasible iterate over all starts, its status (one of ``STATUSES``),
        the history of the start it came from, and every start's summary.

    Raises
    ------
    ValueError
        For a count, tolerance or penalty setting out of range, or solver options the
        solver refuses.
    """
    check_count(n_starts, "n_starts")
    check_count(max_iter, "max_iter", 0)  # 0 returns the start, with status max_iter
    check_count(patience, "patience")
    for name, value in {"tol": tol, "tol_x": tol_x, "feas_tol": feas_tol, "tau": tau}.items():
        check_positive(value, name)
    check_positive(tau_max, "tau_max")
    if not (isinstance(mu, int | float) and mu > 1):
        raise ValueError(f"mu must be a number > 1, got {mu!r}")
    for name, settings in (solver_options or {}).items():
        if name in SOLVERS:
            check_solver_options(name, settings)
    start_time = time.perf_counter()
    variables = problem.variables
    options = {
        "max_iter": max_iter,
        "tol": tol,
        "tol_x": tol_x,
        "feas_tol": feas_tol,
        "solvers": tuple(solvers),
        "solver_options": solver_options or {},
        "accept_inaccurate": accept_inaccurate,
        "penalty": penalty,
        "tau": tau,
        "mu": mu,
        "tau_max": tau_max,
        "patience": patience,
        "verbose": bool(verbose),
    }
    runs = []
    for point in _starts(initial, sampler, variables, n_starts, random_state):
        run = _Run(problem, variables, options)
        status, iterations, message = run.run(point)
        runs.append((run, status, iterations, message))
    best_run, status, iterations, message = min(runs, key=lambda r: r[0].best[0])
    if best_run.best[1] is None and status == "converged":
        status = "infeasible"
    if best_run.best[1] is not None:
        _assign(best_run.best[1])
    summaries = [
        {"status": s, "iterations": i, "objective": r.best[0], "message": msg}
        for r, s, i, msg in runs
    ]
    return CCPResult(
        status=status,
        point=best_run.best[1],
        objective=best_run.best[0],
        iterations=iterations,
        history=best_run.history,
        message=message,
        seconds=time.perf_counter() - start_time,
        starts=summaries,
    )
