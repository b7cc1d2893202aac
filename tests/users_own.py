"""A divergence, a method and a majority-vote bound written outside the package, as a
user would write them from the docs' page "Extending cvxpb": none subclasses a
concept class of ours (the method subclasses ``Method``, the protocol of methods)."""

import math

import numpy as np

from cvxpb.engine.methods import Method, Needs, OneBoundMethod


def nudge(x, rounding):
    """``x`` moved one floating-point step outward (``rounding`` +1 up, -1 down, 0 not)."""
    return x if rounding == 0 else np.nextafter(x, math.copysign(math.inf, rounding))


class MyKL:
    """``KL(q||p)``, written again: a name, its core rounded outward, its gradient and
    CVXPY expression, its change of measure (Seeger's kl bound and McAllester's), its
    family of optimal posteriors (the Gibbs posteriors) and that change of measure as
    a CVXPY expression, which ``ccp`` asks for."""

    name = "my_kl"
    least = 0.0
    has_family = True

    def core(self, q, p, rounding=0):
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        value = math.fsum(q[on] * np.log(q[on] / p[on]))
        return float(nudge(value + rounding * 1e-15 * (1 + abs(value)), rounding))

    def core_gradient(self, q, p):
        return np.log(np.maximum(np.asarray(q, dtype=float), 1e-300) / np.asarray(p)) + 1

    def expr(self, q, p):
        import cvxpy as cp

        return cp.sum(cp.rel_entr(q, p))

    def accepts(self, distance):
        return distance.inverse_form in ("kl", "root")

    def right_side(self, bound, K, rounding=0):
        return bound.metric.kl_right_side(K, bound.m, bound.delta, rounding, bound.log_xi)

    def right_side_expr(self, bound, q, p):
        return bound.metric.kl_right_side(self.expr(q, p), bound.m, bound.delta, 0, bound.log_xi)

    def family(self, risks, prior):
        return GibbsPosteriors(risks, prior)


class GibbsPosteriors:
    """The family of ``MyKL``'s optimal posteriors, written from the family protocol:
    the Gibbs posteriors ``q ∝ p exp(-beta l)`` with ``beta = exp(v)``, ``v`` in
    ``[-800, 800]`` (``beta = 0``, the prior, to ``beta = inf``, the least risks).
    ``L`` falls along it and KL rises."""

    parameter = "beta"
    L_increasing = False
    frontier_pairs = None

    def __init__(self, risks, prior):
        self.on = np.asarray(prior) > 0
        self.size = self.on.size
        self.risks, self.prior = np.asarray(risks)[self.on], np.asarray(prior)[self.on]

    def breaks(self):
        return None

    def grid(self):
        return np.linspace(-40.0, 40.0, 161)

    def parameter_value(self, x):
        return np.exp(x)

    def program_weight(self, beta):
        return 1.0 / beta if beta > 0 else math.inf  # q(beta) minimizes l @ q + KL / beta

    def _members(self, beta):
        """One posterior per row, for each ``beta`` (in log space: no underflow)."""
        excess = self.risks - self.risks.min()
        beta = np.asarray(beta, dtype=float)[:, None]
        shift = np.where(excess > 0, beta * excess, 0.0)  # no inf * 0 at beta = inf
        log_weights = np.log(self.prior) - shift
        log_weights -= log_weights.max(axis=1, keepdims=True)
        weights = np.exp(log_weights)
        total = weights.sum(axis=1, keepdims=True)
        return weights / total, log_weights - np.log(total)

    def stats(self, x):
        q, log_q = self._members(np.exp(np.atleast_1d(np.asarray(x, dtype=float))))
        log_ratio = np.where(q > 0, log_q - np.log(self.prior), 0.0)
        return q @ self.risks, np.sum(q * log_ratio, axis=1)

    def lower_terms(self, x, L, div):
        margin = 1e-12  # far above the rounding of these sums for a few thousand voters
        return L - margin * (1 + np.abs(L)), np.maximum(div - margin * (1 + np.abs(div)), 0.0)

    def posterior(self, x):
        full = np.zeros(self.size)
        full[self.on] = self._members([np.exp(x)])[0][0]
        return full


class MyChi2:
    """Sahu & Hemachandra's chi-squared bound written again, with the moment
    ``M = sum q^2 / p`` as its argument: ``phi(L, R) <= sqrt(M I_phi(m, 2) / delta)``
    (Theorem 1 at order 2), that change of measure as a second-order cone (which
    ``cvx``, ``closed_form``, ``fixed_point`` and ``ccp`` ask for) and its family
    ``q ∝ p (nu - l)_+``."""

    name = "my_chi2"
    alpha = 2.0
    uses_constant = True
    has_family = True

    def core(self, q, p, rounding=0):
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        value = math.fsum(q[on] ** 2 / p[on])
        return float(nudge(value * (1 + rounding * 1e-15), rounding))

    def core_gradient(self, q, p):
        return 2 * np.asarray(q, dtype=float) / np.asarray(p, dtype=float)

    def expr(self, q, p):
        import cvxpy as cp

        return cp.sum(cp.multiply(1 / np.asarray(p), cp.square(q)))

    def accepts(self, distance):
        return distance.moment_bound

    def right_side(self, bound, M, rounding=0):
        return nudge(np.sqrt(nudge(M * bound.constant / bound.delta, rounding)), rounding)

    def cone(self, bound, p):
        return bound.constant / bound.delta, np.asarray(p, dtype=float)

    def family(self, risks, prior):
        from cvxpb.pac_bayes.families import Chi2Family

        return Chi2Family(risks, prior)


class AtThePrior(Method):
    """A method of one's own: the bound at the prior, for any problem (a baseline that
    proves nothing about the minimum)."""

    name = "at_the_prior"
    handles = "evaluates the bound at the prior"

    def refusal(self, problem):
        return None

    def solve(self, problem):
        prior = problem.declared().posterior.prior
        return problem.result_from_posterior(
            prior, method=self.name, status="feasible", seconds=0.0, iterations=0
        )


def first_order_mcallester(statistics):
    """A majority-vote bound of one's own, declared with the public atoms: twice
    McAllester's bound on the Gibbs risk, ``2 (L + sqrt((KL + ln(xi(n)/delta)) / (2n)))``
    (Germain et al., 2015, first-order; McAllester, 1999). ``statistics`` is the fitted
    vote's :class:`cvxpb.ensemble.registry.Statistics`."""
    import cvxpb as pb

    q, n, delta = statistics.q, statistics.n_gibbs, statistics.delta
    L, K = pb.gibbs_risk(q, statistics.risks), pb.KL(q)
    return 2 * (L + pb.sqrt((K + pb.log_xi(n) - math.log(delta)) / (2 * n)))


class ConeScan(OneBoundMethod):
    """A method of one's own for one bound: where the change of measure is a
    second-order cone, the bound along the segment from the prior to the best single
    classifier, scanned at 201 points (a baseline that proves nothing)."""

    name = "cone_scan"
    handles = "scans the segment from the prior to the best single classifier"
    requires = (Needs("divergence", "cone", "states its change of measure as no cone", gives=True),)

    def solve_one(self, data, **options):
        best = np.zeros(data.H)
        best[np.argmin(np.where(data.prior > 0, data.risks, np.inf))] = 1.0
        steps = np.linspace(0.0, 1.0, 201)
        points = [(1 - t) * data.prior + t * best for t in steps]
        q = min(points, key=data.evaluate)
        return data.result_from_posterior(
            q, method=self.name, status="feasible", seconds=0.0, iterations=steps.size
        )
