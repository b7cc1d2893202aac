"""Parrado-Hernández et al. (2012) on Pima: one SVM under five PAC-Bayes bounds, and the prior SVMs.

Every bound is on the true error of the Gaussian posterior around the SVM (twice it
bounds the SVM itself, eq. 5); the informative priors are learnt from half of the
training set and the bound is computed on the other half.
"""

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvxpb.app import datasets
from cvxpb.svm import EtaPriorSVM, PriorSVM, svm_pac_bayes_bound

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

svc = SVC(C=1.0, gamma=gamma).fit(X, y)
prior_svc = SVC(C=1.0, gamma=gamma).fit(X_prior, y_prior)
print(f"SVM test error {np.mean(svc.predict(X_test) != y_test):.3f}\n")
print(f"{'bound on Q_D':<18} {'bound':>7} {'mu':>7} {'eta':>6} {'Q_S':>7}")
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
    print(f"{prior:<18} {result.bound:7.4f} {result.mu:7.2f} {eta:>6} {result.empirical:7.4f}")

for clf in (
    PriorSVM(C=1.0, gamma=gamma, random_state=0),
    EtaPriorSVM(C=1.0, gamma=gamma, random_state=0),
):
    clf.fit(X, y)
    error = np.mean(clf.predict(X_test) != y_test)
    print(
        f"\n{type(clf).__name__}: bound {clf.bound_:.4f} (deterministic "
        f"{clf.deterministic_bound_:.4f}), eta {clf.eta_:.2f}, test error {error:.3f}"
    )
