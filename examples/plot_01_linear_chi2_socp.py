r"""
The linear chi-squared bound as a second-order cone program
============================================================

Sahu & Hemachandra's Theorem 1 with the linear distance and the chi-squared
divergence bounds the true risk :math:`R(q)` of the Gibbs classifier drawn from a
posterior :math:`q` over :math:`H` classifiers by

.. math::

   R(q) \le l^\top q + c \, \Bigl(\sum_{i=1}^H \frac{q_i^2}{p_i}\Bigr)^{1/2},
   \qquad c = \sqrt{\frac{I_{\mathrm{lin}}(m, 2)}{\delta}} = \frac{1}{\sqrt{4 m \delta}},

with probability at least :math:`1 - \delta` over the :math:`m` examples the
empirical risks :math:`l_i` were measured on, for every :math:`q` at once (their
eq. 8). Here we minimize it over posteriors on 36 RBF SVMs trained on the UCI breast
cancer data (WDBC), first with a CVXPY program written by hand, then through cvxpb.
"""

# %%
# The classifiers and their risks
# -------------------------------
#
# ``breast_cancer_risks`` trains one RBF SVM per regularization parameter
# :math:`\lambda` (``C = 1 / (lambda n)``) on 40% of WDBC and measures each one's
# error on a validation part of :math:`m` examples that no SVM saw; the prior is
# uniform, chosen before the data.

import time

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np

import cvxpb as pb
from cvxpb.app.demo import breast_cancer_risks

data = breast_cancer_risks()
risks, m, H = data.risks, data.m, data.risks.size
prior = np.full(H, 1 / H)
delta = 0.05
print(data.description)
print(f"validation errors from {risks.min():.4f} to {risks.max():.4f}")

# %%
# The program by hand
# -------------------
#
# The first term is linear in :math:`q` and the second is a weighted Euclidean norm,
# :math:`\|p^{-1/2} \circ q\|_2`, so the bound is convex and the simplex is a
# polyhedron. With an epigraph variable :math:`t` for the norm the program is a
# second-order cone program:
#
# .. math::
#
#    \min_{q, t}\ l^\top q + c\,t
#    \quad\text{s.t.}\quad \mathbf 1^\top q = 1,\quad q \ge 0,\quad
#    \bigl\|p^{-1/2} \circ q\bigr\|_2 \le t .
#
# CVXPY writes the epigraph itself; we state the norm and let it check the rules of
# disciplined convex programming (DCP).

c = 1 / np.sqrt(4 * m * delta)
q = cp.Variable(H, nonneg=True)
by_hand = cp.Problem(
    cp.Minimize(risks @ q + c * cp.norm(cp.multiply(1 / np.sqrt(prior), q), 2)),
    [cp.sum(q) == 1],
)
print("DCP:", by_hand.is_dcp())
start = time.perf_counter()
by_hand.solve(solver="CLARABEL")
print(f"Clarabel: objective {by_hand.value:.6f} in {time.perf_counter() - start:.3f} s")

# %%
# The same program from cvxpb
# ---------------------------
#
# ``formulation("cvx")`` gives the program cvxpb solves with ``method="cvx"``: the same
# cone, stated in :math:`z = p^{-1/2} \circ q` with the data as CVXPY parameters, so
# that a new set of risks re-solves without compiling again (DPP).

problem = pb.BoundProblem(risks, m=m, delta=delta, distance="linear", prior=prior)
program = problem.formulation("cvx")
program.solve(solver="CLARABEL")
print("DCP and DPP:", program.is_dcp(dpp=True))
print(f"cvxpb's formulation: objective {program.value:.6f}")

# %%
# A solver's objective is a number the solver computed to its own tolerance; cvxpb
# never reports it as the bound. Every method returns a posterior, and the bound is
# evaluated again at that posterior and rounded up. The exact method (Algorithm 2's
# ordered subsets with their closed form, Theorem 4) also proves how far the minimum
# can lie below.

exact = problem.solve()
for method in ("cvx", "closed_form"):
    result = problem.solve(method)
    print(f"{method:>11}: bound {result.bound:.9f}  ({result.status})")
print(
    f"{'exact':>11}: bound {exact.bound:.9f}  ({exact.status}, certified gap "
    f"{exact.certificate.gap:.1e})"
)
print(
    f"hand-written program, evaluated at its posterior: "
    f"{problem.value_at(np.clip(q.value, 0, None) / np.clip(q.value, 0, None).sum()):.9f}"
)

# %%
# The optimal posterior
# ---------------------
#
# The posterior keeps the SVMs whose risk is below a threshold (the ordered subset of
# Algorithm 2) and weights them by how far below it they are: the bound trades the
# average risk against the divergence from the uniform prior, which grows as the
# weight concentrates.

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
left.semilogx(data.lambdas, risks, "o-", color="tab:gray", ms=3)
left.set(
    xlabel=r"regularization $\lambda$", ylabel="validation error", title=f"36 RBF SVMs, m = {m}"
)
right.bar(np.arange(H), exact.posterior, color="tab:blue", label="optimal posterior q")
right.step(
    np.arange(H + 1) - 0.5,
    np.append(prior, prior[-1]),
    where="post",
    color="tab:orange",
    label="uniform prior p",
)
right.set(
    xlabel=r"SVM (by increasing $\lambda$)",
    ylabel="weight",
    title=f"bound {exact.bound:.4f}, support {exact.support_size} of {H}",
)
right.legend(frameon=False)
plt.show()

# %%
# The bound at the optimum is far below the bound of the best single SVM (a point
# mass, whose divergence is :math:`1/p_i = H`) and below the uniform posterior's:

best_single = np.eye(H)[np.argmin(risks)]
print(
    f"best single SVM {problem.value_at(best_single):.4f}, "
    f"uniform {problem.value_at(prior):.4f}, optimum {exact.bound:.4f}"
)

# %%
# The constants
# -------------
#
# The linear distance's constant :math:`I_{\mathrm{lin}}(m, 2) = 1/(4m)` is the
# paper's too. The squared distance's, :math:`I_{\mathrm{sq}}(m, 2)`, is the fourth
# central moment of a binomial at its worst, :math:`(3m - 2)/(16m^3)`; the paper's
# Lemma 2 has :math:`(12m - 11)/(16m^3)` (its proof writes :math:`l(1-l)` where
# :math:`l^2(1-l)^2` belongs), valid for :math:`m \ge 2` but about four times larger.
# ``constants="paper"`` keeps it, to reproduce the paper's tables:

for constants in ("exact", "paper"):
    result = pb.BoundProblem(risks, m=m, delta=delta, distance="sq", constants=constants).solve()
    print(f"squared distance, constants={constants!r}: bound {result.bound:.6f}")
