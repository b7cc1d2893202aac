"""Our numbers for Sahu & Hemachandra's theorems: each statement written out here, on
its own, beside what the library computes (the module the row names)."""

import numpy as np
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.stats import binom

RISKS = np.array([0.08, 0.11, 0.15, 0.2, 0.24, 0.3, 0.33, 0.38, 0.41, 0.45])
M, DELTA = 120, 0.05


def _problem(distance, divergence="chi2", **options):
    import cvxpb as pb

    return pb.BoundProblem(RISKS, M, DELTA, distance, divergence, **options)


def _posteriors(count=5, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.dirichlet(np.full(RISKS.size, 0.7)) for _ in range(count)]


def _moment_sup(m, power):
    """``sup_l E|k/m - l|^power`` over ``k ~ Binomial(m, l)``, by a grid and a refinement."""
    k = np.arange(m + 1)

    def moment(l):
        return binom.pmf(k, m, l) @ np.abs(k / m - l) ** power

    grid = np.linspace(1e-6, 1 - 1e-6, 2001)
    moments = np.sum(binom.pmf(k, m, grid[:, None]) * np.abs(k / m - grid[:, None]) ** power, 1)
    start = grid[np.argmax(moments)]
    best = minimize_scalar(
        lambda l: -moment(l), bounds=(max(start - 1e-3, 0), min(start + 1e-3, 1)),
        method="bounded", options={"xatol": 1e-12},
    )  # fmt: skip
    return -best.fun


def theorem_1(*_sources):
    """Eq. (1) with the squared distance, written out at two orders, against the library."""
    differences = []
    for alpha in (2.0, 3.0):
        conjugate = alpha / (alpha - 1)
        constant = _moment_sup(M, 2 * conjugate)
        divergence = "chi2" if alpha == 2 else "renyi"
        problem = _problem("sq", divergence, **({"alpha": alpha} if alpha != 2 else {}))
        p = np.full(RISKS.size, 1 / RISKS.size)
        for q in _posteriors():
            renyi = (p @ (q / p) ** alpha) ** (1 / alpha)
            right = renyi * (constant / DELTA) ** (1 / conjugate)
            written = q @ RISKS + np.sqrt(right)
            differences.append(abs(problem.value_at(q) - written) / written)
    return {"orders": 2, "posteriors": 5, "relative": max(differences)}


def _subset_optimum(size):
    """The best linear-chi2 posterior on the ``size`` least risks (uniform prior over all):
    the subset's own problem with ``delta`` scaled by ``size / H`` has the same objective."""
    import cvxpb as pb

    sub = pb.BoundProblem(RISKS[:size], M, DELTA * size / RISKS.size, "linear", "chi2")
    return sub.solve().bound


def theorem_5(*_sources):
    """Eq. (10) as printed against the certified optimum on each ordered subset."""
    H = RISKS.size
    best = _problem("linear").solve()
    sizes = range(2, best.support_size + 1)
    printed, certified = [], []
    for size in sizes:
        head = RISKS[:size]
        printed.append(head.mean() + np.sqrt(H / (size * 4 * M * DELTA) - head.var()))
        certified.append(_subset_optimum(size))
    printed, certified = np.array(printed), np.array(certified)
    return {
        "largest": int(best.support_size),
        "difference": float(np.max(np.abs(printed - certified))),
        "decreasing": bool(np.all(np.diff(certified) < 0)),
        "H": H,
    }


def theorem_6(*_sources):
    """Eq. (11) as printed (the paper's constant) against the library's paper route."""
    problem = _problem("sq", constants="paper")
    constant = (12 * M - 11) / (16 * M**3 * DELTA)
    p = 1 / RISKS.size
    differences = [
        abs(problem.value_at(q) - (q @ RISKS + (np.sum(q**2 / p) * constant) ** 0.25))
        for q in _posteriors()
    ]
    return {"difference": max(differences), "posteriors": len(differences)}


def ordered_support(*_sources):
    """Theorems 4 and 12: the linear-chi2 optimum's support under the uniform prior."""
    import cvxpb as pb

    rng = np.random.default_rng(5)
    ordered = 0
    trials = 20
    for _ in range(trials):
        H = int(rng.integers(5, 60))
        risks = rng.permutation(rng.uniform(0, 0.5, H))
        result = pb.BoundProblem(risks, 200, 0.05, "linear", "chi2").solve()
        support = np.flatnonzero(result.posterior > 0)
        ordered += set(support) == set(np.argsort(risks)[: support.size])
    return {"trials": trials, "ordered": ordered}


