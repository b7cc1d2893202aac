"""Sphinx configuration for the cvxpb docs."""

project = "cvxpb"
author = "the cvxpb developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
exclude_patterns = ["_build"]
html_theme = "alabaster"
