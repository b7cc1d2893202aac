r"""
Your own divergence and your own bound
======================================

A divergence, a bound and a majority-vote bound can each be written in your own file
and then work wherever cvxpb's own do: every method of solution asks a problem only
for the members it needs, as CVXPY's solvers accept a problem by its features. Here
we write the KL divergence from scratch, pose the kl bound with it (Seeger's bound
with Maurer's constant) and let every method that accepts it solve it; then we
declare McAllester's bound from the public atoms and have it certified, and hand a
bound of our own to a majority vote.
"""

# %%
# A divergence from scratch
# -------------------------
#
# :math:`\mathrm{KL}(q\,\|\,p) = \sum_i q_i \ln(q_i / p_i)`. A divergence needs a
# ``name`` and its ``core`` rounded outward (``rounding=+1`` up, ``-1`` down: what
# cvxpb reports as a bound is a true upper bound). The other members are optional, and
# each one opens the methods that ask for it: a gradient (for the NLP baseline and
# the declared engine), a CVXPY expression (for CCP's convex subproblems), the change
# of measure the PAC-Bayes inequality pays (``right_side``), its family of optimal
# posteriors (for the exact method: the Gibbs posteriors
# :math:`q \propto p\, e^{-\beta l}`) and the closed-form minimum of
# :math:`g^\top q + \mu\,\mathrm{KL}(q\|p)`, whose value
# :math:`-\mu \ln \sum_i p_i e^{-g_i/\mu}` certifies each program the declared
# engine solves by weak duality (without it, the engine falls back on Frank-Wolfe
# gaps, and its status says when those leave the gap open).

import math

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import RandomForestClassifier

import cvxpb as pb
from cvxpb import datasets
from cvxpb.app.demo import breast_cancer_risks
from cvxpb.engine.methods import refusals
from cvxpb.ensemble import MajorityVoteClassifier
from cvxpb.numerics.tolerances import EPS, nudge
from cvxpb.pac_bayes.families import GibbsFamily


class MyKL(pb.Divergence):
    name = "my_kl"
    least = 0.0  # the core is never below 0
    has_family = True

    def core(self, q, p, rounding=0):
        q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
        on = q > 0
        terms = q[on] * np.log(q[on] / p[on])
        value = math.fsum(terms)  # the terms summed exactly, then their own errors:
        # the division's rounding reaches the log as an absolute error (eps q_i), the
        # log and the product add a few eps of |term|
        margin = 4 * EPS * (math.fsum(np.abs(terms)) + math.fsum(q[on]))
        return float(nudge(value + rounding * margin, rounding))

    def core_gradient(self, q, p):
        return np.log(np.maximum(np.asarray(q, dtype=float), 1e-300) / np.asarray(p)) + 1

    def expr(self, q, p):
        return cp.sum(cp.rel_entr(q, p))

    def accepts(self, distance):  # the kl and squared distances pay KL this way
        return distance.inverse_form in ("kl", "root")

    def right_side(self, bound, K, rounding=0):
        return bound.metric.kl_right_side(K, bound.m, bound.delta, rounding, bound.log_xi)

    def right_side_expr(self, bound, q, p):
        return bound.metric.kl_right_side(self.expr(q, p), bound.m, bound.delta, 0, bound.log_xi)

    def family(self, risks, prior):
        return GibbsFamily(risks, prior)

    def linear_min(self, p, g, mu):
        """argmin g @ q + mu KL(q || p) (a Gibbs posterior) and a lower bound on the
        minimum, -mu log sum p exp(-g / mu), rounded down past its rounding errors."""
        g = np.asarray(g, dtype=float)
        if mu == 0:
            vertex = (g == g.min()).astype(float)
            return vertex / vertex.sum(), float(nudge(g.min(), -1))
        z = np.log(p) - g / mu
        top = z.max()
        value = -mu * (top + math.log(math.fsum(np.exp(z - top))))
        margin = 16 * EPS * (mu * (1 + np.abs(z).max()) + abs(value))
        q = np.exp(z - top)
        return q / q.sum(), float(nudge(value - margin, -1))


# %%
# Every method that accepts it
# ----------------------------
#
# On the 36 RBF SVMs of the breast cancer data, ``methods()`` lists the methods whose
# needs the divergence meets, and ``compare()`` runs them all against the certified
# optimum. The others say in a line why not (``cvxpb.engine.methods.refusals``):
# the SOCP is the linear distance's program, the fixed-point equations need the
# chi-squared divergence's cone, and the vertex and weight searches are for
# declarations of more than two terms.

