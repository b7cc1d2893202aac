"""The reproduction ledger's rows (docs/ledger/rows.toml): each row's numbers, computed
from the committed files it names, meet the statuses' legend and are the reviewed ones
(docs/ledger/numbers.json); a committed number changed makes its row fail."""

import re
import shutil

import pandas as pd
import pytest

from docs import ledger

PAPERS, ROWS = ledger.load()
SNAPSHOT = ledger.json.loads(ledger.SNAPSHOT.read_text())
COMPUTED = [row for row in ROWS if row.numbers]


def _id(row):
    return row.key[:80]


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_row_meets_the_legend(row):
    numbers = ledger.compute(row.numbers, row.files)
    assert ledger.legend_problems(row, numbers) == []


@pytest.mark.parametrize("row", COMPUTED, ids=_id)
def test_every_rows_numbers_are_the_reviewed_ones(row):
    """A number that moved is shown here, to be reviewed on the page, then kept with
    ``python -m docs.ledger`` (which writes the snapshot)."""
    numbers = ledger.compute(row.numbers, row.files)
    assert ledger.snapshot_problems(row, numbers, SNAPSHOT) == []


def test_the_rows_are_whole_and_their_keys_unique():
    keys = [row.key for row in ROWS]
    assert len(keys) == len(set(keys))
    assert set(SNAPSHOT) == {row.key for row in COMPUTED}
    assert {row.paper for row in ROWS} <= set(PAPERS)
    for row in ROWS:
        assert row.where and row.item and row.quote, row.key
        assert row.ours or row.status in ("not reproduced", "not checked"), row.key


def test_the_papers_settings_type_no_number():
    for name, paper in PAPERS.items():
        numbers = ledger.compute(paper.get("numbers", ""), tuple(paper.get("files", ())))
        text = paper.get("settings", "")
        assert ledger.typed_numbers(text) == [], name
        ledger.fill(text, numbers)  # every placeholder is among the numbers


def test_typed_numbers_are_found_and_references_are_not():
    assert ledger.typed_numbers("kl is the tightest on 7 of 8") != []
    assert ledger.typed_numbers("by 0.012 over the runner-up") != []
    assert ledger.typed_numbers("Table 3, eqs. (16)-(17), Theorems 7 and 15, line 21") == []
    assert ledger.typed_numbers("{n} of {total:.0f}, ``C = 1/lam``, kl-chi2") == []


def test_a_reproduced_row_outside_the_printed_precision_fails():
    row = next(r for r in ROWS if r.agree)
    numbers = ledger.compute(row.numbers, row.files)
    name, printed = next(iter(row.agree.items()))
    moved = {**numbers, name: float(printed) + 2 * ledger.printed_tolerance(printed)}
    assert any(name in problem for problem in ledger.legend_problems(row, moved))


def _changed_copy(row, root):
    """The row's files under ``root``, every number of its CSV files moved a little."""
    for name in row.files:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".csv"):
            table = pd.read_csv(ledger.ROOT / name)
            numeric = table.select_dtypes("number").columns
            table[numeric] = table[numeric] * (1 + 1e-3) + 1e-3
            table.to_csv(target, index=False)
        else:
            shutil.copy(ledger.ROOT / name, target)


@pytest.mark.parametrize(
    "row", [row for row in COMPUTED if any(f.endswith(".csv") for f in row.files)], ids=_id
)
def test_a_changed_committed_number_fails_its_row(row, tmp_path):
    _changed_copy(row, tmp_path)
    try:
        numbers = ledger.compute(row.numbers, row.files, root=tmp_path)
    except (KeyError, ValueError, IndexError) as error:  # a key the row reads moved
        found = [repr(error)]
    else:
        found = ledger.legend_problems(row, numbers)
        found += ledger.snapshot_problems(row, numbers, SNAPSHOT)
    assert found, f"{row.key}: its numbers did not notice the change"


def test_the_page_is_written_from_the_rows():
    """Each paper's table comes from its rows: the page names each paper once and holds
    no table of its own but the committed runs' files."""
    page = (ledger.ROOT / "docs" / "reproduction.rst").read_text()
    for paper in PAPERS:
        assert page.count(f".. ledger:: {paper}\n") == 1, paper
    assert ".. list-table::" not in page
    prose = re.sub(r"^(\s+:[\w-]+:.*|\.\. _[\w-]+:)$", "", page, flags=re.M)
    assert ledger.typed_numbers(prose) == []


def _computed_blocks():
    """Each ``.. computed::`` block of the docs: its page, arguments and content."""
    blocks = []
    for page in sorted((ledger.ROOT / "docs").glob("*.rst")):
        text = page.read_text()
        pattern = r"^\.\. computed:: (.+)\n\n((?:   .*\n|\n)+)"
        for match in re.finditer(pattern, text, re.M):
            arguments = match.group(1).split()
            content = "\n".join(line[3:] for line in match.group(2).splitlines())
            blocks.append((page.name, arguments, content))
    return blocks


def test_every_computed_block_fills_and_types_no_number():
    blocks = _computed_blocks()
    assert blocks  # docs/benchmarks.rst has one
    for page, (spec, *files), content in blocks:
        assert all((ledger.ROOT / name).is_file() for name in files), page
        numbers = ledger.compute(spec, tuple(files))
        ledger.fill(content, numbers)  # every placeholder is among the numbers
        assert ledger.typed_numbers(content) == [], page
