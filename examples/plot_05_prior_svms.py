r"""
Data-dependent priors for SVMs
==============================

Parrado-Hernández et al. (2012) bound the true error of an SVM through the Gaussian
posterior :math:`Q = \mathcal N(\mu w, I)` around its unit weight vector :math:`w` in
feature space. Against the prior :math:`\mathcal N(0, I)` the KL divergence is
:math:`\mu^2/2` (Langford's bound); a prior centred on a direction :math:`\eta w_r`
learnt from part of the training set pays only :math:`\|\mu w - \eta w_r\|^2/2`, and
the bound is then measured on the rest. Two SVMs learn their weight vector knowing
that prior: the prior SVM and the eta-prior SVM. Here we write the prior SVM's
quadratic program, solve it three ways, and set the bounds of both against the
ordinary SVM's across the regularization parameter :math:`C`, on the Pima diabetes
data.
"""

# %%
# The prior SVM's program
# -----------------------
#
# The prior SVM (their Section 4.1) solves
# :math:`\min_w \tfrac12\|w - \eta w_r\|^2 + C\sum_i \xi_i` subject to
# :math:`y_i w^\top \phi(x_i) \ge 1 - \xi_i,\ \xi \ge 0`: an SVM regularized toward the
# prior's mean instead of toward 0. Its Lagrange dual (their eq. 26) is a
# box-constrained quadratic program,
#
# .. math::
#
#    \max_{0 \le \alpha \le C}\ v^\top \alpha - \tfrac12 \alpha^\top Y K Y \alpha,
#    \qquad v_i = 1 - \eta\, y_i\, w_r^\top \phi(x_i),
#
# and the primal is recovered as :math:`w = \sum_i \alpha_i y_i \phi(x_i) + \eta w_r`
# (eq. 27). The prior moves the margin each example must reach: one the prior already
# classifies well (:math:`y_i w_r^\top\phi(x_i)` large) needs less of :math:`\alpha`.

import time

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb.app import datasets
from cvxpb.svm import EtaPriorSVM, PriorSVM, svm_pac_bayes_bound
from cvxpb.svm.prior_qp import box_qp, eta_prior_qp, kernel_factor, prior_svm_program

data = datasets.load("pima")
X, X_test, y, y_test = train_test_split(
    data.X, data.y, test_size=0.2, stratify=data.y, random_state=0
)
scaler = StandardScaler().fit(X)
X, X_test = scaler.transform(X), scaler.transform(X_test)
gamma = 1 / (2 * X.shape[1])  # sigma = sqrt(d), the middle of the paper's grid
X_prior, X_rest, y_prior, y_rest = train_test_split(
    X, y, train_size=0.5, stratify=y, random_state=0
)

# the prior's direction w_r: an SVM on the prior half, normalized in feature space
# (a biased SVM is the homogeneous one on (phi(x), 1): kernel k + 1)
prior_svc = SVC(C=1.0, gamma=gamma).fit(X_prior, y_prior)
coef = prior_svc.dual_coef_[0]
K_prior = rbf_kernel(prior_svc.support_vectors_, gamma=gamma) + 1
norm = np.sqrt(coef @ K_prior @ coef)
g = (coef @ (rbf_kernel(prior_svc.support_vectors_, X_rest, gamma=gamma) + 1)) / norm

K = rbf_kernel(X_rest, gamma=gamma) + 1
eta, C = 10.0, 1.0
alpha = cp.Variable(y_rest.size)
v = 1 - eta * y_rest * g
by_hand = cp.Problem(
    cp.Maximize(v @ alpha - cp.quad_form(cp.multiply(y_rest, alpha), cp.psd_wrap(K)) / 2),
    [alpha >= 0, alpha <= C],
)
by_hand.solve(solver="CLARABEL")
program, _ = prior_svm_program(kernel_factor(K), y_rest, g, eta, C)
program.solve(solver="CLARABEL")
start = time.perf_counter()
a, _, converged = box_qp(np.outer(y_rest, y_rest) * K, v, C)
seconds = time.perf_counter() - start
dual_value = v @ a - (y_rest * a) @ K @ (y_rest * a) / 2
print(
    f"dual optimum: by hand {by_hand.value:.8f}, prior_svm_program {program.value:.8f}, "
    f"active-set box QP {dual_value:.8f} ({seconds * 1e3:.0f} ms, converged {converged})"
)

# %%
# One SVM under five priors
# -------------------------
#
# Before learning with the prior, the priors bound an ordinary SVM: Langford's
# :math:`\mathcal N(0, I)` and the expectation prior :math:`\mathcal N(\eta\,
# \mathbb E[y\phi(x)], I)` (Theorems 9-10, paid for by a concentration term) on all
# training examples; the prior :math:`\mathcal N(\eta w_r, I)` (the best of ten
# scalings, Corollary 7) and the :math:`\tau` prior (variance :math:`\tau^2` along
# :math:`w_r`, Theorem 8) on the half :math:`w_r` was not learnt from. Each bounds the
# error of the Gaussian posterior :math:`Q` around the SVM, at its best :math:`\mu`.

svc = SVC(C=1.0, gamma=gamma).fit(X, y)
print(f"SVM test error {np.mean(svc.predict(X_test) != y_test):.3f}")
print(f"{'prior':<16} {'bound':>7} {'mu':>7} {'eta':>5} {'Q_S':>7}")
for prior in ("langford", "prior", "tau", "expectation", "tau_expectation"):
    held_out = prior in ("prior", "tau")
    result = svm_pac_bayes_bound(
        svc,
        X_rest if held_out else X,
        y_rest if held_out else y,
        prior=prior,
        prior_svc=prior_svc,
        etas=[1.0] if prior == "tau_expectation" else np.linspace(1, 100, 10),
    )
    eta = "" if result.eta is None else f"{result.eta:.0f}"
    print(f"{prior:<16} {result.bound:7.4f} {result.mu:7.2f} {eta:>5} {result.empirical:7.4f}")

