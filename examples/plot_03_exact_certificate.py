r"""
How the exact method certifies a global optimum
===============================================

The kl bound with the KL divergence (Seeger's bound with Maurer's constant) is

.. math::

   g(L, D) = \mathrm{kl}^{-1}\Bigl(L,\ \frac{D + \ln(\xi(m)/\delta)}{m}\Bigr),
   \qquad L = l^\top q,\quad D = \mathrm{KL}(q\,\|\,p),

the largest :math:`R` with :math:`\mathrm{kl}(L \,\|\, R)` at most the right-hand
side. It is not convex in :math:`q`, so a local method has no proof that where it
stops is the minimum. But
:math:`g` increases in both :math:`L` and :math:`D`, and that is enough for a global
method with a proof.

A minimizer of :math:`g` is Pareto-optimal for the pair :math:`(L, D)`: no posterior
has both a smaller risk and a smaller divergence. Both are convex in :math:`q`, so
the Pareto set is swept by the minimizers of :math:`L + D/\beta`, the scalarized
programs, and for KL those have a closed form, the Gibbs posteriors
:math:`q_i(\beta) \propto p_i e^{-\beta l_i}`. The minimum over the simplex becomes a
minimum over one number :math:`\beta \ge 0`.
"""

# %%
# The frontier
# ------------
#
# Along the Gibbs family :math:`L(\beta)` falls and :math:`D(\beta)` rises. The points
# :math:`(L(\beta), D(\beta))` trace the frontier :math:`D^*(L)`, the least divergence
# at a given risk: convex and decreasing, with slope :math:`-\beta` at
# :math:`q(\beta)`. The bound's level sets are curves in the same plane; the minimum
# is where the frontier touches the lowest one.

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import logsumexp

import cvxpb as pb
from cvxpb.app.demo import breast_cancer_risks

data = breast_cancer_risks()
risks, m, H = data.risks, data.m, data.risks.size
delta = 0.05
log_prior = np.full(H, -np.log(H))
confidence = pb.log_xi(m) - np.log(delta)


def gibbs(beta):
    """The Gibbs posterior at ``beta`` and its two statistics."""
    log_q = log_prior - beta * risks
    log_q -= logsumexp(log_q)
    q = np.exp(log_q)
    return q, float(q @ risks), float(q @ (log_q - log_prior))


def g(L, D):
    """The bound as a function of the risk and the divergence."""
    return pb.kl_inv_upper(L, (D + confidence) / m)


problem = pb.BoundProblem(risks, m=m, delta=delta, distance="kl", divergence="kl")
exact = problem.solve()
beta_star = exact.certificate.value
q_star, L_star, D_star = gibbs(beta_star)
print(
    f"cvxpb's optimum: bound {exact.bound:.9f} at beta = {beta_star:.2f} "
    f"({exact.status}, certified gap {exact.certificate.gap:.1e})"
)
print(f"g(L, D) at that Gibbs posterior: {g(L_star, D_star):.9f}")

betas = np.concatenate([[0.0], np.geomspace(1, 5000, 400)])
frontier = np.array([gibbs(b)[1:] for b in betas])

# %%
# The scalarized programs as supporting lines
# -------------------------------------------
#
# The program :math:`\min_q L(q) + D(q)/\beta` is solved by :math:`q(\beta)`, so no
# posterior lies below the line :math:`L + D/\beta = L(\beta) + D(\beta)/\beta`: the
# tangent of the frontier at :math:`q(\beta)`. Every scalarized program solved gives
# a line the whole feasible set lies above, and between two of them the frontier is
# pinned between their chord and their tangents.

fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
Ls = np.linspace(risks.min(), 0.045, 200)
Ds = np.linspace(0, np.log(H), 200)
grid_L, grid_D = np.meshgrid(Ls, Ds)
levels = np.vectorize(g)(grid_L, grid_D)
contours = ax.contour(
    grid_L,
    grid_D,
    levels,
    levels=exact.bound + np.array([0, 0.002, 0.005, 0.01, 0.02, 0.04]),
    colors="0.6",
    linewidths=0.8,
)
ax.clabel(contours, fmt="%.4f", fontsize=7)
ax.plot(
    frontier[:, 0], frontier[:, 1], color="tab:blue", lw=2, label=r"frontier $(L(\beta), D(\beta))$"
)
for beta in (60, 150, 1000, 3000):
    _, L_b, D_b = gibbs(beta)
    ax.plot(Ls, D_b - beta * (Ls - L_b), color="tab:green", lw=0.8, ls="--")
    ax.plot(L_b, D_b, "o", color="tab:green", ms=4)
