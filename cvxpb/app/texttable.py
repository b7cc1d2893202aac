"""Rows of dicts as an aligned text table (for the command line and the benchmarks,
without loading pandas)."""


def format_table(rows: list[dict], formats: dict[str, str]) -> str:
    """Format rows as a text table, one line a row under a header.

    Parameters
    ----------
    rows : list of dict
        The rows, each ``{column: value}``.
    formats : dict
        Each column's format spec, such as ``">9.4f"``.

    Returns
    -------
    str
        The table.
    """
    cells = [[f"{row[c]:{f}}".strip() for c, f in formats.items()] for row in rows]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(formats)]
    align = ["<" if f.startswith("<") else ">" for f in formats.values()]
    lines = [[*formats], *cells]
    return "\n".join(
        " ".join(f"{text:{a}{w}}" for text, a, w in zip(line, align, widths, strict=True))
        for line in lines
    )


def print_table(rows: list[dict], formats: dict[str, str]) -> None:
    """Print :func:`format_table`.

    Parameters
    ----------
    rows : list of dict
        The rows, each ``{column: value}``.
    formats : dict
        Each column's format spec, such as ``">9.4f"``.
    """
    print(format_table(rows, formats))
