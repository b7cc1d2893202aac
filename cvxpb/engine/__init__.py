"""The engine: a bound as a declaration of posterior terms and monotone atoms
(:mod:`~cvxpb.engine.declare`), :func:`~cvxpb.BoundProblem` as the short
form of the bounds of one distance and divergence (whose data, a declaration's standard
form, :class:`~cvxpb.engine.one_bound.OneBound`, the methods derived for one bound take), one
:class:`~cvxpb.engine.result.Result` for every method, and the methods of solution in one
registry (:mod:`~cvxpb.engine.methods`). It imports the PAC-Bayes objects
(:mod:`cvxpb.pac_bayes`) and the numerics below them, nothing above.
"""
