"""Printing a benchmark's rows as an aligned table."""


def print_table(rows: list[dict], formats: dict[str, str]) -> None:
    """One line a row; ``formats`` maps each column to a format spec such as ``">9.4f"``."""
    widths = {
        c: max(len(c), int("".join(ch for ch in f.split(".")[0] if ch.isdigit()) or 0))
        for c, f in formats.items()
    }
    print(" ".join(f"{c:>{widths[c]}}" for c in formats))
    for row in rows:
        print(" ".join(f"{row[c]:{f}}".rjust(widths[c]) for c, f in formats.items()))
