"""The engine: a bound as a declaration of posterior terms and monotone atoms
(:mod:`~cvxpb.engine.declare`), :class:`~cvxpb.engine.problem.BoundProblem` as the short
form of the bounds of one distance and divergence, one
:class:`~cvxpb.engine.result.Result` for every method, and the methods of solution in one
registry (:mod:`~cvxpb.engine.methods`). It imports the PAC-Bayes objects
(:mod:`cvxpb.pac_bayes`) and the numerics below them, nothing above.
"""
