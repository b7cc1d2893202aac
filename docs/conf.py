"""Sphinx configuration for the cvxpb docs."""

project = "cvxpb"
author = "the cvxpb developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    # ships MathJax 3 and points mathjax_path at the copy in _static: formulas render
    # with no network
    "sphinx-mathjax-offline",
    # the gallery: examples/*.py run at build time, their figures and output kept
    "sphinx_gallery.gen_gallery",
]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
exclude_patterns = ["_build"]
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "gallery",
    "filename_pattern": r"\.py$",  # every script runs: each has a figure
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "capture_repr": (),  # what the scripts print, not the repr of a cell's last value
    "min_reported_time": 0,  # every page states its running time
    # its summary pages load jQuery and DataTables from CDNs; each example's page
    # states its own running time, and the site must render offline
    "write_computation_times": False,
}
html_theme = "furo"
html_title = "cvxpb"
# scikit-learn generates these per estimator; their docstrings point into its own docs
autodoc_default_options = {
    "exclude-members": "set_fit_request, set_score_request, set_predict_request, "
    "set_transform_request, set_predict_proba_request, set_decision_function_request"
}
html_static_path = ["_static"]
html_css_files = ["ledger.css"]


def _protocol_table():
    """The directive ``.. protocol-table:: divergence`` (or ``distance``): the members
    the package states in :mod:`cvxpb.pac_bayes.protocol`, as a table, so the page
    cannot fall behind the code."""
    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    class ProtocolTable(Directive):
        required_arguments = 1

        def run(self):
            from cvxpb.engine.methods import who_asks
            from cvxpb.pac_bayes import protocol

            kind = self.arguments[0]
            members = {
                "divergence": protocol.DIVERGENCE_MEMBERS,
                "distance": protocol.DISTANCE_MEMBERS,
                "family": protocol.FAMILY_MEMBERS,
            }[kind]
            holder = nodes.container()
            text = protocol.table(members, who_asks(kind))
            lines = StringList(text.splitlines(), "protocol")
            self.state.nested_parse(lines, self.content_offset, holder)
            return holder.children

    return ProtocolTable


def _methods_table():
    """The directive ``.. methods-table::``: each registered method, what it takes and
    what it needs (its ``requires``), the statements its refusals are made of."""
    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    class MethodsTable(Directive):
        def run(self):
            from cvxpb.engine.methods import methods_table

            holder = nodes.container()
            lines = StringList(methods_table().splitlines(), "methods")
            self.state.nested_parse(lines, self.content_offset, holder)
            return holder.children

    return MethodsTable


def _ledger():
    """The directives ``.. ledger:: paper`` (one paper's settings and rows, their numbers
    computed from the committed runs by ``docs/ledger``), ``.. ledger-legend::`` and
    ``.. computed::`` (prose whose numbers a ``docs/ledger`` function computes)."""
    import sys
    from pathlib import Path

    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    sys.path.insert(0, str(Path(__file__).parents[1]))

    def parsed(directive, text, source):
        holder = nodes.container()
        lines = StringList(text.splitlines(), source)
        directive.state.nested_parse(lines, directive.content_offset, holder)
        return holder.children

    class Ledger(Directive):
        required_arguments = 1

        def run(self):
            from docs import ledger

            return parsed(self, ledger.page(self.arguments[0]), "docs/ledger/rows.toml")

    class Legend(Directive):
        def run(self):
            from docs import ledger

            return parsed(self, ledger.legend(), "docs/ledger")

    class Computed(Directive):
        """``.. computed:: module.function file ...``: the content, its ``{name}``
        placeholders filled with the numbers the function computes from the files."""

        required_arguments = 1
        optional_arguments = 20
        has_content = True

        def run(self):
            from docs import ledger

            numbers = ledger.compute(self.arguments[0], tuple(self.arguments[1:]))
            text = ledger.fill("\n".join(self.content), numbers)
            return parsed(self, text, self.arguments[0])

    return Ledger, Legend, Computed


def setup(app):
    ledger, legend, computed = _ledger()
    app.add_directive("ledger", ledger)
    app.add_directive("ledger-legend", legend)
    app.add_directive("computed", computed)
    app.add_directive("protocol-table", _protocol_table())
    app.add_directive("methods-table", _methods_table())
