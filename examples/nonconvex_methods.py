"""Every method of solution against the exact optimum, on the WDBC risks of the demo."""

import warnings

import cvxpb as pb
from cvxpb.app.demo import breast_cancer_risks

warnings.simplefilter("ignore")  # SLSQP and SCS warn when they stop early
data = breast_cancer_risks()
for divergence, distances in (("chi2", ("linear", "sq", "kl")), ("kl", ("sq", "kl"))):
    for distance in distances:
        prob = pb.BoundProblem(data.risks, data.m, 0.05, distance, divergence)
        table = prob.compare(options={"nlp": {"max_seconds": 10}})
        print(f"\n{divergence} divergence, {distance} distance: bound by method")
        columns = ["method", "bound", "gap", "support", "kkt_residual", "seconds", "status"]
        print(table[columns].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