ax.plot([], [], color="tab:green", ls="--", lw=0.8, label="scalarized programs' lines")
ax.plot(L_star, D_star, "*", color="tab:red", ms=12, label=f"the optimum, bound {exact.bound:.4f}")
ax.set(
    xlim=(Ls[0], Ls[-1]),
    ylim=(0, np.log(H)),
    xlabel="Gibbs risk L(q)",
    ylabel="KL(q || p)",
    title="level sets of the bound over the (L, D) plane",
)
ax.legend(frameon=False, fontsize=8, loc="upper right")
plt.show()

# %%
# Intervals that close
# --------------------
#
# On an interval :math:`[\beta_a, \beta_b]` every Gibbs posterior has
# :math:`L \ge L(\beta_b)` and :math:`D \ge D(\beta_a)`, so its bound is at least
# :math:`g(L(\beta_b), D(\beta_a))`. A branch and bound keeps the best value found so
# far, discards each interval whose lower bound is above it, and halves the rest;
# when no interval can do better than the best value by more than a tolerance, the
# discarded intervals together prove the minimum. Here is that search, written out
# in a few lines. Its intervals multiply near the optimum, where the bound is flat;
# cvxpb's search adds a second-order bound from the tangents above and rounds every
# statistic outward.

edges = np.geomspace(1, 5000, 9)
intervals = [(0.0, edges[0])] + list(zip(edges[:-1], edges[1:], strict=True))
best = min(g(*gibbs(b)[1:]) for b in edges)
rounds = []
for _ in range(20):
    lower = [g(gibbs(b)[1], gibbs(a)[2]) for a, b in intervals]
    rounds.append((list(intervals), lower, best))
    if best - min(lower) <= 1e-7:
        break
    kept = [iv for iv, lo in zip(intervals, lower, strict=True) if lo < best - 1e-7]
    intervals = [half for a, b in kept for half in ((a, (a + b) / 2), ((a + b) / 2, b))]
    best = min(best, *(g(*gibbs((a + b) / 2)[1:]) for a, b in kept))
evaluated = sum(len(kept) for kept, _, _ in rounds)
print(
    f"{len(rounds)} rounds, {evaluated} interval lower bounds evaluated, "
    f"{len(rounds[-1][0])} intervals open; best {best:.9f}, "
    f"proven lower bound {min(rounds[-1][1]):.9f}"
)
print(f"cvxpb: bound {exact.bound:.9f}, lower bound {exact.certificate.lower_bound:.9f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
for k in (0, 2, 5, len(rounds) - 1):
    kept, lower, _ = rounds[k]
    xs = [x for a, b in kept for x in (max(a, 1), b)]
    ys = [y for lo in lower for y in (lo, lo)]
    left.plot(xs, ys, lw=1.2, label=f"round {k + 1}: {len(kept)} intervals")
left.axhline(exact.bound, color="k", ls="--", lw=1, label="the minimum")
left.set(
    xscale="log",
    ylim=(exact.bound - 0.02, exact.bound + 0.05),
    xlabel=r"$\beta$",
    ylabel="lower bound on the interval",
    title="intervals' lower bounds",
)
left.legend(frameon=False, fontsize=7)
gaps = [best_k - min(lower) for _, lower, best_k in rounds]
right.semilogy(np.arange(1, len(gaps) + 1), gaps, "o-", ms=3)
right.axhline(exact.certificate.gap, color="tab:red", ls="--", lw=1, label="cvxpb's certified gap")
right.set(xlabel="round", ylabel="best value minus proven lower bound", title="the gap closing")
right.legend(frameon=False, fontsize=8)
plt.show()

# sphinx_gallery_thumbnail_number = 1