def _kl(p, r):
    terms = 0.0 if p == 0 else p * np.log(p / r)
    return terms + (0.0 if p == 1 else (1 - p) * np.log((1 - p) / (1 - r)))


def eq_13(*_sources):
    """Eq. (13) by bisection, and program (53) by a multistart local solver."""
    from cvxpb.numerics.constants import kl_constant

    problem = _problem("kl")
    constant = kl_constant(M)
    p = 1 / RISKS.size

    def written(q):
        mean = float(q @ RISKS)
        radius = np.sqrt(np.sum(q**2 / p) * constant / DELTA)
        return brentq(lambda r: _kl(mean, r) - radius, mean + 1e-15, 1 - 1e-15, xtol=1e-15)

    bisection = max(abs(problem.value_at(q) - written(q)) for q in _posteriors())
    certified = problem.solve().bound
    rng = np.random.default_rng(1)
    local = []
    for _ in range(5):
        result = minimize(
            written, rng.dirichlet(np.ones(RISKS.size)), method="SLSQP",
            bounds=[(0, 1)] * RISKS.size,
            constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
            options={"ftol": 1e-12, "maxiter": 500},
        )  # fmt: skip
        local.append(written(np.clip(result.x, 0, None) / np.clip(result.x, 0, None).sum()))
    return {
        "bisection": bisection,
        "starts": len(local),
        "local_best_above": min(local) - certified,
    }


def gibbs_posterior(*_sources):
    """Eqs. (16)-(17): ``q ~ p exp(-m l)`` minimizes ``E_Q l + KL(Q||P)/m``."""
    rng = np.random.default_rng(2)
    prior = rng.dirichlet(np.ones(RISKS.size))
    gibbs = prior * np.exp(-M * (RISKS - RISKS.min()))
    gibbs /= gibbs.sum()

    def objective(q):
        on = q > 0
        return q @ RISKS + np.sum(q[on] * np.log(q[on] / prior[on])) / M

    starts = [rng.dirichlet(np.ones(RISKS.size)) for _ in range(5)]
    local = []
    for start in starts:
        found = minimize(
            objective, start, method="SLSQP", bounds=[(1e-300, 1)] * RISKS.size,
            constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
            options={"ftol": 1e-14, "maxiter": 1000},
        ).x  # fmt: skip
        local.append(objective(found / found.sum()))  # on the simplex exactly
    return {"starts": len(local), "below": min(local) - objective(gibbs)}


def algorithm_1_kl(*_sources):
    """Theorem 9's fixed points and Algorithm 1 on the recorded kl-chi2 instance."""
    import cvxpb as pb
    from cvxpb.engine.methods import fixed_point

    rng = np.random.default_rng(69)
    H = int(rng.integers(30, 120))
    risks = np.where(rng.random(H) < 0.3, 0.0, rng.uniform(0, 0.3, H))
    problem = pb.BoundProblem(risks, 50, 0.05, "kl")
    exact, stopped = problem.solve(), problem.solve("fixed_point")
    scan = fixed_point._Scan(problem.standard_form().problem, 2000, 1e-13)
    optimal = int(exact.support_size)
    failed = [size for size in range(2, optimal + 1) if not np.isfinite(scan.solve_size(size)[4])]
    return {
        "stopped": int(stopped.details["support_size"]),
        "optimal": optimal,
        "failed": ", ".join(map(str, failed)),
        "above": stopped.bound / exact.bound - 1,
    }


def eq_37(*_sources):
    """Eqs. (36)-(37): the bound (36) allows, by bisection, against (37) as printed."""
    from cvxpb.numerics.constants import squared_constant

    problem = _problem("sq")
    constant = squared_constant(M)
    p = 1 / RISKS.size
    differences, below = [], []
    for q in _posteriors():
        mean = float(q @ RISKS)
        right = np.sqrt(np.sum(q**2 / p) * constant / DELTA)  # (36)'s right side
        largest = brentq(lambda risk, mean=mean, right=right: (mean - risk) ** 2 - right, mean, 2)
        differences.append(abs(problem.value_at(q) - largest))
        below.append(largest - (mean + right))  # (37) as printed
    return {
        "bisection": max(differences),
        "posteriors": len(differences),
        "printed_below": min(below),
        "printed_below_max": max(below),
    }