# %%
# The eta-prior SVM's program
# ---------------------------
#
# The eta-prior SVM (their Section 4.2) lets the scaling be a variable:
# :math:`\min_{v, \eta} \tfrac12\|v\|^2 + C\sum_i \xi_i` subject to
# :math:`y_i (v + \eta w_r)^\top \phi(x_i) \ge 1 - \xi_i`. Setting the Lagrangian's
# derivative in the free :math:`\eta` to zero puts one equality into the dual,
#
# .. math::
#
#    \max_{0 \le \alpha \le C}\ \mathbf 1^\top \alpha
#    - \tfrac12 \alpha^\top Y K Y \alpha
#    \quad\text{s.t.}\quad \sum_i \alpha_i y_i\, w_r^\top\phi(x_i) = 0,
#
# and :math:`\eta` is that equality's multiplier. cvxpb's solver finds it another way:
# the prior SVM's dual optimum :math:`D(\eta)` is convex in :math:`\eta` with
# derivative :math:`-\sum_i \alpha_i(\eta) y_i w_r^\top\phi(x_i)`, so the eta-prior SVM
# is the root of that derivative, found by regula falsi over warm-started box QPs.

alpha = cp.Variable(y_rest.size)
balance = (y_rest * g) @ alpha == 0
eta_by_hand = cp.Problem(
    cp.Maximize(cp.sum(alpha) - cp.quad_form(cp.multiply(y_rest, alpha), cp.psd_wrap(K)) / 2),
    [alpha >= 0, alpha <= C, balance],
)
eta_by_hand.solve(solver="CLARABEL")
a_eta, eta_root, _ = eta_prior_qp(np.outer(y_rest, y_rest) * K, y_rest, g, C)
eta_value = a_eta.sum() - (y_rest * a_eta) @ K @ (y_rest * a_eta) / 2
print(
    f"eta-prior dual: by hand {eta_by_hand.value:.8f} with eta = |multiplier| "
    f"{abs(balance.dual_value):.6f}; root search {eta_value:.8f} with eta = {eta_root:.6f}"
)

# %%
# Both estimators learn :math:`w_r` from ``prior_fraction`` of the training set and
# compute their bound on the rest.
#
# Bounds across C
# ---------------
#
# For each :math:`C`: the SVM on the whole training set under Langford's bound; the
# prior SVM under the bound of the best of ten prior scalings (the mixture prior,
# their Corollary 7); the eta-prior SVM under the :math:`\tau` prior (Theorem 8) and
# the mixture prior. Each bound holds with probability 0.99 for the stochastic
# classifier :math:`Q`; twice it bounds the SVM itself.

Cs = np.logspace(-2, 3, 11)
rows = []
for C in Cs:
    svc = SVC(C=C, gamma=gamma).fit(X, y)
    prior_svm = PriorSVM(C=C, gamma=gamma, random_state=0).fit(X, y)
    eta_svm = EtaPriorSVM(C=C, gamma=gamma, random_state=0).fit(X, y)
    rows.append(
        {
            "langford": svm_pac_bayes_bound(svc, X, y, prior="langford").bound,
            "prior": prior_svm.bound_,
            "eta_tau": eta_svm.bound_,
            "eta_mixture": eta_svm.mixture_bound_,
            "svm_error": np.mean(svc.predict(X_test) != y_test),
            "prior_error": np.mean(prior_svm.predict(X_test) != y_test),
            "eta_error": np.mean(eta_svm.predict(X_test) != y_test),
        }
    )
print(f"{'C':>8} {'SVM':>7} {'prior SVM':>9} {'eta, tau':>8} {'eta, mix':>8}")
for C, row in zip(Cs, rows, strict=True):
    print(
        f"{C:8.3g} {row['langford']:7.4f} {row['prior']:9.4f} {row['eta_tau']:8.4f} "
        f"{row['eta_mixture']:8.4f}"
    )

fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
for key, label, color in (
    ("langford", "SVM, Langford's prior N(0, I)", "tab:gray"),
    ("prior", "prior SVM, mixture prior", "tab:blue"),
    ("eta_tau", r"$\eta$-prior SVM, $\tau$ prior", "tab:orange"),
    ("eta_mixture", r"$\eta$-prior SVM, mixture prior", "tab:green"),
):
    ax.semilogx(Cs, [r[key] for r in rows], "o-", ms=3, color=color, label=label)
for key, color in (
    ("svm_error", "tab:gray"),
    ("prior_error", "tab:blue"),
    ("eta_error", "tab:orange"),
):
    ax.semilogx(Cs, [r[key] for r in rows], ":", color=color)
ax.plot([], [], "k:", label="test errors (dotted, same colours)")
ax.set(
    xlabel="C",
    ylabel="bound on the error of Q, delta = 0.01",
    title=f"Pima, {len(y)} training examples",
)
ax.legend(frameon=False, fontsize=8)
plt.show()

# %%
# Where the priors pay off: from :math:`C = 0.1` to :math:`3` the prior SVM's bound is
# the least of the four. At large :math:`C` Langford's bound is lower again: the
# informative priors measure their bound on only the part of the examples the prior
# did not see, Langford's on all of them.
