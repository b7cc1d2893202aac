"""``method="fixed_point"``: Sahu & Hemachandra's fixed-point equations on ordered
subsets (Algorithm 1).

On the support ``S`` of the ``H'`` smallest risks (with positive prior), ``pi = p / P_S``,
``D = sum_S q^2/p``, ``L = sum_S q l`` and ``c^2 = I/delta``:

* squared distance (eq. 49; eq. 12 for the uniform prior):
  ``q_i = pi_i [1 + k P_S (mean_pi - l_i)]``, ``k = 2 D^(3/4) / c^(1/2)``;
* kl distance (eq. 63; eq. 15 for the uniform prior):
  ``q_i ∝ p_i [1 + (l_i - L) / eps * log((1 - r) L / (r (1 - L)))]``, ``eps = c sqrt(D)``,
  ``r = kl^{-1}(L, eps)``;
* linear distance: eq. (9)/(28), which needs no iteration.

The map is iterated with damping ``q <- (1 - theta) q + theta F(q)``; ``theta`` halves
when the step grows, and a run that has not settled after ``max_iter`` steps is
``did_not_converge``; one whose iterates stop being finite ``diverged``.
Algorithm 1 then scans ``H' = 1, 2, ...`` until a solution has a
negative weight or fails to converge (``search="linear"``), or starts at the ``H'`` of
eq. (35), ``sum_{i <= H'} p_i l_i^2 = I_lin/delta``, bisects down to the largest
usable subset if that one is not, and walks downhill (``search="warm"``).
"""

from __future__ import annotations

import time

import numpy as np

from cvxpb.engine.methods import cvx
from cvxpb.engine.methods.method import refuse
from cvxpb.numerics.constants import linear_constant
from cvxpb.numerics.kl import kl_inv_upper_newton
from cvxpb.validation import check_choice, check_count, check_positive

SEARCHES = ("linear", "warm")
THETA_MIN = 1 / 64


class SubsetMap:
    """The fixed-point map ``F`` on the ordered subset of the ``size`` smallest risks.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The problem (its distance's ``inverse_form`` picks the map).
    l : ndarray
        The risks, sorted ascending.
    p : ndarray
        The cone's weights ``r`` in the same order (chi-squared: the prior).
    size : int
        The subset: the ``size`` smallest risks.
    c2 : float, optional
        The cone's ``c2`` (chi-squared: ``I/delta``); the problem's by default.
    """

    def __init__(self, problem, l, p, size, c2=None):
        self.problem, self.l, self.p = problem, l[:size], p[:size]
        self.P = self.p.sum()
        self.pi = self.p / self.P
        self.c2 = cvx.cone(problem)[0] if c2 is None else c2

    def __call__(self, q):
        form = self.problem.distance_function.inverse_form
        if form == "sum":
            return self._linear()
        if form == "root":
            D = np.sum(q * q / self.p)
            k = 2 * D**0.75 / self.c2**0.25
            return self.pi * (1 + k * self.P * (self.pi @ self.l - self.l))
        return self._kl(q)

    def _linear(self):
        mean = self.pi @ self.l
        slack = self.c2 / self.P - (self.pi @ self.l**2 - mean**2)
        return self.pi * (1 + (mean - self.l) / np.sqrt(slack)) if slack > 0 else -self.pi

    def _kl(self, q):
        if np.ptp(self.l) == 0:  # all equal: Q = P (Sahu & Hemachandra, Lemma 4)
            return self.pi.copy()
        L, D = float(q @ self.l), float(np.sum(q * q / self.p))
        eps = np.sqrt(self.c2 * D)
        r = float(kl_inv_upper_newton(L, eps)[0])
        with np.errstate(all="ignore"):  # non-finite values end as did_not_converge
            slope = np.log((1 - r) * L / (r * (1 - L))) / eps
        weights = self.p * (1 + (self.l - L) * slope)
        return weights / weights.sum()


def iterate(F, q0, max_iter, tol):
    """Damped fixed-point iteration ``q <- (1 - theta) q + theta F(q)``.

    ``theta`` halves (down to ``THETA_MIN``) whenever a step is longer than the last.

    Parameters
    ----------
    F : callable
        The map.
    q0 : ndarray
        The start.
    max_iter : int
        Iterations at most.
    tol : float
        The largest entry of ``|F(q) - q|`` at which the iteration has converged.

    Returns
    -------
    q : ndarray
        The last iterate.
    status : {"converged", "diverged", "did_not_converge"}
        How it ended (diverged: non-finite values).
    iterations : int
        Iterations done.
    theta : float
        The damping reached.
    """
    q, theta, last_step = q0, 1.0, np.inf
    for k in range(1, max_iter + 1):
        with np.errstate(all="ignore"):  # a diverging map shows as non-finite values
            image = F(q)
        if not np.all(np.isfinite(image)):
            return q, "diverged", k, theta
        step = float(np.max(np.abs(image - q)))
        if step <= tol:
            return image, "converged", k, theta
        if step > last_step and theta > THETA_MIN:
            theta /= 2
        last_step = step
        q = (1 - theta) * q + theta * image
    return q, "did_not_converge", max_iter, theta


