"""Farnia & Tse (2016): minimax classifiers on UCI credit approval (crx), and the GLMs they contain.

Each classifier's worst_case_loss_ is the value of eq. (21): the expected loss its
robust rule is guaranteed, an upper bound over every distribution in the moment set.
"""

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from cvxpb.app import datasets
from cvxpb.minimax import MinimaxClassifier, MinimaxRegressor, RobustFeatureSelector

data = datasets.load("crx")
X_train, X_test, y_train, y_test = train_test_split(
    data.X, data.y, test_size=0.3, random_state=0, stratify=data.y
)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

print(f"{data!r}\n")
print(f"{'classifier':<26} {'worst-case loss bound':>22} {'test error':>11}")
print("(worst-case loss: eq. 21, the expected loss the rule is guaranteed over the moment set)")
for name, clf in (
    ("minimax SVM (0-1 loss)", MinimaxClassifier(loss="zero_one", eps=0.02)),
    ("minimax Brier", MinimaxClassifier(loss="brier", eps=0.02)),
    (
        "randomized Brier (mmRBC)",
        MinimaxClassifier(loss="brier", eps=0.02, randomized=True, random_state=0),
    ),
    ("l1 logistic regression", MinimaxClassifier(loss="log", norm="linf", eps=0.02)),
):
    clf.fit(X_train, y_train)
    error = np.mean(clf.predict(X_test) != y_test)
    print(f"{name:<26} {clf.worst_case_loss_:>22.4f} {error:>11.3f}")

selector = RobustFeatureSelector(loss="brier", eps=0.05).fit(X_train, y_train)
print(
    f"\nrobust feature selection (eq. 43) keeps {selector.get_support().sum()} of "
    f"{X_train.shape[1]} features"
)

# the quadratic loss is a regression: predict the first feature from the others
target, features = X_train[:, 0], X_train[:, 1:]
groups = [list(range(k, min(k + 5, features.shape[1]))) for k in range(0, features.shape[1], 5)]
reg = MinimaxRegressor(norm="group", groups=groups, eps=0.05).fit(features, target)
kept = [g for g in groups if np.abs(reg.coef_[g]).max() > 1e-6]
test_mse = np.mean((reg.predict(X_test[:, 1:]) - X_test[:, 0]) ** 2)
print(
    f"group lasso keeps {len(kept)} of {len(groups)} groups; test mean squared error "
    f"{test_mse:.4f} (the target is standardized: variance 1 on the training part);\n"
    f"worst-case squared error {reg.worst_case_loss_:.4f}: the largest expected loss of "
    "this rule over every distribution\nwhose cross-moments with x lie within eps = 0.05 "
    f"of the sample's and with E[Y^2] <= rho^2 = {reg.rho_**2:.3f} (eq. 32),\n"
    "a guarantee over that whole set, so it sits above what one sample shows"
)
