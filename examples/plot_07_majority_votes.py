r"""
Majority votes: every bound on one forest
=========================================

A majority vote errs only where at least half of its weighted voters err, so its
risk is bounded through statistics of the voters under a posterior :math:`\rho`
over them: twice the Gibbs risk :math:`L(\rho)` (first order, Markov's
inequality), four times the tandem risk :math:`T(\rho) = \mathbb E_{h, h' \sim
\rho}\, \mathbb P(h \text{ and } h' \text{ err})` (TND, Masegosa et al., 2020: second
order), the C-bound of Germain et al. (2015) from the Gibbs risk and the
disagreement, and the refinements of Wu et al. (2021, CCTND) and Wu & Seldin (2022,
split-kl). Each is a PAC-Bayes bound on its statistics, so each is a function of
:math:`\rho` that ``MajorityVoteClassifier`` declares and minimizes with a
certificate.

The TND bound with the kl form of the PAC-Bayes-kl inequality, for instance, is

.. math::

   \mathrm{MV}(\rho) \le 4\,\mathrm{kl}^{-1}\Bigl(\hat T(\rho),\
   \frac{2\,\mathrm{KL}(\rho\,\|\,\pi) + \ln(\xi(n)/\delta)}{n}\Bigr),

:math:`\hat T(\rho) = \rho^\top \hat{\mathbf T} \rho` a quadratic form of the
voters' pairwise tandem rates: a convex statistic inside a bound that is neither
convex nor concave in :math:`\rho`.
"""

# %%
# One forest, two ways to measure it
# ----------------------------------
#
# A random forest of 50 trees on the KEEL twonorm data (7400 examples, 20
# features; the papers use 100 trees, which doubles the time out of bag). Its
# trees' errors are measured either out of bag (each tree on the examples its
# bootstrap left out: every example is used, the pair rates on different numbers
# of examples) or on a held-out half that no tree saw (``validation="split"``).

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from cvxpb import datasets
from cvxpb.ensemble import MajorityVoteClassifier

data = datasets.keel("twonorm")
X, X_test, y, y_test = train_test_split(
    data.X, data.y, test_size=0.2, random_state=0, stratify=data.y
)
fits = {}
for validation in ("oob", "split"):
    forest = RandomForestClassifier(n_estimators=50, random_state=0)
    fits[validation] = MajorityVoteClassifier(
        forest, bound="tnd", validation=validation, random_state=0
    ).fit(X, y)
print(fits["split"].explain())

# %%
# Every bound, minimized
# ----------------------
#
# ``bounds()`` minimizes every bound that applies on the same statistics (the first
# call after installing cvxpb also compiles its numba kernels, about 15 s once;
# they are cached on disk), each with
# its status and certified gap: "optimal" means no posterior has a bound lower by
# more than the gap. The first-order and lambda bounds are functions of the Gibbs
# risk alone; the others see how the trees' errors correlate.

tables = {v: fit.bounds(progress=False) for v, fit in fits.items()}
columns = ["minimum", "status", "gap"]
table = pd.concat(
    {"out of bag": tables["oob"][columns], "held out": tables["split"][columns]}, axis=1
)
print(
    table.to_string(
        formatters={
            (side, column): form.format
            for side in ("out of bag", "held out")
            for column, form in (("minimum", "{:.4f}"), ("gap", "{:.1e}"))
        }
    )
)
names = list(table.index)
errors = {v: 1 - fit.score(X_test, y_test) for v, fit in fits.items()}
print(
    f"test error of the TND-weighted vote: out of bag {errors['oob']:.4f}, "
    f"held out {errors['split']:.4f}"
)

# %%
# The bounds side by side, and the trees' weights
# -----------------------------------------------
#
# Held out, the bounds are measured on half the data but on statistics no tree
# trained on; out of bag, on all of it but with pairs measured on fewer examples. The
# right panel shows the posterior TND puts on the trees, sorted, against the uniform
# vote: it keeps every tree, and moves weight toward the trees that err rarely and
# rarely together with the others (the tandem matrix's rows).

fig, (left, right) = plt.subplots(
    1, 2, figsize=(10, 3.8), layout="constrained", width_ratios=(1.6, 1)
)
positions = np.arange(len(names))
for shift, (validation, label) in zip(
    (-0.2, 0.2), (("oob", "out of bag"), ("split", "held out")), strict=True
):
    left.bar(
        positions + shift,
        tables[validation].loc[names, "minimum"],
        width=0.4,
        label=label,
    )
left.axhline(errors["split"], color="k", ls=":", lw=1, label="test error, held-out vote")
left.set_xticks(positions, names, rotation=45, ha="right", fontsize=8)
left.set(ylabel="certified minimum of the bound", title="every bound, one forest")
left.legend(frameon=False, fontsize=8)
for validation, label in (("oob", "out of bag"), ("split", "held out")):
    weights = np.sort(fits[validation].posterior_)[::-1]
    right.plot(weights, label=label)
right.axhline(1 / fits["split"].posterior_.size, color="k", ls=":", lw=1, label="uniform")
right.set(xlabel="tree, by weight", ylabel="posterior weight", title="TND's posterior")
right.legend(frameon=False, fontsize=8)
plt.show()
