"""The application: the command line (:mod:`~cvxpb.app.cli`, :mod:`~cvxpb.app.commands`),
the papers' experiments (:mod:`~cvxpb.app.experiments`), the data sets that ship offline
(:mod:`~cvxpb.app.datasets`), the demo, plots, tables and diagnostics of posteriors."""
