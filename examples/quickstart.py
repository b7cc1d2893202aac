"""Declare a bound problem, solve it exactly, and look at the certificate."""

import numpy as np

import cvxpb as pb

rng = np.random.default_rng(0)
risks = np.round(rng.uniform(0.02, 0.4, 200) * 1840) / 1840  # 200 classifiers, m = 1840

for divergence, distances in (("chi2", ("linear", "sq", "kl")), ("kl", ("kl", "catoni"))):
    for distance in distances:
        res = pb.BoundProblem(
            risks, m=1840, delta=0.05, distance=distance, divergence=divergence
        ).solve()
        cert = res.certificate
        print(
            f"{divergence:>4} {distance:>6}: bound {res.bound:.6f} "
            f"(certified gap {cert.gap:.1e}), support {res.support_size:>3}, "
            f"{cert.parameter} = {cert.value:.4g}"
        )
