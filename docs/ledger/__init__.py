"""The reproduction ledger as data.

Each row of ``rows.toml`` sets one statement of a paper (quoted briefly, with where it
is) beside ours. Our numbers are never typed: a row names the committed files they
come from and the function (in this package, one module per paper) that computes them
from those files; its words take the numbers through ``{name}`` or ``{name:format}``.
:func:`problems` checks a row against the statuses' legend, and :func:`page` writes
one paper's rows as the table of ``docs/reproduction.rst``.
"""

import functools
import importlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).parents[2]
ROWS = Path(__file__).with_name("rows.toml")
SNAPSHOT = Path(__file__).with_name("numbers.json")
# below this a number is a solver's residual (how closely two routes agree), which moves
# with the solvers' releases; the row's own checks bound it, the snapshot does not
NEGLIGIBLE = 1e-6

LEGEND = {
    "reproduced": "ours agrees with the paper within the precision it prints (the row's "
    "numbers are compared), or shows the same finding (the row states it as a check, "
    "or a test shows it)",
    "within noise": "the difference is inside the spread of repetitions (the row states "
    "the comparison)",
    "differs": "a different number or finding, with the reason where we know it",
    "corrected": "the paper's formula or number is wrong; the row gives the derivation "
    "and names the independent check (mpmath, brute force, a second solver)",
    "not reproduced": "not run here, with the reason",
    "not checked": "a statement with no number to compare (a diagram, an existence "
    "result, a rate with a hidden constant), with what would check it",
}

# {name} or {name:format}; a brace meant as text is doubled, as in str.format
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)(?::([^{}]*))?\}(?!\})")
# what a number may follow without being typed: a reference to the paper's parts
REFERENCE = re.compile(
    r"\b(?:Tables?|Figures?|[Ee]qs?\.|Theorems?|Lemmas?|Corollar(?:y|ies)|Propositions?|"
    r"Sections?|Algorithms?|[Ll]ines?|Appendix|Appendices|conditions?|column|et al\.,?)\s*"
    r"(?:\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?(?:\s*(?:,|and|to|-|–|/|or)\s*(?=\(?[A-Z]?\d))?)+"
)
# code, roles, years, the paper's own words in quotes, its equation numbers and
# references, the 0-1 loss's name, code blocks
LITERAL = re.compile(
    r"``.*?``|:\w+:`[^`]*`|\(\d{4}\)|\"[^\"]*\"|\(\d+[a-z]?\)|\[\d+\]|\b0-1\b|\b2C\b|"
    r"\.\. code-block::.*?(?=\n\S|\Z)",
    re.S,
)
TYPED = re.compile(r"(?<![\w.^/-])\d")


@dataclass(frozen=True)
class Row:
    """One statement of a paper and what we found of it."""

    paper: str
    where: str
    item: str
    quote: str
    status: str
    reason: str = ""
    ours: str = ""
    files: tuple = ()
    numbers: str = ""
    tests: tuple = ()
    agree: dict = field(default_factory=dict)
    holds: tuple = ()
    check: str = ""

    @property
    def key(self):
        """The row's name in the snapshot and in test ids."""
        return f"{self.paper}: {self.where}: {self.item}"


def load(path=ROWS):
    """The papers' settings (by key) and the rows, in the file's order."""
    data = tomllib.loads(Path(path).read_text())
    rows = []
    for entry in data["rows"]:
        for name in ("files", "tests", "holds"):
            entry[name] = tuple(entry.get(name, ()))
        rows.append(Row(**entry))
    return data["papers"], rows


@functools.lru_cache
def _computed(spec, files, root):
    module, function = spec.rsplit(".", 1)
    numbers = getattr(importlib.import_module(f"docs.ledger.{module}"), function)
    return plain(numbers(*(Path(root) / name for name in files)))


def compute(spec, files, root=ROOT):
    """The numbers ``module.function`` computes from ``files`` (paths under ``root``); each
    computed once per process (rows that share a function share its numbers)."""
    if not spec:
        return {}
    return dict(_computed(spec, tuple(files), str(root)))


def fill(template, numbers):
    """``template`` with each ``{name}`` or ``{name:format}`` replaced by its number."""

    def one(match):
        value = numbers[match.group(1)]
        spec = match.group(2)
        if spec is None:
            spec = ".4g" if isinstance(value, float) else ""
        return format(value, spec)

    return PLACEHOLDER.sub(one, template).replace("{{", "{").replace("}}", "}")


def typed_numbers(text):
    """The digits ``text`` shows outside placeholders, literals and references."""
    for pattern in (PLACEHOLDER, LITERAL, REFERENCE):
        text = pattern.sub(" ", text)
    return [text[max(0, m.start() - 20) : m.end() + 10] for m in TYPED.finditer(text)]


def printed_tolerance(printed):
    """Half a unit in the last place the paper prints."""
    mantissa = printed.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(printed.lower().split("e")[1]) if "e" in printed.lower() else 0
    return 0.5 * 10.0 ** (exponent - decimals)


