"""The linear-distance chi2 bound by every method, and the paper's constants."""

import numpy as np

import cvxpb as pb

risks = np.random.default_rng(1).uniform(0.05, 0.5, 50)
prior = np.random.default_rng(2).dirichlet(np.ones(50))
prob = pb.BoundProblem(risks, m=500, delta=0.05, distance="linear", prior=prior)

runs = [("exact", {}), ("closed_form", {})]
runs += [("cvx", {"solver": s}) for s in ("CLARABEL", "ECOS", "SCS")]
for method, options in runs:
    res = prob.solve(method, **options)
    label = method + (f"/{options['solver']}" if options else "")
    print(f"{label:>13}: {res.status:>8}  bound {res.bound:.10f}  support {res.support_size}")

for constants in ("exact", "paper"):
    res = pb.BoundProblem(risks, m=500, distance="sq", constants=constants).solve()
    print(f"squared distance, constants={constants}: bound {res.bound:.6f}")
