"""pytest: the docs pages are doctests; these scripts are not."""

collect_ignore = ["conf.py", "check_rendered.py"]