data = breast_cancer_risks()
mine = pb.BoundProblem(data.risks, m=data.m, delta=0.05, distance="kl", divergence=MyKL())
ours = pb.BoundProblem(data.risks, m=data.m, delta=0.05, distance="kl", divergence="kl")
print("methods that accept MyKL:", mine.methods())
for method, why in refusals(mine).items():
    print(f"  {method}: {why}")
table = mine.compare()
print(
    table[["method", "bound", "gap", "support", "status"]].to_string(
        index=False, formatters={"bound": "{:.9f}".format, "gap": "{:.1e}".format}
    )
)
print(f"cvxpb's own KL, exact method: {ours.solve().bound:.9f}")

# %%
# A bound of your own, declared
# -----------------------------
#
# McAllester's bound, :math:`L(q) + \sqrt{(\mathrm{KL}(q\|p) + \ln(\xi(m)/\delta))/(2m)}`,
# is a sum of an affine term and the square root of an affine function of a convex
# term. Written with the public atoms it is a declaration; ``Minimize(...).solve()``
# runs the declared engine, whose Pareto search over :math:`(L, \mathrm{KL})` proves
# its lower bound by weak duality. It is the squared distance's bound with the KL
# divergence, so cvxpb's exact method has to agree.

q = pb.Posterior.uniform(data.risks.size)
risk, divergence = pb.gibbs_risk(q, data.risks), pb.divergence_term(q, MyKL())
mcallester = risk + pb.sqrt((divergence + pb.log_xi(data.m) - math.log(0.05)) / (2 * data.m))
declared = pb.Minimize(mcallester).solve()
exact = pb.BoundProblem(data.risks, m=data.m, delta=0.05, distance="sq", divergence="kl").solve()
print(
    f"declared: {declared.bound:.9f} ({declared.status}, certified gap "
    f"{declared.certificate.gap:.1e}); exact, squared distance: {exact.bound:.9f}"
)

# %%
# ... and a majority-vote bound
# -----------------------------
#
# A majority-vote bound is a function of the fitted vote's statistics that returns
# a declaration: twice McAllester's bound on the Gibbs risk (the first-order bound
# with the squared distance), handed to ``MajorityVoteClassifier`` as ``bound=``.


def first_order_mcallester(statistics):
    q, n, delta = statistics.q, statistics.n_gibbs, statistics.delta
    L, K = pb.gibbs_risk(q, statistics.risks), pb.KL(q)
    return 2 * (L + pb.sqrt((K + pb.log_xi(n) - math.log(delta)) / (2 * n)))


twonorm = datasets.keel("twonorm")
forest = RandomForestClassifier(n_estimators=50, random_state=0)
vote = MajorityVoteClassifier(
    forest, bound=first_order_mcallester, validation="split", random_state=0
).fit(twonorm.X, twonorm.y)
print(
    f"twonorm, 50 trees: {vote.result_.bound:.6f} ({vote.result_.status}); cvxpb's "
    f"first-order kl bound {vote.bounds(progress=False).loc['first_order', 'minimum']:.6f}"
)

# %%
# The posteriors the two divergences find
# ---------------------------------------
#
# Left, how far each method's bound lies above the certified lower bound (the table
# above prints each): the certified methods within their certified gap, the local
# ones (CCP, SLSQP) wherever their stopping rules left them, never below it. Right, the
# two KL divergences
# give the same optimal posterior on the SVMs, and the kl bound's posterior is more
# concentrated than McAllester's, whose square root pays more for the divergence.

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
floor = mine.solve().certificate.lower_bound  # no posterior has a bound below this
left.barh(table["method"], table["bound"] - floor, color="tab:blue")
left.set(
    xscale="log",
    xlabel="bound minus the exact method's certified lower bound",
    title="MyKL's kl bound, by method",
)
right.plot(mine.solve().posterior, "o-", ms=3, label="kl bound, MyKL")
right.plot(ours.solve().posterior, "x", ms=5, label="kl bound, cvxpb's KL")
right.plot(declared.posterior, "s-", ms=3, label="McAllester, declared")
right.set(
    xlabel=r"SVM (by increasing $\lambda$)", ylabel="posterior weight", title="optimal posteriors"
)
right.legend(frameon=False, fontsize=8)
plt.show()