class _Scan:
    """Algorithm 1: the best posterior over ordered subsets."""

    def __init__(self, problem, max_iter, tol):
        support = np.flatnonzero(problem.prior > 0)
        self.order = support[np.argsort(problem.risks[support], kind="stable")]
        self.l = problem.risks[self.order]
        self.c2, self.p = cvx.cone(problem, self.order)  # chi-squared: I/delta, the prior
        self.problem, self.max_iter, self.tol = problem, max_iter, tol
        self.solutions = {}  # size -> (q, status, iterations, theta, bound)
        self.iterations = 0

    def solve_size(self, size):
        if size not in self.solutions:
            F = SubsetMap(self.problem, self.l, self.p, size, self.c2)
            previous = self.solutions.get(size - 1)
            # warm start from the previous subset's solution, pulled towards pi so that
            # every weight is positive (a zero weight can put L at 0, where log L = -inf)
            q0 = 0.5 * (np.append(previous[0], 0.0) + F.pi) if previous else F.pi.copy()
            q, status, k, theta = iterate(F, q0, self.max_iter, self.tol)
            self.iterations += k
            usable = status == "converged" and bool(np.all(q > 0))
            bound = self._bound(q) if usable else np.inf
            self.solutions[size] = (q, status, k, theta, bound)
        return self.solutions[size]

    def _bound(self, q):
        l, p = self.l[: q.size], self.p[: q.size]
        L, D = float(q @ l), float(np.sum(q * q / p))
        rhs = np.sqrt(self.c2 * D)  # the change of measure, by the cone
        return float(self.problem.distance_function.inverse(L, rhs))

    def linear(self):
        for size in range(1, self.l.size + 1):
            if not self.feasible(size):
                return

    def feasible(self, size) -> bool:
        return bool(np.isfinite(self.solve_size(size)[4]))

    def warm(self):
        target = linear_constant(self.problem.m) / self.problem.delta  # eq. (35)
        size = int(np.searchsorted(np.cumsum(self.p * self.l**2), target)) + 1
        size = min(max(size, 1), self.l.size)
        if not self.feasible(size):  # bisect for the largest feasible size below
            lo, hi = 1, size
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if self.feasible(mid) else (lo, mid)
            size = lo
        for direction in (1, -1):
            current = size
            while 1 <= current + direction <= self.l.size:
                nxt = current + direction
                if self.solve_size(nxt)[4] >= self.solve_size(current)[4]:
                    break
                current = nxt

    def positivity_violated(self) -> bool:
        """Whether a subset's fixed point converged with a weight that is not positive,
        or its iterates left the simplex (a negative weight) before they diverged."""
        return any(
            (s[1] == "converged" and not np.isfinite(s[4]))
            or (s[1] == "diverged" and np.min(s[0]) < 0)
            for s in self.solutions.values()
        )

    def all_settled(self) -> bool:
        """Whether every subset the search looked at reached its fixed point or diverged:
        only then did Algorithm 1 stop on what the equations say (a weight that is not
        positive, or a map that diverges), not on the iteration budget."""
        return all(s[1] != "did_not_converge" for s in self.solutions.values())

    def best(self):
        feasible = {s: v for s, v in self.solutions.items() if np.isfinite(v[4])}
        return min(feasible.items(), key=lambda item: item[1][4]) if feasible else None


STATUSES = ("converged", "did_not_converge")  # the statuses it returns


def solve(problem, search: str = "linear", max_iter: int = 2000, tol: float = 1e-13):
    """Algorithm 1 of Sahu & Hemachandra with the fixed-point equations.

    ``status`` is ``"converged"`` only when every subset the search examined reached its
    fixed point or diverged (non-finite iterates) within ``max_iter`` steps, so that
    Algorithm 1 stopped on what the equations say; a subset that ran out of steps makes
    it ``"did_not_converge"``, counted in ``details["subsets_not_converged"]``.

    Parameters
    ----------
    problem : cvxpb.engine.one_bound.OneBound
        The bound (a declaration\'s standard form).
    search : {"linear", "warm"}, default="linear"
        How the subsets are searched.
    max_iter : int, default=2000
        Iterations at most on each subset.
    tol : float, default=1e-13
        The step at which a subset's iteration has converged.

    Returns
    -------
    Result
        The bound re-evaluated from the posterior, rounded outward.
    """
    refuse(problem, "fixed_point")
    check_choice(search, "search", SEARCHES)
    check_count(max_iter, "max_iter")
    check_positive(tol, "tol")
    start = time.perf_counter()
    scan = _Scan(problem, max_iter, tol)
    if search == "linear":
        scan.linear()
    else:
        scan.warm()
    best = scan.best()
    seconds = time.perf_counter() - start
    details = {
        "positivity_violated": scan.positivity_violated(),
        "subsets_tried": len(scan.solutions),
        "subsets_not_converged": sum(s[1] == "did_not_converge" for s in scan.solutions.values()),
        "subsets_diverged": sum(s[1] == "diverged" for s in scan.solutions.values()),
    }
    if best is None:
        return problem.failed_result(
            "fixed_point",
            "did_not_converge",
            "no ordered subset gave a positive fixed point",
            seconds,
            iterations=scan.iterations,
            details=details,
        )
    size, (q, _, k, theta, _) = best
    status = "converged" if scan.all_settled() else "did_not_converge"
    details.update({"support_size": size, "theta": theta, "subset_iterations": k})
    posterior = np.zeros(problem.H)
    posterior[scan.order[:size]] = q
    details["kkt_residual"] = problem.kkt_residual(posterior)  # of the whole simplex
    return problem.result_from_posterior(
        posterior,
        method="fixed_point",
        status=status,
        seconds=seconds,
        iterations=scan.iterations,
        message=f"Algorithm 1 ({search}): H* = {size}, {status}" + _stop_reason(scan, size),
        details=details,
    )


def _stop_reason(scan, size) -> str:
    """Why Algorithm 1 kept ``size`` classifiers, where a larger subset was looked at."""
    larger = [k for k in scan.solutions if k > size]
    if not larger:
        return ""
    why = (
        "whose fixed point has a weight that is not positive"
        if scan.positivity_violated()
        else "whose bound is not lower"
    )
    return (
        f"; it stopped at H' = {min(larger)}, {why} (a fixed point on a subset is a "
        "stationary point, not proven the optimum)"
    )
