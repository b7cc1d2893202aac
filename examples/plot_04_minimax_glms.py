r"""
Minimax rules as generalized linear models
==========================================

Farnia & Tse (2016) look for the decision rule whose worst-case expected loss, over
every distribution whose cross-moments :math:`\mathbb E[\theta(Y) X]` lie within
:math:`\epsilon` of the sample's in a norm :math:`\|\cdot\|`, is least. By convex
duality that rule comes from a regularized GLM (their Theorem 3, eq. 21):

.. math::

   \min_{A}\ \frac1n \sum_{i=1}^n \bigl[F_\theta(A x_i) - \theta(y_i)^\top A x_i\bigr]
   + \sum_i \epsilon_i \|A_i\|_*,

where :math:`F_\theta` is the conjugate of the loss's generalized entropy and
:math:`\|\cdot\|_*` the dual of the moment norm. The loss picks the GLM (log loss:
logistic regression; 0-1 loss: the minimax SVM; Brier loss: a modified Huber
regression; quadratic loss: least squares) and the norm picks the regularizer
(moments within :math:`\epsilon` in :math:`\ell_\infty` give an :math:`\ell_1`
penalty, the lasso; a norm over groups of features gives the group lasso).
"""

# %%
# Three losses, one program each
# ------------------------------
#
# For two classes, with :math:`\theta(y)` the indicator of the first class and
# :math:`z = a^\top x`, the summand :math:`F_\theta(z) - \theta z` is a loss of the
# margin :math:`yz` (:math:`y = \pm 1`, up to the sign convention of the reference
# class): :math:`\log(1 + e^{-yz})` for the log loss (eq. 28), :math:`\max(0, (1 -
# yz)/2, -yz)` for the 0-1 loss (eq. 30, below the hinge), and half the modified
# Huber loss of :math:`yz/2` for the Brier loss (eq. 36). Here they are computed from
# cvxpb's conjugates :math:`F_\theta` and checked against those closed forms.

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Lasso
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from cvxpb.app import datasets
from cvxpb.minimax import MinimaxClassifier, MinimaxRegressor, minimax_program
from cvxpb.minimax.entropies import BrierEntropy, LogEntropy, ZeroOneEntropy

margin = np.linspace(-3, 3, 301)
conjugates = {"log": LogEntropy(), "0-1 (minimax SVM)": ZeroOneEntropy(), "Brier": BrierEntropy()}
losses = {name: F.value(margin[:, None]) - margin for name, F in conjugates.items()}
closed_forms = {
    "log": np.log1p(np.exp(-margin)),
    "0-1 (minimax SVM)": np.maximum.reduce([0 * margin, (1 - margin) / 2, -margin]),
    "Brier": np.where(margin >= -2, np.maximum(0, 1 - margin / 2) ** 2 / 2, -margin),
}
for name, values in losses.items():
    print(
        f"{name}: F(z) - z from cvxpb's conjugate, largest difference from the closed "
        f"form {np.abs(values - closed_forms[name]).max():.1e}"
    )
losses["hinge, for comparison"] = np.maximum(0, 1 - margin)
fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
for (label, values), style in zip(losses.items(), ("-", "-", "-", ":"), strict=True):
    ax.plot(margin, values, style, label=label)
ax.set(xlabel="margin yz", ylabel="loss", ylim=(-0.1, 3), title="the GLMs' losses")
ax.legend(frameon=False, fontsize=8)
plt.show()

# %%
# The log loss by hand
# --------------------
#
# On the UCI credit approval data (crx), with moments matched within
# :math:`\epsilon` in :math:`\ell_\infty`, eq. (21) is :math:`\ell_1`-regularized
# logistic regression. Written by hand in CVXPY, it has the value of the program
# ``minimax_program`` builds:

data = datasets.load("crx")
X_train, X_test, y_train, y_test = train_test_split(
    data.X, data.y, test_size=0.3, random_state=0, stratify=data.y
)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
eps = 0.02
first = (y_train == np.unique(y_train)[0]).astype(float)  # theta(y): the first class

a = cp.Variable(X_train.shape[1])
z = X_train @ a
by_hand = cp.Problem(
    cp.Minimize(cp.sum(cp.logistic(z) - cp.multiply(first, z)) / len(first) + eps * cp.norm1(a))
)
by_hand.solve(solver="CLARABEL")
program, A = minimax_program(X_train, y_train, loss="log", norm="linf", eps=eps)
program.solve(solver="CLARABEL")
print(f"by hand {by_hand.value:.8f}; minimax_program {program.value:.8f}")
print(f"features kept: {np.sum(np.abs(a.value) > 1e-6)} of {X_train.shape[1]}")

# %%
# The three programs and their estimators
# ---------------------------------------
#
# ``minimax_program`` writes eq. (21) for each loss with the dual norm of the moment
# norm as its regularizer: :math:`\ell_\infty` moments give
# :math:`\epsilon\|a\|_1`, :math:`\ell_2` moments :math:`\epsilon\|a\|_2`. The 0-1
# loss's :math:`F_\theta` is a maximum over how many classes tie (a ``sum_largest``
# per sample, or its LP dual), the Brier loss's a projection onto the simplex
# dualized into a smooth program. ``MinimaxClassifier`` solves the same programs
# (by a working-set interior-point method for the 0-1 loss, skglm for the log loss
# with :math:`\ell_\infty` moments, CVXPY otherwise: its ``route_`` says which) and
# reports the optimum as ``worst_case_loss_``; without an intercept its value is the
# program's.