def _test_exists(name, root):
    path, _, test = name.partition("::")
    source = Path(root) / path
    if not source.exists():
        return False
    return not test or re.search(rf"^(?:async )?def {test}\(", source.read_text(), re.M)


def sentences(text):
    """The sentences of ``text`` (a period ends one where a capital letter follows)."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip()) if s]


def legend_problems(row, numbers, root=ROOT):
    """What ``row`` fails of the legend, given its computed ``numbers``."""
    found = []
    if row.status not in LEGEND:
        return [f"status {row.status!r} is not in the legend"]
    if len(sentences(row.reason)) > 2:
        found.append("the reason has more than two sentences")
    if row.status != "reproduced" and not row.reason:
        found.append(f"a {row.status!r} row needs a reason")
    if row.status == "reproduced" and not (row.agree or row.holds or row.tests):
        found.append("a reproduced row compares numbers, states a check or names a test")
    if row.status == "within noise" and not row.holds:
        found.append("a 'within noise' row states the comparison with the spread")
    if row.status == "corrected" and not (row.check and _test_exists(row.check, root)):
        found.append("a corrected row names its independent check (an existing test)")
    for name in (*row.files, *row.tests):
        if not _test_exists(name, root):
            found.append(f"{name} does not exist")
    for text in (row.item, row.ours, row.reason):
        for name in PLACEHOLDER.findall(text):
            if name[0] not in numbers:
                found.append(f"{{{name[0]}}} is not among the row's numbers")
        found.extend(f"a typed number: {typed!r}" for typed in typed_numbers(text))
    for name, printed in row.agree.items():
        ours = numbers.get(name)
        if ours is None or abs(ours - float(printed)) > printed_tolerance(printed) * (1 + 1e-9):
            found.append(f"{name}: ours {ours} is not the paper's {printed}")
    for claim in row.holds:
        try:
            true = eval(claim, {"__builtins__": {"abs": abs, "min": min, "max": max}}, numbers)
        except Exception as error:  # noqa: BLE001 - the claim's own words are wrong
            true, claim = False, f"{claim} ({error})"
        if not true:
            found.append(f"the row's words claim {claim}, which does not hold")
    return found


def snapshot_problems(row, numbers, snapshot):
    """The numbers of ``row`` that moved from the reviewed ``snapshot``."""
    before = snapshot.get(row.key)
    if before is None:
        return [f"{row.key} is not in {SNAPSHOT.name}: review it, then write the snapshot"]
    found = [] if set(before) == set(numbers) else ["its numbers' names changed"]
    for name in set(before) & set(numbers):
        old, new = before[name], numbers[name]
        same = (
            math.isclose(old, new, rel_tol=1e-7, abs_tol=NEGLIGIBLE)
            if isinstance(old, float) and isinstance(new, (int, float))
            else old == new
        )
        if not same:
            found.append(f"{name} was {old!r} and is {new!r}")
    return found


def plain(numbers):
    """``numbers`` as JSON would hold them (numpy scalars as Python ones)."""
    out = {}
    for name, value in numbers.items():
        if hasattr(value, "item"):
            value = value.item()
        out[name] = value
    return out


def write_snapshot(rows=None, path=SNAPSHOT):
    """Compute every row's numbers and keep them as the reviewed snapshot."""
    rows = load()[1] if rows is None else rows
    snapshot = {row.key: plain(compute(row.numbers, row.files)) for row in rows if row.numbers}
    Path(path).write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")


def _cell(*parts):
    return " ".join(part for part in parts if part).replace("\n", " ")


def _sources(row):
    files = ", ".join(f"``{name}``" for name in row.files)
    through = f"``{row.numbers}``" if row.numbers else ""
    checks = (*row.tests, row.check) if row.check else row.tests
    tests = ", ".join(f"``{name}``" for name in checks)
    return "; ".join(part for part in (files, through, tests) if part) or "none"


def table(rows):
    """Rows of one paper as a list-table (reStructuredText)."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 22 30 28 20",
        "   :class: ledger",
        "",
        "   * - The paper",
        "     - cvxpb",
        "     - Status",
        "     - From (files; function; tests)",
    ]
    for row in rows:
        numbers = plain(compute(row.numbers, row.files))
        where = f"**{row.where}**: {fill(row.item, numbers)}"
        lines.append(f"   * - {_cell(where, '—', row.quote)}")
        lines.append(f"     - {_cell(fill(row.ours, numbers)) or 'none'}")
        lines.append(f"     - {_cell(f'**{row.status}**', fill(row.reason, numbers))}")
        lines.append(f"     - {_sources(row)}")
    return "\n".join(lines) + "\n"


def page(paper):
    """One paper's part of the page: its settings, then its rows."""
    papers, rows = load()
    settings = papers[paper]
    numbers = plain(compute(settings.get("numbers", ""), settings.get("files", ())))
    text = fill(settings.get("settings", ""), numbers) + "\n\n" + settings.get("published", "")
    return text + "\n\n" + table([row for row in rows if row.paper == paper])


def legend():
    """The statuses and what each means, as a bullet list."""
    return "\n".join(f"* **{status}**: {words};" for status, words in LEGEND.items())
