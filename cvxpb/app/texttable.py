"""Rows of dicts as an aligned text table (for the command line and the benchmarks,
without loading pandas)."""


def format_table(rows: list[dict], formats: dict[str, str]) -> str:
    """One line a row; ``formats`` maps each column to a format spec such as ``">9.4f"``."""
    cells = [[f"{row[c]:{f}}".strip() for c, f in formats.items()] for row in rows]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(formats)]
    align = ["<" if f.startswith("<") else ">" for f in formats.values()]
    lines = [[*formats], *cells]
    return "\n".join(
        " ".join(f"{text:{a}{w}}" for text, a, w in zip(line, align, widths, strict=True))
        for line in lines
    )


def print_table(rows: list[dict], formats: dict[str, str]) -> None:
    """Print :func:`format_table`."""
    print(format_table(rows, formats))