values = {}
for loss in ("log", "zero_one", "brier"):
    for norm in ("linf", "l2"):
        glm, _ = minimax_program(X_train, y_train, loss=loss, norm=norm, eps=eps)
        glm.solve(solver="ECOS")  # Clarabel ends the Brier-l2 one "inaccurate" here
        fitted = MinimaxClassifier(loss=loss, norm=norm, eps=eps, fit_intercept=False)
        fitted.fit(X_train, y_train)
        values[loss, norm] = (glm.value, fitted.worst_case_loss_)
        print(
            f"{loss:>8}, {norm:>4} moments: DCP {glm.is_dcp()}, program "
            f"{glm.value:.7f}, estimator {fitted.worst_case_loss_:.7f} "
            f"({fitted.route_})"
        )

# %%
# The classifiers across epsilon
# ------------------------------
#
# A larger :math:`\epsilon` lets the adversary move the moments further, so the
# robust rule trusts fewer of them: the :math:`\ell_1` penalty grows and features
# drop out. ``worst_case_loss_`` is the value of eq. (21), the minimax value over the
# moment set; Farnia & Tse's Theorem 2, which makes the minimax rule's worst-case
# expected loss equal to it, asks for a loss continuous in the decision, which the
# log and Brier losses are and the 0-1 loss is not.

epsilons = np.geomspace(0.002, 0.2, 12)
paths = {}
for loss in ("zero_one", "brier"):
    fits = [
        MinimaxClassifier(loss=loss, norm="linf", eps=e).fit(X_train, y_train) for e in epsilons
    ]
    paths[loss] = (
        [np.sum(np.abs(c.coef_) > 1e-6) for c in fits],
        [np.mean(c.predict(X_test) != y_test) for c in fits],
        [c.worst_case_loss_ for c in fits],
    )
for loss, (kept, errors, worst) in paths.items():
    print(
        f"{loss:>8}: features kept {kept[0]} -> {kept[-1]}, test error "
        f"{errors[0]:.3f} -> {errors[-1]:.3f}, worst-case loss {worst[0]:.3f} -> "
        f"{worst[-1]:.3f}"
    )

# %%
# The lasso and the group lasso as minimax rules
# ----------------------------------------------
#
# With the quadratic loss, :math:`\theta(y) = y` and :math:`\mathbb E Y^2 \le
# \rho^2`, :math:`F_\theta(z) = z^2/4 + \rho^2` on the data and eq. (21) is least
# squares. Writing :math:`b = a/2` (the prediction :math:`\nabla F_\theta(z) = z/2`),
# it is :math:`\frac1n \|y - Xb\|^2 + 2\epsilon \|b\|_1`: scikit-learn's ``Lasso`` at
# ``alpha = eps``. On the diabetes data the minimax regressor's coefficients are
# Lasso's, which we check, and a norm over groups of features (eq. 34) gives the
# group lasso: a group leaves the model all at once. Each group's :math:`\epsilon`
# is scaled by the square root of its size, as the group lasso usually is.

X, y = load_diabetes(return_X_y=True)
names = load_diabetes().feature_names
X, y = StandardScaler().fit_transform(X), (y - y.mean()) / y.std()
groups = [[0, 1], [2, 3], [4, 5, 6, 7, 8, 9]]  # age, sex | bmi, bp | six blood serums
group_names = ("age, sex", "bmi, bp", "serums s1-s6")
epsilons = np.geomspace(0.005, 1.0, 30)
scale = np.sqrt([len(g) for g in groups])
lasso = np.array([MinimaxRegressor(norm="linf", eps=e).fit(X, y).coef_ for e in epsilons])
grouped = np.array(
    [MinimaxRegressor(norm="group", groups=groups, eps=e * scale).fit(X, y).coef_ for e in epsilons]
)
sklearn_lasso = np.array(
    [Lasso(alpha=e, tol=1e-12, max_iter=100_000).fit(X, y).coef_ for e in epsilons]
)
print(f"largest difference from scikit-learn's Lasso: {np.abs(lasso - sklearn_lasso).max():.1e}")

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained", sharey=True)
for j in range(X.shape[1]):
    left.semilogx(epsilons, lasso[:, j], label=names[j])
left.semilogx(epsilons, sklearn_lasso, "k:", lw=0.8)
left.set(
    xlabel=r"$\epsilon$",
    ylabel="coefficient",
    title=r"$\ell_\infty$ moments: the lasso (dotted: scikit-learn)",
)
left.legend(frameon=False, fontsize=7, ncol=2)
colors = ("tab:blue", "tab:orange", "tab:green")
for group, name, color in zip(groups, group_names, colors, strict=True):
    for k, j in enumerate(group):
        right.semilogx(epsilons, grouped[:, j], color=color, label=name if k == 0 else None)
right.set(xlabel=r"$\epsilon$", title="moments by group: the group lasso")
right.legend(frameon=False, fontsize=8)
plt.show()
