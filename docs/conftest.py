"""pytest: the docs pages are doctests; these scripts are not, nor is the gallery
sphinx-gallery writes from ``examples/`` (its scripts run in ``tests/test_examples.py``)."""

collect_ignore = ["conf.py", "check_rendered.py", "gallery", "ledger"]
